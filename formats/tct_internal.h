/*
 * tct_internal.h - what the serialisations of the global trace share
 * (formats/tct.c: ranklist items, the checks every reader applies to what
 * it read, the reader state and its errors, the release of partly built
 * nodes) and the forms that formats/tct.c dispatches to (text:
 * formats/tct_text.c, JSON: formats/tct_json.c, binary: formats/tct_bin.c).
 * Not for use outside formats/tct*.c.
 */
#ifndef TC_FORMATS_TCT_INTERNAL_H
#define TC_FORMATS_TCT_INTERNAL_H

#include "lib/compat.h"
#include "lib/merge.h"

struct tc_error;
struct tc_gnode;
struct tc_gtrace;
struct tc_strbuf;
struct tc_gparam;
struct tc_gval;
struct tc_hist;
struct tc_ranklist;

/* ---- limits on what a reader accepts ----------------------------------- */

#define MAX_WORLD ((int64_t)1 << 24)
#define MAX_DEPTH 256                 /* loop nesting */
#define MAX_SEQ_DEPTH 256             /* nesting of value sequences */
#define MAX_LINE ((size_t)64 << 20)
#define MAX_SITES ((size_t)1 << 24)
#define MAX_FRAMES 4096u
#define MAX_WORDS ((uint64_t)1 << 24) /* words of one array value */
#define MAX_OCC ((uint64_t)1 << 62)   /* occurrences of one sequence */
#define MAX_FILE ((size_t)1 << 31)
/*
 * Expanding one rank may take at most this many times the events the
 * header declares, plus BOUND_SLACK: a rank's bound takes the largest
 * value of every sequence and histogram of loop counts for every entry,
 * which an honest trace with varying counts can exceed; a loop of four
 * billion iterations over a trace of a few hundred events cannot hide in
 * that. Iterator steps (events and loop iterations) get a wider margin.
 */
#define BOUND_EVENTS_FACTOR 2
#define BOUND_WORK_FACTOR 64
#define BOUND_SLACK ((uint64_t)1 << 16)

/* ---- ranklists as items of up to three extra dimensions ----------------- */

/*
 * An item is a 1-D run (start, len, stride) repeated n[0] times shifted by
 * d[0], that repeated n[1] times shifted by d[1], ...: ScalaTrace's
 * multi-dimensional ranklist, so that the interior of a 2-D grid or a
 * column of it is one item whatever the grid size.
 */
#define RL_DIMS 3
struct rl_item {
	int64_t start;
	uint64_t len;
	int64_t stride;
	uint32_t ndim;
	uint64_t n[RL_DIMS];
	int64_t d[RL_DIMS];
};

/* Collects the ranks of parsed items, bounded by the world size. While
 * the items come in increasing order (as writers write them) they go
 * straight into runs, in time per item, not per rank; after the first one
 * out of order every rank is listed, then sorted. Initialise as
 * { NULL, 0, 0, world }. */
struct rl_build {
	int32_t *v;
	size_t n, alloc;
	int64_t world;
	struct tc_ranklist runs;  /* the ranks, while in order */
	int64_t last;             /* the last rank in runs */
	bool unsorted;            /* v holds every rank */
};

/* What the text and JSON readers keep while they read. */
struct rd {
	const char *name;
	struct tc_error *err;
	size_t line;            /* text: current line; JSON: 0 */
	const char *where;      /* JSON: the element being read */
	struct tc_gtrace *g;
	bool have_world, have_ranks;
	/* where each node was read, in file (pre-order) order, so that
	 * checks made once the tree is whole can still name the place: its
	 * line (text) or body byte (binary, node_bytes), or its path (JSON) */
	size_t *node_line;
	size_t nnode_line, anode_line;
	bool node_bytes;
	char **node_path;
	size_t nnode_path, anode_path;
};

/* The text form (formats/tct_text.c). */
void tc_tct_text_format(const struct tc_gtrace *g, struct tc_strbuf *out);
/* Parse into r->g (new, empty); fills r->err. */
int tc_tct_text_parse(struct rd *r, const char *buf, size_t len);

/* The text reader's lexer, which the JSON reader borrows for what it
 * writes as text (op numbers "opN", special peers, signatures). */
struct lx {
	const char *p;
};
bool tc_tct_lx_uint(struct lx *l, uint64_t *out);
/* An operation as both forms write it: its name, or opNNN for one
 * without (in buf); and the operation such a word names, 0 if none (or
 * NULL). */
