/*
 * anysrc.c - capture test: wildcard receives.
 *
 * Every rank s > 0 sends s ints with tag 10*s to rank 0 three times:
 * rank 0 takes the first with Recv(MPI_ANY_SOURCE, MPI_ANY_TAG), the
 * second with Irecv(MPI_ANY_SOURCE) + Waitall, the third after
 * Probe(MPI_ANY_SOURCE) and an Iprobe loop.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int r, p, buf[64] = { 0 }, flag, n;
	MPI_Status st;
	MPI_Request *req;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	req = malloc(sizeof(MPI_Request) * (size_t)p);
	if (r == 0) {
		for (int i = 1; i < p; i++)
			MPI_Recv(buf, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		MPI_Barrier(MPI_COMM_WORLD);
		for (int i = 1; i < p; i++)
			MPI_Irecv(buf, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
				  &req[i - 1]);
		MPI_Waitall(p - 1, req, MPI_STATUSES_IGNORE);
		MPI_Barrier(MPI_COMM_WORLD);
		for (int i = 1; i < p; i++) {
			if (i % 2) {
				MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			} else {
				do
					MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
						   &st);
				while (!flag);
			}
			MPI_Get_count(&st, MPI_INT, &n);
			MPI_Recv(buf, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		}
	} else {
		MPI_Send(buf, r, MPI_INT, 0, 10 * r, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Send(buf, r, MPI_INT, 0, 10 * r, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Send(buf, r, MPI_INT, 0, 10 * r, MPI_COMM_WORLD);
	}
	free(req);
	MPI_Finalize();
	return 0;
}
