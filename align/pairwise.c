/*
 * pairwise.c - global alignment of two symbol sequences.
 *
 * Needleman-Wunsch with linear gap scores (Weber's pairwise comparison,
 * slides 4-6, after Weber, Brendel and Brunst, ISPA'12), three ways:
 *
 *   FULL  the whole (na+1) x (nb+1) matrix of traceback bytes: the
 *         textbook algorithm and the quadratic-memory baseline;
 *   NW    Hirschberg's divide and conquer (CACM 18(6), 1975): score rows
 *         of the upper half forwards and of the lower half backwards meet
 *         in the middle row, which fixes one point of an optimal path;
 *         the halves recurse; O(na nb) time, O(na + nb) memory;
 *   LCS   the same recursion, but the rows come from the bit-parallel
 *         LCS recurrence (Hyyro, "Bit-parallel LCS-length computation
 *         revisited", 2004: V' = (V + (V & PM[c])) | (V & ~PM[c]); the
 *         zero bits of V below column j count LCS(a[..i], b[..j])), 64
 *         columns per machine word. Exact for scores with
 *         mismatch <= 2 gap < match (tc_ascore_lcs_ok): a mismatch is
 *         then never better than two gaps, so some optimal alignment has
 *         none, and its score, match M + gap (na + nb - 2M), is largest
 *         for the longest common subsequence M.
 *
 * Small subproblems (few cells, or one row) are solved with the full
 * matrix, so every engine gives an optimal alignment; the LCS engine also
 * trims common prefixes and suffixes of each subproblem first (they are
 * part of some longest common subsequence).
 */
#include "lib/compat.h"
#include "align/align.h"
#include "lib/error.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Subproblems with at most this many cells use the full matrix. */
#define BASE_CELLS ((uint64_t)1 << 16)
/* Match masks of the LCS engine may take this many words at most before
 * a subproblem falls back to scalar LCS rows. */
#define PM_MAX_WORDS ((size_t)1 << 23)

static const char *const engine_names[] = { "auto", "lcs", "nw", "full" };

const char *tc_aengine_name(int engine)
{
	return engine >= 0 && engine < (int)TC_ARRAY_SIZE(engine_names) ? engine_names[engine]
									  : NULL;
}

int tc_aengine_from_name(const char *name)
{
	for (size_t i = 0; i < TC_ARRAY_SIZE(engine_names); i++)
		if (!strcmp(name, engine_names[i]))
			return (int)i;
	return -1;
}

bool tc_ascore_lcs_ok(const struct tc_ascore *sc)
{
	return (int64_t)sc->mismatch <= 2 * (int64_t)sc->gap &&
	       (int64_t)sc->match > 2 * (int64_t)sc->gap;
}

/* ---- the alignment ---------------------------------------------------- */

void tc_alignment_init(struct tc_alignment *al)
{
	memset(al, 0, sizeof(*al));
}

void tc_alignment_release(struct tc_alignment *al)
{
	free(al->col);
	tc_alignment_init(al);
}

static void push_n(struct tc_alignment *al, unsigned char c, size_t n)
{
	if (!n)
		return;
	TC_ALLOC_GROW(al->col, al->ncols + n, al->alloc);
	memset(al->col + al->ncols, c, n);
	al->ncols += n;
}

double tc_alignment_similarity(const struct tc_alignment *al)
{
	return al->ncols ? (double)al->matches / (double)al->ncols : 1.0;
}

/* Recount the statistics and the score of al's columns (a mismatch column
 * of equal symbols becomes a match). */
static void al_count(struct tc_alignment *al, const uint64_t *a, const uint64_t *b,
		 const struct tc_ascore *sc)
{
	size_t i = 0, j = 0;

	al->matches = al->mismatches = al->only_a = al->only_b = 0;
	al->score = 0;
	for (size_t c = 0; c < al->ncols; c++) {
		switch (al->col[c]) {
		case TC_ACOL_MATCH:
		case TC_ACOL_MISMATCH:
			if (a[i] == b[j]) {
				al->col[c] = TC_ACOL_MATCH;
				al->matches++;
				al->score += sc->match;
			} else {
				al->col[c] = TC_ACOL_MISMATCH;
				al->mismatches++;
				al->score += sc->mismatch;
			}
			i++;
			j++;
			break;
		case TC_ACOL_ONLY_A:
			al->only_a++;
			al->score += sc->gap;
			i++;
			break;
		default:
			al->only_b++;
			al->score += sc->gap;
			j++;
			break;
		}
	}
}

