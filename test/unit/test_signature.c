/*
 * Unit tests of the signatures (cluster/signature.h) on hand-computed
 * inputs: call-path, parameter (Table 3.1), ACURDION's eleven, the LOOP
 * layout, exact incremental averages, the reference digest, and the
 * format bitmap of adaptive signature building (Alg. 4, Fig. 4.2/4.3).
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "cluster/signature.h"
#include "lib/event.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

struct tb {
	struct tc_rank_trace *t;
	uint64_t clock;
};

static void tb_init(struct tb *b, int32_t rank)
{
	b->t = tc_rank_trace_new(rank, 16, NULL);
	b->clock = 0;
}

static void tb_site(struct tb *b, uint32_t id, uint64_t sig)
{
	struct tc_callsite cs = { id, sig, 0, NULL };
	tc_rank_trace_on_callsite(b->t, &cs);
}

static void tb_comm(struct tb *b, uint32_t id, uint32_t creator)
{
	struct tc_comm c;

	memset(&c, 0, sizeof(c));
	c.id = id;
	c.creator = creator;
	c.size = 4;
	tc_rank_trace_on_comm(b->t, &c);
}

static void tb_put(struct tb *b, struct tc_event ev, uint64_t comp, uint64_t dur)
{
	ev.t_start = b->clock + comp;
	ev.t_end = ev.t_start + dur;
	b->clock = ev.t_end;
	tc_rank_trace_on_event(b->t, &ev);
}

static struct tc_event p2p(unsigned op, uint32_t site, int32_t peer, int32_t tag,
			   uint64_t count, uint32_t dtype, uint32_t comm)
{
	struct tc_event ev;

	tc_event_init(&ev);
	ev.op = op;
	ev.callsite = site;
	ev.fields = TC_F_COMM | TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE;
	ev.comm = comm;
	ev.peer = peer;
	ev.tag = tag;
	ev.count = count;
	ev.dtype = dtype;
	ev.dtype_size = 8;
	return ev;
}

static struct tc_event plain(unsigned op, uint32_t site)
{
	struct tc_event ev;

	tc_event_init(&ev);
	ev.op = op;
	ev.callsite = site;
	ev.fields = TC_F_COMM;
	return ev;
}

/* ---- call-path ---------------------------------------------------------- */

TEST(callpath_step_definition)
{
	uint64_t a = 0x0123456789abcdefULL, b = 0xfedcba9876543210ULL;

	/* seq 0 multiplies by 1, seq 9 by 10, seq 10 by 1 again */
	CHECK_EQ_U64(tc_callpath_step(0, a, 0), a);
	CHECK_EQ_U64(tc_callpath_step(0, a, 9), a * 10);
	CHECK_EQ_U64(tc_callpath_step(0, a, 10), a);
	CHECK_EQ_U64(tc_callpath_step(5, 3, 1), 5 ^ 6);
	/* the order of events matters (the NAS MG case of §3.1) */
	CHECK(tc_callpath_step(tc_callpath_step(0, a, 0), b, 1) !=
	      tc_callpath_step(tc_callpath_step(0, b, 0), a, 1));
}

/*
 * Rank 5 of 16, six events, each once (no loops), call sites 1..6 with
 * stack signatures 0x1000 .. 0x6000:
 *   e0 Comm_split  color 1 key 5        world   comp 100 comm 10
 *   e1 Isend  -> 6 (+1) tag 3 count 100 double world   200   20
 *   e2 Isend  -> 9 (+4) tag 3 count 200 double world   300   30
 *   e3 Irecv <- 1 (-4) tag 7 count 300 int    split   400   40
 *   e4 Allreduce count 4 double SUM             self    500   50
 *   e5 Barrier                                  world   600   60
 */
