/*
 * reduce_mpi.c - a clustering reduction's subtrees in parts over MPI
 * processes (reduce_mpi.h). Process 0 sends each process the forest and
 * the data of its share's ranks (tag); the process runs the mode's node
 * function on its subtrees and answers (tag + 1) with its rank, a word
 * saying whether it could, and its roots' lists and head changes.
 *
 * Every message goes as its length, then chunks of at most CHUNK bytes,
 * so that a process short of memory for a message can still take it in
 * (into a chunk on its stack) and the protocol always completes: in the
 * job, running out of memory must cost the clustering, never a hang.
 */
#include "lib/compat.h"
#include "cmd/mpi/reduce_mpi.h"
#include "cluster/cluster.h"
#include "lib/pack.h"
#include "lib/pool.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define REDUCE_MIN_DISTANCE 262144
#define CHUNK 65536

size_t tc_mpi_reduce_min(const struct tc_reduction *r, const char *env)
{
	const char *s = getenv(env);
	char *end;
	unsigned long long v;

	if (s && *s) {
		v = strtoull(s, &end, 10);
		if (!*end)
			return (size_t)v;
	}
	return tc_reduction_by_distance(r) ? REDUCE_MIN_DISTANCE : SIZE_MAX;
}

void tc_mpi_reduce_share(size_t nroots, int nparts, int p, size_t *lo, size_t *hi)
{
	*lo = (size_t)((unsigned __int128)nroots * (unsigned)p / (unsigned)nparts);
	*hi = (size_t)((unsigned __int128)nroots * (unsigned)(p + 1) / (unsigned)nparts);
}

static void send_chunked(const char *buf, size_t len, int dest, int tag, MPI_Comm comm)
{
	uint64_t n = len;

	PMPI_Send(&n, 1, MPI_UINT64_T, dest, tag, comm);
	for (size_t off = 0; off < len; off += CHUNK)
		PMPI_Send(buf + off, (int)TC_MIN((size_t)CHUNK, len - off), MPI_BYTE, dest, tag, comm);
}

/* Where a chunk goes when there is no room for its message (MPI is only
 * ever called from one thread here). */
static char drop[CHUNK];

/* A chunked message from source (MPI_ANY_SOURCE: any; *from gets it) in
 * a new buffer (malloc), or NULL with every chunk taken in and dropped
 * when no buffer could be had. */
static char *recv_chunked(int source, int tag, MPI_Comm comm, size_t *len, int *from)
{
	MPI_Status st;
	uint64_t n = 0;
	char *buf;

	PMPI_Recv(&n, 1, MPI_UINT64_T, source, tag, comm, &st);
	*from = st.MPI_SOURCE;
	*len = (size_t)n;
	buf = n < SIZE_MAX ? malloc(n ? (size_t)n : 1) : NULL;
	for (uint64_t off = 0; off < n; off += CHUNK) {
		int m = (int)TC_MIN((uint64_t)CHUNK, n - off);
		PMPI_Recv(buf ? buf + off : drop, m, MPI_BYTE, *from, tag, comm, MPI_STATUS_IGNORE);
	}
	return buf;
}

/* fn(ctx) under guard, or plainly without one. */
static bool run_guarded(tc_mpi_guard_fn guard, void (*fn)(void *), void *ctx)
{
	if (guard)
		return guard(fn, ctx);
	fn(ctx);
	return true;
}

/* ---- process 0 --------------------------------------------------------------- */

struct lead_part {
	struct tc_reduction *r;
	unsigned d;
	size_t lo, hi;
	struct tc_pool *pool;
	struct tc_unpack *u;    /* a part's results to take */
	bool took;
};

static void run_own(void *p)
{
	struct lead_part *lp = p;

	tc_reduction_run_part(lp->r, lp->d, lp->lo, lp->hi, lp->pool, NULL);
}

static void take(void *p)
{
	struct lead_part *lp = p;

	lp->took = tc_reduction_take_part(lp->r, lp->d, lp->lo, lp->hi, lp->u) &&
		   tc_unpack_done(lp->u);
}

