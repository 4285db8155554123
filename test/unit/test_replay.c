/*
 * test_replay.c - the simulated replay against closed-form LogGP times,
 * the accuracy formulas, and the viz matrices and PNG encoder.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "lib/accuracy.h"
#include "lib/event.h"
#include "lib/replay.h"
#include "lib/strbuf.h"
#include "viz/viz.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CHECK_NEAR(a, b) CHECK(fabs((double)(a) - (double)(b)) <= 1e-12 + 1e-9 * fabs((double)(b)))

/* A hand-built ring: P ranks, `iters` iterations of one pattern. */
struct ring {
	size_t P;
	uint64_t iters, bytes;
	int kind;                 /* 0: Isend/Irecv/Waitall; 1: token ring; 2: all Recv first */
	uint64_t *pos;            /* per rank: events given */
	struct tc_completion compl[2];
};

static bool ring_next(void *ctx, size_t idx, struct tc_event *ev)
{
	struct ring *R = ctx;
	int32_t r = (int32_t)idx, P = (int32_t)R->P;
	int32_t right = (r + 1) % P, left = (r + P - 1) % P;
	uint64_t i = R->pos[idx] / 3, step = R->pos[idx] % 3;

	if (R->kind == 1 || R->kind == 2) {
		/* rank 0 sends first, the others receive first (kind 2: all receive first) */
		bool send_first = R->kind == 1 && r == 0;
		if (R->pos[idx] >= 2)
			return false;
		step = R->pos[idx]++;
		if ((step == 0) == send_first) {
			ev->op = TC_OP_SEND;
			ev->peer = right;
		} else {
			ev->op = TC_OP_RECV;
			ev->peer = left;
			R->compl[0].request = 0;
			R->compl[0].source = left;
			R->compl[0].tag = 7;
			R->compl[0].bytes = R->bytes;
			ev->compl = R->compl;
			ev->ncompl = 1;
			ev->fields |= TC_F_COMPL;
		}
		ev->fields |= TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE;
		ev->tag = 7;
		ev->count = R->bytes;
		ev->dtype = TC_DT_BYTE;
		ev->dtype_size = 1;
		return true;
	}
	if (i >= R->iters)
		return false;
	R->pos[idx]++;
	ev->fields = TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE | TC_F_REQUEST;
	ev->tag = 3;
	ev->count = R->bytes;
	ev->dtype = TC_DT_BYTE;
	ev->dtype_size = 1;
	if (step == 0) {
		ev->op = TC_OP_ISEND;
		ev->peer = right;
		ev->request = 2 * i + 1;
	} else if (step == 1) {
		ev->op = TC_OP_IRECV;
		ev->peer = left;
		ev->request = 2 * i + 2;
	} else {
		tc_event_init(ev);
		ev->op = TC_OP_WAITALL;
		R->compl[0].request = 2 * i + 1;
		R->compl[0].source = TC_PEER_NONE;
		R->compl[1].request = 2 * i + 2;
		R->compl[1].source = left;
		R->compl[1].tag = 3;
		R->compl[1].bytes = R->bytes;
		ev->compl = R->compl;
		ev->ncompl = 2;
		ev->fields = TC_F_COMPL;
	}
	return true;
}

static void run_ring(struct ring *R, struct tc_replay_params *p, struct tc_replay_result *res)
{
	R->pos = calloc(R->P, sizeof(*R->pos));
	CHECK(tc_replay_run(R->P, NULL, (int32_t)R->P, p, ring_next, R, res) == 0);
	free(R->pos);
}

TEST(replay_ring_exchange_loggp)
{
	struct tc_replay_params p;
	struct tc_replay_result res;
	struct ring R = { 8, 5, 4096, 0, NULL, { { 0 } } };
	double hop;

	tc_replay_params_init(&p);
	run_ring(&R, &p, &res);
	/* each iteration: o + (k-1)G to inject, L to arrive, o to receive */
	hop = 2 * p.o + p.L + (double)(R.bytes - 1) * p.G;
	CHECK(!res.deadlock);
	CHECK_EQ_U64(res.messages, R.P * R.iters);
	CHECK_EQ_U64(res.unmatched_sends, 0);
	CHECK_NEAR(res.makespan, (double)R.iters * hop);
	for (size_t i = 0; i < R.P; i++)
		CHECK_NEAR(res.time[i], (double)R.iters * hop);
	tc_replay_result_release(&res);
}

