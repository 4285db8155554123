/*
 * Unit tests of the analysis of a trace set (analysis/analysis.h): a set
 * loaded once, a clustered global trace built from it, and that trace
 * measured against the original (matching, matrices, replay), on a 4x4
 * stencil whose ranks fall into classes of equal traces.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "analysis/analysis.h"
#include "analysis/evsource.h"
#include "formats/tct.h"
#include "lib/accuracy.h"
#include "lib/error.h"
#include "lib/merge.h"
#include "lib/pool.h"
#include "lib/replay.h"
#include "lib/strbuf.h"
#include "lib/synth.h"
#include "lib/trace.h"
#include "viz/viz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *stencil(void)
{
	static const char *dir;
	struct tc_synth_opts o;

	if (dir)
		return dir;
	memset(&o, 0, sizeof(o));
	o.pattern = "stencil2d";
	o.ranks = 16;
	o.iters = 4;
	o.seed = 3;
	o.dims[0] = 4;
	o.dims[1] = 4;
	dir = strdup(unit_synth_set("st", &o));
	return dir;
}

static double total(const struct tc_matrix *m)
{
	double l1, max;

	tc_matrix_norms(m, &l1, &max);
	return l1;
}

TEST(anl_open_and_build)
{
	struct tc_pool *pool = tc_pool_new(3);
	struct tc_anl a;
	struct tc_anl_built b;
	struct tc_error err;
	size_t members = 0;

	CHECK(tc_anl_open(&a, stencil(), TC_ANL_SIZES, pool, &err) == 0);
	CHECK_EQ_U64(a.n, 16);
	CHECK_EQ_I64(a.world, 16);
	CHECK(a.g == NULL);
	for (size_t i = 0; i < a.n; i++) {
		CHECK_EQ_I64(a.traces[i]->rank, (int32_t)i);
		CHECK(a.trace_bytes[i] > 0);
	}
	CHECK(tc_anl_build(&a, tc_cluster_mode_find("callpath-param"), NULL, pool, &b, &err) == 0);
	CHECK(b.g != NULL);
	CHECK(b.bytes > 0);
	CHECK(b.cl.nclusters > 1 && b.cl.nclusters < 16);
	for (size_t c = 0; c < b.cl.nclusters; c++)
		members += b.cl.clusters[c].nranks;
	CHECK_EQ_U64(members, 16);
	CHECK_EQ_I64(b.g->world_size, 16);
	CHECK(!strcmp(b.g->mode, "callpath-param"));
	CHECK(tc_anl_space(&a, NULL) > 0);
	CHECK(tc_anl_space(&a, &b.cl) > 0);
	tc_anl_built_release(&b);
	tc_anl_release(&a);
	/* a path that does not exist */
	CHECK(tc_anl_open(&a, "/nonexistent/none", 0, pool, &err) != 0);
	tc_anl_release(&a);
	tc_pool_free(pool);
}

TEST(anl_leaves_and_merge)
{
	struct tc_pool *pool = tc_pool_new(2);
	struct tc_merge_opts mopts = { 100, TC_HIST_BINS_DEFAULT, false };
	struct tc_anl a;
	struct tc_anl_built b;
	struct tc_gtrace **leaves, *g;
	struct tc_error err;
	struct tc_strbuf s1 = TC_STRBUF_INIT, s2 = TC_STRBUF_INIT;

	CHECK(tc_anl_open(&a, stencil(), 0, pool, &err) == 0);
	CHECK(tc_anl_build(&a, tc_cluster_mode_find("callpath"), NULL, pool, &b, &err) == 0);
	leaves = tc_anl_make_leaves(&b.cl, a.traces, a.world, &mopts, true, pool);
	for (size_t c = 0; c < b.cl.nclusters; c++)
		CHECK(leaves[c] != NULL);
	g = tc_anl_merge_clusters(&b.cl, leaves, pool, &mopts);
	CHECK(g != NULL);
	/* the same trace as the build's, but for what the build sets after */
	if (g) {
		snprintf(g->mode, sizeof(g->mode), "%s", b.g->mode);
		snprintf(g->variant, sizeof(g->variant), "%s", b.g->variant);
		g->precision = b.g->precision;
		g->bins = b.g->bins;
		g->world_size = b.g->world_size;
		tc_gtrace_set_timing(g, TC_GTIMING_STATS);
		tc_gtrace_finish(g);
		for (size_t i = 0; i < a.n; i++)
			tc_anl_copy_sites(g, a.traces[i]);
		CHECK(g->nsites > 0);
		tc_tct_format(g, TC_TCT_TEXT, &s1);
		tc_tct_format(b.g, TC_TCT_TEXT, &s2);
		CHECK_EQ_U64(s1.len, s2.len);
		CHECK(s1.len == s2.len && !memcmp(s1.buf, s2.buf, s1.len));
	}
	tc_strbuf_release(&s1);
	tc_strbuf_release(&s2);
	tc_gtrace_free(&g);
	free(leaves);
	tc_anl_built_release(&b);
	tc_anl_release(&a);
	tc_pool_free(pool);
}

