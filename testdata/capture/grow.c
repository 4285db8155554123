/*
 * grow.c - capture test: a program that keeps the capture shim allocating
 * (for the tests that make its allocations fail, with failalloc.c).
 *
 *   grow [ROUNDS]
 *
 * Each of ROUNDS rounds (default 40) every rank duplicates MPI_COMM_WORLD
 * and makes a contiguous datatype of 1 to 8 ints (both kept to the end),
 * posts 64 receives from its ring predecessor and 64 sends to its
 * successor of one element of that type on the new communicator, from a
 * call site of its own (a recursion 0 to 7 calls deep), and sums the
 * round numbers with MPI_Allreduce over it. All the requests stay
 * outstanding until one MPI_Waitall at the end, so the shim's tables of
 * communicators, datatypes, call sites and requests keep growing. Then
 * each rank prints what it received and summed, frees the communicators
 * and datatypes and, after MPI_Finalize, exits with status 3.
 *
 * Recorded per rank: Init, per round Comm_dup, 64 Irecv, 64 Isend and
 * Allreduce, then Waitall, ROUNDS Comm_free, Barrier, Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MSGS 64
#define MAXROUNDS 200

static int next, prev;
static int sbuf[MAXROUNDS][MSGS][8], rbuf[MAXROUNDS][MSGS][8];
static MPI_Request reqs[MAXROUNDS * MSGS * 2];

__attribute__((noinline)) static void post(int depth, int k, MPI_Datatype t, MPI_Comm c)
{
	if (depth > 0) {
		post(depth - 1, k, t, c);
		__asm__ volatile("" ::: "memory"); /* not a tail call */
		return;
	}
	for (int j = 0; j < MSGS; j++) {
		MPI_Irecv(rbuf[k][j], 1, t, prev, j, c, &reqs[(k * MSGS + j) * 2]);
		MPI_Isend(sbuf[k][j], 1, t, next, j, c, &reqs[(k * MSGS + j) * 2 + 1]);
	}
}

int main(int argc, char **argv)
{
	int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 40, sum = 0;
	long got = 0;
	MPI_Comm comms[MAXROUNDS];
	MPI_Datatype types[MAXROUNDS];

	if (rounds < 1 || rounds > MAXROUNDS)
		return 2;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	next = (rank + 1) % size;
	prev = (rank + size - 1) % size;
	for (int k = 0; k < rounds; k++) {
		int s = 0;

		for (int j = 0; j < MSGS; j++)
			for (int i = 0; i < 8; i++)
				sbuf[k][j][i] = rank * 1000 + k + j + i;
		MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]);
		MPI_Type_contiguous(k % 8 + 1, MPI_INT, &types[k]);
		MPI_Type_commit(&types[k]);
		post(k % 8, k, types[k], comms[k]);
		MPI_Allreduce(&k, &s, 1, MPI_INT, MPI_SUM, comms[k]);
		sum += s;
	}
	MPI_Waitall(rounds * MSGS * 2, reqs, MPI_STATUSES_IGNORE);
	for (int k = 0; k < rounds; k++)
		for (int j = 0; j < MSGS; j++)
			for (int i = 0; i <= k % 8; i++)
				got += rbuf[k][j][i];
	printf("rank %d: received %ld, sum %d\n", rank, got, sum);
	for (int k = 0; k < rounds; k++) {
		MPI_Type_free(&types[k]);
		MPI_Comm_free(&comms[k]);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 3;
}
