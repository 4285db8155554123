/*
 * align.h - structural comparison of process event sequences (Weber).
 *
 * After M. Weber's "Clustering and Alignment Methods for Structural
 * Comparison of Parallel Applications" (Scalable Tools Workshop 2016,
 * ../shared/papers/weber-2016-structural-clustering-and-alignment-slides.txt)
 * and the papers it cites: pairwise global alignment of two ranks' event
 * sequences (slides 4-6), progressive multiple alignment (slides 14-15),
 * its hierarchical variant along the call tree (slides 16-17), the merged
 * call graph (slides 18-19), the function-pair similarity and the concept
 * lattice that groups processes by it (slides 8-12), and the comparison
 * of two runs of the same program event by event (slide 3).
 *
 * Everything here works on data in memory: a struct tc_aseq is filled by
 * streaming a rank's records into it (its callbacks have the signatures
 * of struct tc_read_ops in formats/raw.h), a struct tc_fpairs by the
 * same callbacks but keeping only the caller->callee pairs. Nothing here
 * prints or opens a file; text, DOT and SVG renderings go into a
 * struct tc_strbuf.
 */
#ifndef TC_ALIGN_H
#define TC_ALIGN_H

#include "lib/compat.h"

struct tc_event;
struct tc_callsite;
struct tc_error;
struct tc_frame;
struct tc_pool;
struct tc_strbuf;

/* ---- a rank's event sequence ------------------------------------------ */

/* One frame of a call site, innermost first. */
struct tc_aseq_frame {
	char *fn;            /* function name: the symbol without "+0x..", or
			      * "MODULE@0xOFFSET" when the frame has no symbol */
	char *symbol;        /* as recorded ("stencil2d_exchange_east+0x1c"), may be "" */
	char *module;        /* as recorded: the path of the executable or
			      * shared object */
	uint64_t offset;     /* module-relative return address */
	uint64_t modkey;     /* the module as runs compare it (tc_module_key) */
};

/* One call-site definition. */
struct tc_aseq_site {
	uint64_t signature;  /* 64-bit stack signature (lib/event.h) */
	uint32_t nframes;
	struct tc_aseq_frame *frames;
	uint64_t fnkey;      /* hash of the function names of the frames (the
			      * main program's unsymbolised frames by offset,
			      * not by its file name) */
	uint64_t sitekey;    /* hash of the frames' modkey and offset; the
			      * recorded stack signature when there are no
			      * frames */
};

/* The parameters of an event shown next to it (absolute peers). */
struct tc_aseq_param {
	uint32_t fields;     /* TC_F_* */
	uint32_t comm;
	int32_t peer, tag;
	int32_t rpeer, rtag;
	int32_t root;
	uint32_t dtype;
	uint32_t redop;
	uint64_t count;
	uint64_t bytes;      /* tc_event_bytes() */
};

struct tc_aseq_event {
	uint32_t op;         /* enum tc_op */
	uint32_t site;       /* index into sites, or UINT32_MAX for none */
	uint32_t param;      /* index into params */
	uint64_t t_start;    /* ns since the file's start */
	uint64_t t_end;
};

/*
 * A module (lib/event.h's struct tc_frame) as two runs compare it: a
 * shared object by its file name (not the directory it is installed in),
 * the main program by its role alone, so that a binary copied or rebuilt
 * under another name or path keeps its call sites. A module is a shared
 * object when its file name ends in ".so" or has ".so." in it
 * ("libmpi.so.40", "linux-vdso.so.1"); any other named module is the
 * main program. Frames without a module (an unresolved address) have
 * key 0.
 */
bool tc_module_is_shared(const char *module);
uint64_t tc_module_key(const char *module);

/* What makes two events the same symbol. */
enum tc_akey {
	TC_AKEY_SITE = 0,     /* MPI operation and call site: every frame's
			       * module (tc_module_key) and offset */
	TC_AKEY_FUNCTION = 1, /* MPI operation and the function names of the
			       * stack: survives a rebuild that moves code */
	TC_AKEY_OP = 2,       /* MPI operation only */
};
/* "site", "function", "op" and back (-1 when unknown). */
const char *tc_akey_name(int key);
int tc_akey_from_name(const char *name);

/*
 * The events of one rank in file order, each with its symbol, parameters
 * and times. Read-only for users but for the fields noted.
 */
