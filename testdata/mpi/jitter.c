/*
 * jitter.c - ranks that differ in timing alone, or in behaviour too.
 *
 *   jitter [roles] [ITERS]
 *
 * Every iteration each rank computes for a random time (0 to 10 ms, drawn
 * per call from a generator seeded by the rank, so no two ranks compute
 * alike) before an MPI_Bcast from rank 0 and again before an
 * MPI_Allreduce: every rank makes the same calls from the same call sites
 * with the same parameters, and only the compute time between the calls
 * and the time waiting in them differ, as on a machine whose ranks
 * jitter. (Collectives only: point-to-point peers relative to the rank
 * differ where a ring wraps round.)
 *
 * With "roles" the ranks have two genuinely different behaviours as
 * well: even ranks send to their odd neighbour and then receive its
 * reply, odd ranks receive first and then reply (a different order of
 * calls, other peers), before the same Allreduce. Needs an even number of
 * ranks.
 *
 * Exit status 0, or 1 when a result is wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Sleep for a random time below 10 ms: the "computation". */
static void compute(unsigned *seed)
{
	struct timespec ts = { 0, (long)(rand_r(seed) % 10000) * 1000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int rank, size, iters = 20, roles = 0, bad = 0;
	unsigned seed;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "roles"))
			roles = 1;
		else
			iters = atoi(argv[i]);
	}
	if (roles && size % 2) {
		if (!rank)
			fprintf(stderr, "jitter: roles needs an even number of ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	seed = 7919u * (unsigned)rank + 1u;
	for (int it = 0; it < iters; it++) {
		double v = rank + it, got = -1, sum = 0;

		compute(&seed);
		if (!roles) {
			got = rank ? -1 : it;
			MPI_Bcast(&got, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
			bad |= got != it;
		} else if (rank % 2 == 0) {
			MPI_Send(&v, 1, MPI_DOUBLE, rank + 1, 6, MPI_COMM_WORLD);
			MPI_Recv(&got, 1, MPI_DOUBLE, rank + 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			bad |= got != rank + 1 + it;
		} else {
			MPI_Recv(&got, 1, MPI_DOUBLE, rank - 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&v, 1, MPI_DOUBLE, rank - 1, 7, MPI_COMM_WORLD);
			bad |= got != rank - 1 + it;
		}
		compute(&seed);
		MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		bad |= sum != (double)size * (size - 1) / 2 + (double)size * it;
	}
	MPI_Finalize();
	if (bad)
		fprintf(stderr, "jitter: rank %d: wrong result\n", rank);
	return bad;
}
