/*
 * Unit tests of Chameleon (cluster/chameleon.c, dissertation ch. 5): the
 * AT / C / L transition graph of Alg. 6 on hand-built call-path
 * signature sequences, the marker syntax, and the mode on hand-built
 * rank traces (marker intervals, state sequence, re-clusterings, leads
 * per call-path cluster, the online trace expanding to every rank's
 * events, and the same result for any thread count).
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "cluster/cluster.h"
#include "cluster/signature.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/merge.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/trace.h"

#include <stdlib.h>
#include <string.h>

/* Run the graph over one rank's sequence of interval signatures and
 * write the states ("AT", "C", "L", "L+" for L with a merge) joined by
 * spaces into buf. */
static void graph_run(const uint64_t *sig, size_t n, char *buf, size_t len)
{
	struct tc_cham_graph g;
	uint64_t old = 0;

	tc_cham_graph_init(&g);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		bool merge;
		int st = tc_cham_graph_step(&g, sig[i] != old, &merge);
		old = sig[i];
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s%s", i ? " " : "",
			 tc_cham_state_name(st), merge ? "+" : "");
	}
}

TEST(chameleon_graph_steady)
{
	/* the first interval differs (MPI_Init), then a steady loop */
	uint64_t sig[] = { 7, 1, 1, 1, 1, 1 };
	char buf[256];

	graph_run(sig, TC_ARRAY_SIZE(sig), buf, sizeof(buf));
	CHECK_STR(buf, "AT AT C L L L");
}

TEST(chameleon_graph_phases)
{
	/* A: clustered, then L; B: leaving L merges, then re-clustering;
	 * C right after the clustering of B: AT, then C again; D, E: changes
	 * in AT state stay in AT */
	uint64_t sig[] = { 1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 5 };
	char buf[256];

	graph_run(sig, TC_ARRAY_SIZE(sig), buf, sizeof(buf));
	CHECK_STR(buf, "AT C L L L+ C L L+ C AT AT C");
}

TEST(chameleon_graph_change_after_c)
{
	uint64_t sig[] = { 1, 1, 2, 3, 3, 3 };
	char buf[256];

	graph_run(sig, TC_ARRAY_SIZE(sig), buf, sizeof(buf));
	CHECK_STR(buf, "AT C AT AT C L");
}

TEST(chameleon_state_names)
{
	CHECK_STR(tc_cham_state_name(TC_CHAM_AT), "AT");
	CHECK_STR(tc_cham_state_name(TC_CHAM_C), "C");
	CHECK_STR(tc_cham_state_name(TC_CHAM_L), "L");
	CHECK(tc_cham_state_name(TC_NCHAM_STATES) == NULL);
}

TEST(chameleon_parse_marker)
{
	uint32_t op = 0;
	uint64_t site = 1;

	CHECK(tc_chameleon_parse_marker("MPI_Barrier", &op, &site) == 0);
	CHECK_EQ_U64(op, TC_OP_BARRIER);
	CHECK_EQ_U64(site, 0);
	CHECK(tc_chameleon_parse_marker("MPI_Allreduce@0x1f", &op, &site) == 0);
	CHECK_EQ_U64(op, TC_OP_ALLREDUCE);
	CHECK_EQ_U64(site, 0x1f);
	CHECK(tc_chameleon_parse_marker("MPI_Nothing", &op, &site) < 0);
	CHECK(tc_chameleon_parse_marker("MPI_Barrier@", &op, &site) < 0);
	CHECK(tc_chameleon_parse_marker("MPI_Barrier@0xzz", &op, &site) < 0);
	CHECK(tc_chameleon_parse_marker("", &op, &site) < 0);
}

/* ---- the mode on hand-built traces ------------------------------------- */

enum { SITE_SEND = 1, SITE_RECV, SITE_RED, SITE_BAR, SITE_INIT };

static void add_ev(struct tc_rank_trace *t, uint32_t op, uint32_t site, int32_t peer,
		   int64_t *clock)
{
	struct tc_event ev;

	tc_event_init(&ev);
	ev.op = op;
	ev.callsite = site;
	ev.t_start = (uint64_t)*clock + 10;
	ev.t_end = (uint64_t)*clock + 15;
	*clock += 20;
	if (peer >= 0) {
		ev.fields |= TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE | TC_F_COMM;
		ev.peer = peer;
		ev.tag = 5;
		ev.count = 8;
		ev.dtype = TC_DT_DOUBLE;
		ev.comm = 0;
	}
	tc_rank_trace_on_event(t, &ev);
}