struct tc_mpi_reduce_job *tc_mpi_reduce_prepare(struct tc_reduction *r, unsigned d,
						size_t nroots, int nparts)
{
	struct tc_mpi_reduce_job *j = tc_xcalloc(1, sizeof(*j));

	j->r = r;
	j->d = d;
	j->nroots = nroots;
	j->nparts = nparts;
	j->in = tc_xcalloc((size_t)nparts, sizeof(*j->in));
	for (int p = 1; p < nparts; p++) {
		size_t lo, hi;
		tc_mpi_reduce_share(nroots, nparts, p, &lo, &hi);
		tc_strbuf_init(&j->in[p]);
		tc_reduction_pack(r, d, lo, hi, &j->in[p]);
	}
	return j;
}

void tc_mpi_reduce_job_free(struct tc_mpi_reduce_job *j)
{
	if (!j)
		return;
	for (int p = 1; p < j->nparts; p++)
		tc_strbuf_release(&j->in[p]);
	free(j->in);
	free(j);
}

bool tc_mpi_reduce_lead(struct tc_mpi_reduce_job *j, struct tc_pool *pool, MPI_Comm comm,
			int tag, tc_mpi_guard_fn guard)
{
	struct lead_part lp = { j->r, j->d, 0, 0, pool, NULL, false };
	bool ok = true;

	for (int p = 1; p < j->nparts; p++)
		send_chunked(j->in[p].buf, j->in[p].len, p, tag, comm);
	tc_mpi_reduce_share(j->nroots, j->nparts, 0, &lp.lo, &lp.hi);
	if (!run_guarded(guard, run_own, &lp))
		ok = false;
	for (int k = 1; k < j->nparts; k++) {
		struct tc_unpack u;
		size_t n;
		int from;
		char *msg = recv_chunked(MPI_ANY_SOURCE, tag + 1, comm, &n, &from);
		uint64_t done;
		if (!msg) {
			ok = false;
			continue;
		}
		tc_unpack_init(&u, msg, n);
		done = tc_unpack_u64(&u);
		if (!ok || u.bad || !done) {
			ok = false;
		} else {
			tc_mpi_reduce_share(j->nroots, j->nparts, from, &lp.lo, &lp.hi);
			lp.u = &u;
			lp.took = false;
			if (!run_guarded(guard, take, &lp) || !lp.took)
				ok = false;
		}
		free(msg);
	}
	return ok;
}

/* ---- the other processes ----------------------------------------------------- */

struct serve_part {
	const char *buf;
	size_t len;
	unsigned d, threads;
	size_t lo, hi;
	struct tc_strbuf *out;
	bool ran;
};

static void serve_run(void *p)
{
	struct serve_part *sp = p;
	struct tc_unpack u;
	struct tc_reduction *r;
	struct tc_pool *pool;

	tc_unpack_init(&u, sp->buf, sp->len);
	r = tc_reduction_unpack(&u);
	if (!r || !tc_unpack_done(&u)) {
		tc_reduction_free(&r);
		return;
	}
	pool = tc_pool_new(sp->threads);
	tc_pack_u64(sp->out, 1);
	tc_reduction_run_part(r, sp->d, sp->lo, sp->hi, pool, sp->out);
	tc_pool_free(pool);
	tc_reduction_free(&r);
	sp->ran = true;
}

void tc_mpi_reduce_serve(unsigned d, size_t nroots, int nparts, int p, unsigned threads,
			 MPI_Comm comm, int tag, tc_mpi_guard_fn guard)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct serve_part sp = { NULL, 0, d, threads, 0, 0, &sb, false };
	uint64_t failed = 0;
	int from;
	char *buf = recv_chunked(0, tag, comm, &sp.len, &from);

	sp.buf = buf;
	tc_mpi_reduce_share(nroots, nparts, p, &sp.lo, &sp.hi);
	if (buf && run_guarded(guard, serve_run, &sp) && sp.ran)
		send_chunked(sb.buf, sb.len, 0, tag + 1, comm);
	else
		send_chunked((const char *)&failed, 1, 0, tag + 1, comm);
	free(buf);
	/* after running out of memory the buffer may be half grown: left */
	if (sp.ran)
		tc_strbuf_release(&sb);
}
