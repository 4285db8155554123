/*
 * merge.h - the global compressed trace: the loop-compressed traces of
 * lead ranks merged across ranks into one tree.
 *
 * A global trace (struct tc_gtrace) is a sequence of nodes like a rank's
 * compressed sequence (lib/rsd.h), but every node says which ranks it
 * stands for (a ranklist), and what differs between those ranks is kept
 * per rank set:
 *
 *   loop   a count per rank set and a body of nodes;
 *   event  MPI op and call site (64-bit stack signature), the same for
 *          all its ranks, and one entry per parameter (TC_GP_*): for each
 *          set of ranks with the same values a variant (value, or the
 *          values of successive occurrences in order, run-length and
 *          repetition compressed: ScalaTrace's value -> ranklist vectors,
 *          Scala-H-Trace §4.3), and below 100% merge precision possibly a
 *          histogram that stands for the values of some of the ranks
 *          (Scala-H-Trace §4.4); compute time before the call and time in
 *          the call as statistics over the occurrences of a set of ranks,
 *          one entry per set of ranks whose mean times agree (struct
 *          tc_gtime), and merged over every entry.
 *
 * Peers and sources of completed receives are relative to the rank
 * (tc_rel_peer), request ids relative to the rank's previous request, as
 * in lib/rsd.h, so that ranks doing the same thing relative to their
 * position share values.
 *
 * Building one: every lead's trace becomes a global trace of its own
 * whose nodes all carry the lead's cluster ranklist (dissertation §3.3,
 * §4.2: the lead stands for every member), and the traces are merged
 * pairwise over a binary radix tree of fixed shape (Scala-H-Trace §3,
 * Alg. 1 with the weighted LCS): the merges of one tree level run in
 * parallel on a pool, and the result does not depend on the thread count.
 *
 * Expanding one: struct tc_gtrace_iter walks the tree for one rank and
 * gives back that rank's events in order. At 100% precision this is
 * exact for every parameter of every event of a lead (and so of every
 * member of a cluster whose members behave like their lead); times come
 * back as the means of their statistics.
 *
 * Structures are read-only for users; everything here takes in-memory
 * data and never prints.
 */
#ifndef TC_MERGE_H
#define TC_MERGE_H

#include "compat.h"
#include "event.h"
#include "ranklist.h"
#include "rsd.h"

struct tc_event;
struct tc_pool;
struct tc_trace_comm;

/* ---- parameters -------------------------------------------------------- */

/*
 * The parameters of an event, one per field of struct tc_event (pairs
 * that share a TC_F_* bit are two parameters with one bit). A parameter
 * is absent when its bit is clear in the event's `fields`.
 */
enum tc_gparam_id {
	TC_GP_COMM = 0,  /* communicator id */
	TC_GP_PEER,      /* relative peer (tc_rel_peer) */
	TC_GP_TAG,
	TC_GP_RPEER,     /* sendrecv receive side, relative */
	TC_GP_RTAG,
	TC_GP_COUNT,     /* elements (unsigned) */
	TC_GP_DTYPE,     /* enum tc_dtype */
	TC_GP_DTYPE_SIZE,
	TC_GP_BYTES,     /* explicit payload bytes (unsigned) */
	TC_GP_REDOP,     /* enum tc_redop */
	TC_GP_ROOT,      /* world rank, absolute */
	TC_GP_COLOR,
	TC_GP_KEY,
	TC_GP_REQUEST,   /* request id relative to the previous one */
	TC_GP_NEWCOMM,
	TC_GP_FILE,
	TC_GP_OFFSET,    /* unsigned */
	TC_GP_RESULT,
	TC_GP_COMPL,     /* completions: 4 words each (request, source, tag, bytes) */
	TC_GP_SCOUNTS,   /* per-peer send counts (unsigned words) */
	TC_GP_RCOUNTS,   /* per-peer receive counts (unsigned words) */
	TC_GP_N
};