bool tc_alignment_check(struct tc_alignment *al, const uint64_t *a, size_t na,
			const uint64_t *b, size_t nb, const struct tc_ascore *sc)
{
	size_t i = 0, j = 0;

	for (size_t c = 0; c < al->ncols; c++) {
		switch (al->col[c]) {
		case TC_ACOL_MATCH:
			if (i >= na || j >= nb || a[i] != b[j])
				return false;
			i++;
			j++;
			break;
		case TC_ACOL_MISMATCH:
			if (i >= na || j >= nb || a[i] == b[j])
				return false;
			i++;
			j++;
			break;
		case TC_ACOL_ONLY_A:
			if (i++ >= na)
				return false;
			break;
		case TC_ACOL_ONLY_B:
			if (j++ >= nb)
				return false;
			break;
		default:
			return false;
		}
	}
	if (i != na || j != nb)
		return false;
	al_count(al, a, b, sc);
	return true;
}

/*
 * Rewrite each stretch of columns between two matches (p events of a, q
 * of b, as mismatches or gaps) as min(p, q) mismatch columns followed by
 * the remaining gaps, which keeps the score when mismatch == 2 gap.
 */
static void al_compact(struct tc_alignment *al)
{
	size_t c = 0, out = 0;

	while (c < al->ncols) {
		size_t p = 0, q = 0, k;

		if (al->col[c] == TC_ACOL_MATCH) {
			al->col[out++] = al->col[c++];
			continue;
		}
		/* a stretch without matches: p events of a, q of b */
		for (k = c; k < al->ncols && al->col[k] != TC_ACOL_MATCH; k++) {
			p += al->col[k] != TC_ACOL_ONLY_B;
			q += al->col[k] != TC_ACOL_ONLY_A;
		}
		for (size_t t = 0; t < TC_MIN(p, q); t++)
			al->col[out++] = TC_ACOL_MISMATCH;
		for (size_t t = TC_MIN(p, q); t < p; t++)
			al->col[out++] = TC_ACOL_ONLY_A;
		for (size_t t = TC_MIN(p, q); t < q; t++)
			al->col[out++] = TC_ACOL_ONLY_B;
		c = k;
	}
	al->ncols = out;
}

/* ---- full matrix -------------------------------------------------------- */

enum { TB_DIAG = 0, TB_UP = 1, TB_LEFT = 2 };

/*
 * Align a[0..n) with b[0..m) with the whole traceback matrix and append
 * the columns to al. Ties prefer the diagonal, then a gap in b (up).
 */
static void full_nw(const uint64_t *a, size_t n, const uint64_t *b, size_t m,
		    const struct tc_ascore *sc, struct tc_alignment *al)
{
	size_t w = m + 1;
	unsigned char *tb = tc_xmalloc(tc_st_mult(n + 1, w));
	int64_t *prev = tc_xmalloc(w * sizeof(*prev)), *cur = tc_xmalloc(w * sizeof(*cur));
	unsigned char *rev;
	size_t i, j, k = 0;

	prev[0] = 0;
	tb[0] = TB_DIAG;
	for (j = 1; j <= m; j++) {
		prev[j] = prev[j - 1] + sc->gap;
		tb[j] = TB_LEFT;
	}
	for (i = 1; i <= n; i++) {
		unsigned char *row = tb + i * w;
		uint64_t ai = a[i - 1];
		cur[0] = prev[0] + sc->gap;
		row[0] = TB_UP;
		for (j = 1; j <= m; j++) {
			int64_t d = prev[j - 1] + (ai == b[j - 1] ? sc->match : sc->mismatch);
			int64_t u = prev[j] + sc->gap, l = cur[j - 1] + sc->gap;
			unsigned char t = TB_DIAG;
			if (u > d) {
				d = u;
				t = TB_UP;
			}
			if (l > d) {
				d = l;
				t = TB_LEFT;
			}
			cur[j] = d;
			row[j] = t;
		}
		int64_t *x = prev;
		prev = cur;
		cur = x;
	}
	rev = tc_xmalloc(n + m + 1);
	i = n;
	j = m;
	while (i || j) {
		switch (tb[i * w + j]) {
		case TB_DIAG:
			rev[k++] = a[i - 1] == b[j - 1] ? TC_ACOL_MATCH : TC_ACOL_MISMATCH;
			i--;
			j--;
			break;
		case TB_UP:
			rev[k++] = TC_ACOL_ONLY_A;
			i--;
			break;
		default:
			rev[k++] = TC_ACOL_ONLY_B;
			j--;
			break;
		}
	}
	TC_ALLOC_GROW(al->col, al->ncols + k, al->alloc);
	while (k)
		al->col[al->ncols++] = rev[--k];
	free(rev);
	free(tb);
	free(prev);
	free(cur);
}

