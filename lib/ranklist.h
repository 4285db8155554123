/*
 * ranklist.h - ordered rank sequences as runs of arithmetic progressions.
 *
 * A run is (start, len, stride): start, start+stride, ... (len values).
 * Any int sequence can be written as runs; regular ones (all ranks, every
 * other rank, a column of a grid) take one run. Used for communicator
 * members in raw files and for cluster membership.
 */
#ifndef TC_RANKLIST_H
#define TC_RANKLIST_H

#include "compat.h"

struct tc_error;

struct tc_run {
	int32_t start;
	uint32_t len;
	int32_t stride;
};

struct tc_ranklist {
	struct tc_run *runs;
	size_t nruns;
	size_t alloc;
	uint64_t count;   /* total ranks */
};

void tc_ranklist_init(struct tc_ranklist *rl);
void tc_ranklist_release(struct tc_ranklist *rl);
/* Append one rank, extending the last run when it continues it. */
void tc_ranklist_add(struct tc_ranklist *rl, int32_t rank);
/* Extend the run *last with rank where tc_ranklist_add would: true if so. */
bool tc_ranklist_extend(struct tc_run *last, int32_t rank);
/* Append a whole run (len ranks from start by stride); len 0 adds nothing. */
/* The same runs as tc_ranklist_add of start, start + stride, ... (len
 * values) one by one, in O(1) for a run that continues the last one. */
void tc_ranklist_add_seq(struct tc_ranklist *rl, int32_t start, uint32_t len, int32_t stride);
void tc_ranklist_add_run(struct tc_ranklist *rl, int32_t start, uint32_t len, int32_t stride);
/* Build from n values in order (rl is reset first). */
void tc_ranklist_from_array(struct tc_ranklist *rl, const int32_t *v, size_t n);
/* Write all ranks into out (rl->count entries). */
void tc_ranklist_expand(const struct tc_ranklist *rl, int32_t *out);
/* Whether rank is a member (linear in the number of runs). */
bool tc_ranklist_contains(const struct tc_ranklist *rl, int32_t rank);

/* ---- ScalaTrace's ranklist encoding ------------------------------------ */

/*
 * ScalaTrace writes a set of ranks as a list of regular sections
 * (ICS'14 §2 (3); dissertation §3.3): one section is
 *
 *   <dim start iters_1 stride_1 ... iters_dim stride_dim>
 *
 * the ranks start + i_1 * stride_1 + ... + i_dim * stride_dim for every
 * 0 <= i_k < iters_k, the first pair the outermost dimension: <1 0 5 1>
 * is ranks 0-4, <1 4 1 0> rank 4 alone (one iteration, stride 0), and
 * <2 5 2 4 2 1> ranks 5, 6, 9, 10. ScalaTrace V2's trace files write a
 * set as the number of sections followed by each section with its
 * dimension negated as a marker (the lines "RANKS: 1 -1 0 4 1" and
 * "RANKS: 2 -2 1 2 3 2 1 -1 6 1 0", i.e. {0-3} and {1,2,4,5} + {6}); that
 * flat integer list is what the functions below read and write.
 *
 * The encoder takes the ranks in increasing order, cuts them greedily
 * into arithmetic runs (a run of two is not started when the second rank
 * begins a longer run), then folds consecutive runs of the same length
 * and stride whose starts are evenly spaced into 2D sections, and those
 * into 3D sections the same way (at most TC_RANKLIST_ST_MAXDIM).
 */
#define TC_RANKLIST_ST_MAXDIM 3

/* Encode n distinct ranks in increasing order; returns a new array of
 * *len values (free() it); n == 0 gives the single value 0. */
int64_t *tc_ranklist_st_encode(const int32_t *ranks, size_t n, size_t *len);
/*
 * Decode len values into a new array of the ranks in section order
 * (*out, *n; free() it). Returns 0, or -1 when the list is malformed
 * (bad count or dimension, fewer values than announced, a negative
 * iteration count, a rank outside 0 .. INT32_MAX, more than max ranks).
 */
int tc_ranklist_st_decode(const int64_t *v, size_t len, size_t max, int32_t **out,
			  size_t *n);

/* The encoding as text, values separated by one space (returns new). */
char *tc_ranklist_st_text(const int64_t *v, size_t len);
/* Ranks in increasing order as plain ranges, "0-3,5,8-15"; "-" for an
 * empty set (returns new). */
char *tc_ranklist_ranges_text(const int32_t *ranks, size_t n);

/*
 * Parse "0,3,5-7" into a new array of ranks in the order given (ranges
 * ascending). Returns 0, or -1 with a message in err (empty item, bad
 * number, descending range, a rank twice, more than max ranks).
 */
int tc_parse_ranks(const char *s, size_t max, int32_t **out, size_t *n, struct tc_error *err);

#endif
