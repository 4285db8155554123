/*
 * msa.c - multiple alignment of process event sequences: progressive
 * (Weber slides 14-15) and hierarchical along the call tree (slides
 * 16-17).
 */
#include "lib/compat.h"
#include "align/align.h"
#include "lib/error.h"
#include "lib/hash.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

void tc_msa_init(struct tc_msa *m)
{
	memset(m, 0, sizeof(*m));
}

void tc_msa_release(struct tc_msa *m)
{
	free(m->cell);
	free(m->order);
	free(m->guide);
	tc_msa_init(m);
}

/* ---- symbol histograms -------------------------------------------------- */

struct hist {
	uint64_t *sym;
	uint64_t *count;
	size_t n;
	size_t len;             /* sequence length */
};

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

static void hist_build(struct hist *h, const uint64_t *s, size_t n)
{
	uint64_t *u = tc_xmalloc((n ? n : 1) * sizeof(*u));

	if (n) {
		memcpy(u, s, n * sizeof(*u));
		qsort(u, n, sizeof(*u), cmp_u64);
	}
	h->sym = tc_xmalloc((n ? n : 1) * sizeof(*h->sym));
	h->count = tc_xmalloc((n ? n : 1) * sizeof(*h->count));
	h->n = 0;
	for (size_t i = 0; i < n; i++) {
		if (h->n && h->sym[h->n - 1] == u[i]) {
			h->count[h->n - 1]++;
			continue;
		}
		h->sym[h->n] = u[i];
		h->count[h->n++] = 1;
	}
	h->len = n;
	free(u);
}

static void hist_release(struct hist *h)
{
	free(h->sym);
	free(h->count);
}

static double hist_sim(const struct hist *x, const struct hist *y)
{
	size_t i = 0, j = 0;
	uint64_t common = 0, longer = TC_MAX(x->len, y->len);

	while (i < x->n && j < y->n) {
		if (x->sym[i] < y->sym[j])
			i++;
		else if (x->sym[i] > y->sym[j])
			j++;
		else {
			common += TC_MIN(x->count[i], y->count[j]);
			i++;
			j++;
		}
	}
	return longer ? (double)common / (double)longer : 1.0;
}

/* ---- progressive ---------------------------------------------------------- */

/*
 * Add row s to the block by its pairwise alignment al against row r
 * (a = r's sequence, b = s's): columns where r has a gap stay gaps for
 * s; an event of s against a gap in r opens a new column, a gap for
 * every row already in the block. pos[row][k] is the column of event k.
 */
static void merge_row(size_t **pos, const size_t *lens, const size_t *rows, size_t nrows,
		      size_t r, size_t s, const struct tc_alignment *al, size_t *ncols)
{
	size_t old = *ncols, c = 0, nc = 0, ka = 0, kb = 0;
	size_t *colmap = tc_xmalloc((old + 1) * sizeof(*colmap));

	pos[s] = tc_xmalloc((lens[s] + 1) * sizeof(**pos));
	for (size_t t = 0; t < al->ncols; t++) {
		switch (al->col[t]) {
		case TC_ACOL_ONLY_B:
			pos[s][kb++] = nc++;
			break;
		default: {
			size_t target = pos[r][ka++];
			while (c < target)
				colmap[c++] = nc++;
			colmap[c++] = nc;
			if (al->col[t] != TC_ACOL_ONLY_A)
				pos[s][kb++] = nc;
			nc++;
		}
		}
	}
	while (c < old)
		colmap[c++] = nc++;
	for (size_t i = 0; i < nrows; i++) {
		size_t row = rows[i];
		for (size_t k = 0; k < lens[row]; k++)
			pos[row][k] = colmap[pos[row][k]];
	}
	*ncols = nc;
	free(colmap);
}

static void fill_cells(struct tc_msa *m, size_t **pos, const size_t *lens, size_t n,
		       size_t ncols)
{
	m->nrows = n;
	m->ncols = ncols;
	m->cell = tc_xmalloc(tc_st_mult(tc_st_mult(n, ncols ? ncols : 1), sizeof(*m->cell)));
	for (size_t i = 0; i < n * ncols; i++)
		m->cell[i] = -1;
	for (size_t r = 0; r < n; r++)
		for (size_t k = 0; k < lens[r]; k++)
			m->cell[r * ncols + pos[r][k]] = (int64_t)k;
}

