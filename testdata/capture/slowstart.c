/*
 * slowstart.c - test helper, preloaded before the capture shim: makes the
 * shim's setup in MPI_Init slow on some ranks, as a loaded node does.
 *
 *   LD_PRELOAD=.../libslowstart.so:.../libtracecluster-capture.so
 *   TC_SLOWSTART_MS=N         the delay, milliseconds (default 500)
 *   TC_SLOWSTART_RANKS=R,...  the world ranks delayed (default 1)
 *
 * The delay comes before each thread the shim starts (its writer thread,
 * started in its setup), on the delayed ranks, which say so on standard
 * error; threads the MPI library or the program start are left alone.
 * The world rank comes from OMPI_COMM_WORLD_RANK (Open MPI) or PMI_RANK
 * (MPICH). Built by make check, never installed.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "preload.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* Whether this process's world rank is in TC_SLOWSTART_RANKS (default 1). */
static bool delayed_rank(void)
{
	const char *list = getenv("TC_SLOWSTART_RANKS");

	return world_rank() >= 0 && listed(list && *list ? list : "1", world_rank());
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static create_fn next;
	const char *ms = getenv("TC_SLOWSTART_MS");
	Dl_info info;

	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "pthread_create");
	if (!next)
		abort();
	if (in_module(__builtin_return_address(0), "libtracecluster-capture", &info) &&
	    delayed_rank()) {
		long n = ms && *ms ? atol(ms) : 500;
		struct timespec d = { n / 1000, (n % 1000) * 1000000L };
		if (n < 0)
			abort();
		fprintf(stderr, "slowstart: rank %d: %ld ms\n", world_rank(), n);
		while (nanosleep(&d, &d) && errno == EINTR)
			;
	}
	return next(t, attr, fn, arg);
}
