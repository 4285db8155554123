/*
 * signature.c - call-path, parameter, ACURDION and reference signatures,
 * and adaptive signature building.
 *
 * Sources: Bahmani and Mueller, ICS'14, §3 (call-path and parameter
 * signatures, reference signature); Bahmani's dissertation (2017) §3.1-3.2
 * and Table 3.1 (parameter signature), §3.4 (reference signature), §4.1
 * and Alg. 4 (ACURDION's eleven signatures, the LOOP layout, incremental
 * averages, adaptive signature building), §5.1 (the call-path signature
 * as Chameleon uses it).
 */
#include "lib/compat.h"
#include "cluster/signature.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- metadata --------------------------------------------------------- */

static const struct tc_sig_info sig_infos[TC_NSIGS] = {
	[TC_SIG_CALLPATH] = { "callpath", "Call-Path", TC_SIGK_HASH, 3 },
	[TC_SIG_COUNT] = { "count", "COUNT", TC_SIGK_UNSIGNED, 1 },
	[TC_SIG_SRC] = { "src", "SRC", TC_SIGK_SIGNED, 2 },
	[TC_SIG_DEST] = { "dest", "DEST", TC_SIGK_SIGNED, 2 },
	[TC_SIG_KEY] = { "key", "KEY", TC_SIGK_SIGNED, 2 },
	[TC_SIG_COLOR] = { "color", "COLOR", TC_SIGK_SIGNED, 2 },
	[TC_SIG_TAG] = { "tag", "TAG", TC_SIGK_SIGNED, 2 },
	[TC_SIG_COMP] = { "comp", "COMP time", TC_SIGK_UNSIGNED, 1 },
	[TC_SIG_COMM] = { "comm", "COMM time", TC_SIGK_UNSIGNED, 1 },
	[TC_SIG_LOOP] = { "loop", "LOOP", TC_SIGK_PACKED, 1 },
	[TC_SIG_TYPES] = { "types", "Data+Op+Comm type", TC_SIGK_BITS, 3 },
};

const struct tc_sig_info *tc_sig_info(unsigned s)
{
	return s < TC_NSIGS ? &sig_infos[s] : NULL;
}

int tc_sig_from_name(const char *name)
{
	for (unsigned s = 0; s < TC_NSIGS; s++)
		if (!strcmp(sig_infos[s].name, name))
			return (int)s;
	return -1;
}

double tc_sig_number(unsigned s, uint64_t v)
{
	if (s < TC_NSIGS && sig_infos[s].kind == TC_SIGK_SIGNED)
		return (double)(int64_t)v;
	return (double)v;
}

/* ---- building blocks -------------------------------------------------- */

/*
 * ICS'14 §3.1, dissertation §3.1/§4.1/§5.1: "we multiply the modulo 10
 * plus 1 of the sequence number of each event by the 64-bit stack
 * signature and then use this value in the call-path signature" (XOR).
 */
uint64_t tc_callpath_step(uint64_t sig, uint64_t stack, uint64_t seq)
{
	return sig ^ (stack * (seq % 10 + 1));
}

/*
 * Loop counts in the call-path signature. ICS'14 §3: "a first call-path
 * clustering phase discovers processes with different numbers or
 * sequences of events"; over a compressed sequence the stack signatures
 * alone cannot see numbers (a loop of 100 and one of 101 iterations have
 * the same event nodes), so every loop node adds its count the same way
 * an event adds its stack signature, with its own sequence number.
 */
uint64_t tc_loop_stack(uint64_t iters)
{
	return tc_hash_fmix(iters ^ 0x6c6f6f70636e74ULL /* "loopcnt" */);
}

void tc_avg_init(struct tc_avg *a)
{
	memset(a, 0, sizeof(*a));
}

/*
 * §4.1: "aggregating their values and then taking the average could
 * result in an overflow. Thus, we calculate the average incrementally."
 * With sum = q*n + r (0 <= r < n), adding x gives sum = q*(n+1) + d for
 * d = r + x - q; q and r take the floor quotient and remainder of d by
 * n + 1, computed without ever forming d or the sum.
 */
