/*
 * phases.c - capture test: a timestep loop whose communication changes
 * phase, for Chameleon (clustering at marker calls).
 *
 *   phases [ITERS [skew]]
 *
 * Three phases of ITERS (default 8) timesteps each, every timestep
 * ending in one MPI_Barrier (the marker) and, in the second phase, an
 * MPI_Allreduce before it:
 *   1. a ring: every rank sends 32 ints to rank+1 and receives from
 *      rank-1 (Sendrecv);
 *   2. pairs: even ranks send 64 doubles to rank+1, odd ranks receive
 *      them (a rank without a partner does neither), then Allreduce;
 *   3. the ring again.
 * With "skew", rank 0 calls the timestep's Barrier from another function
 * (another call site) than the other ranks.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

__attribute__((noinline)) static void ring(int *s, int *r)
{
	MPI_Sendrecv(s, 32, MPI_INT, (rank + 1) % size, 1, r, 32, MPI_INT,
		     (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static void pairs(double *s, double *r)
{
	double x = rank, sum;

	if (rank % 2 == 0 && rank + 1 < size)
		MPI_Send(s, 64, MPI_DOUBLE, rank + 1, 2, MPI_COMM_WORLD);
	else if (rank % 2 == 1)
		MPI_Recv(r, 64, MPI_DOUBLE, rank - 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

__attribute__((noinline)) static void step_end(void)
{
	MPI_Barrier(MPI_COMM_WORLD);
}

__attribute__((noinline)) static void step_end_other(void)
{
	MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 8;
	int skew = argc > 2 && !strcmp(argv[2], "skew");
	int si[32] = { 0 }, ri[32];
	double sd[64] = { 0 }, rd[64];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int phase = 0; phase < 3; phase++) {
		for (int it = 0; it < iters; it++) {
			if (phase == 1)
				pairs(sd, rd);
			else
				ring(si, ri);
			if (skew && rank == 0)
				step_end_other();
			else
				step_end();
		}
	}
	MPI_Finalize();
	return 0;
}
