/*
 * load.c - read a trace set into per-rank compressed traces, in parallel.
 */
#include "lib/compat.h"
#include "cmd/load.h"
#include "formats/raw.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/rsd.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct load_job {
	const struct tc_traceset *ts;
	const struct tc_rsd_opts *opts;
	tc_load_fn fn;
	void *ctx;
	struct tc_raw_stats *stats;
};

static int load_one(size_t i, struct tc_reader *r, void *p, struct tc_error *err)
{
	static const struct tc_read_ops ops = {
		tc_rank_trace_on_event, tc_rank_trace_on_callsite, tc_rank_trace_on_comm,
	};
	struct load_job *job = p;
	const struct tc_raw_header *h = tc_reader_header(r);
	struct tc_rank_trace *t = tc_rank_trace_new(h->rank, h->world_size, job->opts);
	struct tc_raw_stats rs;
	int rc;

	rc = tc_reader_read(r, &ops, t, &rs, err);
	if (job->stats)
		job->stats[i] = rs;
	if (rc) {
		tc_rank_trace_free(&t);
		return rc;
	}
	return job->fn(i, t, job->ctx, err);
}

int tc_load_each(const struct tc_traceset *ts, struct tc_pool *pool,
		 const struct tc_rsd_opts *opts, tc_load_fn fn, void *ctx,
		 struct tc_raw_stats *stats, struct tc_error *err)
{
	struct load_job job = { ts, opts, fn, ctx, stats };

	if (stats)
		memset(stats, 0, ts->nfiles * sizeof(*stats));
	return tc_traceset_each(ts, pool, load_one, &job, err);
}

static int keep(size_t i, struct tc_rank_trace *t, void *ctx, struct tc_error *err)
{
	struct tc_rank_trace **all = ctx;

	(void)err;
	all[i] = t;
	return 0;
}

int tc_load_all(const struct tc_traceset *ts, struct tc_pool *pool,
		const struct tc_rsd_opts *opts, struct tc_rank_trace ***out,
		struct tc_raw_stats *stats, struct tc_error *err)
{
	struct tc_rank_trace **all = tc_xcalloc(ts->nfiles ? ts->nfiles : 1, sizeof(*all));
	int rc = tc_load_each(ts, pool, opts, keep, all, stats, err);

	if (rc) {
		tc_load_free_all(all, ts->nfiles);
		*out = NULL;
		return rc;
	}
	*out = all;
	return 0;
}

void tc_load_free_all(struct tc_rank_trace **traces, size_t n)
{
	if (!traces)
		return;
	for (size_t i = 0; i < n; i++)
		tc_rank_trace_free(&traces[i]);
	free(traces);
}
