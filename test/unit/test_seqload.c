/*
 * Unit tests of rank lists given as text (lib/ranklist.h) and of loading
 * a trace set for alignment (analysis/seqload.h): chosen ranks as event
 * sequences or function pairs, the same whatever the thread count, and a
 * whole trace set clustered.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "align/align.h"
#include "analysis/seqload.h"
#include "cluster/cluster.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/pool.h"
#include "lib/ranklist.h"
#include "lib/synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check_ranks(const char *s, const int32_t *want, size_t nwant)
{
	struct tc_error err;
	int32_t *v;
	size_t n;

	CHECK(tc_parse_ranks(s, 64, &v, &n, &err) == 0);
	CHECK_EQ_U64(n, nwant);
	for (size_t i = 0; i < n && i < nwant; i++)
		CHECK_EQ_I64(v[i], want[i]);
	free(v);
}

static void check_bad_ranks(const char *s, size_t max, const char *msg)
{
	struct tc_error err;
	int32_t *v = (int32_t *)&err;
	size_t n = 1;

	CHECK(tc_parse_ranks(s, max, &v, &n, &err) != 0);
	CHECK(v == NULL);
	CHECK_EQ_U64(n, 0);
	if (!strstr(err.msg, msg))
		unit_fail(__FILE__, __LINE__, "'%s': '%s' lacks '%s'", s, err.msg, msg);
}

TEST(parse_ranks)
{
	static const int32_t a[] = { 0, 3, 5, 6, 7 }, b[] = { 9, 2, 4, 5 }, c[] = { 12 };

	check_ranks("0,3,5-7", a, 5);
	check_ranks("9,2,4-5", b, 4); /* in the order given */
	check_ranks("12", c, 1);
	check_bad_ranks("", 64, "expected ranks");
	check_bad_ranks("1,", 64, "expected ranks");
	check_bad_ranks("1,x", 64, "expected ranks");
	check_bad_ranks("-3", 64, "expected ranks");
	check_bad_ranks("2147483648", 64, "expected ranks");
	check_bad_ranks("7-5", 64, "descending range '7-5'");
	check_bad_ranks("1,3,1", 64, "rank 1 given twice");
	check_bad_ranks("0-3,2", 64, "rank 2 given twice");
	check_bad_ranks("0-4", 4, "more than 4 ranks");
}

/* A 4x4 stencil: corners, edges and the inner four behave apart. */
static const char *stencil(const char *name)
{
	struct tc_synth_opts o;

	memset(&o, 0, sizeof(o));
	o.pattern = "stencil2d";
	o.ranks = 16;
	o.iters = 3;
	o.seed = 5;
	o.dims[0] = 4;
	o.dims[1] = 4;
	return unit_synth_set(name, &o);
}

TEST(open_set_and_index)
{
	const char *dir = stencil("open");
	struct tc_pool *pool = tc_pool_new(2);
	struct tc_traceset *ts = NULL;
	struct tc_error err;
	char path[4200];

	CHECK(tc_open_set(dir, 0, pool, &ts, &err) == 0);
	if (!ts)
		goto out;
	CHECK_EQ_U64(ts->nfiles, 16);
	for (int32_t r = 0; r < 16; r++) {
		size_t i = tc_set_index(ts, r);
		CHECK(i < ts->nfiles);
		if (i < ts->nfiles)
			CHECK_EQ_I64(ts->files[i].hdr.rank, r);
	}
	CHECK(tc_set_index(ts, 16) == SIZE_MAX);
	CHECK(tc_set_index(ts, -1) == SIZE_MAX);
	tc_traceset_free(&ts);
	/* a directory without one of its ranks is not a complete set */
	tc_raw_rank_path(path, sizeof(path), dir, 7);
	CHECK(unlink(path) == 0);
	CHECK(tc_open_set(dir, 0, pool, &ts, &err) != 0);
	CHECK(ts == NULL);
	snprintf(path, sizeof(path), "%s/none", dir);
	CHECK(tc_open_set(path, 0, pool, &ts, &err) != 0);
out:
	tc_pool_free(pool);
}

