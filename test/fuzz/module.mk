# libFuzzer targets of the readers (test/fuzz/), built with clang into
# build/fuzz/ with AddressSanitizer and UBSan, apart from every other
# configuration:
#   make fuzz          build, then fuzz each target for FUZZ_SECONDS
#   make fuzz-build    build only (make check replays the seed corpora)
# New inputs go to build/fuzz/corpus/TARGET; the committed seeds in
# test/fuzz/corpus/TARGET are only read.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BUILD := build/fuzz
FUZZ_TARGETS := raw tct_text tct_json tct_bin scalatrace dumpi otf2 pack
# the OTF2 library allocates what an anchor file's counts ask before it
# reads them (test/fuzz/fuzz_otf2.c): only memory in use counts there
FUZZ_FLAGS_otf2 := -malloc_limit_mb=65536
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -O1 -g -std=c11 -Wall -Wextra -Wno-missing-field-initializers -pthread -I. \
	$(PKG_CFLAGS) $(FUZZ_SAN) -MMD -MP
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(FUZZ_BUILD)/obj/%.o)
HAVE_FUZZ_CC := $(shell command -v $(FUZZ_CC) 2>/dev/null)

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/test/fuzz/fuzz_%.o $(FUZZ_LIB_OBJS)
	$(Q_LD)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -pthread -o $@ $^ $(TC_LIBS)

.PRECIOUS: $(FUZZ_BUILD)/obj/%.o

fuzz-build:
	@if [ -z "$(HAVE_FUZZ_CC)" ]; then \
		echo "fuzz: $(FUZZ_CC) not found, fuzz targets not built"; \
	else \
		$(MAKE) -s --no-print-directory $(FUZZ_BINS); \
	fi

fuzz: deps fuzz-build
	@[ -n "$(HAVE_FUZZ_CC)" ] || { echo "fuzz: $(FUZZ_CC) not found" >&2; exit 1; }
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
		log=$(FUZZ_BUILD)/fuzz_$$t.log; \
		flags=; [ $$t = otf2 ] && flags="$(FUZZ_FLAGS_otf2)"; \
		$(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $$flags \
			-artifact_prefix=$(FUZZ_BUILD)/crash-$$t- \
			$(FUZZ_BUILD)/corpus/$$t test/fuzz/corpus/$$t >$$log 2>&1; \
		rc=$$?; \
		runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log); \
		echo "fuzz $$t: $${runs:-?} executions in $(FUZZ_SECONDS) s, exit $$rc (log $$log)"; \
		[ $$rc -eq 0 ] || { tail -30 $$log; exit 1; }; \
	done

.PHONY: fuzz fuzz-build

-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/obj/test/fuzz/fuzz_%.d)
