/*
 * cluster.h - the clustering modes, behind one interface.
 *
 * Every mode takes the per-rank signature records of a trace set
 * (cluster/signature.h), in rank order, and optionally the ranks'
 * compressed traces (lib/trace.h), and returns a struct tc_clustering: a
 * partition of the ranks into clusters, each with a lead rank, its ranks
 * (sorted, as a lib/ranklist.h run list and in ScalaTrace's ranklist
 * encoding) and its signature values; modes with two levels also return
 * the main clusters, and each sub-cluster names its main cluster.
 *
 *   callpath        main clusters by call-path signature (dissertation
 *                   §3.1; ICS'14 §3.1)
 *   callpath-param  main clusters by call path, sub-clusters by the
 *                   parameter signature with the 5% COUNT filter, refined
 *                   by exact comparison of members when traces are given,
 *                   and the filtering fallback past P/2 sub-clusters
 *                   (§3.2, §3.3, §3.6; ICS'14 §3.2)
 *   reference       by the reference signature (§3.4)
 *   kfarthest       ACURDION's K-Farthest (§4.1.1, Alg. 5)
 *   kmedoid         ACURDION with PAM at the tree nodes (§4.1.1)
 *   dynamic         call path, then SRC and DEST (§4.4.6)
 *   chameleon       Chameleon (ch. 5, §5.1, Alg. 6-8): the ranks' streams
 *                   cut at marker calls, the AT / C / L transition graph
 *                   over the intervals' call-path signatures, K/#call-paths
 *                   leads per call-path cluster by SRC and DEST, and the
 *                   online global trace (struct tc_chameleon)
 *
 * Like the papers, every mode is a reduction over radix trees of the
 * ranks (rank r's children are r*radix+1 .. r*radix+radix, in rank order;
 * "each node receives the signatures of its children ... and sends
 * different signatures and corresponding ranklists to its parent", §3.1):
 * each node merges its children's cluster lists into its own, bounded for
 * the K modes by 2K+1 per binary node (Alg. 5). The nodes of one tree
 * level run in parallel on the thread pool; the tree's shape and the order
 * in which a node merges (its own cluster, then its children left to
 * right) are fixed, so the result is the same for every thread count.
 *
 * Library code: takes in-memory data, never prints.
 */
#ifndef TC_CLUSTER_CLUSTER_H
#define TC_CLUSTER_CLUSTER_H

#include "lib/compat.h"
#include "cluster/signature.h"
#include "lib/ranklist.h"

struct tc_error;
struct tc_pool;
struct tc_rank_trace;
struct tc_gtrace;
struct tc_merge_opts;

/* ---- options ------------------------------------------------------------ */

enum tc_cluster_steps {
	TC_STEPS_SINGLE = 1,    /* all signatures at once (§4.1.1) */
	TC_STEPS_DOUBLE = 2,    /* Call-Path first, then the others */
};

enum tc_cluster_distance {
	TC_DIST_MANHATTAN = 0,
	TC_DIST_EUCLIDEAN = 1,
};

#define TC_CLUSTER_K_DEFAULT 9          /* §4.4: "K = 9" */
#define TC_CLUSTER_THRESHOLD_DEFAULT 0.05 /* §3.6: "The difference threshold ... is 5%" */
#define TC_CLUSTER_SEED_DEFAULT 1
/* K modes: COMP and COMM times within this fraction of the larger are
 * measurement noise (tc_timing_alike) */
#define TC_CLUSTER_NOISE_DEFAULT 0.5
/* ... or within this many standard errors of their difference */
#define TC_CLUSTER_NOISE_SE 3.0

struct tc_cluster_opts {
	uint32_t k;             /* K modes: clusters to keep (>= 1) */
	int steps;              /* enum tc_cluster_steps */
	int distance;           /* enum tc_cluster_distance */
	double threshold;       /* COUNT filter: alike when |a-b| <= t*max(a,b) */
	uint64_t seed;          /* kmedoid: PAM's initial medoids */
	double noise;           /* K modes: timing tolerance (tc_timing_alike);
				 * 0 compares timing exactly */
	unsigned radix;         /* of the reduction trees; 0 = 2 */
	struct tc_pool *pool;   /* NULL: everything on the calling thread */
	/* chameleon (§5.1, Alg. 8) */
	uint32_t marker_op;     /* the marker's op (enum tc_op); 0: MPI_Barrier */
	uint64_t marker_site;   /* its call site's stack signature; 0: the call
				 * site of marker_op called most often */
	uint32_t call_frequency; /* Call_Frequency: Alg. 6 at every Nth marker
				 * call; 0: 1 */
	bool online;            /* build the online global trace */
	const struct tc_merge_opts *merge; /* for it; NULL: lossless (borrowed) */
	bool exact_members;     /* in it, members keep their own parameters
				 * (tc_gtrace_exact_cluster); false: the lead
				 * stands for them (the papers' merge) */
};

