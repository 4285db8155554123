/*
 * synth_internal.h - shared by lib/synth.c (the generator engine, options
 * and ground truth) and lib/synth_patterns.c (the patterns).
 *
 * A pattern is a function that plays one rank: it calls the sg_* helpers
 * below once for every MPI call that rank would make, in program order.
 * The engine runs the same function in two modes: emitting events to a
 * sink, or recording the structural key of the rank (the call sites it
 * calls, in order, and their parameters) for the ground truth. Both modes
 * go through the same branches, so the truth is the generator's own
 * decisions, not something inferred from its output.
 */
#ifndef TC_SYNTH_INTERNAL_H
#define TC_SYNTH_INTERNAL_H

#include "compat.h"

struct tc_synth_opts;
struct tc_synth_sink;
struct tc_error;
struct sg;

/*
 * One source location of a pattern: the innermost function (without the
 * pattern prefix), the position of the call in it, and up to two callers
 * (NULL when absent). "main" is always the outermost frame.
 */
struct sg_site {
	const char *fn;
	unsigned at;
	const char *caller;
	const char *caller2;
};

/* Every pattern's site table starts with these two. */
enum { SG_SITE_INIT = 0, SG_SITE_FINALIZE = 1 };
#define SG_COMMON_SITES \
	{ "setup", 0, NULL, NULL }, { "shutdown", 0, NULL, NULL }

#define SG_MAX_PHASES 64

struct sg_pattern {
	const char *name;
	const char *summary;
	int ndims;               /* process grid dimensions (1, 2 or 3) */
	int32_t min_ranks;
	bool pow2;               /* rank count must be a power of two */
	const struct sg_site *sites;
	size_t nsites;
	/* Extra checks of a validated opts (may be NULL). */
	int (*check)(const struct tc_synth_opts *o, struct tc_error *err);
	/* Play one rank. */
	void (*run)(struct sg *g);
	/* Role of rank in the whole run (phase < 0) or in one phase; used
	 * as the label of its ground-truth group. */
	void (*label)(const struct tc_synth_opts *o, int32_t rank, int phase,
		      char *buf, size_t len);
	bool phased;             /* the phases pattern: per-phase truth */
	int marker_site;         /* site of the phase marker, or -1 */
};

extern const struct sg_pattern *const sg_patterns[];
const struct sg_pattern *sg_find_pattern(const char *name);

/* Fixed tags and message channels are chosen by each pattern. */

/* ---- what a pattern sees of the generator ------------------------------ */

const struct tc_synth_opts *sg_opts(const struct sg *g);
int32_t sg_rank(const struct sg *g);
int32_t sg_size(const struct sg *g);
/* Whether the generator is only recording the structure (no events). */
bool sg_keymode(const struct sg *g);
/* Whether a sink callback asked to stop or an error occurred. */
bool sg_stopped(const struct sg *g);

/* Begin timestep `step` (0-based, all phases counted); `phase` is the
 * phase index for the phases pattern, else -1. Adds the compute gap. */
void sg_step(struct sg *g, int32_t step, int phase);
/* Leave the timestep loop (events after this belong to no phase). */
void sg_end_steps(struct sg *g);
/* Advance the simulated clock by one compute gap (with jitter). */
void sg_compute(struct sg *g);

/*
 * The count of the message src -> dst on channel chan at the current
 * step: base plus a one-sided jitter below base * count_jitter, drawn
 * from a hash of (seed, src, dst, step, chan), so that sender and
 * receiver compute the same value.
 */
uint64_t sg_count(const struct sg *g, int32_t src, int32_t dst, uint32_t chan,
		  uint64_t base);

/* Elements of dtype that make up about `bytes` bytes (at least 1). */
uint64_t sg_elems(uint64_t bytes, uint32_t dtype_size);

/*
 * Point-to-point calls. count is the actual count, base the count without
 * jitter (recorded in the parameter key). Peers are world ranks. comm is a
 * communicator id of this rank (0 = world).
 */
void sg_isend(struct sg *g, unsigned site, int32_t peer, int32_t tag,
	      uint64_t count, uint64_t base, uint32_t dtype, uint32_t comm);
void sg_irecv(struct sg *g, unsigned site, int32_t peer, int32_t tag,
	      uint64_t count, uint64_t base, uint32_t dtype, uint32_t comm);
void sg_send(struct sg *g, unsigned site, int32_t peer, int32_t tag,
	     uint64_t count, uint64_t base, uint32_t dtype, uint32_t comm);
/* peer may be TC_ANY_SOURCE; source is the rank the message came from. */
void sg_recv(struct sg *g, unsigned site, int32_t peer, int32_t source,
	     int32_t tag, uint64_t count, uint64_t base, uint32_t dtype,
	     uint32_t comm);
/* Complete every outstanding request (MPI_Waitall) or the oldest one
 * (MPI_Wait). Nothing is emitted when no request is outstanding. */
void sg_waitall(struct sg *g, unsigned site);
void sg_wait(struct sg *g, unsigned site);

/*
 * A blocking collective: count/dtype as the call's arguments, redop and
 * root (world rank) when the op takes them (TC_RED_NONE / -1 otherwise),
 * bytes the total payload this rank contributes (0: count * dtype size).
 */
void sg_coll(struct sg *g, unsigned site, unsigned op, uint64_t count,
	     uint32_t dtype, uint32_t redop, int32_t root, uint32_t comm,
	     uint64_t bytes);
/* MPI_Alltoallv with per-peer counts (n = communicator size). base is the
 * total send count without jitter. */
void sg_alltoallv(struct sg *g, unsigned site, const uint64_t *scounts,
		  const uint64_t *rcounts, uint32_t n, uint32_t dtype,
		  uint32_t comm, uint64_t base);
/*
 * MPI_Comm_split of world: members are the world ranks of the new
 * communicator in its rank order; it gets id newcomm.
 */
void sg_split(struct sg *g, unsigned site, int32_t color, int32_t key,
	      uint32_t newcomm, const int32_t *members, uint32_t n);

/* Uniform double in [0, 1) from the rank's own random stream. */
double sg_uniform(struct sg *g);

/* Grid helpers: dims from validated opts (1 where unused). */
void sg_coords(const struct tc_synth_opts *o, int32_t rank, int32_t c[3]);
int32_t sg_rank_of(const struct tc_synth_opts *o, const int32_t c[3]);

#endif
