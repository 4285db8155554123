/*
 * kmodes.c - ACURDION's K modes: kfarthest and kmedoid.
 *
 * Bahmani's dissertation (2017) ch. 4. Adaptive signature building (§4.1,
 * Alg. 4; cluster/signature.c) finds the signatures that differ between
 * ranks; distances over those signatures are normalised by importance
 * group (§4.1.1); Alg. 5 then reduces over a binary tree of the ranks:
 * "At each node, if it has a child, it first receives the K selected
 * clusters and their signatures. Each node at most receives 2K clusters
 * ... it then adds itself (i.e., its own cluster) to the list of all
 * nodes 2K + 1, and determines the top K clusters" by K-Farthest or, for
 * K-Medoid, by "the Partitioning Around Medoids (PAM) algorithm that
 * randomly selects K medoids and iterates as long as the cost decreases
 * until a fixed point is reached". A cluster travels as its head and is
 * compared by "the signature of head"; the head at the root is the
 * cluster's lead. Single-step clustering uses every signature of the
 * format; double-step "first clusters over Call-Path and then (at the
 * second level) within the clusters created at the first level over other
 * dimensions".
 *
 * One departure: the papers compare the COMP and COMM times exactly, so
 * on a real run, where no two ranks take the same time, every rank is a
 * behaviour of its own and both modes always return K clusters (nine
 * leads on NPB EP, whose ranks all do the same). Here timing differences
 * within the noise (tc_timing_alike, opts->noise) count 0 in the
 * distances and make two clusters the same point: K is an upper bound
 * that ranks differing by timing noise alone never fill.
 */
#include "lib/compat.h"
#include "cluster/internal.h"
#include "lib/hash.h"
#include "lib/pool.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- distances (§4.1.1) --------------------------------------------------- */

static unsigned slot_of(unsigned s)
{
	return 3u - (unsigned)tc_sig_info(s)->group; /* group 3 -> 0, group 1 -> 2 */
}

struct range_job {
	const struct tc_signatures *sigs;
	size_t n;
	uint32_t dims;
	uint64_t (*lo)[TC_NSIGS], (*hi)[TC_NSIGS];
	uint64_t *mask;
};

#define RANGE_CHUNK 65536

/* Order-preserving map of a signature value to unsigned. */
static uint64_t ukey(unsigned s, uint64_t v)
{
	return tc_sig_info(s)->kind == TC_SIGK_SIGNED ? v ^ (UINT64_C(1) << 63) : v;
}

static void range_chunk(size_t c, void *p)
{
	struct range_job *job = p;
	size_t lo = c * RANGE_CHUNK, hi = TC_MIN(job->n, lo + RANGE_CHUNK);
	const uint64_t t0 = job->sigs[0].v[TC_SIG_TYPES];

	for (unsigned s = 0; s < TC_NSIGS; s++) {
		job->lo[c][s] = UINT64_MAX;
		job->hi[c][s] = 0;
	}
	job->mask[c] = 0;
	for (size_t i = lo; i < hi; i++) {
		const uint64_t *v = job->sigs[i].v;
		for (unsigned s = 0; s < TC_NSIGS; s++) {
			uint64_t k = ukey(s, v[s]);
			if (k < job->lo[c][s])
				job->lo[c][s] = k;
			if (k > job->hi[c][s])
				job->hi[c][s] = k;
		}
		job->mask[c] |= v[TC_SIG_TYPES] ^ t0;
	}
}

