/*
 * accuracy.h - how closely one event stream of a rank reproduces another
 * (the clustered global trace expanded to the rank vs its original
 * trace), and the space formulas for clustered tracing.
 *
 * Matching percentages (dissertation §4.4, Table 4.2: "the percentage of
 * matching clustered parameters relative to non-clustered ones"), events
 * paired by position in each rank's sequence:
 *
 *   COUNT    events with a count whose op and count are equal
 *   LOOP     loops of the two sequences, each compressed into loops again
 *            (lib/rsd.h) and listed in pre-order: positions whose
 *            iteration count and body length are equal, over the longer list
 *   EVENTS   sum over ranks of min(n, n') / sum of max(n, n')
 *   SRC      receive sources (receives, the receive side of sendrecv, and
 *            the actual sources of completed receives) that are equal
 *   DEST     send destinations (sends, send side of sendrecv) that are equal
 *   TAG      point-to-point tags that are equal
 *   COMM     communicator creation: calls that carry a colour and key
 *            (MPI_Comm_split, MPI_Comm_split_type) whose op, colour and
 *            key are equal; the signatures do not see them, so a lead
 *            standing for members that split with their own colours (NPB
 *            FT) gives them its own
 *
 * Each is matched / items of the original, summed over ranks; 100% when
 * the original has no such item.
 */
#ifndef TC_ACCURACY_H
#define TC_ACCURACY_H

#include "compat.h"

struct tc_event;
struct tc_rsd_opts;

enum { TC_MATCH_COUNT = 0, TC_MATCH_LOOP, TC_MATCH_EVENTS, TC_MATCH_SRC, TC_MATCH_DEST,
       TC_MATCH_TAG, TC_MATCH_COMM, TC_MATCH_N };

/* "count", "loop", "events", "src", "dest", "tag", "comm". */
const char *tc_match_name(int which);

struct tc_match {
	uint64_t items[TC_MATCH_N];
	uint64_t matched[TC_MATCH_N];
};

/* An event stream: next() fills ev (arrays borrowed until the next call)
 * and returns false at the end; sigs[id] is the stack signature of call
 * site id (nsigs of them). */
struct tc_evstream {
	bool (*next)(void *it, struct tc_event *ev);
	void *it;
	const uint64_t *sigs;
	size_t nsigs;
};

/* Add the comparison of one rank's original stream a with b to m. */
void tc_match_rank(struct tc_match *m, int32_t rank, const struct tc_evstream *a,
		   const struct tc_evstream *b, const struct tc_rsd_opts *opts);
void tc_match_add(struct tc_match *m, const struct tc_match *o);
/* Percent matched of one measure. */
double tc_match_pct(const struct tc_match *m, int which);

/*
 * Average space per process in bytes (ICS'14 §5.3, Table 6; dissertation
 * Table 4.8), with T the average trace size, S the signature size, P
 * ranks:
 *   no clustering (C == P, MC == 0):  T (P - 1) / P
 *   one level, C clusters:            (T (C - 1) + P S + S C (P - 1)) / P
 *   two levels, MC main, SC sub:      (P S + T (MC - 1) + S (MC + SC) (P - 1)) / P
 * none: pass clusters = P and mains = 0 with none = true.
 */
double tc_space_per_process(double T, double S, uint64_t P, uint64_t clusters, uint64_t mains,
			    bool none);

#endif
