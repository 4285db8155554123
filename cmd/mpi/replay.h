/*
 * replay.h - tracecluster-replay: one rank's events re-executed as MPI
 * calls (ops.c) and how they are loaded (replay.c).
 */
#ifndef TC_CMD_MPI_REPLAY_H
#define TC_CMD_MPI_REPLAY_H

#include "lib/compat.h"

#include <stdatomic.h>

struct tc_error;
struct tc_event;

/* One rank's events, arrays included (owned). */
struct tc_revents {
	struct tc_event *ev;
	size_t n, alloc;
	uint64_t *words;          /* the events' completion and count arrays */
};

/* The events of rank in path (a .tct global trace expanded for the rank,
 * or the rank's file of a trace set), which must be of world ranks.
 * Returns 0, or -1 with err filled. */
int tc_revents_load(struct tc_revents *r, const char *path, int32_t rank, int32_t world,
		    struct tc_error *err);
void tc_revents_release(struct tc_revents *r);

struct tc_replay_opts {
	bool compute;             /* replay the compute gaps */
	bool spin;                /* by busy waiting (else by sleeping) */
	bool any_recorded;        /* wildcard receives name the recorded source */
	bool quiet;
};

/* Exit status of a rank the watchdog stopped. */
#define TC_REPLAY_EXIT_STUCK 3

struct tc_rcomm;
struct tc_rreq;

struct tc_replay_mpi {
	const struct tc_replay_opts *o;
	const struct tc_revents *evs;
	int32_t rank, world;
	/* per event: the source a wildcard receive or probe names (the one
	 * it matched in the trace), or TC_ANY_SOURCE */
	int32_t *src;
	struct tc_rcomm *comms;   /* by communicator id */
	size_t ncomms;
	struct tc_rreq *reqs;     /* live requests and messages */
	size_t nreqs, areqs;
	char *sbuf, *rbuf;        /* zeroed, large enough for any event */
	size_t buf_bytes;
	void *bsend;              /* attached for buffered sends */
	uint64_t skipped;         /* events of operations not replayed */
	unsigned first_skipped;
	/* read by the watchdog thread */
	atomic_uint_least64_t progress; /* index of the event in progress */
	atomic_bool in_mpi;       /* inside its MPI call */
};

void tc_replay_mpi_init(struct tc_replay_mpi *s, const struct tc_replay_opts *o,
			const struct tc_revents *evs, int32_t rank, int32_t world);
/* Replay every event (MPI initialised; the trace's own Init and Finalize
 * are the program's). */
void tc_replay_mpi_run(struct tc_replay_mpi *s);
void tc_replay_mpi_release(struct tc_replay_mpi *s);

#endif
