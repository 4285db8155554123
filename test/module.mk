UNIT_TESTS += test/unit/test_codec.c
