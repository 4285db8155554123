/*
 * mprobe.c - capture test: matched probes and receives.
 *
 * Over a communicator with the world ranks reversed (world rank w is rank
 * P-1-w), world ranks 1..P-1 each send w ints with tag 10*w to world rank
 * 0, which takes the messages with Mprobe + Mrecv, an Improbe loop +
 * Imrecv + Wait, and Mprobe + Mrecv again, all from MPI_ANY_SOURCE; then
 * Mprobe + Mrecv from MPI_PROC_NULL. Needs at least 4 ranks.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int r, p, buf[64] = { 0 }, flag = 0;
	MPI_Comm rev;
	MPI_Message msg;
	MPI_Request req;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - r, &rev);
	if (r == 0) {
		MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, rev, &msg, &st);
		MPI_Mrecv(buf, 64, MPI_INT, &msg, &st);
		while (!flag)
			MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, rev, &flag, &msg, &st);
		MPI_Imrecv(buf, 64, MPI_INT, &msg, &req);
		MPI_Wait(&req, &st);
		MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, rev, &msg, MPI_STATUS_IGNORE);
		MPI_Mrecv(buf, 64, MPI_INT, &msg, MPI_STATUS_IGNORE);
		MPI_Mprobe(MPI_PROC_NULL, 5, rev, &msg, &st);
		MPI_Mrecv(buf, 64, MPI_INT, &msg, &st);
	} else if (r < 4) {
		MPI_Send(buf, r, MPI_INT, p - 1, 10 * r, rev);
	}
	MPI_Comm_free(&rev);
	MPI_Finalize();
	return 0;
}