/* Fill the defaults: K 9, single step, Manhattan, threshold 0.05, seed 1,
 * noise 0.5, binary trees, no pool. */
void tc_cluster_opts_init(struct tc_cluster_opts *o);
const char *tc_cluster_steps_name(int steps);        /* "single", "double" */
int tc_cluster_steps_from_name(const char *name);    /* -1 if unknown */
const char *tc_cluster_distance_name(int d);         /* "manhattan", ... */
int tc_cluster_distance_from_name(const char *name); /* -1 if unknown */

/* ---- input -------------------------------------------------------------- */

struct tc_cluster_input {
	const struct tc_signatures *sigs; /* n records, ranks strictly increasing */
	size_t n;
	/* NULL, or n traces in the same order (borrowed): callpath-param and
	 * reference then refine their clusters by exact comparison of the
	 * members' sequences, and tc_cluster_verify() can run */
	struct tc_rank_trace *const *traces;
};

/* ---- output ------------------------------------------------------------- */

/*
 * How closely two ranks' event sequences agree (cluster/refine.c): the
 * same call sites in the same order (ops and stack signatures, loops
 * expanded); also the same Table 3.1 parameters event by event (peers
 * relative to the own rank, datatype, reduction op, communicator type, and
 * COUNT and per-peer counts alike within the threshold); or exactly the
 * same sequence (tc_rsd_equal()).
 */
enum tc_seq_level {
	TC_LEVEL_NONE = -1,
	TC_LEVEL_CALLPATH = 0,
	TC_LEVEL_PARAM = 1,
	TC_LEVEL_EXACT = 2,
	TC_NLEVELS = 3
};
const char *tc_seq_level_name(int level);   /* "callpath", "param", "exact" */

/* What tc_cluster_verify() found in one cluster. */
struct tc_cluster_check {
	uint32_t sequences;     /* distinct exact sequences among the members */
	uint32_t differ[TC_NLEVELS]; /* members that differ from the lead at level */
	uint32_t comm_differ;   /* members whose communicator-creation
				 * parameters (colour and key of splits) differ
				 * from the lead's (tc_seq_comm_alike()) */
	uint32_t collisions;    /* differ[] at the level the mode claims */
};

struct tc_cluster {
	uint32_t id;            /* index in its array */
	int32_t parent;         /* sub-cluster: id of its main cluster; else -1 */
	int32_t lead;           /* lead rank */
	size_t lead_index;      /* the lead's index in the input */
	size_t nranks;
	int32_t *ranks;         /* sorted */
	uint32_t *index;        /* the input index of each of ranks[] */
	struct tc_ranklist ranklist; /* the ranks as runs */
	int64_t *st;            /* ScalaTrace encoding (tc_ranklist_st_encode) */
	size_t nst;
	struct tc_signatures sig; /* the lead's signatures */
	uint64_t count_mean;    /* mean ACURDION COUNT over the members (rounded
				 * half up): the average §3.6's filter records */
	uint32_t *subs;         /* main clusters and filtered groups: the ids of
				 * their sub-clusters, increasing */
	size_t nsubs;
	struct tc_cluster_check check; /* after tc_cluster_verify() */
};

/* Parameters the filtering fallback can merge sub-clusters on (§3.6). */
enum tc_filter_param {
	TC_FP_SEQUENCE = 0,     /* what exact comparison of members told apart */
	TC_FP_COUNT,            /* COUNT beyond the threshold */
	TC_FP_DEST,             /* Table 3.1 bits 16-31 */
	TC_FP_SRC,              /* bits 32-47 */
	TC_FP_TYPES,            /* bits 48-63 */
	TC_NFP
};
const char *tc_filter_param_name(unsigned p); /* "sequence", "count", ... */

