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
 * them and its Wait. Last, another MPI-4 pair: MPI_Session_init and
 * MPI_Session_finalize.
 */
#include <mpi.h>
#include <stdio.h>

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
		MPI_File_close(&fh);
	}
	MPI_Comm_free(&rev);

	MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses);
	MPI_Session_finalize(&ses);
#else
	printf("MPI %d.%d: no large-count functions\n", MPI_VERSION, MPI_SUBVERSION);
#endif
	MPI_Finalize();
	return 0;
}
