/*
 * halo2d.c - capture test: 2D halo exchange on a non-periodic Cartesian
 * grid with Isend/Irecv/Waitall, and one Allreduce per iteration.
 *
 *   halo2d [ITERS [N]]     N doubles per face (default 32)
 *
 * Faces are sent with tag 10 + direction (0 west, 1 east, 2 south,
 * 3 north); grid edges have MPI_PROC_NULL neighbours. Rank 0 prints the
 * grid as "dims AxB" on stdout.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 10, n = argc > 2 ? atoi(argv[2]) : 32;
	int size, rank, dims[2] = { 0, 0 }, periods[2] = { 0, 0 }, nb[4];
	double *sbuf, *rbuf, sum = 1, total;
	MPI_Comm grid;
	MPI_Request req[8];

	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Dims_create(size, 2, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
	MPI_Comm_rank(grid, &rank);
	MPI_Cart_shift(grid, 0, 1, &nb[0], &nb[1]);
	MPI_Cart_shift(grid, 1, 1, &nb[2], &nb[3]);
	if (rank == 0)
		printf("dims %dx%d\n", dims[0], dims[1]);
	sbuf = calloc(4 * (size_t)n, sizeof(double));
	rbuf = calloc(4 * (size_t)n, sizeof(double));
	for (int it = 0; it < iters; it++) {
		for (int d = 0; d < 4; d++)
			MPI_Irecv(rbuf + d * n, n, MPI_DOUBLE, nb[d], 10 + (d ^ 1), grid, &req[d]);
		for (int d = 0; d < 4; d++)
			MPI_Isend(sbuf + d * n, n, MPI_DOUBLE, nb[d], 10 + d, grid, &req[4 + d]);
		MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
		MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, grid);
	}
	MPI_Comm_free(&grid);
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
