# lib/capture/module.mk - the capture shim (PMPI interposer) and its tests.
#
# Built when an MPI C compiler is found (MPICC, default mpicc):
#   $(BUILD)/libtracecluster-capture.so   LD_PRELOAD or link before -lmpi
#   $(BUILD)/libtracecluster-capture.a    static, for link-time use
#   $(BUILD)/tracecluster-capture.pc      pkg-config file
# The shim and the raw-writer sources it needs are compiled a second time
# with -fPIC into $(BUILD)/pic/. The shim is never built with sanitizers:
# it is preloaded into MPI programs that are not, and ASan must come first
# in the initial library list; SANITIZE builds still build it plain, so
# their tests exercise the sanitized reader against it.
#
# Optional, when MPICH's compiler (MPICC_MPICH, default mpicc.mpich, as
# Debian's mpich package installs it beside Open MPI) is found:
#   $(BUILD)/mpich/libtracecluster-capture.so   the same shim against MPICH
#   $(BUILD)/mpich/testdata/capture/            the C test programs, and with
#                                               MPICH's Fortran compiler
#                                               (MPIFC_MPICH, default
#                                               mpif90.mpich) mpi4_mpifh and
#                                               connect_usempi
# (make capture-mpich; make check builds them too, for test/capture-mpich.bats).
# The other Fortran programs are built with Open MPI only.

MPICC ?= mpicc
MPIFC ?= mpif90
HAVE_MPICC := $(shell command -v $(MPICC) >/dev/null 2>&1 && echo yes)
HAVE_MPIFC := $(shell command -v $(MPIFC) >/dev/null 2>&1 && echo yes)
MPICC_MPICH ?= mpicc.mpich
# the pkg-config package of mpicc's MPI (Requires of tracecluster-capture.pc)
MPI_PC ?= $(shell p=$$($(MPICC) -showme:version >/dev/null 2>&1 && echo ompi-c || echo mpich); \
	$(PKG_CONFIG) --exists $$p 2>/dev/null && echo $$p)
HAVE_MPICH := $(shell command -v $(MPICC_MPICH) >/dev/null 2>&1 && echo yes)
MPIFC_MPICH ?= mpif90.mpich
HAVE_MPIFC_MPICH := $(shell command -v $(MPIFC_MPICH) >/dev/null 2>&1 && echo yes)

# runtime dlopen()ed for fast stack walks (see libtracecluster-capture(3))
DEPS_PKGS += libunwind8

CAPTURE_SRCS := lib/capture/capture.c lib/capture/elfsym.c lib/capture/record.c \
	lib/capture/sites.c lib/capture/tables.c lib/capture/unwind.c lib/capture/wrap_c.c \
	lib/capture/wrap_f.c
CAPTURE_CORE_SRCS := lib/error.c lib/event.c lib/hash.c lib/ranklist.c lib/varint.c \
	lib/xalloc.c lib/file.c lib/strbuf.c formats/raw_codec.c formats/raw_write.c
CAPTURE_OBJS := $(CAPTURE_SRCS:%.c=$(BUILD)/pic/%.o) $(CAPTURE_CORE_SRCS:%.c=$(BUILD)/pic/%.o)
CAPTURE_SO := $(BUILD)/libtracecluster-capture.so
CAPTURE_A := $(BUILD)/libtracecluster-capture.a
CAPTURE_PC := $(BUILD)/tracecluster-capture.pc

CAPTURE_CFLAGS = -std=c11 -Wall -Wextra -Wshadow -Wno-missing-field-initializers \
	-pthread -I. -fPIC -fvisibility=hidden -fno-omit-frame-pointer \
	$(shell $(PKG_CONFIG) --cflags libdeflate 2>/dev/null) -MMD -MP
ifdef DEVELOPER
CAPTURE_CFLAGS += -Werror
endif
CAPTURE_LIBS = $(shell $(PKG_CONFIG) --libs libdeflate 2>/dev/null || echo -ldeflate) -ldl -pthread

# test programs (testdata/capture/) and the trace checker
CAPTURE_TEST_C := ring halo2d coll split persist anysrc io mt bench mprobe neigh rma ionb phases \
	intercomm large connect fork grow
CAPTURE_TEST_F := ring_mpifh halo_usempi coll_f08 mpi3_usempi connect_usempi rma_io_usempi
CAPTURE_TESTPROGS := $(CAPTURE_TEST_C:%=$(BUILD)/testdata/capture/%)
ifeq ($(HAVE_MPIFC),yes)
CAPTURE_TESTPROGS += $(CAPTURE_TEST_F:%=$(BUILD)/testdata/capture/%) \
	$(BUILD)/testdata/capture/mixed
