/*
 * Unit tests of the intra-rank loop compressor (lib/rsd.h): loop shapes
 * of hand-built event sequences with known loop structure, relative
 * end-points, the look-back window, exact expansion and the time
 * statistics.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "lib/event.h"
#include "lib/rsd.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/synth.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

struct feeder {
	struct tc_rsd *rsd;
	uint64_t clock;
	struct tc_event *evs;   /* everything fed, for the round trip */
	size_t n, alloc;
};

static void feeder_init_match(struct feeder *f, int32_t rank, uint32_t window, int match)
{
	struct tc_rsd_opts o = { window, match };

	memset(f, 0, sizeof(*f));
	f->rsd = tc_rsd_new(rank, &o);
}

static void feeder_init(struct feeder *f, int32_t rank, uint32_t window)
{
	feeder_init_match(f, rank, window, TC_RSD_MATCH_PARAMS);
}

static void feeder_release(struct feeder *f)
{
	tc_rsd_free(&f->rsd);
	free(f->evs);
}

/* Feed ev after `comp` ns of computing; the call takes `dur` ns. */
static void put(struct feeder *f, struct tc_event ev, uint64_t comp, uint64_t dur)
{
	ev.t_start = f->clock + comp;
	ev.t_end = ev.t_start + dur;
	f->clock = ev.t_end;
	tc_rsd_add(f->rsd, &ev);
	TC_ALLOC_GROW(f->evs, f->n + 1, f->alloc);
	f->evs[f->n++] = ev;
}

static struct tc_event ev_p2p(unsigned op, uint32_t site, int32_t peer, int32_t tag,
			      uint64_t count)
{
	struct tc_event ev;

	tc_event_init(&ev);
	ev.op = op;
	ev.callsite = site;
	ev.fields = TC_F_COMM | TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE;
	ev.comm = TC_COMM_WORLD;
	ev.peer = peer;
	ev.tag = tag;
	ev.count = count;
	ev.dtype = TC_DT_DOUBLE;
	ev.dtype_size = 8;
	return ev;
}

static struct tc_event ev_coll(unsigned op, uint32_t site)
{
	struct tc_event ev;

	tc_event_init(&ev);
	ev.op = op;
	ev.callsite = site;
	ev.fields = TC_F_COMM;
	ev.comm = TC_COMM_WORLD;
	return ev;
}

static char *shape_of(const struct tc_rsd *r)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;

	tc_rsd_format(r, &sb, TC_RSD_FMT_SHAPE);
	return tc_strbuf_detach(&sb, NULL);
}

#define CHECK_SHAPE(r, want)                                             \
	do {                                                             \
		char *s_ = shape_of(r);                                  \
		CHECK_STR(s_, want);                                     \
		free(s_);                                                \
	} while (0)

static bool events_equal(const struct tc_event *a, const struct tc_event *b, bool times)
{
	uint32_t f = a->fields;

	if (a->op != b->op || a->fields != b->fields || a->callsite != b->callsite)
		return false;
	if (times && (a->t_start != b->t_start || a->t_end != b->t_end))
		return false;
	if (((f & TC_F_COMM) && a->comm != b->comm) ||
	    ((f & TC_F_PEER) && a->peer != b->peer) ||
	    ((f & TC_F_TAG) && a->tag != b->tag) ||
	    ((f & TC_F_RPEER) && (a->rpeer != b->rpeer || a->rtag != b->rtag)) ||
	    ((f & TC_F_COUNT) && a->count != b->count) ||
	    ((f & TC_F_DTYPE) && (a->dtype != b->dtype || a->dtype_size != b->dtype_size)) ||
	    ((f & TC_F_BYTES) && a->bytes != b->bytes) ||
	    ((f & TC_F_REDOP) && a->redop != b->redop) ||
	    ((f & TC_F_ROOT) && a->root != b->root) ||
	    ((f & TC_F_COLOR) && (a->color != b->color || a->key != b->key)) ||
	    ((f & TC_F_REQUEST) && a->request != b->request) ||
	    ((f & TC_F_NEWCOMM) && a->newcomm != b->newcomm) ||
	    ((f & TC_F_FILE) && (a->file != b->file || a->offset != b->offset)) ||
	    ((f & TC_F_RESULT) && a->result != b->result))
		return false;
	if (f & TC_F_COMPL) {
		if (a->ncompl != b->ncompl)
			return false;
		for (uint32_t i = 0; i < a->ncompl; i++)
			if (a->compl[i].request != b->compl[i].request ||
			    a->compl[i].source != b->compl[i].source ||
			    a->compl[i].tag != b->compl[i].tag ||
			    a->compl[i].bytes != b->compl[i].bytes)
				return false;
	}
	if (f & TC_F_SCOUNTS) {
		if (a->nscounts != b->nscounts ||
		    memcmp(a->scounts, b->scounts, a->nscounts * sizeof(uint64_t)))
			return false;
	}
	if (f & TC_F_RCOUNTS) {
		if (a->nrcounts != b->nrcounts ||
		    memcmp(a->rcounts, b->rcounts, a->nrcounts * sizeof(uint64_t)))
			return false;
	}
	return true;
}

/* Expand f->rsd and compare with everything fed; returns mismatches. */
static size_t roundtrip(const struct feeder *f, bool times)
{
	struct tc_rsd_iter it;
	struct tc_event ev;
	size_t i = 0, bad = 0;

	tc_rsd_iter_init(&it, f->rsd);
	while (tc_rsd_iter_next(&it, &ev)) {
		if (i >= f->n || !events_equal(&f->evs[i], &ev, times)) {
			if (!bad)
				printf("# first mismatch at event %zu\n", i);
			bad++;
		}
		i++;
	}
	tc_rsd_iter_release(&it);
	if (i != f->n) {
		printf("# expanded %zu events, fed %zu\n", i, f->n);
		bad++;
	}
	return bad;
}

/* ---- statistics --------------------------------------------------------- */

TEST(stat_welford_values)
{
	struct tc_rsd_stat s;
	static const int64_t x[] = { 10, 20, 30, 40 };

	tc_rsd_stat_init(&s);
	for (size_t i = 0; i < 4; i++)
		tc_rsd_stat_add(&s, x[i]);
	CHECK_EQ_U64(s.n, 4);
	CHECK_EQ_I64(s.min, 10);
	CHECK_EQ_I64(s.max, 40);
	CHECK(s.mean == 25.0);
	/* deviations -15 -5 5 15: m2 = 500, population variance 125 */
	CHECK(fabs(s.m2 - 500.0) < 1e-9);
	CHECK(fabs(tc_rsd_stat_stddev(&s) - sqrt(125.0)) < 1e-9);
}

