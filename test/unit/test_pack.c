/*
 * Unit tests of handing traces between processes (lib/pack.h,
 * tc_rank_trace_pack/_unpack, tc_rsd_pack/_unpack): every rank of real
 * synthetic sets comes back the same in everything its readers see
 * (sequence, statistics, call sites with frames, communicators with
 * members, encoding state), packs again to the same bytes, and every
 * damaged copy (each shorter prefix, flipped bytes) is refused or read
 * without a fault.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "cluster/signature.h"
#include "formats/load.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/pack.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/strbuf.h"
#include "lib/synth.h"
#include "lib/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct tc_rank_trace **load(const char *pattern, int32_t ranks, int match, size_t *n)
{
	struct tc_synth_opts o;
	struct tc_traceset *ts = NULL;
	struct tc_rank_trace **tr = NULL;
	struct tc_rsd_opts ro = { 0, match };
	struct tc_error err;
	struct tc_pool *pool = tc_pool_new(2);
	const char *dir;
	static unsigned sets;
	char name[64];

	memset(&o, 0, sizeof(o));
	o.pattern = pattern;
	o.ranks = ranks;
	o.iters = 7;
	o.jitter = 0.4;
	o.seed = 5;
	snprintf(name, sizeof(name), "%s-%u", pattern, sets++);
	dir = unit_synth_set(name, &o);
	*n = 0;
	CHECK(dir != NULL);
	if (!dir || tc_traceset_open(&ts, dir, 0, pool, &err)) {
		CHECK(!"set opens");
		tc_pool_free(pool);
		return NULL;
	}
	CHECK(tc_load_all(ts, pool, &ro, &tr, NULL, &err) == 0);
	*n = ts->nfiles;
	tc_traceset_free(&ts);
	tc_pool_free(pool);
	return tr;
}

static char *format(const struct tc_rsd *r, int style)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;

	tc_rsd_format(r, &sb, style);
	return tc_strbuf_detach(&sb, NULL);
}

/* Every event with its times, in order, the same from both. */
static bool same_events(const struct tc_rsd *a, const struct tc_rsd *b)
{
	struct tc_rsd_iter x, y;
	struct tc_event e, f;
	bool ok = true, more;

	tc_rsd_iter_init(&x, a);
	tc_rsd_iter_init(&y, b);
	while ((more = tc_rsd_iter_next(&x, &e))) {
		if (!tc_rsd_iter_next(&y, &f) || e.op != f.op || e.peer != f.peer ||
		    e.tag != f.tag || e.count != f.count || e.request != f.request ||
		    e.t_start != f.t_start || e.t_end != f.t_end || e.callsite != f.callsite ||
		    e.ncompl != f.ncompl || e.nscounts != f.nscounts) {
			ok = false;
			break;
		}
	}
	if (ok && tc_rsd_iter_next(&y, &f))
		ok = false;
	tc_rsd_iter_release(&x);
	tc_rsd_iter_release(&y);
	return ok;
}

static bool same_sites(const struct tc_rank_trace *a, const struct tc_rank_trace *b)
{
	if (a->nsites != b->nsites)
		return false;
	for (size_t i = 0; i < a->nsites; i++) {
		const struct tc_trace_site *x = &a->sites[i], *y = &b->sites[i];
		if (x->id != y->id || x->signature != y->signature || x->nframes != y->nframes)
			return false;
		for (uint32_t k = 0; k < x->nframes; k++)
			if (strcmp(x->frames[k].module, y->frames[k].module) ||
			    strcmp(x->frames[k].symbol, y->frames[k].symbol) ||
			    x->frames[k].offset != y->frames[k].offset)
				return false;
	}
	return true;
}