TEST(anl_lossless_mode_measures_exact)
{
	struct tc_pool *pool = tc_pool_new(4);
	struct tc_anl a;
	struct tc_anl_eval e;
	struct tc_replay_params p;
	struct tc_anl_base base;
	struct tc_matrix orig;
	struct tc_error err;

	tc_replay_params_init(&p);
	CHECK(tc_anl_open(&a, stencil(), TC_ANL_SIZES, pool, &err) == 0);
	tc_anl_matrix(&a, NULL, TC_HM_BYTES, false, pool, &orig);
	CHECK(total(&orig) > 0);
	tc_anl_base_replay(&a, &p, &base);
	CHECK(base.t > 0);
	CHECK(base.t_comm > 0 && base.t_comm < base.t);
	CHECK(!base.deadlock);
	/* callpath-param keeps every rank's parameters: nothing is lost */
	CHECK(tc_anl_evaluate(&a, tc_cluster_mode_find("callpath-param"), NULL, pool, &p, &base,
			      &orig, TC_HM_BYTES, &e, &err) == 0);
	CHECK(e.clusters > 1);
	CHECK_EQ_U64(e.leads, e.clusters);
	CHECK(e.bytes > 0);
	CHECK(e.l1 == 0);
	CHECK(e.total == total(&orig));
	for (int i = 0; i < TC_MATCH_N; i++)
		CHECK(tc_match_pct(&e.fid.match, i) == 100);
	CHECK(e.fid.t == base.t);
	CHECK(e.fid.acc_comm == 1);
	CHECK(!e.fid.deadlock);
	tc_matrix_release(&orig);
	tc_anl_release(&a);
	tc_pool_free(pool);
}

TEST(anl_lossy_mode_measures_loss)
{
	struct tc_pool *pool = tc_pool_new(2);
	struct tc_cluster_opts co;
	struct tc_anl a;
	struct tc_anl_eval e;
	struct tc_replay_params p;
	struct tc_error err;

	tc_replay_params_init(&p);
	tc_cluster_opts_init(&co);
	co.k = 2;
	CHECK(tc_anl_open(&a, stencil(), TC_ANL_SIZES, pool, &err) == 0);
	/* two clusters for several kinds of rank, each lead standing for its
	 * members' parameters: some are lost */
	a.lead_only = true;
	CHECK(tc_anl_evaluate(&a, tc_cluster_mode_find("kfarthest"), &co, pool, &p, NULL, NULL,
			      TC_HM_COUNT, &e, &err) == 0);
	CHECK_EQ_U64(e.clusters, 2);
	CHECK_EQ_I64(e.opts.k, 2);
	CHECK(e.l1 > 0);
	CHECK(e.total > 0);
	CHECK(tc_match_pct(&e.fid.match, TC_MATCH_DEST) < 100);
	CHECK(e.fid.acc <= 1 && e.fid.acc_own <= 1);
	CHECK(fabs(e.fid.err_cluster - (1 - e.fid.acc_own)) < 1e-12);
	tc_anl_release(&a);
	tc_pool_free(pool);
}

/* Counts each rank's events (tc_evsrc_fn). */
static void count(void *ctx, size_t slot, int32_t rank, const struct tc_event *ev,
		  uint64_t site, const struct tc_matrix_comm *comm, uint64_t t)
{
	uint64_t *n = ctx;

	(void)rank, (void)ev, (void)site, (void)comm, (void)t;
	n[slot]++;
}

TEST(anl_replay_and_expanded_events)
{
	struct tc_pool *pool = tc_pool_new(2);
	struct tc_anl a;
	struct tc_anl_built b;
	struct tc_replay_params p;
	struct tc_replay_result r0, r1;
	struct tc_evsrc src;
	struct tc_match m;
	struct tc_error err;
	uint64_t n0[16] = { 0 }, n1[16] = { 0 };

	tc_replay_params_init(&p);
	CHECK(tc_anl_open(&a, stencil(), 0, pool, &err) == 0);
	CHECK(tc_anl_build(&a, tc_cluster_mode_find("callpath-param"), NULL, pool, &b, &err) == 0);
	CHECK(tc_anl_replay(&a, NULL, &p, &r0) == 0);
	CHECK(tc_anl_replay(&a, b.g, &p, &r1) == 0);
	CHECK_EQ_U64(r0.nranks, 16);
	CHECK_EQ_U64(r1.nranks, 16);
	CHECK_EQ_U64(r1.events, r0.events);
	CHECK_EQ_U64(r1.messages, r0.messages);
	CHECK(r0.makespan > 0);
	tc_anl_match(&a, b.g, pool, &m);
	CHECK(tc_match_pct(&m, TC_MATCH_COUNT) == 100);
	/* the global trace expanded: each rank's events, as many as its own */
	memset(&src, 0, sizeof(src));
	src.ts = a.ts;
	CHECK(tc_evsrc_each(&src, pool, count, n0, &err) == 0);
	memset(&src, 0, sizeof(src));
	src.g = b.g;
	src.traces = a.traces;
	src.ntraces = a.n;
	CHECK_EQ_U64(tc_evsrc_slots(&src), 16);
	CHECK_EQ_I64(tc_evsrc_world(&src), 16);
	CHECK(tc_evsrc_each(&src, pool, count, n1, &err) == 0);
	for (size_t i = 0; i < 16; i++) {
		CHECK(n0[i] > 0);
		CHECK_EQ_U64(n1[i], n0[i]);
	}
	tc_replay_result_release(&r0);
	tc_replay_result_release(&r1);
	tc_anl_built_release(&b);
	tc_anl_release(&a);
	tc_pool_free(pool);
}

