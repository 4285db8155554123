LIB_SRCS += formats/raw_codec.c formats/raw_read.c formats/raw_write.c formats/raw_synth.c \
	formats/reader.c formats/traceset.c \
	formats/scalatrace.c formats/dumpi.c formats/load.c formats/otf2_read.c \
	formats/export.c formats/otf2_write.c formats/chrome.c
LIB_SRCS += formats/tct.c formats/tct_text.c formats/tct_json.c formats/tct_bin.c
