# cmd/mpi/module.mk - tracecluster-replay, the MPI replay program.
#
# Built with the MPI C compiler (MPICC, lib/capture/module.mk) when one
# is found, against the core library; the tracecluster command itself
# never needs MPI. Installed beside the capture shim by make install.

REPLAY_MPI_SRCS := cmd/mpi/replay.c cmd/mpi/ops.c cmd/mpi/rma.c cmd/mpi/io.c cmd/mpi/share.c
REPLAY_MPI_OBJS := $(REPLAY_MPI_SRCS:%.c=$(BUILD)/mpi/%.o)
REPLAY_MPI := $(BUILD)/tracecluster-replay

ifeq ($(HAVE_MPICC),yes)
all: $(REPLAY_MPI) bin/tracecluster-replay
install: install-replay
uninstall: uninstall-replay
endif

$(BUILD)/mpi/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPICC) $(CFLAGS) $(TC_CFLAGS) -c -o $@ $<

$(REPLAY_MPI): $(REPLAY_MPI_OBJS) $(LIBTC)
	$(Q_LD)$(MPICC) $(LDFLAGS) $(TC_LDFLAGS) -o $@ $(REPLAY_MPI_OBJS) $(LIBTC) $(TC_LIBS)

bin/tracecluster-replay: $(REPLAY_MPI) FORCE
	@mkdir -p bin
	@ln -sfn ../$(REPLAY_MPI) $@

install-replay: $(REPLAY_MPI)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(REPLAY_MPI) $(DESTDIR)$(BINDIR)/tracecluster-replay

uninstall-replay:
	rm -f $(DESTDIR)$(BINDIR)/tracecluster-replay

.PHONY: install-replay uninstall-replay

-include $(REPLAY_MPI_OBJS:.o=.d)
