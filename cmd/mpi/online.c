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
#include <stdatomic.h>
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

/* ---- out of memory ----------------------------------------------------------- */

static __thread struct tc_online_guard *guard_top;
static atomic_int oom_said;
static int oom_rank = -1;

void tc_online_oom(size_t n)
{
	if (!atomic_exchange(&oom_said, 1))
		fprintf(stderr, "tracecluster-online: rank %d: out of memory (allocating %zu bytes); "
				"the in-job clustering stops here, the raw files stay\n", oom_rank, n);
}

static void oom_jump(size_t n)
{
	struct tc_online_guard *g = guard_top;

	if (!g)
		return; /* not guarded: xalloc aborts */
	tc_online_oom(n);
	guard_top = g->prev;
	siglongjmp(g->jb, 1);
}

void tc_online_set_rank(int rank)
{
	oom_rank = rank;
}

void tc_online_guard_enter(struct tc_online_guard *g)
{
	tc_xalloc_set_fail(oom_jump);
	g->prev = guard_top;
	guard_top = g;
}

void tc_online_guard_leave(struct tc_online_guard *g)
{
	if (guard_top == g)
		guard_top = g->prev;
}

bool tc_online_guarded(void (*fn)(void *), void *ctx)
{
	struct tc_online_guard g;

	tc_online_guard_enter(&g);
	if (sigsetjmp(g.jb, 0)) {
		tc_online_guard_leave(&g);
		return false;
	}
	fn(ctx);
	tc_online_guard_leave(&g);
	return true;
}

bool tc_online_all(bool ok)
{
	int v = ok;

	PMPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	return v != 0;
}

struct gather_room {
	struct tc_online_bytes *out;
	size_t n;
};

static void room_lens(void *p)
{
	struct gather_room *g = p;

	g->out->lens = tc_xcalloc(g->n, sizeof(*g->out->lens));
	g->out->offs = tc_xcalloc(g->n, sizeof(*g->out->offs));
}

static void room_buf(void *p)
{
	struct gather_room *g = p;

	g->out->buf = tc_xmalloc(g->n ? g->n : 1);
}

bool tc_online_gather(const struct tc_online_args *a, const struct tc_strbuf *sb, bool mine,
		      struct tc_online_bytes *out)
{
	struct gather_room room = { out, (size_t)a->size };
	int len = 0;
	bool ok = mine && sb->len <= INT_MAX;