/* ---- Needleman-Wunsch rows --------------------------------------------- */

/*
 * row[j] = best score of a[0..n) against b[0..j), j = 0..m; with rev the
 * sequences are read backwards from their ends (row[j]: the last n of a
 * against the last j of b). tmp holds m + 1 values.
 */
static void nw_row(const uint64_t *a, size_t n, const uint64_t *b, size_t m, bool rev,
		   const struct tc_ascore *sc, int64_t *row)
{
	row[0] = 0;
	for (size_t j = 1; j <= m; j++)
		row[j] = row[j - 1] + sc->gap;
	for (size_t t = 0; t < n; t++) {
		uint64_t ai = rev ? a[n - 1 - t] : a[t];
		int64_t diag = row[0];
		row[0] += sc->gap;
		for (size_t j = 1; j <= m; j++) {
			uint64_t bj = rev ? b[m - j] : b[j - 1];
			int64_t d = diag + (ai == bj ? sc->match : sc->mismatch);
			int64_t u = row[j] + sc->gap, l = row[j - 1] + sc->gap;
			diag = row[j];
			if (u > d)
				d = u;
			if (l > d)
				d = l;
			row[j] = d;
		}
	}
}

int64_t tc_align_score(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
		       const struct tc_ascore *sc)
{
	static const struct tc_ascore def = TC_ASCORE_DEFAULT;
	int64_t *row = tc_xmalloc((nb + 1) * sizeof(*row)), s;

	nw_row(a, na, b, nb, false, sc ? sc : &def, row);
	s = row[nb];
	free(row);
	return s;
}

/* ---- bit-parallel LCS rows ---------------------------------------------- */

struct lcs_ctx {
	const uint32_t *da, *db;   /* dense symbol ids of a and b */
	size_t nsyms;
	uint32_t *row_of;          /* dense id -> match-mask row, UINT32_MAX */
	uint32_t *used;            /* ids holding a row */
	uint64_t *pm;              /* match masks */
	size_t pm_alloc;           /* words */
	uint64_t *v;
	size_t v_alloc;
};

/* Scalar LCS row, for subproblems whose masks would be too large. */
static void lcs_row_scalar(const uint32_t *a, size_t n, const uint32_t *b, size_t m,
			   bool rev, int64_t *row)
{
	memset(row, 0, (m + 1) * sizeof(*row));
	for (size_t t = 0; t < n; t++) {
		uint32_t ai = rev ? a[n - 1 - t] : a[t];
		int64_t diag = 0;
		for (size_t j = 1; j <= m; j++) {
			uint32_t bj = rev ? b[m - j] : b[j - 1];
			int64_t d = ai == bj ? diag + 1 : 0, up = row[j], best;
			diag = up;
			best = up > row[j - 1] ? up : row[j - 1];
			row[j] = d > best ? d : best;
		}
	}
}

