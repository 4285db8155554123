/*
 * analysis.h - what heatmap, replay, accuracy and compare share: a trace
 * set loaded once (per-rank compressed traces, signatures, sizes) or a
 * global trace read from a .tct file, a clustered global trace built from
 * the loaded traces as tracecluster compress builds it, and each rank's
 * event stream from either (the original, or the global trace expanded).
 */
#ifndef TC_ANALYSIS_ANALYSIS_H
#define TC_ANALYSIS_ANALYSIS_H

#include "lib/compat.h"
#include "cluster/cluster.h"
#include "lib/rsd.h"

struct tc_error;
struct tc_gtrace;
struct tc_match;
struct tc_matrix;
struct tc_pool;
struct tc_rank_trace;
struct tc_replay_params;
struct tc_replay_result;
struct tc_signatures;
struct tc_traceset;

struct tc_anl {
	const char *path;
	struct tc_traceset *ts;
	struct tc_rank_trace **traces; /* DIR: n traces, by rank */
	struct tc_signatures *sigs;    /* DIR: their signatures */
	uint64_t *trace_bytes;         /* DIR, with sizes: each rank's own trace
					* as a binary .tct (bytes) */
	size_t n;
	int32_t world;
	struct tc_gtrace *g;           /* a .tct file */
	struct tc_rsd_opts ropts;
	bool lead_only;                /* built traces: the lead stands for its
					* members' parameters too */
	int timing;                    /* enum tc_gtiming of built traces
					* (tc_anl_open: TC_GTIMING_STATS) */
	double t_load;
	/* DIR: the files' tracer's time in the gaps (their trailers'), the
	 * mean and per op, which built traces keep as compress's do */
	uint64_t tracer_ns;
	struct tc_tracer_op *tracer_ops;
	size_t ntracer_ops;
	uint64_t *skew;                /* DIR: the ranks' (tc_traceset_skews), or NULL */
	uint64_t *conc;                /* with them, tc_traceset_concurrency's */
	size_t nconc;
	const char *what;              /* prefix of the progress lines (e.g. the
					* mode), or NULL; set after tc_anl_open */
};

enum {
	TC_ANL_SIZES = 1u << 0,
	TC_ANL_NEED_DIR = 1u << 1,
	TC_ANL_ROPTS = 1u << 2,   /* load with a->ropts as set (else the defaults) */
};

/* Open DIR (or a raw trace file) or a .tct file. flags: TC_ANL_*.
 * Returns 0, or -1 with err filled. */
int tc_anl_open(struct tc_anl *a, const char *path, unsigned flags, struct tc_pool *pool,
		struct tc_error *err);
void tc_anl_release(struct tc_anl *a);

/* A clustered global trace of a's traces. */
struct tc_anl_built {
	struct tc_clustering cl;
	struct tc_gtrace *g;
	uint64_t bytes;          /* of its binary .tct form */
	double seconds;          /* clustering and merging */
};

/* mode's options in copts (NULL: the defaults; pool, online and merge are
 * set here). */
int tc_anl_build(const struct tc_anl *a, const struct tc_cluster_mode *mode,
		 const struct tc_cluster_opts *copts, struct tc_pool *pool,
		 struct tc_anl_built *out, struct tc_error *err);
void tc_anl_built_release(struct tc_anl_built *b);

/* Copy the frames of a rank's call sites into a global trace. */
void tc_anl_copy_sites(struct tc_gtrace *g, const struct tc_rank_trace *t);
/*
 * --mode none: the leaf of rank trace t (freed) in the global trace of
 * every rank, its call sites copied; *tab gets a trace holding only t's
 * communicators (for the global trace's table, added in rank order).
 */
struct tc_gtrace *tc_anl_none_leaf(struct tc_rank_trace *t, const struct tc_merge_opts *mo,
				   struct tc_rank_trace **tab);

/*
 * Where --mode none's reading and merging run when not in this process
 * alone: tracecluster-mpi sets one in its first process. run() reads
 * every file of ts (tc_load_each's contract: stats per file, the error of
 * the lowest-indexed file that fails), makes each a leaf
 * (tc_anl_none_leaf, its table into tabs[i]), and returns in *out their
 * merge in tc_gtrace_merge_tree's order, so the same trace as that
 * function gives; *merge_s gets the seconds its merging took.
 */
struct tc_raw_stats;
struct tc_rsd_opts;
struct tc_none_remote {
	int (*run)(void *self, const struct tc_traceset *ts, struct tc_pool *pool,
		   const struct tc_rsd_opts *ro, const struct tc_merge_opts *mo,
		   struct tc_rank_trace **tabs, struct tc_raw_stats *stats,
		   struct tc_gtrace **out, double *merge_s, struct tc_error *err);
	void *self;
};
void tc_anl_set_none_remote(const struct tc_none_remote *r);
/* The one set, or NULL. */
const struct tc_none_remote *tc_anl_none_remote(void);

/* The global trace of each cluster, in cluster order, made on the pool
 * (returns a new array of nclusters): its lead's trace standing for the
 * cluster, and with exact, the parameters of members that differ from the
 * lead's kept as their own (with the lead's times). */