static void round_trip(const struct tc_rank_trace *t)
{
	struct tc_strbuf a = TC_STRBUF_INIT, b = TC_STRBUF_INIT;
	struct tc_unpack u;
	struct tc_rank_trace *c;
	struct tc_rsd_info ia, ib;
	struct tc_signatures sa, sb;
	char *fa, *fb;

	tc_rank_trace_pack(t, &a);
	tc_unpack_init(&u, a.buf, a.len);
	c = tc_rank_trace_unpack(&u);
	CHECK(c != NULL);
	CHECK(tc_unpack_done(&u));
	if (!c)
		goto out;
	CHECK_EQ_I64(c->rank, t->rank);
	CHECK_EQ_I64(c->world_size, t->world_size);
	CHECK_EQ_U64(c->callsites, t->callsites);
	CHECK(tc_rank_trace_same(t, c));
	CHECK_EQ_U64(tc_rank_trace_digest(c), tc_rank_trace_digest(t));
	CHECK(same_sites(t, c));
	CHECK(same_events(t->seq, c->seq));
	tc_rsd_info(t->seq, &ia);
	tc_rsd_info(c->seq, &ib);
	CHECK(memcmp(&ia, &ib, sizeof(ia)) == 0);
	fa = format(t->seq, TC_RSD_FMT_LONG);
	fb = format(c->seq, TC_RSD_FMT_LONG);
	CHECK_STR(fa, fb);
	free(fa);
	free(fb);
	tc_signatures_compute(t, &sa);
	tc_signatures_compute(c, &sb);
	CHECK(memcmp(&sa, &sb, sizeof(sa)) == 0);
	tc_rank_trace_pack(c, &b);
	CHECK_EQ_U64(b.len, a.len);
	CHECK(b.len == a.len && memcmp(a.buf, b.buf, a.len) == 0);
	tc_rank_trace_free(&c);
out:
	tc_strbuf_release(&a);
	tc_strbuf_release(&b);
}

static void each_rank(const char *pattern, int32_t ranks, int match)
{
	size_t n;
	struct tc_rank_trace **tr = load(pattern, ranks, match, &n);

	CHECK(n == (size_t)ranks);
	for (size_t i = 0; i < n; i++)
		round_trip(tr[i]);
	tc_load_free_all(tr, n);
}

TEST(stencil_ranks_round_trip)
{
	each_rank("stencil2d", 12, TC_RSD_MATCH_CALLSITE);
}

TEST(split_communicators_round_trip)
{
	/* Comm_split rows and columns: communicators with member lists */
	each_rank("ft", 8, TC_RSD_MATCH_CALLSITE);
}

TEST(varying_parameters_round_trip)
{
	/* alltoallv counts and any-source completions: occurrence values */
	each_rank("is", 8, TC_RSD_MATCH_CALLSITE);
	each_rank("master-worker", 6, TC_RSD_MATCH_CALLSITE);
}

TEST(match_by_params_round_trip)
{
	each_rank("mg", 8, TC_RSD_MATCH_PARAMS);
}

TEST(graph_communicators_round_trip)
{
	/* each rank's view of a graph topology: edges, with weights or not */
	size_t n;
	struct tc_rank_trace **tr = load("stencil2d", 4, TC_RSD_MATCH_CALLSITE, &n);
	const int32_t e1[] = { 3, 1, 2 }, e2[] = { 0, 2, 2, 5, 6, 7 }, e3[] = { 3, 1, 1 };
	struct tc_comm g1 = { 7, 0, TC_OP_DIST_GRAPH_CREATE_ADJACENT, 4, NULL, 0, { 0 }, 0,
			      true, false, 2, 1, e1 };
	struct tc_comm g2 = { 8, 7, TC_OP_GRAPH_CREATE, 4, NULL, 0, { 0 }, 0,
			      true, true, 1, 2, e2 };
	struct tc_comm g0 = { 9, 0, TC_OP_DIST_GRAPH_CREATE, 4, NULL, 0, { 0 }, 0,
			      true, false, 0, 0, NULL };
	const struct tc_trace_comm *c;
	struct tc_rank_trace *copy = NULL;
	struct tc_strbuf a = TC_STRBUF_INIT;
	struct tc_unpack u;

	if (n < 2)
		return;
	for (size_t i = 0; i < 2; i++) {
		tc_rank_trace_on_comm(tr[i], &g1);
		tc_rank_trace_on_comm(tr[i], &g2);
		tc_rank_trace_on_comm(tr[i], &g0);
	}
	c = tc_rank_trace_comm(tr[0], 8);
	CHECK(c && c->graph && c->weighted && c->nin == 1 && c->nout == 2 &&
	      c->edges[3] == 5);
	round_trip(tr[0]);
	round_trip(tr[1]);
	/* other edges make another trace */
	tc_rank_trace_pack(tr[0], &a);
	tc_unpack_init(&u, a.buf, a.len);
	copy = tc_rank_trace_unpack(&u);
	CHECK(copy && tc_rank_trace_same(tr[0], copy));
	if (copy) {
		g1.edges = e3;
		tc_rank_trace_on_comm(copy, &g1);
		CHECK(!tc_rank_trace_same(tr[0], copy));
		CHECK(tc_rank_trace_digest(tr[0]) != tc_rank_trace_digest(copy));
	}
	tc_rank_trace_free(&copy);
	tc_strbuf_release(&a);
	tc_load_free_all(tr, n);
}

