/*
 * callpath.c - the signature-based modes: callpath, callpath-param,
 * reference and dynamic.
 *
 * Bahmani and Mueller, ICS'14 §3 and Bahmani's dissertation (2017) ch. 3:
 * call-path clustering makes the main clusters (§3.1), parameter
 * clustering the sub-clusters within each (§3.2), each over a radix tree
 * whose nodes merge equal signatures with their ranklists; the lead of a
 * cluster is its start rank (§3.1: "we considered the start rank of each
 * cluster ranklist the head of the cluster"; §3.3). Reference clustering
 * (§3.4) and ACURDION's dynamic clustering (§4.4.6) are the same
 * reduction over other signatures.
 */
#include "lib/compat.h"
#include "cluster/internal.h"
#include "lib/error.h"
#include "lib/hash.h"
#include "lib/pool.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- one exact level ------------------------------------------------------ */

/*
 * Cluster by keys over one radix tree of all ranks (group NULL) or over a
 * radix tree of the members of each group (§3.2: "each cluster had
 * similar operations on parameter signatures over a radix tree of its own
 * members"); head[] receives each rank's head, its cluster's start rank.
 */
static void exact_level(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
			const uint32_t *group, size_t ngroups, const struct tc_exact_spec *spec,
			uint32_t *head)
{
	struct tc_forest f;

	if (!group) {
		struct tc_all_tree a;
		tc_all_tree_init(&a, &f, in->n, o->radix);
		tc_exact_reduce(&f, spec, o->pool, head);
		tc_forest_release(&f);
		tc_all_tree_release(&a);
	} else {
		struct tc_group_forest g;
		tc_group_forest_init(&g, &f, group, in->n, ngroups, o->radix);
		tc_exact_reduce(&f, spec, o->pool, head);
		tc_forest_release(&f);
		tc_group_forest_release(&g);
	}
}

static uint32_t *new_heads(size_t n)
{
	return tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(uint32_t)));
}

static uint64_t *new_keys(size_t n, unsigned nk)
{
	return tc_xmalloc(tc_st_mult(tc_st_mult(n ? n : 1, nk), sizeof(uint64_t)));
}

/* §3.1: main clusters by call-path signature; cid[i] gets i's cluster. */
static struct tc_cluster *callpath_level(const struct tc_cluster_input *in,
					 const struct tc_cluster_opts *o, size_t *nc,
					 uint32_t *cid)
{
	uint64_t *keys = new_keys(in->n, 1);
	uint32_t *head = new_heads(in->n);
	struct tc_exact_spec spec = { keys, 1, NULL, 0 };
	struct tc_cluster *c;

	for (size_t i = 0; i < in->n; i++)
		keys[i] = in->sigs[i].callpath;
	exact_level(in, o, NULL, 0, &spec, head);
	c = tc_build_clusters(in, head, nc, cid);
	free(head);
	free(keys);
	return c;
}

int tc_mode_callpath(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		     struct tc_clustering *out, struct tc_error *err)
{
	(void)err;
	out->clusters = callpath_level(in, o, &out->nclusters, NULL);
	out->claim = TC_LEVEL_CALLPATH;
	return 0;
}

/* ---- reference (§3.4) -------------------------------------------------------- */

int tc_mode_reference(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		      struct tc_clustering *out, struct tc_error *err)
{
	uint64_t *keys = new_keys(in->n, 1);
	uint32_t *head = new_heads(in->n);
	struct tc_exact_spec spec = { keys, 1, NULL, 0 };

	(void)err;
	for (size_t i = 0; i < in->n; i++)
		keys[i] = in->sigs[i].reference;
	exact_level(in, o, NULL, 0, &spec, head);
	if (in->traces) {
		/* the reference signature is a 64-bit digest of the sequence:
		 * members whose sequences differ from the start rank's split */
		out->added = tc_refine_heads(in, head, NULL, TC_LEVEL_EXACT, o->threshold, o->pool);
		out->refined = true;
	}
	out->clusters = tc_build_clusters(in, head, &out->nclusters, NULL);
	out->claim = TC_LEVEL_EXACT;
	free(head);
	free(keys);
	return 0;
}

/* ---- dynamic (§4.4.6) --------------------------------------------------------- */

