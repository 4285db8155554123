/*
 * wildtag.c - wildcard receives told apart by their tags (NPB LU's
 * exchanges post MPI_ANY_SOURCE receives of a tag per direction).
 *
 * Rank 0 posts Irecv(MPI_ANY_SOURCE, tag 1) of 100 ints and
 * Irecv(MPI_ANY_SOURCE, tag 2) of 10 ints, enters a barrier and waits
 * for both. Rank 2 sends its 10 ints (tag 2) before the barrier, rank 1
 * its 100 ints (tag 1) after it. With the tags, each receive gets its
 * own message whichever comes first; a trace that keeps neither the
 * sources nor the tags (as a ScalaTrace trace may) leaves only the sizes
 * to tell them apart (test/replay-mpi.bats). Other ranks only take part
 * in the barrier. Needs 3 ranks or more.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int r, p, big[100] = { 0 }, small[10] = { 0 };
	MPI_Request req[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (p < 3) {
		if (r == 0)
			fprintf(stderr, "wildtag: needs 3 ranks or more\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (r == 0) {
		MPI_Irecv(big, 100, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &req[0]);
		MPI_Irecv(small, 10, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &req[1]);
	} else if (r == 2) {
		MPI_Send(small, 10, MPI_INT, 0, 2, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (r == 0)
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	else if (r == 1)
		MPI_Send(big, 100, MPI_INT, 0, 1, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
