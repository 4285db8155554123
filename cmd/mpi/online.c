/*
 * online.c - in-job clustering: libtracecluster-online.so, the plugin the
 * capture shim loads at MPI_Finalize when TRACECLUSTER_ONLINE names a
 * clustering mode (lib/capture/online.h).
 *
 * What the papers do inside the traced job (dissertation ch. 3-4): every
 * rank computes its own signatures, the signatures meet at rank 0, which
 * clusters them, and only the leads' traces travel to be merged into the
 * global trace. Here, once the shim has finished this rank's raw file:
 *
 *   1. each rank reads its own file back into a compressed trace and
 *      computes its signatures (cluster/signature.h);
 *   2. rank 0 gathers the signature records and runs the mode on them
 *      (the signatures only: no exact comparison of members' traces,
 *      which would need every member's trace in one place);
 *   3. rank 0 tells every rank whether it leads a cluster; the leads send
 *      their packed traces (lib/pack.h) to rank 0, which builds the
 *      global trace with each lead standing for its cluster (the papers'
 *      merge, as tracecluster compress --lead-only) and writes it to
 *      DIR/global.tct (binary), with DIR/online.json saying what was
 *      done;
 *   4. once it is written, each rank removes its raw file unless
 *      TRACECLUSTER_ONLINE_KEEP keeps it: "leads" (default: what the
 *      global trace was made of), "all", or "none".
 *
 * Every step is collective and every failure is agreed on first, so a
 * rank that could not trace or read its file makes the whole job keep
 * its raw files (and say so) instead of hanging or aborting the job. Only
 * PMPI calls are made: nothing here is recorded.
 */
#include "lib/compat.h"
#include "lib/capture/online.h"
#include "cmd/mpi/online.h"
#include "cmd/mpi/reduce_mpi.h"
#include "analysis/analysis.h"
#include "cluster/cluster.h"
#include "cluster/signature.h"
#include "formats/load.h"
#include "formats/tct.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/merge.h"
#include "lib/pack.h"
#include "lib/pool.h"
#include "lib/strbuf.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


double tc_online_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void tc_online_say(const struct tc_online_args *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "tracecluster-online: rank %d: %s\n", a->rank, buf);
}

bool tc_online_all(bool ok)
{
	int v = ok;

	PMPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	return v != 0;
}

bool tc_online_gather(const struct tc_online_args *a, const struct tc_strbuf *sb,
		      struct tc_online_bytes *out)
{
	int len = 0;
	bool ok = sb->len <= INT_MAX;

	memset(out, 0, sizeof(*out));
	if (ok)
		len = (int)sb->len;
	if (!tc_online_all(ok))
		return false;
	if (a->rank == 0) {
		out->lens = tc_xcalloc((size_t)a->size, sizeof(*out->lens));
		out->offs = tc_xcalloc((size_t)a->size, sizeof(*out->offs));
	}
	PMPI_Gather(&len, 1, MPI_INT, out->lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (a->rank == 0) {
		size_t total = 0;
		for (int r = 0; r < a->size; r++) {
			if (total > (size_t)INT_MAX - (size_t)out->lens[r])
				ok = false;
			out->offs[r] = (int)total;
			total += (size_t)out->lens[r];
		}
		if (ok)
			out->buf = tc_xmalloc(total ? total : 1);
	}
	if (!tc_online_all(ok)) {
		tc_online_bytes_release(out);
		return false;
	}
	PMPI_Gatherv(sb->buf, len, MPI_BYTE, out->buf, out->lens, out->offs, MPI_BYTE, 0,
		     MPI_COMM_WORLD);
	return true;
}

void tc_online_bytes_release(struct tc_online_bytes *b)
{
	free(b->buf);
	free(b->lens);
	free(b->offs);
	memset(b, 0, sizeof(*b));
}

/* This rank's own trace, read back from its raw file. */
static struct tc_rank_trace *read_own(const struct tc_online_args *a, char *path, size_t len)
{
	struct tc_pool *pool = tc_pool_new(1);
	struct tc_traceset *ts = NULL;
	struct tc_rank_trace **tr = NULL, *t = NULL;
	struct tc_error err;