struct tc_aseq {
	int32_t rank;
	int32_t world_size;
	uint64_t *sym;       /* per event: the symbol (tc_aseq_rekey) */
	struct tc_aseq_event *ev;
	size_t n, alloc;
	struct tc_aseq_site *sites;
	size_t nsites, asites;
	struct tc_aseq_param *params;
	size_t nparams, aparams;
	uint64_t max_events; /* settable: the event callback stops the read
			      * past this many (0 = no limit) */
	bool truncated;      /* it did */
	int key;             /* enum tc_akey of sym */
	/* private */
	uint32_t *site_of_id;
	size_t nsite_ids;
	uint32_t *phash;
	size_t phash_size;
};

/* Returns new. */
struct tc_aseq *tc_aseq_new(int32_t rank, int32_t world_size);
/* Frees *s and sets it to NULL; NULL is fine. */
void tc_aseq_free(struct tc_aseq **s);
/* Streaming callbacks (ctx is the struct tc_aseq); return 0, or 1 from
 * the event callback once max_events is passed. */
int tc_aseq_on_event(void *ctx, const struct tc_event *ev);
int tc_aseq_on_callsite(void *ctx, const struct tc_callsite *cs);
/* Recompute every symbol with key (enum tc_akey). */
void tc_aseq_rekey(struct tc_aseq *s, int key);
/* The call site of event i (borrowed), or NULL. */
const struct tc_aseq_site *tc_aseq_site_of(const struct tc_aseq *s, size_t i);
/* The innermost frame's symbol of event i's call site ("" if none). */
const char *tc_aseq_where(const struct tc_aseq *s, size_t i);
/* Append event i's parameters as "peer=+1(6) tag=10 count=1024 MPI_DOUBLE"
 * (peers also relative to the rank). */
void tc_aseq_format_params(const struct tc_aseq *s, size_t i, struct tc_strbuf *out);
/*
 * What tells event i of a from event j of b apart under a's key (either
 * may be SIZE_MAX for none): the operations, or the first frame of the
 * call stacks that differs ("call-site frame #3: A app+0x1411 (main+0x8c),
 * B solver+0x1411 (main+0x8c)"), or the number of frames; appended to
 * out, "" when they are the same symbol.
 */
void tc_aseq_explain(const struct tc_aseq *a, size_t i, const struct tc_aseq *b, size_t j,
		     struct tc_strbuf *out);
/* Whether events i of a and j of b have the same parameters (peers and
 * roots compared relative to each rank when relative is set). */
bool tc_aseq_params_equal(const struct tc_aseq *a, size_t i, const struct tc_aseq *b,
			  size_t j, bool relative);

/* ---- pairwise alignment ----------------------------------------------- */

/* Column kinds of an alignment. */
enum tc_acol {
	TC_ACOL_MATCH = '=',    /* a[i] and b[j], the same symbol */
	TC_ACOL_MISMATCH = '!', /* a[i] and b[j], different symbols */
	TC_ACOL_ONLY_A = '<',   /* a[i] against a gap in b */
	TC_ACOL_ONLY_B = '>',   /* a gap in a against b[j] */
};

/* Which algorithm computes an alignment. */
enum tc_aengine {
	TC_AENGINE_AUTO = 0,   /* LCS when the scores allow it, else NW */
	TC_AENGINE_LCS = 1,    /* Hirschberg over bit-parallel LCS rows */
	TC_AENGINE_NW = 2,     /* Hirschberg over Needleman-Wunsch rows */
	TC_AENGINE_FULL = 3,   /* Needleman-Wunsch with the whole matrix
				* (quadratic memory; the baseline) */
};
const char *tc_aengine_name(int engine);
int tc_aengine_from_name(const char *name);

/* Linear scores: a column scores match, mismatch or gap. */
struct tc_ascore {
	int32_t match;
	int32_t mismatch;
	int32_t gap;
};
/* The default: match 1, mismatch -2, gap -1. With mismatch = 2 gap the
 * optimal alignments are exactly the longest common subsequences of the
 * two sequences, with unmatched stretches of both shown side by side as
 * mismatches, which the bit-parallel engine computes. */
#define TC_ASCORE_DEFAULT { 1, -2, -1 }

/* Whether the LCS engine gives the optimal score for sc: match > 2 gap
 * and mismatch <= 2 gap. */
bool tc_ascore_lcs_ok(const struct tc_ascore *sc);