endif
# test helpers preloaded to make the shim's allocations fail and its setup
# slow (not installed)
CAPTURE_TESTPROGS += $(BUILD)/testdata/capture/libfailalloc.so \
	$(BUILD)/testdata/capture/libslowstart.so
TCR_EVENTS := $(BUILD)/test/capture/tcr-events

ifeq ($(HAVE_MPICC),yes)
all: $(CAPTURE_SO) $(CAPTURE_A) $(CAPTURE_PC)
# make check runs `all unit-tests`, make bench `all bench-tools`: the
# capture tests and test/bench-capture.sh need these too
unit-tests bench-tools: $(CAPTURE_TESTPROGS) $(TCR_EVENTS)
endif

$(BUILD)/pic/lib/capture/%.o: lib/capture/%.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPICC) $(CFLAGS) $(CAPTURE_CFLAGS) -c -o $@ $<

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(CC) $(CFLAGS) $(CAPTURE_CFLAGS) -c -o $@ $<

$(CAPTURE_SO): $(CAPTURE_OBJS)
	$(Q_LD)$(MPICC) -shared $(LDFLAGS) -Wl,-soname,libtracecluster-capture.so -Wl,-z,defs \
		-o $@ $(CAPTURE_OBJS) $(CAPTURE_LIBS)

$(CAPTURE_A): $(CAPTURE_OBJS)
	@rm -f $@
	$(Q_AR)$(AR) rcs $@ $^

# the pkg-config file for PREFIX/LIBDIR as given (install writes it again):
# $(call capture_pc,FILE,LIBDIR OF THE SHIM,MPI PACKAGE,NAME SUFFIX). The
# rpath lets a program linked against the shared shim find it; Requires
# brings the MPI's compiler and linker flags.
capture_pc = printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(2)' '' \
	'Name: tracecluster-capture$(4)' \
	'Description: PMPI capture shim of tracecluster (MPI communication traces)$(if $(4), for MPICH)' \
	'Version: $(patsubst "%",%,$(word 3,$(shell grep "define TC_VERSION" lib/compat.h)))' \
	'Requires: $(3)' \
	'Cflags:' \
	'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -ltracecluster-capture' \
	'Libs.private: $(strip $(CAPTURE_LIBS))' >$(1)

$(CAPTURE_PC): lib/capture/module.mk lib/compat.h
	@mkdir -p $(dir $@)
	@$(call capture_pc,$@,$(LIBDIR),$(MPI_PC))

$(BUILD)/testdata/capture/%: testdata/capture/%.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPICC) -O2 -g -Wall -o $@ $< -lpthread

$(BUILD)/testdata/capture/lib%.so: testdata/capture/%.c testdata/capture/preload.h
	@mkdir -p $(dir $@)
	$(Q_LD)$(CC) -O2 -g -Wall -shared -fPIC -o $@ $< -ldl -pthread

$(BUILD)/testdata/capture/%: testdata/capture/%.f90
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPIFC) -O2 -g -J $(dir $@) -o $@ $<

$(BUILD)/testdata/capture/mixed: testdata/capture/mixed.f90 testdata/capture/mixed_lib.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPICC) -O2 -g -c -o $@_lib.o testdata/capture/mixed_lib.c
	$(Q_LD)$(MPIFC) -O2 -g -J $(dir $@) -o $@ testdata/capture/mixed.f90 $@_lib.o

$(TCR_EVENTS): $(BUILD)/test/capture/tcr-events.o $(LIBTC)
	$(Q_LD)$(CC) $(LDFLAGS) $(TC_LDFLAGS) -o $@ $< $(LIBTC) $(TC_LIBS)

capture: $(CAPTURE_SO) $(CAPTURE_A) $(CAPTURE_PC) $(CAPTURE_TESTPROGS) $(TCR_EVENTS)

# the MPICH build: the shim's own sources compiled again with mpicc.mpich
# into $(BUILD)/mpich/pic/; the MPI-free core objects are shared
MPICH_BUILD := $(BUILD)/mpich
CAPTURE_MPICH_OBJS := $(CAPTURE_SRCS:%.c=$(MPICH_BUILD)/pic/%.o) \
	$(CAPTURE_CORE_SRCS:%.c=$(BUILD)/pic/%.o)
