/*
 * large.c - capture test: the MPI-4 large-count (_c) functions, where the
 * MPI library has them (MPI_VERSION >= 4; else it only prints so).
 *
 * A ring over a communicator with the world ranks reversed (world rank w
 * is rank P-1-w): Isend_c of 5 ints to the next rank (tag 4), Recv_c from
 * the previous one, Wait; Send_c / Irecv_c + Wait the other way round
 * (tag 6, 3 doubles); then Bcast_c (7 ints, root rank 1), Allreduce_c
 * (2 doubles, MPI_SUM), Reduce_c (1 int, MPI_MAX, root rank 0),
 * Allgather_c (1 int), Alltoall_c (2 ints), Iallreduce_c + Wait; and a
 * Put_c of 4 ints at displacement 3 of the next rank's window between
 * two fences.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
#if MPI_VERSION >= 4
	int r, p, n, pr, ibuf[64] = { 0 }, rbuf[64] = { 0 };
	double d[8] = { 0 }, e[8] = { 0 };
	MPI_Comm rev;
	MPI_Request req;
	MPI_Win win;

	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - r, &rev);
	MPI_Comm_rank(rev, &r);
	n = (r + 1) % p;
	pr = (r + p - 1) % p;
	MPI_Isend_c(ibuf, 5, MPI_INT, n, 4, rev, &req);
	MPI_Recv_c(rbuf, 5, MPI_INT, pr, 4, rev, MPI_STATUS_IGNORE);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Irecv_c(e, 3, MPI_DOUBLE, n, 6, rev, &req);
	MPI_Send_c(d, 3, MPI_DOUBLE, pr, 6, rev);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Bcast_c(ibuf, 7, MPI_INT, 1, rev);
	MPI_Allreduce_c(d, e, 2, MPI_DOUBLE, MPI_SUM, rev);
	MPI_Reduce_c(ibuf, rbuf, 1, MPI_INT, MPI_MAX, 0, rev);
	MPI_Allgather_c(ibuf, 1, MPI_INT, rbuf, 1, MPI_INT, rev);
	MPI_Alltoall_c(ibuf, 2, MPI_INT, rbuf, 2, MPI_INT, rev);
	MPI_Iallreduce_c(d, e, 4, MPI_DOUBLE, MPI_SUM, rev, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Win_create(rbuf, sizeof(rbuf), sizeof(int), MPI_INFO_NULL, rev, &win);
	MPI_Win_fence(0, win);
	MPI_Put_c(ibuf, 4, MPI_INT, n, 3, 4, MPI_INT, win);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	MPI_Comm_free(&rev);
#else
	printf("MPI %d.%d: no large-count functions\n", MPI_VERSION, MPI_SUBVERSION);
#endif
	MPI_Finalize();
	return 0;
}
