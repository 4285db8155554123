/*
 * imbalance.c - the same communication on every rank with rank-dependent
 * compute time, as a load-imbalanced code (LULESH with uneven domains):
 * 20 timesteps of a ring exchange and an Allreduce, rank r computing
 * (r + 1) ms per step. Every rank runs the same calls from the same call
 * sites with the same parameters, so the ranks form one cluster whose
 * only differences are their compute times: a replay-time error of a
 * clustered trace comes from summarising those times, none of it from
 * the clustering. Ranks whose rank is odd also exchange with the rank
 * opposite them every step when run with "two": two behaviours that a
 * one-cluster clustering gets wrong.
 */
#include <mpi.h>
#include <string.h>
#include <time.h>

/* Spin for ms milliseconds of wall time (a compute phase). */
static void compute(double ms)
{
	double end = MPI_Wtime() + ms * 1e-3;

	while (MPI_Wtime() < end)
		;
}

int main(int argc, char **argv)
{
	int r, p, two = argc > 1 && !strcmp(argv[1], "two");
	double v, w, buf[64] = { 0 };

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	v = r;
	for (int step = 0; step < 20; step++) {
		compute(r + 1);
		MPI_Sendrecv(&v, 1, MPI_DOUBLE, (r + 1) % p, 1, &w, 1, MPI_DOUBLE, (r + p - 1) % p,
			     1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (two && r % 2 && p % 2 == 0) {
			int o = (r + p / 2) % p;
			if (o % 2)
				MPI_Sendrecv_replace(buf, 64, MPI_DOUBLE, o, 2, o, 2, MPI_COMM_WORLD,
						     MPI_STATUS_IGNORE);
		}
		MPI_Allreduce(&v, &w, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