TEST(stat_merge_equals_sequential)
{
	struct tc_rsd_stat all, a, b;

	tc_rsd_stat_init(&all);
	tc_rsd_stat_init(&a);
	tc_rsd_stat_init(&b);
	for (int64_t i = 0; i < 100; i++) {
		int64_t x = (i * 7919) % 1000 - 200;
		tc_rsd_stat_add(&all, x);
		tc_rsd_stat_add(i < 37 ? &a : &b, x);
	}
	tc_rsd_stat_merge(&a, &b);
	CHECK_EQ_U64(a.n, all.n);
	CHECK_EQ_I64(a.min, all.min);
	CHECK_EQ_I64(a.max, all.max);
	CHECK(fabs(a.mean - all.mean) < 1e-9);
	CHECK(fabs(a.m2 - all.m2) < 1e-6);
	/* merging an empty one changes nothing; into an empty one copies */
	tc_rsd_stat_init(&b);
	tc_rsd_stat_merge(&a, &b);
	CHECK_EQ_U64(a.n, 100);
	tc_rsd_stat_merge(&b, &a);
	CHECK_EQ_U64(b.n, 100);
	CHECK(b.mean == a.mean);
}

/* ---- relative peers ------------------------------------------------------ */

TEST(relative_peer_encoding)
{
	CHECK_EQ_I64(tc_rel_peer(6, 5), 1);
	CHECK_EQ_I64(tc_rel_peer(1, 5), -4);
	CHECK(tc_rel_is_rank(tc_rel_peer(0, 5)));
	CHECK(!tc_rel_is_rank(tc_rel_peer(TC_ANY_SOURCE, 5)));
	CHECK(!tc_rel_is_rank(tc_rel_peer(TC_PROC_NULL, 5)));
	CHECK(tc_rel_peer(TC_ANY_SOURCE, 5) == tc_rel_peer(TC_ANY_SOURCE, 9));
	CHECK(tc_rel_peer(TC_ANY_SOURCE, 5) != tc_rel_peer(TC_PROC_NULL, 5));
	CHECK_EQ_I64(tc_abs_peer(tc_rel_peer(TC_PROC_NULL, 7), 7), TC_PROC_NULL);
	CHECK_EQ_I64(tc_abs_peer(tc_rel_peer(INT32_MAX, 0), 0), INT32_MAX);
	CHECK_EQ_I64(tc_abs_peer(tc_rel_peer(INT32_MIN, 3), 3), INT32_MIN);
	CHECK_EQ_I64(tc_abs_peer(tc_rel_peer(0, INT32_MAX), INT32_MAX), 0);
}

TEST(relative_peer_modulo_world)
{
	/* every peer inside the world comes back unchanged at its own rank */
	for (int32_t w = 1; w <= 9; w++)
		for (int32_t r = 0; r < w; r++)
			for (int32_t p = 0; p < w; p++)
				CHECK_EQ_I64(tc_abs_peer_in(tc_rel_peer(p, r), r, w), p);
	/* a ring of 4: rank 0's left neighbour (+3) taken by rank 2 is rank 1,
	 * rank 3's right neighbour (-3) taken by rank 1 is rank 2 */
	CHECK_EQ_I64(tc_abs_peer_in(tc_rel_peer(3, 0), 2, 4), 1);
	CHECK_EQ_I64(tc_abs_peer_in(tc_rel_peer(0, 3), 1, 4), 2);
	CHECK_EQ_I64(tc_abs_peer_in(-9, 0, 4), 3);
	CHECK_EQ_I64(tc_abs_peer_in((int64_t)1 << 38, 1, 3), (int32_t)((((int64_t)1 << 38) + 1) % 3));
	/* special peers stay what they are; no world size: no modulo */
	CHECK_EQ_I64(tc_abs_peer_in(tc_rel_peer(TC_PROC_NULL, 2), 2, 4), TC_PROC_NULL);
	CHECK_EQ_I64(tc_abs_peer_in(tc_rel_peer(TC_ANY_SOURCE, 2), 2, 4), TC_ANY_SOURCE);
	CHECK_EQ_I64(tc_abs_peer_in(tc_rel_peer(TC_PEER_NONE, 2), 2, 4), TC_PEER_NONE);
	CHECK_EQ_I64(tc_abs_peer_in(5, 2, 0), 7);
}

/* ---- loop shapes --------------------------------------------------------- */

TEST(single_loop)
{
	struct feeder f;
	struct tc_rsd_info info;

	feeder_init(&f, 3, 0);
	for (int i = 0; i < 10; i++) {
		put(&f, ev_p2p(TC_OP_IRECV, 1, 2, 7, 64), 100, 5);
		put(&f, ev_p2p(TC_OP_ISEND, 2, 4, 7, 64), 0, 5);
		put(&f, ev_coll(TC_OP_WAITALL, 3), 0, 50);
	}
	CHECK_SHAPE(f.rsd, "10*(e0 e1 e2)");
	tc_rsd_info(f.rsd, &info);
	CHECK_EQ_U64(info.events, 30);
	CHECK_EQ_U64(info.distinct, 3);
	CHECK_EQ_U64(info.top, 1);
	CHECK_EQ_U64(info.loops, 1);
	CHECK_EQ_U64(info.leaves, 3);
	CHECK_EQ_U64(info.depth, 1);
	CHECK_EQ_U64(roundtrip(&f, true), 0);
	feeder_release(&f);
}

TEST(single_event_loop_and_prefix_suffix)
{
	struct feeder f;

	feeder_init(&f, 0, 0);
	put(&f, ev_coll(TC_OP_INIT, 0), 0, 1);
	for (int i = 0; i < 7; i++)
		put(&f, ev_coll(TC_OP_BARRIER, 1), 3, 1);
	put(&f, ev_coll(TC_OP_FINALIZE, 2), 0, 1);
	CHECK_SHAPE(f.rsd, "e0 7*(e1) e2");
	CHECK_EQ_U64(roundtrip(&f, true), 0);
	feeder_release(&f);
}

/* Dissertation ch. 2, Alg. 1: for i < N { for k < M { Send; Recv } Barrier }
 * compresses to PRSD <N, RSD <M, Send, Recv>, Barrier>. */
