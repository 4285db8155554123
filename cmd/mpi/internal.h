/*
 * internal.h - what the parts of tracecluster-replay's operations share:
 * the communicators, requests, windows and files of a replay, and the
 * helpers that turn an event's parameters into MPI ones (ops.c). One-sided
 * operations are in rma.c, MPI-IO in io.c.
 */
#ifndef TC_CMD_MPI_INTERNAL_H
#define TC_CMD_MPI_INTERNAL_H

#include "cmd/mpi/replay.h"

#include <mpi.h>

struct tc_rcomm {
	MPI_Comm c;
	int32_t *w2c;            /* world rank -> rank in c (for an
				  * intercommunicator, in its remote group),
				  * -1 if not a member */
	int size;                /* of c (the remote group's for an inter one) */
	int topo;                /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH or MPI_UNDEFINED */
	bool inter;
	bool valid;
};

struct tc_rreq {
	uint64_t id;
	MPI_Request h;
	MPI_Message m;
	bool msg;                /* a matched message (Mprobe), not a request */
	bool persistent;
	int32_t done_src;        /* source of its next completion in the trace */
	/* an MPI-4 request replayed through MPI-3 calls (ops.c): the init of
	 * a persistent collective or partitioned request (each start issues
	 * its nonblocking form), the partitions readied since its start, and
	 * the send half of an Isendrecv (h its receive) */
	const struct tc_event *init;
	uint64_t ready;
	MPI_Request h2;
	/* a persistent receive: its MPI_Recv_init and the source rank it
	 * was made with; a start that takes a held message (struct
	 * tc_rheld) receives it with MPI_Imrecv into h, the persistent
	 * handle kept in ph until that completes */
	const struct tc_event *rinit;
	int rsrc;
	MPI_Request ph;
};

/* A message an MPI_Improbe took in the replay where the trace's found
 * none (its message arrived in between): held for the call of the trace
 * that takes it (ops.c). */
struct tc_rheld {
	MPI_Comm c;
	int src, tag;            /* ranks of c, as matched */
	int bytes;
	MPI_Message m;
};

struct tc_rwin {
	uint32_t id;             /* the trace's window id */
	MPI_Win w;
	void *mem;               /* of a created window (not allocated by MPI) */
	uint32_t comm;           /* the trace's id of its communicator */
	int *post, *start;       /* post and start groups (ranks of comm) */
	int npost, nstart;
	bool valid;
};

struct tc_rfile {
	uint32_t id;             /* the trace's file id */
	MPI_File f;
	bool valid;
};

/* The communicator of the event (its own, else the world), or NULL when
 * the replay does not have it. */
struct tc_rcomm *tc_rp_comm_get(struct tc_replay_mpi *s, const struct tc_event *ev);
/* World rank w as a rank of c (MPI_ANY_SOURCE and MPI_PROC_NULL kept);
 * false if w is not a member. */
bool tc_rp_comm_rank(const struct tc_rcomm *c, int32_t w, int *out);
/* The event's element type: its own when predefined and of the recorded
 * size (*exact), else a contiguous type of that size. */
MPI_Datatype tc_rp_dtype(const struct tc_event *ev, bool *exact);
/* The MPI op of a predefined reduction (MPI_REPLACE and MPI_NO_OP
 * included), MPI_OP_NULL for any other. */
MPI_Op tc_rp_predef_op(unsigned redop);
/* The request of id, added (reset when it is there) or found. */
struct tc_rreq *tc_rp_req_add(struct tc_replay_mpi *s, uint64_t id);
struct tc_rreq *tc_rp_req_find(struct tc_replay_mpi *s, uint64_t id);

/* The calling thread's CPU time (a system call) and the monotonic
 * clock, ns. */
uint64_t tc_rp_cpu_ns(void);
uint64_t tc_rp_wall_ns(void);
/* Compute the pending gap before the event being replayed (none
 * pending: nothing): called just before the event's MPI call. */
void tc_rp_gap(struct tc_replay_mpi *s);
/* Stamp the time the event's MPI call returned, after its gap was
 * computed (the start of the next gap's share of the replay's own
 * time). */
void tc_rp_returned(struct tc_replay_mpi *s);

static inline bool tc_rp_fits_int(uint64_t v)
{
	return v <= INT32_MAX;
}

/* Say on stderr, at rank printer, that the trace's ranks disagree: what
 * (pairs.c), a warning when force. */
void tc_replay_disagree(const struct tc_replay_mpi *s, bool force, int printer,
			const char *what);

/* A message of int64s of any length from world rank src with tag, as a
 * new array of *n (pairs.c; the replay's checks before it starts). */
int64_t *tc_rp_recv_i64(int src, int tag, int *n);
/* The lowest world rank for which mine holds, or the world size when
 * none does (pairs.c; collective over the world). */
int tc_rp_lowest(const struct tc_replay_mpi *s, bool mine);
/* "event I (OP, comm C, peer P, tag T, root R, N bytes)" of event i in
 * out[len], with what the event has of those (pairs.c; the reports of
 * the checks, the watchdog). */
void tc_rp_event_text(const struct tc_event *ev, size_t i, char *out, size_t len);

/* One-sided (rma.c): the largest access of the window ops of evs, in
 * bytes; why ev cannot be replayed (NULL: it can), win_creator the op
 * that created its window; replay event i. */
size_t tc_rp_rma_bytes(const struct tc_revents *evs);
const char *tc_rp_rma_refusal(const struct tc_event *ev, unsigned win_creator);
bool tc_rp_rma(struct tc_replay_mpi *s, size_t i, const struct tc_event *ev);
void tc_rp_rma_release(struct tc_replay_mpi *s);

/* MPI-IO (io.c) on scratch files in a directory of their own: made by
 * world rank 0 (collective over the world) when evs has MPI-IO events;
 * replay one; close what is open and remove the directory (collective). */
int tc_rp_io_init(struct tc_replay_mpi *s);
bool tc_rp_io(struct tc_replay_mpi *s, const struct tc_event *ev);
void tc_rp_io_release(struct tc_replay_mpi *s);

#endif