/* row[j] = LCS length of a[0..n) and b[0..j) (or of their ends, rev). */
static void lcs_row(struct lcs_ctx *cx, const uint32_t *a, size_t n, const uint32_t *b,
		    size_t m, bool rev, int64_t *row)
{
	size_t w = (m + 63) / 64, nrows = 0, need;

	/* distinct symbols of b that get a mask */
	for (size_t k = 0; k < m; k++) {
		uint32_t id = b[k];
		if (cx->row_of[id] == UINT32_MAX) {
			cx->row_of[id] = (uint32_t)nrows;
			cx->used[nrows++] = id;
		}
	}
	need = nrows * w;
	if (need > PM_MAX_WORDS && need > 64 * (m + n)) {
		for (size_t r = 0; r < nrows; r++)
			cx->row_of[cx->used[r]] = UINT32_MAX;
		lcs_row_scalar(a, n, b, m, rev, row);
		return;
	}
	TC_ALLOC_GROW(cx->pm, need, cx->pm_alloc);
	memset(cx->pm, 0, need * sizeof(*cx->pm));
	for (size_t k = 0; k < m; k++) {
		uint32_t id = rev ? b[m - 1 - k] : b[k];
		cx->pm[(size_t)cx->row_of[id] * w + k / 64] |= (uint64_t)1 << (k % 64);
	}
	TC_ALLOC_GROW(cx->v, w, cx->v_alloc);
	for (size_t k = 0; k < w; k++)
		cx->v[k] = ~(uint64_t)0;
	for (size_t t = 0; t < n; t++) {
		uint32_t r = cx->row_of[rev ? a[n - 1 - t] : a[t]];
		const uint64_t *pm;
		uint64_t carry = 0;

		if (r == UINT32_MAX)
			continue;
		pm = cx->pm + (size_t)r * w;
		for (size_t k = 0; k < w; k++) {
			uint64_t x = cx->v[k], y = pm[k], u = x & y;
			uint64_t s = x + u, s2 = s + carry;
			carry = (s < x) | (s2 < s);
			cx->v[k] = s2 | (x & ~y);
		}
	}
	row[0] = 0;
	for (size_t k = 0; k < m; k++)
		row[k + 1] = row[k] + !((cx->v[k / 64] >> (k % 64)) & 1);
	for (size_t r = 0; r < nrows; r++)
		cx->row_of[cx->used[r]] = UINT32_MAX;
}

/* ---- Hirschberg ---------------------------------------------------------- */

struct hb {
	const uint64_t *a, *b;
	const struct tc_ascore *sc;
	struct lcs_ctx *lcs;       /* NULL: Needleman-Wunsch rows */
	int64_t *f, *r;            /* rows, nb + 1 each */
	struct tc_alignment *al;
};

/* Solve a subproblem directly when it is small; returns true if it did. */
static bool hb_base(struct hb *h, size_t i0, size_t i1, size_t j0, size_t j1)
{
	size_t n = i1 - i0, m = j1 - j0;

	if (n == 0) {
		push_n(h->al, TC_ACOL_ONLY_B, m);
		return true;
	}
	if (m == 0) {
		push_n(h->al, TC_ACOL_ONLY_A, n);
		return true;
	}
	if (n <= 1 || m <= 1 || (uint64_t)(n + 1) * (m + 1) <= BASE_CELLS) {
		full_nw(h->a + i0, n, h->b + j0, m, h->sc, h->al);
		return true;
	}
	return false;
}

/* The column of the middle row where an optimal path crosses it: the
 * first j with the largest f[j] + r[m - j]. */
static size_t hb_split(const struct hb *h, size_t m)
{
	int64_t best = INT64_MIN;
	size_t best_j = 0;

	for (size_t j = 0; j <= m; j++) {
		int64_t v = h->f[j] + h->r[m - j];
		if (v > best) {
			best = v;
			best_j = j;
		}
	}
	return best_j;
}

static void hb_nw(struct hb *h, size_t i0, size_t i1, size_t j0, size_t j1)
{
	size_t mid, j;

	if (hb_base(h, i0, i1, j0, j1))
		return;
	mid = i0 + (i1 - i0) / 2;
	nw_row(h->a + i0, mid - i0, h->b + j0, j1 - j0, false, h->sc, h->f);
	nw_row(h->a + mid, i1 - mid, h->b + j0, j1 - j0, true, h->sc, h->r);
	j = j0 + hb_split(h, j1 - j0);
	hb_nw(h, i0, mid, j0, j);
	hb_nw(h, mid, i1, j, j1);
}

