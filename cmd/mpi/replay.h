/*
 * replay.h - tracecluster-replay: one rank's events re-executed as MPI
 * calls (ops.c) and how they are loaded (replay.c).
 */
#ifndef TC_CMD_MPI_REPLAY_H
#define TC_CMD_MPI_REPLAY_H

#include "lib/compat.h"
#include "lib/event.h"

#include <mpi.h>
#include <stdatomic.h>

struct tc_comm;
struct tc_error;
struct tc_event;

/* One rank's events, arrays included (owned), and its communicator table
 * (a raw trace set's; a global trace has none). */
struct tc_revents {
	struct tc_event *ev;
	size_t n, alloc;
	uint64_t *words;          /* the events' completion and count arrays */
	struct tc_comm *comms;    /* members owned */
	size_t ncomms;
	uint64_t tracer_ns;       /* the tracer's time per call in the gaps, as
				   * recorded (a raw file's trailer); 0: none */
	uint32_t tracer_op[TC_OP_MAX]; /* the same after the calls of each op,
				   * plus 1 (0: not recorded, tracer_ns stands) */
	bool has_tracer_op;       /* some op's is recorded */
	uint64_t start_ns;        /* the rank's time 0 on the wall clock, ns since
				   * the epoch (its file's header); 0: not known
				   * (a global trace keeps none) */
	uint64_t host;            /* a hash of the host it was recorded on */
	uint64_t skew;            /* from a global trace that keeps them: when the
				   * rank ended its first event on the recording
				   * host's clock (lib/skew.h), plus 1; 0: not kept */
	uint64_t *conc;           /* with it, the trace's concurrency of the ranks
				   * in their gaps (struct tc_gtrace conc), nconc */
	size_t nconc;
};

/* The events of rank in path (a .tct global trace expanded for the rank,
 * or the rank's file of a trace set), which must be of world ranks.
 * Returns 0, or -1 with err filled. */
int tc_revents_load(struct tc_revents *r, const char *path, int32_t rank, int32_t world,
		    struct tc_error *err);
void tc_revents_release(struct tc_revents *r);

/* How a compute gap passes. */
enum {
	TC_COMPUTE_NONE,          /* it does not: the communication alone */
	TC_COMPUTE_SPIN,          /* busy waiting for its wall time */
	TC_COMPUTE_SLEEP,         /* sleeping for its wall time */
	TC_COMPUTE_CPU,           /* busy for its wall time times cpu_share, of CPU time */
};

struct tc_replay_opts {
	int compute;              /* TC_COMPUTE_* */
	double cpu_share;         /* TC_COMPUTE_CPU: a rank's share of a core when recorded */
	bool timeline;            /* TC_COMPUTE_CPU: the shares are the timeline's (gap_cpu) */
	bool timeline_files;      /* the timeline's ranks on their files' clock
				   * (else each from the end of its MPI_Init) */
	double timeline_calib;    /* its gaps' CPU times brought to the recorded
				   * concurrency by this factor (1: not) */
	double other_load;        /* the timeline's: tasks of other jobs that competed for
				   * the node's cores when it was recorded */
	double node_share;        /* the timeline's: the share of the node's cores the
				   * job had when it was recorded (other jobs took the
				   * rest), in (0, 1] */
	int node_cores;           /* the cores the node's ranks run on (>= 1) */
	int node_ranks;           /* the job's ranks on this node */
	bool any_recorded;        /* wildcard receives name the recorded source */
	bool polls_guarded;       /* an MPI_Improbe that found nothing in the trace
				   * is not issued when a message is there */
	bool quiet;
	const char *tracer_cost;  /* --tracer-cost: "recorded", "mean", "none" or "given" */
	uint64_t tracer_ns;       /* the tracer's ns per call taken out of the gaps, the
				   * mean over all calls (recorded: each op's own
				   * after its calls, where the trace has it) */
};

/* Exit status of a rank the watchdog stopped, and of one whose MPI call
 * failed (an MPI error, such as a message larger than its receive). */
#define TC_REPLAY_EXIT_STUCK 3
#define TC_REPLAY_EXIT_MPI 4