static bool all_equal(const uint64_t *const *syms, const size_t *lens, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (lens[i] != lens[0] ||
		    (lens[0] && memcmp(syms[i], syms[0], lens[0] * sizeof(**syms))))
			return false;
	return true;
}

/* Progressive alignment of n symbol sequences (rows). */
static int progressive(const uint64_t *const *syms, const size_t *lens, size_t n,
		       const struct tc_msa_opts *o, struct tc_msa *m, struct tc_error *err)
{
	struct hist *h;
	double *best_sim;
	size_t *best_ref, **pos, *added_rows, ncols = 0;
	bool *added;
	int rc = 0;

	tc_msa_release(m);
	m->order = tc_xmalloc((n ? n : 1) * sizeof(*m->order));
	m->guide = tc_xmalloc((n ? n : 1) * sizeof(*m->guide));
	if (n == 0)
		return 0;
	if (all_equal(syms, lens, n)) {
		/* nothing to align (common inside call trees) */
		m->nrows = n;
		m->ncols = lens[0];
		m->cell = tc_xmalloc(tc_st_mult(tc_st_mult(n, lens[0] ? lens[0] : 1),
						sizeof(*m->cell)));
		for (size_t r = 0; r < n; r++) {
			m->order[r] = r;
			m->guide[r] = r ? 0 : SIZE_MAX;
			for (size_t c = 0; c < lens[0]; c++)
				m->cell[r * lens[0] + c] = (int64_t)c;
		}
		return 0;
	}
	h = tc_xcalloc(n, sizeof(*h));
	best_sim = tc_xcalloc(n, sizeof(*best_sim));
	best_ref = tc_xcalloc(n, sizeof(*best_ref));
	pos = tc_xcalloc(n, sizeof(*pos));
	added_rows = tc_xcalloc(n, sizeof(*added_rows));
	added = tc_xcalloc(n, sizeof(*added));
	for (size_t i = 0; i < n; i++)
		hist_build(&h[i], syms[i], lens[i]);

	/* the first row opens the block */
	pos[0] = tc_xmalloc((lens[0] + 1) * sizeof(**pos));
	for (size_t k = 0; k < lens[0]; k++)
		pos[0][k] = k;
	ncols = lens[0];
	added[0] = true;
	added_rows[0] = 0;
	m->order[0] = 0;
	m->guide[0] = SIZE_MAX;
	for (size_t i = 1; i < n; i++) {
		best_sim[i] = hist_sim(&h[i], &h[0]);
		best_ref[i] = 0;
	}
	for (size_t step = 1; step < n; step++) {
		struct tc_alignment al;
		size_t s = SIZE_MAX, r;

		/* the row most similar to one in the block, lowest index on ties */
		for (size_t i = 0; i < n; i++)
			if (!added[i] && (s == SIZE_MAX || best_sim[i] > best_sim[s]))
				s = i;
		r = best_ref[s];
		tc_alignment_init(&al);
		rc = tc_align_pair(syms[r], lens[r], syms[s], lens[s], &o->score, o->engine, &al,
				   err);
		if (rc) {
			tc_alignment_release(&al);
			goto out;
		}
		m->pairs++;
		m->cells += (uint64_t)lens[r] * lens[s];
		merge_row(pos, lens, added_rows, step, r, s, &al, &ncols);
		tc_alignment_release(&al);
		added[s] = true;
		added_rows[step] = s;
		m->order[step] = s;
		m->guide[s] = r;
		for (size_t i = 0; i < n; i++) {
			double v;
			if (added[i])
				continue;
			v = hist_sim(&h[i], &h[s]);
			if (v > best_sim[i]) {
				best_sim[i] = v;
				best_ref[i] = s;
			}
		}
	}
	fill_cells(m, pos, lens, n, ncols);
out:
	for (size_t i = 0; i < n; i++) {
		hist_release(&h[i]);
		free(pos[i]);
	}
	free(h);
	free(best_sim);
	free(best_ref);
	free(pos);
	free(added_rows);
	free(added);
	return rc;
}

