/*
 * merge.c - the global compressed trace: lead traces merged across ranks.
 *
 * The inter-node merge is Scala-H-Trace's recursive loop-matching merge
 * (Wu et al., §3, Alg. 1) with the weighted longest common subsequence:
 * two node sequences are aligned by a WLCS whose weight for a pair of
 * events with the same MPI op and call site is 1 and for a pair of loops
 * is the WLCS of their bodies times the smaller iteration count ("matching
 * loop structures are evaluated with a weight that is equal to the length
 * of their longest common subsequence", §3), so that a long matching loop
 * wins over a stray event (the abbbbb/bbbbba example of §3). Matched
 * events become one node for the ranks of both, matched loops one loop
 * whose bodies are merged the same way, recursively (MATCH_LOOP); the
 * unmatched nodes between two matches are linked in, first side first
 * (DO_MERGE). Parameters are matched by call site, as ScalaTrace does, and
 * where they differ the node keeps a value -> ranklist vector (§2.1, §4.3),
 * so at 100% precision nothing is lost. Below 100%, values of a parameter
 * (or loop counts, §4.1-4.2) that differ by no more than the precision go
 * into a histogram (§4.4); at 0% every mismatch does.
 *
 * Cost: common prefixes and suffixes of structurally equal nodes are
 * matched without the quadratic table, so similar traces merge in about
 * linear time (§3: "in practice ... O(n)"); a table larger than
 * WLCS_MAX_CELLS falls back to a greedy forward match with bounded
 * look-ahead.
 */
#include "compat.h"
#include "merge.h"
#include "event.h"
#include "hash.h"
#include "pool.h"
#include "ranklist.h"
#include "rsd.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WLCS_MAX_CELLS ((size_t)1 << 22)
#define GREEDY_LOOKAHEAD 64

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

/* ---- values ------------------------------------------------------------ */

bool tc_gval_equal(const struct tc_gval *a, const struct tc_gval *b)
{
	if (a->n != b->n)
		return false;
	if (a->n == TC_GVAL_ABSENT || a->n == 0)
		return true;
	if (a->n == 1)
		return a->w == b->w;
	return !memcmp(a->v, b->v, (size_t)a->n * sizeof(int64_t));
}

void tc_gval_set(struct tc_gval *x, uint32_t n, const int64_t *words)
{
	x->n = n;
	x->w = 0;
	x->v = NULL;
	if (n == 1) {
		x->w = words[0];
	} else if (n != TC_GVAL_ABSENT && n > 1) {
		x->v = tc_xmalloc(tc_st_mult(n, sizeof(int64_t)));
		memcpy(x->v, words, (size_t)n * sizeof(int64_t));
	}
}

void tc_gval_release(struct tc_gval *x)
{
	free(x->v);
	x->v = NULL;
	x->n = TC_GVAL_ABSENT;
	x->w = 0;
}

static void gval_copy(struct tc_gval *dst, const struct tc_gval *src)
{
	tc_gval_set(dst, src->n, tc_gval_words(src));
}

/* ---- value sequences --------------------------------------------------- */

struct tc_gseq *tc_gseq_new(void)
{
	return tc_xcalloc(1, sizeof(struct tc_gseq));
}

void tc_gseq_free(struct tc_gseq *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n; i++) {
		if (s->e[i].chunk)
			tc_gseq_free(s->e[i].chunk);
		else
			tc_gval_release(&s->e[i].val);
	}
	free(s->e);
	free(s);
}

static struct tc_gseq_ent *seq_push(struct tc_gseq *s)
{
	struct tc_gseq_ent *e;

	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 2;
		s->e = tc_xrealloc(s->e, tc_st_mult(s->alloc, sizeof(*s->e)));
	}
	e = &s->e[s->n++];
	memset(e, 0, sizeof(*e));
	e->val.n = TC_GVAL_ABSENT;
	return e;
}

static bool seq_ent_equal(const struct tc_gseq_ent *x, const struct tc_gseq_ent *y);
static void seq_ent_release(struct tc_gseq_ent *e);

static uint64_t ent_len(const struct tc_gseq_ent *e)
{
	return e->reps * (e->chunk ? e->chunk->len : 1);
}

static bool ents_equal(const struct tc_gseq_ent *a, const struct tc_gseq_ent *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (!seq_ent_equal(&a[i], &b[i]))
			return false;
	return true;
}

/* One folding step at the tail of s (see TC_GSEQ_WINDOW); false when
 * nothing matches. */
static bool seq_fold_step(struct tc_gseq *s)
{
	uint32_t n = s->n;

	for (uint32_t d = 1; d <= TC_GSEQ_WINDOW && d < n; d++) {
		struct tc_gseq_ent *j = &s->e[n - 1 - d];
		/* the last d entries are one more repetition of chunk j */
		if (j->chunk && j->chunk->n == d && ents_equal(j->chunk->e, &s->e[n - d], d)) {
			for (uint32_t k = n - d; k < n; k++)
				seq_ent_release(&s->e[k]);
			s->n = n - d;
			j->reps++;
			j->end = s->len;
			return true;
		}
		/* the last 2d entries are two repetitions of d entries */
		if (d >= 2 && 2 * d <= n && ents_equal(&s->e[n - 2 * d], &s->e[n - d], d)) {
			struct tc_gseq *c = tc_gseq_new();
			struct tc_gseq_ent *e;
			uint64_t before = n > 2 * d ? s->e[n - 2 * d - 1].end : 0;
			c->e = tc_xmalloc(tc_st_mult(d, sizeof(*c->e)));
			c->n = c->alloc = d;
			memcpy(c->e, &s->e[n - 2 * d], d * sizeof(*c->e));
			for (uint32_t k = 0; k < d; k++) {
				c->len += ent_len(&c->e[k]);
				c->e[k].end = c->len;
			}
			for (uint32_t k = n - d; k < n; k++)
				seq_ent_release(&s->e[k]);
			s->n = n - 2 * d;
			e = seq_push(s);
			e->chunk = c;
			e->reps = 2;
			e->end = before + 2 * c->len;
			return true;
		}
	}
	return false;
}

static void seq_fold(struct tc_gseq *s)
{
	while (seq_fold_step(s))
		;
}

void tc_gseq_add_val(struct tc_gseq *s, const struct tc_gval *v, uint64_t reps)
{
	struct tc_gseq_ent *e = s->n ? &s->e[s->n - 1] : NULL;

	if (!reps)
		return;
	if (!e || e->chunk || !tc_gval_equal(&e->val, v)) {
		e = seq_push(s);
		gval_copy(&e->val, v);
	}
	e->reps += reps;
	s->len += reps;
	e->end = s->len;
	seq_fold(s);
}

static bool seq_ent_equal(const struct tc_gseq_ent *x, const struct tc_gseq_ent *y)
{
	if (x->reps != y->reps || !x->chunk != !y->chunk)
		return false;
	return x->chunk ? tc_gseq_equal(x->chunk, y->chunk) : tc_gval_equal(&x->val, &y->val);
}

static void seq_ent_release(struct tc_gseq_ent *e)
{
	if (e->chunk)
		tc_gseq_free(e->chunk);
	else
		tc_gval_release(&e->val);
	e->chunk = NULL;
}

/* Whether s ends with the entries of c (its first entry may be the tail
 * of a longer run of the same value). */
static bool seq_tail_is(const struct tc_gseq *s, const struct tc_gseq *c)
{
	const struct tc_gseq_ent *first;

	if (c->n < 2 || s->n < c->n)
		return false;
	for (uint32_t k = 1; k < c->n; k++)
		if (!seq_ent_equal(&s->e[s->n - c->n + k], &c->e[k]))
			return false;
	first = &s->e[s->n - c->n];
	if (c->e[0].chunk || first->chunk)
		return seq_ent_equal(first, &c->e[0]);
	return tc_gval_equal(&first->val, &c->e[0].val) && first->reps >= c->e[0].reps;
}

