/*
 * clusterbench - time the clustering modes on synthetic signature sets of
 * P ranks (default 1,048,576) generated in memory, against a named
 * baseline measured in the same run: a plain qsort of the P signature
 * records by (call path, parameter signature).
 *
 * The set is what a 1024 x 1024 non-periodic 2D stencil gives: nine call
 * paths (corners, edges, interior), the matching average relative peers,
 * message counts jittered by up to 3% per rank (so the 5% COUNT filter has
 * work to do), and compute and communication times that differ on every
 * rank (so every rank is a distinct point for the K modes).
 *
 * With -s N, each mode runs a second time with the subtrees of its
 * radix-tree reductions in N parts, each packed, unpacked into its own
 * copy, run and its results taken back one after the other in this
 * process (what tracecluster-mpi's processes do, without MPI): the CPU
 * cost of running the reductions in parts.
 *
 * usage: clusterbench [-P ranks] [-r reps] [-j threads] [-k K] [-s N]
 */
#include "lib/compat.h"
#include "cluster/cluster.h"
#include "cluster/signature.h"
#include "lib/error.h"
#include "lib/hash.h"
#include "lib/pack.h"
#include "lib/pool.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void make_sigs(struct tc_signatures *s, size_t p)
{
	size_t side = 1;

	while (side * side < p)
		side++;
	for (size_t i = 0; i < p; i++) {
		size_t x = i % side, y = i / side, rows = (p + side - 1) / side;
		int cx = x == 0 ? 0 : x == side - 1 ? 2 : 1;
		int cy = y == 0 ? 0 : y + 1 >= rows ? 2 : 1;
		int cls = cy * 3 + cx;
		uint64_t h = tc_hash_fmix(i * 0x9e3779b97f4a7c15ULL + 1);
		/* average relative peers of the four neighbours present */
		int64_t sum = 0, n = 0;
		uint64_t count = 4096 + (h % 123); /* < 3% above 4096 */

		if (cx > 0) { sum += -1; n++; }
		if (cx < 2) { sum += 1; n++; }
		if (cy > 0) { sum -= (int64_t)side; n++; }
		if (cy < 2) { sum += (int64_t)side; n++; }
		memset(&s[i], 0, sizeof(s[i]));
		s[i].rank = (int32_t)i;
		s[i].callpath = tc_hash_fmix(0xca11ULL + (uint64_t)cls);
		s[i].v[TC_SIG_CALLPATH] = s[i].callpath;
		s[i].v[TC_SIG_COUNT] = count;
		s[i].v[TC_SIG_SRC] = (uint64_t)(n ? sum / n : 0);
		s[i].v[TC_SIG_DEST] = s[i].v[TC_SIG_SRC];
		s[i].v[TC_SIG_TAG] = 7;
		s[i].v[TC_SIG_COMP] = 100000 + (h >> 20) % 5000;
		s[i].v[TC_SIG_COMM] = 2000 + (h >> 40) % 400;
		s[i].v[TC_SIG_LOOP] = 1000;
		s[i].v[TC_SIG_TYPES] = UINT64_C(1) << 11 | UINT64_C(1) << 56;
		s[i].param = (count & 0xffff) | (s[i].v[TC_SIG_DEST] & 0xffff) << 16 |
			     (s[i].v[TC_SIG_SRC] & 0xffff) << 32 | UINT64_C(1) << 50;
		s[i].reference = tc_hash_mix(s[i].callpath, count);
		s[i].events = 1000;
		s[i].nodes = 10;
	}
}

/* The parts of a reduction run in turn through their packed bytes. */
struct parts {
	size_t n;
	struct tc_pool *pool;
};

static unsigned parts_run(void *self, struct tc_reduction *r)
{
	const struct parts *ps = self;
	struct tc_strbuf in = TC_STRBUF_INIT, out = TC_STRBUF_INIT;
	size_t nroots;
	unsigned d = tc_reduction_plan(r, ps->n, &nroots);

	if (!d)
		return 0;
	for (size_t k = 0; k < ps->n; k++) {
		size_t lo = nroots * k / ps->n, hi = nroots * (k + 1) / ps->n;
		struct tc_unpack u;
		struct tc_reduction *w;
		tc_strbuf_reset(&in);
		tc_strbuf_reset(&out);
		tc_reduction_pack(r, d, lo, hi, &in);
		tc_unpack_init(&u, in.buf, in.len);
		w = tc_reduction_unpack(&u);
		if (!w) {
			fprintf(stderr, "clusterbench: a reduction did not unpack\n");
			exit(1);
		}
		tc_reduction_run_part(w, d, lo, hi, ps->pool, &out);
		tc_unpack_init(&u, out.buf, out.len);
		if (!tc_reduction_take_part(r, d, lo, hi, &u)) {
			fprintf(stderr, "clusterbench: a part's results did not unpack\n");
			exit(1);
		}
		tc_reduction_free(&w);
	}
	tc_strbuf_release(&in);
	tc_strbuf_release(&out);
	return d;
}

