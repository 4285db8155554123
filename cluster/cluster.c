/*
 * cluster.c - the mode table, options, results and verification.
 */
#include "lib/compat.h"
#include "cluster/cluster.h"
#include "cluster/internal.h"
#include "lib/error.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the mode table ----------------------------------------------------- */

/* Sorted by name. */
static const struct tc_cluster_mode modes[] = {
	{ "callpath", tc_mode_callpath, "dissertation §3.1; ICS'14 §3.1",
	  "one cluster per call-path signature (the same call sites in the same order)", 0 },
	{ "callpath-param", tc_mode_callpath_param,
	  "dissertation §3.1-3.3, §3.6; ICS'14 §3",
	  "main clusters by call path, sub-clusters by the parameter signature (5% COUNT "
	  "filter), refined by exact comparison, filtering past P/2 sub-clusters",
	  TC_CMF_THRESHOLD | TC_CMF_REFINE | TC_CMF_FILTER },
	{ "chameleon", tc_mode_chameleon, "dissertation ch. 5, §5.1, Alg. 6-8",
	  "Chameleon: phases between marker calls (AT/C/L), K/#call-paths leads per "
	  "call-path cluster by SRC and DEST", TC_CMF_K | TC_CMF_TRACES | TC_CMF_OWN },
	{ "dynamic", tc_mode_dynamic, "dissertation §4.4.6",
	  "main clusters by call path, sub-clusters by the SRC and DEST signatures", 0 },
	{ "kfarthest", tc_mode_kfarthest, "dissertation §4.1, §4.1.1, Alg. 5",
	  "ACURDION: at most K clusters, K-Farthest at every tree node", TC_CMF_K },
	{ "kmedoid", tc_mode_kmedoid, "dissertation §4.1.1, §4.4.4",
	  "ACURDION: at most K clusters, PAM (K-Medoid) at every tree node",
	  TC_CMF_K | TC_CMF_SEED },
	{ "reference", tc_mode_reference, "dissertation §3.4",
	  "one cluster per reference signature (every event with every parameter)",
	  TC_CMF_REFINE },
	{ "structural", tc_mode_structural, "Weber et al., IPDPS'16; Weber's slides 8-12",
	  "one cluster per set of caller->callee function pairs (concept lattice, AddIntent)",
	  TC_CMF_TRACES },
};

const struct tc_cluster_mode *tc_cluster_modes(size_t *n)
{
	*n = TC_ARRAY_SIZE(modes);
	return modes;
}

const struct tc_cluster_mode *tc_cluster_mode_find(const char *name)
{
	for (size_t i = 0; i < TC_ARRAY_SIZE(modes); i++)
		if (!strcmp(modes[i].name, name))
			return &modes[i];
	return NULL;
}

/* ---- options -------------------------------------------------------------- */

void tc_cluster_opts_init(struct tc_cluster_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->k = TC_CLUSTER_K_DEFAULT;
	o->steps = TC_STEPS_SINGLE;
	o->distance = TC_DIST_MANHATTAN;
	o->threshold = TC_CLUSTER_THRESHOLD_DEFAULT;
	o->seed = TC_CLUSTER_SEED_DEFAULT;
	o->noise = TC_CLUSTER_NOISE_DEFAULT;
	o->radix = 2;
}

const char *tc_cluster_steps_name(int steps)
{
	return steps == TC_STEPS_DOUBLE ? "double" : "single";
}

int tc_cluster_steps_from_name(const char *name)
{
	if (!strcmp(name, "single"))
		return TC_STEPS_SINGLE;
	if (!strcmp(name, "double"))
		return TC_STEPS_DOUBLE;
	return -1;
}

const char *tc_cluster_distance_name(int d)
{
	return d == TC_DIST_EUCLIDEAN ? "euclidean" : "manhattan";
}

int tc_cluster_distance_from_name(const char *name)
{
	if (!strcmp(name, "manhattan"))
		return TC_DIST_MANHATTAN;
	if (!strcmp(name, "euclidean"))
		return TC_DIST_EUCLIDEAN;
	return -1;
}

static const char *const level_names[TC_NLEVELS] = { "callpath", "param", "exact" };

const char *tc_seq_level_name(int level)
{
	return level >= 0 && level < TC_NLEVELS ? level_names[level] : "none";
}

static const char *const fp_names[TC_NFP] = { "sequence", "count", "dest", "src", "types" };

const char *tc_filter_param_name(unsigned p)
{
	return p < TC_NFP ? fp_names[p] : NULL;
}

bool tc_timing_alike(uint64_t a, double se_a, uint64_t b, double se_b, double noise)
{
	uint64_t d = a > b ? a - b : b - a;

	if (!d)
		return true;
	if (!(noise > 0))
		return false;
	if ((long double)d <= (long double)noise * (long double)(a > b ? a : b))
		return true;
	return (double)d <= TC_CLUSTER_NOISE_SE * sqrt(se_a * se_a + se_b * se_b);
}