void tc_avg_add_u(struct tc_avg *a, uint64_t x)
{
	uint64_t m;

	if (a->n == UINT64_MAX)
		return;
	m = a->n + 1;
	if (x >= a->q) {
		uint64_t diff = x - a->q, qa = diff / m, ra = diff % m;
		if (ra >= m - a->r) {
			qa++;
			ra -= m - a->r;
		} else {
			ra += a->r;
		}
		a->q += qa;
		a->r = ra;
	} else {
		uint64_t diff = a->q - x;
		if (diff <= a->r) {
			a->r -= diff;
		} else {
			uint64_t e = diff - a->r, qa = e / m, ra = e % m;
			if (ra == 0) {
				a->q -= qa;
				a->r = 0;
			} else {
				a->q -= qa + 1;
				a->r = m - ra;
			}
		}
	}
	a->n = m;
}

#define SIGN_BIT (UINT64_C(1) << 63)

void tc_avg_add_i(struct tc_avg *a, int64_t x)
{
	tc_avg_add_u(a, (uint64_t)x ^ SIGN_BIT);
}

uint64_t tc_avg_u(const struct tc_avg *a)
{
	if (!a->n)
		return 0;
	return a->q + (a->r && a->r >= a->n - a->r ? 1 : 0);
}

int64_t tc_avg_i(const struct tc_avg *a)
{
	if (!a->n)
		return 0;
	return (int64_t)(tc_avg_u(a) ^ SIGN_BIT);
}

/*
 * Table 3.1, bits 48-54: one bit per datatype class ("48:MPI_CHAR,
 * 49:MPI_INTEGER, etc."): 48 characters, 49 integers (and logicals,
 * addresses, offsets, counts), 50 floating point, 51 complex, 52 bytes and
 * packed, 53 value/index pairs (MPI_FLOAT_INT ... MPI_2INTEGER), 54
 * derived or unknown.
 */
uint64_t tc_param_dtype_bit(uint32_t dt)
{
	unsigned b;

	switch (dt) {
	case TC_DT_CHAR: case TC_DT_SIGNED_CHAR: case TC_DT_UNSIGNED_CHAR:
	case TC_DT_WCHAR: case TC_DT_CHARACTER:
		b = 48;
		break;
	case TC_DT_SHORT: case TC_DT_UNSIGNED_SHORT: case TC_DT_INT:
	case TC_DT_UNSIGNED: case TC_DT_LONG: case TC_DT_UNSIGNED_LONG:
	case TC_DT_LONG_LONG: case TC_DT_UNSIGNED_LONG_LONG: case TC_DT_C_BOOL:
	case TC_DT_INT8_T: case TC_DT_INT16_T: case TC_DT_INT32_T: case TC_DT_INT64_T:
	case TC_DT_UINT8_T: case TC_DT_UINT16_T: case TC_DT_UINT32_T:
	case TC_DT_UINT64_T: case TC_DT_AINT: case TC_DT_OFFSET: case TC_DT_COUNT:
	case TC_DT_INTEGER: case TC_DT_LOGICAL:
		b = 49;
		break;
	case TC_DT_FLOAT: case TC_DT_DOUBLE: case TC_DT_LONG_DOUBLE:
	case TC_DT_REAL: case TC_DT_DOUBLE_PRECISION:
		b = 50;
		break;
	case TC_DT_C_COMPLEX: case TC_DT_C_DOUBLE_COMPLEX: case TC_DT_COMPLEX:
	case TC_DT_DOUBLE_COMPLEX:
		b = 51;
		break;
	case TC_DT_BYTE: case TC_DT_PACKED:
		b = 52;
		break;
	case TC_DT_FLOAT_INT: case TC_DT_DOUBLE_INT: case TC_DT_LONG_INT:
	case TC_DT_TWO_INT: case TC_DT_SHORT_INT: case TC_DT_LONG_DOUBLE_INT:
	case TC_DT_TWO_REAL: case TC_DT_TWO_DOUBLE_PRECISION: case TC_DT_TWO_INTEGER:
		b = 53;
		break;
	default:
		b = 54;
	}
	return UINT64_C(1) << b;
}

/*
 * Table 3.1, bits 55-61: one bit per reduction class ("55:MPI_MAX,
 * 56:MPI_MIN, etc."): 55 max, 56 min, 57 sum, 58 prod, 59 logical and
 * bitwise ops, 60 maxloc/minloc, 61 replace, no-op and user ops.
 */
uint64_t tc_param_redop_bit(uint32_t op)
{
	unsigned b;

	switch (op) {
	case TC_RED_MAX: b = 55; break;
	case TC_RED_MIN: b = 56; break;
	case TC_RED_SUM: b = 57; break;
	case TC_RED_PROD: b = 58; break;
	case TC_RED_LAND: case TC_RED_BAND: case TC_RED_LOR: case TC_RED_BOR:
	case TC_RED_LXOR: case TC_RED_BXOR:
		b = 59;
		break;
	case TC_RED_MAXLOC: case TC_RED_MINLOC: b = 60; break;
	default: b = 61;
	}
	return UINT64_C(1) << b;
}

