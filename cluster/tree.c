/*
 * tree.c - the radix-tree reductions of the clustering modes.
 *
 * The papers cluster over a radix tree of the processes: "each node
 * receives the call-path signatures of its children. Then, it compares
 * its own call-path signature with those of its children. Finally, it
 * sends different signatures and corresponding ranklists to its parent.
 * At the top of the tree, node 0 receives all of the different signatures
 * and their ranklists" (dissertation §3.1; the same for parameter
 * clustering over "a radix tree of its own members", §3.2, and for
 * ACURDION's Alg. 5, §4.1.1). Here the nodes are input indices; a level
 * of the tree is a set of independent nodes, so the levels run bottom-up
 * one after the other and the nodes of a level in parallel. What a node
 * does depends only on its own rank and its children's lists, which are
 * merged in a fixed order, so the result does not depend on how many
 * threads run the levels.
 *
 * Ranklists do not travel up the tree: a cluster travels as its head (an
 * input index), and when a node merges two clusters it records in head[]
 * that one head now belongs to the other; following head[] after the
 * reduction gives every rank its cluster (the root's list), in O(P) in
 * all instead of O(P log P) ranklist copies.
 */
#include "lib/compat.h"
#include "cluster/internal.h"
#include "lib/pool.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- forests ------------------------------------------------------------ */

void tc_forest_init(struct tc_forest *f, const uint32_t *idx, size_t n, const size_t *off,
		    size_t ntrees, unsigned radix)
{
	uint8_t *depth = tc_xmalloc(n ? n : 1);
	size_t *count;
	unsigned maxd = 0;

	memset(f, 0, sizeof(*f));
	f->n = n;
	f->idx = idx;
	f->ntrees = ntrees;
	f->off = off;
	f->radix = radix < 2 ? 2 : radix;
	f->tree = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*f->tree)));
	for (size_t t = 0; t < ntrees; t++) {
		for (size_t p = off[t]; p < off[t + 1]; p++) {
			size_t j = p - off[t];
			f->tree[p] = (uint32_t)t;
			depth[p] = j ? (uint8_t)(depth[off[t] + (j - 1) / f->radix] + 1) : 0;
			if (depth[p] > maxd)
				maxd = depth[p];
		}
	}
	f->nlevels = n ? maxd + 1 : 0;
	/* counting sort by depth, deepest first */
	count = tc_xcalloc(f->nlevels + 1, sizeof(*count));
	for (size_t p = 0; p < n; p++)
		count[maxd - depth[p] + 1]++;
	for (unsigned l = 0; l < f->nlevels; l++)
		count[l + 1] += count[l];
	f->level = tc_xmalloc((f->nlevels + 1) * sizeof(*f->level));
	memcpy(f->level, count, (f->nlevels + 1) * sizeof(*f->level));
	f->order = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*f->order)));
	for (size_t p = 0; p < n; p++)
		f->order[count[maxd - depth[p]]++] = p;
	free(count);
	free(depth);
}

void tc_forest_release(struct tc_forest *f)
{
	free(f->tree);
	free(f->order);
	free(f->level);
	memset(f, 0, sizeof(*f));
}

size_t tc_forest_children(const struct tc_forest *f, size_t pos, size_t *first)
{
	size_t t = f->tree[pos], base = f->off[t], m = f->off[t + 1] - base;
	size_t j = pos - base, c = j * f->radix + 1;

	*first = base + c;
	if (c >= m)
		return 0;
	return TC_MIN((size_t)f->radix, m - c);
}

/* Positions per job: fixed, so the split into jobs never depends on the
 * thread count (not that it could change the result). */
#define CHUNK 2048

struct run_job {
	const struct tc_forest *f;
	size_t lo, hi;          /* into order */
	tc_forest_fn fn;
	void *ctx;
};

static void run_chunk(size_t c, void *p)
{
	struct run_job *job = p;
	size_t lo = job->lo + c * CHUNK, hi = TC_MIN(job->hi, lo + CHUNK);

	for (size_t k = lo; k < hi; k++)
		job->fn(job->f, job->f->order[k], job->ctx);
}

