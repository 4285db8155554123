UNIT_TESTS += test/unit/test_codec.c test/unit/test_rsd.c test/unit/test_signature.c
UNIT_TESTS += test/unit/test_synth.c
UNIT_TESTS += test/unit/test_cluster.c
UNIT_TESTS += test/unit/test_align.c
UNIT_TESTS += test/unit/test_formats.c
UNIT_TESTS += test/unit/test_merge.c
UNIT_TESTS += test/unit/test_chameleon.c
UNIT_TESTS += test/unit/test_replay.c
UNIT_TESTS += test/unit/test_load.c
UNIT_TESTS += test/unit/test_json.c
UNIT_TESTS += test/unit/test_viz.c
UNIT_TESTS += test/unit/test_trace.c test/unit/test_progress.c
UNIT_TESTS += test/unit/test_seqload.c test/unit/test_evsource.c
UNIT_TESTS += test/unit/test_analysis.c test/unit/test_raw_synth.c
UNIT_TESTS += test/unit/test_pack.c

# helper programs the Bats files run
TEST_TOOLS := $(BUILD)/test/tools/tcr-rewrite
unit-tests: $(TEST_TOOLS)
$(BUILD)/test/tools/%: $(BUILD)/test/tools/%.o $(LIBTC)
	$(Q_LD)$(CC) $(LDFLAGS) $(TC_LDFLAGS) -o $@ $< $(LIBTC) $(TC_LIBS)
-include $(TEST_TOOLS:=.d)