void tc_gseq_add_chunk(struct tc_gseq *s, struct tc_gseq *c, uint64_t reps)
{
	struct tc_gseq_ent *e;

	if (!reps || !c->len) {
		tc_gseq_free(c);
		return;
	}
	if (c->n == 1) {
		/* a chunk of one entry is that entry repeated */
		struct tc_gseq_ent *x = &c->e[0];
		uint64_t r = reps * x->reps;
		if (!x->chunk) {
			tc_gseq_add_val(s, &x->val, r);
			tc_gseq_free(c);
			return;
		}
		{
			struct tc_gseq *inner = x->chunk;
			x->chunk = NULL;
			tc_gseq_free(c);
			tc_gseq_add_chunk(s, inner, r);
			return;
		}
	}
	if (seq_tail_is(s, c)) {
		/* s ends with one more repetition of c: fold it in */
		struct tc_gseq_ent *first = &s->e[s->n - c->n];
		if (!first->chunk && first->reps > c->e[0].reps) {
			first->reps -= c->e[0].reps;
			first->end -= c->e[0].reps;
			for (uint32_t k = s->n - c->n + 1; k < s->n; k++)
				seq_ent_release(&s->e[k]);
			s->n -= c->n - 1;
		} else {
			for (uint32_t k = s->n - c->n; k < s->n; k++)
				seq_ent_release(&s->e[k]);
			s->n -= c->n;
		}
		s->len -= c->len;
		tc_gseq_add_chunk(s, c, reps + 1);
		return;
	}
	e = s->n ? &s->e[s->n - 1] : NULL;
	if (e && e->chunk && tc_gseq_equal(e->chunk, c)) {
		e->reps += reps;
		s->len += c->len * reps;
		e->end = s->len;
		tc_gseq_free(c);
		seq_fold(s);
		return;
	}
	e = seq_push(s);
	e->chunk = c;
	e->reps = reps;
	s->len += c->len * reps;
	e->end = s->len;
	seq_fold(s);
}

const struct tc_gval *tc_gseq_at(const struct tc_gseq *s, uint64_t occ)
{
	if (!s->len)
		return NULL;
	occ %= s->len;
	for (;;) {
		uint32_t lo = 0, hi = s->n - 1;
		const struct tc_gseq_ent *e;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (s->e[mid].end > occ)
				hi = mid;
			else
				lo = mid + 1;
		}
		e = &s->e[lo];
		if (!e->chunk)
			return &e->val;
		occ = (occ - (lo ? s->e[lo - 1].end : 0)) % e->chunk->len;
		s = e->chunk;
	}
}

bool tc_gseq_equal(const struct tc_gseq *a, const struct tc_gseq *b)
{
	if (a->n != b->n || a->len != b->len)
		return false;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct tc_gseq_ent *x = &a->e[i], *y = &b->e[i];
		if (x->reps != y->reps || !x->chunk != !y->chunk)
			return false;
		if (x->chunk ? !tc_gseq_equal(x->chunk, y->chunk) : !tc_gval_equal(&x->val, &y->val))
			return false;
	}
	return true;
}

/* Call fn for every value with how many occurrences it stands for. */
typedef void (*seq_visit_fn)(void *ctx, const struct tc_gval *v, uint64_t n);

static void seq_visit(const struct tc_gseq *s, uint64_t mult, seq_visit_fn fn, void *ctx)
{
	for (uint32_t i = 0; i < s->n; i++) {
		uint64_t m = mult * s->e[i].reps;
		if (s->e[i].chunk)
			seq_visit(s->e[i].chunk, m, fn, ctx);
		else
			fn(ctx, &s->e[i].val, m);
	}
}

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

static void hist_free(struct tc_hist *h)
{
	if (!h)
		return;
	tc_hist_release(h);
	free(h);
}

/* ---- parameters of a node ---------------------------------------------- */

static void var_release(struct tc_gvar *v)
{
	tc_ranklist_release(&v->ranks);
	tc_gval_release(&v->val);
	tc_gseq_free(v->seq);
	v->seq = NULL;
}

static void param_release(struct tc_gparam *gp)
{
	for (uint32_t i = 0; i < gp->nvar; i++)
		var_release(&gp->var[i]);
	free(gp->var);
	hist_free(gp->hist);
	memset(gp, 0, sizeof(*gp));
}