TEST(nested_loops)
{
	struct feeder f;
	struct tc_rsd_info info;
	const struct tc_rsd_node *seq;
	size_t n;

	feeder_init(&f, 1, 0);
	for (int i = 0; i < 1000; i++) {
		for (int k = 0; k < 100; k++) {
			put(&f, ev_p2p(TC_OP_SEND, 10, 2, 0, 8), 10, 2);
			put(&f, ev_p2p(TC_OP_RECV, 11, 0, 0, 8), 10, 2);
		}
		put(&f, ev_coll(TC_OP_BARRIER, 12), 10, 30);
	}
	CHECK_SHAPE(f.rsd, "1000*(100*(e0 e1) e2)");
	tc_rsd_info(f.rsd, &info);
	CHECK_EQ_U64(info.events, 201000);
	CHECK_EQ_U64(info.depth, 2);
	CHECK_EQ_U64(info.nodes, 5);
	seq = tc_rsd_seq(f.rsd, &n);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(seq[0].iters, 1000);
	CHECK_EQ_U64(seq[0].body[0].iters, 100);
	/* every occurrence is folded into the node's statistics */
	CHECK_EQ_U64(seq[0].body[0].body[0].comp.n, 100000);
	CHECK_EQ_U64(seq[0].body[1].comp.n, 1000);
	CHECK(seq[0].body[1].comm.mean == 30.0);
	CHECK_EQ_U64(roundtrip(&f, true), 0);
	feeder_release(&f);
}

/* Three levels, and a loop after the nest. */
TEST(triple_nest)
{
	struct feeder f;

	feeder_init(&f, 0, 0);
	for (int a = 0; a < 4; a++) {
		for (int b = 0; b < 3; b++) {
			for (int c = 0; c < 5; c++)
				put(&f, ev_p2p(TC_OP_ISEND, 1, 1, 0, 4), 1, 1);
			put(&f, ev_coll(TC_OP_WAITALL, 2), 1, 1);
		}
		put(&f, ev_coll(TC_OP_ALLREDUCE, 3), 1, 1);
	}
	for (int i = 0; i < 6; i++)
		put(&f, ev_coll(TC_OP_BARRIER, 4), 1, 1);
	CHECK_SHAPE(f.rsd, "4*(3*(5*(e0) e1) e2) 6*(e3)");
	CHECK_EQ_U64(roundtrip(&f, true), 0);
	feeder_release(&f);
}

/* A loop whose last iteration differs (a varying tail: here the last
 * message is shorter), then the pattern resumes. */
TEST(loop_with_varying_tail)
{
	struct feeder f;

	feeder_init(&f, 2, 0);
	for (int i = 0; i < 5; i++) {
		put(&f, ev_p2p(TC_OP_ISEND, 1, 3, 0, 100), 1, 1);
		put(&f, ev_p2p(TC_OP_IRECV, 2, 1, 0, 100), 1, 1);
		put(&f, ev_coll(TC_OP_WAITALL, 3), 1, 1);
	}
	put(&f, ev_p2p(TC_OP_ISEND, 1, 3, 0, 100), 1, 1);
	put(&f, ev_p2p(TC_OP_IRECV, 2, 1, 0, 37), 1, 1); /* remainder */
	put(&f, ev_coll(TC_OP_WAITALL, 3), 1, 1);
	put(&f, ev_coll(TC_OP_FINALIZE, 4), 1, 1);
	CHECK_SHAPE(f.rsd, "5*(e0 e1 e2) e0 e3 e2 e4");
	CHECK_EQ_U64(roundtrip(&f, true), 0);
	feeder_release(&f);
}

/* The body of the outer loop changes every other iteration: the loop
 * forms over the pair of variants. */
TEST(alternating_bodies)
{
	struct feeder f;

	feeder_init(&f, 0, 0);
	for (int i = 0; i < 8; i++) {
		put(&f, ev_p2p(TC_OP_SEND, 1, 1, 0, i % 2 ? 16 : 32), 1, 1);
		put(&f, ev_coll(TC_OP_BARRIER, 2), 1, 1);
	}
	CHECK_SHAPE(f.rsd, "4*(e0 e1 e2 e1)");
	CHECK_EQ_U64(roundtrip(&f, true), 0);
	feeder_release(&f);
}

/* Events from different call sites or with different parameters never
 * fold together. */
TEST(callsite_and_parameters_distinguish)
{
	struct feeder f;

	feeder_init(&f, 0, 0);
	tc_rsd_set_callsite(f.rsd, 1, 0x1111);
	tc_rsd_set_callsite(f.rsd, 2, 0x2222);
	put(&f, ev_p2p(TC_OP_SEND, 1, 1, 0, 8), 1, 1);
	put(&f, ev_p2p(TC_OP_SEND, 2, 1, 0, 8), 1, 1); /* other call site */
	put(&f, ev_p2p(TC_OP_SEND, 1, 1, 1, 8), 1, 1); /* other tag */
	put(&f, ev_p2p(TC_OP_SEND, 1, 1, 0, 9), 1, 1); /* other count */
	put(&f, ev_p2p(TC_OP_SEND, 1, 2, 0, 8), 1, 1); /* other peer */
	put(&f, ev_p2p(TC_OP_SEND, 1, 1, 0, 8), 1, 1); /* the first again */
	CHECK_SHAPE(f.rsd, "e0 e1 e2 e3 e4 e0");
	CHECK_EQ_U64(tc_rsd_nevents(f.rsd), 5);
	CHECK_EQ_U64(tc_rsd_event(f.rsd, 1)->stack, 0x2222);
	CHECK(tc_rsd_event(f.rsd, 5) == NULL);
	feeder_release(&f);
}

/* ---- relative end-points: a 2D stencil ------------------------------------ */

/* One rank of a 4x4 non-periodic 2D halo exchange, `iters` steps. */
static void stencil_rank(struct feeder *f, int32_t rank, int iters)
{
	const int px = 4, py = 4;
	int x = rank % px, y = rank / px;
	int32_t nb[4];
	int nn = 0;

	if (x > 0)
		nb[nn++] = rank - 1;
	if (x < px - 1)
		nb[nn++] = rank + 1;
	if (y > 0)
		nb[nn++] = rank - px;
	if (y < py - 1)
		nb[nn++] = rank + px;
	for (int it = 0; it < iters; it++) {
		for (int k = 0; k < nn; k++)
			put(f, ev_p2p(TC_OP_IRECV, 1, nb[k], 5, 256), k ? 0 : 1000, 3);
		for (int k = 0; k < nn; k++)
			put(f, ev_p2p(TC_OP_ISEND, 2, nb[k], 5, 256), 0, 3);
		put(f, ev_coll(TC_OP_WAITALL, 3), 0, 40);
	}
	put(f, ev_coll(TC_OP_ALLREDUCE, 4), 10, 100);
}