/*
 * "It hierarchically clusters at two levels. First, it clusters based on
 * Call-Path signature. Second, it finds new clusters based on SRC and DEST
 * signatures."
 */
int tc_mode_dynamic(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		    struct tc_clustering *out, struct tc_error *err)
{
	uint32_t *main_of = new_heads(in->n), *head = new_heads(in->n);
	uint64_t *keys = new_keys(in->n, 2);
	struct tc_exact_spec spec = { keys, 2, NULL, 0 };

	(void)err;
	out->mains = callpath_level(in, o, &out->nmains, main_of);
	for (size_t i = 0; i < in->n; i++) {
		keys[2 * i] = in->sigs[i].v[TC_SIG_SRC];
		keys[2 * i + 1] = in->sigs[i].v[TC_SIG_DEST];
	}
	exact_level(in, o, main_of, out->nmains, &spec, head);
	out->clusters = tc_build_clusters(in, head, &out->nclusters, NULL);
	tc_link_mains(out->clusters, out->nclusters, out->mains, out->nmains, main_of);
	out->claim = TC_LEVEL_CALLPATH;
	free(keys);
	free(head);
	free(main_of);
	return 0;
}

/* ---- callpath-param (§3.1-3.3, §3.6) ------------------------------------------ */

/* Parameter-signature bits 16-63: DEST, SOURCE and the type bits of Table
 * 3.1. Bits 0-15 hold the low 16 bits of the average COUNT, which the
 * COUNT filter replaces with the full-width average. */
#define PARAM_KEY(p) ((p) >> 16)

/* One sub-cluster's values for the filtering fallback. */
struct fsub {
	uint32_t main;
	uint32_t sub;
	uint64_t val[TC_NFP];
};

/* What filter_groups() sorts: a hash of the kept values but COUNT. */
struct frec {
	uint32_t main;
	uint32_t sub;
	uint64_t key;
	uint64_t count;
};

static int cmp_frec(const void *x, const void *y)
{
	const struct frec *a = x, *b = y;

	if (a->main != b->main)
		return a->main < b->main ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	return (a->sub > b->sub) - (a->sub < b->sub);
}

/* Equal in main cluster and in every kept value but COUNT. */
static bool same_but_count(const struct fsub *a, const struct fsub *b, uint32_t kept)
{
	if (a->main != b->main)
		return false;
	for (unsigned p = 0; p < TC_NFP; p++)
		if (p != TC_FP_COUNT && (kept & (1u << p)) && a->val[p] != b->val[p])
			return false;
	return true;
}

/*
 * Merge the sub-clusters that agree on the kept parameters within their
 * main cluster (COUNT, when kept, alike within the threshold of the
 * smallest of a group). group[s] receives the group of sub-cluster s,
 * numbered in order of the groups' first sub-cluster; returns the count.
 * The sort goes by a hash of the values; runs are then checked on the
 * values themselves, so a hash collision can split a group, never merge
 * two.
 */
static size_t filter_groups(const struct fsub *subs, size_t ns, uint32_t kept, double t,
			    uint32_t *group)
{
	struct frec *v = tc_xmalloc(tc_st_mult(ns ? ns : 1, sizeof(*v)));
	uint32_t *raw = tc_xmalloc(tc_st_mult(ns ? ns : 1, sizeof(*raw)));
	uint32_t *num = tc_xmalloc(tc_st_mult(ns ? ns : 1, sizeof(*num)));
	size_t ng = 0, nraw = 0, i = 0;

	for (size_t k = 0; k < ns; k++) {
		uint64_t h = 0x66696c746572ULL; /* "filter" */
		for (unsigned p = 0; p < TC_NFP; p++)
			if (p != TC_FP_COUNT && (kept & (1u << p)))
				h = tc_hash_mix(h, subs[k].val[p]);
		v[k].main = subs[k].main;
		v[k].sub = subs[k].sub;
		v[k].key = h;
		v[k].count = (kept & (1u << TC_FP_COUNT)) ? subs[k].val[TC_FP_COUNT] : 0;
	}
	qsort(v, ns, sizeof(*v), cmp_frec);
	while (i < ns) {
		/* a run equal but for COUNT: groups from its smallest COUNT up */
		const struct fsub *a = &subs[v[i].sub];
		size_t k = i;
		while (k < ns && v[k].main == v[i].main && v[k].key == v[i].key &&
		       same_but_count(a, &subs[v[k].sub], kept) &&
		       tc_count_alike(v[i].count, v[k].count, t)) {
			raw[v[k].sub] = (uint32_t)nraw;
			k++;
		}
		nraw++;
		i = k;
	}
	for (size_t r = 0; r < nraw; r++)
		num[r] = UINT32_MAX;
	for (size_t s = 0; s < ns; s++) {
		if (num[raw[s]] == UINT32_MAX)
			num[raw[s]] = (uint32_t)ng++;
		group[s] = num[raw[s]];
	}
	free(num);
	free(raw);
	free(v);
	return ng;
}