static struct tc_gvar *param_push(struct tc_gparam *gp)
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
static void param_merge(struct tc_gparam *dst, struct tc_gparam *src)
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
		d = param_push(dst);
		*d = *s;
	}
	free(src->var);
	src->var = NULL;
	src->nvar = 0;
	if (src->hist) {
		if (dst->hist) {
			tc_hist_merge(dst->hist, src->hist, TC_HIST_FINE);
			hist_free(src->hist);
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
static void param_consolidate(struct tc_gparam *gp, enum tc_gparam_kind kind,
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
			seq_visit(gp->var[i].seq, 1, scan_val, &s);
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
			seq_visit(gp->var[i].seq, 1, fill_val, &f);
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
static uint64_t param_min(const struct tc_gparam *gp)
{
	uint64_t m = UINT64_MAX;

	for (uint32_t i = 0; i < gp->nvar; i++)
		if (!gp->var[i].seq && gp->var[i].val.n == 1 && (uint64_t)gp->var[i].val.w < m)
			m = (uint64_t)gp->var[i].val.w;
	if (gp->hist && gp->hist->n && (uint64_t)gp->hist->min < m)
		m = (uint64_t)gp->hist->min;
	return m == UINT64_MAX || m == 0 ? 1 : m;
}

/* ---- nodes ------------------------------------------------------------- */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

void tc_gtime_release(struct tc_gtime *t)
{
	tc_ranklist_release(&t->ranks);
}

static void node_release(struct tc_gnode *nd)
{
	tc_ranklist_release(&nd->ranks);
	for (uint32_t i = 0; i < nd->ntimes; i++)
		tc_gtime_release(&nd->times[i]);
	free(nd->times);
	nd->times = NULL;
	nd->ntimes = 0;
	for (uint32_t i = 0; i < nd->nbody; i++)
		node_release(&nd->body[i]);
	free(nd->body);
	nd->body = NULL;
	nd->nbody = 0;
	param_release(&nd->iters);
	if (nd->p) {
		for (unsigned p = 0; p < TC_GP_N; p++)
			param_release(&nd->p[p]);
		free(nd->p);
		nd->p = NULL;
	}
}

/* Shape hash and WLCS weight from op/site or the body. */
static void node_update(struct tc_gnode *nd)
{
	uint64_t w = 0, h;

	if (!nd->nbody) {
		nd->shape = tc_hash_mix(tc_hash_mix(0x6576656e74ULL, nd->op), nd->stack);
		nd->weight = 1;
		return;
	}
	h = tc_hash_mix(0x6c6f6f70ULL, nd->nbody);
	for (uint32_t i = 0; i < nd->nbody; i++) {
		h = tc_hash_mix(h, nd->body[i].shape);
		w = sat_add(w, nd->body[i].weight);
	}
	nd->shape = h;
	nd->weight = sat_mul(w, param_min(&nd->iters));
}

/* Same op and call site / same loop nesting, counts and values aside. */
static bool shape_equal(const struct tc_gnode *a, const struct tc_gnode *b)
{
	if (a->shape != b->shape || a->nbody != b->nbody)
		return false;
	if (!a->nbody)
		return a->op == b->op && a->stack == b->stack;
	for (uint32_t i = 0; i < a->nbody; i++)
		if (!shape_equal(&a->body[i], &b->body[i]))
			return false;
	return true;
}

/* ---- conversion of a lead's compressed sequence ------------------------ */

struct conv {
	const struct tc_rsd *rsd;
	const struct tc_ranklist *ranks;
	const struct tc_merge_opts *opts;
	/* walk state: stack of sequences being built and their repetitions */
	struct tc_gseq **stack;
	uint64_t *reps;
	size_t depth, alloc;
};

/* Parameter p of event e as a value. */
static void event_param(const struct tc_rsd_event *e, unsigned p, struct tc_gval *out)
{
	int64_t w[2];

	out->n = TC_GVAL_ABSENT;
	out->w = 0;
	out->v = NULL;
	if (!(e->fields & params[p].field))
		return;
	switch (p) {
	case TC_GP_COMM: w[0] = e->comm; break;
	case TC_GP_PEER: w[0] = e->peer; break;
	case TC_GP_TAG: w[0] = e->tag; break;
	case TC_GP_RPEER: w[0] = e->rpeer; break;
	case TC_GP_RTAG: w[0] = e->rtag; break;
	case TC_GP_COUNT: w[0] = (int64_t)e->count; break;
	case TC_GP_DTYPE: w[0] = e->dtype; break;
	case TC_GP_DTYPE_SIZE: w[0] = e->dtype_size; break;
	case TC_GP_BYTES: w[0] = (int64_t)e->bytes; break;
	case TC_GP_REDOP: w[0] = e->redop; break;
	case TC_GP_ROOT: w[0] = e->root; break;
	case TC_GP_COLOR: w[0] = e->color; break;
	case TC_GP_KEY: w[0] = e->key; break;
	case TC_GP_REQUEST: w[0] = e->request; break;
	case TC_GP_NEWCOMM: w[0] = e->newcomm; break;
	case TC_GP_FILE: w[0] = e->file; break;
	case TC_GP_OFFSET: w[0] = (int64_t)e->offset; break;
	case TC_GP_RESULT: w[0] = e->result; break;
	case TC_GP_COMPL: {
		int64_t *v = NULL;
		uint32_t n = e->ncompl;
		if (n) {
			v = tc_xmalloc(tc_st_mult(tc_st_mult(n, 4), sizeof(int64_t)));
			for (uint32_t i = 0; i < n; i++) {
				v[4 * i] = e->compl[i].request;
				v[4 * i + 1] = e->compl[i].source;
				v[4 * i + 2] = e->compl[i].tag;
				v[4 * i + 3] = (int64_t)e->compl[i].bytes;
			}
		}
		tc_gval_set(out, 4 * n, v);
		free(v);
		return;
	}
	case TC_GP_SCOUNTS:
	case TC_GP_RCOUNTS: {
		uint32_t n = p == TC_GP_SCOUNTS ? e->nscounts : e->nrcounts;
		const uint64_t *c = p == TC_GP_SCOUNTS ? e->scounts : e->rcounts;
		int64_t *v = n ? tc_xmalloc(tc_st_mult(n, sizeof(int64_t))) : NULL;
		for (uint32_t i = 0; i < n; i++)
			v[i] = (int64_t)c[i];
		tc_gval_set(out, n, v);
		free(v);
		return;
	}
	default:
		return;
	}
	tc_gval_set(out, 1, w);
}

static void walk_run(void *ctx, uint32_t event, uint64_t reps)
{
	struct conv *c = ctx;
	struct tc_gval v = { 1, (int64_t)event, NULL };

	tc_gseq_add_val(c->stack[c->depth - 1], &v, reps);
}

static void walk_begin(void *ctx, uint64_t reps)
{
	struct conv *c = ctx;

	if (c->depth + 1 > c->alloc) {
		size_t a = c->alloc;
		TC_ALLOC_GROW(c->stack, c->depth + 1, a);
		c->reps = tc_xrealloc(c->reps, tc_st_mult(a, sizeof(*c->reps)));
		c->alloc = a;
	}
	c->stack[c->depth] = tc_gseq_new();
	c->reps[c->depth] = reps;
	c->depth++;
}

static void walk_end(void *ctx)
{
	struct conv *c = ctx;
	struct tc_gseq *s = c->stack[--c->depth];

	tc_gseq_add_chunk(c->stack[c->depth - 1], s, c->reps[c->depth]);
}

/* The sequence of parameter p over a sequence of event indices. */
static struct tc_gseq *project(const struct tc_rsd *rsd, const struct tc_gseq *ids, unsigned p)
{
	struct tc_gseq *out = tc_gseq_new();

	for (uint32_t i = 0; i < ids->n; i++) {
		const struct tc_gseq_ent *e = &ids->e[i];
		struct tc_gval v;
		if (e->chunk) {
			tc_gseq_add_chunk(out, project(rsd, e->chunk, p), e->reps);
			continue;
		}
		event_param(tc_rsd_event(rsd, (uint32_t)e->val.w), p, &v);
		tc_gseq_add_val(out, &v, e->reps);
		tc_gval_release(&v);
	}
	return out;
}

/* Set param from a value sequence (stolen): one variant for every rank. */
static void param_from_seq(struct tc_gparam *gp, struct tc_gseq *s, const struct tc_ranklist *ranks)
{
	struct tc_gvar *v;

	if (!s->n || (s->n == 1 && !s->e[0].chunk && s->e[0].val.n == TC_GVAL_ABSENT)) {
		tc_gseq_free(s);
		return;
	}
	v = param_push(gp);
	tc_granks_copy(&v->ranks, ranks);
	v->occ = s->len * ranks->count;
	if (s->n == 1 && !s->e[0].chunk) {
		v->val = s->e[0].val;
		s->e[0].val.v = NULL;
		s->e[0].val.n = TC_GVAL_ABSENT;
		tc_gseq_free(s);
		return;
	}
	v->seq = s;
}

static void conv_event(struct conv *c, const struct tc_rsd_node *nd, struct tc_gnode *g)
{
	static const struct tc_rsd_walk_ops ops = { walk_run, walk_begin, walk_end };
	const struct tc_rsd_event *e0 = tc_rsd_event(c->rsd, nd->event);
	struct tc_gseq *ids = NULL;

	g->op = e0->op;
	g->stack = e0->stack;
	g->p = tc_xcalloc(TC_GP_N, sizeof(*g->p));
	g->comp = nd->comp;
	g->comm = nd->comm;
	g->times = tc_xcalloc(1, sizeof(*g->times));
	g->ntimes = 1;
	tc_granks_copy(&g->times[0].ranks, c->ranks);
	g->times[0].comp = nd->comp;
	g->times[0].comm = nd->comm;
	if (nd->vals) {
		c->depth = 0;
		walk_begin(c, 1);
		tc_rsd_node_walk(nd, &ops, c);
		ids = c->stack[0];
		c->depth = 0;
	}
	for (unsigned p = 0; p < TC_GP_N; p++) {
		struct tc_gseq *s;
		if (ids) {
			s = project(c->rsd, ids, p);
		} else {
			struct tc_gval v;
			event_param(e0, p, &v);
			s = tc_gseq_new();
			tc_gseq_add_val(s, &v, nd->comp.n ? nd->comp.n : 1);
			tc_gval_release(&v);
		}
		param_from_seq(&g->p[p], s, c->ranks);
		param_consolidate(&g->p[p], tc_gparam_kind(p), c->opts);
	}
	tc_gseq_free(ids);
}

static void conv_seq(struct conv *c, const struct tc_rsd_node *seq, size_t n, uint64_t mult,
		     struct tc_gnode *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct tc_rsd_node *nd = &seq[i];
		struct tc_gnode *g = &out[i];
		memset(g, 0, sizeof(*g));
		tc_granks_copy(&g->ranks, c->ranks);
		if (!nd->nbody) {
			conv_event(c, nd, g);
		} else {
			struct tc_gval it = { 1, (int64_t)nd->iters, NULL };
			struct tc_gvar *v = param_push(&g->iters);
			tc_granks_copy(&v->ranks, c->ranks);
			v->val = it;
			v->occ = sat_mul(mult, c->ranks->count);
			g->nbody = nd->nbody;
			g->body = tc_xmalloc(tc_st_mult(nd->nbody, sizeof(*g->body)));
			conv_seq(c, nd->body, nd->nbody, sat_mul(mult, nd->iters), g->body);
		}
		node_update(g);
	}
}

static void merge_opts_fix(struct tc_merge_opts *o, const struct tc_merge_opts *in)
{
	if (in)
		*o = *in;
	else
		memset(o, 0, sizeof(*o));
	if (!in || !(o->precision >= 0 && o->precision <= 100))
		o->precision = 100;
	if (!o->bins)
		o->bins = TC_HIST_BINS_DEFAULT;
	if (o->bins > TC_HIST_BINS_MAX)
		o->bins = TC_HIST_BINS_MAX;
}

struct tc_gtrace *tc_gtrace_new(int32_t world_size)
{
	struct tc_gtrace *g = tc_xcalloc(1, sizeof(*g));

	g->world_size = world_size;
	g->precision = 100;
	g->bins = TC_HIST_BINS_DEFAULT;
	snprintf(g->mode, sizeof(g->mode), "none");
	snprintf(g->variant, sizeof(g->variant), "default");
	return g;
}

static void site_release(struct tc_gsite *s)
{
	for (uint32_t i = 0; i < s->nframes; i++) {
		free(s->frames[i].module);
		free(s->frames[i].symbol);
	}
	free(s->frames);
	s->frames = NULL;
	s->nframes = 0;
}

void tc_gtrace_free(struct tc_gtrace **gp)
{
	struct tc_gtrace *g = *gp;

	if (!g)
		return;
	*gp = NULL;
	for (size_t i = 0; i < g->n; i++)
		node_release(&g->seq[i]);
	free(g->seq);
	for (size_t i = 0; i < g->nsites; i++)
		site_release(&g->sites[i]);
	free(g->sites);
	tc_ranklist_release(&g->ranks);
	free(g);
}

struct tc_gtrace *tc_gtrace_from_rsd(const struct tc_rsd *rsd, const struct tc_ranklist *ranks,
				     int32_t world_size, uint64_t events,
				     const struct tc_merge_opts *opts)
{
	struct tc_gtrace *g = tc_gtrace_new(world_size);
	struct tc_merge_opts o;
	struct tc_ranklist own;
	struct conv c;
	const struct tc_rsd_node *seq;
	size_t n;

	merge_opts_fix(&o, opts);
	tc_ranklist_init(&own);
	if (ranks) {
		tc_granks_copy(&own, ranks);
		tc_granks_normalize(&own);
	} else {
		tc_ranklist_add(&own, tc_rsd_rank(rsd));
	}
	memset(&c, 0, sizeof(c));
	c.rsd = rsd;
	c.ranks = &own;
	c.opts = &o;
	seq = tc_rsd_seq(rsd, &n);
	g->seq = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*g->seq)));
	g->n = g->alloc = n;
	conv_seq(&c, seq, n, 1, g->seq);
	free(c.stack);
	free(c.reps);
	g->ranks = own;
	g->events = sat_mul(events, own.count);
	g->leads = 1;
	g->precision = o.precision;
	g->bins = o.bins;
	return g;
}