static void hand_trace(struct tb *b)
{
	struct tc_event ev;

	tb_init(b, 5);
	for (uint32_t s = 1; s <= 6; s++)
		tb_site(b, s, 0x1000ULL * s);
	tb_comm(b, 2, TC_OP_COMM_SPLIT);
	ev = plain(TC_OP_COMM_SPLIT, 1);
	ev.fields |= TC_F_COLOR | TC_F_NEWCOMM;
	ev.color = 1;
	ev.key = 5;
	ev.newcomm = 2;
	tb_put(b, ev, 100, 10);
	tb_put(b, p2p(TC_OP_ISEND, 2, 6, 3, 100, TC_DT_DOUBLE, 0), 200, 20);
	tb_put(b, p2p(TC_OP_ISEND, 3, 9, 3, 200, TC_DT_DOUBLE, 0), 300, 30);
	tb_put(b, p2p(TC_OP_IRECV, 4, 1, 7, 300, TC_DT_INT, 2), 400, 40);
	ev = plain(TC_OP_ALLREDUCE, 5);
	ev.fields |= TC_F_COUNT | TC_F_DTYPE | TC_F_REDOP;
	ev.comm = TC_COMM_SELF;
	ev.count = 4;
	ev.dtype = TC_DT_DOUBLE;
	ev.dtype_size = 8;
	ev.redop = TC_RED_SUM;
	tb_put(b, ev, 500, 50);
	tb_put(b, plain(TC_OP_BARRIER, 6), 600, 60);
}

TEST(callpath_of_hand_trace)
{
	struct tb b;
	struct tc_signatures s;

	hand_trace(&b);
	tc_signatures_compute(b.t, &s);
	/* 0x1000*1 ^ 0x2000*2 ^ 0x3000*3 ^ 0x4000*4 ^ 0x5000*5 ^ 0x6000*6 */
	CHECK_EQ_U64(s.callpath, 0x21000);
	CHECK_EQ_U64(s.v[TC_SIG_CALLPATH], 0x21000);
	CHECK_EQ_U64(s.events, 6);
	CHECK_EQ_U64(s.nodes, 6);
	CHECK_EQ_I64(s.rank, 5);
	tc_rank_trace_free(&b.t);
}

/* Over the compressed sequence: each event node once, whatever the loop
 * counts, and each loop's count once (ICS'14 §3: "different numbers or
 * sequences of events"). */
TEST(callpath_over_compressed_sequence)
{
	struct tb a, b, c;
	struct tc_signatures sa, sb, sc;

	tb_init(&a, 1);
	tb_init(&b, 2);
	tb_init(&c, 3);
	for (uint32_t s = 1; s <= 3; s++) {
		tb_site(&a, s, 0x9 + s);
		tb_site(&b, s, 0x9 + s);
		tb_site(&c, s, 0x9 + s);
	}
	for (int i = 0; i < 100; i++) {
		tb_put(&a, plain(TC_OP_BARRIER, 1), 1, 1);
		tb_put(&a, plain(TC_OP_ALLREDUCE, 2), 1, 1);
		tb_put(&b, plain(TC_OP_BARRIER, 1), 3, 1);
		tb_put(&b, plain(TC_OP_ALLREDUCE, 2), 3, 1);
	}
	for (int i = 0; i < 50; i++) {
		tb_put(&c, plain(TC_OP_BARRIER, 1), 1, 1);
		tb_put(&c, plain(TC_OP_ALLREDUCE, 2), 1, 1);
	}
	tb_put(&a, plain(TC_OP_BCAST, 3), 1, 1);
	tb_put(&b, plain(TC_OP_BCAST, 3), 1, 1);
	tb_put(&c, plain(TC_OP_BCAST, 3), 1, 1);
	tc_signatures_compute(a.t, &sa);
	tc_signatures_compute(b.t, &sb);
	tc_signatures_compute(c.t, &sc);
	/* compressed: 100*(e0 e1) e2: events 0xa*1 ^ 0xb*2 ^ 0xc*3, and
	 * loop 0 with count 100 */
	CHECK_EQ_U64(sa.callpath, 0xa ^ 0x16 ^ 0x24 ^ tc_loop_stack(100));
	CHECK_EQ_U64(sc.callpath, 0xa ^ 0x16 ^ 0x24 ^ tc_loop_stack(50));
	CHECK_EQ_U64(sa.callpath, sb.callpath); /* times do not count */
	CHECK(sa.callpath != sc.callpath);      /* numbers of events do */
	CHECK_EQ_U64(sa.nodes, 3);
	CHECK_EQ_U64(sa.events, 201);
	CHECK_EQ_U64(TC_LOOP_FIELD(sa.v[TC_SIG_LOOP], 0), 100);
	CHECK_EQ_U64(TC_LOOP_FIELD(sc.v[TC_SIG_LOOP], 0), 50);
	CHECK_EQ_U64(sa.reference, sb.reference);
	CHECK(sa.reference != sc.reference);
	CHECK(tc_loop_stack(100) != tc_loop_stack(50));
	tc_rank_trace_free(&a.t);
	tc_rank_trace_free(&b.t);
	tc_rank_trace_free(&c.t);
}

