/*
 * ionb.c - capture test: nonblocking, shared-pointer and ordered MPI-IO
 * on FILE (argv[1]).
 *
 * Each rank writes 16 ints at byte offset 64*rank with iwrite_at, reads
 * them back with iread_at (one Waitall), writes 8 ints collectively at
 * 64*(P+rank) with iwrite_at_all and reads them with iread_at_all (Wait
 * each); after a seek to its block, iread and iwrite of 4 ints and
 * iread_all and iwrite_all of 2 (Waitall); then write_ordered of 4 ints,
 * a barrier, write_shared of 2 ints by rank 0 only, iwrite_shared of 1
 * int by rank 1 only; a shared seek to 0, read_ordered of 4 ints, and
 * read_shared and iread_shared of 1 int by rank 0.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int r, p, buf[16] = { 0 };
	MPI_File fh;
	MPI_Request req[4];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
		      &fh);
	MPI_File_iwrite_at(fh, 64 * r, buf, 16, MPI_INT, &req[0]);
	MPI_Waitall(1, req, MPI_STATUSES_IGNORE);
	MPI_File_iread_at(fh, 64 * r, buf, 16, MPI_INT, &req[0]);
	MPI_Waitall(1, req, MPI_STATUSES_IGNORE);
	MPI_File_iwrite_at_all(fh, 64 * (p + r), buf, 8, MPI_INT, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	MPI_File_iread_at_all(fh, 64 * (p + r), buf, 8, MPI_INT, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	MPI_File_seek(fh, 64 * r, MPI_SEEK_SET);
	MPI_File_iread(fh, buf, 4, MPI_INT, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	MPI_File_iwrite(fh, buf, 4, MPI_INT, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	MPI_File_iread_all(fh, buf, 2, MPI_INT, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	MPI_File_iwrite_all(fh, buf, 2, MPI_INT, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	MPI_File_write_ordered(fh, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	if (r == 0)
		MPI_File_write_shared(fh, buf, 2, MPI_INT, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	if (r == 1) {
		MPI_File_iwrite_shared(fh, buf, 1, MPI_INT, &req[0]);
		MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
	MPI_File_read_ordered(fh, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	if (r == 0) {
		MPI_File_read_shared(fh, buf, 1, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_iread_shared(fh, buf, 1, MPI_INT, &req[0]);
		MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	}
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