/* ---- the weighted LCS (Scala-H-Trace §3) -------------------------------- */

struct pairs {
	size_t *i, *j;
	size_t n, alloc;
};

static void pairs_add(struct pairs *p, size_t i, size_t j)
{
	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 16;
		p->i = tc_xrealloc(p->i, tc_st_mult(p->alloc, sizeof(size_t)));
		p->j = tc_xrealloc(p->j, tc_st_mult(p->alloc, sizeof(size_t)));
	}
	p->i[p->n] = i;
	p->j[p->n] = j;
	p->n++;
}

static uint64_t wlcs(const struct tc_gnode *x, size_t nx, const struct tc_gnode *y, size_t ny,
		     struct pairs *out);

/* The weight of matching a with b: 0 when they cannot match. */
static uint64_t match_weight(const struct tc_gnode *a, const struct tc_gnode *b)
{
	uint64_t body, ca, cb;

	if (!a->nbody != !b->nbody)
		return 0;
	if (!a->nbody)
		return a->op == b->op && a->stack == b->stack ? 1 : 0;
	ca = param_min(&a->iters);
	cb = param_min(&b->iters);
	if (shape_equal(a, b))
		return a->weight < b->weight ? a->weight : b->weight;
	body = wlcs(a->body, a->nbody, b->body, b->nbody, NULL);
	if (!body)
		return 0;
	return sat_mul(body, ca < cb ? ca : cb);
}

/* Greedy forward matching with bounded look-ahead, for tables too big. */
static uint64_t greedy(const struct tc_gnode *x, size_t nx, const struct tc_gnode *y, size_t ny,
		       size_t i0, size_t j0, struct pairs *out)
{
	size_t i = i0, j = j0;
	uint64_t total = 0, w;

	while (i < nx && j < ny) {
		size_t k;
		if ((w = match_weight(&x[i], &y[j]))) {
			if (out)
				pairs_add(out, i, j);
			total = sat_add(total, w);
			i++;
			j++;
			continue;
		}
		for (k = 1; k <= GREEDY_LOOKAHEAD; k++) {
			if (j + k < ny && match_weight(&x[i], &y[j + k])) {
				j += k;
				break;
			}
			if (i + k < nx && match_weight(&x[i + k], &y[j])) {
				i += k;
				break;
			}
		}
		if (k > GREEDY_LOOKAHEAD) {
			i++;
			j++;
		}
	}
	return total;
}

/*
 * The WLCS of x and y; with out, the matched index pairs in order.
 * Structurally equal prefixes and suffixes are matched directly.
 */
static uint64_t wlcs(const struct tc_gnode *x, size_t nx, const struct tc_gnode *y, size_t ny,
		     struct pairs *out)
{
	size_t pre = 0, suf = 0, mx, my, cols;
	uint64_t total = 0, *W;
	uint8_t *M;

	while (pre < nx && pre < ny && shape_equal(&x[pre], &y[pre])) {
		total = sat_add(total, match_weight(&x[pre], &y[pre]));
		if (out)
			pairs_add(out, pre, pre);
		pre++;
	}
	while (suf < nx - pre && suf < ny - pre &&
	       shape_equal(&x[nx - 1 - suf], &y[ny - 1 - suf]))
		suf++;
	mx = nx - pre - suf;
	my = ny - pre - suf;
	if (mx && my) {
		if ((mx + 1) > WLCS_MAX_CELLS / (my + 1)) {
			total = sat_add(total, greedy(x, nx - suf, y, ny - suf, pre, pre, out));
		} else {
			cols = my + 1;
			W = tc_xcalloc((mx + 1) * cols, sizeof(*W));
			M = tc_xcalloc((mx + 1) * cols, 1);
			for (size_t i = 1; i <= mx; i++) {
				for (size_t j = 1; j <= my; j++) {
					uint64_t best = W[(i - 1) * cols + j], w;
					if (W[i * cols + j - 1] > best)
						best = W[i * cols + j - 1];
					w = match_weight(&x[pre + i - 1], &y[pre + j - 1]);
					if (w && sat_add(W[(i - 1) * cols + j - 1], w) > best) {
						best = sat_add(W[(i - 1) * cols + j - 1], w);
						M[i * cols + j] = 1;
					}
					W[i * cols + j] = best;
				}
			}
			total = sat_add(total, W[mx * cols + my]);
			if (out) {
				struct pairs rev = { NULL, NULL, 0, 0 };
				size_t i = mx, j = my;
				while (i && j) {
					if (M[i * cols + j]) {
						pairs_add(&rev, pre + i - 1, pre + j - 1);
						i--;
						j--;
					} else if (W[(i - 1) * cols + j] >= W[i * cols + j - 1]) {
						i--;
					} else {
						j--;
					}
				}
				while (rev.n--)
					pairs_add(out, rev.i[rev.n], rev.j[rev.n]);
				free(rev.i);
				free(rev.j);
			}
			free(W);
			free(M);
		}
	}
	for (size_t k = suf; k-- > 0;) {
		total = sat_add(total, match_weight(&x[nx - 1 - k], &y[ny - 1 - k]));
		if (out)
			pairs_add(out, nx - 1 - k, ny - 1 - k);
	}
	return total;
}

