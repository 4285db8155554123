/*
 * ring.c - capture test: a ring with two Isend call sites.
 *
 *   ring [ITERS [PIDFILE_DIR]]    ITERS 0 = until killed
 *
 * Each iteration every rank sends 16 ints (tag 1, step_a) and 8 doubles
 * (tag 2, step_b) to rank+1 and receives them from rank-1 (Isend, Recv,
 * Wait); then one Sendrecv (tag 3), a Barrier between MPI_Pcontrol(0)
 * and MPI_Pcontrol(1) (so not recorded), and a recorded Barrier.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int next, prev;

__attribute__((noinline)) static void step_a(int *s, int *r)
{
	MPI_Request req;

	MPI_Isend(s, 16, MPI_INT, next, 1, MPI_COMM_WORLD, &req);
	MPI_Recv(r, 16, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) static void step_b(double *s, double *r)
{
	MPI_Request req;
	MPI_Status st;

	MPI_Isend(s, 8, MPI_DOUBLE, next, 2, MPI_COMM_WORLD, &req);
	MPI_Recv(r, 8, MPI_DOUBLE, prev, 2, MPI_COMM_WORLD, &st);
	MPI_Wait(&req, &st);
}

int main(int argc, char **argv)
{
	int rank, size, iters = argc > 1 ? atoi(argv[1]) : 10;
	int si[16] = { 0 }, ri[16];
	double sd[8] = { 0 }, rd[8];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	next = (rank + 1) % size;
	prev = (rank + size - 1) % size;
	if (argc > 2) {
		char path[4096];
		FILE *f;
		snprintf(path, sizeof(path), "%s/pid-%d", argv[2], rank);
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "%ld\n", (long)getpid());
			fclose(f);
		}
	}
	for (int it = 0; iters == 0 || it < iters; it++) {
		si[0] = it;
		step_a(si, ri);
		step_b(sd, rd);
	}
	MPI_Sendrecv(si, 4, MPI_INT, next, 3, ri, 4, MPI_INT, prev, 3, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	MPI_Pcontrol(0);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Pcontrol(1);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