/* Rank r of p with the call sites of these tests, after its MPI_Init. */
static struct tc_rank_trace *new_trace(int32_t r, int32_t p, int64_t *clock)
{
	struct tc_rank_trace *t = tc_rank_trace_new(r, p, NULL);

	tc_rsd_set_callsite(t->seq, SITE_SEND, 0x1111);
	tc_rsd_set_callsite(t->seq, SITE_RECV, 0x2222);
	tc_rsd_set_callsite(t->seq, SITE_RED, 0x3333);
	tc_rsd_set_callsite(t->seq, SITE_BAR, 0x4444);
	tc_rsd_set_callsite(t->seq, SITE_INIT, 0x5555);
	add_ev(t, TC_OP_INIT, SITE_INIT, -1, clock);
	return t;
}

/*
 * P ranks: MPI_Init, then phase 1 (steps1 steps of a ring exchange), then
 * phase 2 (steps2 steps of only an Allreduce); every step ends with a
 * barrier (the marker).
 */
static struct tc_rank_trace **make_traces(int32_t p, int steps1, int steps2)
{
	struct tc_rank_trace **tr = calloc((size_t)p, sizeof(*tr));

	for (int32_t r = 0; r < p; r++) {
		int64_t clock = 0;
		struct tc_rank_trace *t = new_trace(r, p, &clock);
		for (int s = 0; s < steps1; s++) {
			add_ev(t, TC_OP_SEND, SITE_SEND, (r + 1) % p, &clock);
			add_ev(t, TC_OP_RECV, SITE_RECV, (r + p - 1) % p, &clock);
			add_ev(t, TC_OP_BARRIER, SITE_BAR, -1, &clock);
		}
		for (int s = 0; s < steps2; s++) {
			add_ev(t, TC_OP_ALLREDUCE, SITE_RED, -1, &clock);
			add_ev(t, TC_OP_BARRIER, SITE_BAR, -1, &clock);
		}
		add_ev(t, TC_OP_FINALIZE, SITE_INIT, -1, &clock);
		tr[r] = t;
	}
	return tr;
}

static int run_cham(struct tc_rank_trace **tr, int32_t p, struct tc_pool *pool, uint32_t k,
		    struct tc_clustering *out)
{
	struct tc_signatures *sigs = calloc((size_t)p, sizeof(*sigs));
	struct tc_cluster_input in;
	struct tc_cluster_opts o;
	struct tc_error err;
	int rc;

	for (int32_t r = 0; r < p; r++)
		tc_signatures_compute(tr[r], &sigs[r]);
	in.sigs = sigs;
	in.n = (size_t)p;
	in.traces = tr;
	tc_cluster_opts_init(&o);
	o.k = k;
	o.pool = pool;
	o.online = true;
	tc_error_clear(&err);
	rc = tc_cluster_run(tc_cluster_mode_find("chameleon"), &in, &o, out, &err);
	free(sigs);
	return rc;
}

static void free_traces(struct tc_rank_trace **tr, int32_t p)
{
	for (int32_t r = 0; r < p; r++)
		tc_rank_trace_free(&tr[r]);
	free(tr);
}

/* Whether the online trace gives back every rank's events (op, call
 * site, peer) in order. */
static bool expands_to(const struct tc_gtrace *g, struct tc_rank_trace **tr, int32_t p)
{
	for (int32_t r = 0; r < p; r++) {
		struct tc_gtrace_iter gi;
		struct tc_rsd_iter ri;
		struct tc_event a, b;
		bool ok = true, more;
		if (tc_gtrace_iter_init(&gi, g, r))
			return false;
		tc_rsd_iter_init(&ri, tr[r]->seq);
		while ((more = tc_rsd_iter_next(&ri, &a))) {
			if (!tc_gtrace_iter_next(&gi, &b) || a.op != b.op ||
			    g->sites[b.callsite].sig != tc_rsd_event(tr[r]->seq, ri.node->event)->stack ||
			    (a.fields & TC_F_PEER && a.peer != b.peer)) {
				ok = false;
				break;
			}
		}
		if (ok && tc_gtrace_iter_next(&gi, &b))
			ok = false;
		tc_rsd_iter_release(&ri);
		tc_gtrace_iter_release(&gi);
		if (!ok)
			return false;
	}
	return true;
}