/* ---- time entries ------------------------------------------------------ */

void tc_gnode_times_total(struct tc_gnode *nd)
{
	if (!nd->ntimes)
		return;
	nd->comp = nd->times[0].comp;
	nd->comm = nd->times[0].comm;
	for (uint32_t i = 1; i < nd->ntimes; i++) {
		tc_rsd_stat_merge(&nd->comp, &nd->times[i].comp);
		tc_rsd_stat_merge(&nd->comm, &nd->times[i].comm);
	}
}

const struct tc_gtime *tc_gnode_time(const struct tc_gnode *nd, int32_t rank)
{
	for (uint32_t i = 0; i < nd->ntimes; i++)
		if (tc_ranklist_contains(&nd->times[i].ranks, rank))
			return &nd->times[i];
	return NULL;
}

/* A node without entries gets one for all its ranks. */
static void times_ensure(struct tc_gnode *nd)
{
	if (nd->ntimes)
		return;
	nd->times = tc_xcalloc(1, sizeof(*nd->times));
	nd->ntimes = 1;
	tc_granks_copy(&nd->times[0].ranks, &nd->ranks);
	nd->times[0].comp = nd->comp;
	nd->times[0].comm = nd->comm;
}

static bool time_close(double a, double b, double rel)
{
	double d = fabs(a - b);

	return d <= TC_GTIME_ABS_NS || d <= rel * fmax(fabs(a), fabs(b));
}

static bool gtime_close(const struct tc_gtime *a, const struct tc_gtime *b, double rel)
{
	return time_close(a->comp.mean, b->comp.mean, rel) &&
	       time_close(a->comm.mean, b->comm.mean, rel);
}

static int cmp_gtime(const void *a, const void *b)
{
	int32_t x = tc_granks_first(&((const struct tc_gtime *)a)->ranks);
	int32_t y = tc_granks_first(&((const struct tc_gtime *)b)->ranks);

	return (x > y) - (x < y);
}

/* a absorbs b's time entries; entries whose means agree are joined. */
static void times_merge(struct tc_gnode *a, struct tc_gnode *b, const struct tc_merge_opts *o)
{
	double rel = TC_GTIME_REL;
	uint32_t k;

	if (o->precision < 100)
		rel = fmin(fmax(rel, (100.0 - o->precision) / 100.0), TC_GTIME_REL_MAX);
	times_ensure(a);
	times_ensure(b);
	k = a->ntimes;
	a->times = tc_xrealloc(a->times, tc_st_mult((size_t)a->ntimes + b->ntimes, sizeof(*a->times)));
	for (uint32_t i = 0; i < b->ntimes; i++) {
		struct tc_gtime *t = &b->times[i];
		uint32_t j;
		for (j = 0; j < k; j++)
			if (gtime_close(&a->times[j], t, rel))
				break;
		if (j < k) {
			tc_granks_union(&a->times[j].ranks, &a->times[j].ranks, &t->ranks);
			tc_rsd_stat_merge(&a->times[j].comp, &t->comp);
			tc_rsd_stat_merge(&a->times[j].comm, &t->comm);
			tc_gtime_release(t);
		} else {
			a->times[k++] = *t;
		}
	}
	free(b->times);
	b->times = NULL;
	b->ntimes = 0;
	a->ntimes = k;
	qsort(a->times, k, sizeof(*a->times), cmp_gtime);
}

/* ---- merging ----------------------------------------------------------- */

static void merge_seq(struct tc_gnode *x, size_t nx, struct tc_gnode *y, size_t ny,
		      const struct tc_merge_opts *o, struct tc_gnode **out, size_t *nout);

/* a absorbs b (b's contents are taken; b is left released). */
static void merge_node(struct tc_gnode *a, struct tc_gnode *b, const struct tc_merge_opts *o)
{
	if (!a->nbody)
		times_merge(a, b, o); /* before the ranks are joined */
	tc_granks_union(&a->ranks, &a->ranks, &b->ranks);
	tc_ranklist_release(&b->ranks);
	if (!a->nbody) {
		for (unsigned p = 0; p < TC_GP_N; p++) {
			param_merge(&a->p[p], &b->p[p]);
			param_consolidate(&a->p[p], tc_gparam_kind(p), o);
		}
		tc_rsd_stat_merge(&a->comp, &b->comp);
		tc_rsd_stat_merge(&a->comm, &b->comm);
		node_release(b);
		node_update(a);
		return;
	}
	param_merge(&a->iters, &b->iters);
	param_consolidate(&a->iters, TC_GPK_UINT, o);
	{
		struct tc_gnode *body;
		size_t n;
		merge_seq(a->body, a->nbody, b->body, b->nbody, o, &body, &n);
		free(a->body);
		free(b->body);
		b->body = NULL;
		b->nbody = 0;
		a->body = body;
		a->nbody = (uint32_t)n;
	}
	node_release(b);
	node_update(a);
}

/*
 * Merge two node sequences (their nodes are moved into *out): the
 * matched pairs of the WLCS merge, and between two matches first x's then
 * y's unmatched nodes (Alg. 1, DO_MERGE).
 */
static void merge_seq(struct tc_gnode *x, size_t nx, struct tc_gnode *y, size_t ny,
		      const struct tc_merge_opts *o, struct tc_gnode **out, size_t *nout)
{
	struct pairs pr = { NULL, NULL, 0, 0 };
	struct tc_gnode *res;
	size_t k = 0, i = 0, j = 0;

	wlcs(x, nx, y, ny, &pr);
	res = tc_xmalloc(tc_st_mult(nx + ny ? nx + ny - pr.n : 1, sizeof(*res)));
	for (size_t m = 0; m <= pr.n; m++) {
		size_t ei = m < pr.n ? pr.i[m] : nx, ej = m < pr.n ? pr.j[m] : ny;
		while (i < ei)
			res[k++] = x[i++];
		while (j < ej)
			res[k++] = y[j++];
		if (m < pr.n) {
			res[k] = x[i++];
			merge_node(&res[k], &y[j++], o);
			k++;
		}
	}
	free(pr.i);
	free(pr.j);
	*out = res;
	*nout = k;
}

/* Same loop structure node by node: merge the parameters only. */
static bool seq_shape_equal(const struct tc_gnode *x, size_t nx, const struct tc_gnode *y, size_t ny)
{
	if (nx != ny)
		return false;
	for (size_t i = 0; i < nx; i++)
		if (!shape_equal(&x[i], &y[i]))
			return false;
	return true;
}

static void zip_node(struct tc_gnode *a, struct tc_gnode *b, const struct tc_merge_opts *o);

static void zip_seq(struct tc_gnode *x, struct tc_gnode *y, size_t n, const struct tc_merge_opts *o)
{
	for (size_t i = 0; i < n; i++)
		zip_node(&x[i], &y[i], o);
}

