UNIT_TESTS += test/unit/test_codec.c
UNIT_TESTS += test/unit/test_synth.c
