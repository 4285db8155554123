/*
 * Unit tests of the clustering modes (cluster/cluster.h) on hand-made
 * signature sets: the ScalaTrace ranklist encoding, the 5% COUNT filter
 * and its boundary, the P/2 filtering fallback, the §4.1.1 distances and
 * their normalisation, K-Farthest picks and PAM on tiny known examples,
 * the tree reductions (same result for any thread count), and the
 * verification of members against hand-built traces.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "cluster/cluster.h"
#include "cluster/signature.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/pack.h"
#include "lib/pool.h"
#include "lib/ranklist.h"
#include "lib/strbuf.h"
#include "lib/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

static void sig_init(struct tc_signatures *s, int32_t rank, uint64_t callpath)
{
	memset(s, 0, sizeof(*s));
	s->rank = rank;
	s->callpath = s->v[TC_SIG_CALLPATH] = callpath;
}

/* Table 3.1 bits 16-31 (DEST) and COUNT, full width and low 16 bits. */
static void sig_param(struct tc_signatures *s, uint64_t count, uint16_t dest)
{
	s->v[TC_SIG_COUNT] = count;
	s->param = (count & 0xffff) | (uint64_t)dest << 16;
}

static int run_mode(const char *name, struct tc_signatures *sigs, size_t n,
		    const struct tc_cluster_opts *o, struct tc_clustering *c)
{
	struct tc_cluster_input in = { sigs, n, NULL };
	struct tc_error err;

	return tc_cluster_run(tc_cluster_mode_find(name), &in, o, c, &err);
}

