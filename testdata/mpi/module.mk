# testdata/mpi/module.mk - small MPI programs for the analysis commands.
#
# Each reproduces one pattern of a real code that an analysis must get
# right; test/programs.bats traces them with the capture shim and checks
# accuracy, cluster --verify, replay and heatmap on the traces:
#   split    rank-dependent Comm_split colour and key (NPB FT)
#   tags     rank-dependent message tags (NPB BT's WEST + jp + kp*NCELLS)
#   cancel   Irecv(MPI_ANY_SOURCE) + Cancel + Wait (HPCC)
#   subcomm  collectives on a dup, a split and a Cartesian communicator
#   imbalance one behaviour with rank-dependent compute times (LULESH);
#            "two": a second behaviour on odd ranks
#   jitter   the same calls on every rank, random compute time between
#            them (timing noise alone); "jitter roles": two behaviours
#   topo     neighbourhood collectives on a Cartesian grid, Cart_sub,
#            Comm_idup and Comm_create_group (test/replay-mpi.bats)
#   graph    neighbourhood collectives on Dist_graph_create_adjacent,
#            Dist_graph_create (weighted) and Graph_create graphs; prints
#            the bytes it sent to each rank (test/programs.bats)
#   wildtag  wildcard receives told apart by their tags alone (NPB LU),
#            for a trace that loses the tags (test/replay-mpi.bats)
#   mpi4     the MPI-4 calls (partitioned, persistent collectives,
#            Isendrecv, communicators from groups, _c): built with MPICH's
#            compiler only, into $(BUILD)/mpich/testdata/mpi/, for
#            test/capture-mpich.bats
# Built with the capture shim's MPI compiler (lib/capture/module.mk) into
# $(BUILD)/testdata/mpi/; make check builds them.

MPI_TEST_C := split tags cancel subcomm imbalance jitter topo graph wildtag
MPI_TESTPROGS := $(MPI_TEST_C:%=$(BUILD)/testdata/mpi/%)

ifeq ($(HAVE_MPICC),yes)
unit-tests: $(MPI_TESTPROGS)
endif

$(BUILD)/testdata/mpi/%: testdata/mpi/%.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPICC) -O2 -g -Wall -o $@ $<

MPI_TEST_MPICH := mpi4
MPI_MPICH_TESTPROGS := $(MPI_TEST_MPICH:%=$(BUILD)/mpich/testdata/mpi/%)

ifeq ($(HAVE_MPICH),yes)
capture-mpich: $(MPI_MPICH_TESTPROGS)
endif

$(BUILD)/mpich/testdata/mpi/%: testdata/mpi/%.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPICC_MPICH) -O2 -g -Wall -Wno-stringop-overflow -o $@ $<
