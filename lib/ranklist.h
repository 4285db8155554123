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
/* Append a whole run (len ranks from start by stride); len 0 adds nothing. */
void tc_ranklist_add_run(struct tc_ranklist *rl, int32_t start, uint32_t len, int32_t stride);
/* Build from n values in order (rl is reset first). */
void tc_ranklist_from_array(struct tc_ranklist *rl, const int32_t *v, size_t n);
/* Write all ranks into out (rl->count entries). */
void tc_ranklist_expand(const struct tc_ranklist *rl, int32_t *out);
/* Whether rank is a member (linear in the number of runs). */
bool tc_ranklist_contains(const struct tc_ranklist *rl, int32_t rank);

#endif
