/*
 * intercomm.c - capture test: intercommunicators and the other ways to
 * make a communicator.
 *
 * MPI_COMM_WORLD split into even and odd world ranks (key: the world
 * rank), an intercommunicator between the halves (local leader 0, remote
 * leader world rank 1 for the even half, 0 for the odd one; tag 7), a
 * Send over it from world rank 0 to remote rank 1 (world rank 3) with
 * tag 8, merged with the odd half high; Comm_dup_with_info of world; a
 * Dist_graph_create where each rank names the edge rank -> rank+1.
 * Needs an even number of ranks, at least 4.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int r, p, buf[4] = { 0 }, dst, one[1] = { 1 };
	MPI_Comm half, inter, merged, dup, graph;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, r % 2 ? 0 : 1, 7, &inter);
	if (r == 0)
		MPI_Send(buf, 4, MPI_INT, 1, 8, inter);
	if (r == 3)
		MPI_Recv(buf, 4, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE);
	MPI_Intercomm_merge(inter, r % 2, &merged);
	MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &dup);
	dst = (r + 1) % p;
	MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &r, one, &dst, one,
			      MPI_INFO_NULL, 0, &graph);
	MPI_Comm_free(&graph);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&merged);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
