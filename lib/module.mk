LIB_SRCS += lib/json.c lib/error.c lib/event.c lib/hash.c lib/pool.c lib/ranklist.c \
	lib/rsd.c lib/strbuf.c lib/synth.c lib/synth_patterns.c lib/trace.c \
	lib/varint.c lib/xalloc.c lib/file.c lib/progress.c lib/pack.c lib/skew.c
LIB_SRCS += lib/replay.c lib/accuracy.c
# the global compressed trace (public header lib/merge.h)
LIB_SRCS += lib/gtrace/seq.c lib/gtrace/granks.c lib/gtrace/hist.c lib/gtrace/param.c \
	lib/gtrace/node.c lib/gtrace/merge.c lib/gtrace/expand.c lib/gtrace/timing.c \
	lib/gtrace/bound.c lib/gtrace/comms.c lib/gtrace/pack.c lib/gtrace/exact.c