/* ---- parameter signature (Table 3.1) ------------------------------------- */

TEST(parameter_signature_table_3_1)
{
	struct tb b;
	struct tc_signatures s;

	hand_trace(&b);
	tc_signatures_compute(b.t, &s);
	/*
	 * COUNT (100+200+300+4)/4 = 151 = 0x97 in bits 0-15;
	 * DEST (+1 +4)/2 = 2.5 -> 3 in bits 16-31;
	 * SOURCE -4 -> 0xfffc in bits 32-47;
	 * datatypes: MPI_INT class 49, MPI_DOUBLE class 50;
	 * reduction: MPI_SUM 57; communicators: self 62, a split one 63.
	 */
	CHECK_EQ_U64(s.param & 0xffff, 0x97);
	CHECK_EQ_U64((s.param >> 16) & 0xffff, 3);
	CHECK_EQ_U64((s.param >> 32) & 0xffff, 0xfffc);
	CHECK_EQ_U64(s.param >> 48, (1u << 1) | (1u << 2) | (1u << 9) | (1u << 14) | (1u << 15));
	CHECK_EQ_U64(s.param, 0xc206fffc00030097ULL);
	tc_rank_trace_free(&b.t);
}

TEST(parameter_type_bits)
{
	/* the examples of Table 3.1: 48 MPI_CHAR, 49 MPI_INTEGER, 55 MPI_MAX,
	 * 56 MPI_MIN */
	CHECK_EQ_U64(tc_param_dtype_bit(TC_DT_CHAR), 1ULL << 48);
	CHECK_EQ_U64(tc_param_dtype_bit(TC_DT_INTEGER), 1ULL << 49);
	CHECK_EQ_U64(tc_param_dtype_bit(TC_DT_INT), 1ULL << 49);
	CHECK_EQ_U64(tc_param_dtype_bit(TC_DT_REAL), 1ULL << 50);
	CHECK_EQ_U64(tc_param_dtype_bit(TC_DT_DOUBLE_COMPLEX), 1ULL << 51);
	CHECK_EQ_U64(tc_param_dtype_bit(TC_DT_BYTE), 1ULL << 52);
	CHECK_EQ_U64(tc_param_dtype_bit(TC_DT_TWO_INT), 1ULL << 53);
	CHECK_EQ_U64(tc_param_dtype_bit(TC_DT_DERIVED + 3), 1ULL << 54);
	CHECK_EQ_U64(tc_param_redop_bit(TC_RED_MAX), 1ULL << 55);
	CHECK_EQ_U64(tc_param_redop_bit(TC_RED_MIN), 1ULL << 56);
	CHECK_EQ_U64(tc_param_redop_bit(TC_RED_BXOR), 1ULL << 59);
	CHECK_EQ_U64(tc_param_redop_bit(TC_RED_MINLOC), 1ULL << 60);
	CHECK_EQ_U64(tc_param_redop_bit(TC_RED_USER + 1), 1ULL << 61);
	/* §4.1's examples for the type signature: 0 MPI_CHAR, 32 MPI_MAX,
	 * 55 MPI_COMM_SELF */
	CHECK_EQ_U64(tc_types_dtype_bit(TC_DT_CHAR), 1ULL << 0);
	CHECK_EQ_U64(tc_types_dtype_bit(TC_DT_DOUBLE), 1ULL << 13);
	CHECK_EQ_U64(tc_types_dtype_bit(TC_DT_DOUBLE_PRECISION), 1ULL << 13);
	CHECK_EQ_U64(tc_types_dtype_bit(TC_DT_DERIVED), 1ULL << 31);
	CHECK_EQ_U64(tc_types_redop_bit(TC_RED_MAX), 1ULL << 32);
	CHECK_EQ_U64(tc_types_redop_bit(TC_RED_NO_OP), 1ULL << 45);
	CHECK_EQ_U64(tc_types_redop_bit(TC_RED_USER), 1ULL << 46);
	CHECK_EQ_U64(55 + TC_CT_SELF, 55);
}

