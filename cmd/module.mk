CMD_SRCS += cmd/entry.c cmd/main.c cmd/dump.c cmd/evprint.c cmd/info.c
CMD_SRCS += cmd/synth.c
CMD_SRCS += cmd/signatures.c
CMD_SRCS += cmd/cluster.c
CMD_SRCS += cmd/compress.c cmd/expand.c cmd/export.c
CMD_SRCS += cmd/run.c cmd/mpikind.c
CMD_SRCS += cmd/modeopt.c cmd/analysis.c cmd/mpireplay.c cmd/figopt.c cmd/heatmap.c cmd/replay.c cmd/accuracy.c cmd/compare.c cmd/topology.c

# The installed tracecluster is linked apart, with a run.o that knows
# LIBDIR (where make install puts the shims); the build tree's binary
# looks next to itself only. Relinked by every make install.
INSTALL_RUN_OBJ := $(BUILD)/install/cmd/run.o
INSTALL_TRACECLUSTER := $(BUILD)/install/tracecluster
$(INSTALL_RUN_OBJ): cmd/run.c FORCE
	@mkdir -p $(dir $@)
	$(Q_CC)$(CC) $(CFLAGS) $(TC_CFLAGS) -DTC_LIBDIR='"$(LIBDIR)"' -c -o $@ $<
$(INSTALL_TRACECLUSTER): $(filter-out $(BUILD)/cmd/run.o,$(CMD_OBJS)) $(INSTALL_RUN_OBJ) $(LIBTC)
	$(Q_LD)$(CC) $(LDFLAGS) $(TC_LDFLAGS) -o $@ $(filter-out $(BUILD)/cmd/run.o,$(CMD_OBJS)) \
		$(INSTALL_RUN_OBJ) $(LIBTC) $(TC_LIBS)
