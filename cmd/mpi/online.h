/*
 * online.h - the in-job clustering plugin's own parts
 * (libtracecluster-online.so): online.c clusters whole traces at
 * MPI_Finalize, online_cham.c runs Chameleon at marker calls.
 */
#ifndef TC_CMD_MPI_ONLINE_H
#define TC_CMD_MPI_ONLINE_H

#include "lib/compat.h"
#include "lib/capture/online.h"
#include "lib/strbuf.h"

#include <setjmp.h>

#define TC_ONLINE_API __attribute__((visibility("default")))

double tc_online_now(void);

/*
 * Out of memory in the plugin must not end the application: the
 * plugin's allocations (lib/xalloc.h) jump out of a guarded section
 * instead of aborting, and what the section touched is abandoned. On
 * each thread:
 *
 *	struct tc_online_guard g;
 *	tc_online_guard_enter(&g);
 *	if (!sigsetjmp(g.jb, 0))
 *		... work that allocates, no MPI ...
 *	else
 *		... out of memory: said once; mark the rank broken ...
 *	tc_online_guard_leave(&g);
 *
 * Locals the work sets and the failure path reads must be volatile.
 * Outside every guard an allocation failure still aborts.
 */
struct tc_online_guard {
	sigjmp_buf jb;
	struct tc_online_guard *prev;
};
void tc_online_guard_enter(struct tc_online_guard *g);
void tc_online_guard_leave(struct tc_online_guard *g);
/* Say once that this rank (tc_online_set_rank) ran out of memory. */
void tc_online_oom(size_t n);
void tc_online_set_rank(int rank);
/* fn(ctx) in a guard: false when it ran out of memory. */
bool tc_online_guarded(void (*fn)(void *), void *ctx);
/* One line on standard error naming the plugin and the rank. */
void tc_online_say(const struct tc_online_args *a, const char *fmt, ...) TC_PRINTF(2, 3);
/* Every rank agrees: true only when ok holds on every rank. */
bool tc_online_all(bool ok);

/* What every rank sent, at rank 0: rank r's bytes at buf + offs[r]. */
struct tc_online_bytes {
	char *buf;
	int *lens, *offs;
};
/* Gather sb of every rank at rank 0 (collective); false on every rank
 * when it cannot (more than INT_MAX bytes, no room at rank 0) or a rank
 * has no bytes to give (mine false: out of memory). */
bool tc_online_gather(const struct tc_online_args *a, const struct tc_strbuf *sb, bool mine,
		      struct tc_online_bytes *out);
void tc_online_bytes_release(struct tc_online_bytes *b);

struct tc_gtrace;
struct tc_merge_opts;
/* Rank 0: finish g as mode's global trace (timing statistics) and write
 * it to DIR/global.tct; *bytes gets its size. */
bool tc_online_write_global(const struct tc_online_args *a, struct tc_gtrace *g,
			    const char *mode, const struct tc_merge_opts *mopts, uint64_t *bytes);

/* online_cham.c: whether mode names chameleon; the finish at
 * MPI_Finalize of a run started at MPI_Init (a->state). */
bool tc_online_is_chameleon(const char *mode);
int tc_online_cham_finish(const struct tc_online_args *a);

#endif