/* ---- ACURDION's eleven ---------------------------------------------------- */

TEST(acurdion_signatures_of_hand_trace)
{
	struct tb b;
	struct tc_signatures s;

	hand_trace(&b);
	tc_signatures_compute(b.t, &s);
	CHECK_EQ_U64(s.v[TC_SIG_COUNT], 151);
	CHECK_EQ_I64((int64_t)s.v[TC_SIG_SRC], -4);
	CHECK_EQ_I64((int64_t)s.v[TC_SIG_DEST], 3);
	CHECK_EQ_I64((int64_t)s.v[TC_SIG_KEY], 5);
	CHECK_EQ_I64((int64_t)s.v[TC_SIG_COLOR], 1);
	CHECK_EQ_I64((int64_t)s.v[TC_SIG_TAG], 4);  /* (3+3+7)/3 = 4.33 */
	CHECK_EQ_U64(s.v[TC_SIG_COMP], 350);        /* (100+...+600)/6 */
	CHECK_EQ_U64(s.v[TC_SIG_COMM], 35);
	CHECK_EQ_U64(s.v[TC_SIG_LOOP], 0);
	/* MPI_INT bit 6, MPI_DOUBLE 13, MPI_SUM 34, self 55, world 56,
	 * split 58 */
	CHECK_EQ_U64(s.v[TC_SIG_TYPES], 0x580000400002040ULL);
	CHECK_EQ_U64(s.v[TC_SIG_TYPES], (1ULL << 6) | (1ULL << 13) | (1ULL << 34) |
				     (1ULL << 55) | (1ULL << 56) | (1ULL << 58));
	tc_rank_trace_free(&b.t);
}

/* The standard errors of COMP and COMM: the variance of each event
 * node's mean over its occurrences, summed, rooted, over the nodes. */
TEST(timing_standard_errors)
{
	struct tb b;
	struct tc_signatures s;

	tb_init(&b, 0);
	tb_site(&b, 1, 0x11);
	tb_site(&b, 2, 0x22);
	/* a loop of 4 Barriers with compute times 100, 200, 300, 400 (sample
	 * variance 16666.67, of the mean 4166.67) and calls of 10 ns; then
	 * one Bcast (no spread) */
	for (int i = 1; i <= 4; i++)
		tb_put(&b, plain(TC_OP_BARRIER, 1), 100 * (uint64_t)i, 10);
	tb_put(&b, plain(TC_OP_BCAST, 2), 1000, 10);
	tc_signatures_compute(b.t, &s);
	CHECK_EQ_U64(s.nodes, 2);
	CHECK_EQ_U64(s.v[TC_SIG_COMP], 625); /* (250 + 1000) / 2 */
	CHECK(fabs(s.comp_se - sqrt(50000.0 / 12) / 2) < 1e-6);
	CHECK(s.comm_se == 0);
	tc_rank_trace_free(&b.t);
}

/* §4.1: the LOOP signature's four 16-bit sections, innermost loops in the
 * low bits, anything three levels out and beyond in the top section. */
