/*
 * tcmpi.c - tracecluster-mpi: the tracecluster command run over MPI.
 *
 *   mpirun -np N tracecluster-mpi [GLOBAL OPTIONS] COMMAND [ARGS]
 *
 * Process 0 runs the command line exactly as tracecluster does (tc_main),
 * so every output is the single-process command's, byte for byte. What
 * the N processes share is the reading of the trace set, the bulk of the
 * work of every command that clusters or merges (decoding and compressing
 * each rank's events into loops): wherever the command reads the set's
 * files into per-rank traces (formats/load.h's tc_load_each), the files
 * are cut into N contiguous shares, each process reads its own share with
 * its own thread pool (-j threads, as in the command), and the other
 * processes hand their compressed traces to process 0 (lib/pack.h's
 * encoding of lib/trace.h), which gives them to the command as if it had
 * read them itself. Each process reads its files from the paths process 0
 * found, so the set must be on a file system every process sees.
 *
 * Protocol (all messages on MPI_COMM_WORLD): process 0 broadcasts a
 * request (struct req); a load request is followed by a message to each
 * other process with its share (the index, path, format and stream of
 * each file); the process reads its share in chunks and sends each chunk
 * (its traces, per-file read statistics, and the chunk's first error if a
 * file failed) as one message, at most two in flight while it reads the
 * next. A quit request ends the other processes' loop.
 *
 * compress --mode none goes further (tcmpi_none.c): the processes merge
 * the global trace themselves, in the radix tree, and send process 0 only
 * the communicator tables.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/mpi/tcmpi.h"
#include "analysis/analysis.h"
#include "cluster/cluster.h"
#include "formats/load.h"
#include "formats/raw.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/pack.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/strbuf.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Files per chunk message (fewer when a share is small); statistics are
 * smaller than traces and go in bigger chunks. */
#define CHUNK_FILES 64
#define STATS_CHUNK_FILES 4096
#define HEADER_CHUNK_FILES 8192

int tcmpi_rank, tcmpi_size;
pthread_t tcmpi_main_thread;

static const char usage[] =
	"usage: mpirun -np N tracecluster-mpi [-j T] [-q] [-v] [--[no-]progress] COMMAND [ARGS]\n"
	"\n"
	"Run a tracecluster command over N MPI processes: every process reads a share\n"
	"of the trace set's files (with T threads each) and hands its compressed\n"
	"traces to the first process, which runs the command and writes every output,\n"
	"the same bytes as tracecluster COMMAND [ARGS] writes. The trace set must be\n"
	"on a file system all processes see. Commands and options: tracecluster(1);\n"
	"this program: tracecluster-mpi(1).\n";

void tcmpi_fatal(int rc, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(rc, msg, &len);
	fprintf(stderr, "tracecluster-mpi: process %d: %s: %s\n", tcmpi_rank, what, msg);
	MPI_Abort(MPI_COMM_WORLD, 70);
}

/* Share p of n files: [*lo, *hi). */
void tcmpi_share(size_t n, int p, size_t *lo, size_t *hi)
{
	*lo = (size_t)((unsigned __int128)n * (unsigned)p / (unsigned)tcmpi_size);
	*hi = (size_t)((unsigned __int128)n * (unsigned)(p + 1) / (unsigned)tcmpi_size);
}

static size_t chunk_files(size_t nshare)
{
	size_t c = nshare / 4;

	return c < 1 ? 1 : c > CHUNK_FILES ? CHUNK_FILES : c;
}

void tcmpi_pack_error(struct tc_strbuf *sb, const struct tc_error *e)
{
	tc_pack_s64(sb, e->code);
	tc_pack_s64(sb, e->sys);
	tc_pack_s64(sb, e->offset);
	tc_pack_str(sb, e->path);
	tc_pack_str(sb, e->msg);
}

void tcmpi_unpack_error(struct tc_unpack *u, struct tc_error *e)
{
	size_t n;
	const char *p;

	tc_error_clear(e);
	e->code = (int)tc_unpack_s64(u);
	e->sys = (int)tc_unpack_s64(u);
	e->offset = tc_unpack_s64(u);
	p = tc_unpack_bytes(u, &n);
	snprintf(e->path, sizeof(e->path), "%.*s", (int)n, p ? p : "");
	p = tc_unpack_bytes(u, &n);
	snprintf(e->msg, sizeof(e->msg), "%.*s", (int)n, p ? p : "");
}

/* ---- reading a chunk of files ------------------------------------------- */

/*
 * A chunk as sent: lo (global index of its first file), n, the index of
 * its first failed file + 1 (0: none) and that error, then per file
 * whether its trace follows, the trace, and with stats its read
 * statistics (struct tc_raw_stats as bytes: both ends run this build).
 */