struct tc_gtrace **tc_anl_make_leaves(const struct tc_clustering *cl,
				      struct tc_rank_trace *const *traces, int32_t world,
				      const struct tc_merge_opts *mopts, bool exact,
				      struct tc_pool *pool);
/* Merge the leaves (one per cluster, in cluster order; taken) within each
 * main cluster, then across (compress's merge order). */
struct tc_gtrace *tc_anl_merge_clusters(const struct tc_clustering *cl, struct tc_gtrace **leaves,
					struct tc_pool *pool, const struct tc_merge_opts *mopts);

/*
 * The source of event streams: g (a global trace, expanded per rank) or,
 * with g NULL, a->g or a's original traces.
 */
int tc_anl_replay(const struct tc_anl *a, const struct tc_gtrace *g,
		  const struct tc_replay_params *p, struct tc_replay_result *res);
void tc_anl_matrix(const struct tc_anl *a, const struct tc_gtrace *g, int metric, bool collectives,
		   struct tc_pool *pool, struct tc_matrix *out);
/* Match every rank of a's original traces with g expanded. */
void tc_anl_match(const struct tc_anl *a, const struct tc_gtrace *g, struct tc_pool *pool,
		  struct tc_match *out);
/* Average space per process (lib/accuracy.h) of a clustering (NULL: none). */
double tc_anl_space(const struct tc_anl *a, const struct tc_clustering *cl);
/* Seconds on a monotonic clock. */
double tc_anl_now(void);
/* The replay-time accuracy ACC = 1 - |t - t1| / t (1 when both are 0). */
double tc_anl_acc(double t, double t1);

/* ---- one mode evaluated against the original (accuracy, compare) ------- */

#include "lib/accuracy.h"

/* The original's replay makespans, shared by the global traces measured
 * against it. */
struct tc_anl_base {
	double t;                /* with compute gaps (unless p->gaps is off) */
	double t_comm;           /* communication only: no compute gaps */
	bool deadlock;           /* either replay stalled */
};
void tc_anl_base_replay(const struct tc_anl *a, const struct tc_replay_params *p,
			struct tc_anl_base *out);

/* How well a global trace reproduces the original, as accuracy measures
 * it: matching per measure (Table 4.2) and the simulated replay.  The
 * replay-time error is split in two by a third replay, of g's operations
 * with each rank's own compute gaps taken from the original:
 *   acc_comm  both replays without compute gaps: the communication alone;
 *   acc_own   g's operations, the original's compute times: what the
 *             clustering does to the operations, err_cluster = 1 - acc_own;
 *   err_timing = |t_clustered - t_own| / t: what the times g keeps cost
 *             (a member replayed with its lead's times, summarised as
 *             --timing says).
 * err_cluster + err_timing >= 1 - acc (triangle inequality). */
struct tc_anl_fidelity {
	struct tc_match match;
	double t, t_clustered;   /* replay makespans (s) */
	double acc;              /* 1 - |t - t'| / t */
	double t_comm, t_comm_clustered, acc_comm;
	double t_own, acc_own;
	double err_cluster, err_timing;
	bool gaps;               /* replayed with compute gaps (else all three
				  * are the communication alone) */
	bool deadlock;           /* some replay stalled */
	uint64_t forced;         /* operations g's replay completed unmatched */
};
/* Measure g expanded to every rank against a's original traces; base is
 * the original's replay (NULL: run it). */
void tc_anl_fidelity(const struct tc_anl *a, const struct tc_gtrace *g, struct tc_pool *pool,
		     const struct tc_replay_params *p, const struct tc_anl_base *base,
		     struct tc_anl_fidelity *out);

struct tc_anl_eval {
	const char *mode;
	struct tc_cluster_opts opts; /* as run (pool and merge cleared) */
	size_t clusters, mains, leads;
	uint64_t bytes;          /* global trace, binary .tct */
	double space;            /* average space per process, bytes */
	struct tc_anl_fidelity fid;
	double l1, max, total;   /* heatmap difference and the original's total */
	double seconds;          /* clustering and merging */
};

/* Build mode's global trace of a (loaded with TC_ANL_SIZES) and measure
 * it against the original; base is the original's replay (NULL: run it),
 * orig its matrix of metric (NULL: make it). */
int tc_anl_evaluate(const struct tc_anl *a, const struct tc_cluster_mode *mode,
		    const struct tc_cluster_opts *copts, struct tc_pool *pool,
		    const struct tc_replay_params *p, const struct tc_anl_base *base,
		    const struct tc_matrix *orig, int metric,
		    struct tc_anl_eval *out, struct tc_error *err);
/* The same of a global trace built already (b, by tc_anl_build of a with
 * mode and copts), for a caller that uses the trace further. */
void tc_anl_evaluate_built(const struct tc_anl *a, const struct tc_cluster_mode *mode,
			   const struct tc_cluster_opts *copts, const struct tc_anl_built *b,
			   struct tc_pool *pool, const struct tc_replay_params *p,
			   const struct tc_anl_base *base, const struct tc_matrix *orig,
			   int metric, struct tc_anl_eval *out);

#endif
