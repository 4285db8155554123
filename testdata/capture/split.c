/*
 * split.c - capture test: communicator management.
 *
 * Comm_split by parity with key -rank (so sub-ranks run in reverse world
 * order), a ring Send/Recv inside the split communicator (peers must be
 * recorded as world ranks), Comm_dup, Comm_create of world ranks {0,1,2},
 * Comm_split_type, a 2x2 Cart_create periodic in dimension 0, and frees.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int r, p, sr, sp, v = 0, w;
	MPI_Comm sub, dup, made, node, cart;
	MPI_Group wg, g;
	int ranks[3] = { 0, 1, 2 }, dims[2] = { 2, 2 }, periods[2] = { 1, 0 };

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);

	MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &sub);
	MPI_Comm_rank(sub, &sr);
	MPI_Comm_size(sub, &sp);
	if (sr % 2 == 0) {
		MPI_Send(&v, 1, MPI_INT, (sr + 1) % sp, 42, sub);
		MPI_Recv(&w, 1, MPI_INT, (sr + sp - 1) % sp, 42, sub, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(&w, 1, MPI_INT, (sr + sp - 1) % sp, 42, sub, MPI_STATUS_IGNORE);
		MPI_Send(&v, 1, MPI_INT, (sr + 1) % sp, 42, sub);
	}
	MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, sub);

	MPI_Comm_dup(sub, &dup);
	MPI_Barrier(dup);

	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	MPI_Group_incl(wg, 3, ranks, &g);
	MPI_Comm_create(MPI_COMM_WORLD, g, &made);
	if (made != MPI_COMM_NULL) {
		MPI_Bcast(&v, 1, MPI_INT, 2, made);
		MPI_Comm_free(&made);
	}
	MPI_Group_free(&g);
	MPI_Group_free(&wg);

	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &node);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
	if (cart != MPI_COMM_NULL)
		MPI_Comm_free(&cart);
	MPI_Comm_free(&node);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&sub);
	MPI_Finalize();
	return 0;
}
