/*
 * bench.c - per-call cost of tight MPI loops, for make bench.
 *
 *   bench [ITERS]     (rank 0 prints the results)
 *
 * Loop 1: Irecv + Isend + Waitall(2) with the partner rank (rank ^ 1;
 * with one rank, itself), 8 bytes.
 * Loop 2: Allreduce of one double.
 * Loop 3: a compute slice (16 KiB of a 256 KiB array summed, the next 16
 * KiB each time) between four rounds of loop 1's calls; slice_ns is the wall time
 * of the slice alone (the median round's mean): what the calls around
 * it cost the program's own compute beyond their time (caches, TLB and
 * branch predictors the tracer's code and buffers take).
 * Each loop runs 5 rounds of ITERS iterations after a warm-up; the
 * median round is printed as ns per iteration and per MPI call, in wall
 * time, in CPU time of the calling thread (*_cpu_ns: not counting the
 * time the thread waited or was preempted, nor other threads' work) and in
 * CPU time of the whole process (*_allcpu_ns: the capture shim's writer
 * thread included, and the MPI library's own threads, which the run
 * without the shim has too).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_now(void)
{
	return clock_now(CLOCK_THREAD_CPUTIME_ID);
}

static double proc_now(void)
{
	return clock_now(CLOCK_PROCESS_CPUTIME_ID);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	int rank, size, iters = argc > 1 ? atoi(argv[1]) : 100000, peer;
	double sbuf = 1, rbuf, t[5], c[5], a[5], x = 1, y;
	MPI_Request req[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = size == 1 ? 0 : rank ^ 1;
	if (peer >= size)
		peer = MPI_PROC_NULL;

	for (int round = -1; round < 5; round++) {
		int n = round < 0 ? iters / 10 : iters;
		double t0, c0, a0;
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		c0 = cpu_now();
		a0 = proc_now();
		for (int i = 0; i < n; i++) {
			MPI_Irecv(&rbuf, 1, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &req[0]);
			MPI_Isend(&sbuf, 1, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &req[1]);
			MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		}
		if (round >= 0) {
			t[round] = (MPI_Wtime() - t0) / n * 1e9;
			c[round] = (cpu_now() - c0) / n * 1e9;
			a[round] = (proc_now() - a0) / n * 1e9;
		}
	}
	if (rank == 0)
		printf("p2p_iter_ns %.1f\np2p_call_ns %.1f\np2p_call_cpu_ns %.1f\n"
		       "p2p_call_allcpu_ns %.1f\n", median(t, 5), median(t, 5) / 3, median(c, 5) / 3,
		       median(a, 5) / 3);

	for (int round = -1; round < 5; round++) {
		int n = round < 0 ? iters / 10 : iters;
		double t0, c0, a0;
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		c0 = cpu_now();
		a0 = proc_now();
		for (int i = 0; i < n; i++)
			MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (round >= 0) {
			t[round] = (MPI_Wtime() - t0) / n * 1e9;
			c[round] = (cpu_now() - c0) / n * 1e9;
			a[round] = (proc_now() - a0) / n * 1e9;
		}
	}
	if (rank == 0)
		printf("allreduce_call_ns %.1f\nallreduce_call_cpu_ns %.1f\nallreduce_call_allcpu_ns %.1f\n",
		       median(t, 5), median(c, 5), median(a, 5));

	{
		enum { WORDS = 256 * 1024 / 8, SLICE = 16 * 1024 / 8 };
		double *w = malloc(WORDS * sizeof(*w)), acc = 0;
		for (int i = 0; i < WORDS; i++)
			w[i] = i * 0.5;
		for (int round = -1; round < 5; round++) {
			int n = round < 0 ? iters / 10 : iters;
			double in = 0;
			MPI_Barrier(MPI_COMM_WORLD);
			for (int i = 0; i < n; i++) {
				const double *p = w + (size_t)(i % (WORDS / SLICE)) * SLICE;
				double s0 = clock_now(CLOCK_MONOTONIC);
				for (int k = 0; k < SLICE; k++)
					acc += p[k];
				in += clock_now(CLOCK_MONOTONIC) - s0;
				for (int k = 0; k < 4; k++) {
					MPI_Irecv(&rbuf, 1, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &req[0]);
					MPI_Isend(&sbuf, 1, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &req[1]);
					MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
				}
			}
			if (round >= 0)
				t[round] = in / n * 1e9;
		}
		if (rank == 0)
			printf("slice_ns %.1f\n", median(t, 5) + (acc < 0 ? 1 : 0));
		free(w);
	}
	MPI_Finalize();
	return 0;
}
