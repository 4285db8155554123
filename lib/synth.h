/*
 * synth.h - synthetic MPI workloads with known ground truth.
 *
 * A pattern generates, for one rank at a time, the events that rank would
 * record, its call sites and its communicators, through a sink. Ranks are
 * independent (each has its own random stream seeded by seed and rank), so
 * they can be generated in parallel and the result does not depend on the
 * order. Sends and receives match across ranks: every message a rank sends
 * is received by its peer with the same tag and byte count.
 *
 * The ground truth says which ranks behave alike by call path and by call
 * path + parameters (the parameters of the dissertation's Table 3.1:
 * count, relative source and destination, datatype, reduction operation,
 * communicator), by construction of the pattern.
 */
#ifndef TC_SYNTH_H
#define TC_SYNTH_H

#include "compat.h"

struct tc_event;
struct tc_callsite;
struct tc_comm;
struct tc_error;
struct tc_strbuf;

struct tc_synth_opts {
	const char *pattern;    /* see tc_synth_patterns() */
	int32_t ranks;
	int32_t iters;          /* timesteps (0 = pattern default) */
	uint64_t msg_bytes;     /* base message size (0 = pattern default) */
	uint64_t compute_ns;    /* mean compute time between steps (0 = default) */
	double jitter;          /* relative compute-time jitter, 0..1 */
	double count_jitter;    /* relative message-count jitter, 0..0.5 */
	uint64_t seed;
	int32_t dims[3];        /* process grid; 0 = chosen from ranks */
	int32_t phases;         /* phases pattern: number of phases (0 = 3) */
};

/* Receives one rank's records, in file order. Return non-zero to stop. */
struct tc_synth_sink {
	int (*callsite)(void *ctx, const struct tc_callsite *cs);
	int (*comm)(void *ctx, const struct tc_comm *c);
	int (*event)(void *ctx, const struct tc_event *ev);
};

struct tc_synth_pattern_info {
	const char *name;
	const char *summary;
};

/* NULL-terminated list of patterns. */
const struct tc_synth_pattern_info *tc_synth_patterns(void);

/*
 * Check opts (pattern known, rank count valid for the pattern, dims
 * consistent) and fill the defaults. Returns 0 or fills err.
 */
int tc_synth_validate(struct tc_synth_opts *opts, struct tc_error *err);

/*
 * Generate rank `rank` through sink: communicators world and self, then
 * call sites (each before its first use, ids 0..n-1) and events in file
 * order. opts must have been validated. Returns 0; TC_ERR_STOP when a
 * callback returned non-zero (the sink keeps its own error); TC_ERR_USAGE
 * for options that were not validated.
 */
int tc_synth_rank(const struct tc_synth_opts *opts, int32_t rank,
		  const struct tc_synth_sink *sink, void *ctx, struct tc_error *err);

/*
 * Append the ground truth as one JSON document to out: schema, pattern,
 * ranks, options, and for "callpath" and "callpath_param" a list of groups
 * (sorted rank lists, ordered by first rank, each with a label); the
 * phases pattern adds per-phase truth.
 */
int tc_synth_truth_json(const struct tc_synth_opts *opts, struct tc_strbuf *out,
			struct tc_error *err);

/*
 * The start time written in every rank's file header: a fixed value
 * derived from the seed (no clock is read, so output is deterministic).
 */
uint64_t tc_synth_start_time(const struct tc_synth_opts *opts);

/*
 * The stack signature of the call site that ends every timestep with
 * MPI_Barrier in the phases pattern (the phase marker); 0 for patterns
 * without a marker.
 */
uint64_t tc_synth_marker_signature(const struct tc_synth_opts *opts);

#endif
