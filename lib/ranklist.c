#include "compat.h"
#include "ranklist.h"
#include "error.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tc_ranklist_init(struct tc_ranklist *rl)
{
	rl->runs = NULL;
	rl->nruns = 0;
	rl->alloc = 0;
	rl->count = 0;
}

void tc_ranklist_release(struct tc_ranklist *rl)
{
	free(rl->runs);
	tc_ranklist_init(rl);
}

bool tc_ranklist_extend(struct tc_run *last, int32_t rank)
{
	int64_t next = (int64_t)last->start + (int64_t)last->stride * last->len;

	if (last->len == 1 && rank != last->start) {
		int64_t d = (int64_t)rank - last->start;
		if (d >= INT32_MIN && d <= INT32_MAX) {
			last->stride = (int32_t)d;
			last->len = 2;
			return true;
		}
	} else if (last->len > 1 && next == rank && last->len < UINT32_MAX) {
		last->len++;
		return true;
	}
	return false;
}

void tc_ranklist_add(struct tc_ranklist *rl, int32_t rank)
{
	rl->count++;
	if (rl->nruns && tc_ranklist_extend(&rl->runs[rl->nruns - 1], rank))
		return;
	TC_ALLOC_GROW(rl->runs, rl->nruns + 1, rl->alloc);
	rl->runs[rl->nruns].start = rank;
	rl->runs[rl->nruns].len = 1;
	rl->runs[rl->nruns].stride = 1;
	rl->nruns++;
}

void tc_ranklist_add_seq(struct tc_ranklist *rl, int32_t start, uint32_t len, int32_t stride)
{
	uint32_t j = 0;

	while (j < len) {
		int64_t v = (int64_t)start + (int64_t)stride * j;
		const struct tc_run *last;
		tc_ranklist_add(rl, (int32_t)v);
		j++;
		last = &rl->runs[rl->nruns - 1];
		/* once the last run ends at v with the stride, tc_ranklist_add
		 * would extend it by each of the values left */
		if (j < len && last->len >= 2 && last->stride == stride &&
		    (int64_t)last->start + (int64_t)last->stride * (last->len - 1) == v) {
			uint32_t more = len - j;
			if (more > UINT32_MAX - last->len)
				more = UINT32_MAX - last->len;
			rl->runs[rl->nruns - 1].len += more;
			rl->count += more;
			j += more;
		}
	}
}

void tc_ranklist_add_run(struct tc_ranklist *rl, int32_t start, uint32_t len, int32_t stride)
{
	if (!len)
		return;
	TC_ALLOC_GROW(rl->runs, rl->nruns + 1, rl->alloc);
	rl->runs[rl->nruns].start = start;
	rl->runs[rl->nruns].len = len;
	rl->runs[rl->nruns].stride = stride;
	rl->nruns++;
	rl->count += len;
}

void tc_ranklist_from_array(struct tc_ranklist *rl, const int32_t *v, size_t n)
{
	rl->nruns = 0;
	rl->count = 0;
	for (size_t i = 0; i < n; i++)
		tc_ranklist_add(rl, v[i]);
}

void tc_ranklist_expand(const struct tc_ranklist *rl, int32_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < rl->nruns; i++) {
		const struct tc_run *r = &rl->runs[i];
		for (uint32_t j = 0; j < r->len; j++)
			out[k++] = (int32_t)((int64_t)r->start + (int64_t)r->stride * j);
	}
}

bool tc_ranklist_contains(const struct tc_ranklist *rl, int32_t rank)
{
	for (size_t i = 0; i < rl->nruns; i++) {
		const struct tc_run *r = &rl->runs[i];
		int64_t d = (int64_t)rank - r->start;
		if (r->stride == 0) {
			if (d == 0)
				return true;
			continue;
		}
		if (d % r->stride == 0) {
			int64_t j = d / r->stride;
			if (j >= 0 && j < r->len)
				return true;
		}
	}
	return false;
}

/* ---- ScalaTrace's ranklist encoding ------------------------------------ */

/* A regular section: dim pairs (iters, stride), the outermost first. */
struct section {
	int64_t start;
	unsigned dim;
	int64_t iters[TC_RANKLIST_ST_MAXDIM];
	int64_t stride[TC_RANKLIST_ST_MAXDIM];
};

static bool same_shape(const struct section *a, const struct section *b)
{
	if (a->dim != b->dim)
		return false;
	for (unsigned k = 0; k < a->dim; k++)
		if (a->iters[k] != b->iters[k] || a->stride[k] != b->stride[k])
			return false;
	return true;
}

