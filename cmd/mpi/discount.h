/*
 * discount.h - the capture shim's own time taken out of the recorded
 * compute gaps before a replay re-enacts them (discount.c; no MPI, so
 * that it is tested alone).
 */
#ifndef TC_CMD_MPI_DISCOUNT_H
#define TC_CMD_MPI_DISCOUNT_H

#include "lib/compat.h"
#include "lib/event.h"

/*
 * Take the tracer's time out of the gaps after each event but the first
 * and the last: after a call of op, the shim's mean after that op's calls
 * (per_op, where it has one; else mean) per gap in all; the event's t_end
 * moves on by as much. A mean is a mean: the tracer's time varies from
 * call to call, and a gap shorter than its op's mean had less of it, so
 * the op's other gaps had more. Every gap after op gives min(gap, cap),
 * the cap (at least the mean) such that those gaps give the mean each
 * in all, or all of them their whole length when they are shorter
 * together. Taking min(gap, mean) from each instead would leave in the
 * gaps the part of the tracer's time the short ones had no room for (NPB
 * CG at 16 ranks on 2 cores: its gaps' median is 30 ns untraced, the
 * tracer's mean 300 ns, and a quarter of the tracer's time stayed); one
 * mean for every op would take the time of a costly op's record (an
 * MPI_Waitall's completions) out of the gaps after cheap ones, or, where
 * those are short, out of the computing after the costly one. Returns the
 * ns taken out in all.
 *
 * ev[0..n) are one rank's events in order; per_op (NULL: none) holds
 * each op's mean plus 1, 0 for an op without one.
 */
uint64_t tc_tracer_discount(struct tc_event *ev, size_t n, uint64_t mean, const uint32_t *per_op);

#endif