void tc_forest_run(const struct tc_forest *f, struct tc_pool *pool, tc_forest_fn fn, void *ctx)
{
	for (unsigned l = 0; l < f->nlevels; l++) {
		struct run_job job = { f, f->level[l], f->level[l + 1], fn, ctx };
		size_t nchunks = (job.hi - job.lo + CHUNK - 1) / CHUNK;

		if (pool && nchunks > 1 && tc_pool_threads(pool) > 1)
			tc_pool_for(pool, nchunks, run_chunk, &job);
		else
			for (size_t c = 0; c < nchunks; c++)
				run_chunk(c, &job);
	}
}

void tc_tlist_release(struct tc_tlist *l)
{
	if (l->v && l->v != &l->one)
		free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* ---- forests of common shapes ------------------------------------------ */

void tc_all_tree_init(struct tc_all_tree *a, struct tc_forest *f, size_t n, unsigned radix)
{
	a->idx = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*a->idx)));
	for (size_t i = 0; i < n; i++)
		a->idx[i] = (uint32_t)i;
	a->off[0] = 0;
	a->off[1] = n;
	tc_forest_init(f, a->idx, n, a->off, 1, radix);
}

void tc_all_tree_release(struct tc_all_tree *a)
{
	free(a->idx);
	a->idx = NULL;
}

void tc_group_forest_init(struct tc_group_forest *g, struct tc_forest *f, const uint32_t *group,
			  size_t n, size_t ngroups, unsigned radix)
{
	size_t *fill = tc_xcalloc(ngroups + 1, sizeof(*fill));

	g->idx = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*g->idx)));
	g->off = tc_xcalloc(ngroups + 1, sizeof(*g->off));
	for (size_t i = 0; i < n; i++)
		g->off[group[i] + 1]++;
	for (size_t t = 0; t < ngroups; t++)
		g->off[t + 1] += g->off[t];
	memcpy(fill, g->off, (ngroups + 1) * sizeof(*fill));
	for (size_t i = 0; i < n; i++)
		g->idx[fill[group[i]]++] = (uint32_t)i;
	free(fill);
	tc_forest_init(f, g->idx, n, g->off, ngroups, radix);
}

void tc_group_forest_release(struct tc_group_forest *g)
{
	free(g->idx);
	free(g->off);
	g->idx = NULL;
	g->off = NULL;
}

void tc_resolve_heads(uint32_t *head, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t r = (uint32_t)i, x = (uint32_t)i;
		while (head[r] != r)
			r = head[r];
		while (head[x] != r) {
			uint32_t nx = head[x];
			head[x] = r;
			x = nx;
		}
	}
}

void tc_heads_from_groups(const uint32_t *group, size_t n, uint32_t *head)
{
	uint32_t *first;
	size_t ng = 0;

	for (size_t i = 0; i < n; i++)
		if (group[i] + (size_t)1 > ng)
			ng = group[i] + (size_t)1;
	first = tc_xmalloc(tc_st_mult(ng ? ng : 1, sizeof(*first)));
	for (size_t g = 0; g < ng; g++)
		first[g] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		if (first[group[i]] == UINT32_MAX)
			first[group[i]] = (uint32_t)i;
		head[i] = first[group[i]];
	}
	free(first);
}

/* ---- exact-key reduction ------------------------------------------------ */

struct exact_job {
	const struct tc_exact_spec *s;
	struct tc_tlist *lists;     /* per position */
	uint32_t *head;
};

static int cmp_keys(const struct tc_exact_spec *s, uint32_t a, uint32_t b)
{
	const uint64_t *x = &s->keys[(size_t)a * s->nk], *y = &s->keys[(size_t)b * s->nk];

	for (unsigned j = 0; j < s->nk; j++)
		if (x[j] != y[j])
			return x[j] < y[j] ? -1 : 1;
	return 0;
}

static long double item_mean(const struct tc_titem *t)
{
	return ((long double)t->hi * 18446744073709551616.0L + (long double)t->lo) /
	       (long double)t->size;
}

static bool means_alike(const struct tc_titem *a, const struct tc_titem *b, double t)
{
	long double x = item_mean(a), y = item_mean(b);
	long double d = x > y ? x - y : y - x;

	return d <= (long double)t * (x > y ? x : y);
}