struct chunk {
	struct tc_strbuf *traces; /* n packed traces */
	bool *got;
	struct tc_raw_stats *stats;
};

static int pack_one(size_t i, struct tc_rank_trace *t, void *ctx, struct tc_error *err)
{
	struct chunk *c = ctx;

	(void)err;
	tc_rank_trace_pack(t, &c->traces[i]);
	c->got[i] = true;
	tc_rank_trace_free(&t);
	return 0;
}

/* Read files [first, first + n) of ts and pack them as one chunk message
 * whose files are numbered from lo in the whole set. */
static void read_chunk(const struct tc_traceset *ts, size_t first, size_t n, size_t lo,
		       struct tc_pool *pool, const struct tc_rsd_opts *ro, bool want_stats,
		       struct tc_strbuf *out)
{
	struct tc_traceset sub = *ts;
	struct chunk c;
	struct tc_error err;
	int rc;

	c.traces = tc_xcalloc(n, sizeof(*c.traces));
	c.got = tc_xcalloc(n, sizeof(*c.got));
	c.stats = tc_xcalloc(n, sizeof(*c.stats));
	sub.files = ts->files + first;
	sub.nfiles = n;
	sub.progress = NULL;
	tc_error_clear(&err);
	rc = tc_load_each_local(&sub, pool, ro, pack_one, &c, c.stats, &err);
	tc_strbuf_reset(out);
	tc_pack_u64(out, lo);
	tc_pack_u64(out, n);
	if (rc) {
		size_t k = 0;
		while (k < n && c.got[k])
			k++;
		tc_pack_u64(out, lo + k + 1);
		tc_pack_s64(out, rc);
		tcmpi_pack_error(out, &err);
	} else {
		tc_pack_u64(out, 0);
	}
	for (size_t k = 0; k < n; k++) {
		tc_pack_u64(out, c.got[k]);
		if (c.got[k])
			tc_pack_bytes(out, c.traces[k].buf, c.traces[k].len);
		if (want_stats)
			tc_pack_bytes(out, &c.stats[k], sizeof(c.stats[k]));
		tc_strbuf_release(&c.traces[k]);
	}
	free(c.traces);
	free(c.got);
	free(c.stats);
}

/* ---- process 0: the remote each() of formats/load.h --------------------- */

void tcmpi_fail_init(struct tcmpi_fail *f)
{
	f->index = SIZE_MAX;
	f->rc = 0;
	tc_error_clear(&f->err);
}

void tcmpi_fail_note(struct tcmpi_fail *f, size_t i, int rc, const struct tc_error *e)
{
	if (i < f->index) {
		f->index = i;
		f->rc = rc;
		f->err = *e;
	}
}

/* A failure in a message: its code and error (lib/pack.h) for file i. */
void tcmpi_fail_unpack(struct tcmpi_fail *f, struct tc_unpack *u, size_t i)
{
	struct tc_error e;
	int rc = (int)tc_unpack_s64(u);

	tcmpi_unpack_error(u, &e);
	tcmpi_fail_note(f, i, rc ? rc : TC_ERR, &e);
}

/* 0, or the failure's code with *err filled. */
int tcmpi_fail_result(const struct tcmpi_fail *f, struct tc_error *err)
{
	if (f->index == SIZE_MAX)
		return 0;
	if (err)
		*err = f->err;
	return f->rc;
}

bool tcmpi_unpack_head(struct tc_unpack *u, size_t nfiles, size_t *lo, size_t *n,
		       struct tcmpi_fail *f, pthread_mutex_t *lock, bool *failed)
{
	size_t bad;

	*lo = tc_unpack_u64(u);
	*n = tc_unpack_count(u, 0);
	bad = tc_unpack_u64(u);
	*failed = bad != 0;
	if (bad && !u->bad) {
		if (lock)
			pthread_mutex_lock(lock);
		tcmpi_fail_unpack(f, u, bad - 1);
		if (lock)
			pthread_mutex_unlock(lock);
	}
	return !u->bad && *lo <= nfiles && *n <= nfiles - *lo;
}

struct recv_job {
	const struct tc_traceset *ts;
	tc_load_fn fn;
	void *ctx;
	struct tc_raw_stats *stats;
	/* one received chunk */
	size_t lo, n;
	const uint8_t **tbuf;   /* per file: packed trace or NULL */
	size_t *tlen;
	/* the failure with the lowest file index */
	pthread_mutex_t lock;
	struct tcmpi_fail fail;
};

static void note_failure(struct recv_job *j, size_t i, int rc, const struct tc_error *e)
{
	pthread_mutex_lock(&j->lock);
	tcmpi_fail_note(&j->fail, i, rc, e);
	pthread_mutex_unlock(&j->lock);
}

