/*
 * diff.c - comparison of two runs of the same program, one rank (or one
 * lead) at a time: the two event sequences are aligned (Weber slide 3:
 * "default vs. optimized application run", and Weber et al.,
 * "Alignment-Based Metrics for Trace Comparison", Euro-Par 2013), and
 * every matched pair of events gets its time difference.
 *
 * The time of an event is the compute time before it (since the end of
 * the previous event of the rank) plus the time inside the call, so that
 * the deltas of the matched events and the times of the unmatched ones
 * add up to the difference of the two ranks' spans.
 */
#include "lib/compat.h"
#include "align/align.h"
#include "lib/error.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

static int64_t sdiff(uint64_t b, uint64_t a)
{
	return b >= a ? (int64_t)(b - a) : -(int64_t)(a - b);
}

static uint64_t mag(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* Larger |delta| first, then the earlier column. */
static int cmp_delta(const void *x, const void *y)
{
	const struct tc_diff_delta *p = x, *q = y;
	uint64_t a = mag(p->delta), b = mag(q->delta);

	if (a != b)
		return a > b ? -1 : 1;
	return (p->col > q->col) - (p->col < q->col);
}

static uint64_t span(const struct tc_aseq *s)
{
	uint64_t end = 0;

	if (!s->n)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->ev[i].t_end > end)
			end = s->ev[i].t_end;
	return end - s->ev[0].t_start;
}

int tc_diff_rank(const struct tc_aseq *a, const struct tc_aseq *b,
		 const struct tc_diff_opts *o, struct tc_diff_rank *d, struct tc_error *err)
{
	struct tc_diff_delta *all = NULL;
	size_t nall = 0, aall = 0, i = 0, j = 0;
	bool relative = a->rank != b->rank;
	int rc;

	memset(d, 0, sizeof(*d));
	tc_alignment_init(&d->al);
	d->rank_a = a->rank;
	d->rank_b = b->rank;
	d->events_a = a->n;
	d->events_b = b->n;
	d->span_a = span(a);
	d->span_b = span(b);
	d->first_div = d->first_div_a = d->first_div_b = SIZE_MAX;
	rc = tc_align_pair(a->sym, a->n, b->sym, b->n, &o->score, o->engine, &d->al, err);
	if (rc)
		return rc;
	for (size_t c = 0; c < d->al.ncols; c++) {
		unsigned char k = d->al.col[c];

		if (k != TC_ACOL_MATCH && d->first_div == SIZE_MAX) {
			d->first_div = c;
			d->first_div_a = k == TC_ACOL_ONLY_B ? SIZE_MAX : i;
			d->first_div_b = k == TC_ACOL_ONLY_A ? SIZE_MAX : j;
		}
		switch (k) {
		case TC_ACOL_MATCH: {
			struct tc_diff_delta x;
			uint64_t ta = tc_aseq_comp_ns(a, i) + tc_aseq_call_ns(a, i);
			uint64_t tb = tc_aseq_comp_ns(b, j) + tc_aseq_call_ns(b, j);
			x.col = c;
			x.a = i;
			x.b = j;
			x.delta = sdiff(tb, ta);
			x.delta_call = sdiff(tc_aseq_call_ns(b, j), tc_aseq_call_ns(a, i));
			d->delta_total += x.delta;
			d->delta_call += x.delta_call;
			if (!tc_aseq_params_equal(a, i, b, j, relative))
				d->param_diffs++;
			if (o->top) {
				TC_ALLOC_GROW(all, nall + 1, aall);
				all[nall++] = x;
			}
			i++;
			j++;
			break;
		}
		case TC_ACOL_MISMATCH:
			d->unmatched_a_ns += tc_aseq_comp_ns(a, i) + tc_aseq_call_ns(a, i);
			d->unmatched_b_ns += tc_aseq_comp_ns(b, j) + tc_aseq_call_ns(b, j);
			i++;
			j++;
			break;
		case TC_ACOL_ONLY_A:
			d->unmatched_a_ns += tc_aseq_comp_ns(a, i) + tc_aseq_call_ns(a, i);
			i++;
			break;
		default:
			d->unmatched_b_ns += tc_aseq_comp_ns(b, j) + tc_aseq_call_ns(b, j);
			j++;
			break;
		}
	}
	if (nall) {
		qsort(all, nall, sizeof(*all), cmp_delta);
		d->ntop = TC_MIN(nall, o->top);
		d->top = tc_xrealloc(all, d->ntop * sizeof(*all));
	} else {
		free(all);
	}
	return 0;
}

void tc_diff_rank_release(struct tc_diff_rank *d)
{
	tc_alignment_release(&d->al);
	free(d->top);
	d->top = NULL;
	d->ntop = 0;
}