TEST(chameleon_mode_two_phases)
{
	struct tc_rank_trace **tr = make_traces(6, 5, 4);
	struct tc_clustering c;
	struct tc_chameleon *ch;

	tc_clustering_init(&c);
	CHECK(run_cham(tr, 6, NULL, 9, &c) == 0);
	ch = c.chameleon;
	CHECK(ch != NULL);
	if (ch) {
		static const uint8_t want[] = { TC_CHAM_AT, TC_CHAM_AT, TC_CHAM_C, TC_CHAM_L,
						TC_CHAM_L, TC_CHAM_L, TC_CHAM_C, TC_CHAM_L,
						TC_CHAM_L };
		CHECK_EQ_U64(ch->marker_site, 0x4444);
		CHECK_EQ_U64(ch->marker_calls, 9);
		CHECK_EQ_U64(ch->calls, 9);
		for (size_t i = 0; i < TC_ARRAY_SIZE(want) && i < ch->calls; i++)
			CHECK_EQ_U64(ch->states[i], want[i]);
		CHECK_EQ_U64(ch->reclusterings, 2);
		CHECK_EQ_U64(ch->in_state[TC_CHAM_C], 2);
		CHECK_EQ_U64(ch->in_state[TC_CHAM_L], 5);
		CHECK_EQ_U64(ch->in_state[TC_CHAM_AT], 2);
		CHECK(ch->final_clustering);
		/* the ring: rank 0, the last rank (their relative peers wrap
		 * around) and the others; the Allreduce phase: one cluster */
		CHECK_EQ_U64(ch->needed, 3);
		CHECK_EQ_U64(c.nclusters, 1);
		CHECK(ch->online != NULL);
		if (ch->online) {
			tc_gtrace_finish(ch->online);
			CHECK(expands_to(ch->online, tr, 6));
		}
	}
	tc_clustering_release(&c);
	free_traces(tr, 6);
}

TEST(chameleon_mode_threads_alike)
{
	struct tc_rank_trace **tr = make_traces(9, 4, 3);
	struct tc_clustering a, b;
	struct tc_pool *pool = tc_pool_new(3);

	tc_clustering_init(&a);
	tc_clustering_init(&b);
	CHECK(run_cham(tr, 9, NULL, 2, &a) == 0);
	CHECK(run_cham(tr, 9, pool, 2, &b) == 0);
	CHECK_EQ_U64(a.nclusters, b.nclusters);
	for (size_t i = 0; i < a.nclusters && i < b.nclusters; i++) {
		CHECK_EQ_I64(a.clusters[i].lead, b.clusters[i].lead);
		CHECK_EQ_U64(a.clusters[i].nranks, b.clusters[i].nranks);
	}
	CHECK(a.chameleon && b.chameleon);
	if (a.chameleon && b.chameleon) {
		CHECK_EQ_U64(a.chameleon->calls, b.chameleon->calls);
		CHECK(!memcmp(a.chameleon->states, b.chameleon->states, a.chameleon->calls));
		CHECK_EQ_U64(a.chameleon->events_used, b.chameleon->events_used);
	}
	tc_clustering_release(&a);
	tc_clustering_release(&b);
	tc_pool_free(pool);
	free_traces(tr, 9);
}

TEST(chameleon_no_marker)
{
	struct tc_rank_trace **tr = make_traces(2, 0, 0);
	struct tc_clustering c;

	tc_clustering_init(&c);
	CHECK(run_cham(tr, 2, NULL, 9, &c) < 0);
	tc_clustering_release(&c);
	free_traces(tr, 2);
}