TEST(relative_peers_make_stencil_iterations_equal)
{
	struct feeder r5, r6, r10, r0, r3;
	struct tc_rsd_info i5, i6;

	feeder_init(&r5, 5, 0);
	feeder_init(&r6, 6, 0);
	feeder_init(&r10, 10, 0);
	feeder_init(&r0, 0, 0);
	feeder_init(&r3, 3, 0);
	stencil_rank(&r5, 5, 50);
	stencil_rank(&r6, 6, 50);
	stencil_rank(&r10, 10, 50);
	stencil_rank(&r0, 0, 50);
	stencil_rank(&r3, 3, 50);
	/* every iteration is the same in relative terms: one loop */
	CHECK_SHAPE(r5.rsd, "50*(e0 e1 e2 e3 e4 e5 e6 e7 e8) e9");
	CHECK_SHAPE(r0.rsd, "50*(e0 e1 e2 e3 e4) e5");
	/* interior ranks are the same sequence, corners differ */
	CHECK(tc_rsd_equal(r5.rsd, r6.rsd));
	CHECK(tc_rsd_equal(r5.rsd, r10.rsd));
	CHECK(!tc_rsd_equal(r5.rsd, r0.rsd));
	/* corners 0 and 3 have the same shape but mirrored peers */
	CHECK(!tc_rsd_equal(r0.rsd, r3.rsd));
	tc_rsd_info(r5.rsd, &i5);
	tc_rsd_info(r6.rsd, &i6);
	CHECK_EQ_U64(i5.digest, i6.digest);
	CHECK_EQ_U64(roundtrip(&r5, true), 0);
	CHECK_EQ_U64(roundtrip(&r0, true), 0);
	feeder_release(&r5);
	feeder_release(&r6);
	feeder_release(&r10);
	feeder_release(&r0);
	feeder_release(&r3);
}

/* Across ranks, events compare by stack signature, not file-local id. */
TEST(equal_across_ranks_by_stack_signature)
{
	struct feeder a, b;

	feeder_init(&a, 1, 0);
	feeder_init(&b, 2, 0);
	tc_rsd_set_callsite(a.rsd, 4, 0xabcdef);
	tc_rsd_set_callsite(b.rsd, 9, 0xabcdef);
	for (int i = 0; i < 3; i++) {
		put(&a, ev_p2p(TC_OP_SEND, 4, 2, 0, 1), 1, 1);
		put(&b, ev_p2p(TC_OP_SEND, 9, 3, 0, 1), 5, 7); /* times differ */
	}
	CHECK(tc_rsd_equal(a.rsd, b.rsd));
	tc_rsd_set_callsite(b.rsd, 9, 0x123);
	put(&a, ev_p2p(TC_OP_SEND, 4, 2, 0, 1), 1, 1);
	put(&b, ev_p2p(TC_OP_SEND, 9, 3, 0, 1), 1, 1);
	CHECK(!tc_rsd_equal(a.rsd, b.rsd));
	feeder_release(&a);
	feeder_release(&b);
}

/* ---- the window ------------------------------------------------------------ */

static void body10(struct feeder *f, int reps)
{
	for (int r = 0; r < reps; r++)
		for (uint32_t k = 0; k < 10; k++)
			put(f, ev_p2p(TC_OP_SEND, 100 + k, 1, 0, 1), 1, 1);
}

TEST(window_bound_respected)
{
	struct feeder f;
	struct tc_rsd_info info;

	/* a body of 10 distinct events: not found with a window of 9 */
	feeder_init(&f, 0, 9);
	body10(&f, 3);
	tc_rsd_info(f.rsd, &info);
	CHECK_EQ_U64(info.top, 30);
	CHECK_EQ_U64(info.loops, 0);
	CHECK_EQ_U64(roundtrip(&f, true), 0);
	feeder_release(&f);

	feeder_init(&f, 0, 10);
	body10(&f, 3);
	CHECK_SHAPE(f.rsd, "3*(e0 e1 e2 e3 e4 e5 e6 e7 e8 e9)");
	feeder_release(&f);

	/* the default window finds it too */
	feeder_init(&f, 0, 0);
	body10(&f, 3);
	tc_rsd_info(f.rsd, &info);
	CHECK_EQ_U64(info.top, 1);
	feeder_release(&f);
}

/* ---- requests and arrays ---------------------------------------------------- */

TEST(request_ids_are_relative)
{
	struct feeder f;
	uint64_t req = 0;
	struct tc_completion c[3][2];

	feeder_init(&f, 4, 0);
	for (int i = 0; i < 3; i++) {
		struct tc_event a = ev_p2p(TC_OP_IRECV, 1, 3, 0, 10);
		struct tc_event b = ev_p2p(TC_OP_ISEND, 2, 5, 0, 10);
		struct tc_event w = ev_coll(TC_OP_WAITALL, 3);
		a.fields |= TC_F_REQUEST;
		a.request = ++req;
		b.fields |= TC_F_REQUEST;
		b.request = ++req;
		c[i][0] = (struct tc_completion){ a.request, 3, 0, 80 };
		c[i][1] = (struct tc_completion){ b.request, TC_PEER_NONE, 0, 0 };
		w.fields = TC_F_COMPL;
		w.ncompl = 2;
		w.compl = c[i];
		put(&f, a, 1, 1);
		put(&f, b, 1, 1);
		put(&f, w, 1, 1);
	}
	CHECK_SHAPE(f.rsd, "3*(e0 e1 e2)");
	CHECK_EQ_I64(tc_rsd_event(f.rsd, 0)->request, 1);
	CHECK_EQ_I64(tc_rsd_event(f.rsd, 2)->compl[0].request, -1);
	CHECK_EQ_I64(tc_rsd_event(f.rsd, 2)->compl[0].source, -1);
	CHECK_EQ_I64(tc_rsd_event(f.rsd, 2)->compl[1].request, 0);
	CHECK_EQ_U64(roundtrip(&f, true), 0);
	feeder_release(&f);
}

/* Every optional field and array survives compression and expansion,
 * and times come back exactly where each event's times were constant. */
