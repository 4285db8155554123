# tracecluster - one non-recursive GNU Makefile.
#
#   make            build the tracecluster command and the core library
#   make check      install missing dependencies, build, run every test
#   make demo       install missing dependencies, build, run the main job
#   make bench      benchmarks (figures and ratios against named baselines,
#                   interleaved, PASS/FAIL per goal, time per section; at
#                   most 10 minutes on 2 cores, FAIL beyond)
#   make bench-quick the same on small sets (about a minute)
#   make fuzz       fuzz every reader for FUZZ_SECONDS each (clang, libFuzzer)
#   make install    PREFIX, DESTDIR, BINDIR, LIBDIR, MANDIR are honoured
#
# Variables: CFLAGS (yours), SANITIZE=address,undefined (or thread),
# DEVELOPER=1 (-Werror), V=1 (show commands), J (test parallelism).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

CC ?= cc
CFLAGS ?= -O2 -g
LDFLAGS ?=
PKG_CONFIG ?= pkg-config

ifeq ($(origin CC),default)
CC := cc
endif

DEPS_PKGS := zlib1g-dev libdeflate-dev libzstd-dev libjansson-dev libcmph-dev libotf2-trace-dev otf2-tools pkg-config bats bats-assert \
	bats-support openmpi-bin libopenmpi-dev mpich libmpich-dev gfortran groff-base python3 clang \
	libcairo2-dev fonts-dejavu-core

comma := ,

# Each configuration builds in its own directory, so a sanitizer build
# never mixes objects with a plain one.
ifdef SANITIZE
BUILD := build/san-$(subst $(comma),-,$(SANITIZE))
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD := build/default
SAN_FLAGS :=
endif

PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags jansson zlib libdeflate cmph libzstd otf2 cairo 2>/dev/null)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs jansson zlib libdeflate cmph libzstd otf2 cairo 2>/dev/null || echo -ljansson -lz -ldeflate -lcmph -lzstd -lotf2 -lcairo)

TC_CFLAGS = -std=c11 -Wall -Wextra -Wshadow -Wno-missing-field-initializers \
	-pthread -I. $(PKG_CFLAGS) $(SAN_FLAGS) -MMD -MP
ifdef DEVELOPER
TC_CFLAGS += -Werror
endif
TC_LDFLAGS = -pthread $(SAN_FLAGS)
TC_LIBS = $(PKG_LIBS) -lm

ifndef V
Q_CC = @echo "  CC      $@";
Q_LD = @echo "  LINK    $@";
Q_AR = @echo "  AR      $@";
endif

all:

LIB_SRCS :=
CMD_SRCS :=
UNIT_TESTS :=
# before the modules: their rules name it as a prerequisite, expanded as
# they are read
LIBTC := $(BUILD)/libtracecluster.a
include lib/module.mk
include formats/module.mk
include cluster/module.mk
include align/module.mk
include viz/module.mk
include analysis/module.mk
include cmd/module.mk
include test/module.mk
include lib/capture/module.mk
include cmd/mpi/module.mk
include test/fuzz/module.mk
include testdata/mpi/module.mk

# make demo traces a bundled MPI program when an MPI compiler is there
DEMO_TARGETS := $(if $(HAVE_MPICC),capture)

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CMD_OBJS := $(CMD_SRCS:%.c=$(BUILD)/%.o)
TRACECLUSTER := $(BUILD)/tracecluster
UNIT_BINS := $(UNIT_TESTS:%.c=$(BUILD)/%)

all: $(TRACECLUSTER) $(LIBTC) bin/tracecluster

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(CC) $(CFLAGS) $(TC_CFLAGS) -c -o $@ $<

$(LIBTC): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(Q_AR)$(AR) rcs $@ $^

$(TRACECLUSTER): $(CMD_OBJS) $(LIBTC)
	$(Q_LD)$(CC) $(LDFLAGS) $(TC_LDFLAGS) -o $@ $(CMD_OBJS) $(LIBTC) $(TC_LIBS)

# bin/tracecluster always points at the binary of the last configuration
# built, so tests and the demo run what was just compiled.
bin/tracecluster: $(TRACECLUSTER) FORCE
	@mkdir -p bin
	@ln -sfn ../$(TRACECLUSTER) $@

FORCE:

$(BUILD)/test/unit/%: $(BUILD)/test/unit/%.o $(BUILD)/test/unit/unit.o $(LIBTC)
	$(Q_LD)$(CC) $(LDFLAGS) $(TC_LDFLAGS) -o $@ $< $(BUILD)/test/unit/unit.o $(LIBTC) $(TC_LIBS)

.PRECIOUS: $(BUILD)/test/unit/%.o $(BUILD)/test/bench/%.o

deps:
	@missing=""; \
	if command -v dpkg-query >/dev/null 2>&1; then \
		for p in $(DEPS_PKGS); do \
			dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
		done; \
	else \
		$(PKG_CONFIG) --exists jansson zlib libdeflate cmph libzstd otf2 cairo && command -v bats >/dev/null && command -v mpicc >/dev/null || missing="$(DEPS_PKGS)"; \
	fi; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "deps: installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing >/dev/null || { echo "deps: apt-get failed" >&2; exit 1; }; \
	else \
		echo "tracecluster: missing packages:$$missing" >&2; \
		echo "install them as root: apt-get install$$missing" >&2; \
		exit 1; \
	fi

check: deps
	@$(MAKE) --no-print-directory all unit-tests fuzz-build
	@CI=$(CI) TC_BUILD=$(BUILD) sh test/run-tests.sh $(BUILD)

unit-tests: $(UNIT_BINS)

demo: deps
	@$(MAKE) --no-print-directory all $(DEMO_TARGETS)
	@TC_BUILD=$(BUILD) sh test/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all bench-tools
	@TC_BUILD=$(BUILD) bash test/bench.sh

bench-quick: deps
	@$(MAKE) --no-print-directory all bench-tools
	@TC_BUILD=$(BUILD) BENCH_QUICK=1 bash test/bench.sh

MAN1 := $(wildcard man/*.1)
MAN5 := $(wildcard man/*.5)

install: all $(INSTALL_TRACECLUSTER)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 755 $(INSTALL_TRACECLUSTER) $(DESTDIR)$(BINDIR)/tracecluster
	install -m 644 $(LIBTC) $(DESTDIR)$(LIBDIR)/libtracecluster.a
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tracecluster $(DESTDIR)$(LIBDIR)/libtracecluster.a
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))

clean:
	rm -rf build bin

.PHONY: all check deps demo bench bench-quick install uninstall clean unit-tests FORCE

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(UNIT_TESTS:%.c=$(BUILD)/%.d)

# Benchmark helpers (built by make bench only).
BENCH_BINS := $(BUILD)/test/bench/payload $(BUILD)/test/bench/alignbench $(BUILD)/test/bench/clusterbench
$(BUILD)/test/bench/%: $(BUILD)/test/bench/%.o $(LIBTC)
	$(Q_LD)$(CC) $(LDFLAGS) $(TC_LDFLAGS) -o $@ $< $(LIBTC) $(TC_LIBS)
bench-tools: $(BENCH_BINS)
.PHONY: bench-tools