struct tc_cluster_filter {
	bool applied;           /* more sub-clusters than limit */
	size_t limit;           /* P/2 */
	uint32_t params;        /* bit per enum tc_filter_param merged on */
	/* the sub-clusters merged on those parameters within each main
	 * cluster: parent is the main cluster, subs the sub-clusters merged,
	 * the lead the start rank */
	struct tc_cluster *groups;
	size_t ngroups;
};

struct tc_clustering {
	const char *mode;       /* the mode's name (static) */
	size_t nranks;
	/* the partition, clusters numbered in the order of their first rank */
	struct tc_cluster *clusters;
	size_t nclusters;
	/* the first level of two-level modes (callpath-param, dynamic,
	 * double-step K modes), else none */
	struct tc_cluster *mains;
	size_t nmains;
	uint32_t format;        /* K modes: ACURDION format bitmap (Alg. 4) */
	uint32_t dims;          /* K modes: signatures the distances used */
	int claim;              /* enum tc_seq_level the mode's signature claims:
				 * members alike at it unless the hash collides */
	bool refined;           /* members were compared exactly (traces given) */
	size_t added;           /* clusters the exact comparison added */
	struct tc_cluster_filter filter;
	bool verified;
	size_t collisions;      /* after tc_cluster_verify(): sum over clusters */
	struct tc_cluster_opts opts; /* as run (pool and merge cleared) */
	struct tc_chameleon *chameleon; /* chameleon: what happened (owned) */
};

/* ---- Chameleon (dissertation ch. 5) ------------------------------------ */

/* The states of the transition graph (§5.1, Fig. 5.1, Alg. 6). */
enum tc_cham_state {
	TC_CHAM_AT = 0,         /* All Tracing */
	TC_CHAM_C,              /* Clustering: cluster, merge the leads' traces */
	TC_CHAM_L,              /* Lead: only the leads trace; on leaving it the
				 * leads' traces are merged */
	TC_NCHAM_STATES
};
const char *tc_cham_state_name(int state);  /* "AT", "C", "L" */

/*
 * The transition graph (§5.1, Fig. 5.1, Alg. 6) at one rank: step() is
 * one invocation, given whether the call-path signature of the interval
 * differs from the previous one on any rank (Alg. 6 lines 9-13, the sum
 * of the ranks' flags; ignored the first time). Returns the state (the
 * "AT" of line 24, the Lead phase without inter-compression, counts as
 * L, as Table 5.2 does) and sets *merge when the leads' traces are to be
 * merged with the last clustering (leaving L, line 27). One change from
 * Alg. 6 as printed: leaving L also sets the Re-Clustering flag, as the
 * graph's L -> AT -> C edges say.
 */
struct tc_cham_graph {
	bool first;             /* OldCallPath == 0 */
	bool reclustering;      /* Re-Clustering Flag */
	bool lead;              /* Lead Flag */
};
void tc_cham_graph_init(struct tc_cham_graph *g);
int tc_cham_graph_step(struct tc_cham_graph *g, bool changed, bool *merge);

/*
 * What a chameleon run did, the numbers of Table 5.2: the marker, its
 * calls, the state after each invocation of Alg. 6 and the times in each
 * state, the re-clusterings, and how much of the ranks' events went into
 * the online trace.
 */
struct tc_chameleon {
	uint32_t marker_op;
	uint64_t marker_site;
	uint32_t call_frequency;
	uint64_t marker_calls;  /* marker events per rank (#Iters.) */
	uint64_t calls;         /* invocations of Alg. 6 (#Calls) */
	uint8_t *states;        /* calls entries, enum tc_cham_state */
	uint64_t in_state[TC_NCHAM_STATES]; /* #AT, #C, #L */
	uint64_t reclusterings; /* clusterings at a marker (#C) */
	bool final_clustering;  /* MPI_Finalize clustered the last events */
	uint64_t merges;        /* partial global traces merged into the online one */
	size_t ranks;           /* ranks */
	size_t needed;          /* ranks whose events went into the online trace */
	uint64_t events;        /* events of every rank */
	uint64_t events_used;   /* events of the leads that were merged */
	struct tc_gtrace *online; /* the online global trace (opts.online), owned */
};
void tc_chameleon_free(struct tc_chameleon **c);

/* marker_op asking for a marker found in the traces (tc_chameleon_marker) */
#define TC_CHAM_MARKER_AUTO UINT32_MAX

