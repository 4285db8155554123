/*
 * tags.c - message tags that depend on the rank's place in the grid, as
 * NPB BT's do (WEST + jp + kp * NCELLS): ranks on a 2 x P/2 grid of
 * cells exchange with their east and west neighbours (periodic), each
 * message tagged with the sender's cell, and every rank makes the same
 * calls from the same call sites. The call-path and parameter signatures
 * see every rank alike (the relative peers are the same), so a clustered
 * trace keeps the tags only if it keeps each member's own parameters.
 */
#include <mpi.h>
#include <stdio.h>

#define EAST 1000
#define WEST 2000
#define NCELLS 64

int main(int argc, char **argv)
{
	int r, p, cols, row, col, east, west, sum = 0;
	double out[4] = { 1, 2, 3, 4 }, in[2][4];
	MPI_Request rq[4];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	cols = p / 2 > 0 ? p / 2 : 1;
	row = r / cols;
	col = r % cols;
	east = row * cols + (col + 1) % cols;
	west = row * cols + (col + cols - 1) % cols;
	for (int step = 0; step < 5; step++) {
		/* a message from the west neighbour carries its cell */
		int wcol = (col + cols - 1) % cols, ecol = (col + 1) % cols;
		MPI_Irecv(in[0], 4, MPI_DOUBLE, west, EAST + wcol + row * NCELLS, MPI_COMM_WORLD,
			  &rq[0]);
		MPI_Irecv(in[1], 4, MPI_DOUBLE, east, WEST + ecol + row * NCELLS, MPI_COMM_WORLD,
			  &rq[1]);
		MPI_Isend(out, 4, MPI_DOUBLE, east, EAST + col + row * NCELLS, MPI_COMM_WORLD, &rq[2]);
		MPI_Isend(out, 4, MPI_DOUBLE, west, WEST + col + row * NCELLS, MPI_COMM_WORLD, &rq[3]);
		MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
		sum += (int)(in[0][0] + in[1][3]);
	}
	MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (r == 0)
		printf("sum %d\n", sum);
	MPI_Finalize();
	return 0;
}
