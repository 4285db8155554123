/*
 * outside.c - the time an MPI program's ranks spend outside its MPI
 * calls, for comparing a replay's gaps with the program's.
 *
 * Preloaded (mpicc -shared -fPIC -O2 -o liboutside.so outside.c -ldl),
 * it reads the monotonic clock as each MPI call it knows is entered and
 * as it returns, and sums, per rank, each stretch between a return and
 * the next entry that is shorter than OUTSIDE_MAX_NS (environment,
 * default 1000000: longer ones are a program's setup, or the replay's
 * reading of its trace). At MPI_Finalize rank 0 appends one line to the
 * file named by OUTSIDE_OUT (else stderr): the stretches' time over every
 * rank in seconds, their number, and the mean cost of a clock reading in
 * ns (a stretch holds two of them: the same under the program and the
 * replay). Run the untraced program and tracecluster-replay under it,
 * interleaved, e.g.
 *
 *   mpirun -np 16 -x LD_PRELOAD=$PWD/liboutside.so -x OUTSIDE_OUT=o.txt cg.S.x
 *   mpirun -np 16 -x LD_PRELOAD=$PWD/liboutside.so -x OUTSIDE_OUT=o.txt \
 *       tracecluster-replay --compute cpu cg.tct
 *
 * The calls known are those of the NAS Parallel Benchmarks and the ones
 * the replay makes for them: the C ones through their PMPI forms, the
 * Fortran ones of Open MPI and MPICH (mpi_send_ and the like) through
 * dlsym, so that no Fortran library is linked in.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int on;                   /* between MPI_Init and MPI_Finalize */
static int depth;                /* calls in progress: a Fortran binding may
				  * call the C one */
static uint64_t back;            /* when the latest call returned */
static uint64_t max_ns = 1000000;
static uint64_t sum_ns, stretches, read_ns;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void enter(void)
{
	uint64_t t;

	if (!on || depth++)
		return;
	t = now();
	if (t - back < max_ns) {
		sum_ns += t - back;
		stretches++;
	}
}

static void leave(void)
{
	if (on && !--depth)
		back = now();
}

static void start(void)
{
	const char *m = getenv("OUTSIDE_MAX_NS");
	uint64_t t0;

	if (on)
		return;
	if (m && *m)
		max_ns = strtoull(m, NULL, 10);
	t0 = now();
	for (int i = 0; i < 1000; i++)
		(void)now();
	read_ns = (now() - t0) / 1000;
	on = 1;
	back = now();
}

static void report(void)
{
	uint64_t mine[2] = { sum_ns, stretches }, all[2] = { 0, 0 };
	const char *path = getenv("OUTSIDE_OUT");
	int rank;
	FILE *f;

	if (!on)
		return;
	on = 0;
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	PMPI_Reduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank)
		return;
	f = path ? fopen(path, "a") : stderr;
	if (!f)
		return;
	fprintf(f, "%.6f %llu %llu\n", (double)all[0] * 1e-9, (unsigned long long)all[1],
		(unsigned long long)read_ns);
	if (f != stderr)
		fclose(f);
}

int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);

	start();
	return rc;
}

int MPI_Finalize(void)
{
	report();
	return PMPI_Finalize();
}

/* a C call: its PMPI form between the two readings */
#define TIMED(call)               \
	do {                      \
		int rc_;          \
		enter();          \
		rc_ = call;       \
		leave();          \
		return rc_;       \
	} while (0)

int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c)
{
	TIMED(PMPI_Send(b, n, t, d, g, c));
}

int MPI_Isend(const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r)
{
	TIMED(PMPI_Isend(b, n, t, d, g, c, r));
}

int MPI_Recv(void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Status *st)
{
	TIMED(PMPI_Recv(b, n, t, s, g, c, st));
}

int MPI_Irecv(void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request *r)
{
	TIMED(PMPI_Irecv(b, n, t, s, g, c, r));
}

int MPI_Sendrecv(const void *sb, int sn, MPI_Datatype st, int d, int sg, void *rb, int rn,
		 MPI_Datatype rt, int s, int rg, MPI_Comm c, MPI_Status *status)
{
	TIMED(PMPI_Sendrecv(sb, sn, st, d, sg, rb, rn, rt, s, rg, c, status));
}

