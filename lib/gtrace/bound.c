/*
 * bound.c - how much work expanding a global trace can take, before any
 * of it is done (tc_gtrace_check_bound).
 *
 * A trace read from a file declares its events in the header, but its
 * loops say how often their bodies run and its rank lists how many ranks
 * run them: a few bytes ("loop 4000000000", "ranks [0-16777215]") can
 * stand for more events than any run made. Expansion would then go on for
 * hours, so readers compare what the node tree implies for all the ranks
 * together with what the header declares, in checked arithmetic, and
 * refuse a trace whose loops and ranks imply more.
 *
 * Every loop is taken at the largest iteration count a rank can draw
 * there (the largest value of its sequence, the top of its histogram).
 * A first pass bounds all ranks at once from the rank lists' sizes, in
 * one walk of the tree: a loop stands for at most its largest count times
 * its body's events over all ranks, and at most, per variant of its
 * count, the variant's ranks times its largest value times the most any
 * one rank runs of the body. When that fits, so does the expansion.
 * Otherwise each rank is walked exactly (a node once per rank, not once
 * per iteration), the totals summed over the ranks, until they fit or go
 * over.
 */
#include "lib/compat.h"
#include "lib/gtrace/internal.h"
#include "lib/ranklist.h"
#include "lib/xalloc.h"

#include <stdlib.h>

/* Events and iterator steps a subtree stands for. */
struct cost {
	uint64_t ev, work;
};

struct bound {
	const struct tc_gtrace *g;
	uint64_t max_ev, max_work;
	struct cost acc;          /* the ranks walked so far, together */
	const struct tc_gnode *culprit;
	int32_t rank;
};

static void seq_max(void *ctx, const struct tc_gval *v, uint64_t n)
{
	uint64_t *max = ctx;

	if (n && v->n == 1 && v->w > 0 && (uint64_t)v->w > *max)
		*max = (uint64_t)v->w;
}

/* The largest iteration count of one variant (0: the loop is skipped). */
static uint64_t var_max(const struct tc_gvar *var)
{
	uint64_t max = 0;

	if (var->seq)
		tc_gt_seq_visit(var->seq, 1, seq_max, &max);
	else if (var->val.n == 1 && var->val.w > 0)
		max = (uint64_t)var->val.w;
	return max;
}

/* Expansion clamps a drawn value into its bin, so no draw exceeds the
 * top of the highest bin. */
static uint64_t hist_max(const struct tc_hist *h)
{
	int64_t top = 0;

	for (uint32_t k = 0; k < h->nbins; k++)
		if (h->bins[k].hi > top)
			top = h->bins[k].hi;
	return (uint64_t)top;
}

static uint64_t iters_max_any(const struct tc_gparam *gp)
{
	uint64_t max = gp->hist ? hist_max(gp->hist) : 0;

	for (uint32_t i = 0; i < gp->nvar; i++) {
		uint64_t m = var_max(&gp->var[i]);
		if (m > max)
			max = m;
	}
	return max;
}

static uint64_t iters_max_rank(const struct tc_gparam *gp, int32_t rank)
{
	for (uint32_t i = 0; i < gp->nvar; i++)
		if (tc_ranklist_contains(&gp->var[i].ranks, rank))
			return var_max(&gp->var[i]);
	if (gp->hist && tc_ranklist_contains(&gp->hist->ranks, rank))
		return hist_max(gp->hist);
	return 0;
}

/*
 * A loop of `iters` iterations over a body of cost `body`: every
 * iteration is one step besides its body's, and entering it one more.
 */
static struct cost loop_cost(uint64_t iters, struct cost body)
{
	struct cost c;

	c.ev = tc_gt_sat_mul(iters, body.ev);
	c.work = tc_gt_sat_add(1, tc_gt_sat_mul(iters, tc_gt_sat_add(body.work, 1)));
	return c;
}

/* What one rank can run of seq at most, whatever the rank. */
static struct cost any_seq(const struct tc_gnode *seq, size_t n)
{
	struct cost sum = { 0, 0 };

	for (size_t i = 0; i < n; i++) {
		const struct tc_gnode *nd = &seq[i];
		struct cost c = { 1, 1 };

		if (nd->nbody)
			c = loop_cost(iters_max_any(&nd->iters), any_seq(nd->body, nd->nbody));
		sum.ev = tc_gt_sat_add(sum.ev, c.ev);
		sum.work = tc_gt_sat_add(sum.work, c.work);
	}
	return sum;
}