static void zip_node(struct tc_gnode *a, struct tc_gnode *b, const struct tc_merge_opts *o)
{
	if (!a->nbody) {
		merge_node(a, b, o);
		return;
	}
	tc_granks_union(&a->ranks, &a->ranks, &b->ranks);
	param_merge(&a->iters, &b->iters);
	param_consolidate(&a->iters, TC_GPK_UINT, o);
	zip_seq(a->body, b->body, a->nbody, o);
	node_release(b);
	node_update(a);
}

void tc_gtrace_merge(struct tc_gtrace *a, struct tc_gtrace **bp, const struct tc_merge_opts *opts)
{
	struct tc_gtrace *b = *bp;
	struct tc_merge_opts o;
	struct tc_gnode *seq;
	size_t n;

	if (!b)
		return;
	*bp = NULL;
	merge_opts_fix(&o, opts);
	if (o.filtering && seq_shape_equal(a->seq, a->n, b->seq, b->n)) {
		zip_seq(a->seq, b->seq, a->n, &o);
	} else {
		merge_seq(a->seq, a->n, b->seq, b->n, &o, &seq, &n);
		free(a->seq);
		a->seq = seq;
		a->n = a->alloc = n;
	}
	free(b->seq);
	b->seq = NULL;
	b->n = 0;
	tc_granks_union(&a->ranks, &a->ranks, &b->ranks);
	a->events = sat_add(a->events, b->events);
	a->leads += b->leads;
	if (a->world_size < b->world_size)
		a->world_size = b->world_size;
	for (size_t i = 0; i < b->nsites; i++) {
		if (tc_gtrace_site(a, b->sites[i].sig) < 0)
			tc_gtrace_set_site(a, b->sites[i].sig, b->sites[i].frames,
					   b->sites[i].nframes);
	}
	tc_gtrace_free(&b);
}

/*
 * Append b's sequence after a's (dissertation §5.1, Alg. 8 line 47: the
 * partial global trace of one clustering joins the online trace after
 * what came before it). Unlike tc_gtrace_merge, a and b may cover the
 * same ranks: b's events come after a's for every rank.
 */
void tc_gtrace_append(struct tc_gtrace *a, struct tc_gtrace **bp)
{
	struct tc_gtrace *b = *bp;

	if (!b)
		return;
	*bp = NULL;
	if (b->n) {
		size_t need = a->n + b->n;
		if (need > a->alloc) {
			a->alloc = need;
			a->seq = tc_xrealloc(a->seq, tc_st_mult(a->alloc, sizeof(*a->seq)));
		}
		memcpy(a->seq + a->n, b->seq, b->n * sizeof(*b->seq));
		a->n = need;
	}
	free(b->seq);
	b->seq = NULL;
	b->n = 0;
	tc_granks_union(&a->ranks, &a->ranks, &b->ranks);
	a->events = sat_add(a->events, b->events);
	a->leads += b->leads;
	if (a->world_size < b->world_size)
		a->world_size = b->world_size;
	for (size_t i = 0; i < b->nsites; i++) {
		if (tc_gtrace_site(a, b->sites[i].sig) < 0)
			tc_gtrace_set_site(a, b->sites[i].sig, b->sites[i].frames,
					   b->sites[i].nframes);
	}
	tc_gtrace_free(&b);
}

struct tree_level {
	struct tc_gtrace **items;
	size_t n, step;
	const struct tc_merge_opts *opts;
};

static void tree_merge_one(size_t k, void *ctx)
{
	struct tree_level *lv = ctx;
	size_t i = k * 2 * lv->step;

	if (i + lv->step < lv->n)
		tc_gtrace_merge(lv->items[i], &lv->items[i + lv->step], lv->opts);
}

struct tc_gtrace *tc_gtrace_merge_tree(struct tc_gtrace **items, size_t n, struct tc_pool *pool,
				       const struct tc_merge_opts *opts)
{
	struct tc_gtrace *g;

	if (!n)
		return NULL;
	for (size_t step = 1; step < n; step *= 2) {
		struct tree_level lv = { items, n, step, opts };
		size_t jobs = (n + 2 * step - 1) / (2 * step);
		if (pool)
			tc_pool_for(pool, jobs, tree_merge_one, &lv);
		else
			for (size_t k = 0; k < jobs; k++)
				tree_merge_one(k, &lv);
	}
	g = items[0];
	items[0] = NULL;
	return g;
}

/* ---- sites, numbering, info -------------------------------------------- */

ptrdiff_t tc_gtrace_site(const struct tc_gtrace *g, uint64_t sig)
{
	size_t lo = 0, hi = g->nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->sites[mid].sig < sig)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->nsites && g->sites[lo].sig == sig ? (ptrdiff_t)lo : -1;
}

void tc_gtrace_set_site(struct tc_gtrace *g, uint64_t sig, const struct tc_gframe *frames,
			uint32_t nframes)
{
	size_t lo = 0, hi = g->nsites;
	struct tc_gsite *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->sites[mid].sig < sig)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->nsites && g->sites[lo].sig == sig) {
		s = &g->sites[lo];
		site_release(s);
	} else {
		TC_ALLOC_GROW(g->sites, g->nsites + 1, g->asites);
		memmove(&g->sites[lo + 1], &g->sites[lo], (g->nsites - lo) * sizeof(*g->sites));
		g->nsites++;
		s = &g->sites[lo];
		memset(s, 0, sizeof(*s));
		s->sig = sig;
	}
	if (nframes) {
		s->frames = tc_xcalloc(nframes, sizeof(*s->frames));
		for (uint32_t i = 0; i < nframes; i++) {
			s->frames[i].module = tc_xstrdup(frames[i].module ? frames[i].module : "");
			s->frames[i].offset = frames[i].offset;
			s->frames[i].symbol = tc_xstrdup(frames[i].symbol ? frames[i].symbol : "");
		}
		s->nframes = nframes;
	}
}

static void finish_seq(struct tc_gtrace *g, struct tc_gnode *seq, size_t n, uint64_t *id)
{
	for (size_t i = 0; i < n; i++) {
		struct tc_gnode *nd = &seq[i];
		nd->id = (uint32_t)(*id)++;
		if (nd->nbody) {
			if (nd->iters.hist)
				tc_hist_balance(nd->iters.hist, g->bins);
			finish_seq(g, nd->body, nd->nbody, id);
		} else {
			if (tc_gtrace_site(g, nd->stack) < 0)
				tc_gtrace_set_site(g, nd->stack, NULL, 0);
			for (unsigned p = 0; p < TC_GP_N; p++)
				if (nd->p[p].hist)
					tc_hist_balance(nd->p[p].hist, g->bins);
		}
		node_update(nd);
	}
}

static void mark_sites(const struct tc_gtrace *g, const struct tc_gnode *seq, size_t n, bool *used)
{
	for (size_t i = 0; i < n; i++) {
		if (seq[i].nbody)
			mark_sites(g, seq[i].body, seq[i].nbody, used);
		else
			used[tc_gtrace_site(g, seq[i].stack)] = true;
	}
}

void tc_gtrace_finish(struct tc_gtrace *g)
{
	uint64_t id = 0;
	bool *used;
	size_t k = 0;

	finish_seq(g, g->seq, g->n, &id);
	g->nnodes = id;
	/* keep only the call sites that events use */
	used = tc_xcalloc(g->nsites ? g->nsites : 1, sizeof(*used));
	mark_sites(g, g->seq, g->n, used);
	for (size_t i = 0; i < g->nsites; i++) {
		if (used[i])
			g->sites[k++] = g->sites[i];
		else
			site_release(&g->sites[i]);
	}
	g->nsites = k;
	free(used);
}

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

