/*
 * rsd.h - intra-rank loop compression: ScalaTrace's RSDs and PRSDs.
 *
 * A rank's events are fed one at a time to an online compressor that
 * folds repetitions into loops as they appear (dissertation ch. 2 and
 * §2.1; Scala-H-Trace §2.1, §2.2):
 *
 *   RSD1:  <100, MPI_Send1, MPI_Recv1>   a loop of 100 send/recv pairs
 *   PRSD1: <1000, RSD1, MPI_Barrier1>    1000 times that loop and a barrier
 *
 * The result is a sequence of nodes; a node is either one event or a loop
 * (an iteration count and a body that is itself a sequence of nodes, so
 * loops nest to any depth).
 *
 * What makes two events "the same" for folding is the match mode:
 *
 *   TC_RSD_MATCH_CALLSITE (default): equal in op and call site (stack
 *     signature). Where parameters differ between the occurrences an
 *     event node stands for, the node keeps the event of every occurrence,
 *     in order, compressed by runs and repetitions (ScalaTrace's vector
 *     representation of non-matching parameters, Scala-H-Trace §2.1). The
 *     loop structure then depends on the call sites alone: a message size
 *     that varies from step to step, or a loop over neighbours from one
 *     call site, does not break loops up, and ranks that call the same
 *     sites in the same order get the same structure;
 *   TC_RSD_MATCH_PARAMS: equal in op, call site and every parameter (a
 *     node's occurrences are then always the same event).
 *
 * Parameters are compared in relative terms: end-points (peers, actual
 * sources of completions) relative to the own rank, as ScalaTrace's
 * location-independent encoding does, request ids relative to the rank's
 * previous request, so that every iteration of a halo exchange is the
 * same event sequence on every interior rank.
 *
 * Either way nothing but times is lost. Times are not part of equality:
 * each event node keeps statistics (count, min, max, mean, standard
 * deviation; Welford) of the compute time before the call and of the time
 * spent in the call, over all the occurrences it stands for. Walking the
 * sequence with struct tc_rsd_iter gives back every event in order, with
 * every field exactly as fed (peers made absolute again, request ids
 * restored); times come back as the means of their statistics, which is
 * exact wherever all occurrences of an event took the same time.
 *
 * The search for a repetition looks back at most `window` nodes of the
 * top-level sequence, so a repeated body longer than the window stays
 * unfolded; with a fast path that follows the body of the last loop, the
 * cost is O(1) per event in steady state and O(window) per loop iteration
 * otherwise. The compressor is deterministic: the same event sequence (in
 * relative terms) gives the same nodes on every rank, which is what makes
 * call-path signatures over the compressed sequence comparable across
 * ranks (cluster/signature.h).
 */
#ifndef TC_RSD_H
#define TC_RSD_H

#include "compat.h"

struct tc_event;
struct tc_completion;
struct tc_strbuf;

/* ---- relative end-points ---------------------------------------------- */

/*
 * A peer relative to the own rank (ScalaTrace's location-independent
 * encoding, dissertation ch. 2): peer - rank for a world rank; special
 * peers (TC_PEER_NONE, TC_ANY_SOURCE, TC_PROC_NULL, any negative value)
 * are moved below TC_REL_SPECIAL so that no int32 peer collides with an
 * offset.
 */
#define TC_REL_SPECIAL (-((int64_t)1 << 40))
static inline int64_t tc_rel_peer(int32_t peer, int32_t rank)
{
	return peer >= 0 ? (int64_t)peer - rank : TC_REL_SPECIAL + peer;
}
/* Whether a relative peer stands for a world rank (not a special peer). */
static inline bool tc_rel_is_rank(int64_t rel)
{
	return rel > TC_REL_SPECIAL / 2;
}
static inline int32_t tc_abs_peer(int64_t rel, int32_t rank)
{
	return (int32_t)(tc_rel_is_rank(rel) ? rel + rank : rel - TC_REL_SPECIAL);
}
/*
 * The world rank a relative peer stands for at a rank of a world of size
 * world (> 0), taken modulo the world: a rank that takes another rank's
 * relative peers (a cluster lead's, in a lead-only global trace) reaches
 * the same neighbour on a periodic ring or torus, where rank 0's left
 * neighbour +3 in a world of 4 is rank 2's +3 - 4 = -1. A peer inside the
 * world is unchanged, so exact traces expand as tc_abs_peer does.
 */
