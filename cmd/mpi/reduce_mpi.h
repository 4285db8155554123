/*
 * reduce_mpi.h - a clustering reduction's subtrees run in parts over the
 * processes of an MPI communicator (cluster/remote.c's parts), shared by
 * tracecluster-mpi and the in-job clustering plugin. Only PMPI calls, so
 * nothing here is traced.
 */
#ifndef TC_CMD_MPI_REDUCE_MPI_H
#define TC_CMD_MPI_REDUCE_MPI_H

#include "lib/compat.h"

#include <mpi.h>

struct tc_pool;
struct tc_reduction;

/*
 * The fewest ranks for which r runs in parts: the number in the
 * environment variable env when it holds one, else 262,144 for the
 * distance-based reductions and never for the exact-key ones (handing a
 * share costs about 0.5-1 us per rank: test/bench/clusterbench -s).
 */
size_t tc_mpi_reduce_min(const struct tc_reduction *r, const char *env);

/* Part p of nroots subtree roots cut into nparts: [*lo, *hi). */
void tc_mpi_reduce_share(size_t nroots, int nparts, int p, size_t *lo, size_t *hi);

/* Runs fn(ctx) so that running out of memory inside it returns false
 * instead of ending the process (the in-job plugin's guard); NULL: none. */
typedef bool (*tc_mpi_guard_fn)(void (*fn)(void *), void *ctx);

struct tc_strbuf;
/* Process 0's shares of one reduction, packed before anything is sent
 * (so that running out of memory here stops nothing that has started). */
struct tc_mpi_reduce_job {
	struct tc_reduction *r;
	unsigned d;
	size_t nroots;
	int nparts;
	struct tc_strbuf *in;   /* per process but 0 */
};
struct tc_mpi_reduce_job *tc_mpi_reduce_prepare(struct tc_reduction *r, unsigned d,
						size_t nroots, int nparts);
void tc_mpi_reduce_job_free(struct tc_mpi_reduce_job *j);

/*
 * Process 0 of comm: the shares go to processes 1 .. nparts-1 (which call
 * tc_mpi_reduce_serve), share 0 runs here on pool, and the others'
 * results are taken into j->r. False when a part failed, arrived damaged
 * or ran out of memory (r is then incomplete); the exchange completes
 * either way.
 */
bool tc_mpi_reduce_lead(struct tc_mpi_reduce_job *j, struct tc_pool *pool, MPI_Comm comm,
			int tag, tc_mpi_guard_fn guard);

/* Process p of comm (1 <= p < nparts): receive its share from process 0,
 * run it with threads threads, send the results back, or word of its
 * failure: process 0 never waits in vain. */
void tc_mpi_reduce_serve(unsigned d, size_t nroots, int nparts, int p, unsigned threads,
			 MPI_Comm comm, int tag, tc_mpi_guard_fn guard);

#endif