struct tc_alignment {
	unsigned char *col;   /* enum tc_acol per column */
	size_t ncols, alloc;
	size_t na, nb;        /* lengths of the sequences aligned */
	int64_t score;        /* of the columns, under the scores used */
	uint64_t matches, mismatches, only_a, only_b;
	int engine;           /* the engine that ran */
};

void tc_alignment_init(struct tc_alignment *al);
void tc_alignment_release(struct tc_alignment *al);
/* Matches divided by columns (1 for two equal sequences, 1 for two empty
 * ones): the share of the alignment where both do the same thing. */
double tc_alignment_similarity(const struct tc_alignment *al);
/* Recount matches..only_b and the score of al->col under sc against a and
 * b; returns false if the columns do not consume a and b exactly or a
 * match column pairs different symbols (for tests). */
bool tc_alignment_check(struct tc_alignment *al, const uint64_t *a, size_t na,
			const uint64_t *b, size_t nb, const struct tc_ascore *sc);

/* Limits: the full-matrix engine refuses more cells than this. */
#define TC_ALIGN_FULL_MAX_CELLS ((uint64_t)1 << 31)

/*
 * Globally align a (na symbols) and b (nb symbols) under sc (NULL: the
 * default) with engine, into al (reset first). Every engine but FULL
 * runs in memory linear in na + nb (Hirschberg's divide and conquer;
 * the LCS engine keeps 64 columns in a machine word, Hyyro's bit-vector
 * recurrence). Every engine gives an optimal score; ties between optimal
 * alignments are broken deterministically. With mismatch == 2 gap,
 * stretches without a match show min(p, q) mismatches first, then the
 * gaps. Returns 0, or TC_ERR_USAGE with err filled (engine not usable
 * with sc, matrix too large).
 */
int tc_align_pair(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
		  const struct tc_ascore *sc, int engine, struct tc_alignment *al,
		  struct tc_error *err);

/* The optimal score only, in linear memory (Needleman-Wunsch rows). */
int64_t tc_align_score(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
		       const struct tc_ascore *sc);

/* ---- multiple alignment ----------------------------------------------- */

/*
 * An alignment block of nrows sequences: cell[r * ncols + c] is the
 * index of row r's event in column c, or -1 for a gap. Rows are in the
 * order of the input sequences.
 */
struct tc_msa {
	size_t nrows, ncols;
	int64_t *cell;
	uint64_t pairs;       /* pairwise alignments computed */
	uint64_t cells;       /* dynamic-programming cells they covered */
	size_t *order;        /* the order rows were added (nrows) */
	size_t *guide;        /* per row: the row it was aligned against
			       * (SIZE_MAX for the first) */
};

void tc_msa_init(struct tc_msa *m);
void tc_msa_release(struct tc_msa *m);

struct tc_msa_opts {
	struct tc_ascore score;
	int engine;           /* enum tc_aengine */
};

/*
 * Progressive alignment (slides 14-15): start from the first sequence,
 * then add the sequence most similar to one already in the block
 * (similarity of symbol histograms; ties to the lowest index), aligned
 * pairwise against that one; gaps opened in it become gap columns of the
 * whole block ("once a gap, always a gap"). Returns 0 or fills err.
 */
int tc_msa_progressive(struct tc_aseq *const *seqs, size_t n, const struct tc_msa_opts *o,
		       struct tc_msa *m, struct tc_error *err);

/*
 * Hierarchical alignment (slides 16-17): each sequence is split along its
 * call tree (struct tc_ctree) and the children of matching call-tree
 * nodes are aligned progressively, level by level, so that only the short
 * child sequences of one node are ever aligned; the block is the
 * flattening of the per-node blocks. Mismatches are not used inside the
 * tree (a column holds one call or one event).
 */
int tc_msa_hierarchical(struct tc_aseq *const *seqs, size_t n, const struct tc_msa_opts *o,
			struct tc_msa *m, struct tc_error *err);

struct tc_msa_stats {
	size_t conserved;     /* columns where every row has the same symbol */
	size_t gapped;        /* columns with at least one gap */
	size_t mixed;         /* columns with two or more different symbols */
	double identity;      /* conserved / ncols (1 for an empty block) */
};
void tc_msa_stats(const struct tc_msa *m, struct tc_aseq *const *seqs,
		  struct tc_msa_stats *st);
/* Check that each row holds its sequence's events 0..n-1 in order. */
bool tc_msa_check(const struct tc_msa *m, struct tc_aseq *const *seqs);

