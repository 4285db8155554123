/*
 * load.h - read a trace set into per-rank compressed traces, in parallel.
 *
 * Joins the readers and the trace set of formats/ to lib/trace.h (a
 * rank's trace compressed into loops as it is read). Each rank file is streamed into a fresh struct tc_rank_trace on
 * a pool worker and handed to a callback on that worker, which keeps it
 * (store it at its index) or reduces it to what it needs (signatures) and
 * frees it, so the whole set never has to be in memory.
 */
#ifndef TC_FORMATS_LOAD_H
#define TC_FORMATS_LOAD_H

#include "lib/compat.h"

struct tc_error;
struct tc_pool;
struct tc_raw_stats;
struct tc_rank_trace;
struct tc_rsd_opts;
struct tc_traceset;

/*
 * Called on a worker with file `index` of the set read into t; the
 * callback owns t (steals). Return 0, or a negative code with err filled
 * to fail the load.
 */
typedef int (*tc_load_fn)(size_t index, struct tc_rank_trace *t, void *ctx,
			  struct tc_error *err);

/*
 * Read every file of ts (honouring ts->flags, e.g. TC_RAW_SALVAGE) on the
 * pool. stats, if not NULL, receives what each read saw (ts->nfiles
 * entries). Returns 0, or the error of the lowest-indexed file that
 * failed (named by path and byte offset).
 */
int tc_load_each(const struct tc_traceset *ts, struct tc_pool *pool,
		 const struct tc_rsd_opts *opts, tc_load_fn fn, void *ctx,
		 struct tc_raw_stats *stats, struct tc_error *err);

/*
 * Where tc_load_each gets its traces when not (only) from this process's
 * own reading: tracecluster-mpi sets one in its first process, which then
 * reads a share of the files itself and receives the others' traces from
 * the processes that read them. each() has tc_load_each's contract (fn
 * called once per file, on any thread, in any order; the error of the
 * lowest-indexed file that failed). NULL restores plain reading.
 */
struct tc_load_remote {
	int (*each)(void *self, const struct tc_traceset *ts, struct tc_pool *pool,
		    const struct tc_rsd_opts *opts, tc_load_fn fn, void *ctx,
		    struct tc_raw_stats *stats, struct tc_error *err);
	void *self;
};
void tc_load_set_remote(const struct tc_load_remote *remote);
/* tc_load_each on this process alone, whatever remote is set. */
int tc_load_each_local(const struct tc_traceset *ts, struct tc_pool *pool,
		       const struct tc_rsd_opts *opts, tc_load_fn fn, void *ctx,
		       struct tc_raw_stats *stats, struct tc_error *err);
/*
 * Read every file of ts and return the traces in file order (sorted by
 * rank) in *out (a new array of ts->nfiles; free with
 * tc_load_free_all).
 */
int tc_load_all(const struct tc_traceset *ts, struct tc_pool *pool,
		const struct tc_rsd_opts *opts, struct tc_rank_trace ***out,
		struct tc_raw_stats *stats, struct tc_error *err);
void tc_load_free_all(struct tc_rank_trace **traces, size_t n);

/*
 * A trace set read so that ranks whose traces are the same once times are
 * left out (tc_rank_trace_same: the interior ranks of a stencil, the
 * workers of a master-worker code) share one trace in memory: what is
 * held grows with the distinct traces, not with the ranks.
 */
struct tc_load_shared {
	struct tc_rank_trace **traces; /* n: file i's trace, or one the same */
	uint32_t *cls;                 /* n: the file whose trace stands for
					* file i, the lowest index of its class */
	size_t n, nclasses;
};

/*
 * Read every file of ts into out. peek, if not NULL, sees each file's own
 * trace first (borrowed: e.g. its signatures; return 0 or fail the load).
 * The trace kept for a class is its lowest file's, whatever the thread
 * count. Returns 0, or the error of the lowest-indexed file that failed.
 */
int tc_load_shared(const struct tc_traceset *ts, struct tc_pool *pool,
		   const struct tc_rsd_opts *opts, tc_load_fn peek, void *ctx,
		   struct tc_raw_stats *stats, struct tc_load_shared *out, struct tc_error *err);
/*
 * File i's own trace, times included: s->traces[i] when it stands for its
 * class (*fresh false, borrowed), else the file read again (*fresh true:
 * the caller frees it).
 */
int tc_load_own(const struct tc_traceset *ts, const struct tc_rsd_opts *opts,
		const struct tc_load_shared *s, size_t i, struct tc_rank_trace **out,
		bool *fresh, struct tc_error *err);
void tc_load_shared_release(struct tc_load_shared *s);

#endif