/* Dropping DEST, SRC or the types drops what exact comparison told apart
 * too: the sequences differ in those very parameters. */
static uint32_t drop(uint32_t kept, unsigned p)
{
	kept &= ~(1u << p);
	if (p == TC_FP_DEST || p == TC_FP_SRC || p == TC_FP_TYPES)
		kept &= ~(1u << TC_FP_SEQUENCE);
	return kept;
}

/*
 * §3.6: "When the number of parameter clusters exceeds the threshold
 * (where the threshold is set to P/2 here), our implementation ...
 * switches dynamically to sending only different parameters within main
 * clusters", and for CG "the parameter signature indicates that events
 * differ in SOURCE and DEST; therefore, all events with SOURCE or DEST may
 * be merged, while other parameters are preserved" (§3.3: "it knows
 * which parameters contributed significantly to the creation of new
 * clusters"). Here: while there are more groups than P/2, merge on the
 * parameter whose merging leaves the fewest groups (ties: the one with
 * the most distinct values within main clusters, then the order of enum
 * tc_filter_param); then take back, in that order, every parameter whose
 * merging made no difference; report the parameters and the groups. The
 * sub-clusters themselves are kept: they are what the filtered trace of
 * each group records per member.
 */
static void filter_fallback(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
			    struct tc_clustering *out, const uint64_t *digest)
{
	size_t ns = out->nclusters, ng;
	struct fsub *subs = tc_xmalloc(tc_st_mult(ns, sizeof(*subs)));
	uint32_t *group = tc_xmalloc(tc_st_mult(ns, sizeof(*group)));
	uint32_t *head = new_heads(in->n), *ghead;
	uint32_t present = (1u << TC_NFP) - 1, kept;
	size_t nvals[TC_NFP];
	struct tc_cluster_filter *fl = &out->filter;