/* The ranks of a variant times its largest iteration count. */
static uint64_t rank_iters(const struct tc_gparam *gp)
{
	uint64_t sum = gp->hist ? tc_gt_sat_mul(gp->hist->ranks.count, hist_max(gp->hist)) : 0;

	for (uint32_t i = 0; i < gp->nvar; i++)
		sum = tc_gt_sat_add(sum, tc_gt_sat_mul(gp->var[i].ranks.count,
						       var_max(&gp->var[i])));
	return sum;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * What all the ranks together can run of seq at most. A loop over nr
 * ranks whose largest count is m and whose body costs B over all ranks
 * and b for any one rank: each rank enters it once and takes a step per
 * iteration, so it costs at most nr + m (B.work + nr) steps and m B.ev
 * events, and at most (the sum over the variants of ranks times largest
 * count) times b.
 */
static struct cost all_seq(const struct tc_gnode *seq, size_t n)
{
	struct cost sum = { 0, 0 };

	for (size_t i = 0; i < n; i++) {
		const struct tc_gnode *nd = &seq[i];
		uint64_t nr = nd->ranks.count;
		struct cost c = { nr, nr };

		if (nd->nbody) {
			uint64_t m = iters_max_any(&nd->iters), ri = rank_iters(&nd->iters);
			struct cost all = all_seq(nd->body, nd->nbody);
			struct cost one = any_seq(nd->body, nd->nbody);
			c.ev = min_u64(tc_gt_sat_mul(m, all.ev), tc_gt_sat_mul(ri, one.ev));
			c.work = tc_gt_sat_add(nr, min_u64(tc_gt_sat_mul(m, tc_gt_sat_add(all.work, nr)),
							   tc_gt_sat_add(ri, tc_gt_sat_mul(ri, one.work))));
		}
		sum.ev = tc_gt_sat_add(sum.ev, c.ev);
		sum.work = tc_gt_sat_add(sum.work, c.work);
	}
	return sum;
}

/* Add mult times c to the rank's total; false once it is over a limit. */
static bool charge(struct bound *b, uint64_t mult, struct cost c)
{
	b->acc.ev = tc_gt_sat_add(b->acc.ev, tc_gt_sat_mul(mult, c.ev));
	b->acc.work = tc_gt_sat_add(b->acc.work, tc_gt_sat_mul(mult, c.work));
	return b->acc.ev <= b->max_ev && b->acc.work <= b->max_work;
}

/* Walk seq for b->rank, every node counted mult times; false over a limit
 * (b->culprit: the innermost loop around the node that went over). */
static bool rank_seq(struct bound *b, const struct tc_gnode *seq, size_t n, uint64_t mult,
		     const struct tc_gnode *loop)
{
	for (size_t i = 0; i < n; i++) {
		const struct tc_gnode *nd = &seq[i];
		uint64_t iters, inner;

		if (!tc_ranklist_contains(&nd->ranks, b->rank))
			continue;
		if (!nd->nbody) {
			if (!charge(b, mult, (struct cost){ 1, 1 }))
				goto over;
			continue;
		}
		iters = iters_max_rank(&nd->iters, b->rank);
		inner = tc_gt_sat_mul(mult, iters);
		/* entering the loop, then one step per iteration */
		if (!charge(b, 1, (struct cost){ 0, tc_gt_sat_add(mult, inner) })) {
			loop = nd;
			goto over;
		}
		if (iters && !rank_seq(b, nd->body, nd->nbody, inner, nd))
			return false;
	}
	return true;
over:
	b->culprit = loop;
	return false;
}

int tc_gtrace_check_bound(const struct tc_gtrace *g, uint64_t max_ev, uint64_t max_work,
			  uint32_t *node)
{
	struct bound b = { .g = g, .max_ev = max_ev, .max_work = max_work };
	struct cost all;

	*node = UINT32_MAX;
	all = all_seq(g->seq, g->n);
	if (all.ev <= max_ev && all.work <= max_work)
		return 0;
	for (size_t k = 0; k < g->ranks.nruns; k++) {
		const struct tc_run *run = &g->ranks.runs[k];
		for (uint32_t j = 0; j < run->len; j++) {
			b.rank = (int32_t)((int64_t)run->start + (int64_t)j * run->stride);
			b.culprit = NULL;
			/* a rank's expansion is a step even when it has no events */
			if (!charge(&b, 1, (struct cost){ 0, 1 }) ||
			    !rank_seq(&b, g->seq, g->n, 1, NULL)) {
				*node = b.culprit ? b.culprit->id : UINT32_MAX;
				return b.acc.ev > max_ev ? 1 : 2;
			}
		}
	}
	return 0;
}