/* "peer", ...; NULL out of range. */
const char *tc_gparam_name(unsigned p);
/* TC_GP_* for a name, or -1. */
int tc_gparam_from_name(const char *name);
/* The TC_F_* bit of the parameter. */
uint32_t tc_gparam_field(unsigned p);
/* Kinds of values, for printing and parsing. */
enum tc_gparam_kind {
	TC_GPK_INT = 0,   /* one signed word */
	TC_GPK_UINT,      /* one unsigned word */
	TC_GPK_PEER,      /* one relative peer */
	TC_GPK_REQ,       /* one relative request id (TC_RSD_NOREQ: none) */
	TC_GPK_DTYPE,
	TC_GPK_REDOP,
	TC_GPK_COMPL,     /* 4 words per completion */
	TC_GPK_UARRAY,    /* unsigned words */
};
enum tc_gparam_kind tc_gparam_kind(unsigned p);
/* Whether values of the parameter may go into a histogram below 100%
 * precision (message sizes, tags, relative end-points, offsets;
 * Scala-H-Trace §4.3): identifiers and request links never do. */
bool tc_gparam_histable(unsigned p);

/* A parameter value: absent, or n 64-bit words (n == 1: in w). */
#define TC_GVAL_ABSENT UINT32_MAX
struct tc_gval {
	uint32_t n;
	int64_t w;              /* the word when n == 1 */
	int64_t *v;             /* the words when n > 1 (owned) */
};

static inline const int64_t *tc_gval_words(const struct tc_gval *x)
{
	return x->n == 1 ? &x->w : x->v;
}
bool tc_gval_equal(const struct tc_gval *a, const struct tc_gval *b);
/* Set x to a copy of n words (n may be TC_GVAL_ABSENT). */
void tc_gval_set(struct tc_gval *x, uint32_t n, const int64_t *words);
void tc_gval_release(struct tc_gval *x);

/*
 * The values of successive occurrences: entries in order, each a value
 * repeated `reps` times or a sub-sequence (chunk) repeated `reps` times.
 */
struct tc_gseq;
struct tc_gseq_ent {
	uint64_t reps;
	uint64_t end;           /* occurrences up to and including this entry */
	struct tc_gval val;     /* when !chunk */
	struct tc_gseq *chunk;
};
struct tc_gseq {
	struct tc_gseq_ent *e;
	uint32_t n, alloc;
	uint64_t len;           /* occurrences */
};

struct tc_gseq *tc_gseq_new(void);
void tc_gseq_free(struct tc_gseq *s);
/* Append reps occurrences of a value (copied) / a chunk (stolen). The
 * tail is kept folded: a value equal to the last one adds to its count, and
 * a run of up to TC_GSEQ_WINDOW entries that repeats the entries before it
 * (or the chunk before it) becomes (one more repetition of) a chunk, so a
 * periodic sequence stays as small as its period. */
#define TC_GSEQ_WINDOW 8u
void tc_gseq_add_val(struct tc_gseq *s, const struct tc_gval *v, uint64_t reps);
void tc_gseq_add_chunk(struct tc_gseq *s, struct tc_gseq *chunk, uint64_t reps);
/* The value of occurrence occ (taken modulo the length). */
const struct tc_gval *tc_gseq_at(const struct tc_gseq *s, uint64_t occ);
bool tc_gseq_equal(const struct tc_gseq *a, const struct tc_gseq *b);

/* The ranks that share one value (or sequence of values). */
struct tc_gvar {
	struct tc_ranklist ranks;
	struct tc_gval val;     /* every occurrence's value, when !seq */
	struct tc_gseq *seq;    /* or the value of each occurrence */
	uint64_t occ;           /* occurrences over all its ranks, for
				 * histograms (0 when read from a file) */
};

/* ---- histograms (Scala-H-Trace §4.4) ----------------------------------- */

#define TC_HIST_BINS_DEFAULT 8u
#define TC_HIST_BINS_MAX 256u

/* A bin: the values in [lo, hi] (the smallest and largest value seen in
 * it), how many, their mean and sum of squared deviations. */
struct tc_hbin {
	int64_t lo, hi;
	uint64_t n;
	double mean, m2;
};

struct tc_hist {
	struct tc_ranklist ranks; /* ranks whose values it holds */
	uint64_t n;               /* values (occurrences over all its ranks) */
	int64_t min, max;
	int32_t min_rank, max_rank; /* a rank that had the min / max */
	uint32_t nbins;
	struct tc_hbin *bins;     /* sorted, disjoint ranges */
};

/*
 * While traces merge, a histogram keeps up to TC_HIST_FINE fine bins
 * (each distinct value its own bin until there are more); the trace's
 * fixed number of bins is made once, when it is finished, by grouping
 * neighbouring fine bins into bins of about equal counts (Scala-H-Trace
 * §4.4: "the online balancing algorithm equalizes the number of items per
 * bin while adjusting their value range constraints").
 */
