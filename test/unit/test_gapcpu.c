/*
 * test_gapcpu.c - the CPU time of compute gaps recorded on an
 * oversubscribed node (cmd/mpi/gapcpu.h), on constructed timelines: ranks
 * on 2 cores with gaps that overlap in known ways, and a random timeline
 * of 16 ranks whose gaps together must have had exactly the cores'
 * worth of time where more ranks than cores computed.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "cmd/mpi/gapcpu.h"
#include "lib/skew.h"

#include <math.h>
#include <stdlib.h>

#define MS 1000000
#define US 1000
#define NEAR(a, b) (fabs((double)(a) - (double)(b)) <= 1e-6 * (1 + fabs((double)(b))))
#define CHECK_NEAR_NS(a, b)                                                      \
	do {                                                                     \
		if (!NEAR(a, b))                                                 \
			unit_fail(__FILE__, __LINE__, "%s == %s: %.3f != %.3f", #a, #b, \
				  (double)(a), (double)(b));                     \
	} while (0)

/* 2 cores, the rest of a 1.5 ms slice (0.75 ms) as the head of a gap */
static const struct tc_gapcpu_node two_cores = { .cores = 2, .head = 0.75 * MS };

TEST(gapcpu_no_more_ranks_than_cores_compute_at_full_speed)
{
	int64_t g[] = { 0, 5 * MS, 1 * MS, 4 * MS, 6 * MS, 6 * MS + 300 };
	double c[3];

	tc_gapcpu(g, 3, &two_cores, c);
	CHECK_NEAR_NS(c[0], 5 * MS);
	CHECK_NEAR_NS(c[1], 3 * MS);
	CHECK_NEAR_NS(c[2], 300);
}

TEST(gapcpu_four_ranks_on_two_cores_share_them)
{
	/* 4 ranks compute over the same 8 ms: a core for two of them */
	int64_t g[] = { 0, 8 * MS, 0, 8 * MS, 0, 8 * MS, 0, 8 * MS };
	double c[4];

	tc_gapcpu(g, 4, &two_cores, c);
	for (int j = 0; j < 4; j++)
		CHECK_NEAR_NS(c[j], 4 * MS);
}

TEST(gapcpu_short_gaps_together_share_the_cores)
{
	/* 4 gaps shorter than the head, at once: half a core each, not the
	 * whole one a short gap alone would have */
	int64_t g[] = { 0, 100 * US, 0, 100 * US, 0, 100 * US, 0, 100 * US };
	int64_t alone[] = { 0, 100 * US, 50 * US, 150 * US };
	double c[4];

	tc_gapcpu(g, 4, &two_cores, c);
	for (int j = 0; j < 4; j++)
		CHECK_NEAR_NS(c[j], 50 * US);
	tc_gapcpu(alone, 2, &two_cores, c);
	CHECK_NEAR_NS(c[0], 100 * US);
	CHECK_NEAR_NS(c[1], 100 * US);
}

TEST(gapcpu_a_rank_just_out_of_mpi_keeps_its_core)
{
	/* ranks 0 and 1 compute 10 ms; ranks 2 and 3 return from MPI at
	 * 5 ms and compute 100 us on the cores they returned on, while 0
	 * and 1 wait */
	int64_t g[] = { 0, 10 * MS, 0, 10 * MS, 5 * MS, 5 * MS + 100 * US,
			5 * MS, 5 * MS + 100 * US };
	double c[4];

	tc_gapcpu(g, 4, &two_cores, c);
	CHECK_NEAR_NS(c[0], 10 * MS - 100 * US);
	CHECK_NEAR_NS(c[1], 10 * MS - 100 * US);
	CHECK_NEAR_NS(c[2], 100 * US);
	CHECK_NEAR_NS(c[3], 100 * US);
	/* three of them at once: the heads share the two cores */
	g[1] = 5 * MS + 100 * US;
	g[0] = 5 * MS;
	tc_gapcpu(g, 4, &two_cores, c);
	CHECK_NEAR_NS(c[0], 200.0 / 3 * US);
	CHECK_NEAR_NS(c[1], 10 * MS - 100 * US);
	CHECK_NEAR_NS(c[2], 200.0 / 3 * US);
}

