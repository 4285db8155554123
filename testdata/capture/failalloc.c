/*
 * failalloc.c - test helper, preloaded before the capture shim: makes the
 * shim's own allocations fail, and only those (the MPI library and the
 * application allocate as usual).
 *
 *   LD_PRELOAD=.../libfailalloc.so:.../libtracecluster-capture.so
 *   TC_FAILALLOC=N            the Nth allocation of the shim and every later
 *                             one return NULL (1: the first)
 *   TC_FAILALLOC_RANKS=R,...  only in these world ranks (default: all)
 *   TC_FAILALLOC_COUNT=PATH   at exit, write the number of allocations the
 *                             shim made to PATH.RANK, and where in the
 *                             module each of the first 8192 was called
 *                             (offsets, one per line) to PATH.RANK.sites
 *   TC_FAILALLOC_MODULE=S     count and fail the allocations of modules
 *                             whose file name has S in it instead (e.g.
 *                             libtracecluster-online: the in-job plugin)
 *
 * An allocation is the shim's when the caller of malloc, calloc or realloc
 * lies in a module whose file name has "libtracecluster-capture" (or
 * TC_FAILALLOC_MODULE) in it.
 * The allocator behind them is glibc's (__libc_malloc and the others), so
 * free(3) is left alone. The world rank comes from OMPI_COMM_WORLD_RANK
 * (Open MPI) or PMI_RANK (MPICH). Built by make check, never installed.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t nmemb, size_t size);
extern void *__libc_realloc(void *p, size_t n);

enum { UNSET, OFF, ON };

static atomic_int mode;
static long fail_at;
static const char *module = "libtracecluster-capture";
static atomic_long count;
/* the caller of each counted allocation, as an offset in its module */
#define SITES 8192
static uintptr_t sites[SITES];

static void setup(void)
{
	const char *n = getenv("TC_FAILALLOC");
	const char *m = getenv("TC_FAILALLOC_MODULE");
	bool on = getenv("TC_FAILALLOC_COUNT") != NULL;

	if (m && *m)
		module = m;
	fail_at = 0;
	if (n && *n && listed(getenv("TC_FAILALLOC_RANKS"), world_rank())) {
		fail_at = atol(n);
		on = true;
	}
	atomic_store(&mode, on ? ON : OFF);
}

/* Whether this allocation, called from ra, is to fail. */
static bool fail(void *ra)
{
	Dl_info info;
	long k;

	if (atomic_load_explicit(&mode, memory_order_relaxed) == UNSET)
		setup();
	if (atomic_load_explicit(&mode, memory_order_relaxed) != ON)
		return false;
	if (!in_module(ra, module, &info))
		return false;
	k = atomic_fetch_add(&count, 1) + 1;
	if (k <= SITES)
		sites[k - 1] = (uintptr_t)ra - (uintptr_t)info.dli_fbase;
	return fail_at > 0 && k >= fail_at;
}

void *malloc(size_t n)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t nmemb, size_t size)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_calloc(nmemb, size);
}

void *realloc(void *p, size_t n)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("TC_FAILALLOC_COUNT");
	char name[4096], line[32];
	int fd, len;

	if (!path)
		return;
	snprintf(name, sizeof(name), "%s.%d", path, world_rank());
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "%ld\n", atomic_load(&count));
	if (write(fd, line, (size_t)len) < 0)
		perror(name);
	close(fd);
	snprintf(name, sizeof(name), "%s.%d.sites", path, world_rank());
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	for (long i = 0; i < atomic_load(&count) && i < SITES; i++) {
		len = snprintf(line, sizeof(line), "%#lx\n", (unsigned long)sites[i]);
		if (write(fd, line, (size_t)len) < 0) {
			perror(name);
			break;
		}
	}
	close(fd);
}