#define TC_HIST_FINE 1024u

/* Add cnt occurrences of x seen on rank; at most maxbins bins (balanced
 * as tc_hist_balance when there would be more). */
void tc_hist_add(struct tc_hist *h, int64_t x, uint64_t cnt, int32_t rank, uint32_t maxbins);
/* Fold o into h (ranks too), at most maxbins bins. */
void tc_hist_merge(struct tc_hist *h, const struct tc_hist *o, uint32_t maxbins);
/*
 * Balance into at most maxbins bins: neighbouring bins are grouped so
 * that every bin holds about the same number of values (bin i goes to
 * group floor(maxbins * (values before it + half its own) / all values));
 * a bin is never cut, so one value with most of the counts keeps a bin of
 * its own. Each bin keeps the count, mean and deviation of its values and
 * their smallest and largest value (its range); the histogram keeps the
 * overall min and max and a rank that had each.
 */
void tc_hist_balance(struct tc_hist *h, uint32_t maxbins);
void tc_hist_release(struct tc_hist *h);
double tc_hbin_stddev(const struct tc_hbin *b);

/* A parameter of an event node, or the iteration count of a loop. */
struct tc_gparam {
	struct tc_gvar *var;    /* exact values, by rank set */
	uint32_t nvar;
	struct tc_hist *hist;   /* NULL, or the values of hist->ranks */
};

/* ---- nodes and traces ------------------------------------------------- */

/*
 * The compute time before an event and the time inside it for a set of
 * the node's ranks. A lead's node starts with one entry for its cluster;
 * merging two nodes puts their entries together (their ranks are
 * disjoint) and joins entries whose compute and call time means both
 * agree within TC_GTIME_ABS_NS nanoseconds or TC_GTIME_REL of the larger
 * mean (below 100% merge precision, within (100 - precision)% when that
 * is more, but never more than TC_GTIME_REL_MAX: means a factor of two
 * apart stay apart at any precision), so that a regular code keeps one
 * entry while an event that follows a long compute phase on some ranks
 * and a short one on others keeps both. Expansion takes the times of the
 * entry holding the rank.
 */
#define TC_GTIME_ABS_NS 50.0
#define TC_GTIME_REL 0.01
#define TC_GTIME_REL_MAX 0.5
struct tc_gtime {
	struct tc_ranklist ranks;
	struct tc_rsd_stat comp;
	struct tc_rsd_stat comm;
};

struct tc_gnode {
	struct tc_ranklist ranks; /* the ranks it stands for */
	uint32_t nbody;           /* loop: nodes in the body (>= 1); event: 0 */
	struct tc_gnode *body;
	struct tc_gparam iters;   /* loop: iteration count (one word) */
	uint32_t op;              /* event */
	uint64_t stack;           /* event: stack signature of its call site */
	struct tc_gparam *p;      /* event: TC_GP_N parameters */
	struct tc_rsd_stat comp;  /* event: compute time before the call */
	struct tc_rsd_stat comm;  /* event: time inside the call (both over
				   * every entry of times) */
	struct tc_gtime *times;   /* event: times by rank set: disjoint, by
				   * first rank, covering ranks (none: comp
				   * and comm stand for every rank) */
	uint32_t ntimes;
	uint64_t shape;           /* hash of op + call site / loop nesting */
	uint64_t weight;          /* events it stands for, for the WLCS */
	uint32_t id;              /* pre-order number (tc_gtrace_finish) */
};

struct tc_gframe {
	char *module;
	uint64_t offset;
	char *symbol;
};

struct tc_gsite {
	uint64_t sig;
	uint32_t nframes;
	struct tc_gframe *frames;
};

/*
 * How much of the timing a global trace keeps (compress --timing):
 *   rank   compute and call time statistics per set of ranks whose means
 *          agree (struct tc_gtime), as the merge builds them;
 *   stats  one compute and one call time statistic per event node, merged
 *          over every rank and occurrence (Scala-H-Trace §4: statistics
 *          merged across ranks, not one entry per rank);
 *   none   no timing: every event takes 0 ns (structure and parameters
 *          only).
 */
enum tc_gtiming {
	TC_GTIMING_RANK = 0,
	TC_GTIMING_STATS,
	TC_GTIMING_NONE,
};
/* "rank", "stats", "none"; NULL out of range. */
const char *tc_gtiming_name(unsigned t);
/* TC_GTIMING_* for a name, or -1. */
int tc_gtiming_from_name(const char *name);