bool tc_count_alike(uint64_t a, uint64_t b, double t)
{
	uint64_t d = a > b ? a - b : b - a;

	return (long double)d <= (long double)t * (long double)(a > b ? a : b);
}

/* ---- results -------------------------------------------------------------- */

void tc_clustering_init(struct tc_clustering *c)
{
	memset(c, 0, sizeof(*c));
	c->claim = TC_LEVEL_NONE;
}

void tc_free_clusters(struct tc_cluster *c, size_t n)
{
	if (!c)
		return;
	for (size_t i = 0; i < n; i++) {
		free(c[i].ranks);
		free(c[i].index);
		free(c[i].st);
		free(c[i].subs);
		tc_ranklist_release(&c[i].ranklist);
	}
	free(c);
}

void tc_clustering_release(struct tc_clustering *c)
{
	tc_free_clusters(c->clusters, c->nclusters);
	tc_free_clusters(c->mains, c->nmains);
	tc_free_clusters(c->filter.groups, c->filter.ngroups);
	tc_chameleon_free(&c->chameleon);
	tc_clustering_init(c);
}

struct tc_cluster *tc_build_clusters(const struct tc_cluster_input *in, const uint32_t *head,
				     size_t *nout, uint32_t *cid_out)
{
	size_t n = in->n, nc = 0;
	uint32_t *cid_of_head = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(uint32_t)));
	uint32_t *cid = cid_out ? cid_out : tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(uint32_t)));
	struct tc_cluster *c;
	struct tc_avg *avg;

	for (size_t i = 0; i < n; i++)
		cid_of_head[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		uint32_t h = head[i];
		if (cid_of_head[h] == UINT32_MAX)
			cid_of_head[h] = (uint32_t)nc++;
		cid[i] = cid_of_head[h];
	}
	c = tc_xcalloc(nc ? nc : 1, sizeof(*c));
	avg = tc_xcalloc(nc ? nc : 1, sizeof(*avg));
	for (size_t i = 0; i < n; i++)
		c[cid[i]].nranks++;
	for (size_t k = 0; k < nc; k++) {
		c[k].id = (uint32_t)k;
		c[k].parent = -1;
		c[k].ranks = tc_xmalloc(tc_st_mult(c[k].nranks, sizeof(int32_t)));
		c[k].index = tc_xmalloc(tc_st_mult(c[k].nranks, sizeof(uint32_t)));
		c[k].nranks = 0;
		tc_avg_init(&avg[k]);
	}
	for (size_t i = 0; i < n; i++) {
		struct tc_cluster *x = &c[cid[i]];
		x->index[x->nranks] = (uint32_t)i;
		x->ranks[x->nranks++] = in->sigs[i].rank;
		tc_avg_add_u(&avg[cid[i]], in->sigs[i].v[TC_SIG_COUNT]);
		if (head[i] == i) {
			x->lead_index = i;
			x->lead = in->sigs[i].rank;
			x->sig = in->sigs[i];
		}
	}
	for (size_t k = 0; k < nc; k++) {
		tc_ranklist_init(&c[k].ranklist);
		tc_ranklist_from_array(&c[k].ranklist, c[k].ranks, c[k].nranks);
		c[k].st = tc_ranklist_st_encode(c[k].ranks, c[k].nranks, &c[k].nst);
		c[k].count_mean = tc_avg_u(&avg[k]);
	}
	free(avg);
	free(cid_of_head);
	if (!cid_out)
		free(cid);
	*nout = nc;
	return c;
}

void tc_link_mains(struct tc_cluster *subs, size_t nsubs, struct tc_cluster *mains,
		   size_t nmains, const uint32_t *main_of)
{
	for (size_t s = 0; s < nsubs; s++) {
		uint32_t m = main_of[subs[s].lead_index];
		subs[s].parent = (int32_t)m;
		mains[m].nsubs++;
	}
	for (size_t m = 0; m < nmains; m++) {
		mains[m].subs = tc_xmalloc(tc_st_mult(mains[m].nsubs ? mains[m].nsubs : 1,
						      sizeof(uint32_t)));
		mains[m].nsubs = 0;
	}
	for (size_t s = 0; s < nsubs; s++) {
		struct tc_cluster *m = &mains[subs[s].parent];
		m->subs[m->nsubs++] = (uint32_t)s;
	}
}

/* ---- running a mode ------------------------------------------------------- */

int tc_cluster_run(const struct tc_cluster_mode *m, const struct tc_cluster_input *in,
		   const struct tc_cluster_opts *o, struct tc_clustering *out,
		   struct tc_error *err)
{
	struct tc_cluster_opts opts = *o;
	int rc;