static void give_one(size_t k, void *p)
{
	struct recv_job *j = p;
	size_t i = j->lo + k;
	struct tc_unpack u;
	struct tc_rank_trace *t;
	struct tc_error e;
	int rc;

	if (!j->tbuf[k])
		return;
	tc_unpack_init(&u, j->tbuf[k], j->tlen[k]);
	t = tc_rank_trace_unpack(&u);
	if (!t || !tc_unpack_done(&u)) {
		tc_rank_trace_free(&t);
		tc_error_set(&e, TC_ERR, j->ts->files[i].path, -1,
			     "the trace read by another process arrived damaged");
		note_failure(j, i, TC_ERR, &e);
		return;
	}
	tc_error_clear(&e);
	rc = j->fn(i, t, j->ctx, &e);
	if (rc)
		note_failure(j, i, rc, &e);
	if (j->ts->progress)
		atomic_fetch_add(j->ts->progress, 1);
}

/* Hand one chunk message to the command; returns its file count. */
static size_t give_chunk(struct recv_job *j, struct tc_pool *pool, const void *msg, size_t len)
{
	struct tc_unpack u;
	bool failed;

	tc_unpack_init(&u, msg, len);
	if (!tcmpi_unpack_head(&u, j->ts->nfiles, &j->lo, &j->n, &j->fail, &j->lock, &failed)) {
		fprintf(stderr, "tracecluster-mpi: a damaged chunk message (%zu bytes)\n", len);
		MPI_Abort(MPI_COMM_WORLD, 70);
	}
	j->tbuf = tc_xcalloc(j->n ? j->n : 1, sizeof(*j->tbuf));
	j->tlen = tc_xcalloc(j->n ? j->n : 1, sizeof(*j->tlen));
	for (size_t k = 0; k < j->n; k++) {
		if (tc_unpack_u64(&u))
			j->tbuf[k] = tc_unpack_bytes(&u, &j->tlen[k]);
		if (j->stats) {
			size_t sn;
			const void *s = tc_unpack_bytes(&u, &sn);
			if (s && sn == sizeof(*j->stats))
				memcpy(&j->stats[j->lo + k], s, sn);
			else
				u.bad = true;
		}
	}
	if (!tc_unpack_done(&u)) {
		fprintf(stderr, "tracecluster-mpi: a damaged chunk message (%zu bytes)\n", len);
		MPI_Abort(MPI_COMM_WORLD, 70);
	}
	tc_pool_for(pool, j->n, give_one, j);
	free(j->tbuf);
	free(j->tlen);
	return j->n;
}

/* The next message with tag from source (MPI_ANY_SOURCE: any), waiting
 * for one when wait; a new buffer and its length, or NULL when none was
 * there. */
char *tcmpi_recv(int source, int tag, bool wait, size_t *len)
{
	MPI_Status st;
	int flag = 1, count;
	char *buf;

	if (wait)
		MPI_CHECK(MPI_Probe(source, tag, MPI_COMM_WORLD, &st), "probe");
	else
		MPI_CHECK(MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st), "probe");
	if (!flag)
		return NULL;
	MPI_CHECK(MPI_Get_count(&st, MPI_BYTE, &count), "get count");
	buf = tc_xmalloc(count ? (size_t)count : 1);
	MPI_CHECK(MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD,
			   MPI_STATUS_IGNORE), "receive");
	*len = (size_t)count;
	return buf;
}

/* Receive one chunk message (waiting for it when wait); its file count,
 * 0 when none was there. */
static size_t recv_chunk(struct recv_job *j, struct tc_pool *pool, bool wait)
{
	size_t len, n;
	char *buf = tcmpi_recv(MPI_ANY_SOURCE, TAG_CHUNK, wait, &len);

	if (!buf)
		return 0;
	n = give_chunk(j, pool, buf, len);
	free(buf);
	return n;
}

/* Process 0's own files go to the command directly. */
struct own_job {
	struct recv_job *j;
	size_t first;
	bool *got;
};

static int own_one(size_t i, struct tc_rank_trace *t, void *p, struct tc_error *err)
{
	struct own_job *o = p;
	int rc = o->j->fn(o->first + i, t, o->j->ctx, err);

	o->got[i] = true;
	if (rc)
		note_failure(o->j, o->first + i, rc, err);
	return 0;
}

