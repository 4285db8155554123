/*
 * seq.c - parameter values and value sequences of the global trace.
 *
 * A variant keeps the values of successive occurrences in order, run-length
 * and repetition compressed (ScalaTrace's value -> ranklist vectors,
 * Scala-H-Trace §4.3): an entry is a value or a chunk of entries repeated
 * some number of times, and the tail is folded as values are added
 * (TC_GSEQ_WINDOW, lib/merge.h), so a periodic sequence stays as small as
 * its period.
 */
#include "lib/compat.h"
#include "lib/gtrace/internal.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

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
void tc_gt_seq_visit(const struct tc_gseq *s, uint64_t mult, tc_gt_seq_visit_fn fn, void *ctx)
{
	for (uint32_t i = 0; i < s->n; i++) {
		uint64_t m = mult * s->e[i].reps;
		if (s->e[i].chunk)
			tc_gt_seq_visit(s->e[i].chunk, m, fn, ctx);
		else
			fn(ctx, &s->e[i].val, m);
	}
}