TEST(expansion_equals_input_exactly)
{
	struct feeder f;
	static const uint64_t sc[4] = { 1, 2, 3, 4 }, rc[4] = { 4, 3, 2, 1 };
	static const struct tc_completion st[1] = { { 0, 6, 9, 72 } };
	static struct tc_completion wc[400];
	uint64_t req = 100;
	uint32_t seed = 12345;

	feeder_init(&f, 7, 0);
	for (int i = 0; i < 400; i++) {
		struct tc_event ev;
		seed = seed * 1103515245u + 12345u;
		switch ((seed >> 16) % 8) {
		case 0:
			ev = ev_p2p(TC_OP_RECV, 1, TC_ANY_SOURCE, TC_ANY_TAG, 9);
			ev.fields |= TC_F_COMPL;
			ev.ncompl = 1;
			ev.compl = st;
			put(&f, ev, 11, 4);
			break;
		case 1:
			ev = ev_coll(TC_OP_ALLTOALLV, 2);
			ev.fields |= TC_F_SCOUNTS | TC_F_RCOUNTS | TC_F_DTYPE | TC_F_BYTES;
			ev.dtype = TC_DT_INT;
			ev.dtype_size = 4;
			ev.bytes = 40;
			ev.nscounts = ev.nrcounts = 4;
			ev.scounts = sc;
			ev.rcounts = rc;
			put(&f, ev, 12, 5);
			break;
		case 2:
			ev = ev_coll(TC_OP_REDUCE, 3);
			ev.fields |= TC_F_REDOP | TC_F_ROOT | TC_F_COUNT | TC_F_DTYPE;
			ev.redop = TC_RED_SUM;
			ev.root = 0;
			ev.count = 3;
			ev.dtype = TC_DT_DOUBLE;
			ev.dtype_size = 8;
			put(&f, ev, 13, 6);
			break;
		case 3:
			ev = ev_coll(TC_OP_COMM_SPLIT, 4);
			ev.fields |= TC_F_COLOR | TC_F_NEWCOMM;
			ev.color = 1;
			ev.key = 7;
			ev.newcomm = 2;
			put(&f, ev, 14, 7);
			break;
		case 4:
			ev = ev_p2p(TC_OP_SENDRECV, 5, 8, 1, 2);
			ev.fields |= TC_F_RPEER;
			ev.rpeer = 6;
			ev.rtag = 2;
			put(&f, ev, 15, 8);
			break;
		case 5:
			ev = ev_coll(TC_OP_FILE_WRITE_AT, 6);
			ev.fields = TC_F_FILE | TC_F_RESULT | TC_F_COUNT;
			ev.file = 3;
			ev.offset = (uint64_t)i * 4096;
			ev.result = 13;
			ev.count = 4096;
			put(&f, ev, 16, 9);
			break;
		case 6:
			ev = ev_p2p(TC_OP_ISEND, 7, TC_PROC_NULL, 0, 1);
			ev.fields |= TC_F_REQUEST;
			ev.request = ++req;
			put(&f, ev, 17, 10);
			break;
		default:
			ev = ev_coll(TC_OP_WAIT, 8);
			ev.fields = TC_F_COMPL;
			ev.ncompl = 1;
			wc[i] = (struct tc_completion){ req, TC_PEER_NONE, 0, 0 };
			ev.compl = &wc[i];
			put(&f, ev, 18, 11);
			break;
		}
	}
	CHECK_EQ_U64(roundtrip(&f, true), 0);
	feeder_release(&f);
}

/* Occurrences of an iteration in progress wait outside the sequence: a
 * read in the middle of an iteration, an iteration broken off and one
 * left unfinished at the end all see every event, and reading early
 * changes nothing that follows. */
TEST(iteration_in_progress_is_read_in_full)
{
	struct feeder f, g;
	struct tc_rsd_info info;

	feeder_init_match(&f, 2, 0, TC_RSD_MATCH_CALLSITE);
	feeder_init_match(&g, 2, 0, TC_RSD_MATCH_CALLSITE);
	for (int i = 0; i < 7; i++) {
		for (int k = 0; k < 3; k++) {
			struct tc_event ev = ev_p2p(TC_OP_ISEND, 1 + k, 1, 7, 64 + (i == 4 && k == 1));
			put(&f, ev, 10 + i, 3 + k);
			put(&g, ev, 10 + i, 3 + k);
			if (i == 3 && k == 1) {
				/* mid-iteration: 11 events so far */
				CHECK_EQ_U64(roundtrip(&f, false), 0);
				tc_rsd_info(f.rsd, &info);
				CHECK_EQ_U64(info.events, 11);
			}
		}
	}
	/* an iteration broken off after two events, then one left open */
	put(&f, ev_p2p(TC_OP_ISEND, 1, 1, 7, 64), 5, 1);
	put(&g, ev_p2p(TC_OP_ISEND, 1, 1, 7, 64), 5, 1);
	put(&f, ev_p2p(TC_OP_ISEND, 2, 1, 7, 64), 5, 1);
	put(&g, ev_p2p(TC_OP_ISEND, 2, 1, 7, 64), 5, 1);
	put(&f, ev_coll(TC_OP_BARRIER, 9), 5, 1);
	put(&g, ev_coll(TC_OP_BARRIER, 9), 5, 1);
	put(&f, ev_p2p(TC_OP_ISEND, 1, 1, 7, 64), 5, 1);
	put(&g, ev_p2p(TC_OP_ISEND, 1, 1, 7, 64), 5, 1);
	tc_rsd_settle(g.rsd);
	CHECK(tc_rsd_equal(f.rsd, g.rsd));
	tc_rsd_info(f.rsd, &info);
	CHECK_EQ_U64(info.events, 25);
	CHECK_SHAPE(f.rsd, "7*(e0 e1~2 e2) e0 e1 e4 e0");
	CHECK_EQ_U64(roundtrip(&f, false), 0);
	CHECK_EQ_U64(roundtrip(&g, false), 0);
	feeder_release(&f);
	feeder_release(&g);
}

/* ---- time statistics ------------------------------------------------------ */