/*
 * §4.1, Data+Operation+Communicator type: "we assign a bit such as
 * 0:MPI CHAR, 32:MPI MAX, and 55:MPI COMM SELF, etc., per MPI data type,
 * MPI operation type, and MPI communicator types". Datatypes take bits
 * 0-31: the predefined types MPI_CHAR (1) ... MPI_OFFSET (30) bit
 * number - 1, the Fortran types the bit of their C twin, MPI_COUNT and
 * the pair types bit 30, derived and unknown types bit 31.
 */
uint64_t tc_types_dtype_bit(uint32_t dt)
{
	unsigned b;

	switch (dt) {
	case TC_DT_INTEGER: b = TC_DT_INT - 1; break;
	case TC_DT_REAL: b = TC_DT_FLOAT - 1; break;
	case TC_DT_DOUBLE_PRECISION: b = TC_DT_DOUBLE - 1; break;
	case TC_DT_COMPLEX: b = TC_DT_C_COMPLEX - 1; break;
	case TC_DT_DOUBLE_COMPLEX: b = TC_DT_C_DOUBLE_COMPLEX - 1; break;
	case TC_DT_LOGICAL: b = TC_DT_C_BOOL - 1; break;
	case TC_DT_CHARACTER: b = TC_DT_CHAR - 1; break;
	case TC_DT_COUNT: case TC_DT_FLOAT_INT: case TC_DT_DOUBLE_INT:
	case TC_DT_LONG_INT: case TC_DT_TWO_INT: case TC_DT_SHORT_INT:
	case TC_DT_LONG_DOUBLE_INT: case TC_DT_TWO_REAL:
	case TC_DT_TWO_DOUBLE_PRECISION: case TC_DT_TWO_INTEGER:
		b = 30;
		break;
	default:
		b = dt >= 1 && dt <= 30 ? dt - 1 : 31;
	}
	return UINT64_C(1) << b;
}

/* Reduction ops take bits 32-54: MPI_MAX (1) bit 32 ... MPI_NO_OP (14)
 * bit 45, user-defined and unknown ops bit 46. */
uint64_t tc_types_redop_bit(uint32_t op)
{
	return UINT64_C(1) << (op >= 1 && op <= 14 ? 31 + op : 46);
}

static const char *const comm_type_names[TC_NCOMM_TYPES] = {
	"self", "world", "dup", "split", "split_type", "create", "cart", "graph", "other",
};

const char *tc_comm_type_name(enum tc_comm_type ct)
{
	return (unsigned)ct < TC_NCOMM_TYPES ? comm_type_names[ct] : "other";
}

enum tc_comm_type tc_comm_type_of(const struct tc_rank_trace *t, uint32_t comm)
{
	const struct tc_trace_comm *c;

	if (comm == TC_COMM_WORLD)
		return TC_CT_WORLD;
	if (comm == TC_COMM_SELF)
		return TC_CT_SELF;
	c = t ? tc_rank_trace_comm(t, comm) : NULL;
	if (!c)
		return TC_CT_OTHER;
	switch (c->creator) {
	case TC_OP_COMM_DUP: case TC_OP_COMM_IDUP: case TC_OP_COMM_DUP_WITH_INFO:
		return TC_CT_DUP;
	case TC_OP_COMM_SPLIT:
		return TC_CT_SPLIT;
	case TC_OP_COMM_SPLIT_TYPE:
		return TC_CT_SPLIT_TYPE;
	case TC_OP_COMM_CREATE: case TC_OP_COMM_CREATE_GROUP:
		return TC_CT_CREATE;
	case TC_OP_CART_CREATE: case TC_OP_CART_SUB:
		return TC_CT_CART;
	case TC_OP_GRAPH_CREATE: case TC_OP_DIST_GRAPH_CREATE_ADJACENT:
	case TC_OP_DIST_GRAPH_CREATE:
		return TC_CT_GRAPH;
	}
	return TC_CT_OTHER;
}

/* ---- one rank --------------------------------------------------------- */

