/*
 * split.c - communicator creation with rank-dependent parameters, as NPB
 * FT does: every rank splits MPI_COMM_WORLD with its own colour (its world
 * rank) and key (minus its rank), then again by rank mod 2, and every
 * rank runs the same calls from the same call sites, so the call-path
 * signatures see one cluster whose members differ from the lead only in
 * colour and key. An Allreduce on each new communicator and a ring
 * exchange on MPI_COMM_WORLD follow.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int r, p, v, w = 0, s;
	MPI_Comm own, half;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	v = r;
	MPI_Comm_split(MPI_COMM_WORLD, r, -r, &own);
	MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, own);
	MPI_Comm_split(MPI_COMM_WORLD, r % 2, r / 2, &half);
	MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, half);
	for (int i = 0; i < 3; i++)
		MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % p, 7, &s, 1, MPI_INT, (r + p - 1) % p, 7,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Comm_free(&half);
	MPI_Comm_free(&own);
	MPI_Finalize();
	return 0;
}