TEST(loop_signature_layout)
{
	struct tb b;
	struct tc_signatures s;

	tb_init(&b, 0);
	/* 4*(3*(5*(e0) e1) e2) 6*(e3): heights 0: 5 and 6, 1: 3, 2: 4 */
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 3; j++) {
			for (int k = 0; k < 5; k++)
				tb_put(&b, plain(TC_OP_BARRIER, 1), 1, 1);
			tb_put(&b, plain(TC_OP_BCAST, 2), 1, 1);
		}
		tb_put(&b, plain(TC_OP_ALLREDUCE, 3), 1, 1);
	}
	for (int i = 0; i < 6; i++)
		tb_put(&b, plain(TC_OP_REDUCE, 4), 1, 1);
	tc_signatures_compute(&*b.t, &s);
	/* (5 + 6) / 2 = 5.5 -> 6 */
	CHECK_EQ_U64(s.v[TC_SIG_LOOP], 0x0000000400030006ULL);
	tc_rank_trace_free(&b.t);

	/* five levels: 2*(2*(2*(2*(3*(e0) e1) e2) e3) e4); heights 0..4 with
	 * counts 3, 2, 2, 2, 2; heights 3 and 4 share the top section */
	tb_init(&b, 0);
	for (int a = 0; a < 2; a++) {
		for (int c = 0; c < 2; c++) {
			for (int d = 0; d < 2; d++) {
				for (int e = 0; e < 2; e++) {
					for (int f = 0; f < 3; f++)
						tb_put(&b, plain(TC_OP_BARRIER, 1), 1, 1);
					tb_put(&b, plain(TC_OP_BCAST, 2), 1, 1);
				}
				tb_put(&b, plain(TC_OP_ALLREDUCE, 3), 1, 1);
			}
			tb_put(&b, plain(TC_OP_REDUCE, 4), 1, 1);
		}
		tb_put(&b, plain(TC_OP_SCAN, 5), 1, 1);
	}
	tc_signatures_compute(b.t, &s);
	CHECK_EQ_U64(s.v[TC_SIG_LOOP], 0x0002000200020003ULL);
	tc_rank_trace_free(&b.t);

	/* counts above 0xffff saturate */
	tb_init(&b, 0);
	for (int i = 0; i < 70000; i++)
		tb_put(&b, plain(TC_OP_BARRIER, 1), 1, 1);
	tc_signatures_compute(b.t, &s);
	CHECK_EQ_U64(s.v[TC_SIG_LOOP], 0xffff);
	tc_rank_trace_free(&b.t);
}

/* ---- incremental averages ------------------------------------------------- */

TEST(incremental_average_exact)
{
	struct tc_avg a;

	tc_avg_init(&a);
	CHECK_EQ_U64(tc_avg_u(&a), 0);
	tc_avg_add_u(&a, 1);
	tc_avg_add_u(&a, 2);
	CHECK_EQ_U64(tc_avg_u(&a), 2); /* 1.5 rounds up */
	tc_avg_add_u(&a, 2);
	CHECK_EQ_U64(tc_avg_u(&a), 2); /* 1.67 */
	CHECK_EQ_U64(a.q, 1);
	CHECK_EQ_U64(a.r, 2);
	CHECK_EQ_U64(a.n, 3);

	/* sums that overflow 64 bits */
	tc_avg_init(&a);
	for (int i = 0; i < 5; i++)
		tc_avg_add_u(&a, UINT64_MAX);
	CHECK_EQ_U64(tc_avg_u(&a), UINT64_MAX);
	tc_avg_init(&a);
	tc_avg_add_u(&a, UINT64_MAX);
	tc_avg_add_u(&a, 1);
	CHECK_EQ_U64(tc_avg_u(&a), 1ULL << 63);
	tc_avg_add_u(&a, 0);
	/* (2^64 - 1 + 1 + 0) / 3 = 6148914691236517205.33 */
	CHECK_EQ_U64(tc_avg_u(&a), 6148914691236517205ULL);

	/* signed: -0.5 rounds half up to 0; extremes do not overflow */
	tc_avg_init(&a);
	tc_avg_add_i(&a, INT64_MIN);
	tc_avg_add_i(&a, INT64_MAX);
	CHECK_EQ_I64(tc_avg_i(&a), 0);
	tc_avg_init(&a);
	tc_avg_add_i(&a, -4);
	tc_avg_add_i(&a, -5);
	CHECK_EQ_I64(tc_avg_i(&a), -4); /* -4.5 rounds half up */
	tc_avg_add_i(&a, -6);
	CHECK_EQ_I64(tc_avg_i(&a), -5);
	tc_avg_init(&a);
	for (int i = 0; i < 4; i++)
		tc_avg_add_i(&a, INT64_MIN);
	CHECK_EQ_I64(tc_avg_i(&a), INT64_MIN);
}