TEST(replay_token_ring_loggp)
{
	struct tc_replay_params p;
	struct tc_replay_result res;
	struct ring R = { 16, 1, 100, 1, NULL, { { 0 } } };
	double hop;

	tc_replay_params_init(&p);
	p.L = 2e-6;
	p.o = 0.5e-6;
	p.G = 1e-9;
	run_ring(&R, &p, &res);
	/* the token goes round: P hops of o + (k-1)G + L + o */
	hop = 2 * p.o + p.L + (double)(R.bytes - 1) * p.G;
	CHECK(!res.deadlock);
	CHECK_NEAR(res.time[0], (double)R.P * hop);
	CHECK_NEAR(res.time[R.P - 1], (double)(R.P - 1) * hop + p.o + (double)(R.bytes - 1) * p.G);
	CHECK_NEAR(res.makespan, (double)R.P * hop);
	tc_replay_result_release(&res);
}

TEST(replay_deadlock_reported)
{
	struct tc_replay_params p;
	struct tc_replay_result res;
	struct ring R = { 4, 1, 8, 2, NULL, { { 0 } } };

	tc_replay_params_init(&p);
	run_ring(&R, &p, &res);
	CHECK(res.deadlock);
	CHECK_EQ_U64(res.nblocked, 4);
	CHECK_EQ_U64(res.blocked[0].op, TC_OP_RECV);
	CHECK_EQ_I64(res.blocked[0].peer, 3);
	tc_replay_result_release(&res);
}

TEST(replay_lenient_goes_on)
{
	struct tc_replay_params p;
	struct tc_replay_result res;
	struct ring R = { 4, 1, 8, 2, NULL, { { 0 } } };
	double hop;

	tc_replay_params_init(&p);
	p.lenient = true;
	run_ring(&R, &p, &res);
	/* rank 0 (lowest clock, lowest index) is let through, then the
	 * token goes round once; rank 3's message to 0 is never received */
	hop = 2 * p.o + p.L + 7 * p.G;
	CHECK(res.deadlock);
	CHECK_EQ_U64(res.forced, 1);
	CHECK_EQ_U64(res.nblocked, 4);
	CHECK_EQ_U64(res.messages, 4);
	CHECK_EQ_U64(res.unmatched_sends, 1);
	CHECK_NEAR(res.time[0], p.o + p.o + 7 * p.G);
	CHECK_NEAR(res.time[3], p.o + 3 * hop + p.o + 7 * p.G);
	tc_replay_result_release(&res);
}

struct coll {
	uint64_t *pos;
};

static bool coll_next(void *ctx, size_t idx, struct tc_event *ev)
{
	struct coll *c = ctx;

	if (c->pos[idx]++)
		return false;
	ev->op = TC_OP_ALLREDUCE;
	ev->fields = TC_F_COMM | TC_F_COUNT | TC_F_DTYPE;
	ev->comm = TC_COMM_WORLD;
	ev->count = 1000;
	ev->dtype = TC_DT_DOUBLE;
	ev->dtype_size = 8;
	/* rank i computes i microseconds first */
	ev->t_start = ev->t_end = 0;
	return true;
}

