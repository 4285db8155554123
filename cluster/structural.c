/*
 * structural.c - the structural clustering mode behind the cluster
 * interface: ranks grouped by their caller->callee function pairs with a
 * concept lattice (Weber et al., "Structural Clustering: A New Approach
 * to Support Performance Analysis at Scale", IPDPS 2016; Weber's slides
 * 8-12). The method itself is in align/structural.c; this file takes the
 * pairs from the call sites of each rank's trace and turns the lattice's
 * groups into clusters.
 */
#include "lib/compat.h"
#include "cluster/cluster.h"
#include "cluster/internal.h"
#include "align/align.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct fp_job {
	const struct tc_cluster_input *in;
	struct tc_fpairs **fp;
};

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* The pairs of rank i: every (call site, op) its distinct events use. */
static void pairs_of(size_t i, void *ctx)
{
	struct fp_job *j = ctx;
	const struct tc_rank_trace *t = j->in->traces[i];
	uint32_t n = tc_rsd_nevents(t->seq);
	uint64_t *key = tc_xmalloc(((size_t)n + 1) * sizeof(*key));
	size_t k = 0;

	for (uint32_t e = 0; e < n; e++) {
		const struct tc_rsd_event *ev = tc_rsd_event(t->seq, e);
		if (ev->callsite != TC_NO_CALLSITE)
			key[k++] = (uint64_t)ev->callsite << 32 | ev->op;
	}
	qsort(key, k, sizeof(*key), cmp_u64);
	j->fp[i] = tc_fpairs_new(j->in->sigs[i].rank);
	for (size_t x = 0; x < k; x++) {
		const struct tc_trace_site *s;
		if (x && key[x] == key[x - 1])
			continue;
		s = tc_rank_trace_site(t, (uint32_t)(key[x] >> 32));
		if (s)
			tc_fpairs_add_site(j->fp[i], s->frames, s->nframes, (uint32_t)key[x]);
	}
	free(key);
}

int tc_mode_structural(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		       struct tc_clustering *out, struct tc_error *err)
{
	struct tc_structural_opts so = { 1.0, 0 };
	struct tc_structural *st = NULL;
	struct fp_job job;
	uint32_t *head;
	int rc;

	if (!in->traces)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "the structural mode needs the ranks' traces (their call "
				    "stacks), not only their signatures");
	job.in = in;
	job.fp = tc_xcalloc(in->n ? in->n : 1, sizeof(*job.fp));
	if (o->pool)
		tc_pool_for(o->pool, in->n, pairs_of, &job);
	else
		for (size_t i = 0; i < in->n; i++)
			pairs_of(i, &job);
	rc = tc_structural_build(&st, job.fp, in->n, &so, o->pool, err);
	if (!rc) {
		head = tc_xmalloc((in->n ? in->n : 1) * sizeof(*head));
		for (size_t i = 0; i < in->n; i++) {
			size_t nm;
			const size_t *m = tc_structural_group(st, tc_structural_group_of(st, i), &nm);
			head[i] = (uint32_t)m[0];
		}
		out->clusters = tc_build_clusters(in, head, &out->nclusters, NULL);
		out->claim = TC_LEVEL_NONE;
		free(head);
	}
	tc_structural_free(&st);
	for (size_t i = 0; i < in->n; i++)
		tc_fpairs_free(&job.fp[i]);
	free(job.fp);
	return rc;
}