void tc_cluster_metric_init(struct tc_cluster_metric *m, const struct tc_signatures *sigs,
			    size_t n, uint32_t dims, int distance, struct tc_pool *pool)
{
	struct range_job job = { sigs, n, dims, NULL, NULL, NULL };
	size_t nchunks = (n + RANGE_CHUNK - 1) / RANGE_CHUNK;
	uint64_t lo[TC_NSIGS], hi[TC_NSIGS], mask = 0;

	memset(m, 0, sizeof(*m));
	m->dims = dims & ((UINT32_C(1) << TC_NSIGS) - 1);
	m->distance = distance;
	if (!n)
		return;
	job.lo = tc_xmalloc(tc_st_mult(nchunks, sizeof(*job.lo)));
	job.hi = tc_xmalloc(tc_st_mult(nchunks, sizeof(*job.hi)));
	job.mask = tc_xmalloc(tc_st_mult(nchunks, sizeof(*job.mask)));
	if (pool && nchunks > 1)
		tc_pool_for(pool, nchunks, range_chunk, &job);
	else
		for (size_t c = 0; c < nchunks; c++)
			range_chunk(c, &job);
	for (unsigned s = 0; s < TC_NSIGS; s++) {
		lo[s] = UINT64_MAX;
		hi[s] = 0;
	}
	for (size_t c = 0; c < nchunks; c++) {
		for (unsigned s = 0; s < TC_NSIGS; s++) {
			lo[s] = TC_MIN(lo[s], job.lo[c][s]);
			hi[s] = TC_MAX(hi[s], job.hi[c][s]);
		}
		mask |= job.mask[c];
	}
	for (unsigned s = 0; s < TC_NSIGS; s++)
		m->scale[s] = hi[s] > lo[s] ? 1.0 / (double)(hi[s] - lo[s]) : 0.0;
	m->types_mask = mask;
	m->types_scale = mask ? 1.0 / (double)__builtin_popcountll(mask) : 0.0;
	for (unsigned s = 0; s < TC_NSIGS; s++) {
		struct tc_metric_dim *u = &m->used[m->nused];
		if (!(m->dims & (UINT32_C(1) << s)))
			continue;
		u->sig = (uint8_t)s;
		u->slot = (uint8_t)slot_of(s);
		u->how = s == TC_SIG_CALLPATH ? 0 : s == TC_SIG_TYPES ? 1 :
			 s == TC_SIG_COMP || s == TC_SIG_COMM ? 4 :
			 tc_sig_info(s)->kind == TC_SIGK_SIGNED ? 3 : 2;
		u->scale = s == TC_SIG_TYPES ? m->types_scale : m->scale[s];
		m->nused++;
	}
	free(job.lo);
	free(job.hi);
	free(job.mask);
}

/* The standard error of timing signature s (COMP or COMM) of a. */
static double timing_se(const struct tc_signatures *a, unsigned s)
{
	return s == TC_SIG_COMP ? a->comp_se : a->comm_se;
}

/* Whether a and b differ in timing signature s by noise alone. */
static bool timing_noise(const struct tc_cluster_metric *m, const struct tc_signatures *a,
			 const struct tc_signatures *b, unsigned s)
{
	return tc_timing_alike(a->v[s], timing_se(a, s), b->v[s], timing_se(b, s), m->noise);
}

void tc_cluster_distance(const struct tc_cluster_metric *m, const struct tc_signatures *a,
			 const struct tc_signatures *b, struct tc_cluster_dist *d)
{
	double acc[3] = { 0, 0, 0 };

	for (unsigned k = 0; k < m->nused; k++) {
		const struct tc_metric_dim *u = &m->used[k];
		uint64_t x = a->v[u->sig], y = b->v[u->sig], diff;
		double v;
		switch (u->how) {
		case 0:
			v = x != y ? 1.0 : 0.0;
			break;
		case 1:
			v = (double)__builtin_popcountll((x ^ y) & m->types_mask) * u->scale;
			break;
		case 3:
			diff = (int64_t)x >= (int64_t)y ? x - y : y - x;
			v = (double)diff * u->scale;
			break;
		case 4:
			if (timing_noise(m, a, b, u->sig)) {
				v = 0;
				break;
			}
			/* fall through */
		default:
			diff = x >= y ? x - y : y - x;
			v = (double)diff * u->scale;
		}
		acc[u->slot] += m->distance == TC_DIST_EUCLIDEAN ? v * v : v;
	}
	if (m->distance == TC_DIST_EUCLIDEAN)
		for (unsigned g = 0; g < 3; g++)
			acc[g] = sqrt(acc[g]);
	for (unsigned g = 0; g < 3; g++)
		d->g[g] = acc[g];
}

int tc_cluster_dist_cmp(const struct tc_cluster_dist *a, const struct tc_cluster_dist *b)
{
	for (unsigned g = 0; g < 3; g++)
		if (a->g[g] != b->g[g])
			return a->g[g] < b->g[g] ? -1 : 1;
	return 0;
}

