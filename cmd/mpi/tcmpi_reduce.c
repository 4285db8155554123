/*
 * tcmpi_reduce.c - the radix-tree reductions of the clustering modes
 * (cluster/tree.c, cluster/kmodes.c) over the processes of
 * tracecluster-mpi, as the papers run them over the processes of the job
 * (dissertation §3.1-3.2, ACURDION Alg. 5).
 *
 * When a mode reduces a forest of enough ranks (reduce_min), process 0
 * picks the shallowest depth with at least one node per process and
 * gives each process a contiguous share
 * of the subtrees under that depth, itself included: the forest, and the
 * keys, or the signatures and the metric, of the share's ranks alone
 * (cluster/remote.c, reduce_mpi.c; by default only distance-based
 * reductions of 262,144 ranks or more, TRACECLUSTER_MPI_REDUCE_MIN=N
 * for any). Each runs the mode's node function on its
 * subtrees with its threads and sends back their roots' lists and the
 * head changes below them; process 0 then runs the levels above. Every
 * node runs the same code on the same inputs, so the clusters are the
 * single process's.
 */
#include "lib/compat.h"
#include "cmd/mpi/tcmpi.h"
#include "cluster/cluster.h"
#include "cmd/cmd.h"
#include "cmd/mpi/reduce_mpi.h"
#include "lib/pool.h"

#include <stdio.h>
#include <string.h>

static unsigned reduce_run(void *self, struct tc_reduction *r)
{
	struct tc_pool *pool = tc_reduction_pool(r);
	struct tc_mpi_reduce_job *job;
	struct req rq;
	size_t nroots;
	unsigned d;

	(void)self;
	if (tcmpi_size == 1 || !pthread_equal(pthread_self(), tcmpi_main_thread) ||
	    tc_reduction_size(r) < tc_mpi_reduce_min(r, "TRACECLUSTER_MPI_REDUCE_MIN"))
		return 0;
	d = tc_reduction_plan(r, (size_t)tcmpi_size, &nroots);
	if (!d)
		return 0;
	memset(&rq, 0, sizeof(rq));
	rq.type = REQ_REDUCE;
	rq.threads = pool ? tc_pool_threads(pool) : 1;
	rq.depth = d;
	rq.nroots = nroots;
	job = tc_mpi_reduce_prepare(r, d, nroots, tcmpi_size);
	MPI_CHECK(MPI_Bcast(&rq, sizeof(rq), MPI_BYTE, 0, MPI_COMM_WORLD), "broadcast request");
	if (!tc_mpi_reduce_lead(job, pool, MPI_COMM_WORLD, TAG_REDUCE, NULL)) {
		fprintf(stderr, "tracecluster-mpi: a part of a reduction failed or arrived damaged\n");
		MPI_Abort(MPI_COMM_WORLD, 70);
	}
	tc_mpi_reduce_job_free(job);
	if (tc_g.verbosity > 0)
		fprintf(stderr, "tracecluster-mpi: a reduction of %zu ranks on %d processes: %zu "
			"subtrees under depth %u\n", tc_reduction_size(r), tcmpi_size, nroots, d);
	return d;
}

const struct tc_reduce_remote tcmpi_reduce_remote = { reduce_run, NULL };

void tcmpi_serve_reduce(const struct req *rq)
{
	tc_mpi_reduce_serve((unsigned)rq->depth, (size_t)rq->nroots, tcmpi_size, tcmpi_rank,
			    (unsigned)rq->threads, MPI_COMM_WORLD, TAG_REDUCE, NULL);
}