	memset(out, 0, sizeof(*out));
	if (ok)
		len = (int)sb->len;
	if (a->rank == 0 && !tc_online_guarded(room_lens, &room))
		ok = false;
	if (!tc_online_all(ok)) {
		tc_online_bytes_release(out);
		return false;
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
		room.n = total;
		if (ok && !tc_online_guarded(room_buf, &room))
			ok = false;
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
static struct tc_rank_trace *read_own(const struct tc_online_args *a, char *path, size_t len,
				      struct tc_raw_stats *st)
{
	struct tc_pool *pool = tc_pool_new(1);
	struct tc_traceset *ts = NULL;
	struct tc_rank_trace **tr = NULL, *t = NULL;
	struct tc_error err;

	tc_raw_rank_path(path, len, a->dir, a->rank);
	if (tc_traceset_open(&ts, path, 0, pool, &err) ||
	    tc_load_all(ts, pool, NULL, &tr, st, &err)) {
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

/* The leads' packed traces (guarded steps: a rank out of memory sends
 * nothing and says no). */
struct leads {
	const struct tc_online_args *a;
	const struct tc_rank_trace *own;
	struct tc_strbuf sb;
	const struct tc_online_bytes *b;
	struct tc_rank_trace **traces;
	bool ok;
};

static void leads_pack(void *p)
{
	struct leads *l = p;

	tc_rank_trace_pack(l->own, &l->sb);
}

static void leads_unpack(void *p)
{
	struct leads *l = p;

	l->ok = true;
	for (int r = 0; r < l->a->size && l->ok; r++) {
		struct tc_unpack u;
		if (!l->b->lens[r])
			continue;
		tc_unpack_init(&u, l->b->buf + l->b->offs[r], (size_t)l->b->lens[r]);
		l->traces[r] = tc_rank_trace_unpack(&u);
		if (!l->traces[r] || !tc_unpack_done(&u))
			l->ok = false;
	}
}

/* Gather each lead's packed trace at rank 0 into traces[]. */
static bool gather_leads(const struct tc_online_args *a, const struct tc_rank_trace *own,
			 bool lead, struct tc_rank_trace **traces)
{
	static const struct tc_strbuf none = TC_STRBUF_INIT;
	struct leads *l = calloc(1, sizeof(*l));
	struct tc_online_bytes b;
	bool mine = l != NULL, ok;

	if (!l)
		tc_online_oom(sizeof(*l));
	if (l) {
		l->a = a;
		l->own = own;
		l->traces = traces;
		l->b = &b;
		tc_strbuf_init(&l->sb);
		if (lead && !tc_online_guarded(leads_pack, l))
			mine = false;
	}
	ok = tc_online_gather(a, mine ? &l->sb : &none, mine, &b);
	if (ok && a->rank == 0)
		ok = tc_online_guarded(leads_unpack, l) && l->ok;
	tc_online_bytes_release(&b);
	if (l) {
		if (mine)
			tc_strbuf_release(&l->sb);
		free(l);
	}
	return ok;
}

/* Rank 0: the global trace of the leads, written to DIR/global.tct. */
static bool build_and_write(const struct tc_online_args *a, const struct tc_cluster_mode *mode,
			    const struct tc_clustering *cl, struct tc_rank_trace **traces,
			    struct tc_pool *pool, struct tc_merge_opts *mopts, uint64_t tracer_ns,
			    const struct tc_tracer_ops *tops, uint64_t *bytes)
{
	struct tc_gtrace **leaves, *g;
	bool ok;

	leaves = tc_anl_make_leaves(cl, traces, a->size, mopts, false, pool);
	g = tc_anl_merge_clusters(cl, leaves, pool, mopts);
	free(leaves);
	if (!g)
		return false;
	g->tracer_ns = tracer_ns;
	g->tracer_ops = tc_xcalloc(TC_OP_MAX, sizeof(*g->tracer_ops));
	g->ntracer_ops = tc_tracer_ops_get(tops, g->tracer_ops);
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
	unsigned used;          /* reductions run over the ranks */
};

static int reduce_parts(const struct tc_online_args *a)
{
	return a->size < REDUCE_PARTS_MAX ? a->size : REDUCE_PARTS_MAX;
}

static unsigned job_reduce(void *self, struct tc_reduction *r)
{
	struct job_reduce *jr = self;
	struct tc_mpi_reduce_job *job;
	int parts = reduce_parts(jr->a), cmd[3];
	size_t nroots;
	unsigned d;
	bool ok;

	if (parts < 2 || tc_reduction_size(r) < tc_mpi_reduce_min(r, "TRACECLUSTER_ONLINE_REDUCE_MIN"))
		return 0;
	d = tc_reduction_plan(r, (size_t)parts, &nroots);
	if (!d || nroots > INT_MAX)
		return 0;
	/* packed before the others hear of it: out of memory here stops
	 * nothing that has started */
	job = tc_mpi_reduce_prepare(r, d, nroots, parts);
	cmd[0] = 1;
	cmd[1] = (int)d;
	cmd[2] = (int)nroots;
	PMPI_Bcast(cmd, 3, MPI_INT, 0, MPI_COMM_WORLD);
	ok = tc_mpi_reduce_lead(job, tc_reduction_pool(r), MPI_COMM_WORLD, REDUCE_TAG,
				tc_online_guarded);
	tc_mpi_reduce_job_free(job);
	if (!ok)
		return 0; /* a part failed: the whole reduction here, from the start */
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
					    MPI_COMM_WORLD, REDUCE_TAG, tc_online_guarded);
	}
}

/*
 * The state of one in-job clustering, on the heap: the steps that
 * allocate run guarded (tc_online_guarded) and may be left half done by
 * running out of memory, so nothing here lives in a register across them.
 */
struct run {
	const struct tc_online_args *a;
	const struct tc_cluster_mode *mode;
	struct tc_cluster_opts copts;
	struct tc_merge_opts mopts;
	char path[PATH_MAX];
	struct tc_rank_trace *own, **traces;
	struct tc_signatures sig, *sigs;
	/* the raw file's stats; its tracer_ns and events, every rank's at
	 * rank 0 in rank order (as compress adds them: the global traces
	 * are the same bytes) */
	struct tc_raw_stats st;
	uint64_t tracer[2], *tracers;
	struct tracer_ops_of { /* and per op */
		struct tc_tracer_op op[TC_TRACER_OPS];
		uint32_t n;
	} tops, *topss;
	unsigned char *lead;
	struct tc_clustering cl;
	bool cl_whole;          /* cl may be released (not left half built) */
	struct tc_pool *pool;
	struct job_reduce jr;
	size_t nclusters;
	uint64_t bytes;
	double secs;
	const char *keep;
	bool ok;
};

/* Step 1: the own trace read back, its signatures; at rank 0 the room
 * for every rank's. */
static void step_read(void *p)
{
	struct run *r = p;
	const struct tc_online_args *a = r->a;

	if (!a->traced)
		return;
	r->own = read_own(a, r->path, sizeof(r->path), &r->st);
	if (!r->own)
		return;
	tc_signatures_compute(r->own, &r->sig);
	if (a->rank == 0) {
		r->sigs = tc_xcalloc((size_t)a->size, sizeof(*r->sigs));
		r->lead = tc_xcalloc((size_t)a->size, 1);
		r->traces = tc_xcalloc((size_t)a->size, sizeof(*r->traces));
		r->tracers = tc_xcalloc((size_t)a->size, sizeof(r->tracer));
		r->topss = tc_xcalloc((size_t)a->size, sizeof(r->tops));
	}
	r->ok = true;
}

/* Step 2 at rank 0: the mode on the signatures (its large reductions
 * over the ranks, job_reduce). */
static void step_cluster(void *p)
{
	struct run *r = p;
	struct tc_cluster_input in = { r->sigs, (size_t)r->a->size, NULL };
	struct tc_reduce_remote rr = { job_reduce, &r->jr };
	struct tc_error err;
	int crc;

	r->pool = tc_pool_new(1);
	r->copts.pool = r->pool;
	r->copts.merge = &r->mopts;
	r->cl_whole = false;
	tc_cluster_set_reduce_remote(&rr);
	crc = tc_cluster_run(r->mode, &in, &r->copts, &r->cl, &err);
	tc_cluster_set_reduce_remote(NULL);
	r->cl_whole = true;
	if (crc) {
		char msg[1200];
		tc_error_format(&err, msg, sizeof(msg));
		tc_online_say(r->a, "%s", msg);
		return;
	}
	if (r->cl.filter.applied)
		r->mopts.filtering = true; /* §3.6, as compress does */
	for (size_t c = 0; c < r->cl.nclusters; c++)
		r->lead[r->cl.clusters[c].lead_index] = 1;
	r->nclusters = r->cl.nclusters;
	r->ok = true;
}

/* Rank 0: DIR/online.json. */
static void step_report(void *p)
{
	struct run *r = p;

	write_report(r->a, r->mode->name, r->nclusters, r->nclusters, r->jr.used, r->bytes,
		     r->secs, r->keep);
}

/* Step 3 at rank 0: the leads' global trace, written. */
static void step_build(void *p)
{
	struct run *r = p;
	struct tc_tracer_mean tm = { 0, 0 };
	struct tc_tracer_ops *tops = tc_xcalloc(1, sizeof(*tops));

	for (int k = 0; k < r->a->size; k++) {
		tc_tracer_mean_add(&tm, r->tracers[2 * k], r->tracers[2 * k + 1]);
		tc_tracer_ops_add(tops, r->topss[k].op, TC_MIN(r->topss[k].n, TC_TRACER_OPS));
	}
	r->ok = build_and_write(r->a, r->mode, &r->cl, r->traces, r->pool, &r->mopts,
				tc_tracer_mean_get(&tm), tops, &r->bytes);
	free(tops);
}

TC_ONLINE_API int tracecluster_online_run(const struct tc_online_args *a)
{
	double t0 = tc_online_now();
	const char *keep = a->keep && *a->keep ? a->keep : "leads";
	unsigned char is_lead = 0;
	struct run *r;
	bool ok;
	int rc = -1;

	if (a->abi != TC_ONLINE_ABI)
		return -1;
	if (tc_online_is_chameleon(a->mode))
		return tc_online_cham_finish(a);
	tc_online_set_rank(a->rank);
	r = calloc(1, sizeof(*r));
	if (!r)
		tc_online_oom(sizeof(*r));
	if (r) {
		r->a = a;
		r->mopts = (struct tc_merge_opts){ 100, TC_HIST_BINS_DEFAULT, false };
		tc_clustering_init(&r->cl);
		r->cl_whole = true;
		r->jr.a = a;
		r->mode = parse_mode(a->mode, &r->copts);
	}
	if (r && (!r->mode || (strcmp(keep, "leads") && strcmp(keep, "all") &&
			       strcmp(keep, "none")))) {
		if (a->rank == 0)
			tc_online_say(a, "TRACECLUSTER_ONLINE='%s' (KEEP '%s'): expected MODE[:K] of "
			       "callpath, callpath-param, reference, kfarthest, kmedoid or dynamic, "
			       "and leads, all or none; the raw files stay", a->mode, keep);
		free(r);
		return -1;
	}
	/* 1. own trace and signatures (running out of memory anywhere below
	 * costs the clustering, agreed on by every rank, never the job) */
	ok = r && tc_online_guarded(step_read, r) && r->ok;
	if (!tc_online_all(ok)) {
		if (a->rank == 0)
			tc_online_say(a, "not every rank's trace could be read back; the raw files stay");
		goto out;
	}

	/* 2. the signatures meet at rank 0, which clusters them */
	PMPI_Gather(&r->sig, (int)sizeof(r->sig), MPI_BYTE, r->sigs, (int)sizeof(r->sig), MPI_BYTE,
		    0, MPI_COMM_WORLD);
	r->tracer[0] = r->st.has_trailer ? r->st.trailer.tracer_ns : 0;
	r->tracer[1] = r->st.events;
	PMPI_Gather(r->tracer, 2, MPI_UINT64_T, r->tracers, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	memset(&r->tops, 0, sizeof(r->tops));
	if (r->st.has_trailer) {
		r->tops.n = r->st.trailer.ntracer_op;
		memcpy(r->tops.op, r->st.trailer.tracer_op, sizeof(r->tops.op));
	}
	PMPI_Gather(&r->tops, (int)sizeof(r->tops), MPI_BYTE, r->topss, (int)sizeof(r->tops),
		    MPI_BYTE, 0, MPI_COMM_WORLD);
	r->ok = false;
	if (a->rank != 0) {
		/* the subtrees of large reductions run here (job_reduce) */
		serve_reductions(a);
		r->ok = true;
	} else {
		int cmd[3] = { 0, 0, 0 };
		ok = tc_online_guarded(step_cluster, r);
		/* the other ranks stop serving */
		PMPI_Bcast(cmd, 3, MPI_INT, 0, MPI_COMM_WORLD);
		if (!ok)
			r->ok = false;
	}
	if (!tc_online_all(r->ok)) {
		if (a->rank == 0)
			tc_online_say(a, "the ranks were not clustered; the raw files stay");
		goto out;
	}
	/* 3. the leads' traces meet at rank 0, which merges and writes */
	PMPI_Scatter(r->lead, 1, MPI_BYTE, &is_lead, 1, MPI_BYTE, 0, MPI_COMM_WORLD);
	ok = gather_leads(a, r->own, is_lead != 0, r->traces);
	if (ok && a->rank == 0) {
		r->ok = false;
		ok = tc_online_guarded(step_build, r) && r->ok;
	}
	if (!tc_online_all(ok)) {
		if (a->rank == 0)
			tc_online_say(a, "the global trace was not written; the raw files stay");
		goto out;
	}
	/* 4. the raw files the mode does not need go */
	if (!strcmp(keep, "none") || (!strcmp(keep, "leads") && !is_lead))
		unlink(r->path);
	rc = 0;
	PMPI_Barrier(MPI_COMM_WORLD);
	if (a->rank == 0) {
		double secs = tc_online_now() - t0;
		r->secs = secs;
		r->keep = keep;
		tc_online_guarded(step_report, r);
		if (!a->quiet)
			tc_online_say(a, "%s: %zu clusters, %s/global.tct (%" PRIu64 " bytes) in %.3f s; "
			       "raw files kept: %s", r->mode->name, r->nclusters, a->dir, r->bytes,
			       secs, keep);
	}
out:
	if (r) {
		/* after running out of memory what the steps left may be half
		 * built: the process ends soon, it stays */
		if (!oom_said) {
			if (r->traces)
				for (int k = 0; k < a->size; k++)
					tc_rank_trace_free(&r->traces[k]);
			free(r->traces);
			if (r->cl_whole)
				tc_clustering_release(&r->cl);
			tc_rank_trace_free(&r->own);
			free(r->sigs);
			free(r->lead);
			free(r->tracers);
			free(r->topss);
			if (r->pool)
				tc_pool_free(r->pool);
		}
		free(r);
	}
	return rc;
}