/* Parse "OP[@CALLSITE]" (an op name as tc_op_from_name takes it, a stack
 * signature in C notation, e.g. 0x1f...) or "auto": 0, or -1 when
 * malformed. */
int tc_chameleon_parse_marker(const char *s, uint32_t *op, uint64_t *site);

/*
 * The op and call site that chameleon takes as the marker for these
 * traces. *op on entry: an op, at marker_site, or when that is 0 at the
 * call site of that op called most often over all ranks (ties: the
 * smaller stack signature); 0: MPI_Barrier so, and when no rank calls
 * MPI_Barrier, a marker found as TC_CHAM_MARKER_AUTO finds it;
 * TC_CHAM_MARKER_AUTO: found from the loops (dissertation ch. 7, future
 * work: markers without source changes): each rank's timestep loop is
 * the top-level loop of its compressed sequence that holds the most
 * events, and its candidate the first collective called once per
 * iteration directly in that loop's body (else the body's first call);
 * the candidate most ranks name wins (ties: the smaller op, then the
 * smaller stack signature). *op and *site get the marker. Returns 0, or
 * a negative code with err filled when there is none.
 */
int tc_chameleon_marker(struct tc_rank_trace *const *traces, size_t n, uint32_t *op,
			uint64_t marker_site, uint64_t *site, struct tc_error *err);

/* Chameleon run in the job, a step at a time (the capture shim's plugin,
 * cmd/mpi/online_cham.c). */

/* A rank's automatic marker from its compressed sequence so far, as
 * TC_CHAM_MARKER_AUTO takes it: false when it has no top-level loop. */
bool tc_chameleon_candidate(const struct tc_rsd *rsd, uint32_t *op, uint64_t *site);

struct tc_cham_candidate {
	bool has;
	uint32_t op;
	uint64_t site;
};
/* The candidate most ranks name (ties: smaller op, then site); false
 * when none has one. */
bool tc_chameleon_vote(const struct tc_cham_candidate *c, size_t n, uint32_t *op,
		       uint64_t *site);

/*
 * Alg. 7 and Alg. 8 lines 7-24 at one invocation: call-path clusters
 * over sigs[0..n) (the partial traces' signatures, input index = the
 * rank's place), K / #call-paths leads in each by K-Farthest on SRC and
 * DEST. out (tc_clustering_init'ed) gets the clusters and the call-path
 * clusters as mains.
 */
void tc_chameleon_cluster(const struct tc_signatures *sigs, size_t n,
			  const struct tc_cluster_opts *o, struct tc_clustering *out);

/* ---- the modes ---------------------------------------------------------- */

/* Fills out (initialised by the caller with tc_clustering_init). */
typedef int (*tc_cluster_fn)(const struct tc_cluster_input *in,
			     const struct tc_cluster_opts *o, struct tc_clustering *out,
			     struct tc_error *err);

enum {
	TC_CMF_K = 1u << 0,       /* uses k, steps, distance (and seed) */
	TC_CMF_THRESHOLD = 1u << 1, /* uses the COUNT threshold */
	TC_CMF_SEED = 1u << 2,    /* uses the seed */
	TC_CMF_REFINE = 1u << 3,  /* compares members exactly when given traces */
	TC_CMF_TRACES = 1u << 4,  /* needs the traces */
	TC_CMF_FILTER = 1u << 5,  /* has the filtering fallback */
	TC_CMF_OWN = 1u << 6,     /* needs each rank's own trace, times included
				   * (not one it shares, formats/load.h) */
};

struct tc_cluster_mode {
	const char *name;
	tc_cluster_fn fn;
	const char *section;      /* where the papers define it */
	const char *description;  /* one line */
	unsigned flags;           /* TC_CMF_* */
};

/* The mode table, sorted by name (n entries). */
const struct tc_cluster_mode *tc_cluster_modes(size_t *n);
/* The mode named name, or NULL. */
const struct tc_cluster_mode *tc_cluster_mode_find(const char *name);

void tc_clustering_init(struct tc_clustering *c);
void tc_clustering_release(struct tc_clustering *c);

/*
 * Run mode m. Returns 0, or a negative code with err filled (ranks not
 * strictly increasing, bad options). out is reset first; release it with
 * tc_clustering_release() either way.
 */
int tc_cluster_run(const struct tc_cluster_mode *m, const struct tc_cluster_input *in,
		   const struct tc_cluster_opts *o, struct tc_clustering *out,
		   struct tc_error *err);