static void timing_seq(struct tc_gnode *seq, size_t n, enum tc_gtiming t)
{
	for (size_t i = 0; i < n; i++) {
		struct tc_gnode *nd = &seq[i];
		if (nd->nbody) {
			timing_seq(nd->body, nd->nbody, t);
			continue;
		}
		tc_gnode_times_total(nd);
		for (uint32_t k = 0; k < nd->ntimes; k++)
			tc_gtime_release(&nd->times[k]);
		free(nd->times);
		nd->times = NULL;
		nd->ntimes = 0;
		if (t == TC_GTIMING_NONE) {
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
	if (t <= g->timing)
		return;
	timing_seq(g->seq, g->n, t);
	g->timing = t;
}

static void info_param(const struct tc_gparam *gp, struct tc_gtrace_info *in)
{
	in->variants += gp->nvar;
	for (uint32_t i = 0; i < gp->nvar; i++)
		if (gp->var[i].seq)
			in->varying++;
	if (gp->hist)
		in->hists++;
}

static void info_seq(const struct tc_gnode *seq, size_t n, uint32_t depth,
		     struct tc_gtrace_info *in)
{
	for (size_t i = 0; i < n; i++) {
		const struct tc_gnode *nd = &seq[i];
		in->nodes++;
		if (!nd->nbody) {
			in->events++;
			for (unsigned p = 0; p < TC_GP_N; p++)
				info_param(&nd->p[p], in);
			continue;
		}
		in->loops++;
		info_param(&nd->iters, in);
		if (depth + 1 > in->depth)
			in->depth = depth + 1;
		info_seq(nd->body, nd->nbody, depth + 1, in);
	}
}

void tc_gtrace_info(const struct tc_gtrace *g, struct tc_gtrace_info *info)
{
	memset(info, 0, sizeof(*info));
	info_seq(g->seq, g->n, 0, info);
}

/* ---- expansion --------------------------------------------------------- */

#define VAR_NONE (-1)
#define VAR_HIST (-2)

/* What the iterator knows of a node for its rank. */
struct node_cache {
	int8_t state;             /* 0 unknown, 1 member, 2 not */
	int32_t var[TC_GP_N + 1]; /* [TC_GP_N]: loop count */
	const struct tc_gtime *time; /* event: the rank's time entry */
};

static int32_t find_var(const struct tc_gparam *gp, int32_t rank)
{
	for (uint32_t i = 0; i < gp->nvar; i++)
		if (tc_ranklist_contains(&gp->var[i].ranks, rank))
			return (int32_t)i;
	if (gp->hist && tc_ranklist_contains(&gp->hist->ranks, rank))
		return VAR_HIST;
	return VAR_NONE;
}

static struct node_cache *cache_get(struct tc_gtrace_iter *it, const struct tc_gnode *nd)
{
	struct node_cache *c = it->cache;

	if (!c || nd->id >= it->g->nnodes)
		return NULL;
	c = &c[nd->id];
	if (c->state)
		return c;
	if (!tc_ranklist_contains(&nd->ranks, it->rank)) {
		c->state = 2;
		return c;
	}
	c->state = 1;
	if (nd->nbody) {
		c->var[TC_GP_N] = find_var(&nd->iters, it->rank);
	} else {
		for (unsigned p = 0; p < TC_GP_N; p++)
			c->var[p] = find_var(&nd->p[p], it->rank);
		c->time = tc_gnode_time(nd, it->rank);
	}
	return c;
}

int tc_gtrace_iter_init(struct tc_gtrace_iter *it, const struct tc_gtrace *g, int32_t rank)
{
	memset(it, 0, sizeof(*it));
	if (!tc_ranklist_contains(&g->ranks, rank))
		return -1;
	it->g = g;
	it->rank = rank;
	TC_ALLOC_GROW(it->stack, 1, it->alloc);
	memset(&it->stack[0], 0, sizeof(it->stack[0]));
	it->stack[0].seq = g->seq;
	it->stack[0].n = g->n;
	it->stack[0].iters = 1;
	it->stack[0].left = 1;
	it->depth = 1;
	if (g->nnodes)
		it->cache = tc_xcalloc((size_t)g->nnodes, sizeof(struct node_cache));
	return 0;
}

void tc_gtrace_iter_release(struct tc_gtrace_iter *it)
{
	free(it->stack);
	free(it->compl);
	free(it->counts);
	free(it->cache);
	memset(it, 0, sizeof(*it));
}

static uint64_t occurrence(const struct tc_gtrace_iter *it)
{
	uint64_t occ = 0;

	for (size_t k = 1; k < it->depth; k++)
		occ = occ * it->stack[k].iters + (it->stack[k].iters - it->stack[k].left);
	return occ;
}

static int64_t round_mean(double m)
{
	if (!(m > -9.0e18 && m < 9.0e18))
		return 0;
	return (int64_t)llround(m);
}

/* A value drawn from a histogram (see merge.h). */
static int64_t hist_draw(const struct tc_gtrace_iter *it, const struct tc_hist *h,
			 const struct tc_gnode *nd, unsigned p, uint64_t occ)
{
	uint64_t r, acc = 0;
	uint32_t k;
	int64_t v;

	if (!h->nbins || !h->n)
		return 0;
	r = tc_hash_mix(tc_hash_mix(tc_hash_mix(0x68697374ULL, (uint64_t)(uint32_t)it->rank),
				    ((uint64_t)nd->id << 8) | p), occ) % h->n;
	for (k = 0; k + 1 < h->nbins; k++) {
		acc += h->bins[k].n;
		if (r < acc)
			break;
	}
	v = h->bins[k].lo == h->bins[k].hi ? h->bins[k].lo : round_mean(h->bins[k].mean);
	if (v < h->bins[k].lo)
		v = h->bins[k].lo;
	if (v > h->bins[k].hi)
		v = h->bins[k].hi;
	return v;
}

/* The value of parameter p (TC_GP_N: loop count) for the rank; NULL when
 * absent. tmp holds a drawn value. */
static const struct tc_gval *resolve(const struct tc_gtrace_iter *it, const struct tc_gnode *nd,
				     const struct tc_gparam *gp, int32_t var, unsigned p,
				     uint64_t occ, struct tc_gval *tmp)
{
	const struct tc_gval *v;

	if (var == VAR_NONE)
		return NULL;
	if (var == VAR_HIST) {
		tmp->n = 1;
		tmp->v = NULL;
		tmp->w = hist_draw(it, gp->hist, nd, p, occ);
		if (p < TC_GP_N && tc_gparam_kind(p) == TC_GPK_PEER && it->g->world_size > 0) {
			/* keep a drawn peer inside the world */
			int64_t abs = tmp->w + it->rank;
			if (abs < 0)
				tmp->w -= abs;
			else if (abs >= it->g->world_size)
				tmp->w -= abs - (it->g->world_size - 1);
		}
		return tmp;
	}
	if (gp->var[var].seq) {
		v = tc_gseq_at(gp->var[var].seq, occ);
		return v && v->n != TC_GVAL_ABSENT ? v : NULL;
	}
	v = &gp->var[var].val;
	return v->n != TC_GVAL_ABSENT ? v : NULL;
}

static uint64_t abs_req(int64_t rel, uint64_t last)
{
	return rel == TC_RSD_NOREQ ? 0 : last + (uint64_t)rel;
}

static void decode(struct tc_gtrace_iter *it, const struct tc_gnode *nd,
		   const struct node_cache *c, struct tc_event *ev)
{
	const struct tc_gval *v[TC_GP_N];
	struct tc_gval tmp[TC_GP_N];
	uint64_t occ = occurrence(it);
	ptrdiff_t site = tc_gtrace_site(it->g, nd->stack);
	int32_t r = it->rank;
	size_t ncounts = 0;
	const struct tc_gtime *tm;

	tc_event_init(ev);
	ev->op = nd->op;
	ev->callsite = site < 0 ? TC_NO_CALLSITE : (uint32_t)site;
	for (unsigned p = 0; p < TC_GP_N; p++) {
		v[p] = resolve(it, nd, &nd->p[p], c ? c->var[p] : find_var(&nd->p[p], r), p, occ,
			       &tmp[p]);
		if (v[p])
			ev->fields |= params[p].field;
	}
#define W(p) (tc_gval_words(v[p])[0])
	if (v[TC_GP_COMM] && v[TC_GP_COMM]->n == 1)
		ev->comm = (uint32_t)W(TC_GP_COMM);
	if (v[TC_GP_PEER] && v[TC_GP_PEER]->n == 1)
		ev->peer = tc_abs_peer(W(TC_GP_PEER), r);
	if (v[TC_GP_TAG] && v[TC_GP_TAG]->n == 1)
		ev->tag = (int32_t)W(TC_GP_TAG);
	if (v[TC_GP_RPEER] && v[TC_GP_RPEER]->n == 1)
		ev->rpeer = tc_abs_peer(W(TC_GP_RPEER), r);
	if (v[TC_GP_RTAG] && v[TC_GP_RTAG]->n == 1)
		ev->rtag = (int32_t)W(TC_GP_RTAG);
	if (v[TC_GP_COUNT] && v[TC_GP_COUNT]->n == 1)
		ev->count = (uint64_t)W(TC_GP_COUNT);
	if (v[TC_GP_DTYPE] && v[TC_GP_DTYPE]->n == 1)
		ev->dtype = (uint32_t)W(TC_GP_DTYPE);
	if (v[TC_GP_DTYPE_SIZE] && v[TC_GP_DTYPE_SIZE]->n == 1)
		ev->dtype_size = (uint32_t)W(TC_GP_DTYPE_SIZE);
	if (v[TC_GP_BYTES] && v[TC_GP_BYTES]->n == 1)
		ev->bytes = (uint64_t)W(TC_GP_BYTES);
	if (v[TC_GP_REDOP] && v[TC_GP_REDOP]->n == 1)
		ev->redop = (uint32_t)W(TC_GP_REDOP);
	if (v[TC_GP_ROOT] && v[TC_GP_ROOT]->n == 1)
		ev->root = (int32_t)W(TC_GP_ROOT);
	if (v[TC_GP_COLOR] && v[TC_GP_COLOR]->n == 1)
		ev->color = (int32_t)W(TC_GP_COLOR);
	if (v[TC_GP_KEY] && v[TC_GP_KEY]->n == 1)
		ev->key = (int32_t)W(TC_GP_KEY);
	if (v[TC_GP_NEWCOMM] && v[TC_GP_NEWCOMM]->n == 1)
		ev->newcomm = (uint32_t)W(TC_GP_NEWCOMM);
	if (v[TC_GP_FILE] && v[TC_GP_FILE]->n == 1)
		ev->file = (uint32_t)W(TC_GP_FILE);
	if (v[TC_GP_OFFSET] && v[TC_GP_OFFSET]->n == 1)
		ev->offset = (uint64_t)W(TC_GP_OFFSET);
	if (v[TC_GP_RESULT] && v[TC_GP_RESULT]->n == 1)
		ev->result = (int32_t)W(TC_GP_RESULT);
#undef W
	/* completions are relative to the last request before this event */
	if (v[TC_GP_COMPL] && v[TC_GP_COMPL]->n != TC_GVAL_ABSENT && v[TC_GP_COMPL]->n / 4) {
		const int64_t *w = tc_gval_words(v[TC_GP_COMPL]);
		uint32_t n = v[TC_GP_COMPL]->n / 4;
		TC_ALLOC_GROW(it->compl, n, it->acompl);
		for (uint32_t i = 0; i < n; i++) {
			it->compl[i].request = abs_req(w[4 * i], it->last_req);
			it->compl[i].source = tc_abs_peer(w[4 * i + 1], r);
			it->compl[i].tag = (int32_t)w[4 * i + 2];
			it->compl[i].bytes = (uint64_t)w[4 * i + 3];
		}
		ev->ncompl = n;
		ev->compl = it->compl;
	}
	if (v[TC_GP_REQUEST] && v[TC_GP_REQUEST]->n == 1) {
		ev->request = abs_req(tc_gval_words(v[TC_GP_REQUEST])[0], it->last_req);
		if (ev->request)
			it->last_req = ev->request;
	}
	if (v[TC_GP_SCOUNTS] && v[TC_GP_SCOUNTS]->n != TC_GVAL_ABSENT)
		ncounts += v[TC_GP_SCOUNTS]->n;
	if (v[TC_GP_RCOUNTS] && v[TC_GP_RCOUNTS]->n != TC_GVAL_ABSENT)
		ncounts += v[TC_GP_RCOUNTS]->n;
	if (ncounts) {
		size_t k = 0;
		TC_ALLOC_GROW(it->counts, ncounts, it->acounts);
		if (v[TC_GP_SCOUNTS] && v[TC_GP_SCOUNTS]->n != TC_GVAL_ABSENT) {
			const int64_t *w = tc_gval_words(v[TC_GP_SCOUNTS]);
			ev->nscounts = v[TC_GP_SCOUNTS]->n;
			ev->scounts = it->counts;
			for (uint32_t i = 0; i < ev->nscounts; i++)
				it->counts[k++] = (uint64_t)w[i];
		}
		if (v[TC_GP_RCOUNTS] && v[TC_GP_RCOUNTS]->n != TC_GVAL_ABSENT) {
			const int64_t *w = tc_gval_words(v[TC_GP_RCOUNTS]);
			ev->nrcounts = v[TC_GP_RCOUNTS]->n;
			ev->rcounts = it->counts + k;
			for (uint32_t i = 0; i < ev->nrcounts; i++)
				it->counts[k++] = (uint64_t)w[i];
		}
	}
	tm = c ? c->time : tc_gnode_time(nd, it->rank);
	ev->t_start = it->prev_end + (uint64_t)round_mean(tm ? tm->comp.mean : nd->comp.mean);
	ev->t_end = ev->t_start + (uint64_t)round_mean(tm ? tm->comm.mean : nd->comm.mean);
	it->prev_end = ev->t_end;
	it->node = nd;
}

bool tc_gtrace_iter_next(struct tc_gtrace_iter *it, struct tc_event *ev)
{
	while (it->depth) {
		struct tc_gtrace_iter_frame *f = &it->stack[it->depth - 1];
		const struct tc_gnode *nd;
		const struct node_cache *c;
		struct tc_gval tmp;
		const struct tc_gval *cnt;
		uint64_t occ, iters;

		if (f->i >= f->n) {
			if (f->left > 1) {
				f->left--;
				f->i = 0;
				continue;
			}
			it->depth--;
			if (it->depth)
				it->stack[it->depth - 1].i++;
			continue;
		}
		nd = &f->seq[f->i];
		c = cache_get(it, nd);
		if (c ? c->state != 1 : !tc_ranklist_contains(&nd->ranks, it->rank)) {
			f->i++;
			continue;
		}
		if (!nd->nbody) {
			decode(it, nd, c, ev);
			f->i++;
			return true;
		}
		occ = occurrence(it);
		cnt = resolve(it, nd, &nd->iters, c ? c->var[TC_GP_N] : find_var(&nd->iters, it->rank),
			      TC_GP_N, occ, &tmp);
		iters = cnt && cnt->n == 1 && tc_gval_words(cnt)[0] > 0 ? (uint64_t)tc_gval_words(cnt)[0] : 0;
		if (!iters || !nd->nbody) {
			f->i++;
			continue;
		}
		TC_ALLOC_GROW(it->stack, it->depth + 1, it->alloc);
		f = &it->stack[it->depth++];
		f->seq = nd->body;
		f->n = nd->nbody;
		f->i = 0;
		f->iters = iters;
		f->left = iters;
		f->occ = occ;
	}
	return false;
}