TEST(incremental_average_matches_wide_sum)
{
	uint64_t x = 88172645463325252ULL;

	for (int trial = 0; trial < 50; trial++) {
		struct tc_avg a;
		unsigned __int128 sum = 0;
		__int128 ssum = 0;
		struct tc_avg si;
		uint64_t n = 1 + (uint64_t)trial * 37;

		tc_avg_init(&a);
		tc_avg_init(&si);
		for (uint64_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			tc_avg_add_u(&a, x >> (trial % 64));
			sum += x >> (trial % 64);
			tc_avg_add_i(&si, (int64_t)x);
			ssum += (int64_t)x;
		}
		CHECK_EQ_U64(a.q, (uint64_t)(sum / n));
		CHECK_EQ_U64(a.r, (uint64_t)(sum % n));
		{
			/* floor of the signed mean, then half up */
			__int128 q = ssum / (__int128)n, r = ssum % (__int128)n;
			if (r < 0) {
				q--;
				r += n;
			}
			if (r && 2 * r >= (__int128)n)
				q++;
			CHECK_EQ_I64(tc_avg_i(&si), (int64_t)q);
		}
	}
}

/* ---- reference signature --------------------------------------------------- */

static void ref_ranks(int match, struct tc_signatures *sa, struct tc_signatures *sc,
		      struct tc_signatures *sd, bool *ac_equal, bool *ad_equal)
{
	struct tc_rsd_opts o = { 0, match };
	struct tc_rank_trace *a = tc_rank_trace_new(5, 16, &o);
	struct tc_rank_trace *c = tc_rank_trace_new(6, 16, &o);
	struct tc_rank_trace *d = tc_rank_trace_new(7, 16, &o);
	struct tc_callsite cs = { 1, 0x77, 0, NULL };
	uint64_t t = 0;

	tc_rank_trace_on_callsite(a, &cs);
	tc_rank_trace_on_callsite(c, &cs);
	tc_rank_trace_on_callsite(d, &cs);
	for (int i = 0; i < 10; i++) {
		struct tc_event ea = p2p(TC_OP_SEND, 1, 6, 0, 100, TC_DT_INT, 0);
		struct tc_event ec = p2p(TC_OP_SEND, 1, 7, 0, 100, TC_DT_INT, 0);
		/* d sends one message of another size */
		struct tc_event ed = p2p(TC_OP_SEND, 1, 8, 0, i == 3 ? 110 : 100, TC_DT_INT, 0);
		ea.t_start = ed.t_start = t;
		ea.t_end = ed.t_end = t + 1;
		ec.t_start = 2 * t;
		ec.t_end = 2 * t + 5;
		t += 10;
		tc_rank_trace_on_event(a, &ea);
		tc_rank_trace_on_event(c, &ec);
		tc_rank_trace_on_event(d, &ed);
	}
	tc_signatures_compute(a, sa);
	tc_signatures_compute(c, sc);
	tc_signatures_compute(d, sd);
	*ac_equal = tc_rsd_equal(a->seq, c->seq);
	*ad_equal = tc_rsd_equal(a->seq, d->seq);
	tc_rank_trace_free(&a);
	tc_rank_trace_free(&c);
	tc_rank_trace_free(&d);
}