TEST(load_aseqs_any_thread_count)
{
	const char *dir = stencil("aseqs");
	struct tc_pool *p1 = tc_pool_new(1), *p4 = tc_pool_new(4);
	struct tc_traceset *ts = NULL;
	struct tc_aseq *s1[3], *s4[3], *one;
	const size_t idx[3] = { 5, 0, 15 };
	struct tc_error err;

	CHECK(tc_open_set(dir, 0, p1, &ts, &err) == 0);
	if (!ts)
		goto out;
	CHECK(tc_load_aseqs(ts, p1, idx, 3, 0, TC_AKEY_SITE, s1, &err) == 0);
	CHECK(tc_load_aseqs(ts, p4, idx, 3, 0, TC_AKEY_SITE, s4, &err) == 0);
	for (size_t i = 0; i < 3; i++) {
		CHECK_EQ_I64(s1[i]->rank, ts->files[idx[i]].hdr.rank);
		CHECK_EQ_I64(s1[i]->world_size, 16);
		CHECK(s1[i]->n > 0);
		CHECK_EQ_U64(s4[i]->n, s1[i]->n);
		CHECK(!memcmp(s4[i]->sym, s1[i]->sym, s1[i]->n * sizeof(*s1[i]->sym)));
		CHECK(tc_load_aseq(ts, idx[i], 0, TC_AKEY_SITE, &one, &err) == 0);
		CHECK_EQ_U64(one->n, s1[i]->n);
		tc_aseq_free(&one);
	}
	/* an inner rank talks to four neighbours, a corner to two */
	CHECK(s1[0]->n > s1[1]->n);
	for (size_t i = 0; i < 3; i++)
		tc_aseq_free(&s4[i]);
	/* a limit on the events is an error naming the file */
	CHECK(tc_load_aseqs(ts, p4, idx, 3, 3, TC_AKEY_SITE, s4, &err) != 0);
	CHECK(strstr(err.msg, "more than 3 events") != NULL);
	CHECK(strstr(err.path, "rank-00005") != NULL);
	for (size_t i = 0; i < 3; i++) {
		CHECK(s4[i] == NULL);
		tc_aseq_free(&s1[i]);
	}
	tc_traceset_free(&ts);
out:
	tc_pool_free(p1);
	tc_pool_free(p4);
}

TEST(load_fpairs_every_file)
{
	const char *dir = stencil("fpairs");
	struct tc_pool *pool = tc_pool_new(3);
	struct tc_traceset *ts = NULL;
	struct tc_fpairs *fp[16];
	struct tc_error err;

	CHECK(tc_open_set(dir, 0, pool, &ts, &err) == 0);
	if (!ts)
		goto out;
	CHECK(tc_load_fpairs(ts, pool, NULL, 16, fp, &err) == 0);
	for (size_t i = 0; i < 16; i++) {
		CHECK_EQ_I64(tc_fpairs_rank(fp[i]), ts->files[i].hdr.rank);
		CHECK(tc_fpairs_count(fp[i]) > 0);
		tc_fpairs_free(&fp[i]);
	}
	tc_traceset_free(&ts);
out:
	tc_pool_free(pool);
}

/* The cluster of rank r in cl, or SIZE_MAX. */
static size_t cluster_of(const struct tc_clustering *cl, int32_t r)
{
	for (size_t c = 0; c < cl->nclusters; c++)
		for (size_t i = 0; i < cl->clusters[c].nranks; i++)
			if (cl->clusters[c].ranks[i] == r)
				return c;
	return SIZE_MAX;
}

TEST(cluster_set)
{
	const char *dir = stencil("cluster");
	struct tc_pool *pool = tc_pool_new(2);
	struct tc_traceset *ts = NULL;
	struct tc_clustering cl;
	struct tc_error err;
	size_t total = 0;

	tc_clustering_init(&cl);
	CHECK(tc_open_set(dir, 0, pool, &ts, &err) == 0);
	if (!ts)
		goto out;
	CHECK(tc_cluster_set(ts, pool, "callpath-param", NULL, &cl, &err) == 0);
	CHECK_EQ_U64(cl.nranks, 16);
	for (size_t c = 0; c < cl.nclusters; c++)
		total += cl.clusters[c].nranks;
	CHECK_EQ_U64(total, 16);
	for (int32_t r = 0; r < 16; r++)
		CHECK(cluster_of(&cl, r) != SIZE_MAX);
	/* the inner four alike, a corner apart from them */
	CHECK(cluster_of(&cl, 5) == cluster_of(&cl, 6));
	CHECK(cluster_of(&cl, 5) == cluster_of(&cl, 10));
	CHECK(cluster_of(&cl, 0) != cluster_of(&cl, 5));
	tc_clustering_release(&cl);
	tc_clustering_init(&cl);
	CHECK(tc_cluster_set(ts, pool, "no-such-mode", NULL, &cl, &err) != 0);
	tc_traceset_free(&ts);
out:
	tc_clustering_release(&cl);
	tc_pool_free(pool);
}