TEST(compute_time_statistics)
{
	struct feeder f;
	const struct tc_rsd_node *seq;
	size_t n;
	struct tc_rsd_iter it;
	struct tc_event ev;

	feeder_init(&f, 0, 0);
	for (int i = 0; i < 4; i++) {
		put(&f, ev_coll(TC_OP_ALLREDUCE, 1), 10 * (uint64_t)(i + 1), 100 + (uint64_t)i);
		put(&f, ev_coll(TC_OP_BARRIER, 2), 5, 2);
	}
	CHECK_SHAPE(f.rsd, "4*(e0 e1)");
	seq = tc_rsd_seq(f.rsd, &n);
	CHECK_EQ_U64(seq[0].body[0].comp.n, 4);
	CHECK_EQ_I64(seq[0].body[0].comp.min, 10);
	CHECK_EQ_I64(seq[0].body[0].comp.max, 40);
	CHECK(seq[0].body[0].comp.mean == 25.0);
	CHECK(fabs(tc_rsd_stat_stddev(&seq[0].body[0].comp) - sqrt(125.0)) < 1e-9);
	/* time in the call: 100 101 102 103 */
	CHECK_EQ_I64(seq[0].body[0].comm.min, 100);
	CHECK_EQ_I64(seq[0].body[0].comm.max, 103);
	CHECK(seq[0].body[0].comm.mean == 101.5);
	CHECK(fabs(tc_rsd_stat_stddev(&seq[0].body[0].comm) - sqrt(1.25)) < 1e-9);
	CHECK(seq[0].body[1].comp.mean == 5.0);
	CHECK(tc_rsd_stat_stddev(&seq[0].body[1].comp) == 0.0);
	/* the parameters come back exactly, times as the means */
	CHECK_EQ_U64(roundtrip(&f, false), 0);
	tc_rsd_iter_init(&it, f.rsd);
	CHECK(tc_rsd_iter_next(&it, &ev));
	CHECK_EQ_U64(ev.t_start, 25);
	CHECK_EQ_U64(ev.t_end, 25 + 102); /* 101.5 rounds half away */
	CHECK(it.node == &seq[0].body[0]);
	tc_rsd_iter_release(&it);
	feeder_release(&f);
}

/* ---- scale ---------------------------------------------------------------- */

TEST(million_events_stay_small)
{
	struct feeder f;
	struct tc_rsd_info info;
	struct tc_event ev = ev_p2p(TC_OP_ISEND, 1, 1, 0, 8);
	struct tc_event w = ev_coll(TC_OP_WAIT, 2);

	feeder_init(&f, 0, 0);
	for (int i = 0; i < 500000; i++) {
		ev.t_start = (uint64_t)i * 10;
		ev.t_end = ev.t_start + 2;
		tc_rsd_add(f.rsd, &ev);
		w.t_start = ev.t_end + 1;
		w.t_end = w.t_start + 2;
		tc_rsd_add(f.rsd, &w);
	}
	tc_rsd_info(f.rsd, &info);
	CHECK_EQ_U64(info.events, 1000000);
	CHECK_EQ_U64(info.nodes, 3);
	CHECK_SHAPE(f.rsd, "500000*(e0 e1)");
	feeder_release(&f);
}

TEST(long_format_lists_nodes)
{
	struct feeder f;
	struct tc_strbuf sb = TC_STRBUF_INIT;

	feeder_init(&f, 1, 0);
	for (int i = 0; i < 3; i++)
		put(&f, ev_p2p(TC_OP_SEND, 1, 0, 4, 16), 10, 2);
	tc_rsd_format(f.rsd, &sb, TC_RSD_FMT_LONG);
	CHECK(strstr(sb.buf, "loop 3 {\n") == sb.buf);
	CHECK(strstr(sb.buf, "  e0 MPI_Send ") != NULL);
	CHECK(strstr(sb.buf, " peer=-1 tag=4 count=16 dtype=MPI_DOUBLE ") != NULL);
	CHECK(strstr(sb.buf, " n=3 comp=10/0/10/10 comm=2/0/2/2\n}\n") != NULL);
	tc_strbuf_release(&sb);
	feeder_release(&f);
}

/* ---- segments ------------------------------------------------------------- */

/* A stream cut in two at a marker: each part compresses on its own and
 * the parts expand, one after the other, to the whole stream. */
TEST(segments_continue_the_stream)
{
	struct feeder f;
	struct tc_rsd *second;
	struct tc_rsd_iter it;
	struct tc_event ev;
	size_t i = 0, bad = 0;
	uint64_t req = 0, clock = 0;

	feeder_init(&f, 3, 0);
	tc_rsd_set_callsite(f.rsd, 1, 0x51);
	second = NULL;
	for (int phase = 0; phase < 2; phase++) {
		for (int k = 0; k < 5; k++) {
			struct tc_event a = ev_p2p(TC_OP_ISEND, 1, 4, 0, phase ? 8 : 16);
			a.fields |= TC_F_REQUEST;
			a.request = ++req;
			if (phase) {
				a.t_start = clock + 7;
				a.t_end = a.t_start + 3;
				clock = a.t_end;
				tc_rsd_add(second, &a);
				TC_ALLOC_GROW(f.evs, f.n + 1, f.alloc);
				f.evs[f.n++] = a;
			} else {
				put(&f, a, 7, 3);
				clock = f.clock;
			}
		}
		if (!phase)
			second = tc_rsd_new_segment(f.rsd);
	}
	CHECK_SHAPE(f.rsd, "5*(e0)");
	CHECK_SHAPE(second, "5*(e0)");
	CHECK_EQ_U64(tc_rsd_event(second, 0)->stack, 0x51);
	CHECK_EQ_I64(tc_rsd_event(second, 0)->request, 1);
	CHECK_EQ_I64(tc_rsd_rank(second), 3);
	/* expand both, the second continuing the first's state */
	tc_rsd_iter_init(&it, f.rsd);
	while (tc_rsd_iter_next(&it, &ev))
		bad += !events_equal(&f.evs[i++], &ev, true);
	{
		uint64_t last_req = it.last_req, prev_end = it.prev_end;
		tc_rsd_iter_release(&it);
		tc_rsd_iter_init(&it, second);
		it.last_req = last_req;
		it.prev_end = prev_end;
	}
	while (tc_rsd_iter_next(&it, &ev))
		bad += i >= f.n || !events_equal(&f.evs[i++], &ev, true);
	tc_rsd_iter_release(&it);
	CHECK_EQ_U64(i, 10);
	CHECK_EQ_U64(bad, 0);
	tc_rsd_free(&second);
	feeder_release(&f);
}

/* ---- realistic streams: every synth pattern --------------------------------- */

struct synth_ctx {
	struct feeder *f;
	/* deep copies of the borrowed arrays of fed events */
	void **owned;
	size_t nowned, aowned;
};

static void *keep_copy(struct synth_ctx *c, const void *p, size_t bytes)
{
	void *q;

	if (!p || !bytes)
		return NULL;
	q = tc_xmalloc(bytes);
	memcpy(q, p, bytes);
	TC_ALLOC_GROW(c->owned, c->nowned + 1, c->aowned);
	c->owned[c->nowned++] = q;
	return q;
}