TEST(replay_allreduce_recursive_doubling)
{
	struct tc_replay_params p;
	struct tc_replay_result res;
	struct coll c = { calloc(6, sizeof(uint64_t)) };
	double a, want;

	tc_replay_params_init(&p);
	CHECK(tc_replay_run(6, NULL, 6, &p, coll_next, &c, &res) == 0);
	a = p.L + 2 * p.o;
	want = 3 * (a + 8000 * p.G); /* ceil(log2 6) = 3 rounds */
	CHECK_NEAR(res.makespan, want);
	CHECK_NEAR(tc_replay_coll_cost(&p, TC_OP_ALLREDUCE, 6, 8000, 0), want);
	CHECK_NEAR(tc_replay_coll_cost(&p, TC_OP_BARRIER, 1, 0, 0), 0);
	CHECK_EQ_U64(res.collectives, 1);
	tc_replay_result_release(&res);
	free(c.pos);
}

/* A persistent collective's init costs its collective; its flags say so. */
TEST(replay_persistent_collective_costs_its_collective)
{
	struct tc_replay_params p;

	tc_replay_params_init(&p);
	CHECK_EQ_U64(tc_op_base(TC_OP_ALLREDUCE_INIT), TC_OP_ALLREDUCE);
	CHECK_EQ_U64(tc_op_base(TC_OP_NEIGHBOR_ALLTOALLW_INIT), TC_OP_NEIGHBOR_ALLTOALLW);
	CHECK_EQ_U64(tc_op_base(TC_OP_IALLREDUCE), TC_OP_IALLREDUCE);
	CHECK_EQ_U64(tc_op_base(TC_OP_PSEND_INIT), TC_OP_PSEND_INIT);
	CHECK(tc_op_flags(TC_OP_BCAST_INIT) & TC_OPF_PERSIST);
	CHECK(tc_op_flags(TC_OP_BCAST_INIT) & TC_OPF_ROOT);
	CHECK(!(tc_op_flags(TC_OP_IBCAST) & TC_OPF_PERSIST));
	CHECK(tc_op_flags(TC_OP_PREADY_LIST) & TC_OPF_PART);
	CHECK_EQ_U64(tc_op_from_name("MPI_Intercomm_create_from_groups"),
		     TC_OP_INTERCOMM_CREATE_FROM_GROUPS);
	CHECK_NEAR(tc_replay_coll_cost(&p, TC_OP_ALLREDUCE_INIT, 6, 8000, 0),
		   tc_replay_coll_cost(&p, TC_OP_ALLREDUCE, 6, 8000, 0));
	CHECK_NEAR(tc_replay_coll_cost(&p, TC_OP_ALLTOALLV_INIT, 8, 10, 400),
		   tc_replay_coll_cost(&p, TC_OP_ALLTOALLV, 8, 10, 400));
	CHECK(tc_replay_coll_cost(&p, TC_OP_GATHER_INIT, 8, 10, 0) > 0);
}

/* Per rank: Win_create, Put to the next rank, Win_fence, Win_free (world). */
static bool rma_next(void *ctx, size_t idx, struct tc_event *ev)
{
	static const unsigned ops[] = { TC_OP_WIN_CREATE, TC_OP_PUT, TC_OP_WIN_FENCE,
					TC_OP_WIN_FREE };
	struct coll *c = ctx;

	if (c->pos[idx] >= 4)
		return false;
	ev->op = ops[c->pos[idx]++];
	ev->fields = TC_F_COMM | TC_F_FILE;
	ev->comm = TC_COMM_WORLD;
	ev->file = 0;
	if (ev->op == TC_OP_PUT) {
		ev->fields |= TC_F_PEER | TC_F_COUNT | TC_F_DTYPE;
		ev->peer = (int32_t)((idx + 1) % 3);
		ev->count = 4;
		ev->dtype = TC_DT_INT;
		ev->dtype_size = 4;
	}
	ev->t_start = ev->t_end = 0;
	return true;
}

