/*
 * fuzz_scalatrace.c - the ScalaTrace V2 reader (formats/scalatrace.c):
 * parse, then expand the first ranks of the world.
 */
#include "lib/compat.h"
#include "test/fuzz/fuzz.h"
#include "formats/foreign.h"
#include "formats/reader.h"
#include "lib/error.h"

static void read_rank(const char *path, uint32_t rank, unsigned flags)
{
	struct tc_reader *r;
	struct tc_error err;

	if (tc_scalatrace_open(&r, path, rank, flags, &err))
		return;
	tc_reader_header(r);
	tc_reader_read(r, &fuzz_ops, NULL, NULL, &err);
	tc_reader_close(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4096];
	struct tc_error err;
	int32_t world;

	/* a fresh name each time: the parsed trace is cached by path */
	if (fuzz_temp_file(data, size, ".st", path, sizeof(path)))
		return 0;
	if (!tc_scalatrace_world(path, 0, &world, &err))
		for (int32_t k = 0; k < world && k < 4; k++)
			read_rank(path, (uint32_t)k, 0);
	if (!tc_scalatrace_world(path, TC_RAW_SALVAGE, &world, &err) && world > 0)
		read_rank(path, 0, TC_RAW_SALVAGE);
	unlink(path);
	return 0;
}
