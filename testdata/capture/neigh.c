/*
 * neigh.c - capture test: neighbourhood collectives.
 *
 * A periodic 1D ring as a Cartesian communicator (2 neighbours: left,
 * right) and a directed ring as a distributed graph (in: rank-1, out:
 * rank+1). Over the Cartesian one: Neighbor_allgather (3 ints),
 * Neighbor_alltoall (2 doubles), Neighbor_allgatherv (1 int from even
 * ranks, 2 from odd ones),
 * Neighbor_alltoallv (scounts 3,4; rcounts 4,3), Neighbor_alltoallw
 * (4 ints and 2 doubles), and the nonblocking forms of the first two
 * completed by one Waitall; over the graph one: Neighbor_alltoall (5 ints)
 * and Ineighbor_alltoallv/allgatherv/alltoallw (1 neighbour each way).
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int r, p, dims[1], periods[1] = { 1 }, in, out;
	int sbuf[64] = { 0 }, rbuf[64] = { 0 };
	int sc[2] = { 3, 4 }, rc[2] = { 4, 3 }, d[2] = { 0, 16 }, gv[2];
	int wc[2] = { 4, 2 }, one[1] = { 1 }, zero[1] = { 0 };
	MPI_Aint wd[2] = { 0, 128 }, wz[1] = { 0 };
	MPI_Datatype wt[2] = { MPI_INT, MPI_DOUBLE }, it[1] = { MPI_INT };
	MPI_Comm cart, graph;
	MPI_Request req[5];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	dims[0] = p;
	gv[0] = gv[1] = 1 + (r + 1) % 2; /* both neighbours have the other parity */
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
	MPI_Neighbor_allgather(sbuf, 3, MPI_INT, rbuf, 3, MPI_INT, cart);
	MPI_Neighbor_alltoall(sbuf, 2, MPI_DOUBLE, rbuf, 2, MPI_DOUBLE, cart);
	MPI_Neighbor_allgatherv(sbuf, 1 + (r % 2), MPI_INT, rbuf, gv, d, MPI_INT, cart);
	MPI_Neighbor_alltoallv(sbuf, sc, d, MPI_INT, rbuf, rc, d, MPI_INT, cart);
	MPI_Neighbor_alltoallw(sbuf, wc, wd, wt, rbuf, wc, wd, wt, cart);
	MPI_Ineighbor_allgather(sbuf, 3, MPI_INT, rbuf, 3, MPI_INT, cart, &req[0]);
	MPI_Ineighbor_alltoall(sbuf, 2, MPI_DOUBLE, rbuf + 32, 2, MPI_DOUBLE, cart, &req[1]);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);

	in = (r + p - 1) % p;
	out = (r + 1) % p;
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &in, one, 1, &out, one,
				       MPI_INFO_NULL, 0, &graph);
	MPI_Neighbor_alltoall(sbuf, 5, MPI_INT, rbuf, 5, MPI_INT, graph);
	MPI_Ineighbor_alltoallv(sbuf, one, zero, MPI_INT, rbuf, one, zero, MPI_INT, graph, &req[0]);
	MPI_Ineighbor_allgatherv(sbuf, 1, MPI_INT, rbuf + 8, one, zero, MPI_INT, graph, &req[1]);
	MPI_Ineighbor_alltoallw(sbuf, one, wz, it, rbuf + 16, one, wz, it, graph, &req[2]);
	MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
	MPI_Comm_free(&graph);
	MPI_Comm_free(&cart);
	MPI_Finalize();
	return 0;
}
