/*
 * persist.c - capture test: persistent requests and the other completion
 * calls.
 *
 * Send_init to rank+1 and Recv_init from rank-1 (tag 5, 6 ints), three
 * rounds of Startall + Waitall, one round of Start + Start + Wait + Wait,
 * then Request_free of both. Then an Irecv/Isend pair (tag 6) completed
 * by polling Testany and then Waitsome, and a pair (tag 7) completed by
 * Testall polling, a pair (tag 8) by Waitany + Test.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int r, p, next, prev, s[6] = { 0 }, v[6], idx, flag = 0, out, ind[2];
	MPI_Request pr[2], q[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	next = (r + 1) % p;
	prev = (r + p - 1) % p;

	MPI_Recv_init(v, 6, MPI_INT, prev, 5, MPI_COMM_WORLD, &pr[0]);
	MPI_Send_init(s, 6, MPI_INT, next, 5, MPI_COMM_WORLD, &pr[1]);
	for (int i = 0; i < 3; i++) {
		MPI_Startall(2, pr);
		MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
	}
	MPI_Start(&pr[0]);
	MPI_Start(&pr[1]);
	MPI_Wait(&pr[0], MPI_STATUS_IGNORE);
	MPI_Wait(&pr[1], MPI_STATUS_IGNORE);
	MPI_Request_free(&pr[0]);
	MPI_Request_free(&pr[1]);

	MPI_Irecv(v, 6, MPI_INT, prev, 6, MPI_COMM_WORLD, &q[0]);
	MPI_Isend(s, 6, MPI_INT, next, 6, MPI_COMM_WORLD, &q[1]);
	do
		MPI_Testany(2, q, &idx, &flag, MPI_STATUS_IGNORE);
	while (!flag);
	MPI_Waitsome(2, q, &out, ind, MPI_STATUSES_IGNORE);
	while (out != MPI_UNDEFINED)
		MPI_Waitsome(2, q, &out, ind, MPI_STATUSES_IGNORE);

	MPI_Irecv(v, 6, MPI_INT, prev, 7, MPI_COMM_WORLD, &q[0]);
	MPI_Isend(s, 6, MPI_INT, next, 7, MPI_COMM_WORLD, &q[1]);
	do
		MPI_Testall(2, q, &flag, MPI_STATUSES_IGNORE);
	while (!flag);

	MPI_Irecv(v, 6, MPI_INT, prev, 8, MPI_COMM_WORLD, &q[0]);
	MPI_Isend(s, 6, MPI_INT, next, 8, MPI_COMM_WORLD, &q[1]);
	MPI_Waitany(2, q, &idx, MPI_STATUS_IGNORE);
	do
		MPI_Test(&q[1 - idx], &flag, MPI_STATUS_IGNORE);
	while (!flag);

	MPI_Finalize();
	return 0;
}
