/*
 * matrix.c - sparse sender x receiver matrices and what events add to them.
 */
#include "lib/compat.h"
#include "viz/viz.h"
#include "lib/event.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tc_matrix_init(struct tc_matrix *m, int32_t n)
{
	memset(m, 0, sizeof(*m));
	m->n = n;
}

void tc_matrix_release(struct tc_matrix *m)
{
	free(m->cells);
	memset(m, 0, sizeof(*m));
}

static int cell_cmp(const void *a, const void *b)
{
	const struct tc_mcell *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

static void compact(struct tc_matrix *m, bool drop_zero)
{
	size_t k = 0;

	if (!m->ncells)
		return;
	qsort(m->cells, m->ncells, sizeof(*m->cells), cell_cmp);
	for (size_t i = 0; i < m->ncells; i++) {
		if (k && m->cells[k - 1].src == m->cells[i].src &&
		    m->cells[k - 1].dst == m->cells[i].dst)
			m->cells[k - 1].v += m->cells[i].v;
		else
			m->cells[k++] = m->cells[i];
	}
	m->ncells = k;
	if (drop_zero) {
		k = 0;
		for (size_t i = 0; i < m->ncells; i++)
			if (m->cells[i].v != 0)
				m->cells[k++] = m->cells[i];
		m->ncells = k;
	}
	m->compacted = m->ncells;
}

void tc_matrix_add(struct tc_matrix *m, int32_t src, int32_t dst, double v)
{
	if (src < 0 || dst < 0 || src >= m->n || dst >= m->n)
		return;
	if (m->ncells == m->alloc) {
		/* keep memory near the distinct cells: combine before growing */
		if (m->ncells > 2 * m->compacted + 1024)
			compact(m, false);
		if (m->ncells * 4 >= m->alloc * 3 || m->alloc == 0) {
			m->alloc = m->alloc ? 2 * m->alloc : 64;
			m->cells = tc_xrealloc(m->cells, tc_st_mult(m->alloc, sizeof(*m->cells)));
		}
	}
	m->cells[m->ncells].src = src;
	m->cells[m->ncells].dst = dst;
	m->cells[m->ncells].v = v;
	m->ncells++;
}

void tc_matrix_append(struct tc_matrix *m, const struct tc_matrix *o)
{
	m->unmapped += o->unmapped;
	for (size_t i = 0; i < o->ncells; i++)
		tc_matrix_add(m, o->cells[i].src, o->cells[i].dst, o->cells[i].v);
}

void tc_matrix_finish(struct tc_matrix *m)
{
	compact(m, true);
}

double tc_matrix_get(const struct tc_matrix *m, int32_t src, int32_t dst)
{
	size_t lo = 0, hi = m->ncells;
	struct tc_mcell key = { src, dst, 0 };

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cell_cmp(&m->cells[mid], &key);
		if (!c)
			return m->cells[mid].v;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

void tc_matrix_diff(struct tc_matrix *d, const struct tc_matrix *a, const struct tc_matrix *b)
{
	tc_matrix_init(d, a->n > b->n ? a->n : b->n);
	for (size_t i = 0; i < a->ncells; i++)
		tc_matrix_add(d, a->cells[i].src, a->cells[i].dst, -a->cells[i].v);
	for (size_t i = 0; i < b->ncells; i++)
		tc_matrix_add(d, b->cells[i].src, b->cells[i].dst, b->cells[i].v);
	tc_matrix_finish(d);
}

void tc_matrix_norms(const struct tc_matrix *m, double *l1, double *max)
{
	double s = 0, x = 0;

	for (size_t i = 0; i < m->ncells; i++) {
		double v = fabs(m->cells[i].v);
		s += v;
		if (v > x)
			x = v;
	}
	*l1 = s;
	*max = x;
}

const char *tc_hm_metric_name(int metric)
{
	return metric == TC_HM_BYTES ? "bytes" : metric == TC_HM_TIME ? "time" : "count";
}

const char *tc_hm_metric_unit(int metric)
{
	return metric == TC_HM_BYTES ? "bytes" : metric == TC_HM_TIME ? "us" : "messages";
}

const char *tc_hm_metric_column(int metric)
{
	return metric == TC_HM_BYTES ? "bytes" : metric == TC_HM_TIME ? "time_us" : "messages";
}

int tc_hm_metric_from_name(const char *name)
{
	if (!strcmp(name, "count"))
		return TC_HM_COUNT;
	if (!strcmp(name, "bytes"))
		return TC_HM_BYTES;
	if (!strcmp(name, "time"))
		return TC_HM_TIME;
	return -1;
}

/* Where the messages of one event go. */
struct msg_out {
	int32_t world;
	tc_msg_fn fn;
	void *ctx;
};

static void msg(const struct msg_out *o, int32_t src, int32_t dst, uint64_t bytes, double us)
{
	if (src >= 0 && dst >= 0 && src < o->world && dst < o->world)
		o->fn(o->ctx, src, dst, bytes, us);
}

static uint64_t peer_bytes(const struct tc_event *ev, const uint64_t *counts, uint32_t n, int32_t j,
			   uint64_t k)
{
	if (counts && j >= 0 && (uint32_t)j < n)
		return counts[j] * ev->dtype_size;
	return k;
}

/* The world rank of rank i of comm. */
static int32_t world_of(const struct tc_matrix_comm *c, int32_t i)
{
	return c->members ? c->members[i] : i;
}

/* The rank of world rank w in comm, or -1. */
static int32_t rank_in(const struct tc_matrix_comm *c, int32_t w)
{
	if (!c->members)
		return w >= 0 && w < c->size ? w : -1;
	for (int32_t i = 0; i < c->size; i++)
		if (c->members[i] == w)
			return i;
	return -1;
}

/*
 * Neighbourhood collectives on a Cartesian communicator (MPI 4.1, 8.6 and
 * 7.5.5): rank r (row-major coordinates) has 2 * ndims neighbours, for
 * each dimension the one at -1 then the one at +1, MPI_PROC_NULL past a
 * non-periodic edge; the j-th send block goes to the j-th neighbour.
 */
static void cart_neighbour_messages(const struct msg_out *o, int32_t rank, int32_t r,
				    const struct tc_event *ev, const struct tc_matrix_comm *c,
				    double us)
{
	int32_t coord[8], j = 0;
	int64_t cells = 1, rest = r;
	uint32_t nd = c->ndims;

	if (nd > 8 || !c->dims)
		return;
	for (uint32_t d = 0; d < nd; d++) {
		if (c->dims[d] <= 0)
			return;
		cells *= c->dims[d];
	}
	if (cells != c->size)
		return;
	for (uint32_t d = nd; d-- > 0;) {
		coord[d] = (int32_t)(rest % c->dims[d]);
		rest /= c->dims[d];
	}
	for (uint32_t d = 0; d < nd; d++) {
		for (int step = -1; step <= 1; step += 2, j++) {
			int64_t x = (int64_t)coord[d] + step, n = 0;
			if (x < 0 || x >= c->dims[d]) {
				if (!(c->periods >> d & 1))
					continue;
				x = (x + c->dims[d]) % c->dims[d];
			}
			for (uint32_t e = 0; e < nd; e++)
				n = n * c->dims[e] + (e == d ? x : coord[e]);
			msg(o, rank, world_of(c, (int32_t)n),
			    peer_bytes(ev, ev->scounts, ev->nscounts, j, tc_event_bytes(ev)),
			    us / (2 * nd));
		}
	}
}

/* The same on a graph topology (MPI 4.1, 8.6): the j-th send block goes
 * to the j-th destination. */
static void graph_neighbour_messages(const struct msg_out *o, int32_t rank,
				     const struct tc_event *ev, const struct tc_matrix_comm *c,
				     double us)
{
	for (uint32_t j = 0; j < c->nout; j++)
		if (c->out[j] >= 0 && c->out[j] < c->size)
			msg(o, rank, world_of(c, c->out[j]),
			    peer_bytes(ev, ev->scounts, ev->nscounts, (int32_t)j, tc_event_bytes(ev)),
			    us / c->nout);
}

static void coll_messages(const struct msg_out *o, int32_t rank, const struct tc_event *ev,
			  const struct tc_matrix_comm *comm)
{
	struct tc_matrix_comm world = { o->world, NULL };
	const struct tc_matrix_comm *c = comm ? comm : &world;
	int32_t P = c->size, root = ev->root, r;
	uint64_t k = tc_event_bytes(ev);
	double us = ev->t_end > ev->t_start ? (double)(ev->t_end - ev->t_start) * 1e-3 : 0;
	uint32_t rounds = 0;
	/* a persistent collective counts once, at its init */
	unsigned op = tc_op_base(ev->op);

	if ((!comm && ev->comm != TC_COMM_WORLD) || P <= 1 || (r = rank_in(c, rank)) < 0)
		return;
	while (((int64_t)1 << rounds) < P)
		rounds++;
	switch (op) {
	case TC_OP_BCAST: case TC_OP_IBCAST:
	case TC_OP_SCATTER: case TC_OP_ISCATTER:
	case TC_OP_SCATTERV: case TC_OP_ISCATTERV:
		if (rank != root)
			return;
		for (int32_t j = 0; j < P; j++)
			if (j != r)
				msg(o, rank, world_of(c, j),
				    peer_bytes(ev, ev->scounts, ev->nscounts, j, k), us / (P - 1));
		return;
	case TC_OP_REDUCE: case TC_OP_IREDUCE:
	case TC_OP_GATHER: case TC_OP_IGATHER:
	case TC_OP_GATHERV: case TC_OP_IGATHERV:
		if (rank != root)
			msg(o, rank, root, k, us);
		return;
	case TC_OP_ALLGATHER: case TC_OP_IALLGATHER:
	case TC_OP_ALLGATHERV: case TC_OP_IALLGATHERV:
	case TC_OP_ALLTOALL: case TC_OP_IALLTOALL:
	case TC_OP_ALLTOALLV: case TC_OP_IALLTOALLV:
	case TC_OP_ALLTOALLW: case TC_OP_IALLTOALLW:
		for (int32_t j = 0; j < P; j++)
			if (j != r)
				msg(o, rank, world_of(c, j),
				    peer_bytes(ev, ev->scounts, ev->nscounts, j, k), us / (P - 1));
		return;
	case TC_OP_REDUCE_SCATTER: case TC_OP_IREDUCE_SCATTER:
	case TC_OP_REDUCE_SCATTER_BLOCK: case TC_OP_IREDUCE_SCATTER_BLOCK:
		for (int32_t j = 0; j < P; j++)
			if (j != r)
				msg(o, rank, world_of(c, j),
				    peer_bytes(ev, ev->rcounts, ev->nrcounts, j, k), us / (P - 1));
		return;
	case TC_OP_ALLREDUCE: case TC_OP_IALLREDUCE:
	case TC_OP_BARRIER: case TC_OP_IBARRIER:
		for (uint32_t i = 0; i < rounds; i++)
			msg(o, rank, world_of(c, (int32_t)(((int64_t)r + ((int64_t)1 << i)) % P)),
			    (op == TC_OP_BARRIER || op == TC_OP_IBARRIER) ? 0 : k,
			    us / rounds);
		return;
	case TC_OP_SCAN: case TC_OP_ISCAN:
	case TC_OP_EXSCAN: case TC_OP_IEXSCAN:
		if (r + 1 < P)
			msg(o, rank, world_of(c, r + 1), k, us);
		return;
	default:
		if (tc_op_flags(ev->op) & TC_OPF_NEIGH) {
			if (c->ndims)
				cart_neighbour_messages(o, rank, r, ev, c, us);
			else if (c->graph)
				graph_neighbour_messages(o, rank, ev, c, us);
			return;
		}
		return;
	}
}

void tc_event_messages(int32_t rank, const struct tc_event *ev, int32_t world, bool collectives,
		       const struct tc_matrix_comm *comm, tc_msg_fn fn, void *ctx)
{
	struct msg_out o = { world, fn, ctx };
	enum tc_op_kind kind = tc_op_kind(ev->op);
	double us = ev->t_end > ev->t_start ? (double)(ev->t_end - ev->t_start) * 1e-3 : 0;

	if (kind == TC_K_SEND || kind == TC_K_SENDRECV) {
		if (ev->peer >= 0)
			msg(&o, rank, ev->peer, tc_event_bytes(ev), us);
	} else if (kind == TC_K_RMA && ev->peer >= 0) {
		/* one-sided: the data of a put goes to the target, a get's
		 * comes from it; the atomics that do both count both ways */
		unsigned f = tc_op_flags(ev->op);
		bool both = (f & TC_OPF_PUT) && (f & TC_OPF_GET);
		if (f & TC_OPF_PUT)
			msg(&o, rank, ev->peer, tc_event_bytes(ev), both ? us / 2 : us);
		if (f & TC_OPF_GET)
			msg(&o, ev->peer, rank, tc_event_bytes(ev), both ? us / 2 : us);
	} else if (kind == TC_K_COLL && collectives) {
		coll_messages(&o, rank, ev, comm);
	}
}

struct add_ctx {
	struct tc_matrix *m;
	int metric;
};

static void add_msg(void *p, int32_t src, int32_t dst, uint64_t bytes, double us)
{
	struct add_ctx *c = p;
	double v = c->metric == TC_HM_BYTES ? (double)bytes : c->metric == TC_HM_TIME ? us : 1.0;

	if (v != 0)
		tc_matrix_add(c->m, src, dst, v);
}

void tc_matrix_add_event(struct tc_matrix *m, int32_t rank, const struct tc_event *ev, int metric,
			 bool collectives, const struct tc_matrix_comm *comm)
{
	struct add_ctx c = { m, metric };

	tc_event_messages(rank, ev, m->n, collectives, comm, add_msg, &c);
}