TEST(gapcpu_other_jobs_share_what_the_heads_leave)
{
	/* one rank computes 10 ms beside 3 tasks of other jobs: its head
	 * on its own core, then 2 cores among 4 tasks */
	struct tc_gapcpu_node busy = two_cores;
	int64_t g[] = { 0, 10 * MS };
	double c[1];

	busy.other = 3;
	tc_gapcpu(g, 1, &busy, c);
	CHECK_NEAR_NS(c[0], 0.75 * MS + 9.25 * MS / 2);
	/* no head: the share throughout */
	busy.head = 0;
	tc_gapcpu(g, 1, &busy, c);
	CHECK_NEAR_NS(c[0], 5 * MS);
}

TEST(gapcpu_empty_and_backward_gaps_have_none)
{
	int64_t g[] = { 5, 5, 9, 3 };
	double c[2] = { -1, -1 };

	tc_gapcpu(g, 2, &two_cores, c);
	CHECK(c[0] == 0 && c[1] == 0);
	tc_gapcpu(NULL, 0, &two_cores, NULL);
}

static uint64_t rng(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return *s >> 33;
}

/* the time during which k gaps are open, summed over k as min(k, cores) */
static double cores_busy(const int64_t *g, size_t n, int cores)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	double sum = 0;

	for (size_t j = 0; j < 2 * n; j++) {
		lo = g[j] < lo ? g[j] : lo;
		hi = g[j] > hi ? g[j] : hi;
	}
	/* by the microsecond: the constructed times are whole microseconds */
	for (int64_t t = lo; t < hi; t += US) {
		int k = 0;
		for (size_t j = 0; j < n; j++)
			k += g[2 * j] <= t && t < g[2 * j + 1];
		sum += (double)(k < cores ? k : cores) * US;
	}
	return sum;
}

TEST(gapcpu_random_timeline_conserves_the_cores)
{
	enum { RANKS = 16, GAPS = 40 };
	int64_t *g = malloc(sizeof(*g) * 2 * RANKS * GAPS);
	double *c = malloc(sizeof(*c) * RANKS * GAPS), sum = 0;
	uint64_t seed = 42;
	size_t n = 0;

	/* each rank alternates MPI calls and gaps of 1 us to 3 ms */
	for (int r = 0; r < RANKS; r++) {
		int64_t t = (int64_t)(rng(&seed) % 50) * US;
		for (int k = 0; k < GAPS; k++) {
			int64_t len = (int64_t)(1 + rng(&seed) % (rng(&seed) % 2 ? 10 : 3000)) * US;
			g[2 * n] = t;
			g[2 * n + 1] = t + len;
			n++;
			t += len + (int64_t)(rng(&seed) % 400) * US;
		}
	}
	tc_gapcpu(g, n, &two_cores, c);
	for (size_t j = 0; j < n; j++) {
		CHECK(c[j] >= 0 && c[j] <= (double)(g[2 * j + 1] - g[2 * j]) + 1e-6);
		sum += c[j];
	}
	/* every moment: the cores each computing rank has, min(k, C) in all */
	CHECK_NEAR_NS(sum, cores_busy(g, n, two_cores.cores));
	free(g);
	free(c);
}

TEST(skews_put_the_ranks_on_their_files_clock)
{
	/* rank 1 began 3 ms after rank 0 and left MPI_Init 1 ms after it on
	 * the shared clock; rank 2 began 1 ms after rank 0 and left with it */
	const uint64_t start[3] = { 1000 * MS, 1003 * MS, 1001 * MS };
	const uint64_t end[3] = { 10 * MS, 8 * MS, 9 * MS };
	uint64_t skew[3];

	CHECK(tc_clock_skews(3, start, end, skew));
	CHECK_EQ_U64(skew[0], 0);
	CHECK_EQ_U64(skew[1], 1 * MS);
	CHECK_EQ_U64(skew[2], 0);
	CHECK(tc_skew_check(skew, 3) == NULL);
}