/*
 * A communicator that the ranks of `ranks` all recorded under id, alike:
 * an entry of the trace sets' communicator tables (lib/event.h struct
 * tc_comm), kept so that a replay can make the communicators whose group
 * or grid the events do not give (Cart_sub, Comm_create_group, ...).
 */
struct tc_gcomm {
	struct tc_ranklist ranks;
	uint32_t id, parent, creator, size;
	uint32_t ndims;           /* Cartesian topology, 0 if none */
	int32_t dims[8];
	uint32_t periods;         /* bit d set: dimension d periodic */
	int32_t *members;         /* owned: world rank of each of its ranks;
				   * NULL for 0 .. size-1 */
	/* graph topology as these ranks see it (struct tc_comm in
	 * lib/event.h): graph false when none was recorded */
	bool graph;
	bool weighted;
	uint32_t nin, nout;
	int32_t *edges;           /* owned: nin sources, nout destinations
				   * (ranks of the communicator), then when
				   * weighted their weights; NULL without a graph */
};

/* Words in c->edges. */
static inline size_t tc_gcomm_edge_words(const struct tc_gcomm *c)
{
	return c->graph ? ((size_t)c->nin + c->nout) * (c->weighted ? 2 : 1) : 0;
}

struct tc_gtrace {
	int32_t world_size;
	enum tc_gtiming timing;
	struct tc_ranklist ranks; /* ranks it covers */
	struct tc_gnode *seq;
	size_t n, alloc;
	/* call sites (tc_gtrace_finish: every stack signature used, sorted) */
	struct tc_gsite *sites;
	size_t nsites, asites;
	/* how it was made (informative) */
	char mode[64];
	char variant[16];
	double precision;         /* merge precision, percent */
	uint32_t bins;            /* histogram bins */
	uint64_t events;          /* events of every covered rank */
	uint32_t leads;           /* traces merged */
	uint64_t nnodes;          /* nodes at every level (tc_gtrace_finish) */
	/* the tracer's own time per call inside the compute gaps (the
	 * capture shim's, from the trailers of the files read, weighted by
	 * their events), ns; 0: not measured */
	uint64_t tracer_ns;
	/* the same per op, by op, for the ops measured (the files' means
	 * weighted by their calls); none in a trace written before it was
	 * kept, whose gaps take tracer_ns */
	struct tc_tracer_op *tracer_ops;
	size_t ntracer_ops;
	/* when the trace covers the world and its files were recorded on one
	 * host: the ns after which each world rank ended its first event
	 * (MPI_Init), after the first to end its own, on the host's clock
	 * (lib/skew.h), world_size entries; NULL: not known */
	uint64_t *skew;
	/* with the skews: ns during which k of the host's ranks were in
	 * compute gaps at once on that clock, k = 1 .. nconc (conc[k-1], the
	 * last not 0; lib/skew.h tc_gap_concurrency); NULL: not known */
	uint64_t *conc;
	size_t nconc;
	/* the communicator table: the entries of every rank's communicators
	 * but the world and self (tc_gtrace_add_comms), in the order they
	 * were added; none in a trace written before it was kept */
	struct tc_gcomm *comms;
	size_t ncomms, acomms;
	size_t *comm_index;       /* tc_gtrace_add_comms's hash index (internal) */
	size_t comm_slots, comm_indexed;
};

struct tc_merge_opts {
	double precision;         /* 0..100; 100 (lossless) when out of range */
	uint32_t bins;            /* 0: TC_HIST_BINS_DEFAULT */
	/* within a main cluster, merge a trace whose loop structure equals
	 * the other's node by node, keeping only the parameters that differ,
	 * instead of matching with the WLCS (dissertation §3.3, Table 3.2,
	 * "filtering function") */
	bool filtering;
};

/* Returns new and empty. */
struct tc_gtrace *tc_gtrace_new(int32_t world_size);

/* Add rank's communicators c[0..n) (its trace's table, lib/trace.h;
 * world and self left out) to g's table: each to the entry of the same
 * id and properties, else to a new one. Ranks must come in increasing
 * order. */
void tc_gtrace_add_comms(struct tc_gtrace *g, int32_t rank, const struct tc_trace_comm *c,
			 size_t n);