int MPI_Wait(MPI_Request *r, MPI_Status *st)
{
	TIMED(PMPI_Wait(r, st));
}

int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[])
{
	TIMED(PMPI_Waitall(n, r, st));
}

int MPI_Barrier(MPI_Comm c)
{
	TIMED(PMPI_Barrier(c));
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
	TIMED(PMPI_Bcast(b, n, t, root, c));
}

int MPI_Reduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c)
{
	TIMED(PMPI_Reduce(sb, rb, n, t, op, root, c));
}

int MPI_Allreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
	TIMED(PMPI_Allreduce(sb, rb, n, t, op, c));
}

int MPI_Alltoall(const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
		 MPI_Comm c)
{
	TIMED(PMPI_Alltoall(sb, sn, st, rb, rn, rt, c));
}

int MPI_Alltoallv(const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb,
		  const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c)
{
	TIMED(PMPI_Alltoallv(sb, sn, sd, st, rb, rn, rd, rt, c));
}

int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *out)
{
	TIMED(PMPI_Comm_split(c, color, key, out));
}

int MPI_Comm_dup(MPI_Comm c, MPI_Comm *out)
{
	TIMED(PMPI_Comm_dup(c, out));
}

/*
 * The Fortran entry points: every argument a pointer (MPI_Fint * or a
 * buffer), the last the error code. Each finds the MPI library's own
 * through dlsym once and times it like the C calls.
 */
#define FREAL(name, params)                                               \
	static void (*real) params;                                       \
	if (!real)                                                        \
		*(void **)&real = dlsym(RTLD_NEXT, #name);                \
	if (!real) {                                                      \
		fprintf(stderr, "outside: no " #name " to call\n");       \
		abort();                                                  \
	}

/* name(params), timed: args passes params on */
#define FWRAP(name, params, args)               \
	void name params;                       \
	void name params                        \
	{                                       \
		FREAL(name, params)             \
		enter();                        \
		real args;                      \
		leave();                        \
	}
#define P2 (void *a, void *b)
#define P3 (void *a, void *b, void *c)
#define P4 (void *a, void *b, void *c, void *d)
#define P5 (void *a, void *b, void *c, void *d, void *e)
#define P6 (void *a, void *b, void *c, void *d, void *e, void *f)
#define P7 (void *a, void *b, void *c, void *d, void *e, void *f, void *g)
#define P8 (void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h)

FWRAP(mpi_barrier_, P2, (a, b))                         /* comm, ierr */
FWRAP(mpi_wait_, P3, (a, b, c))                         /* request, status, ierr */
FWRAP(mpi_comm_dup_, P3, (a, b, c))                     /* comm, newcomm, ierr */
FWRAP(mpi_waitall_, P4, (a, b, c, d))                   /* count, requests, statuses, ierr */
FWRAP(mpi_comm_split_, P5, (a, b, c, d, e))             /* comm, color, key, newcomm, ierr */
FWRAP(mpi_bcast_, P6, (a, b, c, d, e, f))               /* buf, count, type, root, comm, ierr */
FWRAP(mpi_send_, P7, (a, b, c, d, e, f, g))             /* buf, count, type, dest, tag, comm, ierr */
FWRAP(mpi_allreduce_, P7, (a, b, c, d, e, f, g))        /* sbuf, rbuf, count, type, op, comm, ierr */
FWRAP(mpi_isend_, P8, (a, b, c, d, e, f, g, h))         /* ... comm, request, ierr */
FWRAP(mpi_irecv_, P8, (a, b, c, d, e, f, g, h))
FWRAP(mpi_recv_, P8, (a, b, c, d, e, f, g, h))          /* ... comm, status, ierr */
FWRAP(mpi_reduce_, P8, (a, b, c, d, e, f, g, h))        /* sbuf, rbuf, count, type, op, root, comm, ierr */
FWRAP(mpi_alltoall_, P8, (a, b, c, d, e, f, g, h))      /* sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr */

void mpi_init_(MPI_Fint *ierr);
void mpi_init_(MPI_Fint *ierr)
{
	FREAL(mpi_init_, (MPI_Fint *))
	real(ierr);
	start();
}

void mpi_finalize_(MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr)
{
	FREAL(mpi_finalize_, (MPI_Fint *))
	report();
	real(ierr);
}
