LIB_SRCS += lib/json.c lib/error.c lib/event.c lib/hash.c lib/pool.c lib/ranklist.c \
	lib/rsd.c lib/strbuf.c lib/synth.c lib/synth_patterns.c lib/trace.c \
	lib/varint.c lib/xalloc.c
LIB_SRCS += lib/merge.c lib/replay.c lib/accuracy.c
