/*
 * large.c - capture test: the MPI-4 large-count (_c) functions, where the
 * MPI library has them (MPI_VERSION >= 4; else it only prints so).
 *
 * A ring over a communicator with the world ranks reversed (world rank w
 * is rank P-1-w): Isend_c of 5 ints to the next rank (tag 4), Recv_c from
 * the previous one, Wait; Send_c / Irecv_c + Wait the other way round
 * (tag 6, 3 doubles); then Bcast_c (7 ints, root rank 1), Allreduce_c
 * (2 doubles, MPI_SUM), Reduce_c (1 int, MPI_MAX, root rank 0),
 * Allgather_c (1 int), Alltoall_c (2 ints), Iallreduce_c + Wait; and a
 * Put_c of 4 ints at displacement 3 of the next rank's window (made by
 * Win_create_c) between two fences. Then to the next rank and from the
 * previous one: Sendrecv_c (2 ints, tag 11), Sendrecv_replace_c (3, tag
 * 12), Isendrecv_c (4, tag 13) and Isendrecv_replace_c (5, tag 14), each
 * with its Wait; Isend_c of 6 ints (tag 15) received by Mprobe and
 * Mrecv_c, of 7 (tag 16) by Mprobe and Imrecv_c; the persistent
 * Allreduce_init_c (3 doubles), Bcast_init_c (9 ints, root rank 2) and
 * Gather_init_c (2 ints, root rank 3), each started and waited for twice,
 * then freed. With a file name argument: File_write_at_c of 4 ints at
 * int 16 * rank, File_read_at_c of them, File_iwrite_at_c of 2 ints after
 * them and its Wait, then fpairs() on the file. Then vectors(): each v-
 * and w-collective and each accumulate, first in its int form, then in
 * its _c form with the same counts (see there), and pairs(): every other
 * large-count function likewise. Each op called in pairs() or fpairs()
 * (or vectors()) is called nowhere else here: its events are the int
 * forms' followed by as many of the _c forms', equal but for call site
 * and request. Last, another MPI-4 pair: MPI_Session_init and
 * MPI_Session_finalize.
 */
#include <mpi.h>
#include <stdio.h>

#if MPI_VERSION >= 4
/* the persistent request *q started and completed once, then freed */
static void once(MPI_Request *q)
{
	MPI_Start(q);
	MPI_Wait(q, MPI_STATUS_IGNORE);
	MPI_Request_free(q);
}

/*
 * On rev (rank r of p = 4), each call in its int form and then in its _c
 * form, the same counts: Gatherv (rank r sends r+1 ints, root rank 1
 * receives i+1 from rank i), Scatterv (root rank 2, the same counts),
 * Allgatherv (the same), Alltoallv (r+j+1 ints from rank r to rank j),
 * Alltoallw (the same in MPI_INTs), Reduce_scatter (i+1 ints to rank i,
 * MPI_SUM); their I-forms, each with its Wait, and their _init forms, each
 * started, waited for and freed; on a periodic ring of rev, the same of
 * Neighbor_allgatherv (2 ints to each neighbour), Neighbor_alltoallv and
 * Neighbor_alltoallw (1 int to the left, 2 to the right). Then in a
 * lock_all epoch on the next rank's window: Accumulate (2 ints at 5,
 * MPI_SUM), Get_accumulate (2 at 9, MPI_MAX), Raccumulate (3 at 12,
 * MPI_REPLACE) and Rget_accumulate (4 at 20, MPI_NO_OP), the request ones
 * waited for.
 */