TEST(reference_signature_keeps_parameters)
{
	struct tc_signatures sa, sc, sd;
	bool ac, ad;

	for (int m = 0; m < 2; m++) {
		int match = m ? TC_RSD_MATCH_PARAMS : TC_RSD_MATCH_CALLSITE;
		ref_ranks(match, &sa, &sc, &sd, &ac, &ad);
		/* same relative sequence: same reference (times do not count) */
		CHECK_EQ_U64(sa.reference, sc.reference);
		CHECK(ac);
		/* one parameter differs once: the reference differs */
		CHECK(sa.reference != sd.reference);
		CHECK(!ad);
		if (match == TC_RSD_MATCH_CALLSITE) {
			/* by call site the loop stays: the same call path, and
			 * COUNT is the mean of the node's occurrences */
			CHECK_EQ_U64(sa.callpath, sd.callpath);
			CHECK_EQ_U64(sd.v[TC_SIG_COUNT], 101); /* (9*100 + 110)/10 */
		} else {
			/* by parameters the loop breaks up: 3*(e0) e1 6*(e0) */
			CHECK(sa.callpath != sd.callpath);
			CHECK_EQ_U64(sd.v[TC_SIG_COUNT], 103); /* (100+110+100)/3 */
		}
	}
}

/* ---- communicator types ------------------------------------------------- */

TEST(communicator_types)
{
	struct tb b;

	tb_init(&b, 0);
	tb_comm(&b, 2, TC_OP_COMM_DUP);
	tb_comm(&b, 3, TC_OP_CART_CREATE);
	tb_comm(&b, 4, TC_OP_COMM_CREATE_GROUP);
	tb_comm(&b, 5, TC_OP_DIST_GRAPH_CREATE_ADJACENT);
	CHECK(tc_comm_type_of(b.t, 0) == TC_CT_WORLD);
	CHECK(tc_comm_type_of(b.t, 1) == TC_CT_SELF);
	CHECK(tc_comm_type_of(b.t, 2) == TC_CT_DUP);
	CHECK(tc_comm_type_of(b.t, 3) == TC_CT_CART);
	CHECK(tc_comm_type_of(b.t, 4) == TC_CT_CREATE);
	CHECK(tc_comm_type_of(b.t, 5) == TC_CT_GRAPH);
	CHECK(tc_comm_type_of(b.t, 9) == TC_CT_OTHER);
	CHECK_STR(tc_comm_type_name(TC_CT_SPLIT), "split");
	/* a redefinition replaces */
	tb_comm(&b, 2, TC_OP_COMM_SPLIT);
	CHECK(tc_comm_type_of(b.t, 2) == TC_CT_SPLIT);
	CHECK_EQ_U64(b.t->ncomms, 4);
	tc_rank_trace_free(&b.t);
}

TEST(signature_metadata)
{
	CHECK_STR(tc_sig_info(TC_SIG_CALLPATH)->name, "callpath");
	CHECK_STR(tc_sig_info(TC_SIG_TYPES)->title, "Data+Op+Comm type");
	CHECK(tc_sig_info(TC_NSIGS) == NULL);
	CHECK_EQ_I64(tc_sig_from_name("loop"), TC_SIG_LOOP);
	CHECK_EQ_I64(tc_sig_from_name("nope"), -1);
	/* §4.1.1 groups */
	CHECK_EQ_I64(tc_sig_info(TC_SIG_LOOP)->group, 1);
	CHECK_EQ_I64(tc_sig_info(TC_SIG_COMP)->group, 1);
	CHECK_EQ_I64(tc_sig_info(TC_SIG_TAG)->group, 2);
	CHECK_EQ_I64(tc_sig_info(TC_SIG_TYPES)->group, 3);
	CHECK(tc_sig_number(TC_SIG_SRC, (uint64_t)-3) == -3.0);
	CHECK(tc_sig_number(TC_SIG_COUNT, 7) == 7.0);
}

/* ---- adaptive signature building (Alg. 4, Fig. 4.2 and 4.3) --------------- */

/*
 * The example of Fig. 4.2/4.3: seven processes on a binary radix tree
 * (node 2 has the leaves 5 and 6), six signatures, the right-most bit
 * TAG and the left-most COUNT; the text names TAG, Call-Path and DEST as
 * the three low bits of the result 000111 (the two bits between DEST and
 * COUNT are not named in the text; SRC and COMM time stand in for them).
 * Node 6 differs from node 2 in DEST ("captured at node 2"); here node 4
 * differs from node 1 in TAG, and nodes 1, 3 and 4 have another call
 * path than the rest.
 */
enum { F_TAG, F_CALLPATH, F_DEST, F_COMM, F_SRC, F_COUNT, F_N };