const char *tc_tct_op_name(unsigned op, char *buf, size_t len);
unsigned tc_tct_op_of_word(const char *word);
/* "0x" and up to 16 hex digits. */
bool tc_tct_lx_hex(struct lx *l, uint64_t *out);
/* A peer as the text form writes it: a relative rank, none, any, null or
 * !N (another special value). */
bool tc_tct_text_peer(struct lx *l, int64_t *out);

/* The JSON form (formats/tct_json.c). */
void tc_tct_json_format(const struct tc_gtrace *g, struct tc_strbuf *out);
/* Parse into r->g (new, empty); fills r->err. */
int tc_tct_json_parse(struct rd *r, const char *buf, size_t len);

/* The binary form (formats/tct_bin.c, formats/tct-binary.md). */
void tc_tct_bin_format(const struct tc_gtrace *g, struct tc_strbuf *out);
bool tc_tct_bin_probe(const void *buf, size_t len);
/* Parse into g (new, empty); fills err naming name and a byte offset;
 * notes each node's body byte in rd (NULL: not kept). */
int tc_tct_bin_parse(struct rd *rd, const void *buf, size_t len, const char *name,
		     struct tc_gtrace *g, struct tc_error *err);

/* The items of a ranklist, grouped into up to RL_DIMS extra dimensions
 * (returns new in *out, and their number). */
size_t tc_tct_rl_items(const struct tc_ranklist *rl, struct rl_item **out);
/* Add the ranks of an item; returns an error message or NULL. */
const char *tc_tct_rl_build_add(struct rl_build *b, const struct rl_item *it);
/* Sort, reject duplicates, make runs; returns an error message or NULL. */
const char *tc_tct_rl_build_finish(struct rl_build *b, struct tc_ranklist *rl);
/* Free what b holds (after an error; finish leaves nothing). */
void tc_tct_rl_build_release(struct rl_build *b);
/* Whether two ranklists hold the same runs (the same ranks, as runs are
 * canonical). */
bool tc_tct_rl_same(const struct tc_ranklist *a, const struct tc_ranklist *b);
/* Whether child's ranks lie within parent's. */
bool tc_tct_rl_within(const struct tc_ranklist *child, const struct tc_ranklist *parent);

/* A format error naming the line (text) or the element (JSON) being
 * read; returns the error code. */
int tc_tct_rd_fail(struct rd *r, const char *fmt, ...) TC_PRINTF(2, 3);
/* Note that the next node of the tree starts at line (or body byte)
 * `line`, or at JSON path `path`. */
void tc_tct_rd_node_at(struct rd *r, size_t line);
void tc_tct_rd_node_path(struct rd *r, const char *path);

/* The kind of the values of parameter p (TC_GP_N: a loop count, whose
 * kind is TC_GPK_UINT); false when p is neither. */
bool tc_tct_kind_of(unsigned p, enum tc_gparam_kind *kind);
/* Append an empty variant to gp (NULL when it has as many as it can). */
struct tc_gvar *tc_tct_gp_push(struct tc_gparam *gp);
/* Append an empty time entry to nd (NULL when it has as many as it can). */
struct tc_gtime *tc_tct_times_push(struct tc_gnode *nd);

/* Check every word of a value of parameter p (TC_GP_N: loop count);
 * returns an error message or NULL. */
const char *tc_tct_val_check(unsigned p, const struct tc_gval *v);
/* Whether a sequence of len occurrences can take add * reps more. */
bool tc_tct_occ_add_ok(uint64_t len, uint64_t add, uint64_t reps);
/* A histogram read from a file: consistent? (error message or NULL) */
const char *tc_tct_hist_check(const struct tc_hist *h);
/* Time entries of an event node of n occurrences: non-empty, disjoint,
 * covering the node's ranks, counts adding up to n; on success the
 * node's comp and comm become their merge. */
const char *tc_tct_times_check(struct tc_gnode *nd, uint64_t n);

/* A communicator table entry read from a file (world: the trace's world
 * size): consistent? (error message or NULL) */
const char *tc_tct_comm_check(const struct tc_gcomm *c, int32_t world);
#define MAX_COMMS ((size_t)1 << 24)
/* a rank's neighbours in a communicator's graph, each way, at the most */
#define MAX_DEGREE ((uint64_t)1 << 24)

/* Release what a node or parameter owns, not the struct itself. */
void tc_tct_param_free_parts(struct tc_gparam *gp);
void tc_tct_node_free_parts(struct tc_gnode *nd);

#endif