static void hb_lcs(struct hb *h, size_t i0, size_t i1, size_t j0, size_t j1)
{
	const struct lcs_ctx *cx = h->lcs;
	size_t p = 0, s = 0, mid, j;

	/* a common prefix and suffix are part of some LCS */
	while (i0 + p < i1 && j0 + p < j1 && h->a[i0 + p] == h->b[j0 + p])
		p++;
	push_n(h->al, TC_ACOL_MATCH, p);
	i0 += p;
	j0 += p;
	while (i1 - s > i0 && j1 - s > j0 && h->a[i1 - 1 - s] == h->b[j1 - 1 - s])
		s++;
	i1 -= s;
	j1 -= s;
	if (!hb_base(h, i0, i1, j0, j1)) {
		mid = i0 + (i1 - i0) / 2;
		lcs_row(h->lcs, cx->da + i0, mid - i0, cx->db + j0, j1 - j0, false, h->f);
		lcs_row(h->lcs, cx->da + mid, i1 - mid, cx->db + j0, j1 - j0, true, h->r);
		j = j0 + hb_split(h, j1 - j0);
		hb_lcs(h, i0, mid, j0, j);
		hb_lcs(h, mid, i1, j, j1);
	}
	push_n(h->al, TC_ACOL_MATCH, s);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* A sorted copy of v without duplicates (*nu values); returns new. */
static uint64_t *sorted_unique(const uint64_t *v, size_t n, size_t *nu)
{
	uint64_t *u = tc_xmalloc((n ? n : 1) * sizeof(*u));
	size_t k = 0;

	if (n) {
		memcpy(u, v, n * sizeof(*u));
		qsort(u, n, sizeof(*u), cmp_u64);
	}
	for (size_t i = 0; i < n; i++)
		if (!k || u[k - 1] != u[i])
			u[k++] = u[i];
	*nu = k;
	return u;
}

static uint32_t dense_id(const uint64_t *u, size_t nu, uint64_t v)
{
	size_t lo = 0, hi = nu;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

int tc_align_pair(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
		  const struct tc_ascore *sc, int engine, struct tc_alignment *al,
		  struct tc_error *err)
{
	static const struct tc_ascore def = TC_ASCORE_DEFAULT;
	struct hb h;
	struct lcs_ctx cx;

	if (!sc)
		sc = &def;
	al->ncols = 0;
	al->na = na;
	al->nb = nb;
	if (engine == TC_AENGINE_AUTO)
		engine = tc_ascore_lcs_ok(sc) ? TC_AENGINE_LCS : TC_AENGINE_NW;
	if (engine == TC_AENGINE_LCS && !tc_ascore_lcs_ok(sc))
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "the lcs engine needs mismatch <= 2 gap < match "
				    "(scores %d,%d,%d)", sc->match, sc->mismatch, sc->gap);
	if (engine == TC_AENGINE_FULL &&
	    (uint64_t)(na + 1) * (uint64_t)(nb + 1) > TC_ALIGN_FULL_MAX_CELLS)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "the full engine would need a %zu x %zu matrix; use lcs or nw",
				    na + 1, nb + 1);
	al->engine = engine;
	if (engine == TC_AENGINE_FULL) {
		full_nw(a, na, b, nb, sc, al);
		goto done;
	}
	memset(&h, 0, sizeof(h));
	h.a = a;
	h.b = b;
	h.sc = sc;
	h.al = al;
	h.f = tc_xmalloc((nb + 1) * sizeof(*h.f));
	h.r = tc_xmalloc((nb + 1) * sizeof(*h.r));
	if (engine == TC_AENGINE_LCS) {
		uint64_t *all = tc_xmalloc((na + nb + 1) * sizeof(*all)), *u;
		uint32_t *da, *db;
		size_t nu;

		if (na)
			memcpy(all, a, na * sizeof(*a));
		if (nb)
			memcpy(all + na, b, nb * sizeof(*b));
		u = sorted_unique(all, na + nb, &nu);
		free(all);
		da = tc_xmalloc((na + 1) * sizeof(*da));
		db = tc_xmalloc((nb + 1) * sizeof(*db));
		for (size_t i = 0; i < na; i++)
			da[i] = dense_id(u, nu, a[i]);
		for (size_t j = 0; j < nb; j++)
			db[j] = dense_id(u, nu, b[j]);
		free(u);
		memset(&cx, 0, sizeof(cx));
		cx.da = da;
		cx.db = db;
		cx.nsyms = nu;
		cx.row_of = tc_xmalloc((nu + 1) * sizeof(*cx.row_of));
		memset(cx.row_of, 0xff, (nu + 1) * sizeof(*cx.row_of));
		cx.used = tc_xmalloc((nu + 1) * sizeof(*cx.used));
		h.lcs = &cx;
		hb_lcs(&h, 0, na, 0, nb);
		free(da);
		free(db);
		free(cx.row_of);
		free(cx.used);
		free(cx.pm);
		free(cx.v);
	} else {
		hb_nw(&h, 0, na, 0, nb);
	}
	free(h.f);
	free(h.r);
done:
	if (sc->mismatch == 2 * sc->gap)
		al_compact(al);
	al_count(al, a, b, sc);
	return 0;
}
