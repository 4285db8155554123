/*
 * cancel.c - cancelled wildcard receives, as HPCC does: every rank posts
 * an MPI_Irecv(MPI_ANY_SOURCE) no message will ever match, cancels it and
 * waits for it; around it, a normal ring exchange with Isend/Irecv/Waitall
 * and a Barrier. A second Irecv(MPI_ANY_SOURCE, tag 5) is posted after
 * its message has arrived (an Iprobe loop waits for it), so it matches at
 * once, its cancel fails and the Wait receives the message.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int r, p, a = 1, b = 0, c = 0, flag = 0;
	MPI_Request req[2], lone;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	for (int i = 0; i < 2; i++) {
		MPI_Irecv(&b, 1, MPI_INT, (r + p - 1) % p, 1, MPI_COMM_WORLD, &req[0]);
		MPI_Isend(&a, 1, MPI_INT, (r + 1) % p, 1, MPI_COMM_WORLD, &req[1]);
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	}
	MPI_Irecv(&c, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &lone);
	MPI_Cancel(&lone);
	MPI_Wait(&lone, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Send(&a, 1, MPI_INT, (r + 1) % p, 5, MPI_COMM_WORLD);
	while (!flag)
		MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	MPI_Irecv(&c, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &lone);
	MPI_Cancel(&lone);
	MPI_Wait(&lone, MPI_STATUS_IGNORE);
	MPI_Irecv(&b, 1, MPI_INT, (r + p - 1) % p, 2, MPI_COMM_WORLD, &req[0]);
	MPI_Isend(&a, 1, MPI_INT, (r + 1) % p, 2, MPI_COMM_WORLD, &req[1]);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	MPI_Finalize();
	return 0;
}
