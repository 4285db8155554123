/*
 * export.h - write the events of every rank in another tool's format.
 *
 * An exporter takes the ranks one after the other: rank_begin, the
 * communicators the rank knows (file-local ids, as struct tc_comm gives
 * them) and call sites, its events in order, rank_end. close writes what depends on
 * every rank (definitions) and puts the output in place; abort leaves
 * nothing behind. Memory is bounded by one rank's communicators and
 * requests, not by the events.
 *
 *   TC_EXPORT_OTF2: an OTF2 archive DIR/traces.otf2 (formats/otf2.md),
 *   written through the OTF2 library, one location per rank.
 *   TC_EXPORT_CHROME: Trace Event Format JSON for Perfetto and
 *   chrome://tracing: one track per rank, MPI calls as complete slices,
 *   messages as flow events from send to receive.
 */
#ifndef TC_FORMATS_EXPORT_H
#define TC_FORMATS_EXPORT_H

#include "lib/compat.h"

struct tc_error;
struct tc_event;
struct tc_comm;
struct tc_callsite;
struct tc_export;

enum tc_export_format {
	TC_EXPORT_OTF2 = 1,
	TC_EXPORT_CHROME,
};

/* "otf2", "chrome" (also "perfetto", "json") -> format; -1 if unknown. */
int tc_export_format_from_name(const char *name);

/* path: the archive directory (OTF2; must not exist or be empty) or the
 * JSON file ("-": standard output). world: ranks of the trace; creator:
 * what wrote the data (kept in the output). Returns new in *out. */
int tc_export_open(struct tc_export **out, enum tc_export_format fmt, const char *path,
		   int32_t world, const char *creator, struct tc_error *err);
int tc_export_rank_begin(struct tc_export *x, int32_t rank, struct tc_error *err);
/* A communicator of the current rank (borrowed; copied). */
void tc_export_comm(struct tc_export *x, const struct tc_comm *c);
/* A call site of the current rank (borrowed; its signature and the
 * innermost symbol are kept). Events name it by cs->id. */
void tc_export_callsite(struct tc_export *x, const struct tc_callsite *cs);
int tc_export_event(struct tc_export *x, const struct tc_event *ev, struct tc_error *err);
int tc_export_rank_end(struct tc_export *x, struct tc_error *err);
/* Finish and put the output in place; frees *x and NULLs it. */
int tc_export_close(struct tc_export **x, struct tc_error *err);
/* Drop everything written; frees *x and NULLs it. */
void tc_export_abort(struct tc_export **x);

#endif
