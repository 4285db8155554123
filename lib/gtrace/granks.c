/*
 * granks.c - ranklist helpers of the global trace: union, copy, first rank
 * and normalisation of the ranklists that nodes, variants, histograms and
 * time entries carry.
 */
#include "lib/compat.h"
#include "lib/gtrace/internal.h"
#include "lib/ranklist.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- ranklists --------------------------------------------------------- */

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* Runs of a sorted array, with exactly as much memory as needed. */
static void rl_build(struct tc_ranklist *rl, const int32_t *v, size_t n)
{
	tc_ranklist_release(rl);
	tc_ranklist_from_array(rl, v, n);
	if (rl->nruns && rl->alloc > rl->nruns) {
		rl->runs = tc_xrealloc(rl->runs, rl->nruns * sizeof(*rl->runs));
		rl->alloc = rl->nruns;
	}
}

static int32_t *rl_array(const struct tc_ranklist *rl)
{
	int32_t *v = tc_xmalloc(tc_st_mult(rl->count ? (size_t)rl->count : 1, sizeof(int32_t)));

	tc_ranklist_expand(rl, v);
	return v;
}

void tc_granks_union(struct tc_ranklist *dst, const struct tc_ranklist *a,
		     const struct tc_ranklist *b)
{
	int32_t *x = rl_array(a), *y = rl_array(b);
	size_t na = (size_t)a->count, nb = (size_t)b->count, i = 0, j = 0, k = 0;
	int32_t *v = tc_xmalloc(tc_st_mult(na + nb ? na + nb : 1, sizeof(int32_t)));

	while (i < na || j < nb) {
		int32_t r;
		if (j >= nb || (i < na && x[i] <= y[j]))
			r = x[i++];
		else
			r = y[j++];
		if (!k || v[k - 1] != r)
			v[k++] = r;
	}
	rl_build(dst, v, k);
	free(x);
	free(y);
	free(v);
}

void tc_granks_copy(struct tc_ranklist *dst, const struct tc_ranklist *src)
{
	tc_ranklist_init(dst);
	if (!src->nruns)
		return;
	dst->runs = tc_xmalloc(src->nruns * sizeof(*dst->runs));
	memcpy(dst->runs, src->runs, src->nruns * sizeof(*dst->runs));
	dst->nruns = dst->alloc = src->nruns;
	dst->count = src->count;
}

int32_t tc_granks_first(const struct tc_ranklist *rl)
{
	int32_t best = -1;

	for (size_t i = 0; i < rl->nruns; i++) {
		const struct tc_run *r = &rl->runs[i];
		int64_t last = (int64_t)r->start + (int64_t)r->stride * (r->len - 1);
		int64_t m = r->start < last ? r->start : last;
		if (r->len && (best < 0 || m < best))
			best = (int32_t)m;
	}
	return best;
}

int tc_granks_normalize(struct tc_ranklist *rl)
{
	int32_t *v = rl_array(rl);
	size_t n = (size_t)rl->count;
	int rc = 0;

	qsort(v, n, sizeof(*v), cmp_i32);
	for (size_t i = 1; i < n; i++)
		if (v[i] == v[i - 1])
			rc = -1;
	if (!rc)
		rl_build(rl, v, n);
	free(v);
	return rc;
}