static void own_chunk(struct recv_job *j, struct tc_pool *pool, const struct tc_rsd_opts *ro,
		      size_t first, size_t n)
{
	struct tc_traceset sub = *j->ts;
	struct own_job o = { j, first, tc_xcalloc(n, sizeof(bool)) };
	struct tc_error err;
	int rc;

	sub.files = j->ts->files + first;
	sub.nfiles = n;
	tc_error_clear(&err);
	rc = tc_load_each_local(&sub, pool, ro, own_one, &o, j->stats ? j->stats + first : NULL,
				&err);
	if (rc) {
		size_t k = 0;
		while (k < n && o.got[k])
			k++;
		note_failure(j, first + k, rc, &err);
	}
	free(o.got);
}

static void send_shares(const struct tc_traceset *ts)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;

	for (int p = 1; p < tcmpi_size; p++) {
		size_t lo, hi;
		tcmpi_share(ts->nfiles, p, &lo, &hi);
		tc_strbuf_reset(&sb);
		tc_pack_u64(&sb, lo);
		tc_pack_u64(&sb, hi - lo);
		tc_pack_str(&sb, ts->dir);
		tc_pack_u64(&sb, (uint64_t)ts->format);
		tc_pack_u64(&sb, ts->flags);
		for (size_t i = lo; i < hi; i++) {
			tc_pack_str(&sb, ts->files[i].path);
			tc_pack_u64(&sb, (uint64_t)ts->files[i].format);
			tc_pack_u64(&sb, ts->files[i].index);
		}
		if (sb.len > INT_MAX) {
			fprintf(stderr, "tracecluster-mpi: the file list of process %d is too long\n", p);
			MPI_Abort(MPI_COMM_WORLD, 70);
		}
		MPI_CHECK(MPI_Send(sb.buf, (int)sb.len, MPI_BYTE, p, TAG_FILES, MPI_COMM_WORLD),
			  "send file list");
	}
	tc_strbuf_release(&sb);
}

void tcmpi_req_init(struct req *rq, uint64_t type, struct tc_pool *pool,
		    const struct tc_rsd_opts *ro, const struct tc_traceset *ts)
{
	memset(rq, 0, sizeof(*rq));
	rq->type = type;
	rq->threads = pool ? tc_pool_threads(pool) : 1;
	rq->window = ro->window;
	rq->match = (uint64_t)ro->match;
	rq->flags = ts->flags;
	rq->nfiles = ts->nfiles;
}

/* Tell the other processes what to read and which files each reads. */
void tcmpi_start(struct req *rq, const struct tc_traceset *ts)
{
	MPI_CHECK(MPI_Bcast(rq, sizeof(*rq), MPI_BYTE, 0, MPI_COMM_WORLD), "broadcast request");
	send_shares(ts);
}

/* Chunk messages too large for one MPI message are refused. */
void tcmpi_check_size(const struct tc_strbuf *sb)
{
	if (sb->len > INT_MAX) {
		fprintf(stderr, "tracecluster-mpi: process %d: a chunk of traces over 2 GiB\n",
			tcmpi_rank);
		MPI_Abort(MPI_COMM_WORLD, 70);
	}
}

static int remote_each(void *self, const struct tc_traceset *ts, struct tc_pool *pool,
		       const struct tc_rsd_opts *opts, tc_load_fn fn, void *ctx,
		       struct tc_raw_stats *stats, struct tc_error *err)
{
	struct req rq;
	struct recv_job j;
	struct tc_rsd_opts ro = { 0, 0 };
	size_t lo, hi, left, step;

	(void)self;
	/* only the main thread talks MPI (MPI_THREAD_FUNNELED) */
	if (tcmpi_size == 1 || !pthread_equal(pthread_self(), tcmpi_main_thread))
		return tc_load_each_local(ts, pool, opts, fn, ctx, stats, err);
	if (opts)
		ro = *opts;
	tcmpi_req_init(&rq, REQ_LOAD, pool, &ro, ts);
	rq.stats = stats != NULL;
	tcmpi_start(&rq, ts);

	memset(&j, 0, sizeof(j));
	j.ts = ts;
	j.fn = fn;
	j.ctx = ctx;
	j.stats = stats;
	pthread_mutex_init(&j.lock, NULL);
	tcmpi_fail_init(&j.fail);
	if (stats)
		memset(stats, 0, ts->nfiles * sizeof(*stats));
	tcmpi_share(ts->nfiles, 0, &lo, &hi);
	left = ts->nfiles - (hi - lo);
	step = chunk_files(hi - lo);
	/* the own share a chunk at a time, taking what arrived in between */
	for (size_t c = lo; c < hi; c += step) {
		own_chunk(&j, pool, &ro, c, TC_MIN(step, hi - c));
		while (left) {
			size_t got = recv_chunk(&j, pool, false);
			if (!got)
				break;
			left -= got;
		}
	}
	while (left)
		left -= recv_chunk(&j, pool, true);
	pthread_mutex_destroy(&j.lock);
	return tcmpi_fail_result(&j.fail, err);
}

