/*
 * progress.h - a progress line on stderr for long work.
 *
 * Shown only when stderr is a terminal (or --progress), after about one
 * second, redrawn at most five times a second by a thread of its own;
 * workers only bump an atomic counter.
 */
#ifndef TC_CMD_PROGRESS_H
#define TC_CMD_PROGRESS_H

#include "lib/compat.h"
#include <stdatomic.h>

struct tc_progress;

/* Returns new, or NULL when progress is off (every function takes NULL). */
struct tc_progress *tc_progress_start(const char *label, uint64_t total);
/* The counter workers add to. */
atomic_uint_least64_t *tc_progress_counter(struct tc_progress *p);
void tc_progress_stop(struct tc_progress **p);

#endif