static int synth_event(void *ctx, const struct tc_event *ev)
{
	struct synth_ctx *c = ctx;
	struct feeder *f = c->f;
	struct tc_event e = *ev;

	tc_rsd_add(f->rsd, ev);
	e.compl = keep_copy(c, ev->compl, ev->ncompl * sizeof(*ev->compl));
	e.scounts = keep_copy(c, ev->scounts, ev->nscounts * sizeof(uint64_t));
	e.rcounts = keep_copy(c, ev->rcounts, ev->nrcounts * sizeof(uint64_t));
	TC_ALLOC_GROW(f->evs, f->n + 1, f->alloc);
	f->evs[f->n++] = e;
	return 0;
}

static int synth_callsite(void *ctx, const struct tc_callsite *cs)
{
	struct synth_ctx *c = ctx;

	tc_rsd_set_callsite(c->f->rsd, cs->id, cs->signature);
	return 0;
}

static void synth_roundtrip(int match, double count_jitter)
{
	static const struct { const char *p; int32_t ranks; } pats[] = {
		{ "stencil1d", 5 }, { "stencil2d", 12 }, { "stencil3d", 8 },
		{ "wavefront", 9 }, { "cg", 8 }, { "ft", 8 }, { "mg", 8 },
		{ "is", 6 }, { "master-worker", 5 }, { "phases", 8 },
	};
	const struct tc_synth_sink sink = { synth_callsite, NULL, synth_event };

	for (size_t k = 0; k < TC_ARRAY_SIZE(pats); k++) {
		struct tc_synth_opts o;
		struct tc_error err;

		memset(&o, 0, sizeof(o));
		o.pattern = pats[k].p;
		o.ranks = pats[k].ranks;
		o.iters = 12;
		o.seed = 7;
		o.jitter = 0.1;
		o.count_jitter = count_jitter;
		if (tc_synth_validate(&o, &err)) {
			printf("# %s: %s\n", pats[k].p, err.msg);
			CHECK(0);
			continue;
		}
		for (int32_t r = 0; r < o.ranks; r++) {
			struct feeder f;
			struct synth_ctx c = { &f, NULL, 0, 0 };
			struct tc_rsd_info info;
			feeder_init_match(&f, r, 0, match);
			CHECK(tc_synth_rank(&o, r, &sink, &c, &err) == 0);
			tc_rsd_info(f.rsd, &info);
			/* the parameters come back exactly, times are means */
			if (roundtrip(&f, false))
				printf("# %s rank %d\n", pats[k].p, (int)r);
			CHECK_EQ_U64(roundtrip(&f, false), 0);
			CHECK_EQ_U64(info.events, f.n);
			/* every pattern repeats a timestep: something folds
			 * (by call site even when the message sizes vary) */
			if (match == TC_RSD_MATCH_CALLSITE || count_jitter == 0)
				CHECK(info.leaves < info.events);
			for (size_t i = 0; i < c.nowned; i++)
				free(c.owned[i]);
			free(c.owned);
			feeder_release(&f);
		}
	}
}

TEST(synth_patterns_expand_exactly)
{
	synth_roundtrip(TC_RSD_MATCH_PARAMS, 0);
}

TEST(synth_patterns_with_count_jitter_expand_exactly_by_callsite)
{
	synth_roundtrip(TC_RSD_MATCH_CALLSITE, 0.2);
	synth_roundtrip(TC_RSD_MATCH_PARAMS, 0.2);
}

/* ---- matching by call site ---------------------------------------------- */

TEST(match_names)
{
	CHECK_STR(tc_rsd_match_name(TC_RSD_MATCH_PARAMS), "params");
	CHECK_STR(tc_rsd_match_name(TC_RSD_MATCH_CALLSITE), "callsite");
	CHECK_EQ_I64(tc_rsd_match_from_name("callsite"), TC_RSD_MATCH_CALLSITE);
	CHECK_EQ_I64(tc_rsd_match_from_name("params"), TC_RSD_MATCH_PARAMS);
	CHECK_EQ_I64(tc_rsd_match_from_name("other"), -1);
}

struct occ_sum {
	const struct tc_rsd *rsd;
	uint64_t n, count;
};

static void occ_sum_add(void *ctx, uint32_t event, uint64_t n)
{
	struct occ_sum *os = ctx;

	os->n += n;
	os->count += n * tc_rsd_event(os->rsd, event)->count;
}

/* A message size that changes every step breaks every loop when matching
 * by parameters; by call site the loop stays and the sizes are runs. */
TEST(callsite_match_keeps_varying_counts_as_runs)
{
	struct feeder p, c;
	const struct tc_rsd_node *seq;
	size_t n;
	struct tc_rsd_info info;

	feeder_init(&p, 0, 0);
	feeder_init_match(&c, 0, 0, TC_RSD_MATCH_CALLSITE);
	for (int i = 0; i < 10; i++) {
		uint64_t count = 100 + (uint64_t)(i / 3); /* 100 100 100 101 ... 103 */
		put(&p, ev_p2p(TC_OP_ISEND, 1, 1, 0, count), 5, 1);
		put(&p, ev_coll(TC_OP_WAITALL, 2), 0, 9);
		put(&c, ev_p2p(TC_OP_ISEND, 1, 1, 0, count), 5, 1);
		put(&c, ev_coll(TC_OP_WAITALL, 2), 0, 9);
	}
	CHECK_SHAPE(p.rsd, "3*(e0 e1) 3*(e2 e1) 3*(e3 e1) e4 e1");
	CHECK_SHAPE(c.rsd, "10*(e0~4 e1)");
	seq = tc_rsd_seq(c.rsd, &n);
	CHECK(seq[0].body[0].vals != NULL);
	CHECK_EQ_U64(tc_rsd_event(c.rsd, tc_rsd_event_at(&seq[0].body[0], 0))->count, 100);
	CHECK_EQ_U64(tc_rsd_event(c.rsd, tc_rsd_event_at(&seq[0].body[0], 2))->count, 100);
	CHECK_EQ_U64(tc_rsd_event(c.rsd, tc_rsd_event_at(&seq[0].body[0], 5))->count, 101);
	CHECK_EQ_U64(tc_rsd_event(c.rsd, tc_rsd_event_at(&seq[0].body[0], 9))->count, 103);
	CHECK(seq[0].body[1].vals == NULL); /* the Waitall never varies */
	{
		struct occ_sum os = { c.rsd, 0, 0 };
		tc_rsd_node_events(&seq[0].body[0], occ_sum_add, &os);
		CHECK_EQ_U64(os.n, 10);
		CHECK_EQ_U64(os.count, 3 * 100 + 3 * 101 + 3 * 102 + 103);
		os.n = os.count = 0;
		tc_rsd_node_events(&seq[0].body[1], occ_sum_add, &os);
		CHECK_EQ_U64(os.n, 10);
	}
	tc_rsd_info(c.rsd, &info);
	CHECK_EQ_U64(info.varying, 1);
	CHECK_EQ_U64(info.distinct, 5);
	CHECK_EQ_U64(info.leaves, 2);
	CHECK_EQ_U64(roundtrip(&p, true), 0);
	CHECK_EQ_U64(roundtrip(&c, true), 0);
	feeder_release(&p);
	feeder_release(&c);
}