int tc_msa_progressive(struct tc_aseq *const *seqs, size_t n, const struct tc_msa_opts *o,
		       struct tc_msa *m, struct tc_error *err)
{
	const uint64_t **syms = tc_xmalloc((n ? n : 1) * sizeof(*syms));
	size_t *lens = tc_xmalloc((n ? n : 1) * sizeof(*lens));
	int rc;

	for (size_t i = 0; i < n; i++) {
		syms[i] = seqs[i]->sym;
		lens[i] = seqs[i]->n;
	}
	rc = progressive(syms, lens, n, o, m, err);
	free(syms);
	free(lens);
	return rc;
}

/* ---- hierarchical --------------------------------------------------------- */

/* The flattened block, grown column by column (column-major). */
struct hblock {
	size_t nrows;
	int64_t *col;           /* ncols * nrows */
	size_t ncols, alloc;    /* alloc in columns */
};

struct hctx {
	struct tc_aseq *const *seqs;
	struct tc_ctree *trees;
	size_t n;
	struct tc_msa_opts opts;   /* with mismatches disabled */
	struct hblock out;
	struct tc_msa *m;
	struct tc_error *err;
};

static int64_t *hblock_add(struct hblock *b)
{
	int64_t *c;

	TC_ALLOC_GROW(b->col, tc_st_mult(b->ncols + 1, b->nrows), b->alloc);
	c = b->col + b->ncols * b->nrows;
	for (size_t r = 0; r < b->nrows; r++)
		c[r] = -1;
	b->ncols++;
	return c;
}

/*
 * Align the children of node[i] of tree rows[i] (all nodes with the same
 * label) and append the flattened columns.
 */
static int hmsa(struct hctx *h, const size_t *rows, const size_t *node, size_t k)
{
	const uint64_t **syms = tc_xmalloc(k * sizeof(*syms));
	uint64_t **lab = tc_xmalloc(k * sizeof(*lab));
	size_t *lens = tc_xmalloc(k * sizeof(*lens));
	size_t *sub_rows = tc_xmalloc(k * sizeof(*sub_rows));
	size_t *sub_node = tc_xmalloc(k * sizeof(*sub_node));
	struct tc_msa blk;
	int rc;

	for (size_t i = 0; i < k; i++) {
		const struct tc_ctree_node *nd = &h->trees[rows[i]].node[node[i]];
		lab[i] = tc_xmalloc((nd->nchild + 1) * sizeof(**lab));
		for (size_t c = 0; c < nd->nchild; c++)
			lab[i][c] = h->trees[rows[i]].node[nd->child[c]].label;
		syms[i] = lab[i];
		lens[i] = nd->nchild;
	}
	tc_msa_init(&blk);
	rc = progressive(syms, lens, k, &h->opts, &blk, h->err);
	if (rc)
		goto out;
	h->m->pairs += blk.pairs;
	h->m->cells += blk.cells;
	for (size_t c = 0; c < blk.ncols; c++) {
		size_t ns = 0;
		bool leaf = false;

		for (size_t i = 0; i < k; i++) {
			int64_t e = blk.cell[i * blk.ncols + c];
			const struct tc_ctree_node *nd;
			if (e < 0)
				continue;
			nd = &h->trees[rows[i]].node[h->trees[rows[i]].node[node[i]].child[e]];
			sub_rows[ns] = rows[i];
			sub_node[ns] = h->trees[rows[i]].node[node[i]].child[e];
			leaf = nd->leaf;
			ns++;
		}
		if (leaf) {
			int64_t *col = hblock_add(&h->out);
			for (size_t i = 0; i < ns; i++)
				col[sub_rows[i]] = (int64_t)h->trees[sub_rows[i]].node[sub_node[i]].first;
		} else if (ns) {
			/* sub_rows/sub_node are reused by the recursion's caller
			 * frame only after it returns: copy them */
			size_t *r2 = tc_xmalloc(ns * sizeof(*r2)), *n2 = tc_xmalloc(ns * sizeof(*n2));
			memcpy(r2, sub_rows, ns * sizeof(*r2));
			memcpy(n2, sub_node, ns * sizeof(*n2));
			rc = hmsa(h, r2, n2, ns);
			free(r2);
			free(n2);
			if (rc)
				goto out;
		}
	}
out:
	tc_msa_release(&blk);
	for (size_t i = 0; i < k; i++)
		free(lab[i]);
	free(lab);
	free(syms);
	free(lens);
	free(sub_rows);
	free(sub_node);
	return rc;
}

