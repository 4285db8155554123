/*
 * test_discount.c - the tracer's time taken out of recorded compute gaps
 * (cmd/mpi/discount.h), on constructed event sequences: the gaps after an
 * op give its mean each in all, a shorter gap its whole length and the
 * longer ones the rest up to one cap, every op on its own.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "cmd/mpi/discount.h"

#include <string.h>

/* events of ops[0..n) whose gaps after each are gaps[0..n-1) (the last
 * event has none), each call 10 ns long */
static void sequence(struct tc_event *ev, const unsigned *ops, const uint64_t *gaps, size_t n)
{
	uint64_t t = 1000;

	for (size_t i = 0; i < n; i++) {
		tc_event_init(&ev[i]);
		ev[i].op = ops[i];
		ev[i].t_start = t;
		ev[i].t_end = t + 10;
		t = ev[i].t_end + (i + 1 < n ? gaps[i] : 0);
	}
}

/* the gap after event i once discounted */
static uint64_t left(const struct tc_event *ev, size_t i)
{
	return ev[i + 1].t_start > ev[i].t_end ? ev[i + 1].t_start - ev[i].t_end : 0;
}

TEST(discount_gives_the_mean_per_gap_in_all_the_short_ones_whole)
{
	/* after the first and before the last: gaps 100, 200, 900, 1000 after
	 * SEND; a mean of 300 is 1200 in all: 100 and 200 whole, the cap 450
	 * from each of the long ones */
	unsigned ops[] = { TC_OP_INIT, TC_OP_SEND, TC_OP_SEND, TC_OP_SEND, TC_OP_SEND,
			   TC_OP_FINALIZE };
	uint64_t gaps[] = { 5000, 100, 200, 900, 1000 };
	struct tc_event ev[6];

	sequence(ev, ops, gaps, 6);
	CHECK_EQ_U64(tc_tracer_discount(ev, 6, 300, NULL), 1200);
	CHECK_EQ_U64(left(ev, 0), 5000); /* the first event's gap is the program's */
	CHECK_EQ_U64(left(ev, 1), 0);
	CHECK_EQ_U64(left(ev, 2), 0);
	CHECK_EQ_U64(left(ev, 3), 450);
	CHECK_EQ_U64(left(ev, 4), 550);
	/* every gap kept its start: only t_end moved */
	CHECK_EQ_U64(ev[4].t_start, 1000 + 10 + 5000 + 10 + 100 + 10 + 200 + 10 + 900);
}

TEST(discount_takes_every_gap_whole_when_they_are_shorter_together)
{
	unsigned ops[] = { TC_OP_INIT, TC_OP_WAIT, TC_OP_WAIT, TC_OP_WAIT, TC_OP_FINALIZE };
	uint64_t gaps[] = { 7, 100, 50, 20 };
	struct tc_event ev[5];

	sequence(ev, ops, gaps, 5);
	CHECK_EQ_U64(tc_tracer_discount(ev, 5, 1000, NULL), 170);
	for (size_t i = 1; i < 4; i++)
		CHECK_EQ_U64(left(ev, i), 0);
	CHECK_EQ_U64(left(ev, 0), 7);
}

TEST(discount_each_op_its_own_mean_and_cap)
{
	/* SEND gaps 100, 500 (mean 200: 400 in all, 100 whole and 300 of the
	 * 500); WAITALL gaps 3000, 10000 (mean 2000: a cap of 2000 each);
	 * IRECV without a mean of its own takes the mean over all, 50 */
	unsigned ops[] = { TC_OP_INIT, TC_OP_SEND, TC_OP_WAITALL, TC_OP_SEND, TC_OP_WAITALL,
			   TC_OP_IRECV, TC_OP_FINALIZE };
	uint64_t gaps[] = { 1, 100, 3000, 500, 10000, 80 };
	uint32_t per_op[TC_OP_MAX];
	struct tc_event ev[7];

	memset(per_op, 0, sizeof(per_op));
	per_op[TC_OP_SEND] = 200 + 1;
	per_op[TC_OP_WAITALL] = 2000 + 1;
	sequence(ev, ops, gaps, 7);
	CHECK_EQ_U64(tc_tracer_discount(ev, 7, 50, per_op), 400 + 4000 + 50);
	CHECK_EQ_U64(left(ev, 1), 0);
	CHECK_EQ_U64(left(ev, 3), 200);
	CHECK_EQ_U64(left(ev, 2), 1000);
	CHECK_EQ_U64(left(ev, 4), 8000);
	CHECK_EQ_U64(left(ev, 5), 30);
	/* a recorded mean of 0 is one: nothing out of that op's gaps */
	per_op[TC_OP_IRECV] = 0 + 1;
	sequence(ev, ops, gaps, 7);
	CHECK_EQ_U64(tc_tracer_discount(ev, 7, 50, per_op), 400 + 4000);
	CHECK_EQ_U64(left(ev, 5), 80);
}

TEST(discount_rounds_the_cap_up_by_less_than_a_ns_per_gap)
{
	/* 3 gaps of 10, 10, 10 and a mean of 5 with one gap of 1: want 20
	 * from 1, 10, 10, 10 (4 gaps): 1 whole, the cap ceil(19 / 3) = 7 */
	unsigned ops[] = { TC_OP_INIT, TC_OP_SEND, TC_OP_SEND, TC_OP_SEND, TC_OP_SEND,
			   TC_OP_FINALIZE };
	uint64_t gaps[] = { 0, 1, 10, 10, 10 };
	struct tc_event ev[6];
	uint64_t out;

	sequence(ev, ops, gaps, 6);
	out = tc_tracer_discount(ev, 6, 5, NULL);
	CHECK(out >= 20 && out < 20 + 4);
	CHECK_EQ_U64(left(ev, 1), 0);
	CHECK_EQ_U64(left(ev, 2), 3);
	/* nothing to take: no mean, too few events */
	sequence(ev, ops, gaps, 6);
	CHECK_EQ_U64(tc_tracer_discount(ev, 6, 0, NULL), 0);
	CHECK_EQ_U64(tc_tracer_discount(ev, 2, 100, NULL), 0);
}

TEST(discount_leaves_calls_that_overlap_and_ops_without_a_mean)
{
	/* the third event starts before the second's recorded end (an
	 * estimated end): no gap, nothing out of it, and it does not count
	 * among the op's gaps; WAIT has a mean of its own, SEND none and the
	 * mean over all is 0: the gaps after SEND keep all */
	unsigned ops[] = { TC_OP_INIT, TC_OP_WAIT, TC_OP_WAIT, TC_OP_SEND, TC_OP_WAIT,
			   TC_OP_FINALIZE };
	uint64_t gaps[] = { 0, 100, 0, 400, 300 };
	uint32_t per_op[TC_OP_MAX];
	struct tc_event ev[6];

	memset(per_op, 0, sizeof(per_op));
	per_op[TC_OP_WAIT] = 150 + 1;
	sequence(ev, ops, gaps, 6);
	ev[3].t_start = ev[2].t_end - 5; /* overlaps the call before */
	ev[3].t_end = ev[3].t_start + 10;
	/* WAIT's gaps: 100 and 300 (the overlapped one none): 300 in all,
	 * 100 whole and 200 of the 300 */
	CHECK_EQ_U64(tc_tracer_discount(ev, 6, 0, per_op), 300);
	CHECK_EQ_U64(left(ev, 1), 0);
	CHECK_EQ_U64(left(ev, 2), 0);
	CHECK_EQ_U64(left(ev, 3), 405);
	CHECK_EQ_U64(left(ev, 4), 100);
}
