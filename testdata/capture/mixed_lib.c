/* mixed_lib.c - the C half of mixed.f90: one exchange with tag 2. */
#include <mpi.h>

void c_exchange(int next, int prev)
{
	int r, s[4] = { 0 }, v[4];

	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	if (r % 2 == 0) {
		MPI_Send(s, 4, MPI_INT, next, 2, MPI_COMM_WORLD);
		MPI_Recv(v, 4, MPI_INT, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(v, 4, MPI_INT, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(s, 4, MPI_INT, next, 2, MPI_COMM_WORLD);
	}
}