TEST(replay_rma_synchronisation_and_neighbourhood_cost)
{
	struct tc_replay_params p;
	struct tc_replay_result res;
	struct coll c = { calloc(3, sizeof(uint64_t)) };

	tc_replay_params_init(&p);
	CHECK(tc_replay_run(3, NULL, 3, &p, rma_next, &c, &res) == 0);
	/* create, fence and free meet as collectives; the Put sends nothing */
	CHECK(!res.deadlock);
	CHECK_EQ_U64(res.collectives, 3);
	CHECK_EQ_U64(res.messages, 0);
	CHECK_EQ_U64(res.events, 12);
	tc_replay_result_release(&res);
	free(c.pos);
	/* a neighbourhood collective: one round, whatever the size */
	CHECK_NEAR(tc_replay_coll_cost(&p, TC_OP_NEIGHBOR_ALLTOALL, 64, 100, 0),
		   p.L + 2 * p.o + 100 * p.G);
	CHECK_NEAR(tc_replay_coll_cost(&p, TC_OP_INEIGHBOR_ALLTOALLV, 64, 100, 400),
		   p.L + 2 * p.o + 400 * p.G);
}

/*
 * Cancelled receives on 2 ranks: each posts Irecv(MPI_ANY_SOURCE, tag 9)
 * that no message matches, cancels it and waits (status without a
 * source); rank 1 then sends rank 0 a message of tag 5 that rank 0 has
 * received before its cancel (its status names rank 1: the cancel failed).
 */
struct cancel {
	uint64_t pos[2];
	struct tc_completion c;
};

static bool cancel_next(void *ctx, size_t idx, struct tc_event *ev)
{
	struct cancel *c = ctx;
	uint64_t i = c->pos[idx]++;

	ev->fields = TC_F_COMM | TC_F_REQUEST;
	ev->comm = TC_COMM_WORLD;
	switch (i) {
	case 0: case 3:
		ev->op = TC_OP_IRECV;
		ev->fields |= TC_F_PEER | TC_F_TAG;
		ev->peer = TC_ANY_SOURCE;
		ev->tag = i ? 5 : 9;
		ev->request = i + 1;
		if (i && idx == 1)
			return false;
		return true;
	case 1: case 4:
		ev->op = TC_OP_CANCEL;
		ev->request = i;
		return true;
	case 2: case 5:
		ev->op = TC_OP_WAIT;
		ev->fields = TC_F_COMPL;
		c->c.request = i - 1;
		c->c.source = i == 5 ? 1 : TC_ANY_SOURCE;
		c->c.tag = i == 5 ? 5 : TC_ANY_TAG;
		c->c.bytes = i == 5 ? 4 : 0;
		ev->ncompl = 1;
		ev->compl = &c->c;
		return idx == 0 || i == 2;
	default:
		return false;
	}
}

static bool cancel_next2(void *ctx, size_t idx, struct tc_event *ev)
{
	struct cancel *c = ctx;

	/* rank 1: after its cancelled receive, one Send of tag 5 to rank 0 */
	if (idx == 1 && c->pos[1] == 3) {
		c->pos[1]++;
		ev->op = TC_OP_SEND;
		ev->fields = TC_F_COMM | TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE;
		ev->peer = 0;
		ev->tag = 5;
		ev->count = 1;
		ev->dtype = TC_DT_INT;
		ev->dtype_size = 4;
		return true;
	}
	if (idx == 1 && c->pos[1] > 3)
		return false;
	return cancel_next(ctx, idx, ev);
}

TEST(replay_cancelled_receive_completes)
{
	struct tc_replay_params p;
	struct tc_replay_result res;
	struct cancel c;

	memset(&c, 0, sizeof(c));
	tc_replay_params_init(&p);
	p.gaps = false;
	CHECK(tc_replay_run(2, NULL, 2, &p, cancel_next2, &c, &res) == 0);
	CHECK(!res.deadlock);
	CHECK_EQ_U64(res.messages, 1);
	CHECK_EQ_U64(res.unmatched_sends, 0);
	CHECK_EQ_U64(res.forced, 0);
	/* rank 0 waited for rank 1's 4 bytes: sent at 0, arrived o + 3G + L
	 * later, received in o */
	CHECK_NEAR(res.time[0], p.o + 3 * p.G + p.L + p.o);
	tc_replay_result_release(&res);
}

