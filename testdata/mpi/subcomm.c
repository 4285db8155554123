/*
 * subcomm.c - collectives on communicators other than MPI_COMM_WORLD:
 * a Comm_dup of MPI_COMM_WORLD, a Comm_split by rank mod 2 with key minus
 * the rank (sub-ranks in reverse world order) and a 1-D periodic
 * Cart_create. On the dup: Bcast of 100 ints from rank 1; on the split:
 * Allreduce of 10 doubles and Bcast of 4 ints from sub-rank 0 (the
 * highest world rank of each half); on the Cartesian copy: Alltoall of
 * one int to each rank, and a Send/Recv to the next sub-rank of the split.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int r, p, sr, sp, ib[100] = { 0 }, dims[1] = { 0 }, periods[1] = { 1 };
	int *a2a, *b2a;
	double d[10] = { 0 }, e[10];
	MPI_Comm dup, half, cart;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	a2a = calloc((size_t)p, sizeof(int));
	b2a = calloc((size_t)p, sizeof(int));
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Bcast(ib, 100, MPI_INT, 1, dup);
	MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &half);
	MPI_Comm_rank(half, &sr);
	MPI_Comm_size(half, &sp);
	MPI_Allreduce(d, e, 10, MPI_DOUBLE, MPI_SUM, half);
	MPI_Bcast(ib, 4, MPI_INT, 0, half);
	dims[0] = p;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
	MPI_Alltoall(a2a, 1, MPI_INT, b2a, 1, MPI_INT, cart);
	if (sr == 0) {
		MPI_Send(ib, 2, MPI_INT, 1 % sp, 3, half);
		MPI_Recv(ib, 2, MPI_INT, sp - 1, 3, half, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(ib, 2, MPI_INT, sr - 1, 3, half, MPI_STATUS_IGNORE);
		MPI_Send(ib, 2, MPI_INT, (sr + 1) % sp, 3, half);
	}
	MPI_Comm_free(&cart);
	MPI_Comm_free(&half);
	MPI_Comm_free(&dup);
	free(a2a);
	free(b2a);
	MPI_Finalize();
	return 0;
}