	tc_raw_rank_path(path, len, a->dir, a->rank);
	if (tc_traceset_open(&ts, path, 0, pool, &err) ||
	    tc_load_all(ts, pool, NULL, &tr, NULL, &err)) {
		char msg[1200];
		tc_error_format(&err, msg, sizeof(msg));
		tc_online_say(a, "%s", msg);
	} else {
		t = tr[0];
		tr[0] = NULL;
		tc_load_free_all(tr, ts->nfiles);
	}
	tc_traceset_free(&ts);
	tc_pool_free(pool);
	return t;
}

/* "MODE[:K]" into the mode and its options; NULL if unknown. */
static const struct tc_cluster_mode *parse_mode(const char *s, struct tc_cluster_opts *o)
{
	char name[64];
	const char *colon = strchr(s, ':');
	const struct tc_cluster_mode *m;

	tc_cluster_opts_init(o);
	snprintf(name, sizeof(name), "%.*s", colon ? (int)(colon - s) : (int)strlen(s), s);
	m = tc_cluster_mode_find(name);
	if (colon) {
		char *end;
		unsigned long k = strtoul(colon + 1, &end, 10);
		if (*end || !k || k > UINT32_MAX)
			return NULL;
		o->k = (uint32_t)k;
	}
	/* chameleon's online form cuts the streams at marker calls as they
	 * happen; at MPI_Finalize only the modes over whole traces apply */
	if (m && !strcmp(m->name, "chameleon"))
		return NULL;
	return m;
}

/* Gather each lead's packed trace at rank 0 into traces[]. */
static bool gather_leads(const struct tc_online_args *a, const struct tc_rank_trace *own,
			 bool lead, struct tc_rank_trace **traces)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_online_bytes b;
	bool ok;

	if (lead)
		tc_rank_trace_pack(own, &sb);
	ok = tc_online_gather(a, &sb, &b);
	tc_strbuf_release(&sb);
	if (!ok)
		return false;
	if (a->rank == 0) {
		for (int r = 0; r < a->size && ok; r++) {
			struct tc_unpack u;
			if (!b.lens[r])
				continue;
			tc_unpack_init(&u, b.buf + b.offs[r], (size_t)b.lens[r]);
			traces[r] = tc_rank_trace_unpack(&u);
			if (!traces[r] || !tc_unpack_done(&u))
				ok = false;
		}
	}
	tc_online_bytes_release(&b);
	return ok;
}

/* Rank 0: the global trace of the leads, written to DIR/global.tct. */
static bool build_and_write(const struct tc_online_args *a, const struct tc_cluster_mode *mode,
			    const struct tc_clustering *cl, struct tc_rank_trace **traces,
			    struct tc_pool *pool, struct tc_merge_opts *mopts, uint64_t *bytes)
{
	struct tc_gtrace **leaves, *g;
	bool ok;

	leaves = tc_anl_make_leaves(cl, traces, a->size, mopts, false, pool);
	g = tc_anl_merge_clusters(cl, leaves, pool, mopts);
	free(leaves);
	if (!g)
		return false;
	ok = tc_online_write_global(a, g, mode->name, mopts, bytes);
	tc_gtrace_free(&g);
	return ok;
}

bool tc_online_write_global(const struct tc_online_args *a, struct tc_gtrace *g,
			    const char *mode, const struct tc_merge_opts *mopts, uint64_t *bytes)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_error err;
	char path[PATH_MAX + 16];
	bool ok;

	snprintf(g->mode, sizeof(g->mode), "%s", mode);
	snprintf(g->variant, sizeof(g->variant), "%s", mopts->filtering ? "filtering" : "default");
	g->precision = mopts->precision;
	g->bins = mopts->bins;
	if (g->world_size < a->size)
		g->world_size = a->size;
	tc_gtrace_set_timing(g, TC_GTIMING_STATS);
	tc_gtrace_finish(g);
	tc_tct_format(g, TC_TCT_BINARY, &sb);
	snprintf(path, sizeof(path), "%s/global.tct", a->dir);
	tc_error_clear(&err);
	ok = tc_tct_write_file(path, sb.buf ? sb.buf : "", sb.len, &err) == 0;
	if (!ok) {
		char msg[1200];
		tc_error_format(&err, msg, sizeof(msg));
		tc_online_say(a, "%s", msg);
	}
	*bytes = sb.len;
	tc_strbuf_release(&sb);
	return ok;
}

