/*
 * entry.c - main of the tracecluster command (the command line itself is
 * tc_main in main.c, which tracecluster-mpi links too).
 */
#include "lib/compat.h"
#include "cmd/cmd.h"

int main(int argc, char **argv)
{
	return tc_main(argc, argv);
}
