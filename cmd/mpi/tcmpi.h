/*
 * tcmpi.h - what the parts of tracecluster-mpi share (tcmpi.c: the
 * protocol, the shared reading of trace sets; tcmpi_none.c: --mode none
 * read and merged where the files are read). Only the main thread of a
 * process talks MPI.
 */
#ifndef TC_CMD_MPI_TCMPI_H
#define TC_CMD_MPI_TCMPI_H

#include "lib/compat.h"
#include "lib/error.h"

#include <mpi.h>
#include <pthread.h>

struct tc_merge_opts;
struct tc_strbuf;
struct tc_traceset;
struct tc_unpack;

enum { REQ_QUIT = 0, REQ_LOAD = 1, REQ_STATS = 2, REQ_HEADERS = 3, REQ_NONE = 4, REQ_REDUCE = 5 };
enum { TAG_FILES = 1, TAG_CHUNK = 2, TAG_STATS = 3, TAG_HEADERS = 4, TAG_NONE_HEAD = 5,
       TAG_REDUCE = 7, /* and 8 */
       /* a partial global trace handed on at level k of the radix tree */
       TAG_NONE_TREE = 64 };

/* What process 0 asks of the others, broadcast as bytes. */
struct req {
	uint64_t type;
	uint64_t threads;       /* of process 0's pool */
	uint64_t window, match; /* struct tc_rsd_opts */
	uint64_t flags;         /* the set's read flags (salvage) */
	uint64_t stats;         /* per-file read statistics wanted */
	uint64_t nfiles;        /* of the whole set (REQ_NONE) */
	double precision;       /* struct tc_merge_opts (REQ_NONE) */
	uint64_t bins, filtering;
	uint64_t depth, nroots; /* REQ_REDUCE: the parts' roots */
};

extern int tcmpi_rank, tcmpi_size;

/* Print what failed and abort the job (MPI errors are not recoverable). */
void tcmpi_fatal(int rc, const char *what);
#define MPI_CHECK(call, what)                            \
	do {                                             \
		int rc_ = (call);                        \
		if (rc_ != MPI_SUCCESS)                  \
			tcmpi_fatal(rc_, what);          \
	} while (0)

/* Share p of n files: [*lo, *hi). */
void tcmpi_share(size_t n, int p, size_t *lo, size_t *hi);
/* A request of type for reading ts with pool's threads and ro. */
struct tc_pool;
struct tc_rsd_opts;
void tcmpi_req_init(struct req *rq, uint64_t type, struct tc_pool *pool,
		    const struct tc_rsd_opts *ro, const struct tc_traceset *ts);
/* Broadcast rq and send every other process its share of ts's files. */
void tcmpi_start(struct req *rq, const struct tc_traceset *ts);
/* This process's share as process 0 sent it (a view holding only its
 * files; free with tcmpi_free_share); returns their first index. */
size_t tcmpi_recv_share(struct tc_traceset *ts);
void tcmpi_free_share(struct tc_traceset *ts);
/* The next message with tag from source (MPI_ANY_SOURCE: any), waiting
 * when wait; a new buffer and its length, or NULL when none was there. */
char *tcmpi_recv(int source, int tag, bool wait, size_t *len);
/* Abort on a message too large for one MPI message. */
void tcmpi_check_size(const struct tc_strbuf *sb);

void tcmpi_pack_error(struct tc_strbuf *sb, const struct tc_error *e);

/* The head of a message about files [lo, lo + n) (sb reset first): the
 * failed file's index bad (relative to lo) + 1, 0 for none, with its code
 * and error when rc; true when it failed. */
bool tcmpi_pack_head(struct tc_strbuf *sb, size_t lo, size_t n, int rc, size_t bad,
		     const struct tc_error *err);
void tcmpi_unpack_error(struct tc_unpack *u, struct tc_error *e);

/* The failure with the lowest file index, as the single process reports. */
struct tcmpi_fail {
	size_t index;           /* SIZE_MAX: none */
	int rc;
	struct tc_error err;
};
void tcmpi_fail_init(struct tcmpi_fail *f);
void tcmpi_fail_note(struct tcmpi_fail *f, size_t i, int rc, const struct tc_error *e);
/* A failure in a message: its code and error for file i. */
void tcmpi_fail_unpack(struct tcmpi_fail *f, struct tc_unpack *u, size_t i);
/* 0, or the failure's code with *err filled. */
int tcmpi_fail_result(const struct tcmpi_fail *f, struct tc_error *err);
/* Read such a head: *lo and *n, checked against nfiles (false: damaged);
 * a failure it names goes into f (holding lock, when given), *failed
 * says so. */
bool tcmpi_unpack_head(struct tc_unpack *u, size_t nfiles, size_t *lo, size_t *n,
		       struct tcmpi_fail *f, pthread_mutex_t *lock, bool *failed);

/* The radix-tree reductions of the clustering modes (tcmpi_reduce.c):
 * process 0's tc_reduce_remote, and the others' part of a REQ_REDUCE.
 * main_thread: the thread that talks MPI in process 0. */
extern pthread_t tcmpi_main_thread;
extern const struct tc_reduce_remote tcmpi_reduce_remote;
void tcmpi_serve_reduce(const struct req *rq);

/* --mode none (tcmpi_none.c): process 0's tc_none_remote, and the others'
 * part of a REQ_NONE. */
extern const struct tc_none_remote tcmpi_none_remote;
void tcmpi_serve_none(const struct req *rq);

#endif