/* ---- the other processes ------------------------------------------------- */

/* This process's share of the set as process 0 sent it: the files in ts
 * (a view holding only them; free with tcmpi_free_share), their first index in
 * the whole set returned. */
size_t tcmpi_recv_share(struct tc_traceset *ts)
{
	struct tc_unpack u;
	size_t lo, n, len;
	char *buf = tcmpi_recv(0, TAG_FILES, true, &len);

	tc_unpack_init(&u, buf, len);
	memset(ts, 0, sizeof(*ts));
	lo = tc_unpack_u64(&u);
	n = tc_unpack_count(&u, 3);
	ts->dir = tc_unpack_strdup(&u);
	ts->format = (enum tc_format)tc_unpack_u64(&u);
	ts->flags = (unsigned)tc_unpack_u64(&u);
	ts->files = tc_xcalloc(n ? n : 1, sizeof(*ts->files));
	for (size_t i = 0; i < n; i++) {
		ts->files[i].path = tc_unpack_strdup(&u);
		ts->files[i].format = (enum tc_format)tc_unpack_u64(&u);
		ts->files[i].index = tc_unpack_u32(&u);
	}
	ts->nfiles = n;
	free(buf);
	if (!tc_unpack_done(&u)) {
		fprintf(stderr, "tracecluster-mpi: process %d: a damaged file list\n", tcmpi_rank);
		MPI_Abort(MPI_COMM_WORLD, 70);
	}
	return lo;
}

void tcmpi_free_share(struct tc_traceset *ts)
{
	for (size_t i = 0; i < ts->nfiles; i++)
		free(ts->files[i].path);
	free(ts->files);
	free(ts->dir);
	tc_traceset_release_strings(ts);
}

