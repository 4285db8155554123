/*
 * skew.c - the ranks of one host on one clock (skew.h).
 */
#include "lib/compat.h"
#include "lib/skew.h"

bool tc_clock_skews(size_t n, const uint64_t *start, const uint64_t *first_end, uint64_t *skew)
{
	uint64_t first = UINT64_MAX, left = UINT64_MAX;

	if (!n)
		return false;
	for (size_t r = 0; r < n; r++) {
		if (!start[r])
			return false;
		if (start[r] < first)
			first = start[r];
	}
	/* rank r left its first event at start[r] - first + first_end[r] on
	 * the shared clock; the first to leave is time 0 */
	for (size_t r = 0; r < n; r++) {
		uint64_t off = start[r] - first;
		if (first_end[r] > UINT64_MAX - off)
			return false;
		if (off + first_end[r] < left)
			left = off + first_end[r];
	}
	/* each rank's MPI_Init ends with the others', so none started after
	 * the first left it: a clock that says otherwise is not shared */
	for (size_t r = 0; r < n; r++)
		if (start[r] - first > left || start[r] - first + first_end[r] - left > TC_SKEW_MAX_NS)
			return false;
	for (size_t r = 0; r < n; r++)
		skew[r] = start[r] - first + first_end[r] - left;
	return true;
}

const char *tc_skew_check(const uint64_t *skew, size_t n)
{
	bool zero = false;

	for (size_t r = 0; r < n; r++) {
		if (skew[r] > TC_SKEW_MAX_NS)
			return "a skew beyond 10^13 ns";
		zero = zero || !skew[r];
	}
	return zero || !n ? NULL : "no rank's skew is 0";
}
