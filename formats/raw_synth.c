/*
 * raw_synth.c - a rank of a synthetic workload written as a raw file.
 */
#include "lib/compat.h"
#include "formats/raw.h"
#include "lib/error.h"
#include "lib/synth.h"

struct rank_out {
	struct tc_raw_writer *w;
	struct tc_error *err;
};

static int sink_callsite(void *ctx, const struct tc_callsite *cs)
{
	struct rank_out *ro = ctx;

	return tc_raw_writer_callsite(ro->w, cs, ro->err) ? 1 : 0;
}

static int sink_comm(void *ctx, const struct tc_comm *c)
{
	struct rank_out *ro = ctx;

	return tc_raw_writer_comm(ro->w, c, ro->err) ? 1 : 0;
}

static int sink_event(void *ctx, const struct tc_event *ev)
{
	struct rank_out *ro = ctx;

	return tc_raw_writer_event(ro->w, ev, ro->err) ? 1 : 0;
}

static const struct tc_synth_sink writer_sink = { sink_callsite, sink_comm, sink_event };

int tc_raw_write_synth(const char *path, const struct tc_raw_header *hdr,
		       const struct tc_raw_writer_opts *opts, const struct tc_synth_opts *o,
		       int32_t rank, uint64_t *events, struct tc_error *err)
{
	struct rank_out ro;
	int rc;

	rc = tc_raw_writer_open(&ro.w, path, hdr, opts, err);
	if (rc)
		return rc;
	ro.err = err;
	rc = tc_synth_rank(o, rank, &writer_sink, &ro, err);
	if (rc) {
		tc_raw_writer_abort(&ro.w);
		return rc;
	}
	if (events)
		*events = tc_raw_writer_events(ro.w);
	return tc_raw_writer_close(&ro.w, err);
}
