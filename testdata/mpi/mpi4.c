/*
 * mpi4.c - the MPI-4 calls the capture shim records, on 4 ranks (needs an
 * MPI-4 library: built with MPICH only): partitioned communication around
 * a ring, the persistent collectives started twice each, Isendrecv and
 * Isendrecv_replace, Comm_idup_with_info, Comm_create_from_group,
 * Intercomm_create_from_groups and a few large-count _c calls.
 * test/capture-mpich.bats checks the trace.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 8      /* elements per partition */
#define PARTS 4  /* partitions */

/* Start and Wait a persistent request twice, then free it */
static void run(MPI_Request *req)
{
	for (int i = 0; i < 2; i++) {
		MPI_Start(req);
		MPI_Wait(req, MPI_STATUS_IGNORE);
	}
	MPI_Request_free(req);
}

static void partitioned(int next, int prev)
{
	int sbuf[PARTS * N], rbuf[PARTS * N], list[1] = { 3 }, flag;
	MPI_Request sreq, rreq;

	for (int i = 0; i < PARTS * N; i++)
		sbuf[i] = i;
	MPI_Psend_init(sbuf, PARTS, N, MPI_INT, next, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq);
	MPI_Precv_init(rbuf, PARTS, N, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq);
	MPI_Start(&rreq);
	MPI_Start(&sreq);
	MPI_Pready(0, sreq);
	MPI_Pready_range(1, 2, sreq);
	MPI_Pready_list(1, list, sreq);
	MPI_Parrived(rreq, 0, &flag); /* arrived or not: once, not polled */
	MPI_Wait(&sreq, MPI_STATUS_IGNORE);
	MPI_Wait(&rreq, MPI_STATUS_IGNORE);
	MPI_Request_free(&sreq);
	MPI_Request_free(&rreq);
}

static void persistent_collectives(MPI_Comm ring)
{
	int a[16] = { 0 }, b[16] = { 0 }, c[4] = { 1, 1, 1, 1 }, d[4] = { 0, 1, 2, 3 };
	int bd[4] = { 0, 4, 8, 12 };       /* byte displacements */
	MPI_Aint ad[4] = { 0, 4, 8, 12 };
	MPI_Datatype t[4] = { MPI_INT, MPI_INT, MPI_INT, MPI_INT };
	MPI_Comm w = MPI_COMM_WORLD;
	MPI_Info in = MPI_INFO_NULL;
	MPI_Request r;

	MPI_Barrier_init(w, in, &r), run(&r);
	MPI_Bcast_init(a, 3, MPI_INT, 1, w, in, &r), run(&r);
	MPI_Reduce_init(a, b, 2, MPI_INT, MPI_SUM, 2, w, in, &r), run(&r);
	MPI_Allreduce_init(a, b, 4, MPI_INT, MPI_MAX, w, in, &r), run(&r);
	MPI_Reduce_scatter_init(a, b, c, MPI_INT, MPI_SUM, w, in, &r), run(&r);
	MPI_Reduce_scatter_block_init(a, b, 1, MPI_INT, MPI_SUM, w, in, &r), run(&r);
	MPI_Scan_init(a, b, 2, MPI_INT, MPI_SUM, w, in, &r), run(&r);
	MPI_Exscan_init(a, b, 2, MPI_INT, MPI_SUM, w, in, &r), run(&r);
	MPI_Gather_init(a, 1, MPI_INT, b, 1, MPI_INT, 0, w, in, &r), run(&r);
	MPI_Gatherv_init(a, 1, MPI_INT, b, c, d, MPI_INT, 3, w, in, &r), run(&r);
	/* MPI_Scatter_init: MPICH 4.0.2 fails its first wait (Invalid communicator) */
	MPI_Scatterv_init(a, c, d, MPI_INT, b, 1, MPI_INT, 2, w, in, &r), run(&r);
	MPI_Allgather_init(a, 1, MPI_INT, b, 1, MPI_INT, w, in, &r), run(&r);
	MPI_Allgatherv_init(a, 1, MPI_INT, b, c, d, MPI_INT, w, in, &r), run(&r);
	MPI_Alltoall_init(a, 1, MPI_INT, b, 1, MPI_INT, w, in, &r), run(&r);
	MPI_Alltoallv_init(a, c, d, MPI_INT, b, c, d, MPI_INT, w, in, &r), run(&r);
	MPI_Alltoallw_init(a, c, bd, t, b, c, bd, t, w, in, &r), run(&r);
	/* on a periodic ring: two neighbours */
	MPI_Neighbor_allgather_init(a, 2, MPI_INT, b, 2, MPI_INT, ring, in, &r), run(&r);
	MPI_Neighbor_allgatherv_init(a, 1, MPI_INT, b, c, d, MPI_INT, ring, in, &r), run(&r);
	MPI_Neighbor_alltoall_init(a, 2, MPI_INT, b, 2, MPI_INT, ring, in, &r), run(&r);
	MPI_Neighbor_alltoallv_init(a, c, d, MPI_INT, b, c, d, MPI_INT, ring, in, &r), run(&r);
	MPI_Neighbor_alltoallw_init(a, c, ad, t, b, c, ad, t, ring, in, &r), run(&r);
}

int main(int argc, char **argv)
{
	int rank, size, next, prev, x[4] = { 0 }, y[4] = { 0 }, periods = 1;
	MPI_Comm ring, dup, fromg, inter;
	MPI_Group world, mine, other;
	MPI_Request req;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 4) {
		if (rank == 0)
			fprintf(stderr, "mpi4: run on 4 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	next = (rank + 1) % size;
	prev = (rank + size - 1) % size;

	partitioned(next, prev);

	MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periods, 0, &ring);
	persistent_collectives(ring);

	x[0] = rank;
	MPI_Isendrecv(x, 4, MPI_INT, next, 7, y, 4, MPI_INT, prev, 7, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Isendrecv_replace(x, 2, MPI_INT, prev, 8, next, 8, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);

	MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &dup, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Barrier(dup);

	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Comm_create_from_group(world, "tracecluster.mpi4", MPI_INFO_NULL, MPI_ERRORS_RETURN,
				   &fromg);
	MPI_Allreduce(x, y, 1, MPI_INT, MPI_SUM, fromg);

	/* even and odd ranks, leaders world ranks 0 and 1 */
	{
		int ev[2] = { 0, 2 }, od[2] = { 1, 3 };
		MPI_Group_incl(world, 2, rank % 2 ? od : ev, &mine);
		MPI_Group_incl(world, 2, rank % 2 ? ev : od, &other);
	}
	MPI_Intercomm_create_from_groups(mine, 0, other, 0, "tracecluster.mpi4.inter",
					 MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter);
	MPI_Barrier(inter);

	/* large-count forms */
	MPI_Sendrecv_replace(x, 1, MPI_INT, next, 9, prev, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (rank % 2 == 0)
		MPI_Send_c(x, (MPI_Count)3, MPI_INT, next, 10, MPI_COMM_WORLD);
	else
		MPI_Recv_c(y, (MPI_Count)3, MPI_INT, prev, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Allreduce_c(x, y, (MPI_Count)2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

	MPI_Comm_free(&inter);
	MPI_Comm_free(&fromg);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&ring);
	MPI_Group_free(&mine);
	MPI_Group_free(&other);
	MPI_Group_free(&world);
	if (rank == 0)
		printf("mpi4: done\n");
	MPI_Finalize();
	return 0;
}
