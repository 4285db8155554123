/*
 * connect.c - capture test: dynamic processes.
 *
 * World rank 0 opens a port and broadcasts its name; the even world
 * ranks accept (root: their rank 0, world rank 0) and the odd ones
 * connect (root: world rank 1) over their halves of MPI_COMM_WORLD, and
 * world rank 0 sends 2 ints with tag 3 over the new intercommunicator to
 * its remote rank 0 (world rank 1); both disconnect. With an argument,
 * MPI_COMM_WORLD then spawns one process of this program (root 0), world
 * rank 0 sends it 1 int with tag 9, and all disconnect; then both halves
 * spawn one process each at the same time, and their rank 0 (world ranks
 * 0 and 1) sends it 1 int with tag 9. A spawned process receives it from
 * its parent and disconnects.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int r, buf[2] = { 0 };
	char port[MPI_MAX_PORT_NAME] = "";
	MPI_Comm half, inter, parent;

	MPI_Init(&argc, &argv);
	MPI_Comm_get_parent(&parent);
	if (parent != MPI_COMM_NULL) {
		MPI_Recv(buf, 1, MPI_INT, 0, 9, parent, MPI_STATUS_IGNORE);
		MPI_Comm_disconnect(&parent);
		MPI_Finalize();
		return 0;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
	if (r == 0)
		MPI_Open_port(MPI_INFO_NULL, port);
	MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (r % 2 == 0)
		MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
	else
		MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
	if (r == 0)
		MPI_Send(buf, 2, MPI_INT, 0, 3, inter);
	if (r == 1)
		MPI_Recv(buf, 2, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE);
	MPI_Comm_disconnect(&inter);
	if (r == 0)
		MPI_Close_port(port);
	if (argc > 1) {
		MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
			       MPI_ERRCODES_IGNORE);
		if (r == 0)
			MPI_Send(buf, 1, MPI_INT, 0, 9, inter);
		MPI_Comm_disconnect(&inter);
		MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, half, &inter,
			       MPI_ERRCODES_IGNORE);
		if (r < 2)
			MPI_Send(buf, 1, MPI_INT, 0, 9, inter);
		MPI_Comm_disconnect(&inter);
	}
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