struct tc_rcomm;
struct tc_rreq;
struct tc_rheld;
struct tc_rwin;
struct tc_rfile;

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
	struct tc_rheld *held;    /* messages polls took early, oldest first */
	size_t nheld, aheld;
	uint64_t polls_took;      /* how many */
	uint64_t wild_inferred;   /* wildcard receives the trace does not name
				   * the source of, given an inferred one */
	uint64_t wild_unnamed;    /* such receives left wildcards */
	MPI_Comm *idup;           /* Comm_idup'ed, not yet named by an event */
	size_t nidup;
	struct tc_rwin *wins;     /* one-sided windows */
	size_t nwins;
	size_t rma_bytes;         /* every window's size: the largest access */
	struct tc_rfile *files;   /* MPI-IO files */
	size_t nfiles;
	char *io_dir;             /* their scratch directory */
	unsigned io_seq;          /* files opened, for their names */
	uint64_t compute_ns;      /* the gaps' compute asked for: CPU time under
				   * --compute cpu, else wall time */
	uint64_t *gap_cpu;        /* --compute cpu: the CPU time (ns) of the gap
				   * before each event, or NULL: its time times
				   * cpu_share */
	/* the gap before the event being replayed, computed just before its
	 * MPI call (tc_rp_gap), so that the replay's own work on the event
	 * counts as part of it */
	uint64_t gap_ns;          /* its recorded length; 0: none */
	size_t gap_at;            /* the event it precedes */
	uint64_t gap_back;        /* wall-clock ns the previous event's call
				   * returned (0: not known); once the gap
				   * is computed, the event's own
				   * (tc_rp_returned, or the loop after it) */
	bool gap_pending;         /* the event's gap not yet computed */
	uint64_t debt_ns;         /* the replay's own time between its calls
				   * beyond what the gaps asked for so far,
				   * taken out of the next gaps */
	char *sbuf, *rbuf;        /* zeroed, large enough for any event */
	size_t buf_bytes;
	void *bsend;              /* attached for buffered sends */
	uint64_t skipped;         /* events of operations not replayed */
	unsigned first_skipped;
	/* read by the watchdog thread */
	atomic_uint_least64_t progress; /* index of the event in progress */
	atomic_bool in_mpi;       /* inside its MPI call */
};

/* Collective over the world. */
void tc_replay_mpi_init(struct tc_replay_mpi *s, const struct tc_replay_opts *o,
			const struct tc_revents *evs, int32_t rank, int32_t world);
/* The first event the replay cannot re-execute (its index in *at, the
 * reason returned), or NULL when it can replay every one. */
const char *tc_replay_mpi_refusal(const struct tc_replay_mpi *s, size_t *at);
/* Whether the point-to-point messages of the ranks' events pair up
 * (pairs.c); when not, the lowest rank with an unpaired message names it
 * on stderr (a warning when force: the replay goes on). Collective over
 * the world. */
bool tc_replay_pairs_check(const struct tc_replay_mpi *s, bool force);
/* Give the wildcard receives whose source the trace does not name the
 * sources inferred from the messages the other ranks send (wild.c;
 * collective over the world): s->src, s->wild_inferred, s->wild_unnamed.
 * Before tc_replay_pairs_check. */
void tc_replay_infer_wildcards(struct tc_replay_mpi *s);
/* Whether the ranks' collectives on MPI_COMM_WORLD agree: the same calls
 * in order, the same roots and uniform sizes, each v-collective's bytes
 * as its partners receive them (colls.c); when not, the first difference
 * is named on stderr as tc_replay_pairs_check does. Collective over the
 * world. */
bool tc_replay_colls_check(const struct tc_replay_mpi *s, bool force);
/* Replay every event (MPI initialised; the trace's own Init and Finalize
 * are the program's). */
void tc_replay_mpi_run(struct tc_replay_mpi *s);
/* Collective over the world. */
void tc_replay_mpi_release(struct tc_replay_mpi *s);

/* The cores the ranks of this rank's node may run on (the union of
 * their affinity masks), and (*ranks) how many they are (share.c;
 * collective over the world). */
int tc_replay_node_cores(int *ranks);
/* The tasks of other jobs that compete for the node's cores now (share.c;
 * collective over the world: the job's ranks sleep meanwhile). */
double tc_replay_other_load(void);
/* The share of the node's cores (tc_replay_node_cores) the job's ranks get
 * now, in (0, 1]: every rank of the node spins for a while, and their CPU
 * time is compared with the cores' (share.c; collective over the world). */
double tc_replay_node_share(int cores);
/* Set s->gap_cpu from the recorded timeline of the node's ranks (share.c;
 * collective over the world). False when it is too large to gather.
 * *files: the ranks were put on the recording host's clock (the skews
 * a global trace keeps, or raw files' start times; lib/skew.h), not each
 * from the end of its MPI_Init. *calib: the factor the gaps' CPU times
 * were brought to the trace's recorded concurrency by
 * (tc_gapcpu_calibration), 1 when it keeps none. */
bool tc_replay_mpi_shares(struct tc_replay_mpi *s, bool *files, double *calib);

#endif
