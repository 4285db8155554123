/*
 * param.c - the parameters of an event node: the TC_GP_* names, fields
 * and kinds, value variants by rank set (ScalaTrace's value -> ranklist
 * vectors, Scala-H-Trace §2.1, §4.3), and below 100% precision their
 * consolidation into a histogram (§4.4).
 */
#include "lib/compat.h"
#include "lib/gtrace/internal.h"
#include "lib/event.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameters -------------------------------------------------------- */

static const struct {
	const char *name;
	uint32_t field;
	uint8_t kind;
	bool hist;
} params[TC_GP_N] = {
	[TC_GP_COMM] = { "comm", TC_F_COMM, TC_GPK_UINT, false },
	[TC_GP_PEER] = { "peer", TC_F_PEER, TC_GPK_PEER, true },
	[TC_GP_TAG] = { "tag", TC_F_TAG, TC_GPK_INT, true },
	[TC_GP_RPEER] = { "rpeer", TC_F_RPEER, TC_GPK_PEER, true },
	[TC_GP_RTAG] = { "rtag", TC_F_RPEER, TC_GPK_INT, true },
	[TC_GP_COUNT] = { "count", TC_F_COUNT, TC_GPK_UINT, true },
	[TC_GP_DTYPE] = { "dtype", TC_F_DTYPE, TC_GPK_DTYPE, false },
	[TC_GP_DTYPE_SIZE] = { "dtype_size", TC_F_DTYPE, TC_GPK_UINT, false },
	[TC_GP_BYTES] = { "bytes", TC_F_BYTES, TC_GPK_UINT, true },
	[TC_GP_REDOP] = { "redop", TC_F_REDOP, TC_GPK_REDOP, false },
	[TC_GP_ROOT] = { "root", TC_F_ROOT, TC_GPK_INT, false },
	[TC_GP_COLOR] = { "color", TC_F_COLOR, TC_GPK_INT, false },
	[TC_GP_KEY] = { "key", TC_F_COLOR, TC_GPK_INT, false },
	[TC_GP_REQUEST] = { "request", TC_F_REQUEST, TC_GPK_REQ, false },
	[TC_GP_NEWCOMM] = { "newcomm", TC_F_NEWCOMM, TC_GPK_UINT, false },
	[TC_GP_FILE] = { "file", TC_F_FILE, TC_GPK_UINT, false },
	[TC_GP_OFFSET] = { "offset", TC_F_FILE, TC_GPK_UINT, true },
	[TC_GP_RESULT] = { "result", TC_F_RESULT, TC_GPK_INT, false },
	[TC_GP_COMPL] = { "compl", TC_F_COMPL, TC_GPK_COMPL, false },
	[TC_GP_SCOUNTS] = { "scounts", TC_F_SCOUNTS, TC_GPK_UARRAY, false },
	[TC_GP_RCOUNTS] = { "rcounts", TC_F_RCOUNTS, TC_GPK_UARRAY, false },
};

const char *tc_gparam_name(unsigned p)
{
	return p < TC_GP_N ? params[p].name : NULL;
}

int tc_gparam_from_name(const char *name)
{
	for (unsigned p = 0; p < TC_GP_N; p++)
		if (!strcmp(params[p].name, name))
			return (int)p;
	return -1;
}

uint32_t tc_gparam_field(unsigned p)
{
	return p < TC_GP_N ? params[p].field : 0;
}

enum tc_gparam_kind tc_gparam_kind(unsigned p)
{
	return p < TC_GP_N ? (enum tc_gparam_kind)params[p].kind : TC_GPK_INT;
}

bool tc_gparam_histable(unsigned p)
{
	return p < TC_GP_N && params[p].hist;
}
/* ---- parameters of a node ---------------------------------------------- */

static void var_release(struct tc_gvar *v)
{
	tc_ranklist_release(&v->ranks);
	tc_gval_release(&v->val);
	tc_gseq_free(v->seq);
	v->seq = NULL;
}

void tc_gt_param_release(struct tc_gparam *gp)
{
	for (uint32_t i = 0; i < gp->nvar; i++)
		var_release(&gp->var[i]);
	free(gp->var);
	tc_gt_hist_free(gp->hist);
	memset(gp, 0, sizeof(*gp));
}

struct tc_gvar *tc_gt_param_push(struct tc_gparam *gp)
{
	struct tc_gvar *v;

	gp->var = tc_xrealloc(gp->var, tc_st_mult(gp->nvar + 1, sizeof(*gp->var)));
	v = &gp->var[gp->nvar++];
	memset(v, 0, sizeof(*v));
	v->val.n = TC_GVAL_ABSENT;
	return v;
}

static bool var_same_values(const struct tc_gvar *a, const struct tc_gvar *b)
{
	if (!a->seq != !b->seq)
		return false;
	return a->seq ? tc_gseq_equal(a->seq, b->seq) : tc_gval_equal(&a->val, &b->val);
}

/* Move src's variants and histogram into dst (src is left empty). */
void tc_gt_param_merge(struct tc_gparam *dst, struct tc_gparam *src)
{
	for (uint32_t i = 0; i < src->nvar; i++) {
		struct tc_gvar *s = &src->var[i], *d = NULL;
		for (uint32_t k = 0; k < dst->nvar && !d; k++)
			if (var_same_values(&dst->var[k], s))
				d = &dst->var[k];
		if (d) {
			tc_granks_union(&d->ranks, &d->ranks, &s->ranks);
			d->occ += s->occ;
			var_release(s);
			continue;
		}
		d = tc_gt_param_push(dst);
		*d = *s;
	}
	free(src->var);
	src->var = NULL;
	src->nvar = 0;
	if (src->hist) {
		if (dst->hist) {
			tc_hist_merge(dst->hist, src->hist, TC_HIST_FINE);
			tc_gt_hist_free(src->hist);
		} else {
			dst->hist = src->hist;
		}
		src->hist = NULL;
	}
}