static inline int32_t tc_abs_peer_in(int64_t rel, int32_t rank, int32_t world)
{
	int64_t a;

	if (!tc_rel_is_rank(rel) || world <= 0)
		return tc_abs_peer(rel, rank);
	a = rel + rank;
	if (a >= 0 && a < world) /* every exact rank's: no division */
		return (int32_t)a;
	a %= world;
	return (int32_t)(a < 0 ? a + world : a);
}

/* ---- time statistics -------------------------------------------------- */

/* Statistics of one duration (ns) over n samples (Welford's method). */
struct tc_rsd_stat {
	uint64_t n;
	int64_t min, max;
	double mean;
	double m2;            /* sum of squared deviations from the mean */
};

void tc_rsd_stat_init(struct tc_rsd_stat *s);
void tc_rsd_stat_add(struct tc_rsd_stat *s, int64_t x);
/* Fold o into s (Chan, Golub and LeVeque's pairwise update). */
void tc_rsd_stat_merge(struct tc_rsd_stat *s, const struct tc_rsd_stat *o);
/* Population standard deviation; 0 for fewer than two samples. */
double tc_rsd_stat_stddev(const struct tc_rsd_stat *s);
/* In lib/pack.h's encoding, and back (the global trace's packer too). */
struct tc_strbuf;
struct tc_unpack;
void tc_rsd_stat_pack(struct tc_strbuf *sb, const struct tc_rsd_stat *s);
void tc_rsd_stat_unpack(struct tc_unpack *u, struct tc_rsd_stat *s);

/* ---- compressed events and nodes -------------------------------------- */

/* A request id of 0 (none, e.g. the status of a blocking receive). */
#define TC_RSD_NOREQ INT64_MIN

/* A completion (struct tc_completion) in relative terms. */
struct tc_rsd_compl {
	int64_t request;        /* id minus the rank's previous request id, or TC_RSD_NOREQ */
	int64_t source;         /* relative (tc_rel_peer) */
	int32_t tag;
	uint64_t bytes;
};

/*
 * One distinct event of a rank, in relative terms. Fields whose TC_F_*
 * bit is clear hold tc_event_init's defaults. Read-only for users.
 */
struct tc_rsd_event {
	uint32_t op;            /* enum tc_op */
	uint32_t fields;        /* TC_F_* of the events it stands for */
	uint32_t comm;
	int32_t tag;
	int32_t rtag;
	uint32_t dtype;
	uint32_t dtype_size;
	uint32_t redop;
	int32_t root;           /* world rank, absolute */
	int32_t color;
	int32_t key;
	uint32_t newcomm;
	uint32_t file;
	int32_t result;
	uint32_t ncompl;
	uint32_t nscounts;
	uint32_t nrcounts;
	uint64_t stack;         /* the call site's 64-bit stack signature, 0 if none */
	int64_t peer;           /* relative (tc_rel_peer) */
	int64_t rpeer;          /* relative */
	uint64_t count;
	uint64_t bytes;
	int64_t request;        /* id minus the rank's previous request id */
	uint64_t offset;
	uint32_t callsite;      /* file-local call-site id (TC_NO_CALLSITE) */
	const struct tc_rsd_compl *compl;
	const uint64_t *scounts;
	const uint64_t *rcounts;
	uint64_t hash;          /* of every field but `callsite`: equal on every
				 * rank for events equal in relative terms */
};


/* The events of the occurrences of an event node, when they differ:
 * run-length and repetition compressed, opaque (see tc_rsd_event_at). */
struct tc_rsd_vals;

/*
 * A node of the compressed sequence: an event (nbody == 0) or a loop.
 * An event node stands for comp.n occurrences (its own count times those
 * of the loops around it), numbered in the order they were fed: for a
 * node in loops with counts c1 (outermost) .. ck at iterations i1 .. ik,
 * occurrence ((i1 * c2 + i2) * c3 + i3) ... . Read-only for users; the
 * pointers stay valid until the next tc_rsd_add or tc_rsd_free.
 */
struct tc_rsd_node {
	uint64_t iters;         /* loop: iterations (>= 2); event: 1 */
	uint64_t hash;          /* structure: matched events, counts, nesting;
				 * equal on every rank for equal structures */
	uint32_t nbody;         /* loop: nodes in the body (>= 1); event: 0 */
	uint32_t event;         /* event: its first occurrence's event (index for
				 * tc_rsd_event()), every occurrence's if !vals */
	uint32_t key;           /* event: what it was matched by; loop: a hash
				 * of its body, which repetitions keep (internal) */
	struct tc_rsd_vals *vals; /* event: NULL, or its occurrences' events */
	struct tc_rsd_node *body; /* loop: nbody nodes */
	struct tc_rsd_stat comp; /* event: compute time before the call */
	struct tc_rsd_stat comm; /* event: time inside the call (t_end - t_start) */
};