/* b joins a: the lower head survives, the other is recorded under it. */
static void absorb(struct tc_titem *a, const struct tc_titem *b, uint32_t *head)
{
	uint64_t lo = a->lo + b->lo;

	if (b->head < a->head) {
		head[a->head] = b->head;
		a->head = b->head;
	} else {
		head[b->head] = a->head;
	}
	a->hi += b->hi + (lo < a->lo);
	a->lo = lo;
	a->size += b->size;
}

/* Merge the sorted list b into the sorted list a (both consumed). */
static void merge_lists(const struct tc_exact_spec *s, struct tc_tlist *a, struct tc_tlist *b,
			uint32_t *head)
{
	struct tc_titem *out = tc_xmalloc(tc_st_mult(a->n + b->n, sizeof(*out)));
	size_t i = 0, j = 0, k = 0;

	while (i < a->n || j < b->n) {
		int c;
		size_t rs, ie, je;

		if (j == b->n) {
			out[k++] = a->v[i++];
			continue;
		}
		if (i == a->n) {
			out[k++] = b->v[j++];
			continue;
		}
		c = cmp_keys(s, a->v[i].head, b->v[j].head);
		if (c < 0) {
			out[k++] = a->v[i++];
			continue;
		}
		if (c > 0) {
			out[k++] = b->v[j++];
			continue;
		}
		/* equal keys: the run of a, then b's run joins it */
		rs = k;
		for (ie = i; ie < a->n && !cmp_keys(s, a->v[ie].head, a->v[i].head); ie++)
			out[k++] = a->v[ie];
		for (je = j; je < b->n && !cmp_keys(s, b->v[je].head, b->v[j].head); je++) {
			size_t q = rs;
			if (s->count) {
				while (q < k && !means_alike(&out[q], &b->v[je], s->threshold))
					q++;
			}
			if (q < k)
				absorb(&out[q], &b->v[je], head);
			else
				out[k++] = b->v[je];
		}
		i = ie;
		j = je;
	}
	tc_tlist_release(a);
	tc_tlist_release(b);
	a->v = out;
	a->n = k;
}

static void exact_node(const struct tc_forest *f, size_t pos, void *p)
{
	struct exact_job *job = p;
	struct tc_tlist *l = &job->lists[pos];
	uint32_t i = f->idx[pos];
	size_t first, nc = tc_forest_children(f, pos, &first);

	l->one.head = i;
	l->one.size = 1;
	l->one.lo = job->s->count ? job->s->count[i] : 0;
	l->one.hi = 0;
	l->v = &l->one;
	l->n = 1;
	for (size_t c = first; c < first + nc; c++)
		merge_lists(job->s, l, &job->lists[c], job->head);
}

void tc_exact_run(struct tc_reduction *r, const struct tc_forest *view, struct tc_pool *pool)
{
	struct exact_job job = { r->exact, r->lists, r->head };

	tc_forest_run(view, pool, exact_node, &job);
}

void tc_exact_reduce(const struct tc_forest *f, const struct tc_exact_spec *s,
		     struct tc_pool *pool, uint32_t *head)
{
	struct exact_job job = { s, NULL, head };
	struct tc_reduction red;
	unsigned d;

	job.lists = tc_xcalloc(f->n ? f->n : 1, sizeof(*job.lists));
	for (size_t p = 0; p < f->n; p++)
		head[f->idx[p]] = f->idx[p];
	/* the lower levels may run in other processes (remote.c) */
	tc_reduction_init(&red, TC_RED_EXACT, f, job.lists, head, pool);
	red.exact = s;
	d = tc_reduction_remote(&red);
	tc_forest_run_above(f, d, pool, exact_node, &job);
	tc_reduction_release(&red);
	for (size_t t = 0; t < f->ntrees; t++)
		if (f->off[t] < f->off[t + 1])
			tc_tlist_release(&job.lists[f->off[t]]);
	free(job.lists);
	tc_forest_resolve(f, head);
}

void tc_forest_resolve(const struct tc_forest *f, uint32_t *head)
{
	for (size_t p = 0; p < f->n; p++) {
		uint32_t i = f->idx[p], r = i;
		while (head[r] != r)
			r = head[r];
		while (head[i] != r) {
			uint32_t nx = head[i];
			head[i] = r;
			i = nx;
		}
	}
}
