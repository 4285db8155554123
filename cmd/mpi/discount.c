/*
 * discount.c - the tracer's time taken out of recorded compute gaps
 * (discount.h; no MPI, so that it is tested alone).
 */
#include "lib/compat.h"
#include "cmd/mpi/discount.h"
#include "lib/xalloc.h"

#include <stdlib.h>

/* A gap after an event of op, for sorting by op, then length. */
struct opgap {
	uint64_t gap;
	uint32_t op;
};

static int opgap_cmp(const void *a, const void *b)
{
	const struct opgap *x = a, *y = b;

	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->gap < y->gap ? -1 : x->gap > y->gap;
}

/* The gap after event i of ev (0: none, the next call starts before its
 * recorded end). */
static uint64_t gap_after(const struct tc_event *ev, size_t i)
{
	uint64_t next = ev[i + 1].t_start;

	return next > ev[i].t_end ? next - ev[i].t_end : 0;
}

/* The tracer's ns after a call of op: the op's where per_op has it (plus
 * 1, 0: none), else the mean. */
static uint64_t tracer_after(const uint32_t *per_op, uint64_t mean, unsigned op)
{
	return per_op && op < TC_OP_MAX && per_op[op] ? per_op[op] - 1u : mean;
}

/*
 * The cap of the gaps g[0..m) (ascending) that gives ns per gap in all:
 * each gives min(gap, cap), the shorter their whole length; UINT64_MAX
 * when they are shorter than that together (each gives all).
 */
static uint64_t gaps_cap(const struct opgap *g, size_t m, uint64_t ns)
{
	uint64_t want = m <= UINT64_MAX / ns ? ns * m : UINT64_MAX, below = 0;

	for (size_t k = 0; k < m; k++) {
		uint64_t left = want - below, c = left / (m - k) + (left % (m - k) != 0);
		if (c <= g[k].gap)
			return c;
		below += g[k].gap;
	}
	return UINT64_MAX;
}

uint64_t tc_tracer_discount(struct tc_event *ev, size_t n, uint64_t mean, const uint32_t *per_op)
{
	struct opgap *g;
	uint64_t *cap, total = 0;
	size_t m = 0;

	if ((!mean && !per_op) || n < 3)
		return 0;
	g = tc_xmalloc(tc_st_mult(n - 2, sizeof(*g)));
	cap = tc_xcalloc(TC_OP_MAX, sizeof(*cap));
	for (size_t i = 1; i + 1 < n; i++) {
		unsigned op = ev[i].op < TC_OP_MAX ? ev[i].op : 0;
		if ((g[m].gap = gap_after(ev, i)) > 0 && tracer_after(per_op, mean, op)) {
			g[m].op = op;
			m++;
		}
	}
	qsort(g, m, sizeof(*g), opgap_cmp);
	for (size_t k = 0, j; k < m; k = j) {
		for (j = k; j < m && g[j].op == g[k].op; j++)
			;
		cap[g[k].op] = gaps_cap(g + k, j - k, tracer_after(per_op, mean, g[k].op));
	}
	for (size_t i = 1; i + 1 < n; i++) {
		unsigned op = ev[i].op < TC_OP_MAX ? ev[i].op : 0;
		uint64_t d = gap_after(ev, i);
		if (d > cap[op])
			d = cap[op];
		ev[i].t_end += d;
		total += d;
	}
	free(g);
	free(cap);
	return total;
}
