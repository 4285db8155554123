CMD_SRCS += cmd/main.c cmd/dump.c cmd/info.c cmd/progress.c
CMD_SRCS += cmd/synth.c
CMD_SRCS += cmd/signatures.c cmd/load.c