/* Occurrences of a node deep in a nest come back in the order fed. */
TEST(callsite_match_nested_runs_in_order)
{
	struct feeder f;

	feeder_init_match(&f, 2, 0, TC_RSD_MATCH_CALLSITE);
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 4; j++)
			put(&f, ev_p2p(TC_OP_SEND, 1, 3, 0, (uint64_t)(i * 4 + j)), 2, 1);
		put(&f, ev_coll(TC_OP_BARRIER, 2), 2, 1);
	}
	CHECK_SHAPE(f.rsd, "3*(4*(e0~12) e4)");
	CHECK_EQ_U64(roundtrip(&f, true), 0);
	feeder_release(&f);

	/* alternating sizes: one loop, the sizes alternate in the runs */
	feeder_init_match(&f, 0, 0, TC_RSD_MATCH_CALLSITE);
	for (int i = 0; i < 8; i++) {
		put(&f, ev_p2p(TC_OP_SEND, 1, 1, 0, i % 2 ? 16 : 32), 1, 1);
		put(&f, ev_coll(TC_OP_BARRIER, 2), 1, 1);
	}
	CHECK_SHAPE(f.rsd, "8*(e0~2 e1)");
	CHECK_EQ_U64(roundtrip(&f, true), 0);
	feeder_release(&f);
}

/* Without variation both modes give the same nodes; across ranks the
 * structure is equal while the exact comparison sees the sizes. */
TEST(callsite_match_equality_across_ranks)
{
	struct feeder a, b, c, d;

	/* synth-like: one call site per direction and side */
	feeder_init(&a, 5, 0);
	feeder_init_match(&b, 5, 0, TC_RSD_MATCH_CALLSITE);
	for (int i = 0; i < 20; i++) {
		static const int32_t nb[4] = { 4, 6, 1, 9 };
		for (uint32_t k = 0; k < 4; k++) {
			put(&a, ev_p2p(TC_OP_IRECV, 10 + k, nb[k], 0, 64), 1, 1);
			put(&b, ev_p2p(TC_OP_IRECV, 10 + k, nb[k], 0, 64), 1, 1);
		}
		put(&a, ev_coll(TC_OP_WAITALL, 3), 1, 1);
		put(&b, ev_coll(TC_OP_WAITALL, 3), 1, 1);
	}
	{
		char *sa = shape_of(a.rsd), *sb = shape_of(b.rsd);
		CHECK_STR(sa, "20*(e0 e1 e2 e3 e4)");
		CHECK_STR(sa, sb);
		free(sa);
		free(sb);
	}
	feeder_release(&a);
	feeder_release(&b);

	/* one call site looping over the neighbours: the neighbour loop
	 * folds, and its peers take as much room for 200 steps as for 20 */
	{
		struct tc_rsd_info i20, i200;
		feeder_init_match(&a, 5, 0, TC_RSD_MATCH_CALLSITE);
		feeder_init_match(&b, 5, 0, TC_RSD_MATCH_CALLSITE);
		stencil_rank(&a, 5, 20);
		stencil_rank(&b, 5, 200);
		CHECK_SHAPE(a.rsd, "20*(4*(e0~4) 4*(e4~4) e8) e9");
		CHECK_SHAPE(b.rsd, "200*(4*(e0~4) 4*(e4~4) e8) e9");
		tc_rsd_info(a.rsd, &i20);
		tc_rsd_info(b.rsd, &i200);
		CHECK_EQ_U64(i20.varying, 2);
		CHECK_EQ_U64(i20.values, i200.values);
		CHECK(i200.values <= 20);
		/* the first receive of a step comes after the compute phase,
		 * the others at once: folded, their times are means */
		CHECK_EQ_U64(roundtrip(&a, false), 0);
		CHECK_EQ_U64(roundtrip(&b, false), 0);
		feeder_release(&a);
		feeder_release(&b);
	}

	feeder_init_match(&c, 6, 0, TC_RSD_MATCH_CALLSITE);
	feeder_init_match(&d, 9, 0, TC_RSD_MATCH_CALLSITE);
	for (int i = 0; i < 6; i++) {
		put(&c, ev_p2p(TC_OP_ISEND, 1, 7, 0, 50 + (uint64_t)i), 1, 1);
		put(&d, ev_p2p(TC_OP_ISEND, 1, 10, 0, i == 4 ? 99 : 50 + (uint64_t)i), 1, 1);
	}
	CHECK_SHAPE(c.rsd, "6*(e0~6)");
	CHECK_SHAPE(d.rsd, "6*(e0~6)");
	CHECK(tc_rsd_seq(c.rsd, &(size_t){ 0 })[0].hash == tc_rsd_seq(d.rsd, &(size_t){ 0 })[0].hash);
	CHECK(!tc_rsd_equal(c.rsd, d.rsd));
	put(&d, ev_coll(TC_OP_BARRIER, 2), 1, 1);
	put(&c, ev_coll(TC_OP_BARRIER, 2), 1, 1);
	CHECK_EQ_U64(roundtrip(&d, true), 0);
	feeder_release(&c);
	feeder_release(&d);

	/* the same sizes: equal */
	feeder_init_match(&c, 6, 0, TC_RSD_MATCH_CALLSITE);
	feeder_init_match(&d, 9, 0, TC_RSD_MATCH_CALLSITE);
	for (int i = 0; i < 6; i++) {
		put(&c, ev_p2p(TC_OP_ISEND, 1, 7, 0, 50 + (uint64_t)i), 1, 1);
		put(&d, ev_p2p(TC_OP_ISEND, 1, 10, 0, 50 + (uint64_t)i), 3, 1);
	}
	CHECK(tc_rsd_equal(c.rsd, d.rsd));
	feeder_release(&c);
	feeder_release(&d);
}