/* ---- call trees and the merged call graph ------------------------------ */

/*
 * A rank's call tree, as far as the recorded call stacks show it: the
 * root's children are the outermost functions; a node is a run of
 * consecutive events under the same call (the same return address in the
 * parent, so the same callee), and its children are the calls and the MPI
 * events directly inside it. Consecutive calls from one place merge into
 * one node: stacks do not show where one invocation ends and the next
 * begins.
 */
struct tc_ctree_node {
	uint64_t label;       /* the call: hash of the caller's return address
			       * (module, offset) and the callee's name; for
			       * a leaf, the event's symbol */
	uint32_t depth;
	bool leaf;            /* an MPI event */
	size_t first, last;   /* events [first, last) below */
	size_t *child;        /* node indices */
	size_t nchild, achild;
	const char *fn;       /* callee function name (borrowed from the seq) */
};

struct tc_ctree {
	struct tc_ctree_node *node;   /* node 0 is the root */
	size_t n, alloc;
};

/* Build the call tree of s (node labels use s->key for leaves). */
void tc_ctree_build(struct tc_ctree *t, const struct tc_aseq *s);
void tc_ctree_release(struct tc_ctree *t);

/*
 * The merged call graph (slides 18-19): the union of the call trees of
 * several processes by call path (function names from the outermost in;
 * leaves are MPI operations), each node with the processes that reach it
 * and those that do not although they reach its parent (the GAP states).
 */
struct tc_cgraph;

/* Returns new, for nprocs processes (numbered 0..nprocs-1 by the caller). */
struct tc_cgraph *tc_cgraph_new(size_t nprocs);
void tc_cgraph_free(struct tc_cgraph **g);
/* Add the events of s as process proc (each process once; not thread
 * safe). */
void tc_cgraph_add(struct tc_cgraph *g, size_t proc, const struct tc_aseq *s);
/* The rank shown for process proc (default: proc). */
void tc_cgraph_set_rank(struct tc_cgraph *g, size_t proc, int32_t rank);

struct tc_cgraph_info {
	size_t nodes, edges, leaves;
	size_t partial;       /* nodes not reached by every process */
	uint32_t depth;
};
void tc_cgraph_info(const struct tc_cgraph *g, struct tc_cgraph_info *info);

/* Renderings: DOT (Graphviz) and SVG (a layered tree layout, drawn
 * directly). Node colour: grey where every process is present, else from
 * blue (few processes) to red (many). Append to out. */
void tc_cgraph_dot(const struct tc_cgraph *g, struct tc_strbuf *out);
void tc_cgraph_svg(const struct tc_cgraph *g, struct tc_strbuf *out);
/* One JSON document ({"schema":1,"nodes":[...]}) with ranklists. */
void tc_cgraph_json(const struct tc_cgraph *g, struct tc_strbuf *out);

/* ---- function pairs, structural similarity, concept lattice ------------ */

/*
 * The caller->callee function pairs of one process (slide 8):
 * pairs(P) = {(F1, F2) : F1 calls F2 on P at least once}, from the frames
 * of the call sites its events used; the innermost function's callee is
 * the MPI operation. Filled by streaming, like struct tc_aseq.
 */
struct tc_fpairs;

struct tc_fpairs *tc_fpairs_new(int32_t rank);
void tc_fpairs_free(struct tc_fpairs **p);
int tc_fpairs_on_event(void *ctx, const struct tc_event *ev);
int tc_fpairs_on_callsite(void *ctx, const struct tc_callsite *cs);
/* Take the pairs of a sequence already in memory. */
void tc_fpairs_from_aseq(struct tc_fpairs *p, const struct tc_aseq *s);
/* Add the pairs of a call site (frames innermost first) used by op. */
void tc_fpairs_add_site(struct tc_fpairs *p, const struct tc_frame *frames, uint32_t nframes,
			uint32_t op);
int32_t tc_fpairs_rank(const struct tc_fpairs *p);
/* Pairs so far ("caller\tcallee", sorted, borrowed). */
size_t tc_fpairs_count(struct tc_fpairs *p);
const char *tc_fpairs_get(struct tc_fpairs *p, size_t i);

