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
 * The world rank comes from
 * OMPI_COMM_WORLD_RANK (Open MPI) or PMI_RANK (MPICH). Built by make
 * check, never installed.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* Whether this process's world rank is in TC_SLOWSTART_RANKS. */
static bool delayed_rank(void)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK"), *list = getenv("TC_SLOWSTART_RANKS");
	char buf[256], *tok, *save;

	if (!r)
		r = getenv("PMI_RANK");
	if (!r)
		return false;
	snprintf(buf, sizeof(buf), "%s", list && *list ? list : "1");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (atoi(tok) == atoi(r))
			return true;
	return false;
}

/* Whether the code at pc lies in the capture shim. */
static bool in_shim(const void *pc)
{
	Dl_info info;

	return dladdr(pc, &info) && info.dli_fname &&
	       strstr(info.dli_fname, "libtracecluster-capture");
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static create_fn next;
	const char *ms = getenv("TC_SLOWSTART_MS");

	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "pthread_create");
	if (!next)
		abort();
	if (in_shim(__builtin_return_address(0)) && delayed_rank()) {
		long n = ms && *ms ? atol(ms) : 500;
		struct timespec d = { n / 1000, (n % 1000) * 1000000L };
		if (n < 0)
			abort();
		fprintf(stderr, "slowstart: rank %s: %ld ms\n", getenv("OMPI_COMM_WORLD_RANK") ?
			getenv("OMPI_COMM_WORLD_RANK") : getenv("PMI_RANK"), n);
		while (nanosleep(&d, &d) && errno == EINTR)
			;
	}
	return next(t, attr, fn, arg);
}