TEST(chameleon_marker_calls_differ)
{
	struct tc_rank_trace **tr = make_traces(3, 3, 2);
	struct tc_rank_trace **tr2 = make_traces(3, 3, 3);
	struct tc_rank_trace *t = tr[1];
	struct tc_clustering c;

	/* rank 1 calls the marker once more than the others */
	tr[1] = tr2[1];
	tr2[1] = t;
	tc_clustering_init(&c);
	CHECK(run_cham(tr, 3, NULL, 9, &c) < 0);
	tc_clustering_release(&c);
	free_traces(tr, 3);
	free_traces(tr2, 3);
}

/* P ranks: MPI_Init, then steps of a ring exchange and an Allreduce, no
 * MPI_Barrier anywhere. */
static struct tc_rank_trace **make_nobarrier(int32_t p, int steps)
{
	struct tc_rank_trace **tr = calloc((size_t)p, sizeof(*tr));

	for (int32_t r = 0; r < p; r++) {
		int64_t clock = 0;
		struct tc_rank_trace *t = new_trace(r, p, &clock);
		for (int s = 0; s < steps; s++) {
			add_ev(t, TC_OP_SEND, SITE_SEND, (r + 1) % p, &clock);
			add_ev(t, TC_OP_RECV, SITE_RECV, (r + p - 1) % p, &clock);
			add_ev(t, TC_OP_ALLREDUCE, SITE_RED, -1, &clock);
		}
		add_ev(t, TC_OP_FINALIZE, SITE_INIT, -1, &clock);
		tc_rsd_settle(t->seq);
		tr[r] = t;
	}
	return tr;
}

TEST(chameleon_marker_auto)
{
	struct tc_rank_trace **tr = make_nobarrier(4, 6);
	struct tc_rank_trace **two = make_traces(4, 3, 10);
	struct tc_error err;
	uint32_t op;
	uint64_t site = 0;

	CHECK(tc_chameleon_parse_marker("auto", &op, &site) == 0);
	CHECK_EQ_U64(op, TC_CHAM_MARKER_AUTO);
	/* asked for: the collective of the timestep loop */
	op = TC_CHAM_MARKER_AUTO;
	CHECK(tc_chameleon_marker(tr, 4, &op, 0, &site, &err) == 0);
	CHECK_EQ_U64(op, TC_OP_ALLREDUCE);
	CHECK_EQ_U64(site, 0x3333);
	/* nothing given and no MPI_Barrier: the same */
	op = 0;
	site = 0;
	CHECK(tc_chameleon_marker(tr, 4, &op, 0, &site, &err) == 0);
	CHECK_EQ_U64(op, TC_OP_ALLREDUCE);
	CHECK_EQ_U64(site, 0x3333);
	/* an op named but not called is still an error */
	op = TC_OP_BARRIER;
	CHECK(tc_chameleon_marker(tr, 4, &op, 0, &site, &err) < 0);
	/* two phases: the loop with the most events (10 steps of Allreduce
	 * and Barrier against 3 of the ring) holds the marker; by default
	 * MPI_Barrier, as before */
	op = TC_CHAM_MARKER_AUTO;
	CHECK(tc_chameleon_marker(two, 4, &op, 0, &site, &err) == 0);
	CHECK_EQ_U64(op, TC_OP_ALLREDUCE);
	CHECK_EQ_U64(site, 0x3333);
	op = 0;
	CHECK(tc_chameleon_marker(two, 4, &op, 0, &site, &err) == 0);
	CHECK_EQ_U64(op, TC_OP_BARRIER);
	CHECK_EQ_U64(site, 0x4444);
	free_traces(tr, 4);
	free_traces(two, 4);
}

TEST(chameleon_marker_auto_majority)
{
	struct tc_rank_trace **tr = make_nobarrier(5, 6);
	struct tc_rank_trace **other = make_traces(5, 8, 0);
	struct tc_rank_trace *t = tr[3];
	struct tc_error err;
	uint32_t op = TC_CHAM_MARKER_AUTO;
	uint64_t site = 0;

	/* rank 3's loop ends in a barrier: four ranks name the Allreduce */
	tr[3] = other[3];
	other[3] = t;
	CHECK(tc_chameleon_marker(tr, 5, &op, 0, &site, &err) == 0);
	CHECK_EQ_U64(op, TC_OP_ALLREDUCE);
	CHECK_EQ_U64(site, 0x3333);
	free_traces(tr, 5);
	free_traces(other, 5);
}
