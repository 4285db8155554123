/*
 * scalatrace.c - ScalaTrace V2 global traces, expanded into per-rank
 * event streams behind struct tc_reader.
 *
 * The format (formats/scalatrace.md) is what ScalaTrace-TI's
 * Trace::outputTrace writes: one block of lines per event, blocks
 * separated by a blank line. The whole file is parsed once into a compact
 * table (shared by every rank stream of the file through a small
 * process-wide cache); reading rank r then walks that table the way
 * ScalaTrace's replay does (Trace::traverse_recursive): it keeps the
 * events whose RANKS list holds r, takes loop iteration counts and
 * parameter values per occurrence from their value lists (cycling), turns
 * relative end-points into world ranks and the COMP/COMM histogram means
 * into compute gaps and call durations.
 *
 * Every number read is range-checked, every table has a hard cap, loop
 * nesting is bounded and expansion stops at a number of events that the
 * file's size makes believable (ST_EVENTS_PER_BYTE).
 */
#include "lib/compat.h"
#include "formats/foreign.h"
#include "formats/reader.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ST_NONE UINT32_MAX
#define ST_RL_EVENT (UINT32_MAX - 1)  /* value set of the event's own ranks */
#define ST_SIG_NULL (UINT32_MAX - 1)  /* the "NULL" signature (no predecessor) */

/* Hard caps: anything larger in a file is corruption. */
#define ST_MAX_TOKENS (1u << 20)      /* numbers in one ranklist or value list */
#define ST_MAX_MEMBERS (1u << 26)     /* expanded ranks of all ranklists */
#define ST_MAX_PRSD (1u << 16)        /* lists in one ranklist */
#define ST_MAX_DEPTH 32               /* dimensions of one list */
#define ST_MAX_FRAMES 256             /* addresses in a stack signature */
#define ST_MAX_LOOPS 64               /* LOOPn lines of one event */
#define ST_MAX_PARAMS 512             /* parameter lines of one event */
#define ST_MAX_STATS 65536            /* COMP/COMM lines of one event */
#define ST_MAX_NEST 512               /* nested loop walks */
/*
 * A few kilobytes of loops can stand for more events than any run made
 * ("iter: ( 1000000000000 )"), so expansion is capped by what the file's
 * size makes believable, never below a generous fixed floor: per rank,
 * and over every rank stream of the file read in this process. Loop-walk
 * steps (events visited, shown or not) get ST_STEPS_FACTOR times more.
 */
/* ScalaTrace's own NPB traces expand to about one event per byte per
 * rank and seven in all: the caps leave a hundred times that */
#define ST_EVENTS_PER_BYTE 128u               /* per rank */
#define ST_MIN_EVENTS ((uint64_t)1 << 18)     /* per rank */
#define ST_TOTAL_PER_BYTE 1024u               /* over every rank */
#define ST_MIN_TOTAL ((uint64_t)1 << 22)      /* over every rank */
#define ST_STEPS_FACTOR 4u
#define ST_REQ_RING 10000             /* ScalaTrace's request buffer */
#define ST_USER_COMM 1000             /* PTR_HANDLER_SZ: first user handle */
#define ST_NIDS 128                   /* parameter ids we keep (paramtype.h) */

/* Parameter ids (ScalaTrace-TI record/common/inc/paramtype.h). */
enum {
	P_RECVCOUNTS = 1, P_DISPLS = 2, P_COUNTS = 3, P_RDISPLS = 4,
	P_ARRAY_OF_REQUESTS = 12, P_COMM = 16, P_COUNT = 18, P_DATATYPE = 20,
	P_RECVCOUNT = 21, P_RECVTYPE = 22, P_MPI_OP = 24, P_RT = 25, P_DEST = 26,
	P_TAG = 27, P_REQUEST = 28, P_COLOR = 35, P_KEY = 36, P_SOURCE = 43,
	P_SENDTAG = 44, P_RECVTAG = 45, P_FH = 60, P_OFFSET = 61,
};

/* Statistic types: 0x4b time in microseconds (StatTime), 0x4c
 * instructions (StatInst, the time-independent traces). */
#define ST_STAT_TIME 0x4b
#define ST_STAT_INST 0x4c
#define ST_OP_ANY_SOURCE INT32_MAX   /* ENCODE_SOURCE(MPI_ANY_SOURCE) */

/* ---- the parsed trace --------------------------------------------------- */

struct st_vset {          /* the values of one parameter for some ranks */
	uint32_t rl;      /* ranklist index, or ST_RL_EVENT */
	uint32_t off, n;  /* values in t->vals */
	bool hist;        /* a histogram: every value is its mean */
	double avg;
};

struct st_param {
	uint32_t id;
	uint32_t first, n; /* value sets in t->vs */
};

struct st_loop {
	uint32_t iter_first, iter_n, mem_first, mem_n;
};

struct st_stat {
	uint32_t pred;    /* predecessor's call site, or ST_SIG_NULL */
	uint32_t type;
	bool comm;        /* COMM (duration) rather than COMP (gap before) */
	double avg;
};

struct st_event {
	uint32_t line;
	uint32_t umpi;    /* ScalaTrace op code (umpi_mpi_ops.h) */
	uint32_t op;      /* enum tc_op; TC_OP_NONE: not in the event model */
	uint32_t rl;
	uint32_t sig;     /* call site, or ST_SIG_NULL */
	uint32_t param_first, nparams;
	uint32_t loop_first, nloops;
	uint32_t stat_first, nstats;
};

struct st_rl {            /* a ranklist */
	uint32_t off, n;          /* members in t->members */
	uint32_t toff, tn;        /* its numbers as written, in t->rl_toks */
};

struct st_sig {           /* a call site */
	uint32_t off, n;          /* frame addresses in t->addrs */
	uint64_t hash;            /* tc_stack_signature of the frames */
};

struct st_htab {          /* hash -> index, open addressing */
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};

struct st_trace {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int refs;
	bool cached;
	bool salvage;           /* parsed with TC_RAW_SALVAGE */
	bool damaged;           /* salvage kept the events before damage */
	char damage[160];       /* the first damage, when damaged */
	int32_t world;
	_Atomic uint64_t expanded; /* events given out by every rank stream */

	struct st_event *ev;
	size_t nev, aev;
	/* ranklists: sorted, duplicate-free members */
	struct st_rl *rl;
	size_t nrl, arl;
	int32_t *members;
	size_t nmembers, amembers;
	int64_t *rl_toks;       /* the numbers of each ranklist as written */
	size_t nrl_toks, arl_toks;
	struct st_htab rl_tab;
	/* values */
	struct st_vset *vs;
	size_t nvs, avs;
	int64_t *vals;
	size_t nvals, avals;
	struct st_param *par;
	size_t npar, apar;
	struct st_loop *loops;
	size_t nloops, aloops;
	struct st_stat *stats;
	size_t nstats, astats;
	/* call sites (stack signatures) */
	struct st_sig *sig;
	size_t nsig, asig;
	uint64_t *addrs;
	size_t naddrs, aaddrs;
	struct st_htab sig_tab;
};

/* ---- hash tables --------------------------------------------------------- */

static void htab_free(struct st_htab *h)
{
	free(h->keys);
	free(h->vals);
	memset(h, 0, sizeof(*h));
}

static void htab_grow(struct st_htab *h)
{
	struct st_htab n = { NULL, NULL, h->cap ? h->cap * 2 : 64, 0 };

	n.keys = tc_xcalloc(n.cap, sizeof(*n.keys));
	n.vals = tc_xcalloc(n.cap, sizeof(*n.vals));
	for (size_t i = 0; i < h->cap; i++) {
		size_t j;
		if (!h->keys[i])
			continue;
		for (j = h->keys[i] & (n.cap - 1); n.keys[j]; j = (j + 1) & (n.cap - 1))
			;
		n.keys[j] = h->keys[i];
		n.vals[j] = h->vals[i];
		n.n++;
	}
	htab_free(h);
	*h = n;
}

/* First slot at or after the home slot of key (0 is never a key). */
static size_t htab_slot(const struct st_htab *h, uint64_t key)
{
	return key & (h->cap - 1);
}

static uint64_t nonzero(uint64_t h)
{
	return h ? h : 1;
}

/* ---- the cache of parsed traces ------------------------------------------ */

#define ST_CACHE 4
static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;
static struct st_trace *st_cache[ST_CACHE];

static void st_trace_free(struct st_trace *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->ev);
	free(t->rl);
	free(t->members);
	free(t->rl_toks);
	htab_free(&t->rl_tab);
	free(t->vs);
	free(t->vals);
	free(t->par);
	free(t->loops);
	free(t->stats);
	free(t->sig);
	free(t->addrs);
	htab_free(&t->sig_tab);
	free(t);
}

/* ---- parser ------------------------------------------------------------- */

struct st_ptmp {          /* a parameter line before its event is complete */
	uint32_t id;
	uint32_t order;
	struct st_vset vs;
};

struct st_parse {
	struct st_trace *t;
	const char *path;
	struct tc_error *err;
	bool salvage;
	struct st_ptmp *ptmp;
	size_t nptmp, aptmp;
	int64_t *toks;
	size_t ntoks, atoks;
	uint64_t *frames;
	int32_t max_rank;
};