/* The event of occurrence occ (< nd->comp.n) of an event node. */
uint32_t tc_rsd_event_at(const struct tc_rsd_node *nd, uint64_t occ);
/* Call fn(ctx, event, n) for the events of the occurrences of an event
 * node, n occurrences at a time (an event may come more than once); the n
 * add up to nd->comp.n. */
typedef void (*tc_rsd_occ_fn)(void *ctx, uint32_t event, uint64_t n);
void tc_rsd_node_events(const struct tc_rsd_node *nd, tc_rsd_occ_fn fn, void *ctx);

/*
 * Walk the occurrences of an event node in order, keeping the structure
 * they are stored in: run(ctx, event, reps) stands for `reps` occurrences
 * of one event in a row; begin(ctx, reps) ... end(ctx) brackets a group of
 * occurrences that repeats `reps` times in a row (groups nest). A node
 * whose occurrences are all one event gives a single run of comp.n.
 */
struct tc_rsd_walk_ops {
	void (*run)(void *ctx, uint32_t event, uint64_t reps);
	void (*begin)(void *ctx, uint64_t reps);
	void (*end)(void *ctx);
};
void tc_rsd_node_walk(const struct tc_rsd_node *nd, const struct tc_rsd_walk_ops *ops,
		      void *ctx);

/* ---- the compressor --------------------------------------------------- */

#define TC_RSD_WINDOW_DEFAULT 256u
#define TC_RSD_WINDOW_MAX (1u << 20)

enum tc_rsd_match {
	TC_RSD_MATCH_CALLSITE = 0, /* op and call site; parameters per occurrence */
	TC_RSD_MATCH_PARAMS = 1,   /* op, call site and every parameter */
};

struct tc_rsd_opts {
	uint32_t window;        /* look-back in top-level nodes; 0 = default */
	int match;              /* enum tc_rsd_match (0: by call site) */
};

/* "params" / "callsite" and back (-1 when unknown). */
const char *tc_rsd_match_name(int match);
int tc_rsd_match_from_name(const char *name);

struct tc_rsd;

/* Returns new, for events of world rank `rank`; opts may be NULL. */
struct tc_rsd *tc_rsd_new(int32_t rank, const struct tc_rsd_opts *opts);
/* Frees *rsd and sets it to NULL; NULL is fine. */
void tc_rsd_free(struct tc_rsd **rsd);

/*
 * Returns a new, empty compressor that continues r's stream: the same
 * rank, options and call-site table, and the request and time state of the
 * last event fed to r, so that the events fed to it encode (relative
 * request ids, compute time before the first event) as if fed to r. For
 * cutting a rank's stream into phases (e.g. at marker calls, as
 * Chameleon does, dissertation §5.1) and compressing each on its own.
 */
struct tc_rsd *tc_rsd_new_segment(const struct tc_rsd *r);

/* Returns a new, empty compressor with r's rank, options and call-site
 * table, and the encoding state of a fresh stream (for re-reading r's
 * events from the start, e.g. cut into phases). */
struct tc_rsd *tc_rsd_new_like(const struct tc_rsd *r);

/* Map file-local call-site id to its stack signature (may be redefined;
 * events use the mapping current when they are added). */
void tc_rsd_set_callsite(struct tc_rsd *rsd, uint32_t id, uint64_t signature);
/* Feed the next event of the rank (copies what it needs). */
void tc_rsd_add(struct tc_rsd *rsd, const struct tc_event *ev);
/* Occurrences of a loop iteration in progress wait outside the sequence
 * until the iteration ends; the first read (tc_rsd_seq, _info, _equal,
 * _format, an iterator) puts them in place. Call this once all events are
 * added before other threads read the sequence. */
void tc_rsd_settle(struct tc_rsd *rsd);

int32_t tc_rsd_rank(const struct tc_rsd *rsd);
/* The top-level sequence (borrowed); *n gets its length. */
const struct tc_rsd_node *tc_rsd_seq(const struct tc_rsd *rsd, size_t *n);
/* Distinct event i (borrowed), i < tc_rsd_nevents(). */
const struct tc_rsd_event *tc_rsd_event(const struct tc_rsd *rsd, uint32_t i);
uint32_t tc_rsd_nevents(const struct tc_rsd *rsd);