static void serve_load(const struct req *rq)
{
	struct tc_traceset ts;
	struct tc_rsd_opts ro = { (uint32_t)rq->window, (int)rq->match };
	struct tc_pool *pool = tc_pool_new((unsigned)rq->threads);
	struct tc_strbuf msg[2] = { TC_STRBUF_INIT, TC_STRBUF_INIT };
	MPI_Request sent[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
	size_t lo, n, step;

	lo = tcmpi_recv_share(&ts);
	n = ts.nfiles;
	step = chunk_files(n);
	for (size_t c = 0, k = 0; c < n; c += step, k ^= 1) {
		size_t m = TC_MIN(step, n - c);
		MPI_CHECK(MPI_Wait(&sent[k], MPI_STATUS_IGNORE), "send chunk");
		read_chunk(&ts, c, m, lo + c, pool, &ro, rq->stats != 0, &msg[k]);
		tcmpi_check_size(&msg[k]);
		MPI_CHECK(MPI_Isend(msg[k].buf, (int)msg[k].len, MPI_BYTE, 0, TAG_CHUNK,
				    MPI_COMM_WORLD, &sent[k]), "send chunk");
	}
	MPI_CHECK(MPI_Waitall(2, sent, MPI_STATUSES_IGNORE), "send chunk");
	tc_strbuf_release(&msg[0]);
	tc_strbuf_release(&msg[1]);
	tcmpi_free_share(&ts);
	tc_pool_free(pool);
}


/* ---- per-file statistics (tracecluster info) ------------------------------ */

/*
 * Statistics of files [first, first + n) of ts into st[0..n) (progress
 * counted when count). On failure *bad gets the index (in the range) of
 * the lowest file that fails, found by reading the files alone again (a
 * rare path) so that the error is the single-process command's.
 */
static int stats_range(const struct tc_traceset *ts, size_t first, size_t n, bool count,
		       struct tc_pool *pool, struct tc_file_stats *st, size_t *bad,
		       struct tc_error *err)
{
	struct tc_traceset sub = *ts;
	int rc;

	sub.files = ts->files + first;
	sub.nfiles = n;
	if (!count)
		sub.progress = NULL;
	*bad = SIZE_MAX;
	rc = tc_traceset_stats_local(&sub, pool, st, err);
	if (!rc)
		return 0;
	sub.progress = NULL;
	for (size_t k = 0; k < n; k++) {
		struct tc_file_stats one;
		int r;
		memset(&one, 0, sizeof(one));
		sub.files = ts->files + first + k;
		sub.nfiles = 1;
		r = tc_traceset_stats_local(&sub, pool, &one, err);
		free(one.sigs);
		if (r) {
			*bad = k;
			return r;
		}
	}
	*bad = 0;
	return rc;
}

bool tcmpi_pack_head(struct tc_strbuf *sb, size_t lo, size_t n, int rc, size_t bad,
		     const struct tc_error *err)
{
	tc_strbuf_reset(sb);
	tc_pack_u64(sb, lo);
	tc_pack_u64(sb, n);
	tc_pack_u64(sb, rc ? lo + bad + 1 : 0);
	if (rc) {
		tc_pack_s64(sb, rc);
		tcmpi_pack_error(sb, err);
	}
	return rc != 0;
}

/* A statistics chunk: lo, n, the failed file's index + 1 (0: none) with
 * its code and error, else each file's statistics (the struct as bytes,
 * its signature array apart). */
static void pack_stats(struct tc_strbuf *sb, size_t lo, size_t n, const struct tc_file_stats *st,
		       int rc, size_t bad, const struct tc_error *err)
{
	if (tcmpi_pack_head(sb, lo, n, rc, bad, err))
		return;
	for (size_t k = 0; k < n; k++) {
		struct tc_file_stats c = st[k];
		c.sigs = NULL;
		tc_pack_bytes(sb, &c, sizeof(c));
		for (size_t q = 0; q < st[k].nsigs; q++)
			tc_pack_u64(sb, st[k].sigs[q]);
	}
}

struct stats_job {
	const struct tc_traceset *ts;
	struct tc_file_stats *st;
	struct tcmpi_fail fail;
};

/* Take one statistics chunk message; returns its file count. */
static size_t give_stats(struct stats_job *j, const void *msg, size_t len)
{
	struct tc_unpack u;
	size_t lo, n;
	bool failed;

	tc_unpack_init(&u, msg, len);
	if (!tcmpi_unpack_head(&u, j->ts->nfiles, &lo, &n, &j->fail, NULL, &failed)) {
		fprintf(stderr, "tracecluster-mpi: a damaged statistics message (%zu bytes)\n", len);
		MPI_Abort(MPI_COMM_WORLD, 70);
	}
	if (failed)
		return n;
	for (size_t k = 0; k < n && !u.bad; k++) {
		struct tc_file_stats *f = &j->st[lo + k];
		size_t sn;
		const void *b = tc_unpack_bytes(&u, &sn);
		if (!b || sn != sizeof(*f)) {
			u.bad = true;
			break;
		}
		memcpy(f, b, sn);
		f->sigs = f->nsigs <= (size_t)(u.end - u.p) ? tc_xcalloc(f->nsigs + 1, sizeof(uint64_t))
							    : NULL;
		if (!f->sigs) {
			f->nsigs = 0;
			u.bad = true;
			break;
		}
		for (size_t q = 0; q < f->nsigs; q++)
			f->sigs[q] = tc_unpack_u64(&u);
		if (!f->nsigs) {
			free(f->sigs);
			f->sigs = NULL;
		}
	}
	if (!tc_unpack_done(&u)) {
		fprintf(stderr, "tracecluster-mpi: a damaged statistics message (%zu bytes)\n", len);
		MPI_Abort(MPI_COMM_WORLD, 70);
	}
	if (j->ts->progress)
		atomic_fetch_add(j->ts->progress, n);
	return n;
}

static size_t recv_stats(struct stats_job *j, bool wait)
{
	size_t len, n;
	char *buf = tcmpi_recv(MPI_ANY_SOURCE, TAG_STATS, wait, &len);

	if (!buf)
		return 0;
	n = give_stats(j, buf, len);
	free(buf);
	return n;
}

static int remote_stats(void *self, const struct tc_traceset *ts, struct tc_pool *pool,
			struct tc_file_stats *st, struct tc_error *err)
{
	struct req rq;
	struct stats_job j;
	size_t lo, hi, left;

	(void)self;
	if (tcmpi_size == 1 || !pthread_equal(pthread_self(), tcmpi_main_thread))
		return tc_traceset_stats_local(ts, pool, st, err);
	memset(&rq, 0, sizeof(rq));
	rq.type = REQ_STATS;
	rq.threads = tc_pool_threads(pool);
	tcmpi_start(&rq, ts);
	memset(&j, 0, sizeof(j));
	j.ts = ts;
	j.st = st;
	tcmpi_fail_init(&j.fail);
	tcmpi_share(ts->nfiles, 0, &lo, &hi);
	left = ts->nfiles - (hi - lo);
	for (size_t c = lo; c < hi; c += STATS_CHUNK_FILES) {
		size_t n = TC_MIN((size_t)STATS_CHUNK_FILES, hi - c), bad;
		struct tc_error e;
		int rc = stats_range(ts, c, n, true, pool, st + c, &bad, &e);
		if (rc)
			tcmpi_fail_note(&j.fail, c + bad, rc, &e);
		while (left) {
			size_t got = recv_stats(&j, false);
			if (!got)
				break;
			left -= got;
		}
	}
	while (left)
		left -= recv_stats(&j, true);
	return tcmpi_fail_result(&j.fail, err);
}

/* Statistics of files [c, c + n) of a share (lo: c's index in the set). */
static void stats_chunk(struct tc_traceset *ts, size_t c, size_t n, size_t lo,
			struct tc_pool *pool, struct tc_strbuf *msg)
{
	struct tc_file_stats *st = tc_xcalloc(n, sizeof(*st));
	struct tc_error e;
	size_t bad = 0;
	int rc;

	tc_error_clear(&e);
	rc = stats_range(ts, c, n, false, pool, st, &bad, &e);
	pack_stats(msg, lo, n, st, rc, bad, &e);
	tc_file_stats_free(st, n);
}

typedef void (*chunk_fn)(struct tc_traceset *ts, size_t c, size_t n, size_t lo,
			 struct tc_pool *pool, struct tc_strbuf *msg);

/* The other processes' side of a statistics or header request: their
 * share, a message of up to step files at a time to process 0. */
static void serve_chunks(const struct req *rq, size_t step, int tag, chunk_fn fn)
{
	struct tc_traceset ts;
	struct tc_pool *pool = tc_pool_new((unsigned)rq->threads);
	struct tc_strbuf msg = TC_STRBUF_INIT;
	size_t lo = tcmpi_recv_share(&ts);

	for (size_t c = 0; c < ts.nfiles; c += step) {
		size_t n = TC_MIN(step, ts.nfiles - c);
		fn(&ts, c, n, lo + c, pool, &msg);
		tcmpi_check_size(&msg);
		MPI_CHECK(MPI_Send(msg.buf, (int)msg.len, MPI_BYTE, 0, tag, MPI_COMM_WORLD),
			  "send a chunk");
	}
	tc_strbuf_release(&msg);
	tcmpi_free_share(&ts);
	tc_pool_free(pool);
}

/* ---- the files' headers (opening a set) ----------------------------------- */

/* A header chunk: lo, n, the failed file's index + 1 (0: none) with its
 * code and error, else each file's header and size. */
static void pack_headers(struct tc_strbuf *sb, const struct tc_traceset *ts, size_t first,
			 size_t lo, size_t n, int rc, size_t bad, const struct tc_error *err)
{
	if (tcmpi_pack_head(sb, lo, n, rc, bad, err))
		return;
	for (size_t k = 0; k < n; k++) {
		const struct tc_traceset_file *f = &ts->files[first + k];
		tc_pack_s64(sb, f->hdr.rank);
		tc_pack_s64(sb, f->hdr.world_size);
		tc_pack_u64(sb, f->hdr.start_time_ns);
		tc_pack_u64(sb, f->hdr.pid);
		tc_pack_u64(sb, f->hdr.stack_depth);
		tc_pack_u64(sb, f->hdr.flags);
		tc_pack_str(sb, f->hdr.host ? f->hdr.host : "");
		tc_pack_str(sb, f->hdr.writer ? f->hdr.writer : "");
		tc_pack_str(sb, f->hdr.clock ? f->hdr.clock : "");
		tc_pack_u64(sb, f->file_bytes);
	}
}

/* Take one header chunk message into ts; returns its file count. */
static size_t give_headers(struct tc_traceset *ts, struct stats_job *j, const void *msg,
			   size_t len)
{
	struct tc_unpack u;
	size_t lo, n;
	bool failed;

	tc_unpack_init(&u, msg, len);
	if (!tcmpi_unpack_head(&u, ts->nfiles, &lo, &n, &j->fail, NULL, &failed))
		goto bad;
	if (failed)
		return n;
	for (size_t k = 0; k < n && !u.bad; k++) {
		struct tc_traceset_hdr h;
		char *host, *writer, *clock;
		uint64_t bytes;
		memset(&h, 0, sizeof(h));
		h.rank = (int32_t)tc_unpack_s64(&u);
		h.world_size = (int32_t)tc_unpack_s64(&u);
		h.start_time_ns = tc_unpack_u64(&u);
		h.pid = tc_unpack_u32(&u);
		h.stack_depth = tc_unpack_u32(&u);
		h.flags = tc_unpack_u32(&u);
		host = tc_unpack_strdup(&u);
		writer = tc_unpack_strdup(&u);
		clock = tc_unpack_strdup(&u);
		bytes = tc_unpack_u64(&u);
		if (!u.bad) {
			h.host = host;
			h.writer = writer;
			h.clock = clock;
			tc_traceset_set_header(ts, lo + k, &h, bytes);
		}
		free(host);
		free(writer);
		free(clock);
	}
	if (!tc_unpack_done(&u))
		goto bad;
	return n;
bad:
	fprintf(stderr, "tracecluster-mpi: a damaged header message (%zu bytes)\n", len);
	MPI_Abort(MPI_COMM_WORLD, 70);
	return 0;
}

static int remote_headers(void *self, struct tc_traceset *ts, struct tc_pool *pool,
			  struct tc_error *err)
{
	struct req rq;
	struct stats_job j;
	size_t lo, hi, left, bad = 0;
	struct tc_error e;
	int rc;

	(void)self;
	if (tcmpi_size == 1 || !pthread_equal(pthread_self(), tcmpi_main_thread))
		return tc_traceset_headers_local(ts, 0, ts->nfiles, pool, NULL, err);
	memset(&rq, 0, sizeof(rq));
	rq.type = REQ_HEADERS;
	rq.threads = tc_pool_threads(pool);
	tcmpi_start(&rq, ts);
	memset(&j, 0, sizeof(j));
	j.ts = ts;
	tcmpi_fail_init(&j.fail);
	tcmpi_share(ts->nfiles, 0, &lo, &hi);
	tc_error_clear(&e);
	rc = tc_traceset_headers_local(ts, lo, hi - lo, pool, &bad, &e);
	if (rc)
		tcmpi_fail_note(&j.fail, lo + bad, rc, &e);
	left = ts->nfiles - (hi - lo);
	while (left) {
		size_t len;
		char *buf = tcmpi_recv(MPI_ANY_SOURCE, TAG_HEADERS, true, &len);
		left -= give_headers(ts, &j, buf, len);
		free(buf);
	}
	return tcmpi_fail_result(&j.fail, err);
}

/* Headers of files [c, c + n) of a share (lo: c's index in the set). */
static void headers_chunk(struct tc_traceset *ts, size_t c, size_t n, size_t lo,
			  struct tc_pool *pool, struct tc_strbuf *msg)
{
	struct tc_error e;
	size_t bad = 0;
	int rc;

	tc_error_clear(&e);
	rc = tc_traceset_headers_local(ts, c, n, pool, &bad, &e);
	pack_headers(msg, ts, c, lo, n, rc, bad, &e);
}

static void serve(void)
{
	for (;;) {
		struct req rq;
		MPI_CHECK(MPI_Bcast(&rq, sizeof(rq), MPI_BYTE, 0, MPI_COMM_WORLD),
			  "broadcast request");
		if (rq.type == REQ_QUIT)
			return;
		if (rq.type == REQ_LOAD)
			serve_load(&rq);
		else if (rq.type == REQ_STATS)
			serve_chunks(&rq, STATS_CHUNK_FILES, TAG_STATS, stats_chunk);
		else if (rq.type == REQ_HEADERS)
			serve_chunks(&rq, HEADER_CHUNK_FILES, TAG_HEADERS, headers_chunk);
		else if (rq.type == REQ_NONE)
			tcmpi_serve_none(&rq);
		else if (rq.type == REQ_REDUCE)
			tcmpi_serve_reduce(&rq);
	}
}

int main(int argc, char **argv)
{
	static const struct tc_load_remote remote = { remote_each, NULL };
	static const struct tc_stats_remote sremote = { remote_stats, NULL };
	static const struct tc_headers_remote hremote = { remote_headers, NULL };
	int provided, rc = 0;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return fflush(stdout) ? TC_EXIT_FAIL : 0;
	}
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	if (provided < MPI_THREAD_FUNNELED) {
		fprintf(stderr, "tracecluster-mpi: the MPI library cannot run threads beside MPI\n");
		MPI_Abort(MPI_COMM_WORLD, 70);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &tcmpi_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &tcmpi_size);
	tcmpi_main_thread = pthread_self();
	if (tcmpi_rank == 0) {
		struct req quit;
		tc_load_set_remote(&remote);
		tc_traceset_set_stats_remote(&sremote);
		tc_traceset_set_headers_remote(&hremote);
		if (tcmpi_size > 1) {
			tc_anl_set_none_remote(&tcmpi_none_remote);
			tc_cluster_set_reduce_remote(&tcmpi_reduce_remote);
		}
		rc = tc_main(argc, argv);
		tc_anl_set_none_remote(NULL);
		tc_cluster_set_reduce_remote(NULL);
		tc_load_set_remote(NULL);
		tc_traceset_set_stats_remote(NULL);
		tc_traceset_set_headers_remote(NULL);
		memset(&quit, 0, sizeof(quit));
		quit.type = REQ_QUIT;
		MPI_CHECK(MPI_Bcast(&quit, sizeof(quit), MPI_BYTE, 0, MPI_COMM_WORLD),
			  "broadcast request");
	} else {
		serve();
	}
	MPI_Finalize();
	return rc;
}
