CMD_SRCS += cmd/main.c cmd/dump.c cmd/evprint.c cmd/info.c cmd/progress.c
CMD_SRCS += cmd/synth.c
CMD_SRCS += cmd/signatures.c
CMD_SRCS += cmd/cluster.c
CMD_SRCS += cmd/compress.c cmd/expand.c cmd/export.c
CMD_SRCS += cmd/run.c
CMD_SRCS += cmd/modeopt.c cmd/analysis.c cmd/evsource.c cmd/figopt.c cmd/heatmap.c cmd/replay.c cmd/accuracy.c cmd/compare.c cmd/topology.c