/*
 * Compare every member of every cluster with its lead, at each level of
 * enum tc_seq_level, and count the distinct exact sequences (needs
 * in->traces). A collision is a member that differs from its lead at the
 * level the mode claims (c->claim): its signatures matched the lead's
 * although its sequence does not. Returns 0 or a negative code.
 */
int tc_cluster_verify(struct tc_clustering *c, const struct tc_cluster_input *in,
		      const struct tc_cluster_opts *o, struct tc_error *err);

/* ---- building blocks (exported for tests and other modules) ------------ */

/* §3.6's COUNT filter: a and b are alike when |a - b| <= t * max(a, b). */
bool tc_count_alike(uint64_t a, uint64_t b, double t);

/*
 * Whether two ranks' timing signatures (COMP or COMM, ns, with their
 * standard errors, struct tc_signatures) differ by measurement noise
 * alone: by at most noise times the larger value (jitter that scales
 * with the time measured: the operating system, the share of a core,
 * frequency changes, and the waiting in a call that absorbs another
 * rank's jitter), or by at most TC_CLUSTER_NOISE_SE standard errors of
 * the difference (the averages of ranks whose calls take random times).
 * With noise 0 only equal values are alike, the papers' exact distances.
 */
bool tc_timing_alike(uint64_t a, double se_a, uint64_t b, double se_b, double noise);

/* Whether two ranks' sequences agree at level (enum tc_seq_level). */
bool tc_seq_alike(const struct tc_rank_trace *a, const struct tc_rank_trace *b, int level,
		  double threshold);

/* Whether two ranks' calls that carry a colour and key (MPI_Comm_split,
 * MPI_Comm_split_type), paired in order, have the same op, colour and key
 * and are as many. No signature sees them (Table 3.1 has none). */
bool tc_seq_comm_alike(const struct tc_rank_trace *a, const struct tc_rank_trace *b);

/*
 * The distances of the K modes with §4.1.1's group normalisation: the
 * signatures fall into three importance groups (tc_sig_info()->group), a
 * distance is one value per group, and groups compare lexicographically,
 * the most important first, so that any difference in a more important
 * group outweighs every difference in the less important ones (the
 * papers' shifting of group 2 above group 1 and group 3 above both).
 * Within a group, each numeric signature's difference is normalised by
 * the signature's range over all ranks (so it lies in [0, 1]), then the
 * differences add up (Manhattan) or give the root of their sum of squares
 * (Euclidean); Call-Path counts 0 when equal and 1 when not, the
 * Data+Op+Comm type bits count the fraction of the bits that vary over
 * the ranks in which the two differ.
 */
struct tc_cluster_metric {
	uint32_t dims;          /* signatures used (bit s = enum tc_sig) */
	int distance;           /* enum tc_cluster_distance */
	double scale[TC_NSIGS]; /* 1 / range, 0 for a constant signature */
	uint64_t types_mask;    /* TYPES bits that vary */
	double types_scale;     /* 1 / popcount(types_mask) */
	double noise;           /* COMP and COMM differences that are noise
				 * (tc_timing_alike) count 0; init sets 0,
				 * set it afterwards */
	/* the signatures of dims in a form quick to walk (internal) */
	unsigned nused;
	struct tc_metric_dim {
		uint8_t sig;    /* enum tc_sig */
		uint8_t slot;   /* index into tc_cluster_dist.g */
		uint8_t how;    /* 0 equality, 1 bits, 2 unsigned, 3 signed,
				 * 4 timing (unsigned, within noise 0) */
		double scale;
	} used[TC_NSIGS];
};

/* g[0]: group 3 (Call-Path, types), g[1]: group 2 (SRC, DEST, KEY,
 * COLOR, TAG), g[2]: group 1 (LOOP, COUNT, COMM, COMP). */
struct tc_cluster_dist {
	double g[3];
};

/* Ranges over n ranks' signatures (in parallel on pool, if given). */
void tc_cluster_metric_init(struct tc_cluster_metric *m, const struct tc_signatures *sigs,
			    size_t n, uint32_t dims, int distance, struct tc_pool *pool);
void tc_cluster_distance(const struct tc_cluster_metric *m, const struct tc_signatures *a,
			 const struct tc_signatures *b, struct tc_cluster_dist *d);
/* Lexicographic: < 0, 0, > 0. */
int tc_cluster_dist_cmp(const struct tc_cluster_dist *a, const struct tc_cluster_dist *b);