static bool dist_zero(const struct tc_cluster_dist *d)
{
	return d->g[0] == 0 && d->g[1] == 0 && d->g[2] == 0;
}

/* ---- K-Farthest at one node (Alg. 5, lines 5-15) ---------------------------- */

/* Whether a and b are at distance 0: equal in every signature used (the
 * type bits in those that vary), but for timing within the noise. */
static bool same_point(const struct tc_cluster_metric *mt, const struct tc_signatures *a,
		       const struct tc_signatures *b)
{
	for (unsigned k = 0; k < mt->nused; k++) {
		unsigned s = mt->used[k].sig;
		uint64_t x = a->v[s] ^ b->v[s];
		if (s == TC_SIG_TYPES)
			x &= mt->types_mask;
		if (x && !(mt->used[k].how == 4 && timing_noise(mt, a, b, s)))
			return false;
	}
	return true;
}

/* Items a node handles without allocating (2K + 1 for K up to 31). */
#define SMALL 64

size_t tc_kfarthest_node(const struct tc_cluster_metric *mt,
			 const struct tc_signatures *const *sig, const uint64_t *w, size_t m,
			 size_t k, uint32_t *rep)
{
	struct tc_cluster_dist mind_s[SMALL], *mind = mind_s;
	uint32_t near_s[SMALL], *near = near_s;
	bool sel_s[SMALL], *sel = sel_s;
	size_t nsel = 1;

	(void)w;
	if (!m)
		return 0;
	if (m <= k) {
		/* every distinct item is kept (line 5: no selection when the
		 * list fits), duplicates join the first of theirs: what the
		 * selection below gives, without the distances */
		for (size_t j = 0; j < m; j++) {
			rep[j] = (uint32_t)j;
			for (size_t i = 0; i < j; i++)
				if (rep[i] == i && same_point(mt, sig[i], sig[j])) {
					rep[j] = (uint32_t)i;
					break;
				}
			nsel += rep[j] == j;
		}
		return nsel - 1;
	}
	if (m > SMALL) {
		mind = tc_xmalloc(tc_st_mult(m, sizeof(*mind)));
		near = tc_xmalloc(tc_st_mult(m, sizeof(*near)));
		sel = tc_xmalloc(m);
	}
	memset(sel, 0, m * sizeof(*sel));
	/* "TopK list = { }; while Size of TopK list < K do Find the farthest
	 * cluster to the TopK list": the first is the node's own cluster */
	sel[0] = true;
	for (size_t j = 1; j < m; j++) {
		tc_cluster_distance(mt, sig[j], sig[0], &mind[j]);
		near[j] = 0;
	}
	while (nsel < k) {
		size_t best = m;
		for (size_t j = 1; j < m; j++)
			if (!sel[j] && (best == m || tc_cluster_dist_cmp(&mind[j], &mind[best]) > 0))
				best = j;
		if (best == m || dist_zero(&mind[best]))
			break; /* the rest duplicate kept clusters */
		sel[best] = true;
		nsel++;
		for (size_t j = 1; j < m; j++) {
			struct tc_cluster_dist d;
			if (sel[j])
				continue;
			tc_cluster_distance(mt, sig[j], sig[best], &d);
			if (tc_cluster_dist_cmp(&d, &mind[j]) < 0) {
				mind[j] = d;
				near[j] = (uint32_t)best;
			}
		}
	}
	/* "foreach cluster in AllNode list - TopK list do Find the closest
	 * cluster; Assign the cluster to the closest one" */
	for (size_t j = 0; j < m; j++)
		rep[j] = sel[j] ? (uint32_t)j : near[j];
	if (m > SMALL) {
		free(sel);
		free(near);
		free(mind);
	}
	return nsel;
}

/* ---- PAM at one node ---------------------------------------------------------- */

struct wcost {
	double g[3];
};

/* c += w * (x - y) */
static void wcost_delta(struct wcost *c, uint64_t w, const struct tc_cluster_dist *x,
			const struct tc_cluster_dist *y)
{
	for (unsigned g = 0; g < 3; g++)
		c->g[g] += (double)w * (x->g[g] - y->g[g]);
}

/* Whether a is below b lexicographically by more than eps (rounding noise
 * in sums of differences is no improvement). */