static bool val_histable(const struct tc_gval *v, enum tc_gparam_kind kind)
{
	if (v->n != 1)
		return false;
	if (kind == TC_GPK_PEER && !tc_rel_is_rank(v->w))
		return false;
	return true;
}

struct scan {
	enum tc_gparam_kind kind;
	bool ok;
	bool any;
	int64_t min, max;
};

static void scan_val(void *ctx, const struct tc_gval *v, uint64_t n)
{
	struct scan *s = ctx;

	(void)n;
	if (!val_histable(v, s->kind)) {
		s->ok = false;
		return;
	}
	if (!s->any || v->w < s->min)
		s->min = v->w;
	if (!s->any || v->w > s->max)
		s->max = v->w;
	s->any = true;
}

struct fill {
	struct tc_hist *h;
	uint64_t ranks;
	int32_t first;
	uint32_t bins;
};

static void fill_val(void *ctx, const struct tc_gval *v, uint64_t n)
{
	struct fill *f = ctx;

	tc_hist_add(f->h, v->w, n * f->ranks, f->first, TC_HIST_FINE);
}

/*
 * Scala-H-Trace §4.4: where the values of a parameter differ, and all of
 * them lie within the precision (max - min <= (100 - p)% of the larger
 * magnitude; any values at p = 0), they go into the histogram from here
 * on; otherwise they stay exact ("we fall back to lossless tracing").
 * Values that cannot be binned (absent, arrays, special peers) stay exact.
 */
void tc_gt_param_consolidate(struct tc_gparam *gp, enum tc_gparam_kind kind,
			     const struct tc_merge_opts *o)
{
	struct scan all = { kind, true, false, 0, 0 };
	bool *ok;
	uint32_t nok = 0, k;
	double tol, mag;

	if (o->precision >= 100 || !gp->nvar)
		return;
	if (!gp->hist && gp->nvar == 1 && !gp->var[0].seq)
		return;
	ok = tc_xcalloc(gp->nvar, sizeof(*ok));
	for (uint32_t i = 0; i < gp->nvar; i++) {
		struct scan s = { kind, true, false, 0, 0 };
		if (gp->var[i].seq)
			tc_gt_seq_visit(gp->var[i].seq, 1, scan_val, &s);
		else
			scan_val(&s, &gp->var[i].val, 1);
		if (!s.ok || !s.any)
			continue;
		ok[i] = true;
		nok++;
		if (!all.any || s.min < all.min)
			all.min = s.min;
		if (!all.any || s.max > all.max)
			all.max = s.max;
		all.any = true;
	}
	/* a histogram starts at the first mismatch (§4.4) */
	if (!nok || (!gp->hist && all.min == all.max)) {
		free(ok);
		return;
	}
	if (gp->hist) {
		if (gp->hist->min < all.min)
			all.min = gp->hist->min;
		if (gp->hist->max > all.max)
			all.max = gp->hist->max;
	}
	tol = (100.0 - o->precision) / 100.0;
	mag = fmax(fabs((double)all.min), fabs((double)all.max));
	if (o->precision > 0 && (double)all.max - (double)all.min > tol * mag) {
		free(ok);
		return;
	}
	if (!gp->hist)
		gp->hist = tc_xcalloc(1, sizeof(*gp->hist));
	for (uint32_t i = 0; i < gp->nvar; i++) {
		struct fill f;
		if (!ok[i])
			continue;
		f.h = gp->hist;
		f.ranks = gp->var[i].ranks.count;
		f.first = tc_granks_first(&gp->var[i].ranks);
		f.bins = o->bins;
		if (gp->var[i].seq) {
			tc_gt_seq_visit(gp->var[i].seq, 1, fill_val, &f);
		} else {
			/* one value for every occurrence of every rank */
			f.ranks = 1;
			fill_val(&f, &gp->var[i].val,
				 gp->var[i].occ ? gp->var[i].occ : gp->var[i].ranks.count);
		}
		tc_granks_union(&gp->hist->ranks, &gp->hist->ranks, &gp->var[i].ranks);
	}
	for (uint32_t i = 0, k2 = 0; i < gp->nvar; i++) {
		if (ok[i]) {
			var_release(&gp->var[i]);
			continue;
		}
		gp->var[k2++] = gp->var[i];
	}
	k = gp->nvar - nok;
	gp->nvar = k;
	if (!gp->nvar) {
		free(gp->var);
		gp->var = NULL;
	}
	free(ok);
}

/* The smallest value of a one-word parameter (loop counts), at least 1. */
uint64_t tc_gt_param_min(const struct tc_gparam *gp)
{
	uint64_t m = UINT64_MAX;

	for (uint32_t i = 0; i < gp->nvar; i++)
		if (!gp->var[i].seq && gp->var[i].val.n == 1 && (uint64_t)gp->var[i].val.w < m)
			m = (uint64_t)gp->var[i].val.w;
	if (gp->hist && gp->hist->n && (uint64_t)gp->hist->min < m)
		m = (uint64_t)gp->hist->min;
	return m == UINT64_MAX || m == 0 ? 1 : m;
}
