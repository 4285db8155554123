/*
 * trace.h - one rank's trace in memory, compressed as it is read.
 *
 * A struct tc_rank_trace holds what the signatures and the clustering
 * modes need of a rank: its rank and world size, its communicators (for
 * the communicator type of the signatures) and its event sequence,
 * compressed into loops on the fly (lib/rsd.h), so a rank's events are
 * never held uncompressed.
 *
 * It is filled by streaming a raw file into it; the three callbacks have
 * the signatures of struct tc_read_ops (formats/raw.h), so a caller
 * above both layers writes
 *
 *   struct tc_read_ops ops = { tc_rank_trace_on_event,
 *                              tc_rank_trace_on_callsite,
 *                              tc_rank_trace_on_comm };
 *   tc_raw_read(reader, &ops, trace, &stats, &err);
 *
 * (formats/load.h does this for a whole trace set on the thread pool).
 */
#ifndef TC_TRACE_H
#define TC_TRACE_H

#include "compat.h"

struct tc_event;
struct tc_callsite;
struct tc_comm;
struct tc_frame;
struct tc_rsd;
struct tc_rsd_opts;

/* A call site as recorded: its frames, innermost first (owned copies of
 * module and symbol), for what needs more than the stack signature (the
 * function pairs of align/align.h's structural similarity). */
struct tc_trace_site {
	uint32_t id;
	uint64_t signature;
	uint32_t nframes;
	struct tc_frame *frames;
};

/* What the trace keeps of a communicator. */
struct tc_trace_comm {
	uint32_t id;
	uint32_t parent;
	uint32_t creator;      /* enum tc_op that made it; 0 for world and self */
	uint32_t size;
	uint32_t ndims;        /* Cartesian topology, 0 if none */
	int32_t dims[8];
	uint32_t periods;      /* bit d set: dimension d periodic */
	int32_t *members;      /* owned: the world rank of each of its size
				* ranks; NULL when they are 0 .. size-1 (world
				* and its copies) and for the self communicator
				* (its one rank is the trace's own), so that
				* ranks' traces compare equal on them */
	/* graph topology as this rank sees it (struct tc_comm in
	 * lib/event.h): graph false when none was recorded */
	bool graph;
	bool weighted;
	uint32_t nin, nout;
	int32_t *edges;        /* owned: nin sources, nout destinations (ranks
				* of the communicator), then when weighted
				* their weights; NULL without a graph */
};

struct tc_rank_trace {
	int32_t rank;
	int32_t world_size;
	struct tc_rsd *seq;    /* the compressed event sequence (owned) */
	struct tc_trace_comm *comms; /* sorted by id */
	size_t ncomms, acomms;
	struct tc_trace_site *sites; /* sorted by id; a redefinition replaces */
	size_t nsites, asites;
	uint64_t events;       /* events read */
	uint64_t callsites;    /* call-site records read */
};

/* Returns new; opts (window) may be NULL. */
struct tc_rank_trace *tc_rank_trace_new(int32_t rank, int32_t world_size,
					const struct tc_rsd_opts *opts);
/* Frees *t and sets it to NULL; NULL is fine. */
void tc_rank_trace_free(struct tc_rank_trace **t);

/* Streaming callbacks (ctx is the struct tc_rank_trace); return 0. */
int tc_rank_trace_on_event(void *ctx, const struct tc_event *ev);
int tc_rank_trace_on_callsite(void *ctx, const struct tc_callsite *cs);
int tc_rank_trace_on_comm(void *ctx, const struct tc_comm *c);

/* The call site with this file-local id (borrowed), or NULL. */
const struct tc_trace_site *tc_rank_trace_site(const struct tc_rank_trace *t, uint32_t id);

/*
 * Whether two ranks' traces stand for the same thing once times are left
 * out: equal compressed sequences (tc_rsd_equal: relative peers, call
 * sites by stack signature), equal communicator tables, world sizes and
 * event counts. Ranks for which it holds are interchangeable everywhere a
 * trace is used in relative terms (signatures, clustering, merging).
 */
bool tc_rank_trace_same(const struct tc_rank_trace *a, const struct tc_rank_trace *b);
/* A digest equal for traces for which tc_rank_trace_same holds. */
uint64_t tc_rank_trace_digest(const struct tc_rank_trace *t);

/* The communicator with this id (borrowed), or NULL if never defined. */
const struct tc_trace_comm *tc_rank_trace_comm(const struct tc_rank_trace *t, uint32_t id);

/* The trace of world rank r among traces[0..n), sorted by rank (borrowed),
 * or NULL; traces may be NULL. */
const struct tc_rank_trace *tc_rank_trace_find(struct tc_rank_trace *const *traces, size_t n,
					       int32_t r);

/*
 * Append t whole (rank, world size, counts, communicators, call sites
 * with their frames, the compressed sequence: lib/pack.h's encoding) to
 * out; tc_rank_trace_unpack() reads one back, equal in everything
 * (tc_rank_trace_same, times and frames included), or returns NULL with
 * u marked bad.
 */
struct tc_strbuf;
struct tc_unpack;
void tc_rank_trace_pack(const struct tc_rank_trace *t, struct tc_strbuf *out);
/* One communicator the same way (the global trace's table uses it too);
 * unpack leaves c owning what it read (bad input marks u). */
void tc_trace_comm_pack(const struct tc_trace_comm *c, struct tc_strbuf *out);
void tc_trace_comm_unpack(struct tc_unpack *u, struct tc_trace_comm *c);
struct tc_rank_trace *tc_rank_trace_unpack(struct tc_unpack *u);

#endif
