/*
 * evsource.h - every rank's events, for figures that pick some of them
 * (heatmap --comm, --window, --phase, --histogram): a trace set read as
 * recorded, with its exact times, or a global trace expanded.
 *
 * tc_anl (analysis/analysis.h) holds a trace set compressed into loops,
 * whose times come back as the means of their statistics; a time window
 * must see the times as recorded, so a trace set is read again here, file
 * by file on the pool.
 */
#ifndef TC_ANALYSIS_EVSOURCE_H
#define TC_ANALYSIS_EVSOURCE_H

#include "lib/compat.h"

struct tc_error;
struct tc_event;
struct tc_gtrace;
struct tc_matrix_comm;
struct tc_pool;
struct tc_rank_trace;
struct tc_traceset;

struct tc_evsrc {
	const struct tc_traceset *ts;  /* a trace set (borrowed), or */
	const struct tc_gtrace *g;     /* a global trace (borrowed), expanded */
	/* g: the communicators of each rank (members included) from these
	 * traces, sorted by rank; NULL: the world communicator only */
	struct tc_rank_trace *const *traces;
	size_t ntraces;
};

/*
 * fn(ctx, slot, rank, ev, site, comm, t) sees one rank's events in order,
 * on one worker; ranks run in parallel, each in its own slot (0 .. 
 * tc_evsrc_slots - 1), so that per-rank results kept by slot can be
 * reduced in slot order. site is the stack signature of the event's call
 * site (0: none), comm its communicator as the matrices see it (NULL:
 * the world communicator, or one not recorded), t its start in ns from
 * the start of the run (the earliest rank's start; a global trace's
 * ranks all start at 0).
 */
typedef void (*tc_evsrc_fn)(void *ctx, size_t slot, int32_t rank, const struct tc_event *ev,
			    uint64_t site, const struct tc_matrix_comm *comm, uint64_t t);

/*
 * One rank's communicators in a global trace's own table (a .tct read
 * without its trace set), for the matrices: init keeps the table's
 * entries of the rank (none in a trace written before it had a table),
 * get gives the communicator id as the matrices see it, or NULL (the
 * world, and ids the table lacks).
 */
struct tc_gcomm;
struct tc_evsrc_comms {
	const struct tc_gcomm **c;
	size_t n;
};
void tc_evsrc_comms_init(struct tc_evsrc_comms *t, const struct tc_gtrace *g, int32_t rank);
const struct tc_matrix_comm *tc_evsrc_comms_get(const struct tc_evsrc_comms *t, uint32_t id,
						struct tc_matrix_comm *mc);
void tc_evsrc_comms_release(struct tc_evsrc_comms *t);

/* Communicator id of trace t as the matrices see it (members, grid and
 * graph borrowed from t), or NULL for the world and for one t lacks. */
const struct tc_matrix_comm *tc_evsrc_trace_comm(const struct tc_rank_trace *t, uint32_t id,
						 struct tc_matrix_comm *mc);

size_t tc_evsrc_slots(const struct tc_evsrc *s);
int32_t tc_evsrc_world(const struct tc_evsrc *s);
/* Returns 0, or -1 with err filled when a file cannot be read. */
int tc_evsrc_each(const struct tc_evsrc *s, struct tc_pool *pool, tc_evsrc_fn fn, void *ctx,
		  struct tc_error *err);

#endif