TEST(skews_without_a_shared_clock_are_not_known)
{
	const uint64_t start[2] = { 1000 * MS, 0 }, late[2] = { 1000 * MS, 1020 * MS };
	const uint64_t end[2] = { 10 * MS, 8 * MS };
	uint64_t skew[2] = { 7, 7 };

	/* a rank without a start, a rank that began after another left
	 * MPI_Init (which ends with the others'), no rank: not one clock */
	CHECK(!tc_clock_skews(2, start, end, skew));
	CHECK(!tc_clock_skews(2, late, end, skew));
	CHECK(!tc_clock_skews(0, start, end, skew));
	CHECK(skew[0] == 7 && skew[1] == 7);
}

TEST(skews_read_back_are_checked)
{
	const uint64_t ok[3] = { 5, 0, TC_SKEW_MAX_NS }, none0[2] = { 5, 6 };
	const uint64_t big[2] = { 0, TC_SKEW_MAX_NS + 1 };

	CHECK(tc_skew_check(ok, 3) == NULL);
	CHECK(tc_skew_check(none0, 2) != NULL);
	CHECK(tc_skew_check(big, 2) != NULL);
}

TEST(concurrency_is_the_time_at_each_count_of_ranks_in_gaps)
{
	/* 0-10 and 5-15 overlap over 5-10; 20-30 alone; 12-13 inside 5-15 */
	const int64_t g[8] = { 0, 10, 5, 15, 20, 30, 12, 13 };
	uint64_t ns[4], two[2];

	CHECK_EQ_U64(tc_gap_concurrency(g, 4, ns, 4), 2);
	CHECK_EQ_U64(ns[0], 5 + 4 + 10);
	CHECK_EQ_U64(ns[1], 5 + 1);
	CHECK_EQ_U64(ns[2], 0);
	/* more than max at once are counted at max */
	CHECK_EQ_U64(tc_gap_concurrency(g, 4, two, 1), 1);
	CHECK_EQ_U64(two[0], 25);
	CHECK_EQ_U64(tc_gap_concurrency(g, 0, ns, 4), 0);
}

TEST(calibration_brings_a_rebuilt_timeline_to_the_recorded_concurrency)
{
	/* recorded: never more than 2 ranks in gaps on 2 cores (all CPU);
	 * rebuilt: the same gap time, half of it with 4 ranks at once */
	const uint64_t exact[2] = { 100, 50 };      /* 100 + 2 * 50 = 200 of gaps */
	const uint64_t approx[4] = { 60, 20, 0, 30 }; /* 60 + 40 + 4 * 30 = 220 */
	double f = tc_gapcpu_calibration(exact, 2, approx, 4, 2);

	/* 200 of CPU against 60 + 40 + 2 * 30 = 160 */
	CHECK(fabs(f - 200.0 / 160.0) < 1e-12);
	CHECK(tc_gapcpu_calibration(exact, 0, approx, 4, 2) == 1);
	CHECK(tc_gapcpu_calibration(exact, 2, approx, 0, 2) == 1);
}

TEST(scale_keeps_each_gap_within_its_length)
{
	/* gaps of 100 and 100 with 50 and 90 of CPU: 1.25 times the total
	 * (175) fills the second and gives the first the rest, 1.5 times */
	const int64_t g[4] = { 0, 100, 200, 300 };
	double cpu[2] = { 50, 90 }, f;

	f = tc_gapcpu_scale(cpu, g, 2, 1.25);
	CHECK(fabs(cpu[1] - 100) < 1e-9);
	CHECK(fabs(cpu[0] - 75) < 1e-6);
	CHECK(fabs(f - 1.5) < 1e-6);
	/* more than the gaps hold: each its length */
	cpu[0] = 50;
	cpu[1] = 90;
	tc_gapcpu_scale(cpu, g, 2, 10);
	CHECK(fabs(cpu[0] - 100) < 1e-6 && fabs(cpu[1] - 100) < 1e-6);
	/* less: both by the factor */
	cpu[0] = 50;
	cpu[1] = 90;
	f = tc_gapcpu_scale(cpu, g, 2, 0.5);
	CHECK(fabs(f - 0.5) < 1e-6 && fabs(cpu[0] - 25) < 1e-6 && fabs(cpu[1] - 45) < 1e-6);
}
