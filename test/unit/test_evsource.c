/*
 * Unit tests of every rank's events from a trace set (analysis/evsource.h):
 * each rank in its own slot, in order, with its call sites and the
 * communicators recorded, the same for any thread count; a file that
 * cannot be read is an error naming it.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "align/align.h"
#include "analysis/evsource.h"
#include "analysis/seqload.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/pool.h"
#include "lib/synth.h"
#include "viz/viz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct seen {
	int32_t rank;
	uint64_t events, sites, comms, bytes;
	uint64_t first, last;
	bool ordered;
};

static void on_event(void *ctx, size_t slot, int32_t rank, const struct tc_event *ev,
		     uint64_t site, const struct tc_matrix_comm *comm, uint64_t t)
{
	struct seen *s = (struct seen *)ctx + slot;

	if (!s->events) {
		s->rank = rank;
		s->first = t;
	} else if (t < s->last || rank != s->rank) {
		s->ordered = false;
	}
	s->last = t;
	s->events++;
	s->sites += site != 0;
	s->comms += comm != NULL;
	s->bytes += ev->bytes;
}

static const char *set(const char *name, const char *pattern, int32_t ranks)
{
	struct tc_synth_opts o;

	memset(&o, 0, sizeof(o));
	o.pattern = pattern;
	o.ranks = ranks;
	o.iters = 3;
	o.jitter = 0.3;
	o.seed = 11;
	return unit_synth_set(name, &o);
}

/* Every rank's events of dir seen with a pool of nthreads; ranks. */
static struct seen *each(const char *dir, unsigned nthreads, size_t *n)
{
	struct tc_pool *pool = tc_pool_new(nthreads);
	struct tc_traceset *ts = NULL;
	struct tc_evsrc src;
	struct seen *s = NULL;
	struct tc_error err;

	*n = 0;
	CHECK(tc_open_set(dir, 0, pool, &ts, &err) == 0);
	if (!ts)
		goto out;
	memset(&src, 0, sizeof(src));
	src.ts = ts;
	*n = tc_evsrc_slots(&src);
	CHECK_EQ_U64(*n, ts->nfiles);
	CHECK_EQ_I64(tc_evsrc_world(&src), ts->world_size);
	s = calloc(*n, sizeof(*s));
	for (size_t i = 0; i < *n; i++)
		s[i].ordered = true;
	CHECK(tc_evsrc_each(&src, pool, on_event, s, &err) == 0);
	/* as many events as the file holds */
	for (size_t i = 0; i < *n; i++) {
		struct tc_aseq *q;
		CHECK(tc_load_aseq(ts, i, 0, TC_AKEY_SITE, &q, &err) == 0);
		CHECK_EQ_U64(s[i].events, q->n);
		CHECK_EQ_I64(s[i].rank, ts->files[i].hdr.rank);
		tc_aseq_free(&q);
	}
	tc_traceset_free(&ts);
out:
	tc_pool_free(pool);
	return s;
}

TEST(evsrc_trace_set)
{
	const char *dir = set("halo", "stencil2d", 9);
	size_t n1, n4;
	struct seen *s1 = each(dir, 1, &n1), *s4 = each(dir, 4, &n4);

	CHECK_EQ_U64(n1, 9);
	CHECK_EQ_U64(n4, n1);
	for (size_t i = 0; s1 && s4 && i < n1 && i < n4; i++) {
		CHECK(s1[i].events > 0);
		CHECK(s1[i].ordered);
		CHECK_EQ_U64(s1[i].sites, s1[i].events); /* every event has its site */
		CHECK(s1[i].bytes > 0);
		CHECK(!memcmp(&s1[i], &s4[i], sizeof(s1[i])));
	}
	free(s1);
	free(s4);
}

TEST(evsrc_communicators)
{
	/* ft: row and column communicators besides the world */
	const char *dir = set("ft", "ft", 8);
	size_t n;
	struct seen *s = each(dir, 2, &n);
	uint64_t comms = 0;

	for (size_t i = 0; s && i < n; i++)
		comms += s[i].comms;
	CHECK(comms > 0);
	free(s);
}

TEST(evsrc_unreadable_file)
{
	const char *dir = set("bad", "stencil1d", 4);
	struct tc_pool *pool = tc_pool_new(2);
	struct tc_traceset *ts = NULL;
	struct tc_evsrc src;
	struct seen s[4];
	struct tc_error err;
	char path[4200];
	FILE *f;

	CHECK(tc_open_set(dir, 0, pool, &ts, &err) == 0);
	if (!ts)
		goto out;
	/* rank 2's events overwritten after its header was read */
	tc_raw_rank_path(path, sizeof(path), dir, 2);
	f = fopen(path, "r+b");
	CHECK(f != NULL);
	if (f) {
		char junk[4096];
		memset(junk, 0xa5, sizeof(junk));
		fseek(f, 128, SEEK_SET);
		fwrite(junk, 1, sizeof(junk), f);
		fclose(f);
	}
	memset(&src, 0, sizeof(src));
	memset(s, 0, sizeof(s));
	src.ts = ts;
	CHECK(tc_evsrc_each(&src, pool, on_event, s, &err) != 0);
	CHECK(strstr(err.path, "rank-00002") != NULL);
	tc_traceset_free(&ts);
out:
	tc_pool_free(pool);
}
