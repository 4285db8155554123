/*
 * signature.h - per-rank signatures for signature-based clustering.
 *
 * Computed from a rank's compressed trace (lib/trace.h, lib/rsd.h) in one
 * pass over the compressed sequence; every signature is 64 bits:
 *
 *   call-path   XOR over the compressed events, in order, of the event's
 *               64-bit stack signature times (sequence number mod 10 + 1)
 *               (ICS'14 §3.1; dissertation §3.1, §4.1, §5.1); and, so that
 *               ranks with "different numbers ... of events" (ICS'14 §3)
 *               differ too, XOR over the loops, in pre-order, of a hash of
 *               the loop's count times (loop number mod 10 + 1)
 *   parameter   the bit fields of Table 3.1 (dissertation §3.1-3.2; ICS'14
 *               Table 1): average COUNT, DEST and SOURCE, and bits for the
 *               datatypes, reduction ops and communicator types used
 *   ACURDION    eleven signatures (dissertation §4.1): Call-Path, COUNT,
 *               SRC, DEST, KEY, COLOR, TAG, COMP time, COMM time, LOOP and
 *               Data+Op+Comm type bits
 *   reference   a digest of the uncompressed event sequence with every
 *               parameter (§3.4): equal digests mean equal sequences up to
 *               a 64-bit hash collision; tc_rsd_equal() decides exactly
 *
 * Averages are over the events of the compressed sequence (each event node
 * once, whatever its loop counts, as the papers build signatures in O(n)
 * for n PRSD events; a node whose occurrences differ, which matching by
 * call site allows, contributes the mean of its occurrences), computed
 * incrementally and exactly in integers so that no sum can overflow
 * (§4.1), and rounded half up.
 *
 * Adaptive signature building (§4.1, Alg. 4) turns the signatures of all
 * ranks into the format bitmap: bit s is set when signature s differs
 * between some parent and child of a radix tree over the ranks, i.e. when
 * it is not the same on every rank; clustering then only looks at the
 * signatures whose bit is set.
 *
 * Everything here takes in-memory data and never prints.
 */
#ifndef TC_CLUSTER_SIGNATURE_H
#define TC_CLUSTER_SIGNATURE_H

#include "lib/compat.h"

struct tc_rank_trace;
struct tc_rsd;
struct tc_pool;

/* ---- ACURDION's eleven signatures (dissertation §4.1) ---------------- */

enum tc_sig {
	TC_SIG_CALLPATH = 0,  /* the call-path signature */
	TC_SIG_COUNT,         /* average COUNT (elements) */
	TC_SIG_SRC,           /* average relative source (signed) */
	TC_SIG_DEST,          /* average relative destination (signed) */
	TC_SIG_KEY,           /* average KEY of MPI_Comm_split (signed) */
	TC_SIG_COLOR,         /* average COLOR of MPI_Comm_split (signed) */
	TC_SIG_TAG,           /* average TAG (signed) */
	TC_SIG_COMP,          /* average computation time before a call, ns */
	TC_SIG_COMM,          /* average time in a call, ns */
	TC_SIG_LOOP,          /* loop iterations, four 16-bit fields */
	TC_SIG_TYPES,         /* Data+Operation+Communicator type bits */
	TC_NSIGS
};

/* How a signature's 64 bits are to be read. */
enum tc_sig_kind {
	TC_SIGK_HASH,         /* only equality means anything (Call-Path) */
	TC_SIGK_UNSIGNED,     /* an unsigned average */
	TC_SIGK_SIGNED,       /* a signed average, two's complement */
	TC_SIGK_PACKED,       /* LOOP: four unsigned 16-bit fields */
	TC_SIGK_BITS,         /* a set of bits (Data+Op+Comm types) */
};

struct tc_sig_info {
	const char *name;     /* "callpath", "count", "src", ... (JSON key) */
	const char *title;    /* "Call-Path", "COUNT", ... (the papers' name) */
	enum tc_sig_kind kind;
	/* importance group of §4.1.1, for the normalised distances:
	 * 1 = {LOOP, COUNT, COMM, COMP}, 2 = {SRC, DEST, KEY, COLOR, TAG},
	 * 3 = {Call-Path, Data+Op+Comm type} (most important) */
	int group;
};

/* Metadata of signature s (< TC_NSIGS), or NULL. */
const struct tc_sig_info *tc_sig_info(unsigned s);
/* The signature named name (tc_sig_info()->name), or -1. */
int tc_sig_from_name(const char *name);
/* The value as a number for distances: signed or unsigned average; for
 * LOOP the sum of its four fields weighted 1, 2^16, 2^32, 2^48; for hashes
 * and bit sets the bits as an unsigned number (compare those for
 * equality). */
double tc_sig_number(unsigned s, uint64_t v);