static int cmp_sig(const void *a, const void *b)
{
	const struct tc_signatures *x = a, *y = b;

	if (x->callpath != y->callpath)
		return x->callpath < y->callpath ? -1 : 1;
	if (x->param != y->param)
		return x->param < y->param ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	size_t p = 1u << 20;
	int reps = 5, c;
	unsigned threads = 2;
	uint32_t k = 9;
	size_t nparts = 0;
	struct tc_signatures *sigs, *copy;
	struct tc_pool *pool;
	double base, *t;
	static const char *const modes[] = { "kfarthest", "callpath-param", "callpath", "kmedoid" };

	while ((c = getopt(argc, argv, "P:r:j:k:s:")) != -1) {
		switch (c) {
		case 'P': p = strtoull(optarg, NULL, 0); break;
		case 'r': reps = atoi(optarg); break;
		case 'j': threads = (unsigned)atoi(optarg); break;
		case 'k': k = (uint32_t)atoi(optarg); break;
		case 's': nparts = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: clusterbench [-P ranks] [-r reps] [-j threads] [-k K] "
					"[-s N]\n");
			return 2;
		}
	}
	if (p < 1 || reps < 1 || threads < 1) {
		fprintf(stderr, "clusterbench: bad arguments\n");
		return 2;
	}
	sigs = tc_xmalloc(tc_st_mult(p, sizeof(*sigs)));
	copy = tc_xmalloc(tc_st_mult(p, sizeof(*copy)));
	t = tc_xmalloc((size_t)reps * sizeof(*t));
	make_sigs(sigs, p);
	pool = tc_pool_new(threads);
	printf("signature sets: P=%zu (2D stencil: 9 call paths, COUNT +0-3%%, per-rank times), "
	       "%d runs, -j%u\n", p, reps, threads);
	printf("%-40s %10s %10s %10s\n", "what", "median s", "vs qsort", "clusters");
	for (int r = 0; r < reps; r++) {
		double t0;
		memcpy(copy, sigs, p * sizeof(*sigs));
		t0 = now();
		qsort(copy, p, sizeof(*copy), cmp_sig);
		t[r] = now() - t0;
	}
	base = median(t, reps);
	printf("%-40s %10.4f %10.3f %10s\n", "qsort of the P signatures (baseline)", base, 1.0, "-");
	for (size_t m = 0; m < TC_ARRAY_SIZE(modes); m++) {
		const struct tc_cluster_mode *mode = tc_cluster_mode_find(modes[m]);
		struct tc_cluster_input in = { sigs, p, NULL };
		struct parts ps = { nparts, pool };
		struct tc_reduce_remote rr = { parts_run, &ps };
		struct tc_cluster_opts o;
		size_t nc = 0;
		char label[96];

		tc_cluster_opts_init(&o);
		o.k = k;
		o.pool = pool;
		for (int split = 0; split <= (nparts > 1); split++) {
			tc_cluster_set_reduce_remote(split ? &rr : NULL);
			for (int r = 0; r < reps; r++) {
				struct tc_clustering out;
				struct tc_error err;
				double t0 = now();
				if (tc_cluster_run(mode, &in, &o, &out, &err)) {
					fprintf(stderr, "clusterbench: %s: %s\n", modes[m], err.msg);
					return 1;
				}
				t[r] = now() - t0;
				nc = out.nclusters;
				tc_clustering_release(&out);
			}
			if (mode->flags & TC_CMF_K)
				snprintf(label, sizeof(label), "%s -k %" PRIu32, modes[m], k);
			else
				snprintf(label, sizeof(label), "%s", modes[m]);
			if (split)
				snprintf(label + strlen(label), sizeof(label) - strlen(label),
					 ", %zu parts packed", nparts);
			printf("%-40s %10.4f %10.3f %10zu\n", label, median(t, reps),
			       median(t, reps) / base, nc);
		}
		tc_cluster_set_reduce_remote(NULL);
	}
	tc_pool_free(pool);
	free(t);
	free(copy);
	free(sigs);
	return 0;
}