TEST(format_bitmap_fig_4_2_4_3)
{
	uint64_t v[7][F_N];
	uint32_t fmt[7];
	uint32_t root;

	for (int i = 0; i < 7; i++) {
		v[i][F_TAG] = 7;
		v[i][F_CALLPATH] = 0xaa;
		v[i][F_DEST] = 1;
		v[i][F_COMM] = 50;
		v[i][F_SRC] = (uint64_t)-1;
		v[i][F_COUNT] = 100;
	}
	v[6][F_DEST] = 4;
	v[4][F_TAG] = 8;
	v[1][F_CALLPATH] = v[3][F_CALLPATH] = v[4][F_CALLPATH] = 0xbb;
	root = tc_sig_format_tree(&v[0][0], 7, F_N, 2, fmt);
	CHECK_EQ_U64(root, 0x07); /* 000111 */
	CHECK_EQ_U64(fmt[0], 0x07);
	CHECK_EQ_U64(fmt[1], 0x01); /* 000001: TAG, from leaf 4 */
	CHECK_EQ_U64(fmt[2], 0x04); /* 000100: DEST, 6 vs 2 */
	for (int i = 3; i < 7; i++)
		CHECK_EQ_U64(fmt[i], 0);
	/* no node format requested */
	CHECK_EQ_U64(tc_sig_format_tree(&v[0][0], 7, F_N, 2, NULL), 0x07);
	/* all the same: nothing to cluster on */
	v[6][F_DEST] = 1;
	v[4][F_TAG] = 7;
	v[1][F_CALLPATH] = v[3][F_CALLPATH] = v[4][F_CALLPATH] = 0xaa;
	CHECK_EQ_U64(tc_sig_format_tree(&v[0][0], 7, F_N, 2, NULL), 0);
	/* one node: nothing differs */
	CHECK_EQ_U64(tc_sig_format_tree(&v[0][0], 1, F_N, 2, NULL), 0);
}

/* On any radix, the root's format is the set of signatures that are not
 * the same on every rank; the parallel ACURDION version agrees. */
TEST(format_bitmap_is_the_nonconstant_signatures)
{
	const size_t n = 200000;
	struct tc_signatures *s = calloc(n, sizeof(*s));
	uint64_t *m = calloc(n * TC_NSIGS, sizeof(uint64_t));
	struct tc_pool *pool = tc_pool_new(3);

	for (size_t i = 0; i < n; i++) {
		s[i].v[TC_SIG_CALLPATH] = 0x1234;
		s[i].v[TC_SIG_COUNT] = 64;
		s[i].v[TC_SIG_LOOP] = 10;
	}
	CHECK_EQ_U64(tc_acurdion_format(s, n, pool), 0);
	s[n - 1].v[TC_SIG_TAG] = 3;        /* a leaf deep in the tree */
	s[131071].v[TC_SIG_DEST] = 1;      /* somewhere in the middle */
	s[0].v[TC_SIG_LOOP] = 11;          /* the root */
	for (size_t i = 0; i < n; i++)
		memcpy(&m[i * TC_NSIGS], s[i].v, sizeof(s[i].v));
	{
		uint32_t want = (1u << TC_SIG_TAG) | (1u << TC_SIG_DEST) | (1u << TC_SIG_LOOP);
		CHECK_EQ_U64(tc_acurdion_format(s, n, pool), want);
		CHECK_EQ_U64(tc_acurdion_format(s, n, NULL), want);
		CHECK_EQ_U64(tc_sig_format_tree(m, n, TC_NSIGS, 2, NULL), want);
		CHECK_EQ_U64(tc_sig_format_tree(m, n, TC_NSIGS, 4, NULL), want);
		CHECK_EQ_U64(tc_sig_format_tree(m, n, TC_NSIGS, 17, NULL), want);
	}
	CHECK_EQ_U64(tc_sig_diff(&s[0], &s[1]), 1u << TC_SIG_LOOP);
	CHECK_EQ_U64(tc_acurdion_format(s, 1, pool), 0);
	tc_pool_free(pool);
	free(s);
	free(m);
}
