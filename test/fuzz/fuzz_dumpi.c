/*
 * fuzz_dumpi.c - the DUMPI reader (formats/dumpi.c): a .bin rank file
 * strict and with --salvage; input that looks like a .meta file goes to
 * the .meta parser instead.
 */
#include "lib/compat.h"
#include "test/fuzz/fuzz.h"
#include "formats/foreign.h"
#include "formats/reader.h"
#include "lib/error.h"

static void read_bin(const char *path, unsigned flags)
{
	struct tc_reader *r;
	struct tc_error err;

	if (tc_dumpi_open(&r, path, 0, flags, &err))
		return;
	tc_reader_header(r);
	tc_reader_read(r, &fuzz_ops, NULL, NULL, &err);
	tc_reader_close(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4096];
	struct tc_dumpi_meta meta;
	struct tc_error err;

	if (tc_dumpi_meta_probe(data, size)) {
		if (fuzz_temp_file(data, size, ".meta", path, sizeof(path)))
			return 0;
		tc_dumpi_read_meta(path, &meta, &err);
	} else {
		if (fuzz_temp_file(data, size, "-0001.bin", path, sizeof(path)))
			return 0;
		read_bin(path, 0);
		read_bin(path, TC_RAW_SALVAGE);
	}
	unlink(path);
	return 0;
}