struct acc {
	const struct tc_rank_trace *t;
	const struct tc_rsd *rsd;
	uint64_t seq;           /* sequence number of the next event node */
	uint64_t loopseq;       /* number of the next loop node */
	uint64_t callpath;
	struct tc_avg count, src, dest, key, color, tag, comp, comm;
	struct tc_avg loop[4];
	double comp_var, comm_var; /* sums of the variances of the node means */
	uint64_t pbits;         /* parameter signature bits 48-63 */
	uint64_t tbits;         /* ACURDION type bits */
};

static bool is_send_side(unsigned op)
{
	switch (tc_op_kind(op)) {
	case TC_K_SEND:
	case TC_K_SENDRECV:
		return true;
	case TC_K_PERSIST:
		return op != TC_OP_RECV_INIT && op != TC_OP_PRECV_INIT;
	default:
		return false;
	}
}

static bool is_recv_side(unsigned op)
{
	enum tc_op_kind k = tc_op_kind(op);

	return k == TC_K_RECV || k == TC_K_PROBE || op == TC_OP_RECV_INIT ||
	       op == TC_OP_PRECV_INIT;
}

static int64_t clamp_mean(double m)
{
	if (!(m > 0))
		return 0;
	if (m >= 9.0e18)
		return INT64_MAX;
	return (int64_t)llround(m);
}

/* The variance of the mean of a node's n occurrences: the sample
 * variance over n (0 below two occurrences). */
static double mean_var(const struct tc_rsd_stat *st)
{
	double n = (double)st->n;

	if (st->n < 2 || !(st->m2 > 0))
		return 0;
	return st->m2 / (n - 1) / n;
}

/*
 * The parameters of one event node. Where its occurrences differ (with
 * TC_RSD_MATCH_CALLSITE) the node contributes the mean over its
 * occurrences, rounded, so that every event node counts once, as the
 * papers average over the compressed events; where they do not, its one
 * value exactly.
 */
struct wmean {
	long double sum;
	long double w;
};

struct node_acc {
	struct acc *a;
	bool varies;
	struct wmean count, src, dest, tag, color, key;
};

static void wadd(struct wmean *m, long double x, uint64_t w)
{
	m->sum += x * (long double)w;
	m->w += (long double)w;
}

static void wflush_u(const struct wmean *m, struct tc_avg *a)
{
	if (m->w > 0)
		tc_avg_add_u(a, (uint64_t)llroundl(m->sum / m->w));
}

static void wflush_i(const struct wmean *m, struct tc_avg *a)
{
	if (m->w > 0)
		tc_avg_add_i(a, (int64_t)llroundl(m->sum / m->w));
}

static void add_occurrences(void *ctx, uint32_t ei, uint64_t w)
{
	struct node_acc *na = ctx;
	struct acc *a = na->a;
	const struct tc_rsd_event *e = tc_rsd_event(a->rsd, ei);
	uint32_t f = e->fields;

	if (!na->varies)
		w = 1; /* one value: take it exactly */
	if (f & TC_F_COUNT)
		wadd(&na->count, (long double)e->count, w);
	if (f & TC_F_PEER) {
		if (is_send_side(e->op) && tc_rel_is_rank(e->peer))
			wadd(&na->dest, (long double)e->peer, w);
		if (is_recv_side(e->op)) {
			if (tc_rel_is_rank(e->peer))
				wadd(&na->src, (long double)e->peer, w);
			else if (e->ncompl && tc_rel_is_rank(e->compl[0].source))
				/* MPI_ANY_SOURCE: where the message came from */
				wadd(&na->src, (long double)e->compl[0].source, w);
		}
	}
	if ((f & TC_F_RPEER) && tc_rel_is_rank(e->rpeer))
		wadd(&na->src, (long double)e->rpeer, w);
	if (f & TC_F_TAG)
		wadd(&na->tag, e->tag, w);
	if (f & TC_F_RPEER)
		wadd(&na->tag, e->rtag, w);
	if (f & TC_F_COLOR) {
		wadd(&na->color, e->color, w);
		wadd(&na->key, e->key, w);
	}
	if (f & TC_F_DTYPE) {
		a->pbits |= tc_param_dtype_bit(e->dtype);
		a->tbits |= tc_types_dtype_bit(e->dtype);
	}
	if (f & TC_F_REDOP) {
		a->pbits |= tc_param_redop_bit(e->redop);
		a->tbits |= tc_types_redop_bit(e->redop);
	}
	if (f & TC_F_COMM) {
		enum tc_comm_type ct = tc_comm_type_of(a->t, e->comm);
		/* Table 3.1 bits 62-63: MPI_COMM_SELF, any other than world
		 * and self */
		if (ct == TC_CT_SELF)
			a->pbits |= UINT64_C(1) << 62;
		else if (ct != TC_CT_WORLD)
			a->pbits |= UINT64_C(1) << 63;
		a->tbits |= UINT64_C(1) << (55 + ct);
	}
}