/* Greedy arithmetic runs over increasing ranks (1D sections). */
static size_t cut_runs(const int32_t *v, size_t n, struct section *out)
{
	size_t i = 0, k = 0;

	while (i < n) {
		struct section *s = &out[k++];
		size_t j;
		int64_t d;

		s->start = v[i];
		s->dim = 1;
		if (i + 1 == n) {
			s->iters[0] = 1;
			s->stride[0] = 0;
			i++;
			continue;
		}
		d = (int64_t)v[i + 1] - v[i];
		j = i + 2;
		while (j < n && (int64_t)v[j] - v[j - 1] == d)
			j++;
		/* a pair whose second rank starts a longer run: leave it alone */
		if (j == i + 2 && i + 3 < n &&
		    (int64_t)v[i + 2] - v[i + 1] == (int64_t)v[i + 3] - v[i + 2]) {
			s->iters[0] = 1;
			s->stride[0] = 0;
			i++;
			continue;
		}
		s->iters[0] = (int64_t)(j - i);
		s->stride[0] = d;
		i = j;
	}
	return k;
}

/* Fold runs of >= 2 consecutive sections of one shape with evenly spaced
 * starts into sections of one more dimension; returns the new count. */
static size_t fold(struct section *s, size_t n)
{
	size_t i = 0, k = 0;

	while (i < n) {
		size_t j = i + 1;
		int64_t d = 0;

		if (s[i].dim < TC_RANKLIST_ST_MAXDIM && j < n && same_shape(&s[i], &s[j])) {
			d = s[j].start - s[i].start;
			j++;
			while (j < n && same_shape(&s[i], &s[j]) && s[j].start - s[j - 1].start == d)
				j++;
		}
		if (j - i >= 2) {
			struct section f;
			f.start = s[i].start;
			f.dim = s[i].dim + 1;
			f.iters[0] = (int64_t)(j - i);
			f.stride[0] = d;
			for (unsigned q = 0; q < s[i].dim; q++) {
				f.iters[q + 1] = s[i].iters[q];
				f.stride[q + 1] = s[i].stride[q];
			}
			s[k++] = f;
		} else {
			s[k++] = s[i];
		}
		i = j;
	}
	return k;
}

int64_t *tc_ranklist_st_encode(const int32_t *ranks, size_t n, size_t *len)
{
	struct section *s = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*s)));
	size_t ns = cut_runs(ranks, n, s), m = 1, k = 0;
	int64_t *out;

	for (unsigned pass = 1; pass < TC_RANKLIST_ST_MAXDIM; pass++) {
		size_t before = ns;
		ns = fold(s, ns);
		if (ns == before)
			break;
	}
	for (size_t i = 0; i < ns; i++)
		m += 2 + 2 * (size_t)s[i].dim;
	out = tc_xmalloc(tc_st_mult(m, sizeof(*out)));
	out[k++] = (int64_t)ns;
	for (size_t i = 0; i < ns; i++) {
		out[k++] = -(int64_t)s[i].dim;
		out[k++] = s[i].start;
		for (unsigned q = 0; q < s[i].dim; q++) {
			out[k++] = s[i].iters[q];
			out[k++] = s[i].stride[q];
		}
	}
	free(s);
	*len = k;
	return out;
}

#define ST_DECODE_MAXDIM 16

int tc_ranklist_st_decode(const int64_t *v, size_t len, size_t max, int32_t **out,
			  size_t *n)
{
	size_t pos = 1, cnt = 0, alloc = 0;
	int32_t *r = NULL;
	int64_t nsec;

	*out = NULL;
	*n = 0;
	if (len < 1 || v[0] < 0 || (uint64_t)v[0] > len)
		return -1;
	nsec = v[0];
	for (int64_t s = 0; s < nsec; s++) {
		int64_t dim, start, iters[ST_DECODE_MAXDIM], stride[ST_DECODE_MAXDIM];
		int64_t idx[ST_DECODE_MAXDIM];
		uint64_t total = 1;

		if (pos + 2 > len)
			goto bad;
		dim = -v[pos++];
		start = v[pos++];
		if (dim < 1 || dim > ST_DECODE_MAXDIM || pos + 2 * (size_t)dim > len)
			goto bad;
		for (int64_t q = 0; q < dim; q++) {
			iters[q] = v[pos++];
			stride[q] = v[pos++];
			if (iters[q] < 0 || (iters[q] > 0 && total > max / (uint64_t)iters[q]))
				goto bad;
			total *= (uint64_t)iters[q];
			idx[q] = 0;
		}
		if (total > max - cnt)
			goto bad;
		if (!total)
			continue;
		TC_ALLOC_GROW(r, cnt + total, alloc);
		for (uint64_t t = 0; t < total; t++) {
			int64_t x = start;
			for (int64_t q = 0; q < dim; q++)
				x += idx[q] * stride[q];
			if (x < 0 || x > INT32_MAX)
				goto bad;
			r[cnt++] = (int32_t)x;
			/* odometer, innermost dimension fastest */
			for (int64_t q = dim - 1; q >= 0; q--) {
				if (++idx[q] < iters[q])
					break;
				idx[q] = 0;
			}
		}
	}
	if (pos != len)
		goto bad;
	*out = r;
	*n = cnt;
	return 0;
bad:
	free(r);
	return -1;
}

