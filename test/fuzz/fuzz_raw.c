/*
 * fuzz_raw.c - the raw trace reader (formats/raw_read.c): open, header,
 * every block, strict and with --salvage.
 */
#include "lib/compat.h"
#include "test/fuzz/fuzz.h"
#include "lib/error.h"

static void read_once(const char *path, unsigned flags)
{
	struct tc_raw_reader *r;
	struct tc_raw_stats stats;
	struct tc_error err;

	if (tc_raw_open(&r, path, flags, &err))
		return;
	tc_raw_get_header(r);
	tc_raw_read(r, &fuzz_ops, NULL, &stats, &err);
	tc_raw_close(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4096];

	if (fuzz_temp_file(data, size, ".tcr", path, sizeof(path)))
		return 0;
	read_once(path, 0);
	read_once(path, TC_RAW_SALVAGE);
	unlink(path);
	return 0;
}
