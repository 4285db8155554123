/*
 * replay.h - a deterministic simulated replay of MPI event streams.
 *
 * Every rank's events are fed in order through a callback; the replay
 * keeps one clock per rank and advances it by
 *
 *   compute gaps   the time between the end of an event and the start of
 *                  the next, taken from the trace (off with gaps = false);
 *   point-to-point LogGP (Alexandrov et al. 1995): a send of k bytes starts
 *                  at max(clock, previous send start + g), keeps the
 *                  sender busy o + (k-1)G and arrives L later; a receive
 *                  completes at max(clock, arrival) + o. Sends are eager
 *                  (a blocking send returns once injected; synchronous
 *                  sends too, which the model does not distinguish);
 *                  a nonblocking receive is matched when it is completed
 *                  (wait/test families), in MPI's order: the first
 *                  unmatched message from the source (the actual source
 *                  of an MPI_ANY_SOURCE receive from its completion) with
 *                  the tag; a receive request cancelled (MPI_Cancel)
 *                  before its completion completes there without a
 *                  message, as MPI completes a cancelled request, unless
 *                  the completion names an actual source (the message
 *                  had matched, so the cancel failed); a cancelled send
 *                  completes as any send (its message stays sent: a trace
 *                  does not tell whether the cancel of a send succeeded);
 *   collectives    synchronising: every member of the communicator
 *                  arrives, then all leave at the latest arrival plus the
 *                  cost of a standard algorithm, with a = L + 2o, b = G,
 *                  k bytes per rank, P members, l = ceil(log2 P):
 *                  barrier l*a (dissemination); bcast, reduce, allreduce,
 *                  scan, exscan, reduce_scatter l*(a + k*b) (binomial tree
 *                  / recursive doubling); gather, scatter, allgather
 *                  l*a + (P-1)*k*b; alltoall (P-1)*(a + k*b) (pairwise
 *                  exchange; v-variants with their total bytes).
 *                  Nonblocking collectives count as blocking at their
 *                  start. Communicators: world, self, and those made by
 *                  comm_dup / comm_split / cart_create on known ones
 *                  (members from the colors and keys every member
 *                  passed); a collective on any other communicator costs
 *                  its formula with P = the replayed ranks and does not
 *                  synchronise.
 *
 * Persistent requests, probes, MPI-IO and communicator calls other than
 * the above take no time beyond their compute gap.
 *
 * Deadlock-safe: when no rank can advance, the replay stops and reports
 * the operations still blocked instead of waiting; lenient, it reports the
 * first such stall, completes the blocked operation of the rank with the
 * lowest clock as if its message had arrived then (a collective: as if its
 * missing members had), counts it, and goes on, so a trace whose
 * end-points are approximate (a clustered trace) still gets a time.
 */
#ifndef TC_REPLAY_H
#define TC_REPLAY_H

#include "compat.h"

struct tc_event;

/* Model parameters, in seconds (G: seconds per byte). */
struct tc_replay_params {
	double L, o, g, G;
	bool gaps;               /* add the compute gaps of the trace */
	bool lenient;            /* on a stall, complete the operation of the
				  * rank blocked earliest without its message
				  * (or the missing members) and go on */
};
#define TC_REPLAY_L_DEFAULT 1.0e-6
#define TC_REPLAY_O_DEFAULT 0.3e-6
#define TC_REPLAY_GAP_DEFAULT 0.2e-6
#define TC_REPLAY_G_DEFAULT 0.1e-9   /* 10 GB/s */
void tc_replay_params_init(struct tc_replay_params *p);

/*
 * Fill ev with the next event of the rank at index idx (0 .. nranks-1);
 * false at its end. ev's arrays may be borrowed until the next call for
 * the same index.
 */
typedef bool (*tc_replay_next_fn)(void *ctx, size_t idx, struct tc_event *ev);

/* An operation that could not complete. */
struct tc_replay_block {
	int32_t rank;
	uint32_t op;
	int32_t peer;            /* source waited for, or TC_PEER_NONE */
	int32_t tag;
};

struct tc_replay_result {
	size_t nranks;
	int32_t *rank;           /* world rank of each index */
	double *time;            /* per rank: its clock at its last event (s) */
	double makespan;
	uint64_t events, messages, collectives;
	uint64_t unmatched_sends; /* messages never received (or to ranks not replayed) */
	bool deadlock;            /* stalled with ranks blocked (stopped, unless lenient) */
	uint64_t forced;          /* lenient: operations completed unmatched */
	struct tc_replay_block *blocked; /* one per blocked rank, at the first stall */
	size_t nblocked;
};

/*
 * Replay nranks ranks whose world ranks are ranks[] (sorted; NULL: 0 ..
 * nranks-1) in a world of world_size. Returns 0 (a deadlock is a result,
 * not an error); res is filled and released with tc_replay_result_release.
 */
int tc_replay_run(size_t nranks, const int32_t *ranks, int32_t world_size,
		  const struct tc_replay_params *p, tc_replay_next_fn next, void *ctx,
		  struct tc_replay_result *res);
void tc_replay_result_release(struct tc_replay_result *res);

/* The cost in seconds of one collective op on P ranks, k bytes per rank
 * (total: the total bytes of a v-variant, 0 if none). */
double tc_replay_coll_cost(const struct tc_replay_params *p, unsigned op, uint64_t P, uint64_t k,
			   uint64_t total);

#endif