/*
 * One node of Alg. 5 over m clusters (the signatures of their heads,
 * their sizes): K-Farthest keeps at most k of them, the first item first,
 * then repeatedly the one farthest from those kept (its distance to the
 * nearest kept one the largest; ties to the earlier item), stopping early
 * when every other item is at distance 0 from a kept one (equal, or
 * differing in timing within the metric's noise only); the others join
 * the nearest kept one (ties to the one kept first). rep[j] receives the item j
 * joins (rep[j] == j for kept items). Returns the number kept.
 */
size_t tc_kfarthest_node(const struct tc_cluster_metric *mt,
			 const struct tc_signatures *const *sig, const uint64_t *w, size_t m,
			 size_t k, uint32_t *rep);
/*
 * The same with PAM (Kaufman and Rousseeuw's Partitioning Around
 * Medoids, §4.1.1): k medoids drawn at random (seeded by seed) among the
 * distinct items, then the best swap of a medoid with a non-medoid as long
 * as the weighted cost (sum of w[j] times the distance to the nearest
 * medoid, compared lexicographically by group) decreases (ties: the
 * earlier candidate, then the earlier medoid). Items at distance 0 from
 * an earlier distinct item (equal, or differing in timing within the
 * metric's noise only) are not distinct; with at most k distinct items
 * every distinct item is a medoid. Returns the number of medoids.
 */
size_t tc_pam_node(const struct tc_cluster_metric *mt, const struct tc_signatures *const *sig,
		   const uint64_t *w, size_t m, size_t k, uint64_t seed, uint32_t *rep);


/* ---- radix-tree reductions in parts (tracecluster-mpi) ------------------ */

/*
 * The clustering modes reduce their signatures over radix trees
 * (dissertation §3.1-3.2, ACURDION Alg. 5; cluster/tree.c). A remote set
 * here may run the subtrees under some depth elsewhere: it is called
 * (from the thread that runs the mode) with each reduction and returns
 * the depth d >= 1 once the lists of the nodes at depth d and every head
 * change below them are in r (tc_reduction_take_part), or 0 to leave the
 * whole reduction to the caller. The caller then runs the levels above
 * d. Every node runs the same code on the same inputs wherever it runs,
 * so the clustering is the same.
 */
struct tc_reduction;
struct tc_strbuf;
struct tc_unpack;
struct tc_reduce_remote {
	unsigned (*run)(void *self, struct tc_reduction *r);
	void *self;
};
void tc_cluster_set_reduce_remote(const struct tc_reduce_remote *rr);
/* Positions (ranks) of the reduction, and the threads of its caller
 * (NULL: none). */
size_t tc_reduction_size(const struct tc_reduction *r);
struct tc_pool *tc_reduction_pool(const struct tc_reduction *r);
/* Whether its nodes compare signatures by distance (K-Farthest, PAM:
 * work per node grows with the clusters it holds), not by exact keys. */
bool tc_reduction_by_distance(const struct tc_reduction *r);
/* The smallest depth with at least want nodes, else the depth with the
 * most nodes (at least 2), and their number in *nroots; 0 when no depth
 * below the roots has two nodes. */
unsigned tc_reduction_plan(const struct tc_reduction *r, size_t want, size_t *nroots);
/* What the subtrees under the depth-d nodes [r0, r1) (numbered in
 * position order) need as bytes (lib/pack.h; both ends run one build):
 * the forest and the data of their members; and back: NULL when damaged.
 * An unpacked one is freed with tc_reduction_free. */
void tc_reduction_pack(struct tc_reduction *r, unsigned d, size_t r0, size_t r1,
		       struct tc_strbuf *out);
struct tc_reduction *tc_reduction_unpack(struct tc_unpack *u);
void tc_reduction_free(struct tc_reduction **r);
/* Run the subtrees under the depth-d nodes [r0, r1) on pool and pack
 * their results (out may be NULL): the nodes' lists and the head changes
 * of their members. */
void tc_reduction_run_part(struct tc_reduction *r, unsigned d, size_t r0, size_t r1,
			   struct tc_pool *pool, struct tc_strbuf *out);
/* Take such results into r; false when the message does not fit. */
bool tc_reduction_take_part(struct tc_reduction *r, unsigned d, size_t r0, size_t r1,
			    struct tc_unpack *u);

#endif