CAPTURE_MPICH_SO := $(MPICH_BUILD)/libtracecluster-capture.so
CAPTURE_MPICH_TESTPROGS := $(CAPTURE_TEST_C:%=$(MPICH_BUILD)/testdata/capture/%)
ifeq ($(HAVE_MPIFC_MPICH),yes)
CAPTURE_MPICH_TESTPROGS += $(MPICH_BUILD)/testdata/capture/mpi4_mpifh \
	$(MPICH_BUILD)/testdata/capture/connect_usempi
endif

ifeq ($(HAVE_MPICH),yes)
unit-tests bench-tools: capture-mpich
capture-mpich: $(CAPTURE_MPICH_SO) $(CAPTURE_MPICH_TESTPROGS) $(TCR_EVENTS)
else
capture-mpich:
	@echo "capture-mpich: $(MPICC_MPICH) not found (apt-get install mpich libmpich-dev)" >&2; exit 1
endif

$(MPICH_BUILD)/pic/lib/capture/%.o: lib/capture/%.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPICC_MPICH) $(CFLAGS) $(CAPTURE_CFLAGS) -c -o $@ $<

$(CAPTURE_MPICH_SO): $(CAPTURE_MPICH_OBJS)
	$(Q_LD)$(MPICC_MPICH) -shared $(LDFLAGS) -Wl,-soname,libtracecluster-capture.so -Wl,-z,defs \
		-o $@ $(CAPTURE_MPICH_OBJS) $(CAPTURE_LIBS)

# GCC 12 warns about MPICH's MPI_STATUSES_IGNORE, (MPI_Status *)1, against
# the access attributes of mpi.h: a false positive
$(MPICH_BUILD)/testdata/capture/%: testdata/capture/%.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPICC_MPICH) -O2 -g -Wall -Wno-stringop-overflow -o $@ $< -lpthread

$(MPICH_BUILD)/testdata/capture/%: testdata/capture/%.f90
	@mkdir -p $(dir $@)
	$(Q_CC)$(MPIFC_MPICH) -O2 -g -o $@ $<

# optional, not part of make check: trace LAMMPS and HPCC from Debian
check-apps: all
	@sh test/check-apps.sh $(BUILD)

# the Open MPI shim in LIBDIR, MPICH's (when built) in
# LIBDIR/tracecluster/mpich/, where tracecluster run looks for them
MPICH_LIBDIR = $(LIBDIR)/tracecluster/mpich
install-capture: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(MANDIR)/man3
	install -m 644 man/libtracecluster-capture.3 $(DESTDIR)$(MANDIR)/man3/
	if [ -f $(CAPTURE_SO) ]; then \
		install -m 755 $(CAPTURE_SO) $(DESTDIR)$(LIBDIR)/ && \
		install -m 644 $(CAPTURE_A) $(DESTDIR)$(LIBDIR)/ && \
		$(call capture_pc,$(DESTDIR)$(LIBDIR)/pkgconfig/tracecluster-capture.pc,$(LIBDIR),$(MPI_PC)); \
	fi
	if [ -f $(CAPTURE_MPICH_SO) ]; then \
		install -d $(DESTDIR)$(MPICH_LIBDIR) && \
		install -m 755 $(CAPTURE_MPICH_SO) $(DESTDIR)$(MPICH_LIBDIR)/ && \
		$(call capture_pc,$(DESTDIR)$(LIBDIR)/pkgconfig/tracecluster-capture-mpich.pc,$(MPICH_LIBDIR),mpich,-mpich); \
	fi

uninstall-capture:
	rm -f $(DESTDIR)$(LIBDIR)/libtracecluster-capture.so \
		$(DESTDIR)$(LIBDIR)/libtracecluster-capture.a \
		$(DESTDIR)$(LIBDIR)/pkgconfig/tracecluster-capture.pc \
		$(DESTDIR)$(LIBDIR)/pkgconfig/tracecluster-capture-mpich.pc \
		$(DESTDIR)$(MPICH_LIBDIR)/libtracecluster-capture.so \
		$(DESTDIR)$(MANDIR)/man3/libtracecluster-capture.3
	-rmdir $(DESTDIR)$(MPICH_LIBDIR) $(DESTDIR)$(LIBDIR)/tracecluster 2>/dev/null

install: install-capture
uninstall: uninstall-capture

.PHONY: capture capture-mpich check-apps install-capture uninstall-capture

-include $(CAPTURE_OBJS:.o=.d) $(CAPTURE_MPICH_OBJS:.o=.d) $(BUILD)/test/capture/tcr-events.d
