/*
 * span.c - the span of an untraced MPI program, for test/bench-replay.sh.
 *
 * Preloaded (mpicc -shared -fPIC), it times each rank to the start of
 * MPI_Finalize from two starts: a barrier of all ranks after MPI_Init
 * (the start tracecluster-replay times itself from: its ranks leave
 * MPI_Init as far apart as the program's, and it starts them together),
 * and the rank's own end of MPI_Init (as the capture shim's trace would
 * without the barrier that ends its setup, the span it records). Rank 0
 * appends the largest of each over the ranks, in that order, in seconds,
 * as one line to the file named by SPAN_OUT (else stderr). Apart from
 * that one barrier (whose wait the program's first collective would
 * have had) the program runs as it does without a tool. The Fortran
 * entry points of Open MPI and MPICH (mpi_init_, mpi_init_thread_,
 * mpi_finalize_) are timed too; they reach their PMPI forms through
 * dlsym, so no Fortran library is linked in (the mpi_f08 bindings are
 * not).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double t_init, t_sync;
static int started_once; /* a Fortran init may call the C one */
static int reported;     /* a Fortran finalize may call the C one */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the start: each rank's end of MPI_Init, then all ranks' (a barrier) */
static void started(void)
{
	if (started_once++)
		return;
	t_init = now();
	PMPI_Barrier(MPI_COMM_WORLD);
	t_sync = now();
}

static void report(void)
{
	double t_fin = now(), span[2] = { t_fin - t_sync, t_fin - t_init }, most[2] = { 0, 0 };
	const char *path = getenv("SPAN_OUT");
	int rank = 0;
	FILE *f;

	if (reported++)
		return;
	PMPI_Reduce(span, most, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank != 0)
		return;
	f = path ? fopen(path, "a") : stderr;
	if (!f)
		return;
	fprintf(f, "%.9f %.9f\n", most[0], most[1]);
	if (f != stderr)
		fclose(f);
}

int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);

	if (rc == MPI_SUCCESS)
		started();
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	if (rc == MPI_SUCCESS)
		started();
	return rc;
}

int MPI_Finalize(void)
{
	report();
	return PMPI_Finalize();
}

typedef void (*f1)(int *);
typedef void (*f3)(int *, int *, int *);

static void *next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "span: %s not found\n", name);
		abort();
	}
	return p;
}

void mpi_init_(int *ierr)
{
	((f1)next("pmpi_init_"))(ierr);
	if (*ierr == MPI_SUCCESS)
		started();
}

void mpi_init_thread_(int *required, int *provided, int *ierr)
{
	((f3)next("pmpi_init_thread_"))(required, provided, ierr);
	if (*ierr == MPI_SUCCESS)
		started();
}

void mpi_finalize_(int *ierr)
{
	report();
	((f1)next("pmpi_finalize_"))(ierr);
}
