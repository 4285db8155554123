/*
 * skew.c - the ranks of one host on one clock (skew.h).
 */
#include "lib/compat.h"
#include "lib/skew.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

bool tc_clock_skews(size_t n, const uint64_t *start, const uint64_t *first_end, uint64_t *skew)
{
	uint64_t first = UINT64_MAX, left = UINT64_MAX;

	if (!n)
		return false;
	for (size_t r = 0; r < n; r++) {
		if (!start[r])
			return false;
		if (start[r] < first)
			first = start[r];
	}
	/* rank r left its first event at start[r] - first + first_end[r] on
	 * the shared clock; the first to leave is time 0 */
	for (size_t r = 0; r < n; r++) {
		uint64_t off = start[r] - first;
		if (first_end[r] > UINT64_MAX - off)
			return false;
		if (off + first_end[r] < left)
			left = off + first_end[r];
	}
	/* each rank's MPI_Init ends with the others', so none started after
	 * the first left it: a clock that says otherwise is not shared */
	for (size_t r = 0; r < n; r++)
		if (start[r] - first > left || start[r] - first + first_end[r] - left > TC_SKEW_MAX_NS)
			return false;
	for (size_t r = 0; r < n; r++)
		skew[r] = start[r] - first + first_end[r] - left;
	return true;
}

const char *tc_skew_check(const uint64_t *skew, size_t n)
{
	bool zero = false;

	for (size_t r = 0; r < n; r++) {
		if (skew[r] > TC_SKEW_MAX_NS)
			return "a skew beyond 10^13 ns";
		zero = zero || !skew[r];
	}
	return zero || !n ? NULL : "no rank's skew is 0";
}

struct edge {
	int64_t t;
	int d;                    /* +1: a gap starts, -1: one ends */
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d);
}

size_t tc_gap_concurrency(const int64_t *gaps, size_t n, uint64_t *ns, size_t max)
{
	struct edge *e = tc_xmalloc(tc_st_mult(n ? 2 * n : 1, sizeof(*e)));
	size_t ne = 0, top = 0;
	long k = 0;

	memset(ns, 0, max * sizeof(*ns));
	for (size_t j = 0; j < n; j++) {
		if (gaps[2 * j + 1] <= gaps[2 * j])
			continue;
		e[ne++] = (struct edge){ gaps[2 * j], 1 };
		e[ne++] = (struct edge){ gaps[2 * j + 1], -1 };
	}
	qsort(e, ne, sizeof(*e), edge_cmp);
	for (size_t i = 0; i < ne; i++) {
		if (i && k > 0 && max && e[i].t > e[i - 1].t) {
			size_t at = (size_t)k < max ? (size_t)k : max;
			ns[at - 1] += (uint64_t)(e[i].t - e[i - 1].t);
			if (at > top)
				top = at;
		}
		k += e[i].d;
	}
	free(e);
	return top;
}

const char *tc_conc_check(const uint64_t *ns, size_t n, int32_t world)
{
	if (!n || world < 1 || n > (size_t)world)
		return "expected 1 to world-size numbers";
	return ns[n - 1] ? NULL : "the last is 0";
}
