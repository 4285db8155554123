#include "compat.h"
#include "ranklist.h"
#include "xalloc.h"

#include <stdlib.h>

void tc_ranklist_init(struct tc_ranklist *rl)
{
	rl->runs = NULL;
	rl->nruns = 0;
	rl->alloc = 0;
	rl->count = 0;
}

void tc_ranklist_release(struct tc_ranklist *rl)
{
	free(rl->runs);
	tc_ranklist_init(rl);
}

void tc_ranklist_add(struct tc_ranklist *rl, int32_t rank)
{
	struct tc_run *last = rl->nruns ? &rl->runs[rl->nruns - 1] : NULL;

	rl->count++;
	if (last) {
		int64_t next = (int64_t)last->start + (int64_t)last->stride * last->len;
		if (last->len == 1 && rank != last->start) {
			int64_t d = (int64_t)rank - last->start;
			if (d >= INT32_MIN && d <= INT32_MAX) {
				last->stride = (int32_t)d;
				last->len = 2;
				return;
			}
		} else if (last->len > 1 && next == rank && last->len < UINT32_MAX) {
			last->len++;
			return;
		}
	}
	TC_ALLOC_GROW(rl->runs, rl->nruns + 1, rl->alloc);
	rl->runs[rl->nruns].start = rank;
	rl->runs[rl->nruns].len = 1;
	rl->runs[rl->nruns].stride = 1;
	rl->nruns++;
}

void tc_ranklist_add_run(struct tc_ranklist *rl, int32_t start, uint32_t len, int32_t stride)
{
	if (!len)
		return;
	TC_ALLOC_GROW(rl->runs, rl->nruns + 1, rl->alloc);
	rl->runs[rl->nruns].start = start;
	rl->runs[rl->nruns].len = len;
	rl->runs[rl->nruns].stride = stride;
	rl->nruns++;
	rl->count += len;
}

void tc_ranklist_from_array(struct tc_ranklist *rl, const int32_t *v, size_t n)
{
	rl->nruns = 0;
	rl->count = 0;
	for (size_t i = 0; i < n; i++)
		tc_ranklist_add(rl, v[i]);
}

void tc_ranklist_expand(const struct tc_ranklist *rl, int32_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < rl->nruns; i++) {
		const struct tc_run *r = &rl->runs[i];
		for (uint32_t j = 0; j < r->len; j++)
			out[k++] = (int32_t)((int64_t)r->start + (int64_t)r->stride * j);
	}
}

bool tc_ranklist_contains(const struct tc_ranklist *rl, int32_t rank)
{
	for (size_t i = 0; i < rl->nruns; i++) {
		const struct tc_run *r = &rl->runs[i];
		int64_t d = (int64_t)rank - r->start;
		if (r->stride == 0) {
			if (d == 0)
				return true;
			continue;
		}
		if (d % r->stride == 0) {
			int64_t j = d / r->stride;
			if (j >= 0 && j < r->len)
				return true;
		}
	}
	return false;
}