TEST(segment_continues_like_the_original)
{
	size_t n;
	struct tc_rank_trace **tr = load("wavefront", 9, TC_RSD_MATCH_CALLSITE, &n);
	struct tc_strbuf a = TC_STRBUF_INIT;
	struct tc_unpack u;
	struct tc_rsd *c, *s1, *s2;
	struct tc_event ev;

	if (!n)
		return;
	tc_rsd_pack(tr[4]->seq, &a);
	tc_unpack_init(&u, a.buf, a.len);
	c = tc_rsd_unpack(&u);
	CHECK(c != NULL);
	if (c) {
		/* the same event fed to segments of both encodes the same */
		s1 = tc_rsd_new_segment(tr[4]->seq);
		s2 = tc_rsd_new_segment(c);
		tc_event_init(&ev);
		ev.op = TC_OP_BARRIER;
		ev.fields = TC_F_COMM;
		ev.callsite = tr[4]->sites[0].id;
		ev.t_start = 5000000;
		ev.t_end = 5000100;
		tc_rsd_add(s1, &ev);
		tc_rsd_add(s2, &ev);
		CHECK(tc_rsd_equal(s1, s2));
		CHECK(same_events(s1, s2));
		tc_rsd_free(&s1);
		tc_rsd_free(&s2);
		tc_rsd_free(&c);
	}
	tc_strbuf_release(&a);
	tc_load_free_all(tr, n);
}

TEST(damaged_bytes_are_refused)
{
	size_t n, bad = 0;
	struct tc_rank_trace **tr = load("is", 4, TC_RSD_MATCH_CALLSITE, &n);
	struct tc_strbuf a = TC_STRBUF_INIT;

	if (!n)
		return;
	tc_rank_trace_pack(tr[1], &a);
	/* every prefix is too short */
	for (size_t len = 0; len < a.len; len++) {
		struct tc_unpack u;
		struct tc_rank_trace *c;
		tc_unpack_init(&u, a.buf, len);
		c = tc_rank_trace_unpack(&u);
		if (c && tc_unpack_done(&u))
			bad++;
		tc_rank_trace_free(&c);
	}
	CHECK_EQ_U64(bad, 0);
	/* flipped bytes: refused or read, never a fault (the sanitizers run
	 * this too) */
	for (size_t i = 0; i < a.len; i++) {
		struct tc_unpack u;
		struct tc_rank_trace *c;
		unsigned char keep = (unsigned char)a.buf[i];
		a.buf[i] = (char)(keep ^ 0xff);
		tc_unpack_init(&u, a.buf, a.len);
		c = tc_rank_trace_unpack(&u);
		tc_rank_trace_free(&c);
		a.buf[i] = (char)keep;
	}
	tc_strbuf_release(&a);
	tc_load_free_all(tr, n);
}