TEST(matrix_collectives_on_a_subcommunicator)
{
	static const int32_t members[3] = { 5, 1, 3 };
	struct tc_matrix_comm sub = { 3, members };
	struct tc_matrix m;
	struct tc_event ev;

	tc_matrix_init(&m, 6);
	tc_event_init(&ev);
	ev.op = TC_OP_BCAST;
	ev.fields = TC_F_COMM | TC_F_COUNT | TC_F_DTYPE | TC_F_ROOT;
	ev.comm = 3;
	ev.count = 10;
	ev.dtype = TC_DT_INT;
	ev.dtype_size = 4;
	ev.root = 1;
	/* the root (world rank 1) sends to the other two members */
	tc_matrix_add_event(&m, 1, &ev, TC_HM_BYTES, true, &sub);
	/* not the root, not a member, or an unknown communicator: nothing */
	tc_matrix_add_event(&m, 5, &ev, TC_HM_BYTES, true, &sub);
	tc_matrix_add_event(&m, 0, &ev, TC_HM_BYTES, true, &sub);
	tc_matrix_add_event(&m, 1, &ev, TC_HM_BYTES, true, NULL);
	/* Allreduce: dissemination among comm ranks, 2 rounds from rank 3
	 * (comm rank 2): to comm ranks 0 and 1 */
	ev.op = TC_OP_ALLREDUCE;
	ev.fields &= ~TC_F_ROOT;
	tc_matrix_add_event(&m, 3, &ev, TC_HM_BYTES, true, &sub);
	tc_matrix_finish(&m);
	CHECK_EQ_U64(m.ncells, 4);
	CHECK_NEAR(tc_matrix_get(&m, 1, 5), 40);
	CHECK_NEAR(tc_matrix_get(&m, 1, 3), 40);
	CHECK_NEAR(tc_matrix_get(&m, 3, 5), 40);
	CHECK_NEAR(tc_matrix_get(&m, 3, 1), 40);
	tc_matrix_release(&m);
}

TEST(matrix_neighbourhood_collectives_on_a_cartesian_grid)
{
	/* a 2 x 3 grid, periodic in its second dimension only, whose comm
	 * rank i is world rank 10 - i */
	static const int32_t members[6] = { 10, 9, 8, 7, 6, 5 };
	static const int32_t dims[2] = { 2, 3 };
	static const uint64_t sc[4] = { 1, 2, 3, 4 };
	struct tc_matrix_comm cart = { 6, members, 2, dims, 2 };
	struct tc_matrix m;
	struct tc_event ev;

	tc_matrix_init(&m, 11);
	tc_event_init(&ev);
	ev.op = TC_OP_NEIGHBOR_ALLTOALLV;
	ev.fields = TC_F_COMM | TC_F_COUNT | TC_F_DTYPE | TC_F_SCOUNTS;
	ev.comm = 4;
	ev.count = 10;
	ev.dtype = TC_DT_INT;
	ev.dtype_size = 4;
	ev.nscounts = 4;
	ev.scounts = sc;
	/* comm rank 0 = (0,0): no -1 in dimension 0 (block 1 unsent),
	 * +1 is (1,0) = comm 3 (block 2); dimension 1 wraps: -1 is (0,2) =
	 * comm 2 (block 3), +1 is (0,1) = comm 1 (block 4) */
	tc_matrix_add_event(&m, 10, &ev, TC_HM_BYTES, true, &cart);
	/* allgather: one block of 8 bytes to each; comm rank 4 = (1,1): -1 in
	 * dimension 0 is (0,1) = comm 1, +1 none; (1,0) = comm 3, (1,2) = 5 */
	ev.op = TC_OP_NEIGHBOR_ALLGATHER;
	ev.fields &= ~TC_F_SCOUNTS;
	ev.nscounts = 0;
	ev.scounts = NULL;
	ev.count = 2;
	tc_matrix_add_event(&m, 6, &ev, TC_HM_BYTES, true, &cart);
	/* without the topology: nothing */
	cart.ndims = 0;
	tc_matrix_add_event(&m, 10, &ev, TC_HM_BYTES, true, &cart);
	tc_matrix_finish(&m);
	CHECK_EQ_U64(m.ncells, 6);
	CHECK_NEAR(tc_matrix_get(&m, 10, 7), 8);
	CHECK_NEAR(tc_matrix_get(&m, 10, 8), 12);
	CHECK_NEAR(tc_matrix_get(&m, 10, 9), 16);
	CHECK_NEAR(tc_matrix_get(&m, 6, 9), 8);
	CHECK_NEAR(tc_matrix_get(&m, 6, 7), 8);
	CHECK_NEAR(tc_matrix_get(&m, 6, 5), 8);
	tc_matrix_release(&m);
}