/* Append an entry (readers; members steals); returns it. */
struct tc_gcomm *tc_gtrace_push_comm(struct tc_gtrace *g);
/* Whether two entries are alike but for their ranks. */
bool tc_gcomm_same(const struct tc_gcomm *a, const struct tc_gcomm *b);
void tc_gtrace_free(struct tc_gtrace **g);

/*
 * Returns a new global trace of the compressed sequence of one rank (a
 * lead), standing for `ranks` (the lead's cluster; NULL: the rank alone).
 * events: the events of the lead (counted once per rank of ranks).
 */
struct tc_gtrace *tc_gtrace_from_rsd(const struct tc_rsd *rsd, const struct tc_ranklist *ranks,
				     int32_t world_size, uint64_t events,
				     const struct tc_merge_opts *opts);

/*
 * The trace of one cluster of n ranks (ranks[k], whose compressed
 * sequence is seqs[k] with events[k] events; lead: the index of its lead)
 * in which every member keeps its own parameters: members of equal
 * sequences form a group, each group stands with its own sequence, the
 * groups other than the lead's take the lead's times, and the groups are
 * merged with the filtering merge (lib/gtrace/exact.c). on_leaf (may be
 * NULL) is called with each group's trace before the merge and the index
 * of the member it was read from. Returns NULL when n == 0.
 */
struct tc_gtrace *tc_gtrace_exact_cluster(const struct tc_rsd *const *seqs,
					  const uint64_t *events, const int32_t *ranks, size_t n,
					  size_t lead, int32_t world,
					  const struct tc_merge_opts *opts,
					  void (*on_leaf)(struct tc_gtrace *leaf, size_t member,
							  void *ctx),
					  void *ctx);

/*
 * Merge b into a (b is freed and NULLed): Scala-H-Trace Alg. 1 with the
 * weighted LCS; b's unmatched nodes come after a's between two matches.
 * a and b must cover disjoint ranks.
 */
void tc_gtrace_merge(struct tc_gtrace *a, struct tc_gtrace **b, const struct tc_merge_opts *opts);

/*
 * Append b (freed and NULLed) after a: every rank's events of b come after
 * its events of a (Chameleon's online trace, dissertation §5.1, Alg. 8).
 * a and b may cover the same ranks.
 */
void tc_gtrace_append(struct tc_gtrace *a, struct tc_gtrace **b);

/*
 * Merge n traces pairwise over a binary radix tree of fixed shape
 * (level k merges items i and i + 2^k for i a multiple of 2^(k+1)), the
 * merges of a level in parallel on pool (may be NULL). Takes every
 * items[i] and returns the result (NULL when n == 0).
 */
struct tc_gtrace *tc_gtrace_merge_tree(struct tc_gtrace **items, size_t n, struct tc_pool *pool,
				       const struct tc_merge_opts *opts);

/*
 * The whole of g, finished or not, in lib/pack.h's encoding (appended to
 * out), and back: a trace handed between processes merges on exactly as
 * the one packed would. tc_gtrace_unpack returns NULL when the message is
 * damaged or short.
 */
struct tc_strbuf;
struct tc_unpack;
void tc_gtrace_pack(const struct tc_gtrace *g, struct tc_strbuf *out);
struct tc_gtrace *tc_gtrace_unpack(struct tc_unpack *u);

/* Add (or replace) the frames of a call site (copied). */
void tc_gtrace_set_site(struct tc_gtrace *g, uint64_t sig, const struct tc_gframe *frames,
			uint32_t nframes);
/* The index of a stack signature in g->sites, or -1. */
ptrdiff_t tc_gtrace_site(const struct tc_gtrace *g, uint64_t sig);
/*
 * Make the trace ready for writing and expansion: every stack signature
 * used gets a site entry and unused ones are dropped (sites sorted by
 * signature), nodes are numbered in pre-order, their weights computed,
 * and histograms balanced into g->bins bins.
 */
void tc_gtrace_finish(struct tc_gtrace *g);

/*
 * Reduce the timing g keeps to t (it never grows back): stats drops the
 * per-rank-set entries (each node's merged statistics stay), none also
 * clears the statistics (their counts stay the occurrences).
 */
void tc_gtrace_set_timing(struct tc_gtrace *g, enum tc_gtiming t);

