/*
 * fork.c - capture test: ranks that start processes while they
 * communicate.
 *
 *   fork [ITERS]
 *
 * Every rank exchanges ITERS rounds of 4 ints with its ring neighbours
 * (MPI_Sendrecv, tag 1). A quarter of the way through it forks a child
 * that calls MPI_Pcontrol(1) (a forked child may make no other MPI call)
 * and ends with exit(3), running the atexit handlers it inherited. Halfway
 * it runs system("true"); three quarters of the way it forks a child that
 * sends itself SIGTERM. The parent goes on communicating while each child
 * runs, waits for it a quarter later, and prints what became of them.
 * Recorded per rank: Init, ITERS Sendrecv, Barrier, Finalize.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, iters = argc > 1 ? atoi(argv[1]) : 2000;
	int s[4] = { 0 }, r[4], sys = -1, st1 = 0, st2 = 0;
	pid_t c1 = -1, c2 = -1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int it = 0; it < iters; it++) {
		if (it == iters / 4) {
			c1 = fork();
			if (c1 == 0) {
				MPI_Pcontrol(1);
				exit(3);
			}
		}
		if (it == iters / 2) {
			waitpid(c1, &st1, 0);
			sys = system("true");
		}
		if (it == 3 * iters / 4) {
			c2 = fork();
			if (c2 == 0) {
				kill(getpid(), SIGTERM);
				_exit(0);
			}
		}
		s[0] = it;
		MPI_Sendrecv(s, 4, MPI_INT, (rank + 1) % size, 1, r, 4, MPI_INT,
			     (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	waitpid(c2, &st2, 0);
	printf("rank %d: exit %d, system %d, signal %d\n", rank,
	       WIFEXITED(st1) ? WEXITSTATUS(st1) : -1, sys,
	       WIFSIGNALED(st2) ? WTERMSIG(st2) : -1);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