	if (!digest)
		present &= ~(1u << TC_FP_SEQUENCE);
	for (size_t s = 0; s < ns; s++) {
		const struct tc_cluster *c = &out->clusters[s];
		uint64_t p = c->sig.param;
		subs[s].main = (uint32_t)c->parent;
		subs[s].sub = (uint32_t)s;
		subs[s].val[TC_FP_SEQUENCE] = digest ? digest[c->lead_index] : 0;
		subs[s].val[TC_FP_COUNT] = c->count_mean;
		subs[s].val[TC_FP_DEST] = (p >> 16) & 0xffff;
		subs[s].val[TC_FP_SRC] = (p >> 32) & 0xffff;
		subs[s].val[TC_FP_TYPES] = p >> 48;
	}
	/* how much each parameter changes: its distinct values, summed over
	 * the main clusters */
	for (unsigned p = 0; p < TC_NFP; p++)
		nvals[p] = (present & (1u << p)) ? filter_groups(subs, ns, 1u << p, 0.0, group) : 0;
	kept = present;
	ng = ns;
	while (ng > fl->limit && kept) {
		uint32_t best = kept;
		size_t bestn = SIZE_MAX, bestv = 0;
		for (unsigned p = 0; p < TC_NFP; p++) {
			uint32_t trial;
			size_t k;
			if (!(kept & (1u << p)))
				continue;
			trial = drop(kept, p);
			k = filter_groups(subs, ns, trial, o->threshold, group);
			if (k < bestn || (k == bestn && nvals[p] > bestv)) {
				bestn = k;
				bestv = nvals[p];
				best = trial;
			}
		}
		kept = best;
		ng = bestn;
	}
	/* keep the parameters whose merging made no difference after all */
	for (unsigned p = 0; p < TC_NFP; p++) {
		uint32_t trial = kept | (1u << p);
		if (!(present & ~kept & (1u << p)))
			continue;
		if (p == TC_FP_SEQUENCE && (~kept & ((1u << TC_FP_DEST) | (1u << TC_FP_SRC) |
						      (1u << TC_FP_TYPES))))
			continue;
		if (filter_groups(subs, ns, trial, o->threshold, group) == ng)
			kept = trial;
	}
	ng = filter_groups(subs, ns, kept, o->threshold, group);
	fl->params = present & ~kept;
	/* the groups as clusters: the head of a group is the start rank of
	 * its first sub-cluster */
	ghead = tc_xmalloc(tc_st_mult(ng, sizeof(*ghead)));
	for (size_t g = 0; g < ng; g++)
		ghead[g] = UINT32_MAX;
	for (size_t s = 0; s < ns; s++)
		if (ghead[group[s]] == UINT32_MAX)
			ghead[group[s]] = (uint32_t)out->clusters[s].lead_index;
	for (size_t s = 0; s < ns; s++) {
		const struct tc_cluster *c = &out->clusters[s];
		for (size_t r = 0; r < c->nranks; r++)
			head[c->index[r]] = ghead[group[s]];
	}
	fl->groups = tc_build_clusters(in, head, &fl->ngroups, NULL);
	for (size_t s = 0; s < ns; s++)
		fl->groups[group[s]].nsubs++;
	for (size_t g = 0; g < fl->ngroups; g++) {
		fl->groups[g].subs = tc_xmalloc(tc_st_mult(fl->groups[g].nsubs, sizeof(uint32_t)));
		fl->groups[g].nsubs = 0;
	}
	/* group numbers follow the first sub-cluster, which is also the order
	 * of the first rank, so group g is fl->groups[g] */
	for (size_t s = 0; s < ns; s++) {
		struct tc_cluster *x = &fl->groups[group[s]];
		x->subs[x->nsubs++] = (uint32_t)s;
		x->parent = out->clusters[s].parent;
	}
	free(ghead);
	free(head);
	free(group);
	free(subs);
}

/*
 * Phase one clusters by call path over a radix tree of all ranks (§3.1).
 * Phase two clusters each main cluster's members by the parameter
 * signature over a radix tree of its own members (§3.2), comparing COUNT
 * by its full-width average with the 5% filter of §3.6 ("considers two
 * COUNT values to be similar if they differ by only a small percentage
 * ... and we record their average"). Given the traces, each sub-cluster
 * is then refined by comparing its members' sequences (cluster/refine.c):
 * the averages of Table 3.1 cannot tell apart ranks whose peers are
 * permutations of one another, which the dissertation admits as hash
 * conflicts (§3.1). Last, the filtering fallback of §3.6.
 */
int tc_mode_callpath_param(const struct tc_cluster_input *in,
			   const struct tc_cluster_opts *o, struct tc_clustering *out,
			   struct tc_error *err)
{
	uint32_t *main_of = new_heads(in->n), *head = new_heads(in->n);
	uint64_t *keys = new_keys(in->n, 1), *count = new_keys(in->n, 1), *digest = NULL;
	struct tc_exact_spec spec = { keys, 1, count, o->threshold };

	(void)err;
	out->mains = callpath_level(in, o, &out->nmains, main_of);
	for (size_t i = 0; i < in->n; i++) {
		keys[i] = PARAM_KEY(in->sigs[i].param);
		count[i] = in->sigs[i].v[TC_SIG_COUNT];
	}
	exact_level(in, o, main_of, out->nmains, &spec, head);
	if (in->traces) {
		digest = tc_param_digests(in, head, o->pool);
		out->added = tc_refine_heads(in, head, digest, TC_LEVEL_PARAM, o->threshold,
					     o->pool);
		out->refined = true;
	}
	out->clusters = tc_build_clusters(in, head, &out->nclusters, NULL);
	tc_link_mains(out->clusters, out->nclusters, out->mains, out->nmains, main_of);
	out->claim = TC_LEVEL_PARAM;
	out->filter.limit = in->n / 2;
	if (out->nclusters > out->filter.limit && out->nclusters > out->nmains) {
		out->filter.applied = true;
		filter_fallback(in, o, out, digest);
	}
	free(digest);
	free(count);
	free(keys);
	free(head);
	free(main_of);
	return 0;
}
