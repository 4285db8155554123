/*
 * timing.c - how much of the timing a global trace keeps (compress
 * --timing; lib/merge.h, enum tc_gtiming).
 *
 * The merge keeps, for each event, the compute time before the call and
 * the time in it per set of ranks whose means agree within 1% (struct
 * tc_gtime): exact enough to replay any rank, but on a noisy machine
 * nearly one entry per rank. `stats` keeps statistics merged across ranks
 * (Scala-H-Trace §4: timing as statistics per node, not per rank) except
 * where merging would move some rank's time noticeably: entries are joined
 * while the per-rank compute time they stand for (mean compute time times
 * the occurrences per rank) and the per-rank total (compute + call time)
 * both differ by at most TIMING_BUDGET of the average rank's whole run.
 * The compute time is the one a replay spends, the call time follows from
 * the communication: a rank that computes long before an event and one
 * that waits long inside it stay apart even when their totals agree. A
 * one-off phase whose length differs between ranks (initialisation, a
 * load imbalance) keeps its entries, the millions of short gaps of a
 * timestep loop become one statistic; no rank's replayed compute time
 * moves by more than about TIMING_BUDGET per event whose entries were
 * joined.
 */
#include "lib/compat.h"
#include "lib/gtrace/internal.h"
#include "lib/merge.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TIMING_BUDGET 0.0005

static const char *const timing_names[] = { "rank", "stats", "none" };

const char *tc_gtiming_name(unsigned t)
{
	return t < sizeof(timing_names) / sizeof(timing_names[0]) ? timing_names[t] : NULL;
}

int tc_gtiming_from_name(const char *name)
{
	for (unsigned t = 0; t < sizeof(timing_names) / sizeof(timing_names[0]); t++)
		if (!strcmp(name, timing_names[t]))
			return (int)t;
	return -1;
}

/* Nanoseconds a rank of the entry spends at the event over the run:
 * computing before it (comp) and in all (compute + call). */
static double rank_comp(const struct tc_gtime *t)
{
	if (!t->ranks.count)
		return 0;
	return t->comp.mean * (double)t->comp.n / (double)t->ranks.count;
}

static double rank_time(const struct tc_gtime *t)
{
	if (!t->ranks.count)
		return 0;
	return (t->comp.mean + t->comm.mean) * (double)t->comp.n / (double)t->ranks.count;
}

/* The average rank's time over the whole trace (ns). */
static double run_time(const struct tc_gnode *seq, size_t n, uint64_t ranks)
{
	double s = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tc_gnode *nd = &seq[i];
		if (nd->nbody)
			s += run_time(nd->body, nd->nbody, ranks);
		else
			s += (nd->comp.mean + nd->comm.mean) * (double)nd->comp.n / (double)ranks;
	}
	return s;
}

struct entry_order {
	double comp, t;
	int32_t first;
	uint32_t i;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry_order *x = a, *y = b;

	if (x->comp != y->comp)
		return x->comp < y->comp ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

static int cmp_first(const void *a, const void *b)
{
	const struct tc_gtime *x = a, *y = b;
	int32_t fx = tc_granks_first(&x->ranks), fy = tc_granks_first(&y->ranks);

	return (fx > fy) - (fx < fy);
}

static void drop_entries(struct tc_gnode *nd)
{
	tc_gnode_times_total(nd);
	for (uint32_t k = 0; k < nd->ntimes; k++)
		tc_gtime_release(&nd->times[k]);
	free(nd->times);
	nd->times = NULL;
	nd->ntimes = 0;
}

/* Join entries whose per-rank compute and total times both lie within
 * tol of the group's first (in increasing order of per-rank compute time). */
static void join_entries(struct tc_gnode *nd, double tol)
{
	struct entry_order *o;
	struct tc_gtime *out;
	uint32_t n = nd->ntimes, k = 0;

	if (n < 2)
		return;
	o = tc_xcalloc(n, sizeof(*o));
	for (uint32_t i = 0; i < n; i++) {
		o[i].comp = rank_comp(&nd->times[i]);
		o[i].t = rank_time(&nd->times[i]);
		o[i].first = tc_granks_first(&nd->times[i].ranks);
		o[i].i = i;
	}
	qsort(o, n, sizeof(*o), cmp_entry);
	out = tc_xcalloc(n, sizeof(*out));
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i + 1;
		struct tc_gtime *g = &out[k++];
		*g = nd->times[o[i].i];
		memset(&nd->times[o[i].i], 0, sizeof(nd->times[0]));
		while (j < n && o[j].comp - o[i].comp <= tol && fabs(o[j].t - o[i].t) <= tol) {
			struct tc_gtime *t = &nd->times[o[j].i];
			tc_granks_union(&g->ranks, &g->ranks, &t->ranks);
			tc_rsd_stat_merge(&g->comp, &t->comp);
			tc_rsd_stat_merge(&g->comm, &t->comm);
			tc_gtime_release(t);
			j++;
		}
		i = j;
	}
	free(o);
	free(nd->times);
	nd->times = out;
	nd->ntimes = k;
	if (k == 1)
		drop_entries(nd);
	else
		qsort(nd->times, k, sizeof(*nd->times), cmp_first);
}