/* A growable string without lib/strbuf.h (the capture shim links this
 * file alone). */
struct text {
	char *s;
	size_t len, alloc;
};

static void text_add(struct text *t, const char *s)
{
	size_t k = strlen(s);

	TC_ALLOC_GROW(t->s, t->len + k + 1, t->alloc);
	memcpy(t->s + t->len, s, k + 1);
	t->len += k;
}

static void text_num(struct text *t, const char *sep, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%s%" PRId64, sep, v);
	text_add(t, buf);
}

char *tc_ranklist_st_text(const int64_t *v, size_t len)
{
	struct text t = { NULL, 0, 0 };

	text_add(&t, "");
	for (size_t i = 0; i < len; i++)
		text_num(&t, i ? " " : "", v[i]);
	return t.s;
}

char *tc_ranklist_ranges_text(const int32_t *ranks, size_t n)
{
	struct text t = { NULL, 0, 0 };
	size_t i = 0;

	text_add(&t, n ? "" : "-");
	while (i < n) {
		size_t j = i + 1;
		while (j < n && (int64_t)ranks[j] == (int64_t)ranks[j - 1] + 1)
			j++;
		text_num(&t, i ? "," : "", ranks[i]);
		if (j - i > 1)
			text_num(&t, "-", ranks[j - 1]);
		i = j;
	}
	return t.s;
}

static int parse_int(const char *s, const char *end, int32_t *v)
{
	int64_t x = 0;

	if (s == end)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (*s - '0');
		if (x > INT32_MAX)
			return -1;
	}
	*v = (int32_t)x;
	return 0;
}

static int cmp_i32(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;

	return (a > b) - (a < b);
}

int tc_parse_ranks(const char *s, size_t max, int32_t **out, size_t *n, struct tc_error *err)
{
	int32_t *v = NULL, *sorted;
	size_t nv = 0, av = 0;
	const char *p = s;

	*out = NULL;
	*n = 0;
	for (;;) {
		const char *end = strchr(p, ',');
		const char *dash;
		int32_t lo, hi;

		if (!end)
			end = p + strlen(p);
		dash = memchr(p, '-', (size_t)(end - p));
		if (parse_int(p, dash ? dash : end, &lo) ||
		    (dash && parse_int(dash + 1, end, &hi))) {
			free(v);
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "expected ranks like 0,3,5-7, got '%s'", s);
		}
		if (!dash)
			hi = lo;
		if (hi < lo) {
			free(v);
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "descending range '%.*s'", (int)(end - p), p);
		}
		if ((uint64_t)nv + (uint64_t)(hi - lo) + 1 > max) {
			free(v);
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "more than %zu ranks in '%s'", max, s);
		}
		for (int64_t r = lo; r <= hi; r++) {
			TC_ALLOC_GROW(v, nv + 1, av);
			v[nv++] = (int32_t)r;
		}
		if (!*end)
			break;
		p = end + 1;
	}
	sorted = tc_xmalloc(nv * sizeof(*sorted));
	memcpy(sorted, v, nv * sizeof(*sorted));
	qsort(sorted, nv, sizeof(*sorted), cmp_i32);
	for (size_t i = 1; i < nv; i++)
		if (sorted[i] == sorted[i - 1]) {
			int32_t d = sorted[i];
			free(sorted);
			free(v);
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "rank %" PRId32 " given twice", d);
		}
	free(sorted);
	*out = v;
	*n = nv;
	return 0;
}
