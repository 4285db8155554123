/*
 * Unit tests of lib/trace.h helpers: finding a rank's trace among traces
 * sorted by rank.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "lib/trace.h"

#include <string.h>

TEST(rank_trace_find)
{
	/* ranks 1, 4, 5, 9 of a world of 12 */
	static const int32_t ranks[] = { 1, 4, 5, 9 };
	struct tc_rank_trace *t[4];

	for (size_t i = 0; i < 4; i++)
		t[i] = tc_rank_trace_new(ranks[i], 12, NULL);
	for (int32_t r = -1; r < 13; r++) {
		const struct tc_rank_trace *f = tc_rank_trace_find(t, 4, r);
		const struct tc_rank_trace *want = NULL;
		for (size_t i = 0; i < 4; i++)
			if (ranks[i] == r)
				want = t[i];
		CHECK(f == want);
		if (f)
			CHECK_EQ_I64(f->rank, r);
	}
	/* a prefix only: rank 9 is past its end */
	CHECK(tc_rank_trace_find(t, 3, 9) == NULL);
	CHECK(tc_rank_trace_find(t, 3, 5) == t[2]);
	CHECK(tc_rank_trace_find(t, 1, 1) == t[0]);
	CHECK(tc_rank_trace_find(t, 0, 1) == NULL);
	CHECK(tc_rank_trace_find(NULL, 4, 1) == NULL);
	for (size_t i = 0; i < 4; i++)
		tc_rank_trace_free(&t[i]);
}