static bool wcost_below(const struct wcost *a, const struct wcost *b, double eps)
{
	for (unsigned g = 0; g < 3; g++) {
		double diff = a->g[g] - b->g[g];
		if (diff < -eps)
			return true;
		if (diff > eps)
			return false;
	}
	return false;
}

static const struct tc_cluster_dist *dmin(const struct tc_cluster_dist *a,
					  const struct tc_cluster_dist *b)
{
	return tc_cluster_dist_cmp(b, a) < 0 ? b : a;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

#define PAM_MAX_ITERS 100

size_t tc_pam_node(const struct tc_cluster_metric *mt, const struct tc_signatures *const *sig,
		   const uint64_t *w, size_t m, size_t k, uint64_t seed, uint32_t *rep)
{
	struct tc_cluster_dist *d, *d1, *d2;
	struct wcost *extra;
	uint32_t *dup, *distinct, *med, *n1;
	size_t nd = 0, kk;
	double eps = 0;
	bool *is_med;
	uint64_t rng = seed;

	if (!m)
		return 0;
	/* items equal to an earlier one (at distance 0) are duplicates of it */
	dup = tc_xmalloc(tc_st_mult(m, sizeof(*dup)));
	distinct = tc_xmalloc(tc_st_mult(m, sizeof(*distinct)));
	for (size_t j = 0; j < m; j++) {
		dup[j] = (uint32_t)j;
		for (size_t i = 0; i < j; i++)
			if (dup[i] == i && same_point(mt, sig[i], sig[j])) {
				dup[j] = (uint32_t)i;
				break;
			}
		if (dup[j] == j)
			distinct[nd++] = (uint32_t)j;
	}
	if (nd <= k) {
		for (size_t j = 0; j < m; j++)
			rep[j] = dup[j];
		free(distinct);
		free(dup);
		return nd;
	}
	/* the full distance matrix: m is at most radix * K + 1 */
	d = tc_xmalloc(tc_st_mult(tc_st_mult(m, m), sizeof(*d)));
	for (size_t i = 0; i < m; i++) {
		memset(&d[i * m + i], 0, sizeof(*d));
		for (size_t j = 0; j < i; j++) {
			tc_cluster_distance(mt, sig[i], sig[j], &d[i * m + j]);
			d[j * m + i] = d[i * m + j];
		}
	}
	kk = k;
	for (size_t j = 0; j < m; j++)
		eps += (double)w[j];
	eps *= 1e-12;
	/* K medoids drawn at random among the distinct items */
	med = tc_xmalloc(tc_st_mult(nd, sizeof(*med)));
	memcpy(med, distinct, nd * sizeof(*med));
	for (size_t i = 0; i < kk; i++) {
		size_t j = i + (size_t)(splitmix(&rng) % (nd - i));
		uint32_t x = med[i];
		med[i] = med[j];
		med[j] = x;
	}
	qsort(med, kk, sizeof(*med), cmp_u32);
	is_med = tc_xcalloc(m, sizeof(*is_med));
	n1 = tc_xmalloc(tc_st_mult(m, sizeof(*n1)));
	d1 = tc_xmalloc(tc_st_mult(m, sizeof(*d1)));
	d2 = tc_xmalloc(tc_st_mult(m, sizeof(*d2)));
	extra = tc_xmalloc(tc_st_mult(kk, sizeof(*extra)));
	for (unsigned it = 0; it < PAM_MAX_ITERS; it++) {
		struct wcost best = { { 0, 0, 0 } };
		size_t ba = kk, bo = m;

		for (size_t a = 0; a < kk; a++)
			is_med[med[a]] = true;
		/* nearest and second nearest medoid of every item (ties: the
		 * medoid earlier in item order) */
		for (size_t j = 0; j < m; j++) {
			n1[j] = 0;
			d1[j] = d[j * m + med[0]];
			d2[j].g[0] = d2[j].g[1] = d2[j].g[2] = HUGE_VAL;
			for (size_t a = 1; a < kk; a++) {
				const struct tc_cluster_dist *x = &d[j * m + med[a]];
				if (tc_cluster_dist_cmp(x, &d1[j]) < 0) {
					d2[j] = d1[j];
					d1[j] = *x;
					n1[j] = (uint32_t)a;
				} else if (tc_cluster_dist_cmp(x, &d2[j]) < 0) {
					d2[j] = *x;
				}
			}
		}
		/*
		 * The swap of a medoid with a non-medoid that lowers the cost
		 * most (ties: the earlier candidate, then the earlier medoid).
		 * The change of swapping medoid a for candidate o, for all a
		 * at once (Schubert and Rousseeuw's FastPAM1, the same swaps
		 * as PAM's): an item nearer to o than to its medoid gains
		 * d(j,o) - d1 whichever medoid goes; any other item only loses
		 * when its own medoid goes, min(d2, d(j,o)) - d1.
		 */
		for (size_t q = 0; q < nd; q++) {
			uint32_t o = distinct[q];
			struct wcost shared = { { 0, 0, 0 } };
			if (is_med[o])
				continue;
			memset(extra, 0, kk * sizeof(*extra));
			for (size_t j = 0; j < m; j++) {
				const struct tc_cluster_dist *x = &d[j * m + o];
				if (tc_cluster_dist_cmp(x, &d1[j]) < 0)
					wcost_delta(&shared, w[j], x, &d1[j]);
				else
					wcost_delta(&extra[n1[j]], w[j], dmin(&d2[j], x), &d1[j]);
			}
			for (size_t a = 0; a < kk; a++) {
				struct wcost c = shared;
				for (unsigned g = 0; g < 3; g++)
					c.g[g] += extra[a].g[g];
				if (wcost_below(&c, &best, eps)) {
					best = c;
					ba = a;
					bo = o;
				}
			}
		}
		for (size_t a = 0; a < kk; a++)
			is_med[med[a]] = false;
		if (ba == kk)
			break; /* a fixed point */
		med[ba] = (uint32_t)bo;
		qsort(med, kk, sizeof(*med), cmp_u32);
	}
	free(extra);
	/* every item joins its nearest medoid */
	for (size_t j = 0; j < m; j++) {
		size_t bestm = 0;
		for (size_t a = 1; a < kk; a++)
			if (tc_cluster_dist_cmp(&d[j * m + med[a]], &d[j * m + med[bestm]]) < 0)
				bestm = a;
		rep[j] = med[bestm];
	}
	for (size_t a = 0; a < kk; a++)
		rep[med[a]] = med[a];
	free(d2);
	free(d1);
	free(n1);
	free(is_med);
	free(med);
	free(distinct);
	free(dup);
	free(d);
	return kk;
}

/* ---- Alg. 5 over a forest --------------------------------------------------------- */

struct kjob {
	const struct tc_cluster_metric *mt;
	const struct tc_signatures *sigs;
	const uint32_t *k;      /* per tree */
	bool pam;
	uint64_t seed;
	struct tc_tlist *lists;
	uint32_t *head;
};

static void k_node(const struct tc_forest *f, size_t pos, void *p)
{
	struct kjob *job = p;
	struct tc_tlist *l = &job->lists[pos];
	size_t first, nc = tc_forest_children(f, pos, &first), m = 1, nsel, q = 0;
	struct tc_titem all_s[SMALL], *all = all_s, *out;
	const struct tc_signatures *sig_s[SMALL], **sig = sig_s;
	uint64_t w_s[SMALL], *w = w_s;
	uint32_t rep_s[SMALL], *rep = rep_s, slot_s[SMALL], *slot = slot_s;

	l->one.head = f->idx[pos];
	l->one.size = 1;
	l->one.lo = l->one.hi = 0;
	l->v = &l->one;
	l->n = 1;
	if (!nc)
		return;
	/* "Merge left_K / right_K clusters + yourself into AllNode list" */
	for (size_t c = first; c < first + nc; c++)
		m += job->lists[c].n;
	if (m > SMALL) {
		all = tc_xmalloc(tc_st_mult(m, sizeof(*all)));
		sig = tc_xmalloc(tc_st_mult(m, sizeof(*sig)));
		w = tc_xmalloc(tc_st_mult(m, sizeof(*w)));
		rep = tc_xmalloc(tc_st_mult(m, sizeof(*rep)));
		slot = tc_xmalloc(tc_st_mult(m, sizeof(*slot)));
	}
	all[0] = l->one;
	m = 1;
	for (size_t c = first; c < first + nc; c++) {
		memcpy(&all[m], job->lists[c].v, job->lists[c].n * sizeof(*all));
		m += job->lists[c].n;
		tc_tlist_release(&job->lists[c]);
	}
	for (size_t j = 0; j < m; j++) {
		sig[j] = &job->sigs[all[j].head];
		w[j] = all[j].size;
	}
	if (job->pam)
		nsel = tc_pam_node(job->mt, sig, w, m, job->k[f->tree[pos]],
				   tc_hash_mix(job->seed, f->idx[pos]), rep);
	else
		nsel = tc_kfarthest_node(job->mt, sig, w, m, job->k[f->tree[pos]], rep);
	/* the kept clusters in AllNode order; the others join them */
	out = tc_xmalloc(tc_st_mult(nsel, sizeof(*out)));
	for (size_t j = 0; j < m; j++)
		if (rep[j] == j) {
			slot[j] = (uint32_t)q;
			out[q++] = all[j];
		}
	for (size_t j = 0; j < m; j++) {
		struct tc_titem *x;
		if (rep[j] == j)
			continue;
		x = &out[slot[rep[j]]];
		x->size += all[j].size;
		job->head[all[j].head] = x->head;
	}
	l->v = out;
	l->n = q;
	if (all != all_s) {
		free(slot);
		free(rep);
		free(w);
		free(sig);
		free(all);
	}
}

void tc_k_run(struct tc_reduction *r, const struct tc_forest *view, struct tc_pool *pool)
{
	struct kjob job = { r->mt, r->sigs, r->k, r->pam, r->seed, r->lists, r->head };

	tc_forest_run(view, pool, k_node, &job);
}

void tc_k_reduce(const struct tc_forest *f, const struct tc_cluster_metric *mt,
		 const struct tc_cluster_input *in, const uint32_t *k, bool pam,
		 const struct tc_cluster_opts *o, uint32_t *head)
{
	struct kjob job = { mt, in->sigs, k, pam, o->seed, NULL, head };
	struct tc_reduction red;
	unsigned d;

	job.lists = tc_xcalloc(f->n ? f->n : 1, sizeof(*job.lists));
	for (size_t p = 0; p < f->n; p++)
		head[f->idx[p]] = f->idx[p];
	/* the lower levels may run in other processes (remote.c) */
	tc_reduction_init(&red, TC_RED_K, f, job.lists, head, o->pool);
	red.mt = mt;
	red.sigs = in->sigs;
	red.k = k;
	red.pam = pam;
	red.seed = o->seed;
	d = tc_reduction_remote(&red);
	tc_forest_run_above(f, d, o->pool, k_node, &job);
	tc_reduction_release(&red);
	for (size_t t = 0; t < f->ntrees; t++)
		if (f->off[t] < f->off[t + 1])
			tc_tlist_release(&job.lists[f->off[t]]);
	free(job.lists);
	tc_forest_resolve(f, head);
}

/* ---- double step: K among the call-path clusters ------------------------------ */

/*
 * Step two's K of each first-step cluster: one each, then one more at a
 * time to the cluster with the most ranks per cluster so far (ties: the
 * lower id) that still has more distinct behaviours than clusters, until
 * K are given out. A cluster's distinct behaviours are counted by the
 * leader rule, up to k + 1 (no cluster gets more than k): a member at
 * distance 0 under mt (the step-two signatures, timing within its noise)
 * from a behaviour met before is that behaviour, any other is a new one.
 */
static void share_k(const struct tc_cluster_input *in, const uint32_t *main_of,
		    const struct tc_cluster *mains, size_t nmains,
		    const struct tc_cluster_metric *mt, uint32_t k, uint32_t *kt)
{
	uint32_t *nd = tc_xcalloc(nmains ? nmains : 1, sizeof(*nd));
	size_t *off = tc_xmalloc(tc_st_mult(nmains + 1, sizeof(*off)));
	uint32_t *lead;
	size_t left = k > nmains ? k - nmains : 0;

	/* room for min(members, k + 1) behaviours per cluster */
	off[0] = 0;
	for (size_t c = 0; c < nmains; c++)
		off[c + 1] = off[c] + TC_MIN(mains[c].nranks, (size_t)k + 1);
	lead = tc_xmalloc(tc_st_mult(off[nmains] ? off[nmains] : 1, sizeof(*lead)));
	for (size_t i = 0; i < in->n; i++) {
		uint32_t c = main_of[i], *l = &lead[off[c]];
		bool known = false;
		if (nd[c] > k)
			continue;
		for (uint32_t j = 0; j < nd[c] && !known; j++)
			known = same_point(mt, &in->sigs[l[j]], &in->sigs[i]);
		if (!known)
			l[nd[c]++] = (uint32_t)i;
	}
	for (size_t c = 0; c < nmains; c++)
		kt[c] = 1;
	while (left) {
		size_t best = nmains;
		for (size_t c = 0; c < nmains; c++) {
			if (kt[c] >= nd[c])
				continue;
			if (best == nmains ||
			    (uint64_t)mains[c].nranks * kt[best] > (uint64_t)mains[best].nranks * kt[c])
				best = c;
		}
		if (best == nmains)
			break;
		kt[best]++;
		left--;
	}
	free(lead);
	free(off);
	free(nd);
}

static int kmode(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		 struct tc_clustering *out, bool pam)
{
	struct tc_cluster_metric mt;
	struct tc_forest f;
	uint32_t *head = tc_xmalloc(tc_st_mult(in->n ? in->n : 1, sizeof(*head)));
	uint32_t k = o->k;

	out->format = tc_acurdion_format(in->sigs, in->n, o->pool);
	out->claim = TC_LEVEL_NONE;
	if (o->steps == TC_STEPS_SINGLE) {
		struct tc_all_tree a;
		out->dims = out->format;
		tc_cluster_metric_init(&mt, in->sigs, in->n, out->dims, o->distance, o->pool);
		mt.noise = o->noise;
		tc_all_tree_init(&a, &f, in->n, o->radix);
		tc_k_reduce(&f, &mt, in, &k, pam, o, head);
		tc_forest_release(&f);
		tc_all_tree_release(&a);
		out->clusters = tc_build_clusters(in, head, &out->nclusters, NULL);
	} else {
		struct tc_all_tree a;
		struct tc_group_forest g;
		uint32_t *main_of = tc_xmalloc(tc_st_mult(in->n ? in->n : 1, sizeof(*main_of)));
		uint32_t dims1 = out->format & (UINT32_C(1) << TC_SIG_CALLPATH);
		uint32_t dims2 = out->format & ~dims1, *kt;

		out->dims = out->format;
		/* step one: Call-Path only */
		tc_cluster_metric_init(&mt, in->sigs, in->n, dims1, o->distance, o->pool);
		tc_all_tree_init(&a, &f, in->n, o->radix);
		tc_k_reduce(&f, &mt, in, &k, pam, o, head);
		tc_forest_release(&f);
		tc_all_tree_release(&a);
		out->mains = tc_build_clusters(in, head, &out->nmains, main_of);
		/* step two: the other signatures within each first-step cluster */
		tc_cluster_metric_init(&mt, in->sigs, in->n, dims2, o->distance, o->pool);
		mt.noise = o->noise;
		kt = tc_xmalloc(tc_st_mult(out->nmains ? out->nmains : 1, sizeof(*kt)));
		share_k(in, main_of, out->mains, out->nmains, &mt, k, kt);
		tc_group_forest_init(&g, &f, main_of, in->n, out->nmains, o->radix);
		tc_k_reduce(&f, &mt, in, kt, pam, o, head);
		tc_forest_release(&f);
		tc_group_forest_release(&g);
		out->clusters = tc_build_clusters(in, head, &out->nclusters, NULL);
		tc_link_mains(out->clusters, out->nclusters, out->mains, out->nmains, main_of);
		free(kt);
		free(main_of);
	}
	free(head);
	return 0;
}

int tc_mode_kfarthest(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		      struct tc_clustering *out, struct tc_error *err)
{
	(void)err;
	return kmode(in, o, out, false);
}

int tc_mode_kmedoid(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		    struct tc_clustering *out, struct tc_error *err)
{
	(void)err;
	return kmode(in, o, out, true);
}
