UNIT_TESTS += test/unit/test_codec.c test/unit/test_rsd.c test/unit/test_signature.c
UNIT_TESTS += test/unit/test_synth.c
UNIT_TESTS += test/unit/test_cluster.c
UNIT_TESTS += test/unit/test_align.c
UNIT_TESTS += test/unit/test_formats.c
UNIT_TESTS += test/unit/test_merge.c
UNIT_TESTS += test/unit/test_chameleon.c
UNIT_TESTS += test/unit/test_replay.c