static void timing_seq(struct tc_gnode *seq, size_t n, enum tc_gtiming t, double tol)
{
	for (size_t i = 0; i < n; i++) {
		struct tc_gnode *nd = &seq[i];
		if (nd->nbody) {
			timing_seq(nd->body, nd->nbody, t, tol);
			continue;
		}
		if (t == TC_GTIMING_STATS) {
			join_entries(nd, tol);
			continue;
		}
		drop_entries(nd);
		{
			uint64_t cn = nd->comp.n, mn = nd->comm.n;
			tc_rsd_stat_init(&nd->comp);
			tc_rsd_stat_init(&nd->comm);
			nd->comp.n = cn;
			nd->comm.n = mn;
		}
	}
}

void tc_gtrace_set_timing(struct tc_gtrace *g, enum tc_gtiming t)
{
	double tol;

	if (t <= g->timing)
		return;
	tol = TIMING_BUDGET * run_time(g->seq, g->n, g->ranks.count ? g->ranks.count : 1);
	timing_seq(g->seq, g->n, t, tol);
	g->timing = t;
}

/* A statistic like s but counting n occurrences. */
static struct tc_rsd_stat stat_as(const struct tc_rsd_stat *s, uint64_t n)
{
	struct tc_rsd_stat o = *s;

	o.m2 = s->n ? s->m2 / (double)s->n * (double)n : 0;
	o.n = n;
	return o;
}

static bool borrow_ok(const struct tc_gnode *d, size_t nd, const struct tc_gnode *s, size_t ns)
{
	if (nd != ns)
		return false;
	for (size_t i = 0; i < nd; i++) {
		if (!tc_gt_shape_equal(&d[i], &s[i]))
			return false;
		if (d[i].nbody ? !borrow_ok(d[i].body, d[i].nbody, s[i].body, s[i].nbody)
			       : d[i].ntimes > 1 || s[i].ntimes > 1)
			return false;
	}
	return true;
}

static void borrow_seq(struct tc_gnode *d, size_t n, const struct tc_gnode *s)
{
	for (size_t i = 0; i < n; i++) {
		if (d[i].nbody) {
			borrow_seq(d[i].body, d[i].nbody, s[i].body);
			continue;
		}
		d[i].comp = stat_as(&s[i].comp, d[i].comp.n);
		d[i].comm = stat_as(&s[i].comm, d[i].comm.n);
		if (d[i].ntimes) {
			/* a trace's one entry: its statistics are the node's */
			d[i].times[0].comp = stat_as(&s[i].comp, d[i].times[0].comp.n);
			d[i].times[0].comm = stat_as(&s[i].comm, d[i].times[0].comm.n);
		}
	}
}

bool tc_gtrace_borrow_times(struct tc_gtrace *dst, const struct tc_gtrace *src)
{
	if (!borrow_ok(dst->seq, dst->n, src->seq, src->n))
		return false;
	borrow_seq(dst->seq, dst->n, src->seq);
	return true;
}
