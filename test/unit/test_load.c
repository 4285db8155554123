/*
 * Unit tests of loading a trace set with ranks that share their trace
 * (formats/load.h): the classes of equal traces, the trace that stands
 * for each class whatever the thread count, and each rank's own trace
 * (times included) read back on demand.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "formats/load.h"
#include "formats/raw.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/synth.h"
#include "lib/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Write a synthetic trace set of `ranks` ranks into a new directory. */
static const char *write_set(const char *name, const char *pattern, int32_t ranks, int32_t dx,
			     int32_t dy)
{
	struct tc_synth_opts o;

	memset(&o, 0, sizeof(o));
	o.pattern = pattern;
	o.ranks = ranks;
	o.iters = 4;
	o.jitter = 0.2; /* every rank's times differ */
	o.seed = 7;
	o.dims[0] = dx;
	o.dims[1] = dy;
	return unit_synth_set(name, &o);
}

static int count_peek(size_t i, struct tc_rank_trace *t, void *ctx, struct tc_error *err)
{
	uint64_t *events = ctx;

	(void)err;
	events[i] = t->events; /* borrowed: the load keeps or frees it */
	return 0;
}

/* The mean compute time of the first event node: differs between ranks
 * whose times differ. */
static double first_comp(const struct tc_rank_trace *t)
{
	size_t n;
	const struct tc_rsd_node *q = tc_rsd_seq(t->seq, &n);

	while (n && q->nbody) {
		n = q->nbody;
		q = q->body;
	}
	return n ? q->comp.mean : -1;
}

TEST(load_shared_stencil_classes)
{
	/* a 4x4 grid: 4 corners, 4 sides of 2, 4 interior ranks: 9 classes */
	const char *dir = write_set("st", "stencil2d", 16, 4, 4);
	struct tc_traceset *ts = NULL;
	struct tc_error err;
	struct tc_pool *pool1 = tc_pool_new(1), *pool4 = tc_pool_new(4);
	struct tc_load_shared a, b;
	uint64_t events[16];

	CHECK(tc_traceset_open(&ts, dir, 0, pool4, &err) == 0);
	if (!ts)
		return;
	CHECK_STR(ts->files[3].hdr.writer, "unit");
	CHECK(ts->files[0].hdr.writer == ts->files[15].hdr.writer); /* one copy */
	CHECK_STR(ts->files[5].hdr.host, "node1");
	memset(events, 0, sizeof(events));
	CHECK(tc_load_shared(ts, pool1, NULL, count_peek, events, NULL, &a, &err) == 0);
	CHECK(tc_load_shared(ts, pool4, NULL, NULL, NULL, NULL, &b, &err) == 0);
	CHECK_EQ_U64(a.nclasses, 9);
	CHECK_EQ_U64(b.nclasses, 9);
	for (size_t i = 0; i < 16; i++) {
		CHECK(events[i] > 0);
		CHECK_EQ_U64(a.cls[i], b.cls[i]);
		CHECK(a.cls[i] <= i);
		CHECK(a.traces[i] == a.traces[a.cls[i]]);
		/* the class's trace is its lowest member's */
		for (size_t k = 0; k < i; k++)
			if (a.cls[k] == a.cls[i])
				CHECK_EQ_U64(a.cls[i], a.cls[k]);
	}
	/* interior ranks 5, 6, 9, 10 share rank 5's trace; sides 1, 2 */
	CHECK_EQ_U64(a.cls[6], 5);
	CHECK_EQ_U64(a.cls[10], 5);
	CHECK_EQ_U64(a.cls[2], 1);
	CHECK_EQ_U64(a.cls[3], 3);
	CHECK_EQ_U64(a.cls[14], 13);
	CHECK(a.traces[5]->rank == 5);

	/* rank 10's own trace: read again, its own rank and times */
	{
		struct tc_rank_trace *own = NULL, *head = NULL;
		bool fresh = true;
		CHECK(tc_load_own(ts, NULL, &a, 5, &head, &fresh, &err) == 0);
		CHECK(!fresh && head == a.traces[5]);
		CHECK(tc_load_own(ts, NULL, &a, 10, &own, &fresh, &err) == 0);
		CHECK(fresh && own && own != a.traces[10]);
		if (own) {
			CHECK_EQ_I64(own->rank, 10);
			CHECK(tc_rank_trace_same(own, a.traces[10]));
			CHECK(first_comp(own) != first_comp(a.traces[10]));
			tc_rank_trace_free(&own);
		}
	}
	tc_load_shared_release(&a);
	tc_load_shared_release(&b);
	CHECK(a.traces == NULL && b.traces == NULL);
	tc_traceset_free(&ts);
	tc_pool_free(pool1);
	tc_pool_free(pool4);
}

TEST(load_shared_distinct_ranks_keep_their_own)
{
	/* CG-like ranks: some equal, some not; sharing follows equality */
	const char *dir = write_set("cg", "cg", 8, 0, 0);
	struct tc_traceset *ts = NULL;
	struct tc_error err;
	struct tc_pool *pool = tc_pool_new(3);
	struct tc_load_shared s;
	struct tc_rank_trace **all = NULL;

	CHECK(tc_traceset_open(&ts, dir, 0, pool, &err) == 0);
	if (!ts)
		return;
	CHECK(tc_load_shared(ts, pool, NULL, NULL, NULL, NULL, &s, &err) == 0);
	CHECK(tc_load_all(ts, pool, NULL, &all, NULL, &err) == 0);
	for (size_t i = 0; all && i < 8; i++) {
		/* shared only with an equal trace, and every equal pair shares */
		CHECK(tc_rank_trace_same(s.traces[i], all[i]));
		for (size_t k = 0; k < i; k++)
			CHECK((s.cls[k] == s.cls[i]) == tc_rank_trace_same(all[k], all[i]));
	}
	tc_load_free_all(all, 8);
	tc_load_shared_release(&s);
	tc_traceset_free(&ts);
	tc_pool_free(pool);
}

TEST(load_shared_error_names_the_lowest_file)
{
	const char *dir = write_set("bad", "stencil1d", 4, 0, 0);
	char path[4200];
	struct tc_traceset *ts = NULL;
	struct tc_error err;
	struct tc_pool *pool = tc_pool_new(4);
	struct tc_load_shared s;
	FILE *f;

	CHECK(tc_traceset_open(&ts, dir, 0, pool, &err) == 0);
	if (!ts)
		return;
	/* damage ranks 1 and 3 after the set was opened */
	for (int r = 1; r < 4; r += 2) {
		tc_raw_rank_path(path, sizeof(path), dir, r);
		f = fopen(path, "r+b");
		CHECK(f != NULL);
		if (f) {
			fseek(f, 200, SEEK_SET);
			fwrite("garbage-garbage-garbage", 1, 23, f);
			fclose(f);
		}
	}
	CHECK(tc_load_shared(ts, pool, NULL, NULL, NULL, NULL, &s, &err) != 0);
	CHECK(strstr(err.path, "rank-00001.tcr") != NULL);
	CHECK(s.traces == NULL);
	tc_traceset_free(&ts);
	tc_pool_free(pool);
}