static void write_report(const struct tc_online_args *a, const char *mode, size_t clusters,
			 size_t leads, unsigned reductions, uint64_t bytes, double seconds,
			 const char *keep)
{
	char path[PATH_MAX];
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_error err;

	snprintf(path, sizeof(path), "%s/online.json", a->dir);
	tc_strbuf_addf(&sb,
		       "{\"mode\":\"%s\",\"ranks\":%d,\"clusters\":%zu,\"leads\":%zu,"
		       "\"reductions_in_parts\":%u,"
		       "\"global_trace\":\"global.tct\",\"bytes\":%" PRIu64 ",\"seconds\":%.6f,"
		       "\"kept\":\"%s\"}\n",
		       mode, a->size, clusters, leads, reductions, bytes, seconds, keep);
	if (tc_tct_write_file(path, sb.buf, sb.len, &err)) {
		char msg[1200];
		tc_error_format(&err, msg, sizeof(msg));
		tc_online_say(a, "%s", msg);
	}
	tc_strbuf_release(&sb);
}

/*
 * Rank 0's clustering hands the subtrees of a large radix-tree reduction
 * to the job's ranks (the papers' tree of processes; cluster/remote.c,
 * reduce_mpi.c): by default the distance-based reductions of 262,144
 * ranks or more, TRACECLUSTER_ONLINE_REDUCE_MIN=N for any. A broadcast of
 * {1, depth, roots} starts one (every other rank is in serve_reductions),
 * {0, 0, 0} ends the serving.
 */
#define REDUCE_TAG 0x7c5a
#define REDUCE_PARTS_MAX 64

struct job_reduce {
	const struct tc_online_args *a;
	bool failed;
	unsigned used;
};

static int reduce_parts(const struct tc_online_args *a)
{
	return a->size < REDUCE_PARTS_MAX ? a->size : REDUCE_PARTS_MAX;
}

static unsigned job_reduce(void *self, struct tc_reduction *r)
{
	struct job_reduce *jr = self;
	int parts = reduce_parts(jr->a), cmd[3];
	size_t nroots;
	unsigned d;

	if (parts < 2 || tc_reduction_size(r) < tc_mpi_reduce_min(r, "TRACECLUSTER_ONLINE_REDUCE_MIN"))
		return 0;
	d = tc_reduction_plan(r, (size_t)parts, &nroots);
	if (!d || nroots > INT_MAX)
		return 0;
	cmd[0] = 1;
	cmd[1] = (int)d;
	cmd[2] = (int)nroots;
	PMPI_Bcast(cmd, 3, MPI_INT, 0, MPI_COMM_WORLD);
	if (!tc_mpi_reduce_lead(r, d, nroots, parts, tc_reduction_pool(r), MPI_COMM_WORLD,
				REDUCE_TAG))
		jr->failed = true;
	jr->used++;
	return d;
}

static void serve_reductions(const struct tc_online_args *a)
{
	int parts = reduce_parts(a);

	for (;;) {
		int cmd[3];
		PMPI_Bcast(cmd, 3, MPI_INT, 0, MPI_COMM_WORLD);
		if (!cmd[0])
			return;
		if (a->rank < parts)
			tc_mpi_reduce_serve((unsigned)cmd[1], (size_t)cmd[2], parts, a->rank, 1,
					    MPI_COMM_WORLD, REDUCE_TAG);
	}
}