static bool same_ranks(const struct tc_cluster *c, const int32_t *r, size_t n)
{
	if (c->nranks != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (c->ranks[i] != r[i])
			return false;
	return true;
}

static bool encodes(const int32_t *r, size_t n, const int64_t *want, size_t wn)
{
	size_t len;
	int64_t *v = tc_ranklist_st_encode(r, n, &len);
	bool ok = len == wn && !memcmp(v, want, len * sizeof(*v));

	free(v);
	return ok;
}

/* ---- ScalaTrace ranklists ------------------------------------------------- */

TEST(ranklist_st_encode_paper_examples)
{
	/* dissertation §3.3: <1 0 5 1> covers 0-4, <1 4 1 0> is rank 4 */
	static const int32_t r04[] = { 0, 1, 2, 3, 4 }, r4[] = { 4 };
	static const int64_t e04[] = { 1, -1, 0, 5, 1 }, e4[] = { 1, -1, 4, 1, 0 };
	/* ICS'14 Fig. 2(a): <2 5 2 4 2 1> is ranks 5, 6, 9, 10 */
	static const int32_t r2d[] = { 5, 6, 9, 10 };
	static const int64_t e2d[] = { 1, -2, 5, 2, 4, 2, 1 };
	/* ScalaTrace V2's "RANKS: 1 -1 0 4 1" (every rank of 4) */
	static const int32_t r03[] = { 0, 1, 2, 3 };
	static const int64_t e03[] = { 1, -1, 0, 4, 1 };
	/* a strided run, and a cube folded to three dimensions */
	static const int32_t rs[] = { 1, 3, 5, 7 };
	static const int64_t es[] = { 1, -1, 1, 4, 2 };
	static const int32_t r3d[] = { 0, 1, 4, 5, 16, 17, 20, 21 };
	static const int64_t e3d[] = { 1, -3, 0, 2, 16, 2, 4, 2, 1 };
	/* a singleton before a longer run is not paired with it */
	static const int32_t rp[] = { 0, 7, 8, 9 };
	static const int64_t ep[] = { 2, -1, 0, 1, 0, -1, 7, 3, 1 };
	static const int64_t e0[] = { 0 };

	CHECK(encodes(r04, 5, e04, 5));
	CHECK(encodes(r4, 1, e4, 5));
	CHECK(encodes(r2d, 4, e2d, 7));
	CHECK(encodes(r03, 4, e03, 5));
	CHECK(encodes(rs, 4, es, 5));
	CHECK(encodes(r3d, 8, e3d, 9));
	CHECK(encodes(rp, 4, ep, 9));
	CHECK(encodes(NULL, 0, e0, 1));
}

TEST(ranklist_st_decode_scalatrace_lines)
{
	/* from ScalaTrace V2 traces of LU on 8 ranks: {1,2,4,5} and {6} */
	static const int64_t v[] = { 2, -2, 1, 2, 3, 2, 1, -1, 6, 1, 0 };
	static const int32_t want[] = { 1, 2, 4, 5, 6 };
	static const int64_t bad1[] = { 2, -1, 0, 4, 1 };   /* one section short */
	static const int64_t bad2[] = { 1, -1, 0, -4, 1 };  /* negative iterations */
	static const int64_t bad3[] = { 1, 2, 0, 4, 1 };    /* dimension not negated */
	static const int64_t bad4[] = { 1, -1, 0, 4, 1, 9 }; /* trailing value */
	static const int64_t big[] = { 1, -1, 0, 1000, 1 };
	int32_t *out;
	size_t n;

	CHECK(tc_ranklist_st_decode(v, 11, 100, &out, &n) == 0);
	CHECK_EQ_U64(n, 5);
	CHECK(out && !memcmp(out, want, sizeof(want)));
	free(out);
	CHECK(tc_ranklist_st_decode(bad1, 5, 100, &out, &n) < 0);
	CHECK(tc_ranklist_st_decode(bad2, 5, 100, &out, &n) < 0);
	CHECK(tc_ranklist_st_decode(bad3, 5, 100, &out, &n) < 0);
	CHECK(tc_ranklist_st_decode(bad4, 6, 100, &out, &n) < 0);
	CHECK(tc_ranklist_st_decode(big, 5, 100, &out, &n) < 0);
	CHECK(out == NULL);
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

TEST(ranklist_st_round_trip)
{
	uint64_t h = 42;

	for (int round = 0; round < 300; round++) {
		int32_t r[200], *back;
		size_t n = 0, len, m;
		int64_t *v;
		/* random sets mixing runs, strides and gaps */
		for (int32_t x = 0; x < 600 && n < 200; x++) {
			h = tc_hash_fmix(h + (uint64_t)round);
			if (h % (unsigned)(2 + round % 7) == 0)
				r[n++] = x;
		}
		v = tc_ranklist_st_encode(r, n, &len);
		CHECK(tc_ranklist_st_decode(v, len, 1000, &back, &m) == 0);
		CHECK_EQ_U64(m, n);
		if (m == n && n) {
			qsort(back, m, sizeof(*back), cmp_i32);
			CHECK(!memcmp(back, r, n * sizeof(*r)));
		}
		free(back);
		free(v);
	}
}

TEST(ranklist_text_forms)
{
	static const int32_t r[] = { 0, 1, 2, 3, 5, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const int64_t v[] = { 2, -2, 1, 2, 3, 2, 1, -1, 6, 1, 0 };
	char *s = tc_ranklist_ranges_text(r, TC_ARRAY_SIZE(r));

	CHECK_STR(s, "0-3,5,8-15");
	free(s);
	s = tc_ranklist_ranges_text(NULL, 0);
	CHECK_STR(s, "-");
	free(s);
	s = tc_ranklist_st_text(v, TC_ARRAY_SIZE(v));
	CHECK_STR(s, "2 -2 1 2 3 2 1 -1 6 1 0");
	free(s);
}

/* ---- the COUNT filter (§3.6) ------------------------------------------------ */

TEST(count_filter_boundary)
{
	CHECK(tc_count_alike(100, 105, 0.05));
	CHECK(tc_count_alike(105, 100, 0.05));
	CHECK(!tc_count_alike(100, 106, 0.05));
	CHECK(!tc_count_alike(106, 100, 0.05));
	CHECK(tc_count_alike(9500, 9526, 0.05)); /* the dissertation's example */
	CHECK(tc_count_alike(0, 0, 0.05));
	CHECK(!tc_count_alike(0, 1, 0.05));
	CHECK(tc_count_alike(7, 7, 0.0));
	CHECK(!tc_count_alike(7, 8, 0.0));
	CHECK(tc_count_alike(UINT64_MAX, UINT64_MAX - 1, 0.05));
}

TEST(callpath_param_count_filter_in_the_tree)
{
	struct tc_signatures s[4];
	struct tc_cluster_opts o;
	struct tc_clustering c;
	static const int32_t a[] = { 0, 1, 2 }, b[] = { 3 };

	tc_cluster_opts_init(&o);
	/* one call path, one DEST; COUNT 100, 104, 105 alike, 200 not */
	for (int i = 0; i < 4; i++)
		sig_init(&s[i], i, 0xabc);
	sig_param(&s[0], 100, 1);
	sig_param(&s[1], 104, 1);
	sig_param(&s[2], 105, 1);
	sig_param(&s[3], 200, 1);
	CHECK(run_mode("callpath-param", s, 4, &o, &c) == 0);
	CHECK_EQ_U64(c.nmains, 1);
	CHECK_EQ_U64(c.nclusters, 2);
	CHECK(same_ranks(&c.clusters[0], a, 3));
	CHECK(same_ranks(&c.clusters[1], b, 1));
	/* the recorded average of the first sub-cluster (§3.6) */
	CHECK_EQ_U64(c.clusters[0].count_mean, 103);
	CHECK_EQ_I64(c.clusters[0].parent, 0);
	CHECK(!c.refined);
	tc_clustering_release(&c);

	/* 106 is more than 5% above 100: two sub-clusters */
	sig_param(&s[1], 106, 1);
	sig_param(&s[2], 100, 1);
	sig_param(&s[3], 100, 1);
	CHECK(run_mode("callpath-param", s, 4, &o, &c) == 0);
	CHECK_EQ_U64(c.nclusters, 2);
	CHECK_EQ_U64(c.clusters[1].nranks, 1);
	CHECK_EQ_I64(c.clusters[1].lead, 1);
	tc_clustering_release(&c);

	/* a threshold of 0.1 merges them again */
	o.threshold = 0.1;
	CHECK(run_mode("callpath-param", s, 4, &o, &c) == 0);
	CHECK_EQ_U64(c.nclusters, 1);
	tc_clustering_release(&c);
}

TEST(callpath_param_filtering_past_half)
{
	struct tc_signatures s[8];
	struct tc_cluster_opts o;
	struct tc_clustering c;

	tc_cluster_opts_init(&o);
	/* 8 ranks, one call path, every rank its own DEST: 8 sub-clusters >
	 * P/2 = 4, so the fallback merges on DEST */
	for (int i = 0; i < 8; i++) {
		sig_init(&s[i], i, 0x77);
		sig_param(&s[i], 1000, (uint16_t)i);
	}
	CHECK(run_mode("callpath-param", s, 8, &o, &c) == 0);
	CHECK_EQ_U64(c.nclusters, 8);
	CHECK(c.filter.applied);
	CHECK_EQ_U64(c.filter.limit, 4);
	CHECK_EQ_U64(c.filter.params, 1u << TC_FP_DEST);
	CHECK_EQ_U64(c.filter.ngroups, 1);
	CHECK_EQ_U64(c.filter.groups[0].nsubs, 8);
	CHECK_EQ_U64(c.filter.groups[0].nranks, 8);
	CHECK_EQ_I64(c.filter.groups[0].lead, 0);
	tc_clustering_release(&c);

	/* two COUNT levels as well: merging DEST leaves 2 groups <= 4, and
	 * COUNT is not merged */
	for (int i = 0; i < 8; i++)
		sig_param(&s[i], i < 4 ? 1000 : 5000, (uint16_t)i);
	CHECK(run_mode("callpath-param", s, 8, &o, &c) == 0);
	CHECK(c.filter.applied);
	CHECK_EQ_U64(c.filter.params, 1u << TC_FP_DEST);
	CHECK_EQ_U64(c.filter.ngroups, 2);
	tc_clustering_release(&c);

	/* exactly P/2 sub-clusters: no filtering */
	for (int i = 0; i < 8; i++)
		sig_param(&s[i], 1000, (uint16_t)(i / 2));
	CHECK(run_mode("callpath-param", s, 8, &o, &c) == 0);
	CHECK_EQ_U64(c.nclusters, 4);
	CHECK(!c.filter.applied);
	CHECK_EQ_U64(c.filter.ngroups, 0);
	tc_clustering_release(&c);
}

/* ---- distances and normalisation (§4.1.1) -------------------------------------- */

TEST(distance_groups_are_lexicographic)
{
	struct tc_signatures s[4];
	struct tc_cluster_metric m;
	struct tc_cluster_dist ab, ac, ad, aa;
	uint32_t dims = 1u << TC_SIG_CALLPATH | 1u << TC_SIG_COUNT | 1u << TC_SIG_SRC;

	sig_init(&s[0], 0, 1);
	sig_init(&s[1], 1, 1);
	sig_init(&s[2], 2, 2);
	sig_init(&s[3], 3, 1);
	s[0].v[TC_SIG_COUNT] = 100;
	s[1].v[TC_SIG_COUNT] = 200;   /* group 1: the whole range of COUNT */
	s[2].v[TC_SIG_COUNT] = 100;   /* group 3: another call path */
	s[3].v[TC_SIG_COUNT] = 100;
	s[3].v[TC_SIG_SRC] = (uint64_t)-5; /* group 2: SRC -5 vs 0 */
	tc_cluster_metric_init(&m, s, 4, dims, TC_DIST_MANHATTAN, NULL);
	CHECK(fabs(m.scale[TC_SIG_COUNT] - 0.01) < 1e-15);
	CHECK(fabs(m.scale[TC_SIG_SRC] - 0.2) < 1e-15);
	CHECK(m.scale[TC_SIG_DEST] == 0.0);
	tc_cluster_distance(&m, &s[0], &s[1], &ab);
	tc_cluster_distance(&m, &s[0], &s[2], &ac);
	tc_cluster_distance(&m, &s[0], &s[3], &ad);
	tc_cluster_distance(&m, &s[0], &s[0], &aa);
	CHECK(ab.g[0] == 0 && ab.g[1] == 0 && fabs(ab.g[2] - 1.0) < 1e-12);
	CHECK(ac.g[0] == 1.0 && ac.g[1] == 0 && ac.g[2] == 0);
	CHECK(ad.g[0] == 0 && fabs(ad.g[1] - 1.0) < 1e-12 && ad.g[2] == 0);
	/* a call-path difference outweighs everything, then group 2 */
	CHECK(tc_cluster_dist_cmp(&ac, &ad) > 0);
	CHECK(tc_cluster_dist_cmp(&ad, &ab) > 0);
	CHECK(tc_cluster_dist_cmp(&ab, &aa) > 0);
	CHECK(tc_cluster_dist_cmp(&aa, &aa) == 0);
}

TEST(distance_manhattan_and_euclidean)
{
	struct tc_signatures s[2];
	struct tc_cluster_metric m;
	struct tc_cluster_dist d;
	uint32_t dims = 1u << TC_SIG_COUNT | 1u << TC_SIG_COMP | 1u << TC_SIG_TYPES;

	sig_init(&s[0], 0, 1);
	sig_init(&s[1], 1, 1);
	s[1].v[TC_SIG_COUNT] = 3;
	s[1].v[TC_SIG_COMP] = 4;
	s[0].v[TC_SIG_TYPES] = 0x1;
	s[1].v[TC_SIG_TYPES] = 0x6; /* three bits vary, all three differ */
	tc_cluster_metric_init(&m, s, 2, dims, TC_DIST_MANHATTAN, NULL);
	CHECK_EQ_U64(m.types_mask, 0x7);
	tc_cluster_distance(&m, &s[0], &s[1], &d);
	CHECK(fabs(d.g[2] - 2.0) < 1e-12);  /* normalised 1 + 1 */
	CHECK(fabs(d.g[0] - 1.0) < 1e-12);  /* 3 of 3 varying bits */
	tc_cluster_metric_init(&m, s, 2, dims, TC_DIST_EUCLIDEAN, NULL);
	tc_cluster_distance(&m, &s[0], &s[1], &d);
	CHECK(fabs(d.g[2] - sqrt(2.0)) < 1e-12);
	/* signatures outside dims do not count */
	tc_cluster_metric_init(&m, s, 2, 1u << TC_SIG_COUNT, TC_DIST_MANHATTAN, NULL);
	tc_cluster_distance(&m, &s[0], &s[1], &d);
	CHECK(d.g[0] == 0 && d.g[1] == 0 && fabs(d.g[2] - 1.0) < 1e-12);
}

/* ---- K-Farthest and PAM at one node ---------------------------------------------- */

/* m items on a line (COUNT), distances normalised by the range. */
static void line(struct tc_signatures *s, const struct tc_signatures **p, const uint64_t *x,
		 size_t m, struct tc_cluster_metric *mt)
{
	for (size_t j = 0; j < m; j++) {
		sig_init(&s[j], (int32_t)j, 1);
		s[j].v[TC_SIG_COUNT] = x[j];
		p[j] = &s[j];
	}
	tc_cluster_metric_init(mt, s, m, 1u << TC_SIG_COUNT, TC_DIST_MANHATTAN, NULL);
}

TEST(kfarthest_picks)
{
	static const uint64_t x[] = { 0, 10, 1, 9, 5 }, w[] = { 1, 1, 1, 1, 1 };
	struct tc_signatures s[5];
	const struct tc_signatures *p[5];
	struct tc_cluster_metric mt;
	uint32_t rep[5];

	line(s, p, x, 5, &mt);
	/* the own cluster (0) first, then 10 (farthest from 0), then 5
	 * (0.5 from both); 1 joins 0, 9 joins 10 */
	CHECK_EQ_U64(tc_kfarthest_node(&mt, p, w, 5, 3, rep), 3);
	CHECK(rep[0] == 0 && rep[1] == 1 && rep[2] == 0 && rep[3] == 1 && rep[4] == 4);
	/* K = 1: everything joins the own cluster */
	CHECK_EQ_U64(tc_kfarthest_node(&mt, p, w, 5, 1, rep), 1);
	for (int j = 0; j < 5; j++)
		CHECK(rep[j] == 0);
	/* K larger than the items: every distinct item is kept */
	CHECK_EQ_U64(tc_kfarthest_node(&mt, p, w, 5, 9, rep), 5);
}

TEST(kfarthest_stops_at_duplicates)
{
	static const uint64_t x[] = { 7, 7, 3, 7 }, w[] = { 1, 1, 1, 1 };
	struct tc_signatures s[4];
	const struct tc_signatures *p[4];
	struct tc_cluster_metric mt;
	uint32_t rep[4];

	line(s, p, x, 4, &mt);
	CHECK_EQ_U64(tc_kfarthest_node(&mt, p, w, 4, 9, rep), 2);
	CHECK(rep[0] == 0 && rep[1] == 0 && rep[2] == 2 && rep[3] == 0);
}

TEST(pam_tiny_known_example)
{
	static const uint64_t x[] = { 0, 1, 2, 10, 11, 12 }, w[] = { 1, 1, 1, 1, 1, 1 };
	struct tc_signatures s[6];
	const struct tc_signatures *p[6];
	struct tc_cluster_metric mt;
	uint32_t rep[6];

	line(s, p, x, 6, &mt);
	/* two groups of three: the medoids are the middle points, whatever
	 * the initial draw */
	for (uint64_t seed = 1; seed <= 8; seed++) {
		CHECK_EQ_U64(tc_pam_node(&mt, p, w, 6, 2, seed, rep), 2);
		CHECK(rep[0] == 1 && rep[1] == 1 && rep[2] == 1);
		CHECK(rep[3] == 4 && rep[4] == 4 && rep[5] == 4);
	}
}

TEST(pam_weights_and_duplicates)
{
	static const uint64_t x[] = { 0, 10, 11 }, w[] = { 1, 1, 5 };
	static const uint64_t y[] = { 4, 4, 8, 8 }, wy[] = { 1, 1, 1, 1 };
	struct tc_signatures s[4];
	const struct tc_signatures *p[4];
	struct tc_cluster_metric mt;
	uint32_t rep[4];

	/* K = 1: 11 costs 11*1 + 1*1 = 12, 10 costs 10 + 5 = 15, 0 costs 65 */
	line(s, p, x, 3, &mt);
	CHECK_EQ_U64(tc_pam_node(&mt, p, w, 3, 1, 3, rep), 1);
	CHECK(rep[0] == 2 && rep[1] == 2 && rep[2] == 2);
	/* two distinct values, K = 3: two medoids, duplicates join the first */
	line(s, p, y, 4, &mt);
	CHECK_EQ_U64(tc_pam_node(&mt, p, wy, 4, 3, 3, rep), 2);
	CHECK(rep[0] == 0 && rep[1] == 0 && rep[2] == 2 && rep[3] == 2);
}

TEST(timing_alike_relative_and_statistical)
{
	/* exact with noise 0 */
	CHECK(tc_timing_alike(100, 0, 100, 0, 0));
	CHECK(!tc_timing_alike(100, 0, 101, 0, 0));
	CHECK(!tc_timing_alike(100, 50, 101, 50, 0));
	/* relative to the larger value */
	CHECK(tc_timing_alike(1000, 0, 500, 0, 0.5));
	CHECK(!tc_timing_alike(1000, 0, 499, 0, 0.5));
	CHECK(tc_timing_alike(0, 0, 0, 0, 0.5));
	CHECK(!tc_timing_alike(0, 0, 1, 0, 0.5));
	CHECK(tc_timing_alike(UINT64_MAX, 0, UINT64_MAX / 2 + 1, 0, 0.5));
	/* three standard errors of the difference: sqrt(30^2 + 40^2) = 50 */
	CHECK(tc_timing_alike(1000, 30, 1150, 40, 0.1));
	CHECK(!tc_timing_alike(1000, 30, 1151, 40, 0.1));
	/* everything with noise 1 */
	CHECK(tc_timing_alike(1, 0, 1000000, 0, 1));
}

/* m items alike but for their COMP time. */
static void comp_line(struct tc_signatures *s, const struct tc_signatures **p, const uint64_t *x,
		      size_t m, double noise, struct tc_cluster_metric *mt)
{
	for (size_t j = 0; j < m; j++) {
		sig_init(&s[j], (int32_t)j, 1);
		s[j].v[TC_SIG_COMP] = x[j];
		p[j] = &s[j];
	}
	tc_cluster_metric_init(mt, s, m, 1u << TC_SIG_COMP, TC_DIST_MANHATTAN, NULL);
	mt->noise = noise;
}

TEST(k_nodes_do_not_split_timing_noise)
{
	/* jitter of up to 30% around 1000 ns, and one rank at 3000 ns */
	static const uint64_t x[] = { 1000, 1200, 900, 1300, 1100, 3000 };
	static const uint64_t w[] = { 1, 1, 1, 1, 1, 1 };
	struct tc_signatures s[6];
	const struct tc_signatures *p[6];
	struct tc_cluster_metric mt;
	struct tc_cluster_dist d;
	uint32_t rep[6];

	comp_line(s, p, x, 5, 0.5, &mt);
	tc_cluster_distance(&mt, p[0], p[3], &d);
	CHECK(d.g[2] == 0);
	/* K is an upper bound: one cluster, however large K */
	CHECK_EQ_U64(tc_kfarthest_node(&mt, p, w, 5, 3, rep), 1);
	CHECK_EQ_U64(tc_kfarthest_node(&mt, p, w, 5, 9, rep), 1);
	CHECK_EQ_U64(tc_pam_node(&mt, p, w, 5, 3, 1, rep), 1);
	for (int j = 0; j < 5; j++)
		CHECK(rep[j] == 0);
	/* exact timing: K clusters, the papers' behaviour */
	comp_line(s, p, x, 5, 0, &mt);
	CHECK_EQ_U64(tc_kfarthest_node(&mt, p, w, 5, 3, rep), 3);
	CHECK_EQ_U64(tc_pam_node(&mt, p, w, 5, 3, 1, rep), 3);
	/* a rank three times slower is a difference beyond the noise */
	comp_line(s, p, x, 6, 0.5, &mt);
	CHECK_EQ_U64(tc_kfarthest_node(&mt, p, w, 6, 9, rep), 2);
	CHECK(rep[5] == 5 && rep[1] == 0 && rep[3] == 0);
	CHECK_EQ_U64(tc_pam_node(&mt, p, w, 6, 3, 1, rep), 2);
	CHECK(rep[5] == 5);
	/* the standard errors widen the tolerance of noisy averages */
	comp_line(s, p, x, 6, 0.1, &mt);
	CHECK(tc_kfarthest_node(&mt, p, w, 6, 9, rep) > 2);
	for (int j = 0; j < 6; j++)
		s[j].comp_se = 100;
	CHECK_EQ_U64(tc_kfarthest_node(&mt, p, w, 6, 9, rep), 2);
}

TEST(k_modes_noise_on_whole_runs)
{
	/* 64 ranks of one behaviour with jittering COMP and COMM, and 64 of
	 * a second call path: two clusters whatever K, unless timing is
	 * compared exactly */
	size_t n = 128;
	struct tc_signatures *s = calloc(n, sizeof(*s));
	static const char *const names[] = { "kfarthest", "kmedoid" };

	for (size_t i = 0; i < n; i++) {
		uint64_t h = tc_hash_fmix(i + 1);
		sig_init(&s[i], (int32_t)i, i < 64 ? 0x10 : 0x20);
		s[i].v[TC_SIG_COMP] = 10000 + h % 3000;
		s[i].v[TC_SIG_COMM] = 50000 + (h >> 20) % 20000;
	}
	for (int mi = 0; mi < 2; mi++)
		for (int steps = 1; steps <= 2; steps++)
			for (int exact = 0; exact < 2; exact++) {
				struct tc_cluster_opts o;
				struct tc_clustering c;
				tc_cluster_opts_init(&o);
				o.k = 9;
				o.steps = steps;
				if (exact)
					o.noise = 0;
				CHECK(run_mode(names[mi], s, n, &o, &c) == 0);
				CHECK_EQ_U64(c.nclusters, exact ? 9 : 2);
				if (!exact && c.nclusters == 2) {
					CHECK_EQ_U64(c.clusters[0].nranks, 64);
					CHECK_EQ_I64(c.clusters[1].ranks[0], 64);
				}
				tc_clustering_release(&c);
			}
	free(s);
}

/* ---- whole modes -------------------------------------------------------------------- */

/* n ranks, rank r of call path r % ncp, COUNT and COMP that vary. */
static struct tc_signatures *many(size_t n, unsigned ncp)
{
	struct tc_signatures *s = calloc(n, sizeof(*s));

	for (size_t i = 0; i < n; i++) {
		uint64_t h = tc_hash_fmix(i + 1);
		sig_init(&s[i], (int32_t)i, 0x1000 + i % ncp);
		sig_param(&s[i], 100 + (h & 3) * 50, (uint16_t)(i % 3));
		s[i].v[TC_SIG_COMP] = 1000 + (h >> 8) % 100;
		s[i].v[TC_SIG_DEST] = i % 3;
		s[i].reference = s[i].callpath ^ s[i].param;
	}
	return s;
}

static bool same_result(const struct tc_clustering *a, const struct tc_clustering *b)
{
	if (a->nclusters != b->nclusters || a->nmains != b->nmains)
		return false;
	for (size_t k = 0; k < a->nclusters; k++)
		if (a->clusters[k].lead != b->clusters[k].lead ||
		    a->clusters[k].parent != b->clusters[k].parent ||
		    !same_ranks(&a->clusters[k], b->clusters[k].ranks, b->clusters[k].nranks))
			return false;
	return true;
}

TEST(every_mode_same_for_any_thread_count)
{
	size_t n = 20000, nm;
	struct tc_signatures *s = many(n, 7);
	struct tc_pool *pool = tc_pool_new(4);
	const struct tc_cluster_mode *modes = tc_cluster_modes(&nm);

	for (size_t i = 0; i < nm; i++)
		for (int steps = 1; steps <= 2; steps++) {
			struct tc_cluster_opts o;
			struct tc_clustering a, b;
			if (modes[i].flags & TC_CMF_TRACES)
				continue; /* needs traces: tested elsewhere */
			tc_cluster_opts_init(&o);
			o.steps = steps;
			CHECK(run_mode(modes[i].name, s, n, &o, &a) == 0);
			o.pool = pool;
			CHECK(run_mode(modes[i].name, s, n, &o, &b) == 0);
			CHECK(same_result(&a, &b));
			if (!same_result(&a, &b))
				printf("# mode %s steps %d differs\n", modes[i].name, steps);
			tc_clustering_release(&a);
			tc_clustering_release(&b);
		}
	tc_pool_free(pool);
	free(s);
}

/* A remote that runs the subtrees in three parts, each in its own copy of
 * the reduction made from its packed bytes (as tracecluster-mpi's
 * processes do), and takes their results back; *self counts its uses. */
static unsigned parts_run(void *self, struct tc_reduction *r)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	size_t nroots;
	unsigned d = tc_reduction_plan(r, 3, &nroots);

	if (!d)
		return 0;
	for (size_t p = 0; p < 3; p++) {
		struct tc_strbuf out = TC_STRBUF_INIT;
		struct tc_unpack u;
		struct tc_reduction *w;
		size_t lo = nroots * p / 3, hi = nroots * (p + 1) / 3;
		tc_strbuf_reset(&sb);
		tc_reduction_pack(r, d, lo, hi, &sb);
		tc_unpack_init(&u, sb.buf, sb.len);
		w = tc_reduction_unpack(&u);
		CHECK(w != NULL && tc_unpack_done(&u));
		if (!w)
			return 0;
		tc_reduction_run_part(w, d, lo, hi, NULL, &out);
		tc_unpack_init(&u, out.buf, out.len);
		CHECK(tc_reduction_take_part(r, d, lo, hi, &u) && tc_unpack_done(&u));
		/* a cut message is refused */
		tc_unpack_init(&u, sb.buf, sb.len / 2);
		tc_reduction_free(&w);
		w = tc_reduction_unpack(&u);
		CHECK(w == NULL);
		tc_strbuf_release(&out);
	}
	tc_strbuf_release(&sb);
	++*(int *)self;
	return d;
}

TEST(every_mode_same_with_subtrees_run_in_parts)
{
	size_t n = 3000, nm;
	struct tc_signatures *s = many(n, 7);
	const struct tc_cluster_mode *modes = tc_cluster_modes(&nm);
	int used = 0;
	struct tc_reduce_remote rr = { parts_run, &used };

	for (size_t i = 0; i < nm; i++)
		for (int steps = 1; steps <= 2; steps++) {
			struct tc_cluster_opts o;
			struct tc_clustering a, b;
			if (modes[i].flags & TC_CMF_TRACES)
				continue;
			tc_cluster_opts_init(&o);
			o.steps = steps;
			CHECK(run_mode(modes[i].name, s, n, &o, &a) == 0);
			tc_cluster_set_reduce_remote(&rr);
			CHECK(run_mode(modes[i].name, s, n, &o, &b) == 0);
			tc_cluster_set_reduce_remote(NULL);
			CHECK(same_result(&a, &b));
			if (!same_result(&a, &b))
				printf("# mode %s steps %d differs\n", modes[i].name, steps);
			tc_clustering_release(&a);
			tc_clustering_release(&b);
		}
	/* the parts ran (every mode reduces at least once) */
	CHECK(used >= (int)nm);
	free(s);
}

TEST(callpath_mode_groups_and_leads)
{
	size_t n = 1000;
	struct tc_signatures *s = many(n, 7);
	struct tc_cluster_opts o;
	struct tc_clustering c;

	tc_cluster_opts_init(&o);
	CHECK(run_mode("callpath", s, n, &o, &c) == 0);
	CHECK_EQ_U64(c.nclusters, 7);
	for (size_t k = 0; k < c.nclusters; k++) {
		const struct tc_cluster *cl = &c.clusters[k];
		/* numbered by first rank; the lead is the start rank (§3.1) */
		CHECK_EQ_I64(cl->ranks[0], (int64_t)k);
		CHECK_EQ_I64(cl->lead, (int64_t)k);
		CHECK_EQ_U64(cl->ranklist.nruns, 1);
		CHECK_EQ_I64(cl->ranklist.runs[0].stride, 7);
		for (size_t r = 0; r < cl->nranks; r++)
			CHECK_EQ_U64(s[cl->ranks[r]].callpath, cl->sig.callpath);
	}
	tc_clustering_release(&c);
	free(s);
}

TEST(k_modes_give_k_clusters_covering_call_paths)
{
	size_t n = 3000;
	struct tc_signatures *s = many(n, 5);
	static const char *const names[] = { "kfarthest", "kmedoid" };

	for (int mi = 0; mi < 2; mi++)
		for (int steps = 1; steps <= 2; steps++)
			for (uint32_t k = 1; k <= 12; k++) {
				struct tc_cluster_opts o;
				struct tc_clustering c;
				uint64_t seen[16];
				size_t nseen = 0;
				tc_cluster_opts_init(&o);
				o.k = k;
				o.steps = steps;
				CHECK(run_mode(names[mi], s, n, &o, &c) == 0);
				CHECK_EQ_U64(c.nclusters, k);
				if (k < 5)
					goto next;
				/* K >= the call paths: each cluster has one call
				 * path and every call path has a cluster */
				for (size_t q = 0; q < c.nclusters; q++) {
					const struct tc_cluster *cl = &c.clusters[q];
					bool dup = false;
					for (size_t r = 0; r < cl->nranks; r++)
						CHECK_EQ_U64(s[cl->ranks[r]].callpath, cl->sig.callpath);
					for (size_t t = 0; t < nseen; t++)
						dup |= seen[t] == cl->sig.callpath;
					if (!dup)
						seen[nseen++] = cl->sig.callpath;
				}
				CHECK_EQ_U64(nseen, 5);
next:
				tc_clustering_release(&c);
			}
	free(s);
}

TEST(k_modes_fewer_clusters_than_behaviours)
{
	struct tc_signatures s[40];
	struct tc_cluster_opts o;
	struct tc_clustering c;

	/* two behaviours only: K = 9 gives two clusters */
	for (int i = 0; i < 40; i++) {
		sig_init(&s[i], i, i % 2 ? 0xa : 0xb);
		s[i].v[TC_SIG_COUNT] = 64;
	}
	tc_cluster_opts_init(&o);
	CHECK(run_mode("kfarthest", s, 40, &o, &c) == 0);
	CHECK_EQ_U64(c.nclusters, 2);
	CHECK_EQ_U64(c.format, 1u << TC_SIG_CALLPATH);
	tc_clustering_release(&c);
	CHECK(run_mode("kmedoid", s, 40, &o, &c) == 0);
	CHECK_EQ_U64(c.nclusters, 2);
	tc_clustering_release(&c);
	/* all alike: one cluster */
	for (int i = 0; i < 40; i++)
		sig_init(&s[i], i, 0xa);
	CHECK(run_mode("kmedoid", s, 40, &o, &c) == 0);
	CHECK_EQ_U64(c.nclusters, 1);
	CHECK_EQ_U64(c.format, 0);
	tc_clustering_release(&c);
}

TEST(dynamic_two_levels)
{
	struct tc_signatures s[6];
	struct tc_cluster_opts o;
	struct tc_clustering c;

	/* call paths A A A B B B; SRC 0 0 1 | 2 2 2 */
	for (int i = 0; i < 6; i++)
		sig_init(&s[i], i, i < 3 ? 0xa : 0xb);
	s[2].v[TC_SIG_SRC] = 1;
	for (int i = 3; i < 6; i++)
		s[i].v[TC_SIG_SRC] = 2;
	tc_cluster_opts_init(&o);
	CHECK(run_mode("dynamic", s, 6, &o, &c) == 0);
	CHECK_EQ_U64(c.nmains, 2);
	CHECK_EQ_U64(c.nclusters, 3);
	CHECK_EQ_I64(c.clusters[1].lead, 2);
	CHECK_EQ_I64(c.clusters[1].parent, 0);
	CHECK_EQ_I64(c.clusters[2].parent, 1);
	CHECK_EQ_U64(c.mains[0].nsubs, 2);
	tc_clustering_release(&c);
}

TEST(input_must_be_in_rank_order)
{
	struct tc_signatures s[3];
	struct tc_cluster_opts o;
	struct tc_clustering c;

	for (int i = 0; i < 3; i++)
		sig_init(&s[i], 2 - i, 1);
	tc_cluster_opts_init(&o);
	CHECK(run_mode("callpath", s, 3, &o, &c) < 0);
	tc_clustering_release(&c);
	CHECK(tc_cluster_mode_find("nonesuch") == NULL);
	/* ranks with gaps (a partial set) are fine */
	for (int i = 0; i < 3; i++)
		sig_init(&s[i], 10 * i + 3, 1);
	CHECK(run_mode("callpath", s, 3, &o, &c) == 0);
	CHECK_EQ_U64(c.nclusters, 1);
	CHECK_EQ_I64(c.clusters[0].lead, 3);
	CHECK_EQ_U64(c.clusters[0].nst, 5);
	tc_clustering_release(&c);
}

/* ---- verification against traces ---------------------------------------------- */

static struct tc_rank_trace *trace_of(int32_t rank, const uint64_t *stacks, size_t n,
				      uint64_t count)
{
	struct tc_rank_trace *t = tc_rank_trace_new(rank, 4, NULL);

	for (size_t i = 0; i < n; i++) {
		struct tc_callsite cs = { (uint32_t)i, stacks[i], 0, NULL };
		struct tc_event ev;
		tc_rank_trace_on_callsite(t, &cs);
		tc_event_init(&ev);
		ev.op = TC_OP_SEND;
		ev.callsite = (uint32_t)i;
		ev.fields = TC_F_PEER | TC_F_COUNT | TC_F_DTYPE;
		ev.peer = rank + 1;
		ev.count = count;
		ev.dtype = TC_DT_DOUBLE;
		ev.dtype_size = 8;
		ev.t_start = 100 * (i + 1);
		ev.t_end = ev.t_start + 10;
		tc_rank_trace_on_event(t, &ev);
	}
	return t;
}

TEST(verify_reports_collisions)
{
	static const uint64_t ab[] = { 0xa, 0xb }, ba[] = { 0xb, 0xa };
	struct tc_rank_trace *t[3];
	struct tc_signatures s[3];
	struct tc_cluster_input in = { s, 3, t };
	struct tc_cluster_opts o;
	struct tc_clustering c;
	struct tc_error err;

	t[0] = trace_of(0, ab, 2, 100);
	t[1] = trace_of(1, ab, 2, 103); /* COUNT within 5% */
	t[2] = trace_of(2, ba, 2, 100); /* other call sites */
	for (int i = 0; i < 3; i++)
		tc_signatures_compute(t[i], &s[i]);
	CHECK(s[0].callpath == s[1].callpath && s[0].callpath != s[2].callpath);
	tc_cluster_opts_init(&o);
	/* forge a collision: rank 2 claims rank 0's call path */
	s[2].callpath = s[2].v[TC_SIG_CALLPATH] = s[0].callpath;
	CHECK(tc_cluster_run(tc_cluster_mode_find("callpath"), &in, &o, &c, &err) == 0);
	CHECK_EQ_U64(c.nclusters, 1);
	CHECK(tc_cluster_verify(&c, &in, &o, &err) == 0);
	CHECK(c.verified);
	CHECK_EQ_U64(c.collisions, 1);
	CHECK_EQ_U64(c.clusters[0].check.differ[TC_LEVEL_CALLPATH], 1);
	CHECK_EQ_U64(c.clusters[0].check.differ[TC_LEVEL_PARAM], 1);
	CHECK_EQ_U64(c.clusters[0].check.differ[TC_LEVEL_EXACT], 2);
	CHECK_EQ_U64(c.clusters[0].check.sequences, 3);
	tc_clustering_release(&c);
	CHECK(tc_seq_alike(t[0], t[1], TC_LEVEL_PARAM, 0.05));
	CHECK(!tc_seq_alike(t[0], t[1], TC_LEVEL_PARAM, 0.02));
	CHECK(!tc_seq_alike(t[0], t[1], TC_LEVEL_EXACT, 0.05));
	CHECK(!tc_seq_alike(t[0], t[2], TC_LEVEL_CALLPATH, 0.05));
	for (int i = 0; i < 3; i++)
		tc_rank_trace_free(&t[i]);
}

TEST(callpath_param_refines_by_exact_comparison)
{
	static const uint64_t ab[] = { 0xa, 0xb };
	struct tc_rank_trace *t[3];
	struct tc_signatures s[3];
	struct tc_cluster_input in = { s, 3, t };
	struct tc_cluster_opts o;
	struct tc_clustering c;
	struct tc_error err;

	t[0] = trace_of(0, ab, 2, 100);
	t[1] = trace_of(1, ab, 2, 200);
	t[2] = trace_of(2, ab, 2, 104);
	for (int i = 0; i < 3; i++)
		tc_signatures_compute(t[i], &s[i]);
	/* forge a parameter signature collision: rank 1 claims rank 0's */
	s[1].param = s[0].param;
	s[1].v[TC_SIG_COUNT] = s[0].v[TC_SIG_COUNT];
	tc_cluster_opts_init(&o);
	in.traces = NULL;
	CHECK(tc_cluster_run(tc_cluster_mode_find("callpath-param"), &in, &o, &c, &err) == 0);
	CHECK_EQ_U64(c.nclusters, 1);
	tc_clustering_release(&c);
	in.traces = t;
	CHECK(tc_cluster_run(tc_cluster_mode_find("callpath-param"), &in, &o, &c, &err) == 0);
	CHECK(c.refined);
	CHECK_EQ_U64(c.added, 1);
	CHECK_EQ_U64(c.nclusters, 2);
	CHECK_EQ_U64(c.clusters[0].nranks, 2); /* 0 and 2: COUNT within 5% */
	CHECK_EQ_I64(c.clusters[1].lead, 1);
	CHECK(tc_cluster_verify(&c, &in, &o, &err) == 0);
	CHECK_EQ_U64(c.collisions, 0);
	CHECK_EQ_U64(c.clusters[0].check.differ[TC_LEVEL_EXACT], 1);
	tc_clustering_release(&c);
	for (int i = 0; i < 3; i++)
		tc_rank_trace_free(&t[i]);
}

TEST(every_mode_on_zero_and_one_rank)
{
	size_t nm;
	const struct tc_cluster_mode *modes = tc_cluster_modes(&nm);
	struct tc_signatures s[1];

	sig_init(&s[0], 3, 0x5);
	for (size_t i = 0; i < nm; i++)
		for (size_t n = 0; n <= 1; n++) {
			struct tc_cluster_opts o;
			struct tc_clustering c;
			if (modes[i].flags & TC_CMF_TRACES)
				continue;
			tc_cluster_opts_init(&o);
			o.steps = (int)(1 + n);
			CHECK(run_mode(modes[i].name, s, n, &o, &c) == 0);
			CHECK_EQ_U64(c.nclusters, n);
			if (n) {
				CHECK_EQ_I64(c.clusters[0].lead, 3);
				CHECK_EQ_U64(c.clusters[0].nranks, 1);
			}
			CHECK(!c.filter.applied);
			tc_clustering_release(&c);
		}
}
