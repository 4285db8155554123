/*
 * io.c - capture test: MPI-IO basics on FILE (argv[1]).
 *
 * Each rank writes 16 ints at byte offset 64*rank (write_at), the same
 * collectively at 64*(P+rank) (write_at_all), then reads its first block
 * back with read_at and read_at_all, and with read + read_all after a
 * seek to its block.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int r, p, buf[16] = { 0 };
	MPI_File fh;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
		      &fh);
	MPI_File_write_at(fh, 64 * r, buf, 16, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_write_at_all(fh, 64 * (p + r), buf, 16, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_read_at(fh, 64 * r, buf, 16, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_read_at_all(fh, 64 * r, buf, 16, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_seek(fh, 64 * r, MPI_SEEK_SET);
	MPI_File_read(fh, buf, 8, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_read_all(fh, buf, 8, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_write(fh, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_write_all(fh, buf, 4, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