/* LOOP layout: field f (0 = innermost loops ... 3 = three levels out and
 * beyond) holds the average iteration count of those loops, at most
 * 0xffff. */
#define TC_LOOP_FIELD(v, f) ((unsigned)(((v) >> (16 * (f))) & 0xffffu))

/* ---- a rank's signatures --------------------------------------------- */

struct tc_signatures {
	int32_t rank;
	uint64_t callpath;    /* == v[TC_SIG_CALLPATH] */
	uint64_t param;       /* Table 3.1 */
	uint64_t reference;   /* digest of the reference signature (§3.4) */
	uint64_t v[TC_NSIGS]; /* ACURDION's eleven */
	uint64_t events;      /* events of the rank */
	uint64_t nodes;       /* event nodes of the compressed sequence */
	/* The standard errors of COMP and COMM (ns): how far the averages
	 * could move by the luck of the draw alone, from the spread of each
	 * event node's occurrences (its sample variance over its count);
	 * nodes that occur once add nothing */
	double comp_se, comm_se;
};

/* Compute every signature of one rank's trace. */
void tc_signatures_compute(const struct tc_rank_trace *t, struct tc_signatures *out);
/* The same over any compressed sequence of a rank (e.g. one phase of
 * its stream, tc_rsd_new_segment()); t, if not NULL, gives the
 * communicator table (else communicators other than world and self are
 * of type TC_CT_OTHER). */
void tc_signatures_compute_seq(const struct tc_rsd *seq, const struct tc_rank_trace *t,
			       struct tc_signatures *out);

/* ---- building blocks (exported for tests and the clustering modes) --- */

/* One step of the call-path signature: sig ^ stack * (seq % 10 + 1). */
uint64_t tc_callpath_step(uint64_t sig, uint64_t stack, uint64_t seq);
/* What a loop of `iters` iterations contributes in place of a stack
 * signature. */
uint64_t tc_loop_stack(uint64_t iters);

/*
 * An exact running average of 64-bit integers that never overflows: the
 * mean is q + r / n with 0 <= r < n, updated per value (§4.1: "we
 * calculate the average incrementally"). Signed values go through the
 * order-preserving map x ^ 2^63.
 */
struct tc_avg {
	uint64_t q;
	uint64_t r;
	uint64_t n;
};
void tc_avg_init(struct tc_avg *a);
void tc_avg_add_u(struct tc_avg *a, uint64_t x);
void tc_avg_add_i(struct tc_avg *a, int64_t x);
/* The mean rounded half up (0 for no values). */
uint64_t tc_avg_u(const struct tc_avg *a);
int64_t tc_avg_i(const struct tc_avg *a);

/* Bits of the parameter signature (Table 3.1) and of the ACURDION type
 * signature for one datatype, reduction op or communicator type. */
uint64_t tc_param_dtype_bit(uint32_t dtype);
uint64_t tc_param_redop_bit(uint32_t redop);
uint64_t tc_types_dtype_bit(uint32_t dtype);
uint64_t tc_types_redop_bit(uint32_t redop);

/* Communicator types (bits 55-63 of the type signature). */
enum tc_comm_type {
	TC_CT_SELF = 0, TC_CT_WORLD, TC_CT_DUP, TC_CT_SPLIT, TC_CT_SPLIT_TYPE,
	TC_CT_CREATE, TC_CT_CART, TC_CT_GRAPH, TC_CT_OTHER,
	TC_NCOMM_TYPES
};
/* The type of communicator id in t (world and self by id, others by the
 * op that created them; TC_CT_OTHER when unknown). */
enum tc_comm_type tc_comm_type_of(const struct tc_rank_trace *t, uint32_t comm);
const char *tc_comm_type_name(enum tc_comm_type ct);

/* ---- adaptive signature building (§4.1, Alg. 4) ----------------------- */

/* Bit s set when ACURDION signature s differs between a and b. */
uint32_t tc_sig_diff(const struct tc_signatures *a, const struct tc_signatures *b);

/*
 * Alg. 4 over a radix tree of n nodes (node i's children are radix*i+1 ..
 * radix*i+radix; radix >= 2), for m <= 32 values per node in a row-major
 * n x m matrix: bottom-up, each node ORs into its format the bits of the
 * values in which a child differs from it and the child's format; the
 * root's format is returned. node_format, if not NULL, receives every
 * node's format (n entries).
 */
uint32_t tc_sig_format_tree(const uint64_t *vals, size_t n, unsigned m, unsigned radix,
			    uint32_t *node_format);

/*
 * The ACURDION format bitmap of n ranks' signatures (in any fixed order,
 * e.g. by rank): Alg. 4 over a binary tree, run in parallel on pool
 * (NULL: on the calling thread). The result does not depend on the
 * thread count: it is the OR over all tree edges.
 */
uint32_t tc_acurdion_format(const struct tc_signatures *sigs, size_t n, struct tc_pool *pool);

#endif
