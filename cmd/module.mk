CMD_SRCS += cmd/main.c cmd/dump.c cmd/info.c