	tc_clustering_init(out);
	if (!m)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1, "no such clustering mode");
	if (in->n >= UINT32_MAX)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1, "too many ranks (%zu)", in->n);
	for (size_t i = 1; i < in->n; i++)
		if (in->sigs[i].rank <= in->sigs[i - 1].rank)
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "signatures not in increasing rank order at %zu", i);
	if (opts.k < 1)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1, "K must be at least 1");
	if (!(opts.threshold >= 0.0 && opts.threshold < 1.0))
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "COUNT threshold must be in [0, 1), got %g", opts.threshold);
	if (!(opts.noise >= 0.0 && opts.noise <= 1.0))
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "timing noise must be in [0, 1], got %g", opts.noise);
	if (opts.steps != TC_STEPS_SINGLE && opts.steps != TC_STEPS_DOUBLE)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1, "bad number of steps");
	if (opts.distance != TC_DIST_MANHATTAN && opts.distance != TC_DIST_EUCLIDEAN)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1, "bad distance");
	if (opts.radix < 2)
		opts.radix = 2;
	if ((m->flags & TC_CMF_TRACES) && !in->traces)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "mode %s needs the ranks' traces", m->name);
	out->mode = m->name;
	out->nranks = in->n;
	rc = m->fn(in, &opts, out, err);
	opts.pool = NULL;
	opts.merge = NULL;
	out->opts = opts;
	return rc;
}

/* ---- verification ---------------------------------------------------------- */

struct verify_job {
	struct tc_clustering *c;
	const struct tc_cluster_input *in;
	double threshold;
};

struct dref {
	uint64_t digest;
	size_t index;
};

static int cmp_dref(const void *a, const void *b)
{
	const struct dref *x = a, *y = b;

	if (x->digest != y->digest)
		return x->digest < y->digest ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* Distinct exact sequences among m members: equal reference digests
 * first, then tc_rsd_equal() within each run of equal digests. */
static uint32_t count_sequences(struct tc_rank_trace *const *tr, struct dref *d, size_t m)
{
	size_t *reps = tc_xmalloc(tc_st_mult(m ? m : 1, sizeof(*reps)));
	uint32_t total = 0;
	size_t i = 0;

	qsort(d, m, sizeof(*d), cmp_dref);
	while (i < m) {
		size_t j = i, nreps = 0;
		while (j < m && d[j].digest == d[i].digest)
			j++;
		for (size_t a = i; a < j; a++) {
			bool found = false;
			for (size_t q = 0; q < nreps && !found; q++)
				found = tc_rsd_equal(tr[reps[q]]->seq, tr[d[a].index]->seq);
			if (!found)
				reps[nreps++] = d[a].index;
		}
		total += (uint32_t)nreps;
		i = j;
	}
	free(reps);
	return total;
}

static void verify_cluster(size_t k, void *p)
{
	struct verify_job *job = p;
	struct tc_cluster *cl = &job->c->clusters[k];
	struct tc_rank_trace *const *tr = job->in->traces;
	const struct tc_signatures *sigs = job->in->sigs;
	size_t lead = cl->lead_index;
	struct dref *d = tc_xmalloc(tc_st_mult(cl->nranks ? cl->nranks : 1, sizeof(*d)));

	memset(&cl->check, 0, sizeof(cl->check));
	for (size_t r = 0; r < cl->nranks; r++) {
		size_t i = cl->index[r];
		d[r].digest = sigs[i].reference;
		d[r].index = i;
		if (i != lead) {
			bool cp = tc_seq_alike(tr[lead], tr[i], TC_LEVEL_CALLPATH, job->threshold);
			bool pp = cp && tc_seq_alike(tr[lead], tr[i], TC_LEVEL_PARAM,
						    job->threshold);
			bool ex = pp && tc_rsd_equal(tr[lead]->seq, tr[i]->seq);
			cl->check.differ[TC_LEVEL_CALLPATH] += !cp;
			cl->check.differ[TC_LEVEL_PARAM] += !pp;
			cl->check.differ[TC_LEVEL_EXACT] += !ex;
			cl->check.comm_differ += !ex && !tc_seq_comm_alike(tr[lead], tr[i]);
		}
	}
	cl->check.sequences = count_sequences(tr, d, cl->nranks);
	if (job->c->claim >= 0)
		cl->check.collisions = cl->check.differ[job->c->claim];
	free(d);
}

int tc_cluster_verify(struct tc_clustering *c, const struct tc_cluster_input *in,
		      const struct tc_cluster_opts *o, struct tc_error *err)
{
	struct verify_job job = { c, in, o->threshold };

	if (!in->traces)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "verification needs the ranks' traces");
	if (o->pool && c->nclusters > 1)
		tc_pool_for(o->pool, c->nclusters, verify_cluster, &job);
	else
		for (size_t k = 0; k < c->nclusters; k++)
			verify_cluster(k, &job);
	c->collisions = 0;
	for (size_t k = 0; k < c->nclusters; k++)
		c->collisions += c->clusters[k].check.collisions;
	c->verified = true;
	return 0;
}