TEST(space_formulas)
{
	/* ICS'14 §5.3 */
	CHECK_NEAR(tc_space_per_process(1000, 8, 4, 4, 0, true), 750);
	CHECK_NEAR(tc_space_per_process(1000, 8, 4, 2, 0, false), (1000 + 32 + 8 * 2 * 3) / 4.0);
	CHECK_NEAR(tc_space_per_process(1000, 16, 4, 3, 2, false),
		   (4 * 16 + 1000 + 16 * 5 * 3) / 4.0);
}

TEST(matrix_sparse_sorted)
{
	struct tc_matrix m, n, d;
	struct tc_strbuf sb = TC_STRBUF_INIT;
	double l1, mx;

	tc_matrix_init(&m, 4);
	for (int i = 0; i < 5000; i++)
		tc_matrix_add(&m, 3 - i % 4, i % 4, 1);
	tc_matrix_add(&m, 9, 0, 1); /* out of range: ignored */
	tc_matrix_finish(&m);
	CHECK_EQ_U64(m.ncells, 4);
	CHECK_EQ_I64(m.cells[0].src, 0);
	CHECK_EQ_I64(m.cells[0].dst, 3);
	CHECK_NEAR(tc_matrix_get(&m, 2, 1), 1250);
	tc_heatmap_csv(&m, tc_hm_metric_column(TC_HM_COUNT), &sb);
	CHECK_STR(sb.buf, "src,dst,messages\n0,3,1250\n1,2,1250\n2,1,1250\n3,0,1250\n");
	tc_matrix_init(&n, 4);
	tc_matrix_add(&n, 0, 3, 1000);
	tc_matrix_finish(&n);
	tc_matrix_diff(&d, &m, &n);
	tc_matrix_norms(&d, &l1, &mx);
	CHECK_NEAR(l1, 250 + 3 * 1250);
	CHECK_NEAR(mx, 1250);
	CHECK_EQ_U64(tc_heatmap_binning(4096, 128), 32);
	CHECK_EQ_U64(tc_heatmap_binning(4, 128), 1);
	tc_strbuf_release(&sb);
	tc_matrix_release(&m);
	tc_matrix_release(&n);
	tc_matrix_release(&d);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

TEST(png_chunks_and_crcs)
{
	uint8_t px[2 * 3 * 3];
	struct tc_strbuf sb = TC_STRBUF_INIT;
	const uint8_t *p;
	size_t off = 8;
	int chunks = 0;

	for (size_t i = 0; i < sizeof(px); i++)
		px[i] = (uint8_t)(i * 13);
	tc_png_encode(px, 3, 2, &sb);
	p = (const uint8_t *)sb.buf;
	CHECK(sb.len > 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8));
	while (off + 12 <= sb.len) {
		uint32_t len = be32(p + off);
		uLong crc = crc32(0L, p + off + 4, 4 + len);
		CHECK_EQ_U64(crc, be32(p + off + 8 + len));
		if (!memcmp(p + off + 4, "IHDR", 4)) {
			CHECK_EQ_U64(be32(p + off + 8), 3);
			CHECK_EQ_U64(be32(p + off + 12), 2);
		}
		chunks++;
		off += 12 + len;
	}
	CHECK_EQ_U64(off, sb.len);
	CHECK_EQ_U64(chunks, 3);
	tc_strbuf_release(&sb);
}
