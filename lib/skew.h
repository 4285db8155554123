/*
 * skew.h - the ranks of one host on one clock: when each left its first
 * event (MPI_Init), from its file's wall-clock start and its own clock.
 *
 * A node's ranks leave MPI_Init milliseconds apart (as many as there are
 * ranks per core times a scheduler slice when the node is
 * oversubscribed), and their gaps overlap, or do not, accordingly: a
 * replay that models the node's cores needs their timelines as they
 * were, not each from the end of its own MPI_Init.
 */
#ifndef TC_LIB_SKEW_H
#define TC_LIB_SKEW_H

#include "lib/compat.h"

/* The largest skew kept, ns (an MPI_Init of almost three hours). */
#define TC_SKEW_MAX_NS 10000000000000ull

/* Rank r of n began at start[r] on a clock the ranks shared (its file's
 * wall-clock start, ns) and ended its first event at first_end[r] on its
 * own clock (ns from its start). Fills skew[r] with the moment rank r
 * ended its first event, ns after the first of them to end theirs, and
 * returns true; returns false (skew untouched) when the starts cannot be
 * one clock: a start of 0, a skew beyond TC_SKEW_MAX_NS, or a rank that
 * began after another had left MPI_Init (which ends with the others'). */
bool tc_clock_skews(size_t n, const uint64_t *start, const uint64_t *first_end, uint64_t *skew);

/* Skews read from a file, n of them: each at most TC_SKEW_MAX_NS and one
 * of them 0 (the first rank to end its first event). Returns an error
 * message or NULL. */
const char *tc_skew_check(const uint64_t *skew, size_t n);

/* A concurrency histogram read from a file, n entries of a world of
 * world ranks: 1 to world entries, the last not 0. Returns an error
 * message or NULL. */
const char *tc_conc_check(const uint64_t *ns, size_t n, int32_t world);

/* The host's ranks' concurrency in their compute gaps: gaps[2j] and
 * gaps[2j+1] are the start and end of gap j (ns, on one clock), n gaps of
 * any ranks. Fills ns[k-1] with the time during which k ranks were in a
 * gap, k = 1 .. max (more than max are counted at max), and returns the
 * largest k with time, 0 when none. */
size_t tc_gap_concurrency(const int64_t *gaps, size_t n, uint64_t *ns, size_t max);

#endif