/*
 * The structural clustering of n processes (slides 8-12): every process's
 * pair set as attributes of a formal context, the concept lattice built
 * incrementally with AddIntent (van der Merwe, Obiedkov and Kourie 2004),
 * the groups (processes sharing their object concept, i.e. their pair
 * set; with threshold < 1, groups whose similarity reaches it are
 * joined, single linkage) and the function-pair similarity
 * sim(P, Q) = |pairs(P) n pairs(Q)| / |pairs(P) u pairs(Q)| (1 for two
 * empty sets).
 */
struct tc_structural;

struct tc_structural_opts {
	double threshold;       /* 1 = identical pair sets only (default) */
	size_t max_concepts;    /* the lattice may grow exponentially: fail
				 * beyond this many concepts (0 = 1000000) */
};

/* Takes the pair sets of n processes (borrowed during the call; in the
 * order given, which is the order of ids in the result). pool may be NULL.
 * Returns 0 or fills err (too many concepts). */
int tc_structural_build(struct tc_structural **out, struct tc_fpairs *const *procs,
			size_t n, const struct tc_structural_opts *o,
			struct tc_pool *pool, struct tc_error *err);
void tc_structural_free(struct tc_structural **s);

size_t tc_structural_nprocs(const struct tc_structural *s);
int32_t tc_structural_rank(const struct tc_structural *s, size_t proc);
/* The similarity of processes i and j. */
double tc_structural_sim(const struct tc_structural *s, size_t i, size_t j);
/* Distinct pairs over all processes, and pair k ("caller\tcallee"). */
size_t tc_structural_npairs(const struct tc_structural *s);
const char *tc_structural_pair(const struct tc_structural *s, size_t k);
/* Groups, ordered by their lowest process; members ascending; the lead is
 * the first member. group_of[proc] for each process. */
size_t tc_structural_ngroups(const struct tc_structural *s);
const size_t *tc_structural_group(const struct tc_structural *s, size_t g, size_t *nmembers);
size_t tc_structural_group_of(const struct tc_structural *s, size_t proc);
/* Concepts of the lattice (top and bottom included), edges (cover
 * relation, child below parent). */
size_t tc_structural_nconcepts(const struct tc_structural *s);
size_t tc_structural_nedges(const struct tc_structural *s);

/* The similarity matrix: CSV (header "rank,R0,R1,..." then one row per
 * process) or one JSON document with ranks, pairs, matrix, groups and the
 * lattice. Values with 6 decimals. Append to out. */
void tc_structural_csv(const struct tc_structural *s, struct tc_strbuf *out);
void tc_structural_json(const struct tc_structural *s, struct tc_strbuf *out);

/* ---- comparison of two runs ------------------------------------------- */

/* One aligned pair of events with its time difference. */
struct tc_diff_delta {
	size_t col;             /* alignment column */
	size_t a, b;            /* event indices */
	int64_t delta;          /* (compute before + time in call) b minus a */
	int64_t delta_call;     /* time in the call, b minus a */
};

struct tc_diff_rank {
	int32_t rank_a, rank_b;
	struct tc_alignment al;
	uint64_t events_a, events_b;
	uint64_t param_diffs;   /* matched events whose parameters differ */
	uint64_t span_a, span_b;/* first start to last end, ns */
	int64_t delta_total;    /* sum of delta over matched events */
	int64_t delta_call;     /* sum of delta_call over matched events */
	uint64_t unmatched_a_ns, unmatched_b_ns; /* compute + call time of the
				 * events of one run without a match */
	size_t first_div;       /* first column that is not a match, or
				 * SIZE_MAX when the runs agree */
	size_t first_div_a, first_div_b; /* events there (SIZE_MAX for a gap) */
	struct tc_diff_delta *top; /* largest |delta|, descending (ties: column) */
	size_t ntop;
};

struct tc_diff_opts {
	struct tc_ascore score;
	int engine;
	size_t top;             /* largest deltas kept per rank */
};

/* Align a (run A) and b (run B) of one rank and measure the differences.
 * out is initialised here; release with tc_diff_rank_release. */
int tc_diff_rank(const struct tc_aseq *a, const struct tc_aseq *b,
		 const struct tc_diff_opts *o, struct tc_diff_rank *out,
		 struct tc_error *err);
void tc_diff_rank_release(struct tc_diff_rank *d);
/* Compute time before event i of s (0 for the first) and time in it. */
uint64_t tc_aseq_comp_ns(const struct tc_aseq *s, size_t i);
uint64_t tc_aseq_call_ns(const struct tc_aseq *s, size_t i);

#endif