struct tc_rsd_info {
	uint64_t events;        /* events fed */
	uint64_t distinct;      /* distinct events (tc_rsd_nevents) */
	uint64_t top;           /* top-level nodes */
	uint64_t nodes;         /* nodes at every level */
	uint64_t leaves;        /* event nodes at every level */
	uint64_t loops;         /* loop nodes at every level */
	uint64_t varying;       /* event nodes whose occurrences differ */
	uint64_t values;        /* entries kept for their occurrences (size) */
	uint32_t depth;         /* deepest loop nesting (0: no loop) */
	/* order-dependent digest of the uncompressed event sequence in
	 * relative terms (the events as tc_rsd_event.hash, in order): equal
	 * for ranks that made the same calls with the same parameters */
	uint64_t digest;
};
void tc_rsd_info(const struct tc_rsd *rsd, struct tc_rsd_info *info);
/* tc_rsd_info's digest alone, in constant time. */
uint64_t tc_rsd_digest(const struct tc_rsd *rsd);

/*
 * Whether two compressed sequences (of the same or different ranks,
 * compressed with the same options) are the same: the same nodes, loop
 * counts and events (every occurrence's), events compared in relative
 * terms and by stack signature instead of file-local call-site id. Times
 * are not compared. Exact (no hashing shortcut): equal sequences expand
 * to the same events.
 */
bool tc_rsd_equal(const struct tc_rsd *a, const struct tc_rsd *b);
/* The same for two events of possibly different compressors. */
bool tc_rsd_event_equal(const struct tc_rsd_event *a, const struct tc_rsd_event *b);

/* ---- expansion -------------------------------------------------------- */

/*
 * Walks the sequence event by event, in the order the events were fed:
 *
 *   struct tc_rsd_iter it;
 *   struct tc_event ev;
 *   tc_rsd_iter_init(&it, rsd);
 *   while (tc_rsd_iter_next(&it, &ev))
 *           use(&ev);
 *   tc_rsd_iter_release(&it);
 *
 * ev's arrays are borrowed until the next call. `node` is the event node
 * the last event came from (for its time statistics).
 */
struct tc_rsd_iter_frame {
	const struct tc_rsd_node *seq;
	size_t n;
	size_t i;
	uint64_t iters;         /* of the loop (1 for the top level) */
	uint64_t left;          /* iterations left, this one included */
};

struct tc_rsd_iter {
	const struct tc_rsd *rsd;
	struct tc_rsd_iter_frame *stack;
	size_t depth, alloc;
	uint64_t last_req;
	uint64_t prev_end;
	struct tc_completion *compl;
	size_t compl_alloc;
	const struct tc_rsd_node *node;
};

void tc_rsd_iter_init(struct tc_rsd_iter *it, const struct tc_rsd *rsd);
/* Fill ev with the next event; false at the end. */
bool tc_rsd_iter_next(struct tc_rsd_iter *it, struct tc_event *ev);
void tc_rsd_iter_release(struct tc_rsd_iter *it);

/* ---- handing a sequence to another process ----------------------------- */

struct tc_unpack;

/*
 * Append r's whole state (options, call-site table, encoding state,
 * events, nodes with their statistics and occurrence values) to out in
 * lib/pack.h's encoding. tc_rsd_unpack() reads it back as a sequence
 * that every reader (iterators, tc_rsd_equal, _info, _digest, _format,
 * tc_rsd_new_like/_segment) sees exactly as the original; NULL with u
 * marked bad when the bytes do not hold one.
 */
void tc_rsd_pack(const struct tc_rsd *r, struct tc_strbuf *out);
struct tc_rsd *tc_rsd_unpack(struct tc_unpack *u);

/* ---- text ------------------------------------------------------------- */

enum {
	/* one line: loops as COUNT*( ... ), events as e<index> (of the first
	 * occurrence, with ~D appended when its occurrences are D distinct
	 * events), e.g. "e0 1000*(100*(e1 e2) e3~2) e4" */
	TC_RSD_FMT_SHAPE = 0,
	/* one node per line, indented by nesting: loops with their count,
	 * events with op, call site, parameters and time statistics */
	TC_RSD_FMT_LONG = 1,
};
void tc_rsd_format(const struct tc_rsd *rsd, struct tc_strbuf *out, int style);

#endif