static void add_event(struct acc *a, const struct tc_rsd_node *nd)
{
	struct node_acc na;
	const struct tc_rsd_event *first = tc_rsd_event(a->rsd, nd->event);
	uint64_t stack = first->stack;

	/* an event without a known call site still counts, by its op */
	if (!stack)
		stack = tc_hash_fmix(0x6f70636f6465ULL ^ first->op);
	a->callpath = tc_callpath_step(a->callpath, stack, a->seq++);

	memset(&na, 0, sizeof(na));
	na.a = a;
	na.varies = nd->vals != NULL;
	tc_rsd_node_events(nd, add_occurrences, &na);
	wflush_u(&na.count, &a->count);
	wflush_i(&na.src, &a->src);
	wflush_i(&na.dest, &a->dest);
	wflush_i(&na.tag, &a->tag);
	wflush_i(&na.color, &a->color);
	wflush_i(&na.key, &a->key);
	tc_avg_add_u(&a->comp, (uint64_t)clamp_mean(nd->comp.mean));
	tc_avg_add_u(&a->comm, (uint64_t)clamp_mean(nd->comm.mean));
	a->comp_var += mean_var(&nd->comp);
	a->comm_var += mean_var(&nd->comm);
}

/*
 * Visit seq in order; returns 0 if it holds no loop, else 1 + the height
 * of its tallest loop, where a loop whose body holds no loop has height 0
 * (the innermost loops of §4.1's LOOP signature).
 */
static unsigned walk(struct acc *a, const struct tc_rsd_node *seq, size_t n)
{
	unsigned tallest = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned h;
		uint64_t k;
		if (!seq[i].nbody) {
			add_event(a, &seq[i]);
			continue;
		}
		/* the loop's count, numbered in pre-order among the loops */
		k = a->loopseq++;
		h = walk(a, seq[i].body, seq[i].nbody);
		a->callpath = tc_callpath_step(a->callpath, tc_loop_stack(seq[i].iters), k);
		tc_avg_add_u(&a->loop[h < 3 ? h : 3], seq[i].iters);
		if (h + 1 > tallest)
			tallest = h + 1;
	}
	return tallest;
}

void tc_signatures_compute(const struct tc_rank_trace *t, struct tc_signatures *out)
{
	tc_signatures_compute_seq(t->seq, t, out);
}

void tc_signatures_compute_seq(const struct tc_rsd *rsd, const struct tc_rank_trace *t,
			       struct tc_signatures *out)
{
	struct acc a;
	const struct tc_rsd_node *seq;
	struct tc_rsd_info info;
	size_t n;
	uint64_t loop = 0;

	memset(&a, 0, sizeof(a));
	a.t = t;
	a.rsd = rsd;
	seq = tc_rsd_seq(rsd, &n);
	walk(&a, seq, n);
	tc_rsd_info(rsd, &info);

	memset(out, 0, sizeof(*out));
	out->rank = tc_rsd_rank(rsd);
	out->events = info.events;
	out->nodes = info.leaves;
	out->reference = info.digest;
	out->callpath = a.callpath;

	/* Table 3.1: average COUNT in bits 0-15, DEST 16-31, SOURCE 32-47 (the
	 * low 16 bits of each average; relative addresses in two's
	 * complement), then the type bits. ICS'14 Table 1 has XOR for DEST
	 * and SOURCE; the dissertation's later Table 3.1 has averages. */
	out->param = (tc_avg_u(&a.count) & 0xffff) |
		     ((uint64_t)tc_avg_i(&a.dest) & 0xffff) << 16 |
		     ((uint64_t)tc_avg_i(&a.src) & 0xffff) << 32 | a.pbits;