TC_ONLINE_API int tracecluster_online_run(const struct tc_online_args *a)
{
	double t0 = tc_online_now();
	struct tc_rank_trace *own = NULL, **traces = NULL;
	struct tc_signatures sig, *sigs = NULL;
	struct tc_cluster_opts copts;
	const struct tc_cluster_mode *mode;
	struct tc_merge_opts mopts = { 100, TC_HIST_BINS_DEFAULT, false };
	struct tc_clustering cl;
	struct tc_pool *pool = NULL;
	unsigned char *lead = NULL;
	unsigned char is_lead = 0;
	const char *keep = a->keep && *a->keep ? a->keep : "leads";
	char path[PATH_MAX];
	uint64_t bytes = 0;
	size_t nleads = 0, nclusters = 0;
	unsigned reductions = 0; /* run in parts over the ranks */
	int crc;
	bool ok;
	int rc = -1;

	if (a->abi != TC_ONLINE_ABI)
		return -1;
	if (tc_online_is_chameleon(a->mode))
		return tc_online_cham_finish(a);
	path[0] = '\0';
	tc_clustering_init(&cl);
	mode = parse_mode(a->mode, &copts);
	if (strcmp(keep, "leads") && strcmp(keep, "all") && strcmp(keep, "none"))
		mode = NULL;
	if (!mode) {
		if (a->rank == 0)
			tc_online_say(a, "TRACECLUSTER_ONLINE='%s' (KEEP '%s'): expected MODE[:K] of "
			       "callpath, callpath-param, reference, kfarthest, kmedoid or dynamic, "
			       "and leads, all or none; the raw files stay", a->mode, keep);
		return -1;
	}
	/* 1. own trace and signatures */
	if (a->traced)
		own = read_own(a, path, sizeof(path));
	if (!tc_online_all(own != NULL)) {
		if (a->rank == 0)
			tc_online_say(a, "not every rank's trace could be read back; the raw files stay");
		goto out;
	}
	tc_signatures_compute(own, &sig);

	/* 2. the signatures meet at rank 0, which clusters them */
	if (a->rank == 0) {
		sigs = tc_xcalloc((size_t)a->size, sizeof(*sigs));
		lead = tc_xcalloc((size_t)a->size, 1);
		traces = tc_xcalloc((size_t)a->size, sizeof(*traces));
	}
	PMPI_Gather(&sig, (int)sizeof(sig), MPI_BYTE, sigs, (int)sizeof(sig), MPI_BYTE, 0,
		    MPI_COMM_WORLD);
	ok = true;
	if (a->rank != 0) {
		/* the subtrees of large reductions run here (job_reduce) */
		serve_reductions(a);
	} else {
		struct tc_cluster_input in = { sigs, (size_t)a->size, NULL };
		struct tc_error err;
		struct job_reduce jr = { a, false, 0 };
		struct tc_reduce_remote rr = { job_reduce, &jr };
		int cmd[3] = { 0, 0, 0 };
		pool = tc_pool_new(1);
		copts.pool = pool;
		copts.merge = &mopts;
		tc_cluster_set_reduce_remote(&rr);
		crc = tc_cluster_run(mode, &in, &copts, &cl, &err);
		tc_cluster_set_reduce_remote(NULL);
		/* the other ranks stop serving */
		PMPI_Bcast(cmd, 3, MPI_INT, 0, MPI_COMM_WORLD);
		reductions = jr.used;
		if (jr.failed) {
			tc_online_say(a, "a part of a clustering reduction failed; the raw files stay");
			ok = false;
		} else if (crc) {
			char msg[1200];
			tc_error_format(&err, msg, sizeof(msg));
			tc_online_say(a, "%s", msg);
			ok = false;
		} else {
			if (cl.filter.applied)
				mopts.filtering = true; /* §3.6, as compress does */
			for (size_t c = 0; c < cl.nclusters; c++)
				lead[cl.clusters[c].lead_index] = 1;
			nclusters = cl.nclusters;
		}
	}
	if (!tc_online_all(ok))
		goto out;
	/* 3. the leads' traces meet at rank 0, which merges and writes */
	PMPI_Scatter(lead, 1, MPI_BYTE, &is_lead, 1, MPI_BYTE, 0, MPI_COMM_WORLD);
	ok = gather_leads(a, own, is_lead != 0, traces);
	if (ok && a->rank == 0) {
		ok = build_and_write(a, mode, &cl, traces, pool, &mopts, &bytes);
		nleads = nclusters;
	}
	if (!tc_online_all(ok)) {
		if (a->rank == 0)
			tc_online_say(a, "the global trace was not written; the raw files stay");
		goto out;
	}
	/* 4. the raw files the mode does not need go */
	if (!strcmp(keep, "none") || (!strcmp(keep, "leads") && !is_lead))
		unlink(path);
	rc = 0;
	PMPI_Barrier(MPI_COMM_WORLD);
	if (a->rank == 0) {
		double secs = tc_online_now() - t0;
		write_report(a, mode->name, nclusters, nleads, reductions, bytes, secs, keep);
		if (!a->quiet)
			tc_online_say(a, "%s: %zu clusters, %s/global.tct (%" PRIu64 " bytes) in %.3f s; "
			       "raw files kept: %s", mode->name, nclusters, a->dir, bytes, secs, keep);
	}
out:
	if (traces) {
		for (int r = 0; r < a->size; r++)
			tc_rank_trace_free(&traces[r]);
		free(traces);
	}
	tc_clustering_release(&cl);
	tc_rank_trace_free(&own);
	free(sigs);
	free(lead);
	if (pool)
		tc_pool_free(pool);
	return rc;
}
