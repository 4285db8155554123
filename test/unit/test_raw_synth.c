/*
 * Unit tests of writing a rank of a synthetic workload as a raw file
 * (formats/raw.h, tc_raw_write_synth): the file read back holds the
 * header given and every event the workload makes; a file that cannot be
 * written is an error and leaves nothing behind.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "formats/raw.h"
#include "formats/reader.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/synth.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int count_event(void *ctx, const struct tc_event *ev)
{
	(void)ev;
	++*(uint64_t *)ctx;
	return 0;
}

/* Events the workload makes for rank, through the synth sink. */
static int sink_event(void *ctx, const struct tc_event *ev)
{
	return count_event(ctx, ev);
}

static int sink_callsite(void *ctx, const struct tc_callsite *cs)
{
	(void)ctx, (void)cs;
	return 0;
}

static int sink_comm(void *ctx, const struct tc_comm *c)
{
	(void)ctx, (void)c;
	return 0;
}

TEST(raw_write_synth)
{
	struct tc_synth_opts o;
	struct tc_synth_sink sink = { sink_callsite, sink_comm, sink_event };
	struct tc_raw_writer_opts wo = { 1, 0, true };
	struct tc_raw_header h;
	struct tc_read_ops ops = { count_event, NULL, NULL };
	struct tc_reader *r;
	struct tc_error err;
	uint64_t written = 0, made = 0, read = 0;
	char path[4200];

	memset(&o, 0, sizeof(o));
	o.pattern = "stencil1d";
	o.ranks = 6;
	o.iters = 5;
	o.seed = 2;
	CHECK(tc_synth_validate(&o, &err) == 0);
	CHECK(tc_synth_rank(&o, 3, &sink, &made, &err) == 0);
	memset(&h, 0, sizeof(h));
	h.rank = 3;
	h.world_size = 6;
	snprintf(h.program, sizeof(h.program), "prog");
	snprintf(path, sizeof(path), "%s/r3.tcr", unit_tmpdir());
	CHECK(tc_raw_write_synth(path, &h, &wo, &o, 3, &written, &err) == 0);
	CHECK(made > 0);
	CHECK_EQ_U64(written, made);
	CHECK(tc_reader_open(&r, path, TC_FMT_AUTO, 0, 0, &err) == 0);
	if (r) {
		CHECK_EQ_I64(tc_reader_header(r)->rank, 3);
		CHECK_EQ_I64(tc_reader_header(r)->world_size, 6);
		CHECK_STR(tc_reader_header(r)->program, "prog");
		CHECK(tc_reader_read(r, &ops, &read, NULL, &err) == 0);
		CHECK_EQ_U64(read, made);
		tc_reader_close(&r);
	}
	/* a directory that does not exist */
	snprintf(path, sizeof(path), "%s/none/r3.tcr", unit_tmpdir());
	CHECK(tc_raw_write_synth(path, &h, &wo, &o, 3, &written, &err) != 0);
	CHECK(access(path, F_OK) != 0);
	CHECK(err.msg[0] != 0);
}