int tc_msa_hierarchical(struct tc_aseq *const *seqs, size_t n, const struct tc_msa_opts *o,
			struct tc_msa *m, struct tc_error *err)
{
	struct hctx h;
	size_t *rows, *roots;
	int rc;

	tc_msa_release(m);
	m->order = tc_xmalloc((n ? n : 1) * sizeof(*m->order));
	m->guide = tc_xmalloc((n ? n : 1) * sizeof(*m->guide));
	for (size_t i = 0; i < n; i++) {
		m->order[i] = i;
		m->guide[i] = SIZE_MAX;
	}
	if (n == 0)
		return 0;
	memset(&h, 0, sizeof(h));
	h.seqs = seqs;
	h.n = n;
	h.m = m;
	h.err = err;
	h.opts = *o;
	/* one call or one event per column: mismatches cost more than two
	 * gaps, so no optimal alignment uses one */
	if ((int64_t)h.opts.score.mismatch >= 2 * (int64_t)h.opts.score.gap)
		h.opts.score.mismatch = 2 * h.opts.score.gap - 1;
	if (h.opts.engine == TC_AENGINE_LCS && !tc_ascore_lcs_ok(&h.opts.score))
		h.opts.engine = TC_AENGINE_AUTO;
	h.out.nrows = n;
	h.trees = tc_xcalloc(n, sizeof(*h.trees));
	for (size_t i = 0; i < n; i++)
		tc_ctree_build(&h.trees[i], seqs[i]);
	rows = tc_xmalloc(n * sizeof(*rows));
	roots = tc_xcalloc(n, sizeof(*roots));
	for (size_t i = 0; i < n; i++)
		rows[i] = i;
	rc = hmsa(&h, rows, roots, n);
	if (!rc) {
		m->nrows = n;
		m->ncols = h.out.ncols;
		m->cell = tc_xmalloc(tc_st_mult(tc_st_mult(n, m->ncols ? m->ncols : 1),
						sizeof(*m->cell)));
		for (size_t c = 0; c < m->ncols; c++)
			for (size_t r = 0; r < n; r++)
				m->cell[r * m->ncols + c] = h.out.col[c * n + r];
	}
	for (size_t i = 0; i < n; i++)
		tc_ctree_release(&h.trees[i]);
	free(h.trees);
	free(h.out.col);
	free(rows);
	free(roots);
	return rc;
}

/* ---- statistics ------------------------------------------------------------ */

void tc_msa_stats(const struct tc_msa *m, struct tc_aseq *const *seqs,
		  struct tc_msa_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (size_t c = 0; c < m->ncols; c++) {
		bool gap = false, mixed = false, have = false;
		uint64_t sym = 0;
		for (size_t r = 0; r < m->nrows; r++) {
			int64_t e = m->cell[r * m->ncols + c];
			if (e < 0) {
				gap = true;
				continue;
			}
			if (have && seqs[r]->sym[e] != sym)
				mixed = true;
			sym = seqs[r]->sym[e];
			have = true;
		}
		st->gapped += gap;
		st->mixed += mixed;
		st->conserved += !gap && !mixed;
	}
	st->identity = m->ncols ? (double)st->conserved / (double)m->ncols : 1.0;
}

bool tc_msa_check(const struct tc_msa *m, struct tc_aseq *const *seqs)
{
	for (size_t r = 0; r < m->nrows; r++) {
		size_t next = 0;
		for (size_t c = 0; c < m->ncols; c++) {
			int64_t e = m->cell[r * m->ncols + c];
			if (e < 0)
				continue;
			if ((size_t)e != next)
				return false;
			next++;
		}
		if (next != seqs[r]->n)
			return false;
	}
	for (size_t c = 0; c < m->ncols; c++) {
		bool any = false;
		for (size_t r = 0; r < m->nrows && !any; r++)
			any = m->cell[r * m->ncols + c] >= 0;
		if (!any)
			return false;
	}
	return true;
}
