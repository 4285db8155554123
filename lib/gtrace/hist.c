/*
 * hist.c - histograms of parameter values below 100% merge precision
 * (Scala-H-Trace §4.4): fine bins while traces merge, grouped into the
 * trace's number of bins of about equal counts when it is finished
 * (tc_hist_balance).
 */
#include "lib/compat.h"
#include "lib/gtrace/internal.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- histograms -------------------------------------------------------- */

/* A bin's statistics are those of lib/rsd.h, under other names. */
static struct tc_rsd_stat bin_stat(const struct tc_hbin *b)
{
	struct tc_rsd_stat s = { b->n, b->lo, b->hi, b->mean, b->m2 };
	return s;
}

double tc_hbin_stddev(const struct tc_hbin *b)
{
	struct tc_rsd_stat s = bin_stat(b);
	return tc_rsd_stat_stddev(&s);
}

/* Chan et al.'s pairwise update (tc_rsd_stat_merge). */
static void bin_fold(struct tc_hbin *a, const struct tc_hbin *b)
{
	struct tc_rsd_stat s = bin_stat(a), o = bin_stat(b);

	tc_rsd_stat_merge(&s, &o);
	a->n = s.n;
	a->lo = s.min;
	a->hi = s.max;
	a->mean = s.mean;
	a->m2 = s.m2;
}

static void hist_extremes(struct tc_hist *h, int64_t min, int32_t min_rank, int64_t max,
			  int32_t max_rank)
{
	if (!h->n || min < h->min || (min == h->min && min_rank < h->min_rank)) {
		h->min = min;
		h->min_rank = min_rank;
	}
	if (!h->n || max > h->max || (max == h->max && max_rank < h->max_rank)) {
		h->max = max;
		h->max_rank = max_rank;
	}
}

/*
 * Group the bins into at most k bins of about equal counts: bin i joins
 * group floor(k * (values before it + half its own) / all values), so
 * groups are runs of neighbouring bins and a bin is never cut.
 */
static void hist_rebin(struct tc_hist *h, uint32_t k)
{
	uint64_t before = 0;
	uint32_t out = 0;
	int64_t last = -1;

	if (!k)
		k = 1;
	if (h->nbins <= k || !h->n)
		return;
	for (uint32_t i = 0; i < h->nbins; i++) {
		struct tc_hbin b = h->bins[i];
		double mid = (double)before + (double)b.n / 2;
		int64_t g = (int64_t)(mid * (double)k / (double)h->n);
		before += b.n;
		if (g >= (int64_t)k)
			g = (int64_t)k - 1;
		if (out && g == last)
			bin_fold(&h->bins[out - 1], &b);
		else
			h->bins[out++] = b;
		last = g;
	}
	h->nbins = out;
}

/* Merge sorted bins a (na) and b (nb) into a new array; overlapping
 * ranges (only where bins already stand for ranges) are folded. */
static struct tc_hbin *bins_merge(const struct tc_hbin *a, uint32_t na, const struct tc_hbin *b,
				  uint32_t nb, uint32_t *nout)
{
	struct tc_hbin *o = tc_xmalloc(tc_st_mult((size_t)na + nb + 1, sizeof(*o)));
	uint32_t i = 0, j = 0, n = 0;

	while (i < na || j < nb) {
		const struct tc_hbin *x;
		if (j >= nb || (i < na && a[i].lo <= b[j].lo))
			x = &a[i++];
		else
			x = &b[j++];
		if (n && o[n - 1].hi >= x->lo)
			bin_fold(&o[n - 1], x);
		else
			o[n++] = *x;
	}
	*nout = n;
	return o;
}

void tc_hist_add(struct tc_hist *h, int64_t x, uint64_t cnt, int32_t rank, uint32_t maxbins)
{
	struct tc_hbin b = { x, x, cnt, (double)x, 0 };
	struct tc_hbin *nb;
	uint32_t n;

	if (!cnt)
		return;
	hist_extremes(h, x, rank, x, rank);
	h->n += cnt;
	nb = bins_merge(h->bins, h->nbins, &b, 1, &n);
	free(h->bins);
	h->bins = nb;
	h->nbins = n;
	hist_rebin(h, maxbins);
}

void tc_hist_merge(struct tc_hist *h, const struct tc_hist *o, uint32_t maxbins)
{
	struct tc_hbin *nb;
	uint32_t n;

	if (!o->n)
		return;
	hist_extremes(h, o->min, o->min_rank, o->max, o->max_rank);
	h->n += o->n;
	nb = bins_merge(h->bins, h->nbins, o->bins, o->nbins, &n);
	free(h->bins);
	h->bins = nb;
	h->nbins = n;
	hist_rebin(h, maxbins);
	tc_granks_union(&h->ranks, &h->ranks, &o->ranks);
}

void tc_hist_balance(struct tc_hist *h, uint32_t maxbins)
{
	hist_rebin(h, maxbins);
}

void tc_hist_release(struct tc_hist *h)
{
	tc_ranklist_release(&h->ranks);
	free(h->bins);
	memset(h, 0, sizeof(*h));
}

void tc_gt_hist_free(struct tc_hist *h)
{
	if (!h)
		return;
	tc_hist_release(h);
	free(h);
}
