CMD_SRCS += cmd/main.c