TEST(anl_open_global_trace)
{
	struct tc_pool *pool = tc_pool_new(1);
	struct tc_anl a, t;
	struct tc_anl_built b;
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_error err;
	char path[4200];

	CHECK(tc_anl_open(&a, stencil(), 0, pool, &err) == 0);
	CHECK(tc_anl_build(&a, tc_cluster_mode_find("callpath-param"), NULL, pool, &b, &err) == 0);
	tc_tct_format(b.g, TC_TCT_BINARY, &sb);
	CHECK_EQ_U64(sb.len, b.bytes);
	snprintf(path, sizeof(path), "%s/g.tct", unit_tmpdir());
	CHECK(tc_tct_write_file(path, sb.buf, sb.len, &err) == 0);
	CHECK(tc_anl_open(&t, path, 0, pool, &err) == 0);
	CHECK(t.g != NULL);
	CHECK(t.traces == NULL);
	CHECK_EQ_I64(t.world, 16);
	tc_anl_release(&t);
	/* a global trace is not a trace set */
	CHECK(tc_anl_open(&t, path, TC_ANL_NEED_DIR, pool, &err) != 0);
	CHECK(strstr(err.msg, "a trace set is needed") != NULL);
	tc_anl_release(&t);
	tc_strbuf_release(&sb);
	tc_anl_built_release(&b);
	tc_anl_release(&a);
	tc_pool_free(pool);
}

TEST(anl_acc_and_clock)
{
	double t0, t1;

	CHECK(tc_anl_acc(2, 2) == 1);
	CHECK(tc_anl_acc(2, 1.5) == 0.75);
	CHECK(tc_anl_acc(2, 3) == 0.5);
	CHECK(tc_anl_acc(1, 3) == -1);
	CHECK(tc_anl_acc(0, 0) == 1);
	CHECK(tc_anl_acc(0, 1) == 0);
	t0 = tc_anl_now();
	t1 = tc_anl_now();
	CHECK(t0 > 0);
	CHECK(t1 >= t0);
}

TEST(anl_fidelity_of_a_lossless_trace)
{
	struct tc_pool *pool = tc_pool_new(2);
	struct tc_anl a;
	struct tc_anl_built b;
	struct tc_anl_fidelity f, g;
	struct tc_anl_base base;
	struct tc_replay_params p;
	struct tc_error err;

	tc_replay_params_init(&p);
	CHECK(tc_anl_open(&a, stencil(), 0, pool, &err) == 0);
	CHECK(tc_anl_build(&a, tc_cluster_mode_find("callpath-param"), NULL, pool, &b, &err) == 0);
	/* without a base the original is replayed here */
	tc_anl_fidelity(&a, b.g, pool, &p, NULL, &f);
	CHECK(f.t > 0);
	CHECK(f.t_comm > 0 && f.t_comm < f.t);
	CHECK(f.gaps == p.gaps);
	CHECK(!f.deadlock);
	CHECK_EQ_U64(f.forced, 0);
	for (int i = 0; i < TC_MATCH_N; i++)
		CHECK(tc_match_pct(&f.match, i) == 100);
	CHECK(f.acc_comm == 1);
	CHECK(f.acc == tc_anl_acc(f.t, f.t_clustered));
	CHECK(f.acc <= 1 && f.acc_own <= 1);
	CHECK(fabs(f.err_cluster - (1 - f.acc_own)) < 1e-12);
	/* a given base gives the same figures */
	tc_anl_base_replay(&a, &p, &base);
	tc_anl_fidelity(&a, b.g, pool, &p, &base, &g);
	CHECK(g.t == f.t);
	CHECK(g.t_clustered == f.t_clustered);
	CHECK(g.acc == f.acc);
	/* communication alone: the three makespans are one */
	p.gaps = false;
	tc_anl_fidelity(&a, b.g, pool, &p, NULL, &g);
	CHECK(!g.gaps);
	CHECK(g.t_comm_clustered == g.t_clustered);
	CHECK(g.t_own == g.t_clustered);
	tc_anl_built_release(&b);
	tc_anl_release(&a);
	tc_pool_free(pool);
}
