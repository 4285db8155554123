/*
 * merge.c - the merge of global traces: lead traces merged across ranks.
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
 *
 * Also here: the time entries of event nodes (struct tc_gtime), joined
 * where their means agree as matched nodes merge.
 */
#include "lib/compat.h"
#include "lib/gtrace/internal.h"
#include "lib/pool.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WLCS_MAX_CELLS ((size_t)1 << 22)
#define GREEDY_LOOKAHEAD 64

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
	ca = tc_gt_param_min(&a->iters);
	cb = tc_gt_param_min(&b->iters);
	if (tc_gt_shape_equal(a, b))
		return a->weight < b->weight ? a->weight : b->weight;
	body = wlcs(a->body, a->nbody, b->body, b->nbody, NULL);
	if (!body)
		return 0;
	return tc_gt_sat_mul(body, ca < cb ? ca : cb);
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
			total = tc_gt_sat_add(total, w);
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

	while (pre < nx && pre < ny && tc_gt_shape_equal(&x[pre], &y[pre])) {
		total = tc_gt_sat_add(total, match_weight(&x[pre], &y[pre]));
		if (out)
			pairs_add(out, pre, pre);
		pre++;
	}
	while (suf < nx - pre && suf < ny - pre &&
	       tc_gt_shape_equal(&x[nx - 1 - suf], &y[ny - 1 - suf]))
		suf++;
	mx = nx - pre - suf;
	my = ny - pre - suf;
	if (mx && my) {
		if ((mx + 1) > WLCS_MAX_CELLS / (my + 1)) {
			total = tc_gt_sat_add(total, greedy(x, nx - suf, y, ny - suf, pre, pre, out));
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
					if (w && tc_gt_sat_add(W[(i - 1) * cols + j - 1], w) > best) {
						best = tc_gt_sat_add(W[(i - 1) * cols + j - 1], w);
						M[i * cols + j] = 1;
					}
					W[i * cols + j] = best;
				}
			}
			total = tc_gt_sat_add(total, W[mx * cols + my]);
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
		total = tc_gt_sat_add(total, match_weight(&x[nx - 1 - k], &y[ny - 1 - k]));
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
			tc_gt_param_merge(&a->p[p], &b->p[p]);
			tc_gt_param_consolidate(&a->p[p], tc_gparam_kind(p), o);
		}
		tc_rsd_stat_merge(&a->comp, &b->comp);
		tc_rsd_stat_merge(&a->comm, &b->comm);
		tc_gt_node_release(b);
		tc_gt_node_update(a);
		return;
	}
	tc_gt_param_merge(&a->iters, &b->iters);
	tc_gt_param_consolidate(&a->iters, TC_GPK_UINT, o);
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
	tc_gt_node_release(b);
	tc_gt_node_update(a);
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
		if (!tc_gt_shape_equal(&x[i], &y[i]))
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
	tc_gt_param_merge(&a->iters, &b->iters);
	tc_gt_param_consolidate(&a->iters, TC_GPK_UINT, o);
	zip_seq(a->body, b->body, a->nbody, o);
	tc_gt_node_release(b);
	tc_gt_node_update(a);
}

/* What follows the merge or append of b's nodes into a: b's ranks,
 * counts and call sites join a's, and b (its nodes moved out) is freed. */
static void absorb(struct tc_gtrace *a, struct tc_gtrace *b)
{
	free(b->seq);
	b->seq = NULL;
	b->n = 0;
	tc_granks_union(&a->ranks, &a->ranks, &b->ranks);
	a->events = tc_gt_sat_add(a->events, b->events);
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

void tc_gtrace_merge(struct tc_gtrace *a, struct tc_gtrace **bp, const struct tc_merge_opts *opts)
{
	struct tc_gtrace *b = *bp;
	struct tc_merge_opts o;
	struct tc_gnode *seq;
	size_t n;

	if (!b)
		return;
	*bp = NULL;
	tc_gt_merge_opts_fix(&o, opts);
	if (o.filtering && seq_shape_equal(a->seq, a->n, b->seq, b->n)) {
		zip_seq(a->seq, b->seq, a->n, &o);
	} else {
		merge_seq(a->seq, a->n, b->seq, b->n, &o, &seq, &n);
		free(a->seq);
		a->seq = seq;
		a->n = a->alloc = n;
	}
	absorb(a, b);
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
	absorb(a, b);
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
