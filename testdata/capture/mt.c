/*
 * mt.c - capture test: MPI_THREAD_MULTIPLE.
 *
 *   mt [ITERS]
 *
 * Four threads per rank each run ITERS Sendrecv exchanges (tag = thread
 * number, 4 ints) with rank+1 / rank-1, concurrently. Prints "multiple"
 * or "single" (the level granted) from rank 0.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int iters = 200, next, prev;

static void *worker(void *arg)
{
	int tag = (int)(long)arg, s[4] = { tag }, v[4];

	for (int i = 0; i < iters; i++)
		MPI_Sendrecv(s, 4, MPI_INT, next, tag, v, 4, MPI_INT, prev, tag, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, r, p;
	pthread_t t[4];

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (argc > 1)
		iters = atoi(argv[1]);
	next = (r + 1) % p;
	prev = (r + p - 1) % p;
	if (r == 0)
		printf("%s\n", provided == MPI_THREAD_MULTIPLE ? "multiple" : "single");
	if (provided == MPI_THREAD_MULTIPLE) {
		for (long i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, worker, (void *)i);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
	} else {
		for (long i = 0; i < 4; i++)
			worker((void *)i);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