	/* §4.1 LOOP: four 16-bit fields, innermost loops in the low bits,
	 * three levels out and beyond in the top field */
	for (unsigned f = 0; f < 4; f++) {
		uint64_t v = tc_avg_u(&a.loop[f]);
		loop |= (v > 0xffff ? 0xffff : v) << (16 * f);
	}
	out->v[TC_SIG_CALLPATH] = a.callpath;
	out->v[TC_SIG_COUNT] = tc_avg_u(&a.count);
	out->v[TC_SIG_SRC] = (uint64_t)tc_avg_i(&a.src);
	out->v[TC_SIG_DEST] = (uint64_t)tc_avg_i(&a.dest);
	out->v[TC_SIG_KEY] = (uint64_t)tc_avg_i(&a.key);
	out->v[TC_SIG_COLOR] = (uint64_t)tc_avg_i(&a.color);
	out->v[TC_SIG_TAG] = (uint64_t)tc_avg_i(&a.tag);
	out->v[TC_SIG_COMP] = tc_avg_u(&a.comp);
	out->v[TC_SIG_COMM] = tc_avg_u(&a.comm);
	out->v[TC_SIG_LOOP] = loop;
	out->v[TC_SIG_TYPES] = a.tbits;
	/* the averages are over a.comp.n node means, independent draws */
	if (a.comp.n) {
		out->comp_se = sqrt(a.comp_var) / (double)a.comp.n;
		out->comm_se = sqrt(a.comm_var) / (double)a.comm.n;
	}
}

/* ---- adaptive signature building (§4.1, Alg. 4) ----------------------- */

uint32_t tc_sig_diff(const struct tc_signatures *a, const struct tc_signatures *b)
{
	uint32_t d = 0;

	for (unsigned s = 0; s < TC_NSIGS; s++)
		if (a->v[s] != b->v[s])
			d |= UINT32_C(1) << s;
	return d;
}

static uint32_t row_diff(const uint64_t *a, const uint64_t *b, unsigned m)
{
	uint32_t d = 0;

	for (unsigned j = 0; j < m; j++)
		if (a[j] != b[j])
			d |= UINT32_C(1) << j;
	return d;
}

/*
 * Alg. 4, lines 1-13, bottom-up: "Set your signature format to 0; if a
 * child exists: receive its signatures; if your signature != child
 * signature then update the signature format; receive the child's
 * signature format; signature format = signature format OR child's". The
 * root's format is what line 14 broadcasts.
 */
uint32_t tc_sig_format_tree(const uint64_t *vals, size_t n, unsigned m, unsigned radix,
			    uint32_t *node_format)
{
	uint32_t *fmt = node_format ? node_format : tc_xcalloc(n ? n : 1, sizeof(*fmt));
	uint32_t root;

	if (m > 32)
		m = 32;
	if (radix < 2)
		radix = 2;
	for (size_t i = n; i-- > 0;) {
		uint32_t f = 0;
		for (size_t k = 1; k <= radix; k++) {
			size_t c = i * radix + k;
			if (c >= n || c < i)
				break;
			f |= row_diff(&vals[i * m], &vals[c * m], m) | fmt[c];
		}
		fmt[i] = f;
	}
	root = n ? fmt[0] : 0;
	if (!node_format)
		free(fmt);
	return root;
}

struct format_job {
	const struct tc_signatures *sigs;
	size_t n;
	size_t chunk;
	uint32_t *part;
};

/* The OR of the parent/child differences of the nodes of one chunk. */
static void format_chunk(size_t j, void *p)
{
	struct format_job *job = p;
	size_t lo = j * job->chunk, hi = TC_MIN(job->n, lo + job->chunk);
	uint32_t f = 0;

	for (size_t c = lo ? lo : 1; c < hi; c++)
		f |= tc_sig_diff(&job->sigs[(c - 1) / 2], &job->sigs[c]);
	job->part[j] = f;
}

/*
 * Over a binary tree (node c's parent is (c - 1) / 2), the root's format
 * of Alg. 4 is the OR of the differences along every edge, so the edges
 * can be split into chunks and checked in parallel.
 */
uint32_t tc_acurdion_format(const struct tc_signatures *sigs, size_t n, struct tc_pool *pool)
{
	struct format_job job = { sigs, n, 65536, NULL };
	size_t nchunks = (n + job.chunk - 1) / job.chunk;
	uint32_t f = 0;

	if (n < 2)
		return 0;
	job.part = tc_xcalloc(nchunks, sizeof(*job.part));
	if (pool && nchunks > 1) {
		tc_pool_for(pool, nchunks, format_chunk, &job);
	} else {
		for (size_t j = 0; j < nchunks; j++)
			format_chunk(j, &job);
	}
	for (size_t j = 0; j < nchunks; j++)
		f |= job.part[j];
	free(job.part);
	return f;
}