/*
 * Give every event of dst the compute and call time means of the same
 * event of src (their counts stay dst's) where the two have the same loop
 * structure node by node and at most one time entry each; returns false (dst
 * unchanged) otherwise. Used to let a cluster member whose parameters
 * differ from its lead's stand in the trace with its own parameters but
 * its lead's times.
 */
bool tc_gtrace_borrow_times(struct tc_gtrace *dst, const struct tc_gtrace *src);

struct tc_gtrace_info {
	uint64_t nodes, events, loops;  /* at every level */
	uint64_t variants;              /* value variants over every parameter */
	uint64_t varying;               /* variants with per-occurrence values */
	uint64_t hists;                 /* histograms */
	uint32_t depth;
};
void tc_gtrace_info(const struct tc_gtrace *g, struct tc_gtrace_info *info);

/*
 * Whether expanding g for all its ranks together stays within max_ev
 * events and max_work iterator steps (an event, a loop iteration or a
 * rank each), taking every loop at the largest count a rank can draw
 * there. Returns 0 when it does; 1 when the ranks have more events, 2
 * when they take more steps, with *node the pre-order id
 * (tc_gtrace_finish) of the innermost loop where the count went over
 * (UINT32_MAX: the top level). Readers use it to refuse a trace whose
 * loops and rank lists stand for far more than its header says.
 */
int tc_gtrace_check_bound(const struct tc_gtrace *g, uint64_t max_ev, uint64_t max_work,
			  uint32_t *node);

/* ---- expansion --------------------------------------------------------- */

/*
 * Walks the trace for one rank and gives back its events in order:
 *
 *   struct tc_gtrace_iter it;
 *   struct tc_event ev;
 *   if (tc_gtrace_iter_init(&it, g, rank) == 0) {
 *           while (tc_gtrace_iter_next(&it, &ev))
 *                   use(&ev);
 *           tc_gtrace_iter_release(&it);
 *   }
 *
 * ev.callsite is the index of the call site in g->sites; times start at
 * 0 and advance by the means of the compute and call time statistics of
 * the node's time entry that holds the rank.
 * Where a histogram stands for the rank's values, a value is drawn from
 * its bins by a hash of the rank, the node and the occurrence (the same
 * for every run): the bin with probability proportional to its count,
 * the value the bin's mean rounded (Scala-H-Trace §5.1).
 */
struct tc_gtrace_iter_frame {
	const struct tc_gnode *seq;
	size_t n, i;
	uint64_t iters, left;
	uint64_t occ;            /* occurrence of the loop node itself */
};

struct tc_gtrace_iter {
	const struct tc_gtrace *g;
	int32_t rank;
	struct tc_gtrace_iter_frame *stack;
	size_t depth, alloc;
	uint64_t last_req, prev_end;
	struct tc_completion *compl;
	size_t acompl;
	uint64_t *counts;        /* send/receive count arrays */
	size_t acounts;
	void *cache;             /* per node: which variant holds the rank */
	const struct tc_gnode *node; /* the event node of the last event */
};

/* 0, or -1 when rank is not covered by g. */
int tc_gtrace_iter_init(struct tc_gtrace_iter *it, const struct tc_gtrace *g, int32_t rank);
bool tc_gtrace_iter_next(struct tc_gtrace_iter *it, struct tc_event *ev);
void tc_gtrace_iter_release(struct tc_gtrace_iter *it);

/* The time entry of an event node that holds rank: borrowed, or NULL
 * when the node has no entries (its comp and comm stand for every rank)
 * or none holds the rank. */
const struct tc_gtime *tc_gnode_time(const struct tc_gnode *nd, int32_t rank);
/* Set nd->comp and nd->comm to the merge of every time entry (when it
 * has any). */
void tc_gnode_times_total(struct tc_gnode *nd);
void tc_gtime_release(struct tc_gtime *t);

/* ---- ranklists --------------------------------------------------------- */

/* dst = a u b, sorted, as runs (dst may be a or b). */
void tc_granks_union(struct tc_ranklist *dst, const struct tc_ranklist *a,
		     const struct tc_ranklist *b);
/* Copy (dst is initialised first). */
void tc_granks_copy(struct tc_ranklist *dst, const struct tc_ranklist *src);
/* Smallest rank, or -1 when empty. */
int32_t tc_granks_first(const struct tc_ranklist *rl);
/* Make runs sorted and canonical (1-D runs as tc_ranklist_add builds
 * them); returns -1 when a rank comes twice. */
int tc_granks_normalize(struct tc_ranklist *rl);

#endif
