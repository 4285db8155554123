/*
 * progress.h - a progress line on stderr for long work.
 *
 * Shown when stderr is a terminal (or with --progress), after about one
 * second (TRACECLUSTER_PROGRESS_DELAY seconds when set), by a thread of
 * its own; workers only bump an atomic counter.
 * On a terminal the line is redrawn in place at most five times a second:
 *   matching: 1024/4096 (25%), 812/s, ETA 0:04
 * Elsewhere (--progress into a log file) it is one whole line at most
 * once a second when the count moved, and a last line with the time taken.
 * A total of 0 means the amount is not known: the line shows the time
 * spent so far.
 */
#ifndef TC_PROGRESS_H
#define TC_PROGRESS_H

#include "lib/compat.h"
#include <stdatomic.h>

struct tc_progress;

/* -1: shown when stderr is a terminal (the default), 0: never, 1: always. */
void tc_progress_set_mode(int mode);

/* Returns new, or NULL when progress is off (every function takes NULL).
 * label is copied. */
struct tc_progress *tc_progress_start(const char *label, uint64_t total);
/* The counter workers add to. */
atomic_uint_least64_t *tc_progress_counter(struct tc_progress *p);
/* Add n to a counter that may be NULL. */
static inline void tc_progress_add(atomic_uint_least64_t *c, uint64_t n)
{
	if (c)
		atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}
void tc_progress_stop(struct tc_progress **p);

#endif