struct lex {
	const char *p, *e;
};

static int st_fail(struct st_parse *ps, uint32_t line, const char *fmt, ...) TC_PRINTF(3, 4);

static int st_fail(struct st_parse *ps, uint32_t line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tc_error_set(ps->err, TC_ERR_FORMAT, ps->path, -1, "line %u: %s", line, msg);
}

static void skip_ws(struct lex *l)
{
	while (l->p < l->e && (*l->p == ' ' || *l->p == '\t'))
		l->p++;
}

static bool at_end(struct lex *l)
{
	skip_ws(l);
	return l->p >= l->e;
}

static bool accept(struct lex *l, char c)
{
	skip_ws(l);
	if (l->p < l->e && *l->p == c) {
		l->p++;
		return true;
	}
	return false;
}

static bool accept_word(struct lex *l, const char *w)
{
	size_t n = strlen(w);

	skip_ws(l);
	if ((size_t)(l->e - l->p) >= n && !memcmp(l->p, w, n)) {
		l->p += n;
		return true;
	}
	return false;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A decimal integer that fits comfortably in int64 (at most 18 digits). */
static bool lex_int(struct lex *l, int64_t *out)
{
	bool neg = false;
	int64_t v = 0;
	int nd = 0;

	skip_ws(l);
	if (l->p < l->e && (*l->p == '-' || *l->p == '+')) {
		neg = *l->p == '-';
		l->p++;
	}
	while (l->p < l->e && is_digit(*l->p)) {
		if (++nd > 18)
			return false;
		v = v * 10 + (*l->p - '0');
		l->p++;
	}
	if (!nd)
		return false;
	*out = neg ? -v : v;
	return true;
}

static bool lex_hex(struct lex *l, uint64_t *out)
{
	uint64_t v = 0;
	int nd = 0, d;

	skip_ws(l);
	while (l->p < l->e && (d = hexval(*l->p)) >= 0) {
		if (++nd > 16)
			return false;
		v = v << 4 | (uint64_t)d;
		l->p++;
	}
	*out = v;
	return nd > 0;
}

/* A finite decimal number ("72701.80", "-1", "1e3"). */
static bool lex_num(struct lex *l, double *out)
{
	char buf[64];
	size_t n = 0;
	char *end;

	skip_ws(l);
	while (l->p + n < l->e && n < sizeof(buf) - 1 &&
	       (is_digit(l->p[n]) || l->p[n] == '.' || l->p[n] == '-' || l->p[n] == '+' ||
		l->p[n] == 'e' || l->p[n] == 'E'))
		n++;
	if (!n || n == sizeof(buf) - 1)
		return false;
	memcpy(buf, l->p, n);
	buf[n] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	if (end != buf + n || errno || !isfinite(*out))
		return false;
	l->p += n;
	return true;
}

/* ---- ranklists ---------------------------------------------------------- */

static bool rl_has(const struct st_trace *t, uint32_t rl, int32_t rank)
{
	const int32_t *m;
	size_t lo = 0, hi;

	if (rl == ST_RL_EVENT)
		return true;
	m = t->members + t->rl[rl].off;
	hi = t->rl[rl].n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->rl[rl].n && m[lo] == rank;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/*
 * Expand the numbers of a ranklist (Ranklist.C's recursive lists): a
 * count of lists, then for each -depth, start, and depth (iters, stride)
 * pairs; the members are start + sum(k_i * stride_i), 0 <= k_i < iters_i.
 */
/* Sort the m ranks at v (each in 0 .. TC_ST_MAX_WORLD-1) and drop repeats;
 * the count kept. Long lists go through a bitmap of their range, in time
 * linear in m and the range: a few bytes of ranklist may stand for
 * millions of ranks (or one rank repeated millions of times). */
static size_t sort_unique(int32_t *v, size_t m)
{
	int32_t lo = INT32_MAX, hi = -1;
	uint64_t *bits;
	size_t u = 0;

	if (m <= 256) {
		qsort(v, m, sizeof(*v), cmp_i32);
		for (size_t i = 0; i < m; i++)
			if (!i || v[i] != v[u - 1])
				v[u++] = v[i];
		return u;
	}
	for (size_t i = 0; i < m; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	bits = tc_xcalloc((size_t)(hi - lo) / 64 + 1, sizeof(*bits));
	for (size_t i = 0; i < m; i++)
		bits[(size_t)(v[i] - lo) / 64] |= (uint64_t)1 << ((v[i] - lo) % 64);
	for (size_t w = 0; w <= (size_t)(hi - lo) / 64; w++)
		for (uint64_t b = bits[w]; b; b &= b - 1)
			v[u++] = lo + (int32_t)(w * 64 + (size_t)__builtin_ctzll(b));
	free(bits);
	return u;
}

static int rl_expand(struct st_parse *ps, const int64_t *tok, size_t n, uint32_t line)
{
	struct st_trace *t = ps->t;
	size_t first = t->nmembers, pos = 1;
	int64_t count;

	if (n < 1 || (count = tok[0]) < 1 || count > ST_MAX_PRSD)
		return st_fail(ps, line, "bad ranklist: %s",
			       n < 1 ? "empty" : "list count out of range");
	for (int64_t c = 0; c < count; c++) {
		int64_t depth, start, iters[ST_MAX_DEPTH], stride[ST_MAX_DEPTH];
		uint64_t total = 1;
		int64_t k[ST_MAX_DEPTH];

		if (pos + 2 > n)
			return st_fail(ps, line, "bad ranklist: list %" PRId64 " is cut short", c + 1);
		depth = -tok[pos];
		start = tok[pos + 1];
		if (depth < 1 || depth > ST_MAX_DEPTH)
			return st_fail(ps, line, "bad ranklist: depth marker %" PRId64
				       " (expected -1 to -%d)", tok[pos], ST_MAX_DEPTH);
		if (pos + 2 + 2 * (size_t)depth > n)
			return st_fail(ps, line, "bad ranklist: list %" PRId64 " is cut short", c + 1);
		for (int64_t d = 0; d < depth; d++) {
			iters[d] = tok[pos + 2 + 2 * d];
			stride[d] = tok[pos + 3 + 2 * d];
			if (iters[d] < 1 || iters[d] > TC_ST_MAX_WORLD ||
			    stride[d] < -TC_ST_MAX_WORLD || stride[d] > TC_ST_MAX_WORLD)
				return st_fail(ps, line, "bad ranklist: iterations %" PRId64
					       " stride %" PRId64, iters[d], stride[d]);
			/* iterations that stay on one rank add nothing to the set */
			if (!stride[d])
				iters[d] = 1;
			total *= (uint64_t)iters[d];
			if (total > ST_MAX_MEMBERS || t->nmembers + total > ST_MAX_MEMBERS)
				return st_fail(ps, line, "bad ranklist: too many ranks");
			k[d] = 0;
		}
		TC_ALLOC_GROW(t->members, t->nmembers + total, t->amembers);
		for (uint64_t i = 0; i < total; i++) {
			int64_t r = start;
			int d;
			for (d = 0; d < depth; d++)
				r += k[d] * stride[d];
			if (r < 0 || r >= TC_ST_MAX_WORLD)
				return st_fail(ps, line, "bad ranklist: rank %" PRId64 " out of range", r);
			t->members[t->nmembers++] = (int32_t)r;
			for (d = (int)depth - 1; d >= 0; d--) {
				if (++k[d] < iters[d])
					break;
				k[d] = 0;
			}
		}
		pos += 2 + 2 * (size_t)depth;
	}
	if (pos != n)
		return st_fail(ps, line, "bad ranklist: %zu numbers after the last list", n - pos);
	{
		size_t u = sort_unique(t->members + first, t->nmembers - first);
		t->nmembers = first + u;
		if (u && t->members[first + u - 1] > ps->max_rank)
			ps->max_rank = t->members[first + u - 1];
	}
	return 0;
}

/* Parse the numbers of a ranklist up to `term` (or the end of the line),
 * interning equal lists once. */
static int parse_rl(struct st_parse *ps, struct lex *l, char term, uint32_t line, uint32_t *out)
{
	struct st_trace *t = ps->t;
	uint64_t h;
	size_t slot;
	int rc;

	ps->ntoks = 0;
	for (;;) {
		int64_t v;
		skip_ws(l);
		if (term ? (l->p < l->e && *l->p == term) : l->p >= l->e)
			break;
		if (!lex_int(l, &v))
			return st_fail(ps, line, "bad ranklist: %s",
				       l->p >= l->e ? "missing ']'" : "not a number");
		if (ps->ntoks >= ST_MAX_TOKENS)
			return st_fail(ps, line, "bad ranklist: too long");
		TC_ALLOC_GROW(ps->toks, ps->ntoks + 1, ps->atoks);
		ps->toks[ps->ntoks++] = v;
	}
	if (term)
		l->p++;
	h = nonzero(tc_hash64(ps->toks, ps->ntoks * sizeof(*ps->toks), 0x726c));
	if (t->rl_tab.n * 2 >= t->rl_tab.cap)
		htab_grow(&t->rl_tab);
	for (slot = htab_slot(&t->rl_tab, h); t->rl_tab.keys[slot];
	     slot = (slot + 1) & (t->rl_tab.cap - 1)) {
		uint32_t i = t->rl_tab.vals[slot];
		if (t->rl_tab.keys[slot] == h && t->rl[i].tn == ps->ntoks &&
		    !memcmp(t->rl_toks + t->rl[i].toff, ps->toks, ps->ntoks * sizeof(*ps->toks))) {
			*out = i;
			return 0;
		}
	}
	if (t->nrl >= ST_NONE - 2)
		return st_fail(ps, line, "too many rank lists");
	{
		size_t first = t->nmembers;
		rc = rl_expand(ps, ps->toks, ps->ntoks, line);
		if (rc)
			return rc;
		TC_ALLOC_GROW(t->rl, t->nrl + 1, t->arl);
		t->rl[t->nrl].off = (uint32_t)first;
		t->rl[t->nrl].n = (uint32_t)(t->nmembers - first);
		TC_ALLOC_GROW(t->rl_toks, t->nrl_toks + ps->ntoks, t->arl_toks);
		memcpy(t->rl_toks + t->nrl_toks, ps->toks, ps->ntoks * sizeof(*ps->toks));
		t->rl[t->nrl].toff = (uint32_t)t->nrl_toks;
		t->rl[t->nrl].tn = (uint32_t)ps->ntoks;
		t->nrl_toks += ps->ntoks;
		t->rl_tab.keys[slot] = h;
		t->rl_tab.vals[slot] = (uint32_t)t->nrl;
		t->rl_tab.n++;
		*out = (uint32_t)t->nrl++;
	}
	return 0;
}

/* ---- signatures ---------------------------------------------------------- */

/* "46bb08_46bbc7_46bc5d" or "NULL": interned call-site index. */
static int parse_sig(struct st_parse *ps, struct lex *l, uint32_t line, uint32_t *out)
{
	struct st_trace *t = ps->t;
	size_t n = 0, slot;
	uint64_t h;

	if (accept_word(l, "NULL")) {
		*out = ST_SIG_NULL;
		return 0;
	}
	for (;;) {
		uint64_t a;
		if (!lex_hex(l, &a))
			return st_fail(ps, line, "bad stack signature");
		if (n >= ST_MAX_FRAMES)
			return st_fail(ps, line, "stack signature longer than %d frames", ST_MAX_FRAMES);
		ps->frames[n++] = a;
		if (l->p >= l->e || *l->p != '_')
			break;
		l->p++;
	}
	if (l->p < l->e && *l->p != ' ' && *l->p != '\t' && *l->p != '(')
		return st_fail(ps, line, "bad stack signature");
	h = nonzero(tc_hash64(ps->frames, n * sizeof(uint64_t), 0x736967));
	if (t->sig_tab.n * 2 >= t->sig_tab.cap)
		htab_grow(&t->sig_tab);
	for (slot = htab_slot(&t->sig_tab, h); t->sig_tab.keys[slot];
	     slot = (slot + 1) & (t->sig_tab.cap - 1)) {
		uint32_t i = t->sig_tab.vals[slot];
		if (t->sig_tab.keys[slot] == h && t->sig[i].n == n &&
		    !memcmp(t->addrs + t->sig[i].off, ps->frames, n * sizeof(uint64_t))) {
			*out = i;
			return 0;
		}
	}
	if (t->nsig >= ST_NONE - 2)
		return st_fail(ps, line, "too many stack signatures");
	TC_ALLOC_GROW(t->sig, t->nsig + 1, t->asig);
	TC_ALLOC_GROW(t->addrs, t->naddrs + n, t->aaddrs);
	memcpy(t->addrs + t->naddrs, ps->frames, n * sizeof(uint64_t));
	t->sig[t->nsig].off = (uint32_t)t->naddrs;
	t->sig[t->nsig].n = (uint32_t)n;
	{
		struct tc_frame fr[ST_MAX_FRAMES];
		for (size_t i = 0; i < n; i++) {
			fr[i].module = "scalatrace";
			fr[i].offset = ps->frames[i];
			fr[i].symbol = "";
		}
		t->sig[t->nsig].hash = tc_stack_signature(fr, (uint32_t)n);
	}
	t->naddrs += n;
	t->sig_tab.keys[slot] = h;
	t->sig_tab.vals[slot] = (uint32_t)t->nsig;
	t->sig_tab.n++;
	*out = (uint32_t)t->nsig++;
	return 0;
}

/* ---- values ------------------------------------------------------------- */

static int push_value(struct st_parse *ps, int64_t v, uint32_t line)
{
	struct st_trace *t = ps->t;

	if (t->nvals >= ((size_t)1 << 31))
		return st_fail(ps, line, "too many parameter values");
	TC_ALLOC_GROW(t->vals, t->nvals + 1, t->avals);
	t->vals[t->nvals++] = v;
	return 0;
}

/* "( v v v )[ ranklist ]" */
static int parse_vset(struct st_parse *ps, struct lex *l, uint32_t line, struct st_vset *vs)
{
	int rc;

	memset(vs, 0, sizeof(*vs));
	vs->off = (uint32_t)ps->t->nvals;
	if (!accept(l, '('))
		return st_fail(ps, line, "expected '(' of a value list");
	while (!accept(l, ')')) {
		int64_t v;
		if (!lex_int(l, &v))
			return st_fail(ps, line, "bad value list%s", at_end(l) ? ": missing ')'" : "");
		if (vs->n >= ST_MAX_TOKENS)
			return st_fail(ps, line, "value list too long");
		if ((rc = push_value(ps, v, line)))
			return rc;
		vs->n++;
	}
	if (!vs->n)
		return st_fail(ps, line, "empty value list");
	if (!accept(l, '['))
		return st_fail(ps, line, "expected '[' of a ranklist after the values");
	return parse_rl(ps, l, ']', line, &vs->rl);
}

/* "(n avg minrank min maxrank max){bin}..." : keeps n and the mean. */
static int parse_hist(struct st_parse *ps, struct lex *l, uint32_t line, double *avg,
		      int64_t *n)
{
	double d;
	int64_t r;

	if (!accept(l, '(') || !lex_int(l, n) || *n < 0 || !lex_num(l, avg) || *avg < 0 ||
	    !lex_int(l, &r) || !lex_num(l, &d) || !lex_int(l, &r) || !lex_num(l, &d) ||
	    !accept(l, ')'))
		return st_fail(ps, line, "bad histogram");
	/* the bins ({start min avg max end count}) are not needed */
	while (accept(l, '{')) {
		while (l->p < l->e && *l->p != '}')
			l->p++;
		if (!accept(l, '}'))
			return st_fail(ps, line, "bad histogram bin: missing '}'");
	}
	if (!at_end(l))
		return st_fail(ps, line, "unexpected text after a histogram");
	return 0;
}

/* ---- one event block ----------------------------------------------------- */

/* ScalaTrace op code (1000 + position in umpi_mpi_ops.h) -> tc op. */
static uint32_t map_umpi(uint32_t code)
{
	switch (code) {
	case 1002: return TC_OP_ALLGATHER;
	case 1003: return TC_OP_ALLGATHERV;
	case 1004: return TC_OP_ALLREDUCE;
	case 1005: return TC_OP_ALLTOALL;
	case 1006: return TC_OP_ALLTOALLV;
	case 1010: return TC_OP_BARRIER;
	case 1011: return TC_OP_BCAST;
	case 1012: return TC_OP_BSEND;
	case 1013: return TC_OP_BSEND_INIT;
	case 1016: return TC_OP_CANCEL;
	case 1018: return TC_OP_CART_CREATE;
	case 1023: return TC_OP_CART_SUB;
	case 1026: return TC_OP_COMM_CREATE;
	case 1027: return TC_OP_COMM_DUP;
	case 1028: return TC_OP_COMM_FREE;
	case 1036: return TC_OP_COMM_SPLIT;
	case 1045: return TC_OP_FINALIZE;
	case 1047: return TC_OP_GATHER;
	case 1048: return TC_OP_GATHERV;
	case 1053: return TC_OP_GRAPH_CREATE;
	case 1072: return TC_OP_IBSEND;
	case 1084: return TC_OP_INIT;
	case 1089: return TC_OP_IPROBE;
	case 1090: return TC_OP_IRECV;
	case 1091: return TC_OP_IRSEND;
	case 1092: return TC_OP_ISEND;
	case 1093: return TC_OP_ISSEND;
	case 1100: return TC_OP_PCONTROL;
	case 1101: return TC_OP_PROBE;
	case 1102: return TC_OP_RECV;
	case 1103: return TC_OP_RECV_INIT;
	case 1104: return TC_OP_REDUCE;
	case 1105: return TC_OP_REDUCE_SCATTER;
	case 1107: return TC_OP_REQUEST_FREE;
	case 1108: return TC_OP_RSEND;
	case 1109: return TC_OP_RSEND_INIT;
	case 1110: return TC_OP_SCAN;
	case 1111: return TC_OP_SCATTER;
	case 1112: return TC_OP_SCATTERV;
	case 1113: return TC_OP_SEND;
	case 1114: return TC_OP_SEND_INIT;
	case 1115: return TC_OP_SENDRECV;
	case 1116: return TC_OP_SENDRECV_REPLACE;
	case 1117: return TC_OP_SSEND;
	case 1118: return TC_OP_SSEND_INIT;
	case 1119: return TC_OP_START;
	case 1120: return TC_OP_STARTALL;
	case 1123: return TC_OP_TEST;
	case 1125: return TC_OP_TESTALL;
	case 1126: return TC_OP_TESTANY;
	case 1127: return TC_OP_TESTSOME;
	case 1148: return TC_OP_WAIT;
	case 1149: return TC_OP_WAITALL;
	case 1150: return TC_OP_WAITANY;
	case 1151: return TC_OP_WAITSOME;
	case 1160: return TC_OP_FILE_OPEN;
	case 1162: return TC_OP_FILE_WRITE_AT;
	case 1163: return TC_OP_FILE_WRITE_ALL;
	case 1164: return TC_OP_FILE_READ_ALL;
	case 1166: return TC_OP_FILE_CLOSE;
	}
	return TC_OP_NONE;
}

static int cmp_ptmp(const void *a, const void *b)
{
	const struct st_ptmp *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static bool has_prefix(const char *p, const char *e, const char *w)
{
	size_t n = strlen(w);
	return (size_t)(e - p) >= n && !memcmp(p, w, n);
}

/* Loop line after "LOOPn:": "iter: (n)[rl] ... mem: (m)[rl] ..." */
static int parse_loop(struct st_parse *ps, struct lex *l, uint32_t line, struct st_loop *lp)
{
	struct st_trace *t = ps->t;
	int rc;

	if (!accept_word(l, "iter:"))
		return st_fail(ps, line, "expected 'iter:' in a loop");
	lp->iter_first = (uint32_t)t->nvs;
	lp->iter_n = 0;
	while (!accept_word(l, "mem:")) {
		struct st_vset vs;
		if (at_end(l))
			return st_fail(ps, line, "expected 'mem:' in a loop");
		if ((rc = parse_vset(ps, l, line, &vs)))
			return rc;
		TC_ALLOC_GROW(t->vs, t->nvs + 1, t->avs);
		t->vs[t->nvs++] = vs;
		lp->iter_n++;
	}
	lp->mem_first = (uint32_t)t->nvs;
	lp->mem_n = 0;
	while (!at_end(l)) {
		struct st_vset vs;
		if ((rc = parse_vset(ps, l, line, &vs)))
			return rc;
		TC_ALLOC_GROW(t->vs, t->nvs + 1, t->avs);
		t->vs[t->nvs++] = vs;
		lp->mem_n++;
	}
	if (!lp->iter_n || !lp->mem_n)
		return st_fail(ps, line, "loop without %s values", lp->iter_n ? "mem" : "iter");
	if (t->nvs >= ST_NONE - 2)
		return st_fail(ps, line, "too many value lists");
	return 0;
}

static int parse_stat(struct st_parse *ps, struct lex *l, bool comm, uint32_t line,
		      struct st_event *ev)
{
	struct st_trace *t = ps->t;
	struct st_stat st;
	uint64_t type, idx;
	int64_t n;
	int rc;

	if (!lex_hex(l, &type) || !accept(l, '-') || !lex_hex(l, &idx) || !accept(l, ':'))
		return st_fail(ps, line, "bad %s line", comm ? "COMM" : "COMP");
	if ((rc = parse_sig(ps, l, line, &st.pred)))
		return rc;
	if ((rc = parse_hist(ps, l, line, &st.avg, &n)))
		return rc;
	if (ev->nstats >= ST_MAX_STATS)
		return st_fail(ps, line, "more than %d statistics in one event", ST_MAX_STATS);
	st.type = (uint32_t)TC_MIN(type, UINT32_MAX);
	st.comm = comm;
	TC_ALLOC_GROW(t->stats, t->nstats + 1, t->astats);
	t->stats[t->nstats++] = st;
	ev->nstats++;
	return 0;
}

static int parse_param(struct st_parse *ps, struct lex *l, uint32_t line, bool histogram)
{
	struct st_ptmp pt;
	uint64_t id;
	int rc;

	if (!lex_hex(l, &id) || (l->p < l->e && *l->p != ' ' && *l->p != '\t'))
		return st_fail(ps, line, "unrecognised line (not a parameter)");
	if (ps->nptmp >= ST_MAX_PARAMS)
		return st_fail(ps, line, "more than %d parameter lines in one event", ST_MAX_PARAMS);
	memset(&pt, 0, sizeof(pt));
	pt.id = (uint32_t)TC_MIN(id, UINT32_MAX);
	pt.order = (uint32_t)ps->nptmp;
	if (histogram) {
		int64_t n;
		pt.vs.rl = ST_RL_EVENT;
		pt.vs.hist = true;
		pt.vs.n = 1;
		pt.vs.off = (uint32_t)ps->t->nvals;
		if ((rc = parse_hist(ps, l, line, &pt.vs.avg, &n)))
			return rc;
		/* the average becomes a value: it must fit one (NaN does not) */
		if (!(pt.vs.avg > -9.2e18 && pt.vs.avg < 9.2e18))
			return st_fail(ps, line, "histogram average out of range");
		if ((rc = push_value(ps, (int64_t)pt.vs.avg, line)))
			return rc;
	} else if (skip_ws(l), l->p < l->e && *l->p == '(') {
		if ((rc = parse_vset(ps, l, line, &pt.vs)))
			return rc;
		if (!at_end(l))
			return st_fail(ps, line, "unexpected text after a value list");
	} else {
		pt.vs.rl = ST_RL_EVENT;
		pt.vs.off = (uint32_t)ps->t->nvals;
		while (!at_end(l)) {
			int64_t v;
			if (!lex_int(l, &v))
				return st_fail(ps, line, "bad parameter value");
			if (pt.vs.n >= ST_MAX_TOKENS)
				return st_fail(ps, line, "value list too long");
			if ((rc = push_value(ps, v, line)))
				return rc;
			pt.vs.n++;
		}
		if (!pt.vs.n)
			return st_fail(ps, line, "parameter %" PRIx64 " without a value", id);
	}
	TC_ALLOC_GROW(ps->ptmp, ps->nptmp + 1, ps->aptmp);
	ps->ptmp[ps->nptmp++] = pt;
	return 0;
}

struct st_line {
	const char *p, *e;
	uint32_t no;
};

static int parse_event(struct st_parse *ps, const struct st_line *ln, size_t n)
{
	struct st_trace *t = ps->t;
	struct st_event ev;
	bool have_event = false;
	struct lex l;
	int rc;

	memset(&ev, 0, sizeof(ev));
	ev.line = ln[0].no;
	ev.sig = ST_SIG_NULL;
	ev.loop_first = (uint32_t)t->nloops;
	ev.stat_first = (uint32_t)t->nstats;
	ps->nptmp = 0;

	l.p = ln[0].p;
	l.e = ln[0].e;
	if (!has_prefix(l.p, l.e, "RANKS:"))
		return st_fail(ps, ln[0].no, "expected 'RANKS:' to start an event");
	l.p += 6;
	if ((rc = parse_rl(ps, &l, 0, ln[0].no, &ev.rl)))
		return rc;
	for (size_t i = 1; i < n; i++) {
		l.p = ln[i].p;
		l.e = ln[i].e;
		if (has_prefix(l.p, l.e, "EVENT")) {
			int64_t seq, op;
			l.p += 5;
			if (have_event)
				return st_fail(ps, ln[i].no, "second EVENT line in one event");
			if (!lex_int(&l, &seq) || seq < 0 || !accept(&l, ':') || !lex_int(&l, &op))
				return st_fail(ps, ln[i].no, "bad EVENT line");
			if ((uint64_t)seq != t->nev)
				return st_fail(ps, ln[i].no,
					       "EVENT%" PRId64 " out of sequence (expected EVENT%zu)",
					       seq, t->nev);
			if (op < 1000 || op > 1999)
				return st_fail(ps, ln[i].no, "unknown operation code %" PRId64, op);
			ev.umpi = (uint32_t)op;
			ev.op = map_umpi(ev.umpi);
			if ((rc = parse_sig(ps, &l, ln[i].no, &ev.sig)))
				return rc;
			if (!at_end(&l))
				return st_fail(ps, ln[i].no, "unexpected text after the stack signature");
			have_event = true;
		} else if (has_prefix(l.p, l.e, "COMP ") || has_prefix(l.p, l.e, "COMM ")) {
			bool comm = l.p[3] == 'M';
			l.p += 5;
			if ((rc = parse_stat(ps, &l, comm, ln[i].no, &ev)))
				return rc;
		} else if (has_prefix(l.p, l.e, "LOOP")) {
			struct st_loop lp;
			int64_t k;
			l.p += 4;
			if (!lex_int(&l, &k) || k != (int64_t)ev.nloops || !accept(&l, ':'))
				return st_fail(ps, ln[i].no, "bad LOOP line (expected LOOP%u:)",
					       ev.nloops);
			if (ev.nloops >= ST_MAX_LOOPS)
				return st_fail(ps, ln[i].no, "more than %d loops on one event",
					       ST_MAX_LOOPS);
			if ((rc = parse_loop(ps, &l, ln[i].no, &lp)))
				return rc;
			TC_ALLOC_GROW(t->loops, t->nloops + 1, t->aloops);
			t->loops[t->nloops++] = lp;
			ev.nloops++;
		} else if (has_prefix(l.p, l.e, "RANKS")) {
			return st_fail(ps, ln[i].no, "'RANKS:' inside an event (missing blank line?)");
		} else {
			bool hist = memchr(l.p, '{', (size_t)(l.e - l.p)) != NULL;
			if ((rc = parse_param(ps, &l, ln[i].no, hist)))
				return rc;
		}
	}
	if (!have_event)
		return st_fail(ps, ln[0].no, "event without an EVENT line");
	/* parameters: grouped by id, value sets in line order */
	if (ps->nptmp)
		qsort(ps->ptmp, ps->nptmp, sizeof(*ps->ptmp), cmp_ptmp);
	ev.param_first = (uint32_t)t->npar;
	for (size_t i = 0; i < ps->nptmp; i++) {
		if (!i || ps->ptmp[i].id != ps->ptmp[i - 1].id) {
			TC_ALLOC_GROW(t->par, t->npar + 1, t->apar);
			t->par[t->npar].id = ps->ptmp[i].id;
			t->par[t->npar].first = (uint32_t)t->nvs;
			t->par[t->npar].n = 0;
			t->npar++;
			ev.nparams++;
		}
		TC_ALLOC_GROW(t->vs, t->nvs + 1, t->avs);
		t->vs[t->nvs++] = ps->ptmp[i].vs;
		t->par[t->npar - 1].n++;
	}
	if (t->nev >= ST_NONE - 2 || t->nvs >= ST_NONE - 2)
		return st_fail(ps, ln[0].no, "too many events");
	TC_ALLOC_GROW(t->ev, t->nev + 1, t->aev);
	t->ev[t->nev++] = ev;
	return 0;
}

static int parse_text(struct st_parse *ps, const char *buf, size_t len)
{
	struct st_line *ln = NULL;
	size_t nln = 0, aln = 0;
	const char *p = buf, *end = buf + len;
	uint32_t no = 0;
	int rc = 0;

	if (!len)
		return tc_error_set(ps->err, TC_ERR_FORMAT, ps->path, -1, "empty file");
	if (memchr(buf, '\0', len))
		return tc_error_set(ps->err, TC_ERR_FORMAT, ps->path,
				    (const char *)memchr(buf, '\0', len) - buf,
				    "binary data (a NUL byte) in a text trace");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *s = p, *e = le;

		no++;
		while (e > s && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			e--;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		if (s == e) {
			if (nln) {
				rc = parse_event(ps, ln, nln);
				if (rc)
					goto out;
				nln = 0;
			}
		} else {
			if (!nl) {
				rc = st_fail(ps, no, "truncated: the file ends inside a line");
				goto out;
			}
			TC_ALLOC_GROW(ln, nln + 1, aln);
			ln[nln].p = s;
			ln[nln].e = e;
			ln[nln].no = no;
			nln++;
		}
		p = nl ? nl + 1 : end;
	}
	if (nln) {
		/* report what is wrong in the block first, if anything */
		rc = parse_event(ps, ln, nln);
		if (!rc)
			rc = st_fail(ps, ln[nln - 1].no,
				     "truncated: the last event is not ended by a blank line");
		goto out;
	}
	if (!ps->t->nev)
		rc = tc_error_set(ps->err, TC_ERR_FORMAT, ps->path, -1, "no events");
out:
	free(ln);
	if (rc && ps->salvage && ps->t->nev && rc != TC_ERR_IO) {
		/* salvage: keep the events before the damage */
		snprintf(ps->t->damage, sizeof(ps->t->damage), "%.159s", ps->err->msg);
		ps->t->damaged = true;
		rc = 0;
	}
	return rc;
}

static int parse_file(const char *path, const struct stat *st, bool salvage,
		      struct st_trace **out, struct tc_error *err)
{
	struct st_parse ps;
	struct st_trace *t;
	char *buf = NULL;
	size_t len = 0;
	int fd, rc;

	*out = NULL;
	if ((uint64_t)st->st_size > TC_ST_MAX_FILE)
		return tc_error_set(err, TC_ERR_FORMAT, path, -1,
				    "file too large for a ScalaTrace trace (%lld bytes)",
				    (long long)st->st_size);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tc_error_sys(err, path, "open");
	buf = tc_xmalloc((size_t)st->st_size + 1);
	while (len < (size_t)st->st_size) {
		ssize_t k = read(fd, buf + len, (size_t)st->st_size - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = tc_error_sys(err, path, "read");
			close(fd);
			free(buf);
			return rc;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	close(fd);

	t = tc_xcalloc(1, sizeof(*t));
	t->path = tc_xstrdup(path);
	t->dev = st->st_dev;
	t->ino = st->st_ino;
	t->size = st->st_size;
	t->mtime = st->st_mtim;
	memset(&ps, 0, sizeof(ps));
	ps.t = t;
	ps.path = path;
	ps.err = err;
	ps.salvage = salvage;
	ps.max_rank = -1;
	ps.frames = tc_xmalloc(ST_MAX_FRAMES * sizeof(*ps.frames));
	rc = parse_text(&ps, buf, len);
	free(buf);
	free(ps.ptmp);
	free(ps.toks);
	free(ps.frames);
	if (rc) {
		st_trace_free(t);
		return rc;
	}
	t->world = ps.max_rank + 1;
	t->salvage = salvage;
	*out = t;
	return 0;
}

/* A parsed trace for path, from the cache when the file is unchanged. */
static int st_get(const char *path, bool salvage, struct st_trace **out, struct tc_error *err)
{
	struct stat st;
	struct st_trace *t = NULL;
	int rc = 0, i, free_slot = -1;

	*out = NULL;
	if (stat(path, &st) < 0)
		return tc_error_sys(err, path, "open");
	if (S_ISDIR(st.st_mode))
		return tc_error_set(err, TC_ERR_FORMAT, path, -1, "is a directory");
	pthread_mutex_lock(&st_lock);
	for (i = 0; i < ST_CACHE; i++) {
		struct st_trace *c = st_cache[i];
		if (!c) {
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (!strcmp(c->path, path) && c->salvage == salvage &&
		    c->dev == st.st_dev && c->ino == st.st_ino &&
		    c->size == st.st_size && c->mtime.tv_sec == st.st_mtim.tv_sec &&
		    c->mtime.tv_nsec == st.st_mtim.tv_nsec) {
			c->refs++;
			*out = c;
			goto out;
		}
	}
	rc = parse_file(path, &st, salvage, &t, err);
	if (rc)
		goto out;
	t->refs = 1;
	if (free_slot < 0) {
		for (i = 0; i < ST_CACHE; i++) {
			if (!st_cache[i]->refs) {
				st_trace_free(st_cache[i]);
				st_cache[i] = NULL;
				free_slot = i;
				break;
			}
		}
	}
	if (free_slot >= 0) {
		t->cached = true;
		st_cache[free_slot] = t;
	}
	*out = t;
out:
	pthread_mutex_unlock(&st_lock);
	return rc;
}

static void st_put(struct st_trace *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&st_lock);
	if (--t->refs == 0 && !t->cached)
		st_trace_free(t);
	pthread_mutex_unlock(&st_lock);
}

/* ---- probing ------------------------------------------------------------ */

bool tc_scalatrace_probe(const void *buf, size_t len)
{
	static const char w[] = "RANKS:";
	return len >= sizeof(w) - 1 && !memcmp(buf, w, sizeof(w) - 1);
}

int tc_scalatrace_world(const char *path, unsigned flags, int32_t *world,
			struct tc_error *err)
{
	struct st_trace *t;
	int rc = st_get(path, (flags & TC_RAW_SALVAGE) != 0, &t, err);

	if (rc)
		return rc;
	*world = t->world;
	st_put(t);
	return 0;
}

/* ---- a rank's stream ---------------------------------------------------- */

struct st_revent {        /* an event as one rank sees it */
	uint32_t ev;
	uint32_t param_first, nparams; /* into r->pv */
	uint32_t loop_first, nloops;   /* into r->lp */
};

struct st_pv {
	uint32_t id, vs;
};

struct st_lp {
	uint32_t iter, mem;    /* value sets */
};

struct st_req {
	uint64_t id;
	int32_t peer, tag;
	uint64_t bytes;
	bool recv;
};

struct st_reader {
	struct st_trace *t;
	int32_t rank;
	unsigned flags;
	struct tc_raw_header hdr;
	/* the rank's view of the trace */
	struct st_revent *rev;
	size_t nrev;
	struct st_pv *pv;
	size_t npv, apv;
	struct st_lp *lp;
	size_t nlp, alp;
	uint64_t *cur;          /* per value set: values taken so far */
	/* walking */
	const struct tc_read_ops *ops;
	void *ctx;
	struct tc_error *err;
	struct tc_raw_stats *stats;
	uint64_t steps, events;
	uint64_t max_steps, max_events, max_total; /* st_caps */
	uint64_t now;           /* ns */
	uint32_t prev_sig;
	uint8_t *defined;       /* call sites already given to ops->callsite */
	struct tc_frame *frames;
	struct st_req *ring;    /* the last ST_REQ_RING nonblocking requests */
	uint64_t nreq;
	uint32_t comm_slot;
	struct tc_completion *compl;
	size_t acompl;
	uint64_t *counts;
	size_t acounts;
};

static uint32_t pick_vset(const struct st_trace *t, uint32_t first, uint32_t n, int32_t rank)
{
	for (uint32_t i = 0; i < n; i++)
		if (rl_has(t, t->vs[first + i].rl, rank))
			return first + i;
	return ST_NONE;
}

static void build_view(struct st_reader *r)
{
	const struct st_trace *t = r->t;
	size_t a = 0;

	for (size_t k = 0; k < t->nev; k++) {
		const struct st_event *e = &t->ev[k];
		struct st_revent re;

		if (!rl_has(t, e->rl, r->rank))
			continue;
		re.ev = (uint32_t)k;
		re.param_first = (uint32_t)r->npv;
		re.nparams = 0;
		for (uint32_t i = 0; i < e->nparams; i++) {
			const struct st_param *p = &t->par[e->param_first + i];
			uint32_t v = pick_vset(t, p->first, p->n, r->rank);
			if (v == ST_NONE)
				continue;
			TC_ALLOC_GROW(r->pv, r->npv + 1, r->apv);
			r->pv[r->npv].id = p->id;
			r->pv[r->npv].vs = v;
			r->npv++;
			re.nparams++;
		}
		re.loop_first = (uint32_t)r->nlp;
		re.nloops = 0;
		for (uint32_t i = 0; i < e->nloops; i++) {
			const struct st_loop *lp = &t->loops[e->loop_first + i];
			uint32_t it = pick_vset(t, lp->iter_first, lp->iter_n, r->rank);
			uint32_t mem = pick_vset(t, lp->mem_first, lp->mem_n, r->rank);
			if (it == ST_NONE || mem == ST_NONE)
				continue;
			TC_ALLOC_GROW(r->lp, r->nlp + 1, r->alp);
			r->lp[r->nlp].iter = it;
			r->lp[r->nlp].mem = mem;
			r->nlp++;
			re.nloops++;
		}
		TC_ALLOC_GROW(r->rev, r->nrev + 1, a);
		r->rev[r->nrev++] = re;
	}
}

/* The next value of a value set (ParamValue::getCurrentValue: cycling). */
static int64_t next_value(struct st_reader *r, uint32_t vs)
{
	const struct st_vset *v = &r->t->vs[vs];
	int64_t x = r->t->vals[v->off + r->cur[vs] % v->n];

	r->cur[vs]++;
	return x;
}

static const struct {
	uint32_t dt, size;
} st_dtypes[30] = {
	{ TC_DT_NONE, 0 }, { TC_DT_CHAR, 1 }, { TC_DT_SHORT, 2 }, { TC_DT_INT, 4 },
	{ TC_DT_LONG, 8 }, { TC_DT_UNSIGNED_CHAR, 1 }, { TC_DT_UNSIGNED_SHORT, 2 },
	{ TC_DT_UNSIGNED, 4 }, { TC_DT_UNSIGNED_LONG, 8 }, { TC_DT_FLOAT, 4 },
	{ TC_DT_DOUBLE, 8 }, { TC_DT_LONG_DOUBLE, 16 }, { TC_DT_BYTE, 1 },
	{ TC_DT_PACKED, 1 }, { TC_DT_INTEGER, 4 }, { TC_DT_REAL, 4 },
	{ TC_DT_DOUBLE_PRECISION, 8 }, { TC_DT_COMPLEX, 8 }, { TC_DT_DOUBLE_COMPLEX, 16 },
	{ TC_DT_LOGICAL, 4 }, { TC_DT_CHARACTER, 1 }, { TC_DT_FLOAT_INT, 8 },
	{ TC_DT_DOUBLE_INT, 12 }, { TC_DT_LONG_INT, 12 }, { TC_DT_TWO_INT, 8 },
	{ TC_DT_SHORT_INT, 6 }, { TC_DT_LONG_DOUBLE_INT, 20 }, { TC_DT_TWO_REAL, 8 },
	{ TC_DT_TWO_DOUBLE_PRECISION, 16 }, { TC_DT_TWO_INTEGER, 8 },
};

/* ScalaTrace reduction op index (PtrHandler.C init_ops) -> tc redop. */
static const uint32_t st_redops[14] = {
	TC_RED_NONE, TC_RED_MAX, TC_RED_MIN, TC_RED_SUM, TC_RED_PROD, TC_RED_MAXLOC,
	TC_RED_MINLOC, TC_RED_BAND, TC_RED_BOR, TC_RED_BXOR, TC_RED_LAND, TC_RED_LOR,
	TC_RED_LXOR, TC_RED_REPLACE,
};

/* Relative end-point (ENCODE_DEST: (peer - rank + P) % P) -> world rank. */
static int32_t decode_peer(const struct st_reader *r, int64_t v)
{
	int64_t p = r->t->world;

	if (v == ST_OP_ANY_SOURCE)
		return TC_ANY_SOURCE;
	if (v < 0 || v >= p)
		return TC_PROC_NULL;
	return (int32_t)((v + r->rank) % p);
}

static uint32_t map_comm(int64_t c)
{
	if (c == 2)
		return TC_COMM_WORLD;
	if (c == 1)
		return TC_COMM_SELF;
	return (uint32_t)c;
}

static bool is_vector_param(uint32_t id)
{
	return (id >= P_RECVCOUNTS && id <= 15) || (id >= 54 && id <= 57);
}

/* Mean of the COMP (gap before) or COMM (duration) statistic of event e
 * after an event with call site pred, in ns. */
static uint64_t stat_ns(const struct st_trace *t, const struct st_event *e, uint32_t pred,
			bool comm)
{
	double best = -1;
	uint32_t best_type = 0;

	for (uint32_t i = 0; i < e->nstats; i++) {
		const struct st_stat *s = &t->stats[e->stat_first + i];
		if (s->comm != comm || s->pred != pred)
			continue;
		if (s->type == ST_STAT_TIME) {
			best = s->avg * 1000.0;          /* microseconds */
			best_type = s->type;
		} else if (s->type == ST_STAT_INST && best_type != ST_STAT_TIME) {
			best = s->avg;                   /* instructions: 1 ns each */
			best_type = s->type;
		}
	}
	if (best <= 0)
		return 0;
	if (best > 1e15)
		best = 1e15;
	return (uint64_t)llround(best);
}

static int define_site(struct st_reader *r, uint32_t sig)
{
	const struct st_trace *t = r->t;
	struct tc_callsite cs;

	if (r->defined[sig / 8] & (1u << (sig % 8)))
		return 0;
	r->defined[sig / 8] |= (uint8_t)(1u << (sig % 8));
	if (!r->ops->callsite)
		return 0;
	for (uint32_t i = 0; i < t->sig[sig].n; i++) {
		r->frames[i].module = "scalatrace";
		r->frames[i].offset = t->addrs[t->sig[sig].off + i];
		r->frames[i].symbol = "";
	}
	cs.id = sig;
	cs.signature = t->sig[sig].hash;
	cs.nframes = t->sig[sig].n;
	cs.frames = r->frames;
	return r->ops->callsite(r->ctx, &cs) ? TC_ERR_STOP : 0;
}

/* Completion of the request `offset` (ScalaTrace's request-buffer
 * offset: slot (current + offset) % ST_REQ_RING). */
static bool completion(struct st_reader *r, int64_t offset, struct tc_completion *c)
{
	uint64_t slot, cur = r->nreq % ST_REQ_RING;
	const struct st_req *q;

	if (offset < 0 || offset >= ST_REQ_RING || !r->ring)
		return false;
	slot = (cur + (uint64_t)offset) % ST_REQ_RING;
	if (r->nreq < ST_REQ_RING && slot >= r->nreq)
		return false;
	q = &r->ring[slot];
	c->request = q->id;
	c->source = q->recv ? q->peer : TC_PEER_NONE;
	if (q->recv && c->source < 0)
		c->source = TC_PEER_NONE;
	c->tag = q->tag;
	c->bytes = q->recv ? q->bytes : 0;
	return true;
}

/* How many values one occurrence of a per-peer vector takes: the world
 * size when the list holds whole vectors of that size, else all of it. */
static uint64_t vector_len(const struct st_trace *t, uint32_t vs)
{
	uint32_t n = t->vs[vs].n, p = (uint32_t)t->world;

	return n >= p && n % p == 0 ? p : n;
}

/* The scalar parameters of an occurrence, in the event's fields. */
static void fill_scalars(const struct st_reader *r, const int64_t *sv, const bool *has,
			 struct tc_event *ev)
{
	const struct st_trace *t = r->t;
	unsigned kind = tc_op_kind(ev->op), fl = tc_op_flags(ev->op);

	if (has[P_COMM] && sv[P_COMM] > 0) {
		ev->comm = map_comm(sv[P_COMM]);
		ev->fields |= TC_F_COMM;
	}
	/* a wait/test call's COUNT counts its requests */
	if (has[P_COUNT] && sv[P_COUNT] >= 0 && kind != TC_K_WAIT) {
		ev->count = (uint64_t)sv[P_COUNT];
		ev->fields |= TC_F_COUNT;
	}
	if (has[P_DATATYPE] && sv[P_DATATYPE] > 0) {
		int64_t d = sv[P_DATATYPE];
		if (d < (int64_t)TC_ARRAY_SIZE(st_dtypes)) {
			ev->dtype = st_dtypes[d].dt;
			ev->dtype_size = st_dtypes[d].size;
			ev->fields |= TC_F_DTYPE;
		} else if (d >= ST_USER_COMM && d < ST_USER_COMM + 100000) {
			ev->dtype = TC_DT_DERIVED + (uint32_t)(d - ST_USER_COMM);
			ev->fields |= TC_F_DTYPE;
		}
	}
	if ((fl & TC_OPF_RED) && has[P_MPI_OP]) {
		int64_t o = sv[P_MPI_OP];
		if (o > 0 && o < (int64_t)TC_ARRAY_SIZE(st_redops))
			ev->redop = st_redops[o];
		else if (o >= ST_USER_COMM && o < ST_USER_COMM + 100000)
			ev->redop = TC_RED_USER + (uint32_t)(o - ST_USER_COMM);
		ev->fields |= TC_F_REDOP;
	}
	if ((fl & TC_OPF_ROOT) && has[P_RT] && sv[P_RT] >= 0 && sv[P_RT] < t->world) {
		ev->root = (int32_t)sv[P_RT];
		ev->fields |= TC_F_ROOT;
	}
	if (kind == TC_K_SENDRECV) {
		if (has[P_DEST]) {
			ev->peer = decode_peer(r, sv[P_DEST]);
			ev->fields |= TC_F_PEER;
		}
		if (has[P_SOURCE] || has[P_RECVTAG]) {
			ev->rpeer = has[P_SOURCE] ? decode_peer(r, sv[P_SOURCE]) : TC_PEER_NONE;
			ev->rtag = has[P_RECVTAG] ? (int32_t)sv[P_RECVTAG] : 0;
			ev->fields |= TC_F_RPEER;
		}
		if (has[P_TAG] || has[P_SENDTAG]) {
			ev->tag = (int32_t)(has[P_SENDTAG] ? sv[P_SENDTAG] : sv[P_TAG]);
			ev->fields |= TC_F_TAG;
		}
	} else {
		if (has[P_DEST] || has[P_SOURCE]) {
			ev->peer = decode_peer(r, has[P_DEST] ? sv[P_DEST] : sv[P_SOURCE]);
			ev->fields |= TC_F_PEER;
		}
		if (has[P_TAG]) {
			ev->tag = (int32_t)sv[P_TAG];
			ev->fields |= TC_F_TAG;
		}
	}
	if (has[P_COLOR]) {
		int64_t p = t->world;
		ev->color = (int32_t)sv[P_COLOR];
		/* ENCODE_KEY: relative like an end-point */
		ev->key = has[P_KEY] ? (int32_t)((sv[P_KEY] % p + p + r->rank) % p) : 0;
		ev->fields |= TC_F_COLOR;
	}
	if (kind == TC_K_IO && (has[P_FH] || has[P_OFFSET])) {
		ev->file = has[P_FH] ? (uint32_t)sv[P_FH] : 0;
		ev->offset = has[P_OFFSET] && sv[P_OFFSET] > 0 ? (uint64_t)sv[P_OFFSET] : 0;
		ev->fields |= TC_F_FILE;
	}
}

/* Per-peer counts and the completions of request-offset lists. */
static void fill_vectors(struct st_reader *r, const struct st_revent *re, const int64_t *sv,
			 const bool *has, struct tc_event *ev)
{
	const struct st_trace *t = r->t;
	uint32_t vcounts = ST_NONE, vrcounts = ST_NONE, vreqs = ST_NONE;
	uint64_t ns = 0, nr = 0, nq = 0;

	for (uint32_t k = 0; k < re->nparams; k++) {
		const struct st_pv *p = &r->pv[re->param_first + k];
		if (p->id == P_COUNTS && vcounts == ST_NONE)
			vcounts = p->vs;
		else if (p->id == P_RECVCOUNTS && vrcounts == ST_NONE)
			vrcounts = p->vs;
		else if (p->id == P_ARRAY_OF_REQUESTS && vreqs == ST_NONE)
			vreqs = p->vs;
	}
	if (vcounts != ST_NONE)
		ns = vector_len(t, vcounts);
	if (vrcounts != ST_NONE)
		nr = vector_len(t, vrcounts);
	if (vreqs != ST_NONE) {
		nq = has[P_COUNT] && sv[P_COUNT] > 0 ? (uint64_t)sv[P_COUNT] : t->vs[vreqs].n;
		nq = TC_MIN(nq, (uint64_t)1 << 20);
	}
	if (ns + nr) {
		TC_ALLOC_GROW(r->counts, ns + nr, r->acounts);
		for (uint64_t j = 0; j < ns + nr; j++) {
			int64_t x = next_value(r, j < ns ? vcounts : vrcounts);
			r->counts[j] = x > 0 ? (uint64_t)x : 0;
		}
	}
	if (ns) {
		ev->scounts = r->counts;
		ev->nscounts = (uint32_t)ns;
		ev->fields |= TC_F_SCOUNTS;
	}
	if (nr) {
		ev->rcounts = r->counts + ns;
		ev->nrcounts = (uint32_t)nr;
		ev->fields |= TC_F_RCOUNTS;
	}
	if (nq) {
		TC_ALLOC_GROW(r->compl, nq, r->acompl);
		for (uint64_t j = 0; j < nq; j++) {
			struct tc_completion c;
			if (completion(r, next_value(r, vreqs), &c))
				r->compl[ev->ncompl++] = c;
		}
	} else if (has[P_REQUEST] && tc_op_kind(ev->op) == TC_K_WAIT) {
		TC_ALLOC_GROW(r->compl, 1, r->acompl);
		if (completion(r, sv[P_REQUEST], &r->compl[0]))
			ev->ncompl = 1;
	}
	if (ev->ncompl) {
		ev->compl = r->compl;
		ev->fields |= TC_F_COMPL;
	}
}

/* A nonblocking call's request enters the rank's request ring. */
static void new_request(struct st_reader *r, struct tc_event *ev)
{
	struct st_req *q;

	if (!r->ring)
		r->ring = tc_xcalloc(ST_REQ_RING, sizeof(*r->ring));
	q = &r->ring[r->nreq % ST_REQ_RING];
	r->nreq++;
	q->id = r->nreq;
	q->peer = (ev->fields & TC_F_PEER) ? ev->peer : TC_PEER_NONE;
	q->tag = (ev->fields & TC_F_TAG) ? ev->tag : TC_ANY_TAG;
	q->bytes = tc_event_bytes(ev);
	q->recv = ev->op == TC_OP_IRECV || ev->op == TC_OP_RECV_INIT;
	ev->request = q->id;
	ev->fields |= TC_F_REQUEST;
}

/* Emit rank event i: parameters, times, call site, requests. */
static int emit(struct st_reader *r, uint32_t i)
{
	const struct st_trace *t = r->t;
	const struct st_revent *re = &r->rev[i];
	const struct st_event *e = &t->ev[re->ev];
	int64_t sv[ST_NIDS];
	bool has[ST_NIDS];
	struct tc_event ev;
	unsigned kind;
	int rc;

	/* every occurrence takes the next value of each scalar parameter,
	 * also when the call is not shown */
	memset(has, 0, sizeof(has));
	for (uint32_t k = 0; k < re->nparams; k++) {
		const struct st_pv *p = &r->pv[re->param_first + k];
		if (p->id >= ST_NIDS || is_vector_param(p->id))
			continue;
		sv[p->id] = next_value(r, p->vs);
		has[p->id] = true;
	}
	tc_event_init(&ev);
	ev.t_start = r->now + stat_ns(t, e, r->prev_sig, false);
	ev.t_end = ev.t_start + stat_ns(t, e, r->prev_sig, true);
	r->now = ev.t_end;
	r->prev_sig = e->sig;
	if (e->op == TC_OP_NONE)
		return 0;
	if (++r->events > r->max_events)
		return tc_error_set(r->err, TC_ERR_FORMAT, t->path, -1,
				    "line %u: rank %d expands to more than %" PRIu64
				    " events, the cap for a file of %lld bytes",
				    e->line, r->rank, r->max_events, (long long)t->size);
	if (atomic_load_explicit(&r->t->expanded, memory_order_relaxed) + r->events > r->max_total)
		return tc_error_set(r->err, TC_ERR_FORMAT, t->path, -1,
				    "line %u: the ranks expand to more than %" PRIu64
				    " events in all, the cap for a file of %lld bytes",
				    e->line, r->max_total, (long long)t->size);
	ev.op = e->op;
	kind = tc_op_kind(e->op);
	if (e->sig != ST_SIG_NULL) {
		if ((rc = define_site(r, e->sig)))
			return rc;
		ev.callsite = e->sig;
	}
	fill_scalars(r, sv, has, &ev);
	fill_vectors(r, re, sv, has, &ev);
	if ((tc_op_flags(e->op) & TC_OPF_NB) &&
	    (kind == TC_K_SEND || kind == TC_K_RECV || kind == TC_K_PERSIST))
		new_request(r, &ev);
	if (kind == TC_K_COMM && e->op != TC_OP_COMM_FREE) {
		/* PtrHandler: each created communicator takes the next slot */
		struct tc_comm c;
		memset(&c, 0, sizeof(c));
		c.id = ST_USER_COMM + r->comm_slot;
		r->comm_slot = (r->comm_slot + 1) % ST_USER_COMM;
		c.parent = (ev.fields & TC_F_COMM) ? ev.comm : TC_COMM_WORLD;
		c.creator = e->op;
		if (r->ops->comm && r->ops->comm(r->ctx, &c))
			return TC_ERR_STOP;
		ev.newcomm = c.id;
		ev.fields |= TC_F_NEWCOMM;
	}
	if (r->stats)
		r->stats->events++;
	if (r->ops->event && r->ops->event(r->ctx, &ev))
		return TC_ERR_STOP;
	return 0;
}

static int walk_fail(struct st_reader *r, uint32_t head, const char *what)
{
	return tc_error_set(r->err, TC_ERR_FORMAT, r->t->path, -1, "line %u: rank %d: %s",
			    r->t->ev[r->rev[head].ev].line, r->rank, what);
}

/*
 * Walk loop `depth` of the loop stack of rank event `head` (LOOP0 is the
 * outermost), as Trace::traverse_recursive does: the loop covers `mem`
 * events from head and runs `iter` times; an event that heads deeper
 * loops is walked recursively. *len receives mem.
 */
static int walk(struct st_reader *r, uint32_t head, uint32_t depth, uint32_t nest,
		uint64_t *len)
{
	const struct st_revent *h = &r->rev[head];
	const struct st_lp *lp = &r->lp[h->loop_first + depth];
	int64_t mem, iter;
	uint64_t tail;
	int rc;

	if (nest > ST_MAX_NEST)
		return walk_fail(r, head, "loops nested too deeply");
	mem = next_value(r, lp->mem);
	iter = next_value(r, lp->iter);
	if (mem < 1 || (uint64_t)mem > r->nrev - head)
		return walk_fail(r, head, "loop body runs past the end of the trace");
	if (iter < 0)
		return walk_fail(r, head, "negative loop iteration count");
	tail = head + (uint64_t)mem - 1;
	*len = (uint64_t)mem;
	for (int64_t i = 0; i < iter; i++) {
		uint64_t e = head;
		bool done = false;

		while (!done) {
			uint64_t l2;
			if (++r->steps > r->max_steps)
				return walk_fail(r, head, "loops expand beyond the step limit");
			if (e == head && h->nloops > depth + 1) {
				if ((rc = walk(r, head, depth + 1, nest + 1, &l2)))
					return rc;
				e += l2 - 1;
				if (e > tail)
					return walk_fail(r, head, "inner loop crosses the end of its loop");
				if (e == tail)
					done = true;
				e++;
				if (done)
					break;
			}
			if (e != head && r->rev[e].nloops > 0) {
				if ((rc = walk(r, (uint32_t)e, 0, nest + 1, &l2)))
					return rc;
				e += l2 - 1;
				if (e > tail)
					return walk_fail(r, head,
							 "loop crosses the end of its enclosing loop");
				if (e == tail)
					done = true;
				e++;
			} else {
				if (e == tail)
					done = true;
				if ((rc = emit(r, (uint32_t)e)))
					return rc;
				e++;
			}
		}
	}
	return 0;
}

/* ---- tc_reader backend -------------------------------------------------- */

static const struct tc_raw_header *st_header(void *impl)
{
	return &((struct st_reader *)impl)->hdr;
}

static uint64_t cap_by_size(off_t size, uint64_t per_byte, uint64_t floor, uint64_t ceil)
{
	uint64_t n = (uint64_t)size > ceil / per_byte ? ceil : (uint64_t)size * per_byte;

	return n < floor ? floor : n;
}

/* How far the rank may expand (see ST_EVENTS_PER_BYTE). */
static void st_caps(struct st_reader *r)
{
	off_t size = r->t->size;

	r->max_events = cap_by_size(size, ST_EVENTS_PER_BYTE, ST_MIN_EVENTS, TC_ST_MAX_EVENTS);
	r->max_steps = r->max_events * ST_STEPS_FACTOR;
	r->max_total = cap_by_size(size, ST_TOTAL_PER_BYTE, ST_MIN_TOTAL, UINT64_MAX / 2);
}

static int st_read(void *impl, const struct tc_read_ops *ops, void *ctx,
		   struct tc_raw_stats *stats, struct tc_error *err)
{
	struct st_reader *r = impl;
	const struct st_trace *t = r->t;
	struct tc_raw_stats local;
	uint64_t e = 0;
	int rc = 0;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	stats->first_error = -1;
	/* the file's bytes are shared out between its rank streams */
	stats->file_bytes = (uint64_t)t->size / (uint64_t)t->world +
		(r->rank == 0 ? (uint64_t)t->size % (uint64_t)t->world : 0);
	stats->raw_bytes = stats->file_bytes;
	if (!r->rev) {
		build_view(r);
		r->cur = tc_xcalloc(t->nvs ? t->nvs : 1, sizeof(*r->cur));
		r->defined = tc_xcalloc(t->nsig / 8 + 1, 1);
		r->frames = tc_xmalloc(ST_MAX_FRAMES * sizeof(*r->frames));
	} else {
		memset(r->cur, 0, (t->nvs ? t->nvs : 1) * sizeof(*r->cur));
		memset(r->defined, 0, t->nsig / 8 + 1);
	}
	r->ops = ops;
	r->ctx = ctx;
	r->err = err;
	r->stats = stats;
	r->steps = r->events = r->now = 0;
	st_caps(r);
	r->prev_sig = ST_SIG_NULL;
	r->nreq = 0;
	r->comm_slot = 0;
	while (e < r->nrev) {
		if (r->rev[e].nloops) {
			uint64_t len;
			if ((rc = walk(r, (uint32_t)e, 0, 0, &len)))
				break;
			e += len;
		} else {
			if ((rc = emit(r, (uint32_t)e)))
				break;
			e++;
		}
	}
	if (t->damaged) {
		stats->bad_blocks = 1;
		snprintf(stats->first_error_msg, sizeof(stats->first_error_msg), "%s", t->damage);
	}
	if (rc == TC_ERR_FORMAT && (r->flags & TC_RAW_SALVAGE)) {
		/* salvage: the events up to a loop the damage cut short */
		if (!t->damaged && err)
			snprintf(stats->first_error_msg, sizeof(stats->first_error_msg),
				 "%.159s", err->msg);
		stats->bad_blocks = 1;
		rc = 0;
		stats->has_trailer = false;
	} else {
		stats->has_trailer = rc == 0 && !t->damaged;
	}
	stats->trailer.events = stats->events;
	stats->trailer.t_last = r->now;
	atomic_fetch_add_explicit(&r->t->expanded, r->events, memory_order_relaxed);
	return rc;
}

static void st_close(void *impl)
{
	struct st_reader *r = impl;

	st_put(r->t);
	free(r->rev);
	free(r->pv);
	free(r->lp);
	free(r->cur);
	free(r->defined);
	free(r->frames);
	free(r->ring);
	free(r->compl);
	free(r->counts);
	free(r);
}

static const struct tc_reader_vtab st_vtab = { "scalatrace", st_header, st_read, st_close };

int tc_scalatrace_open(struct tc_reader **out, const char *path, uint32_t rank,
		       unsigned flags, struct tc_error *err)
{
	struct st_trace *t;
	struct st_reader *r;
	int rc;

	*out = NULL;
	if ((rc = st_get(path, (flags & TC_RAW_SALVAGE) != 0, &t, err)))
		return rc;
	if (rank >= (uint32_t)t->world) {
		rc = tc_error_set(err, TC_ERR_USAGE, path, -1,
				  "no rank %u in this trace (world size %d)", rank, t->world);
		st_put(t);
		return rc;
	}
	r = tc_xcalloc(1, sizeof(*r));
	r->t = t;
	r->rank = (int32_t)rank;
	r->flags = flags;
	r->hdr.rank = (int32_t)rank;
	r->hdr.world_size = t->world;
	r->hdr.version_major = 2;
	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "histogram means");
	snprintf(r->hdr.writer, sizeof(r->hdr.writer), "scalatrace-v2");
	*out = tc_reader_wrap(&st_vtab, r);
	return 0;
}
