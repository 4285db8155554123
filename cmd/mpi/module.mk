# cmd/mpi/module.mk - tracecluster-replay, the MPI replay program.
#
# Built with the MPI C compiler (MPICC, lib/capture/module.mk) when one
# is found, against the core library; the tracecluster command itself
# never needs MPI. Installed beside the capture shim by make install.

REPLAY_MPI_SRCS := cmd/mpi/replay.c cmd/mpi/ops.c
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

# tracecluster-mpi: the tracecluster command line run in the first process
# of an MPI job, the other processes reading shares of the trace set
# (cmd/mpi/tcmpi.c). Links the command's objects but its main.
TCMPI_OBJS := $(BUILD)/mpi/cmd/mpi/tcmpi.o
TCMPI := $(BUILD)/tracecluster-mpi
TCMPI_CMD_OBJS = $(filter-out $(BUILD)/cmd/entry.o,$(CMD_OBJS))

ifeq ($(HAVE_MPICC),yes)
all: $(TCMPI) bin/tracecluster-mpi
install: install-tcmpi
uninstall: uninstall-tcmpi
endif

$(TCMPI): $(TCMPI_OBJS) $(TCMPI_CMD_OBJS) $(LIBTC)
	$(Q_LD)$(MPICC) $(LDFLAGS) $(TC_LDFLAGS) -o $@ $(TCMPI_OBJS) $(TCMPI_CMD_OBJS) $(LIBTC) $(TC_LIBS)

bin/tracecluster-mpi: $(TCMPI) FORCE
	@mkdir -p bin
	@ln -sfn ../$(TCMPI) $@

install-tcmpi: $(TCMPI)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(TCMPI) $(DESTDIR)$(BINDIR)/tracecluster-mpi

uninstall-tcmpi:
	rm -f $(DESTDIR)$(BINDIR)/tracecluster-mpi

.PHONY: install-tcmpi uninstall-tcmpi

-include $(TCMPI_OBJS:.o=.d)
