/*
 * topo.c - neighbourhood collectives on a Cartesian grid, its sub-grids,
 * and the communicators made by a nonblocking dup and by group.
 *
 * On P ranks (even, at least 4): a 2 x P/2 grid, periodic in its first
 * dimension only, with every blocking and nonblocking neighbourhood
 * collective (counts that depend on the dimension); its rows
 * and columns (Cart_sub), an Allreduce on each and a Neighbor_alltoall on
 * the columns; a Comm_idup of the world with a Barrier on it; the even
 * ranks' Comm_create_group (tag 5) with a Bcast on it.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int r, p, dims[2], periods[2] = { 1, 0 }, keep[2];
	int sbuf[256] = { 0 }, rbuf[256] = { 0 }, sc[4], rc[4], d[4], nd;
	MPI_Aint wd[4];
	MPI_Datatype wt[4];
	MPI_Comm cart, row, col, dup, evens;
	MPI_Group world, eg;
	MPI_Request req[5];
	int *ev;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (p < 4 || p % 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	dims[0] = 2;
	dims[1] = p / 2;
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
	/* four neighbours; the counts of a dimension are its number */
	for (nd = 0; nd < 4; nd++) {
		sc[nd] = rc[nd] = 1 + nd / 2;
		d[nd] = 8 * nd;
		wd[nd] = 32 * nd;
		wt[nd] = MPI_INT;
	}
	MPI_Neighbor_allgather(sbuf, 3, MPI_INT, rbuf, 3, MPI_INT, cart);
	MPI_Neighbor_alltoall(sbuf, 3, MPI_DOUBLE, rbuf, 3, MPI_DOUBLE, cart);
	MPI_Neighbor_allgatherv(sbuf, 2, MPI_INT, rbuf, (int[4]){ 2, 2, 2, 2 }, d, MPI_INT, cart);
	MPI_Neighbor_alltoallv(sbuf, sc, d, MPI_INT, rbuf, rc, d, MPI_INT, cart);
	MPI_Neighbor_alltoallw(sbuf, sc, wd, wt, rbuf, rc, wd, wt, cart);
	MPI_Ineighbor_allgather(sbuf, 4, MPI_INT, rbuf, 4, MPI_INT, cart, &req[0]);
	MPI_Ineighbor_alltoall(sbuf, 1, MPI_INT, rbuf + 32, 1, MPI_INT, cart, &req[1]);
	MPI_Ineighbor_allgatherv(sbuf, 1, MPI_INT, rbuf + 64, (int[4]){ 1, 1, 1, 1 }, d, MPI_INT,
				 cart, &req[2]);
	MPI_Ineighbor_alltoallv(sbuf, sc, d, MPI_INT, rbuf + 96, rc, d, MPI_INT, cart, &req[3]);
	MPI_Ineighbor_alltoallw(sbuf, sc, wd, wt, rbuf + 128, rc, wd, wt, cart, &req[4]);
	MPI_Waitall(5, req, MPI_STATUSES_IGNORE);

	keep[0] = 0;
	keep[1] = 1;
	MPI_Cart_sub(cart, keep, &row);
	keep[0] = 1;
	keep[1] = 0;
	MPI_Cart_sub(cart, keep, &col);
	MPI_Allreduce(sbuf, rbuf, 3, MPI_INT, MPI_SUM, row);
	MPI_Allreduce(sbuf, rbuf, 5, MPI_INT, MPI_MAX, col);
	MPI_Neighbor_alltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, col);

	MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	MPI_Barrier(dup);

	if (r % 2 == 0) {
		ev = malloc((size_t)(p / 2) * sizeof(*ev));
		for (nd = 0; nd < p / 2; nd++)
			ev[nd] = 2 * nd;
		MPI_Comm_group(MPI_COMM_WORLD, &world);
		MPI_Group_incl(world, p / 2, ev, &eg);
		MPI_Comm_create_group(MPI_COMM_WORLD, eg, 5, &evens);
		MPI_Bcast(sbuf, 7, MPI_INT, 1, evens);
		MPI_Comm_free(&evens);
		MPI_Group_free(&eg);
		MPI_Group_free(&world);
		free(ev);
	}
	MPI_Comm_free(&dup);
	MPI_Comm_free(&col);
	MPI_Comm_free(&row);
	MPI_Comm_free(&cart);
	MPI_Finalize();
	return 0;
}