static void vectors(MPI_Comm rev, int r, int n)
{
	int sb[64] = { 0 }, rb[64] = { 0 }, wb[64] = { 0 }, ic[4], id[4], is[4], ir[4], iw[4];
	MPI_Count cc[4], cs[4], cr[4];
	MPI_Aint ad[4], aw[4];
	MPI_Datatype ty[4] = { MPI_INT, MPI_INT, MPI_INT, MPI_INT };
	int nic[2] = { 2, 2 }, nis[2] = { 1, 2 }, nir[2] = { 2, 1 }, nid[2] = { 0, 8 };
	MPI_Count ncc[2] = { 2, 2 }, ncs[2] = { 1, 2 }, ncr[2] = { 2, 1 };
	MPI_Aint nad[2] = { 0, 8 }, naw[2] = { 0, 32 };
	int dims[1] = { 4 }, periods[1] = { 1 };
	MPI_Comm ring;
	MPI_Request q;
	MPI_Win win;

	for (int i = 0; i < 4; i++) {
		ic[i] = i + 1, cc[i] = i + 1;
		is[i] = ir[i] = r + i + 1, cs[i] = cr[i] = r + i + 1;
		id[i] = 8 * i, ad[i] = 8 * i;
		iw[i] = 32 * i, aw[i] = 32 * i;
	}
	MPI_Gatherv(sb, r + 1, MPI_INT, rb, ic, id, MPI_INT, 1, rev);
	MPI_Gatherv_c(sb, r + 1, MPI_INT, rb, cc, ad, MPI_INT, 1, rev);
	MPI_Scatterv(sb, ic, id, MPI_INT, rb, r + 1, MPI_INT, 2, rev);
	MPI_Scatterv_c(sb, cc, ad, MPI_INT, rb, r + 1, MPI_INT, 2, rev);
	MPI_Allgatherv(sb, r + 1, MPI_INT, rb, ic, id, MPI_INT, rev);
	MPI_Allgatherv_c(sb, r + 1, MPI_INT, rb, cc, ad, MPI_INT, rev);
	MPI_Alltoallv(sb, is, id, MPI_INT, rb, ir, id, MPI_INT, rev);
	MPI_Alltoallv_c(sb, cs, ad, MPI_INT, rb, cr, ad, MPI_INT, rev);
	MPI_Alltoallw(sb, is, iw, ty, rb, ir, iw, ty, rev);
	MPI_Alltoallw_c(sb, cs, aw, ty, rb, cr, aw, ty, rev);
	MPI_Reduce_scatter(sb, rb, ic, MPI_INT, MPI_SUM, rev);
	MPI_Reduce_scatter_c(sb, rb, cc, MPI_INT, MPI_SUM, rev);

	MPI_Igatherv(sb, r + 1, MPI_INT, rb, ic, id, MPI_INT, 1, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Igatherv_c(sb, r + 1, MPI_INT, rb, cc, ad, MPI_INT, 1, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iscatterv(sb, ic, id, MPI_INT, rb, r + 1, MPI_INT, 2, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iscatterv_c(sb, cc, ad, MPI_INT, rb, r + 1, MPI_INT, 2, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iallgatherv(sb, r + 1, MPI_INT, rb, ic, id, MPI_INT, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Iallgatherv_c(sb, r + 1, MPI_INT, rb, cc, ad, MPI_INT, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ialltoallv(sb, is, id, MPI_INT, rb, ir, id, MPI_INT, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ialltoallv_c(sb, cs, ad, MPI_INT, rb, cr, ad, MPI_INT, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ialltoallw(sb, is, iw, ty, rb, ir, iw, ty, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ialltoallw_c(sb, cs, aw, ty, rb, cr, aw, ty, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ireduce_scatter(sb, rb, ic, MPI_INT, MPI_SUM, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ireduce_scatter_c(sb, rb, cc, MPI_INT, MPI_SUM, rev, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);

	MPI_Gatherv_init(sb, r + 1, MPI_INT, rb, ic, id, MPI_INT, 1, rev, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Gatherv_init_c(sb, r + 1, MPI_INT, rb, cc, ad, MPI_INT, 1, rev, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Scatterv_init(sb, ic, id, MPI_INT, rb, r + 1, MPI_INT, 2, rev, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Scatterv_init_c(sb, cc, ad, MPI_INT, rb, r + 1, MPI_INT, 2, rev, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Allgatherv_init(sb, r + 1, MPI_INT, rb, ic, id, MPI_INT, rev, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Allgatherv_init_c(sb, r + 1, MPI_INT, rb, cc, ad, MPI_INT, rev, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Alltoallv_init(sb, is, id, MPI_INT, rb, ir, id, MPI_INT, rev, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Alltoallv_init_c(sb, cs, ad, MPI_INT, rb, cr, ad, MPI_INT, rev, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Alltoallw_init(sb, is, iw, ty, rb, ir, iw, ty, rev, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Alltoallw_init_c(sb, cs, aw, ty, rb, cr, aw, ty, rev, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Reduce_scatter_init(sb, rb, ic, MPI_INT, MPI_SUM, rev, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Reduce_scatter_init_c(sb, rb, cc, MPI_INT, MPI_SUM, rev, MPI_INFO_NULL, &q);
	once(&q);

	MPI_Cart_create(rev, 1, dims, periods, 0, &ring);
	MPI_Neighbor_allgatherv(sb, 2, MPI_INT, rb, nic, nid, MPI_INT, ring);
	MPI_Neighbor_allgatherv_c(sb, 2, MPI_INT, rb, ncc, nad, MPI_INT, ring);
	MPI_Neighbor_alltoallv(sb, nis, nid, MPI_INT, rb, nir, nid, MPI_INT, ring);
	MPI_Neighbor_alltoallv_c(sb, ncs, nad, MPI_INT, rb, ncr, nad, MPI_INT, ring);
	MPI_Neighbor_alltoallw(sb, nis, naw, ty, rb, nir, naw, ty, ring);
	MPI_Neighbor_alltoallw_c(sb, ncs, naw, ty, rb, ncr, naw, ty, ring);
	MPI_Ineighbor_allgatherv(sb, 2, MPI_INT, rb, nic, nid, MPI_INT, ring, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ineighbor_allgatherv_c(sb, 2, MPI_INT, rb, ncc, nad, MPI_INT, ring, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ineighbor_alltoallv(sb, nis, nid, MPI_INT, rb, nir, nid, MPI_INT, ring, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ineighbor_alltoallv_c(sb, ncs, nad, MPI_INT, rb, ncr, nad, MPI_INT, ring, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ineighbor_alltoallw(sb, nis, naw, ty, rb, nir, naw, ty, ring, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Ineighbor_alltoallw_c(sb, ncs, naw, ty, rb, ncr, naw, ty, ring, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Neighbor_allgatherv_init(sb, 2, MPI_INT, rb, nic, nid, MPI_INT, ring, MPI_INFO_NULL,
				     &q);
	once(&q);
	MPI_Neighbor_allgatherv_init_c(sb, 2, MPI_INT, rb, ncc, nad, MPI_INT, ring, MPI_INFO_NULL,
				       &q);
	once(&q);
	MPI_Neighbor_alltoallv_init(sb, nis, nid, MPI_INT, rb, nir, nid, MPI_INT, ring,
				    MPI_INFO_NULL, &q);
	once(&q);
	MPI_Neighbor_alltoallv_init_c(sb, ncs, nad, MPI_INT, rb, ncr, nad, MPI_INT, ring,
				      MPI_INFO_NULL, &q);
	once(&q);
	MPI_Neighbor_alltoallw_init(sb, nis, naw, ty, rb, nir, naw, ty, ring, MPI_INFO_NULL, &q);
	once(&q);
	MPI_Neighbor_alltoallw_init_c(sb, ncs, naw, ty, rb, ncr, naw, ty, ring, MPI_INFO_NULL,
				      &q);
	once(&q);
	MPI_Comm_free(&ring);

	MPI_Win_create(wb, sizeof(wb), sizeof(int), MPI_INFO_NULL, rev, &win);
	MPI_Win_lock_all(0, win);
	MPI_Accumulate(sb, 2, MPI_INT, n, 5, 2, MPI_INT, MPI_SUM, win);
	MPI_Accumulate_c(sb, 2, MPI_INT, n, 5, 2, MPI_INT, MPI_SUM, win);
	MPI_Get_accumulate(sb, 2, MPI_INT, rb, 2, MPI_INT, n, 9, 2, MPI_INT, MPI_MAX, win);
	MPI_Get_accumulate_c(sb, 2, MPI_INT, rb, 2, MPI_INT, n, 9, 2, MPI_INT, MPI_MAX, win);
	MPI_Raccumulate(sb, 3, MPI_INT, n, 12, 3, MPI_INT, MPI_REPLACE, win, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Raccumulate_c(sb, 3, MPI_INT, n, 12, 3, MPI_INT, MPI_REPLACE, win, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Rget_accumulate(NULL, 0, MPI_INT, rb, 4, MPI_INT, n, 20, 4, MPI_INT, MPI_NO_OP, win,
			    &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Rget_accumulate_c(NULL, 0, MPI_INT, rb, 4, MPI_INT, n, 20, 4, MPI_INT, MPI_NO_OP, win,
			      &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
}
/* each call of the int form x, then of its _c form xc, on the same arguments */
#define BOTH(x, xc, ...) \
	do {             \
		x(__VA_ARGS__);  \
		xc(__VA_ARGS__); \
	} while (0)
/* x or, where c, xc, on the same arguments */
#define EITHER(c, x, xc, ...) ((c) ? xc(__VA_ARGS__) : x(__VA_ARGS__))
/* the same, each completing its request *q */
#define BOTH_WAIT(x, xc, q, ...)                \
	do {                                    \
		x(__VA_ARGS__);                 \
		MPI_Wait(q, MPI_STATUS_IGNORE); \
		xc(__VA_ARGS__);                \
		MPI_Wait(q, MPI_STATUS_IGNORE); \
	} while (0)
/* the same, starting the persistent request *q once and freeing it */
#define BOTH_ONCE(x, xc, q, ...) \
	do {                     \
		x(__VA_ARGS__);  \
		once(q);         \
		xc(__VA_ARGS__); \
		once(q);         \
	} while (0)

/*
 * On rev (rank r of p = 4, n the next rank, pr the previous one), each
 * remaining large-count function after its int form with the same
 * arguments. To n, from pr (the receive posted first): Bsend (2 ints,
 * tag 21), Ssend (3, tag 22), Rsend (4, tag 23); Ibsend, Issend and
 * Irsend (5, 6, 7 ints, tags 24-26) and Send_init, Bsend_init,
 * Ssend_init and Rsend_init (8-11 ints, tags 27-30) received by Recv_init
 * (each started once). Collectives: Gather (2 ints, root 1), Scatter (3,
 * root 2), Scan and Exscan (4 and 5 ints, MPI_SUM), Reduce_scatter_block
 * (2 ints a rank, MPI_MAX); Igather (1, root 3), Iscatter (2, root 0),
 * Iallgather (3), Ialltoall (1), Ibcast (6, root 3), Ireduce (7, MPI_SUM,
 * root 2), Iscan (2), Iexscan (3), Ireduce_scatter_block (1 a rank), each
 * waited for; the _init forms Allgather_init (2), Alltoall_init (1),
 * Reduce_init (3, MPI_MIN, root 1), Scan_init (4), Exscan_init (5),
 * Scatter_init (2, root 3), Reduce_scatter_block_init (3 a rank); on a
 * periodic ring of rev, Neighbor_allgather (2 ints), Neighbor_alltoall
 * (1 int), their I-forms and _init forms. In a lock_all epoch on the next
 * rank's window: Get (2 ints at 4), Rget (3 at 8), Rput (4 at 16), the
 * request ones waited for. Win_allocate (64 bytes, unit 4) and
 * Win_allocate_shared (32 bytes, unit 8), each window freed.
 */
static void pairs(MPI_Comm rev, int r, int n, int pr)
{
	int sb[64] = { 0 }, rb[64] = { 0 }, wb[64] = { 0 }, dims[1] = { 4 }, periods[1] = { 1 };
	static char bbuf[4096];
	void *bp, *base;
	int bsize;
	MPI_Comm ring;
	MPI_Request q, rq;
	MPI_Win win;

	MPI_Buffer_attach(bbuf, sizeof(bbuf));
	MPI_Irecv(rb, 2, MPI_INT, pr, 21, rev, &rq);
	MPI_Bsend(sb, 2, MPI_INT, n, 21, rev);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	MPI_Irecv(rb, 2, MPI_INT, pr, 21, rev, &rq);
	MPI_Bsend_c(sb, 2, MPI_INT, n, 21, rev);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	for (int c = 0; c < 2; c++) {
		MPI_Irecv(rb, 3, MPI_INT, pr, 22, rev, &rq);
		EITHER(c, MPI_Ssend, MPI_Ssend_c, sb, 3, MPI_INT, n, 22, rev);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		MPI_Irecv(rb, 4, MPI_INT, pr, 23, rev, &rq);
		MPI_Barrier(rev);
		EITHER(c, MPI_Rsend, MPI_Rsend_c, sb, 4, MPI_INT, n, 23, rev);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	}
	for (int c = 0; c < 2; c++) {
		MPI_Irecv(rb, 5, MPI_INT, pr, 24, rev, &rq);
		EITHER(c, MPI_Ibsend, MPI_Ibsend_c, sb, 5, MPI_INT, n, 24, rev, &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		MPI_Irecv(rb, 6, MPI_INT, pr, 25, rev, &rq);
		EITHER(c, MPI_Issend, MPI_Issend_c, sb, 6, MPI_INT, n, 25, rev, &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		MPI_Irecv(rb, 7, MPI_INT, pr, 26, rev, &rq);
		MPI_Barrier(rev);
		EITHER(c, MPI_Irsend, MPI_Irsend_c, sb, 7, MPI_INT, n, 26, rev, &q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	}
	for (int c = 0; c < 2; c++) {
		int (*sinit[4])(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm,
				MPI_Request *) = { MPI_Send_init_c, MPI_Bsend_init_c,
						   MPI_Ssend_init_c, MPI_Rsend_init_c };
		int (*iinit[4])(const void *, int, MPI_Datatype, int, int, MPI_Comm,
				MPI_Request *) = { MPI_Send_init, MPI_Bsend_init, MPI_Ssend_init,
						   MPI_Rsend_init };

		for (int k = 0; k < 4; k++) {
			if (c)
				MPI_Recv_init_c(rb, 8 + k, MPI_INT, pr, 27 + k, rev, &rq);
			else
				MPI_Recv_init(rb, 8 + k, MPI_INT, pr, 27 + k, rev, &rq);
			MPI_Start(&rq);
			MPI_Barrier(rev);
			if (c)
				sinit[k](sb, 8 + k, MPI_INT, n, 27 + k, rev, &q);
			else
				iinit[k](sb, 8 + k, MPI_INT, n, 27 + k, rev, &q);
			once(&q);
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
			MPI_Request_free(&rq);
		}
	}
	MPI_Buffer_detach(&bp, &bsize);

	BOTH(MPI_Gather, MPI_Gather_c, sb, 2, MPI_INT, rb, 2, MPI_INT, 1, rev);
	BOTH(MPI_Scatter, MPI_Scatter_c, sb, 3, MPI_INT, rb, 3, MPI_INT, 2, rev);
	BOTH(MPI_Scan, MPI_Scan_c, sb, rb, 4, MPI_INT, MPI_SUM, rev);
	BOTH(MPI_Exscan, MPI_Exscan_c, sb, rb, 5, MPI_INT, MPI_SUM, rev);
	BOTH(MPI_Reduce_scatter_block, MPI_Reduce_scatter_block_c, sb, rb, 2, MPI_INT, MPI_MAX,
	     rev);
	BOTH_WAIT(MPI_Igather, MPI_Igather_c, &q, sb, 1, MPI_INT, rb, 1, MPI_INT, 3, rev, &q);
	BOTH_WAIT(MPI_Iscatter, MPI_Iscatter_c, &q, sb, 2, MPI_INT, rb, 2, MPI_INT, 0, rev, &q);
	BOTH_WAIT(MPI_Iallgather, MPI_Iallgather_c, &q, sb, 3, MPI_INT, rb, 3, MPI_INT, rev, &q);
	BOTH_WAIT(MPI_Ialltoall, MPI_Ialltoall_c, &q, sb, 1, MPI_INT, rb, 1, MPI_INT, rev, &q);
	BOTH_WAIT(MPI_Ibcast, MPI_Ibcast_c, &q, sb, 6, MPI_INT, 3, rev, &q);
	BOTH_WAIT(MPI_Ireduce, MPI_Ireduce_c, &q, sb, rb, 7, MPI_INT, MPI_SUM, 2, rev, &q);
	BOTH_WAIT(MPI_Iscan, MPI_Iscan_c, &q, sb, rb, 2, MPI_INT, MPI_SUM, rev, &q);
	BOTH_WAIT(MPI_Iexscan, MPI_Iexscan_c, &q, sb, rb, 3, MPI_INT, MPI_SUM, rev, &q);
	BOTH_WAIT(MPI_Ireduce_scatter_block, MPI_Ireduce_scatter_block_c, &q, sb, rb, 1, MPI_INT,
		  MPI_SUM, rev, &q);
	BOTH_ONCE(MPI_Allgather_init, MPI_Allgather_init_c, &q, sb, 2, MPI_INT, rb, 2, MPI_INT,
		  rev, MPI_INFO_NULL, &q);
	BOTH_ONCE(MPI_Alltoall_init, MPI_Alltoall_init_c, &q, sb, 1, MPI_INT, rb, 1, MPI_INT, rev,
		  MPI_INFO_NULL, &q);
	BOTH_ONCE(MPI_Reduce_init, MPI_Reduce_init_c, &q, sb, rb, 3, MPI_INT, MPI_MIN, 1, rev,
		  MPI_INFO_NULL, &q);
	BOTH_ONCE(MPI_Scan_init, MPI_Scan_init_c, &q, sb, rb, 4, MPI_INT, MPI_SUM, rev,
		  MPI_INFO_NULL, &q);
	BOTH_ONCE(MPI_Exscan_init, MPI_Exscan_init_c, &q, sb, rb, 5, MPI_INT, MPI_SUM, rev,
		  MPI_INFO_NULL, &q);
	BOTH_ONCE(MPI_Scatter_init, MPI_Scatter_init_c, &q, sb, 2, MPI_INT, rb, 2, MPI_INT, 3, rev,
		  MPI_INFO_NULL, &q);
	BOTH_ONCE(MPI_Reduce_scatter_block_init, MPI_Reduce_scatter_block_init_c, &q, sb, rb, 3,
		  MPI_INT, MPI_SUM, rev, MPI_INFO_NULL, &q);

	MPI_Cart_create(rev, 1, dims, periods, 0, &ring);
	BOTH(MPI_Neighbor_allgather, MPI_Neighbor_allgather_c, sb, 2, MPI_INT, rb, 2, MPI_INT,
	     ring);
	BOTH(MPI_Neighbor_alltoall, MPI_Neighbor_alltoall_c, sb, 1, MPI_INT, rb, 1, MPI_INT, ring);
	BOTH_WAIT(MPI_Ineighbor_allgather, MPI_Ineighbor_allgather_c, &q, sb, 2, MPI_INT, rb, 2,
		  MPI_INT, ring, &q);
	BOTH_WAIT(MPI_Ineighbor_alltoall, MPI_Ineighbor_alltoall_c, &q, sb, 1, MPI_INT, rb, 1,
		  MPI_INT, ring, &q);
	BOTH_ONCE(MPI_Neighbor_allgather_init, MPI_Neighbor_allgather_init_c, &q, sb, 2, MPI_INT,
		  rb, 2, MPI_INT, ring, MPI_INFO_NULL, &q);
	BOTH_ONCE(MPI_Neighbor_alltoall_init, MPI_Neighbor_alltoall_init_c, &q, sb, 1, MPI_INT, rb,
		  1, MPI_INT, ring, MPI_INFO_NULL, &q);
	MPI_Comm_free(&ring);

	MPI_Win_create(wb, sizeof(wb), sizeof(int), MPI_INFO_NULL, rev, &win);
	MPI_Win_lock_all(0, win);
	BOTH(MPI_Get, MPI_Get_c, rb, 2, MPI_INT, n, 4, 2, MPI_INT, win);
	BOTH_WAIT(MPI_Rget, MPI_Rget_c, &q, rb, 3, MPI_INT, n, 8, 3, MPI_INT, win, &q);
	BOTH_WAIT(MPI_Rput, MPI_Rput_c, &q, sb, 4, MPI_INT, n, 16, 4, MPI_INT, win, &q);
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	MPI_Win_allocate(64, 4, MPI_INFO_NULL, rev, &base, &win);
	MPI_Win_free(&win);
	MPI_Win_allocate_c(64, 4, MPI_INFO_NULL, rev, &base, &win);
	MPI_Win_free(&win);
	MPI_Win_allocate_shared(32, 8, MPI_INFO_NULL, rev, &base, &win);
	MPI_Win_free(&win);
	MPI_Win_allocate_shared_c(32, 8, MPI_INFO_NULL, rev, &base, &win);
	MPI_Win_free(&win);
	(void)r;
}

/*
 * On fh (opened by the p ranks of rev, r this one's), each MPI-IO large-count
 * function after its int form with the same arguments, the file pointers
 * set back to where they were before the int form: individual pointer at
 * byte 512 + 64 r: File_read, _write, _read_all, _write_all (2, 3, 4, 5
 * ints) and File_iread, _iwrite, _iread_all, _iwrite_all (1, 2, 3, 4),
 * each waited for; the explicit offsets 1024 + 64 r: File_read_at_all,
 * _write_at_all (2, 3) and File_iread_at, _iwrite_at_all, _iread_at_all
 * (4, 5, 6); the shared pointer at 2048, one rank after the other:
 * File_write_shared (2 ints), File_read_shared (2), File_iwrite_shared (3),
 * File_iread_shared (3); then File_write_ordered and _read_ordered (4).
 */
static void fpairs(MPI_File fh, int r, int p)
{
	int buf[8] = { 0 };
	MPI_Offset pos = 512 + 64 * r, at = 1024 + 64 * r;
	MPI_Request q;

#define SEEK_BOTH(x, xc, ...)                             \
	do {                                              \
		MPI_File_seek(fh, pos, MPI_SEEK_SET);     \
		x(__VA_ARGS__);                           \
		MPI_File_seek(fh, pos, MPI_SEEK_SET);     \
		xc(__VA_ARGS__);                          \
	} while (0)
#define SEEK_BOTH_WAIT(x, xc, ...)                        \
	do {                                              \
		MPI_File_seek(fh, pos, MPI_SEEK_SET);     \
		x(__VA_ARGS__);                           \
		MPI_Wait(&q, MPI_STATUS_IGNORE);          \
		MPI_File_seek(fh, pos, MPI_SEEK_SET);     \
		xc(__VA_ARGS__);                          \
		MPI_Wait(&q, MPI_STATUS_IGNORE);          \
	} while (0)
	SEEK_BOTH(MPI_File_write, MPI_File_write_c, fh, buf, 3, MPI_INT, MPI_STATUS_IGNORE);
	SEEK_BOTH(MPI_File_read, MPI_File_read_c, fh, buf, 2, MPI_INT, MPI_STATUS_IGNORE);
	SEEK_BOTH(MPI_File_write_all, MPI_File_write_all_c, fh, buf, 5, MPI_INT,
		  MPI_STATUS_IGNORE);
	SEEK_BOTH(MPI_File_read_all, MPI_File_read_all_c, fh, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
	SEEK_BOTH_WAIT(MPI_File_iwrite, MPI_File_iwrite_c, fh, buf, 2, MPI_INT, &q);
	SEEK_BOTH_WAIT(MPI_File_iread, MPI_File_iread_c, fh, buf, 1, MPI_INT, &q);
	SEEK_BOTH_WAIT(MPI_File_iwrite_all, MPI_File_iwrite_all_c, fh, buf, 4, MPI_INT, &q);
	SEEK_BOTH_WAIT(MPI_File_iread_all, MPI_File_iread_all_c, fh, buf, 3, MPI_INT, &q);
#undef SEEK_BOTH
#undef SEEK_BOTH_WAIT
	BOTH(MPI_File_write_at_all, MPI_File_write_at_all_c, fh, at, buf, 3, MPI_INT,
	     MPI_STATUS_IGNORE);
	BOTH(MPI_File_read_at_all, MPI_File_read_at_all_c, fh, at, buf, 2, MPI_INT,
	     MPI_STATUS_IGNORE);
	BOTH_WAIT(MPI_File_iwrite_at_all, MPI_File_iwrite_at_all_c, &q, fh, at, buf, 5, MPI_INT,
		  &q);
	BOTH_WAIT(MPI_File_iread_at, MPI_File_iread_at_c, &q, fh, at, buf, 4, MPI_INT, &q);
	BOTH_WAIT(MPI_File_iread_at_all, MPI_File_iread_at_all_c, &q, fh, at, buf, 6, MPI_INT, &q);

	/* the shared pointer: each rank in turn, each form from 2048 */
	for (int c = 0; c < 2; c++) {
		MPI_File_seek_shared(fh, 2048, MPI_SEEK_SET);
		for (int i = 0; i < p; i++) {
			if (i == r) {
				EITHER(c, MPI_File_write_shared, MPI_File_write_shared_c, fh, buf, 2,
				       MPI_INT, MPI_STATUS_IGNORE);
				EITHER(c, MPI_File_iwrite_shared, MPI_File_iwrite_shared_c, fh, buf, 3,
				       MPI_INT, &q);
				MPI_Wait(&q, MPI_STATUS_IGNORE);
			}
			MPI_Barrier(MPI_COMM_WORLD);
		}
		MPI_File_seek_shared(fh, 2048, MPI_SEEK_SET);
		for (int i = 0; i < p; i++) {
			if (i == r) {
				EITHER(c, MPI_File_read_shared, MPI_File_read_shared_c, fh, buf, 2, MPI_INT,
				       MPI_STATUS_IGNORE);
				EITHER(c, MPI_File_iread_shared, MPI_File_iread_shared_c, fh, buf, 3, MPI_INT,
				       &q);
				MPI_Wait(&q, MPI_STATUS_IGNORE);
			}
			MPI_Barrier(MPI_COMM_WORLD);
		}
		MPI_File_seek_shared(fh, 2048, MPI_SEEK_SET);
		EITHER(c, MPI_File_write_ordered, MPI_File_write_ordered_c, fh, buf, 4, MPI_INT,
		       MPI_STATUS_IGNORE);
		MPI_File_seek_shared(fh, 2048, MPI_SEEK_SET);
		EITHER(c, MPI_File_read_ordered, MPI_File_read_ordered_c, fh, buf, 4, MPI_INT,
		       MPI_STATUS_IGNORE);
	}
}
#endif

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
#if MPI_VERSION >= 4
	int r, p, n, pr, ibuf[64] = { 0 }, rbuf[64] = { 0 };
	double d[8] = { 0 }, e[8] = { 0 };
	MPI_Comm rev;
	MPI_Request req, reqs[3];
	MPI_Message msg;
	MPI_Session ses;
	MPI_Win win;

	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - r, &rev);
	MPI_Comm_rank(rev, &r);
	n = (r + 1) % p;
	pr = (r + p - 1) % p;
	MPI_Isend_c(ibuf, 5, MPI_INT, n, 4, rev, &req);
	MPI_Recv_c(rbuf, 5, MPI_INT, pr, 4, rev, MPI_STATUS_IGNORE);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Irecv_c(e, 3, MPI_DOUBLE, n, 6, rev, &req);
	MPI_Send_c(d, 3, MPI_DOUBLE, pr, 6, rev);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Bcast_c(ibuf, 7, MPI_INT, 1, rev);
	MPI_Allreduce_c(d, e, 2, MPI_DOUBLE, MPI_SUM, rev);
	MPI_Reduce_c(ibuf, rbuf, 1, MPI_INT, MPI_MAX, 0, rev);
	MPI_Allgather_c(ibuf, 1, MPI_INT, rbuf, 1, MPI_INT, rev);
	MPI_Alltoall_c(ibuf, 2, MPI_INT, rbuf, 2, MPI_INT, rev);
	MPI_Iallreduce_c(d, e, 4, MPI_DOUBLE, MPI_SUM, rev, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Win_create_c(rbuf, sizeof(rbuf), sizeof(int), MPI_INFO_NULL, rev, &win);
	MPI_Win_fence(0, win);
	MPI_Put_c(ibuf, 4, MPI_INT, n, 3, 4, MPI_INT, win);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);

	MPI_Sendrecv_c(ibuf, 2, MPI_INT, n, 11, rbuf, 2, MPI_INT, pr, 11, rev, MPI_STATUS_IGNORE);
	MPI_Sendrecv_replace_c(ibuf, 3, MPI_INT, n, 12, pr, 12, rev, MPI_STATUS_IGNORE);
	MPI_Isendrecv_c(ibuf, 4, MPI_INT, n, 13, rbuf, 4, MPI_INT, pr, 13, rev, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Isendrecv_replace_c(ibuf, 5, MPI_INT, n, 14, pr, 14, rev, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);

	MPI_Isend_c(ibuf, 6, MPI_INT, n, 15, rev, &req);
	MPI_Mprobe(pr, 15, rev, &msg, MPI_STATUS_IGNORE);
	MPI_Mrecv_c(rbuf, 6, MPI_INT, &msg, MPI_STATUS_IGNORE);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Isend_c(ibuf, 7, MPI_INT, n, 16, rev, &reqs[0]);
	MPI_Mprobe(pr, 16, rev, &msg, MPI_STATUS_IGNORE);
	MPI_Imrecv_c(rbuf, 7, MPI_INT, &msg, &reqs[1]);
	MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

	MPI_Allreduce_init_c(d, e, 3, MPI_DOUBLE, MPI_SUM, rev, MPI_INFO_NULL, &reqs[0]);
	MPI_Bcast_init_c(ibuf, 9, MPI_INT, 2, rev, MPI_INFO_NULL, &reqs[1]);
	MPI_Gather_init_c(ibuf, 2, MPI_INT, rbuf, 2, MPI_INT, 3, rev, MPI_INFO_NULL, &reqs[2]);
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 2; i++) {
			MPI_Start(&reqs[k]);
			MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
		}
		MPI_Request_free(&reqs[k]);
	}

	if (argc > 1) {
		MPI_File fh;
		MPI_File_open(rev, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
		MPI_File_write_at_c(fh, 64 * r, ibuf, 4, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_read_at_c(fh, 64 * r, rbuf, 4, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_iwrite_at_c(fh, 64 * r + 16, ibuf, 2, MPI_INT, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		fpairs(fh, r, p);
		MPI_File_close(&fh);
	}
	vectors(rev, r, n);
	pairs(rev, r, n, pr);
	MPI_Comm_free(&rev);

	MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses);
	MPI_Session_finalize(&ses);
#else
	printf("MPI %d.%d: no large-count functions\n", MPI_VERSION, MPI_SUBVERSION);
#endif
	MPI_Finalize();
	return 0;
}
