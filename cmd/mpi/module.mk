# cmd/mpi/module.mk - tracecluster-replay, the MPI replay program.
#
# Built with the MPI C compiler (MPICC, lib/capture/module.mk) when one
# is found, against the core library; the tracecluster command itself
# never needs MPI. Installed beside the capture shim by make install.
# A program runs under the launcher of the MPI it is built against only,
# so with MPICH's compiler (MPICC_MPICH) it is built against MPICH too,
# as the capture shim is (make capture-mpich; make check builds it):
# $(BUILD)/mpich/tracecluster-replay, installed as tracecluster-replay.mpich.

REPLAY_MPI_SRCS := cmd/mpi/replay.c cmd/mpi/ops.c cmd/mpi/rma.c cmd/mpi/io.c cmd/mpi/share.c \
	cmd/mpi/gapcpu.c cmd/mpi/discount.c cmd/mpi/pairs.c cmd/mpi/colls.c cmd/mpi/wild.c
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

# against MPICH: the same sources compiled with mpicc.mpich (GCC 12 warns
# about MPICH's MPI_STATUSES_IGNORE, (MPI_Status *)1, against the access
# attributes of its mpi.h: a false positive)
REPLAY_MPICH_OBJS := $(REPLAY_MPI_SRCS:%.c=$(MPICH_BUILD)/mpi/%.o)
REPLAY_MPICH := $(MPICH_BUILD)/tracecluster-replay

ifeq ($(HAVE_MPICH),yes)
capture-mpich: $(REPLAY_MPICH) bin/tracecluster-replay.mpich
endif

$(MPICH_BUILD)/mpi/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPICC_MPICH) $(CFLAGS) $(TC_CFLAGS) -Wno-stringop-overflow -c -o $@ $<

$(REPLAY_MPICH): $(REPLAY_MPICH_OBJS) $(LIBTC)
	$(Q_LD)$(MPICC_MPICH) $(LDFLAGS) $(TC_LDFLAGS) -o $@ $(REPLAY_MPICH_OBJS) $(LIBTC) $(TC_LIBS)

bin/tracecluster-replay.mpich: $(REPLAY_MPICH) FORCE
	@mkdir -p bin
	@ln -sfn ../$(REPLAY_MPICH) $@

install-replay: $(REPLAY_MPI)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(REPLAY_MPI) $(DESTDIR)$(BINDIR)/tracecluster-replay
	if [ -f $(REPLAY_MPICH) ]; then \
		install -m 755 $(REPLAY_MPICH) $(DESTDIR)$(BINDIR)/tracecluster-replay.mpich; \
		ln -sfn tracecluster-replay-mpi.1 $(DESTDIR)$(MANDIR)/man1/tracecluster-replay.mpich.1; \
	fi

uninstall-replay:
	rm -f $(DESTDIR)$(BINDIR)/tracecluster-replay $(DESTDIR)$(BINDIR)/tracecluster-replay.mpich
	rm -f $(DESTDIR)$(MANDIR)/man1/tracecluster-replay.mpich.1

.PHONY: install-replay uninstall-replay

-include $(REPLAY_MPI_OBJS:.o=.d) $(REPLAY_MPICH_OBJS:.o=.d)

# the model of the compute gaps' CPU time needs no MPI: its unit test
# links it, built with the C compiler, whether or not MPI is there
UNIT_TESTS += test/unit/test_gapcpu.c
$(BUILD)/test/unit/test_gapcpu: $(BUILD)/test/unit/test_gapcpu.o $(BUILD)/test/unit/unit.o \
		$(BUILD)/cmd/mpi/gapcpu.o $(LIBTC)
	$(Q_LD)$(CC) $(LDFLAGS) $(TC_LDFLAGS) -o $@ $^ $(TC_LIBS)

-include $(BUILD)/cmd/mpi/gapcpu.d

# so does the tracer's time taken out of the gaps
UNIT_TESTS += test/unit/test_discount.c
$(BUILD)/test/unit/test_discount: $(BUILD)/test/unit/test_discount.o $(BUILD)/test/unit/unit.o \
		$(BUILD)/cmd/mpi/discount.o $(LIBTC)
	$(Q_LD)$(CC) $(LDFLAGS) $(TC_LDFLAGS) -o $@ $^ $(TC_LIBS)

-include $(BUILD)/cmd/mpi/discount.d

# tracecluster-mpi: the tracecluster command line run in the first process
# of an MPI job, the other processes reading shares of the trace set
# (cmd/mpi/tcmpi.c). Links the command's objects but its main.
# (CMD_SRCS, not CMD_OBJS: the Makefile defines that after this file is read)
TCMPI_OBJS := $(BUILD)/mpi/cmd/mpi/tcmpi.o $(BUILD)/mpi/cmd/mpi/tcmpi_none.o \
	$(BUILD)/mpi/cmd/mpi/tcmpi_reduce.o $(BUILD)/mpi/cmd/mpi/reduce_mpi.o
TCMPI := $(BUILD)/tracecluster-mpi
TCMPI_CMD_OBJS := $(filter-out $(BUILD)/cmd/entry.o,$(CMD_SRCS:%.c=$(BUILD)/%.o))

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

# libtracecluster-online.so: in-job clustering, loaded by the capture shim
# at MPI_Finalize under TRACECLUSTER_ONLINE (cmd/mpi/online.c). The
# library is compiled once more with -fPIC (never with sanitizers: it is
# loaded into programs that are not) into $(BUILD)/pic-online/.
ONLINE_SO := $(BUILD)/libtracecluster-online.so
ONLINE_CFLAGS = $(filter-out $(SAN_FLAGS),$(TC_CFLAGS)) -fPIC -fvisibility=hidden
ONLINE_OBJS := $(BUILD)/pic-online/cmd/mpi/online.o $(BUILD)/pic-online/cmd/mpi/online_cham.o \
	$(BUILD)/pic-online/cmd/mpi/reduce_mpi.o $(LIB_SRCS:%.c=$(BUILD)/pic-online/%.o)

ifeq ($(HAVE_MPICC),yes)
all: $(ONLINE_SO)
install: install-online
uninstall: uninstall-online
endif

$(BUILD)/pic-online/cmd/mpi/%.o: cmd/mpi/%.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPICC) $(CFLAGS) $(ONLINE_CFLAGS) -c -o $@ $<

$(BUILD)/pic-online/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(CC) $(CFLAGS) $(ONLINE_CFLAGS) -c -o $@ $<

$(ONLINE_SO): $(ONLINE_OBJS)
	$(Q_LD)$(MPICC) -shared $(LDFLAGS) -Wl,-soname,libtracecluster-online.so -Wl,-z,defs \
		-o $@ $(ONLINE_OBJS) $(filter-out $(SAN_FLAGS),$(TC_LDFLAGS)) $(TC_LIBS)

install-online: $(ONLINE_SO)
	install -d $(DESTDIR)$(LIBDIR)
	install -m 755 $(ONLINE_SO) $(DESTDIR)$(LIBDIR)/libtracecluster-online.so

uninstall-online:
	rm -f $(DESTDIR)$(LIBDIR)/libtracecluster-online.so

.PHONY: install-online uninstall-online

-include $(ONLINE_OBJS:.o=.d)
