/*
 * rsd.c - intra-rank loop compression (ScalaTrace RSD/PRSD).
 *
 * The algorithm is ScalaTrace's intra-node compression (dissertation ch. 2
 * and §2.1, Scala-H-Trace §2.1): every new event is appended to the
 * top-level queue, and the tail of the queue is folded as long as one of
 * two patterns matches, trying the shortest body first:
 *
 *   1. [L, b1..bd] where L is a loop whose body equals b1..bd: the d nodes
 *      are one more iteration of L (count + 1);
 *   2. [a1..ad, b1..bd] with a == b: a new loop of 2 iterations, body a.
 *
 * Folding the tail may make the new tail foldable again (that is how loop
 * nests form: a completed inner loop followed by the rest of the outer
 * body matches the outer loop's body). Candidates are found by scanning at
 * most `window` top-level nodes back for a node whose hash equals the
 * tail's (pattern 2) or a loop whose last body node's hash equals it
 * (pattern 1); equality is then checked exactly.
 *
 * Fast path: after a loop L was formed or extended, the following events
 * are compared with L's body one by one (`pend`): while they match, no
 * search is needed, and when the body is complete the iteration is folded
 * at once. Loop bodies never change after they are made except for their
 * time statistics, into which every folded iteration is merged (§2.3 of
 * the dissertation: "statistical ... timing data (minimum, maximum,
 * average and standard deviation)"), and, when matching by call site, the
 * occurrence values of their event nodes, to which every folded iteration
 * appends its events (Scala-H-Trace §2.1: non-matching parameters
 * "compressed using a vector representation"). Appending iteration after
 * iteration keeps the occurrences of a node in the order they were fed.
 *
 * What is matched is a node's `key`: the interned event itself when
 * matching by parameters, an interned (op, call site) pair when matching
 * by call site; the structural hash of an event node is its key's hash,
 * which does not depend on the rank.
 */
#include "compat.h"
#include "rsd.h"
#include "event.h"
#include "hash.h"
#include "pack.h"
#include "strbuf.h"
#include "xalloc.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- statistics ------------------------------------------------------- */

void tc_rsd_stat_init(struct tc_rsd_stat *s)
{
	memset(s, 0, sizeof(*s));
}

void tc_rsd_stat_add(struct tc_rsd_stat *s, int64_t x)
{
	double d;

	if (!s->n || x < s->min)
		s->min = x;
	if (!s->n || x > s->max)
		s->max = x;
	s->n++;
	d = (double)x - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * ((double)x - s->mean);
}

/* tc_rsd_stat_add on an empty statistic, exactly, without its division */
static inline void stat_first(struct tc_rsd_stat *s, int64_t x)
{
	s->n = 1;
	s->min = s->max = x;
	s->mean = (double)x;
	s->m2 = 0;
}

void tc_rsd_stat_merge(struct tc_rsd_stat *s, const struct tc_rsd_stat *o)
{
	double n, d;

	if (!o->n)
		return;
	if (!s->n) {
		*s = *o;
		return;
	}
	n = (double)s->n + (double)o->n;
	d = o->mean - s->mean;
	s->mean += d * (double)o->n / n;
	s->m2 += o->m2 + d * d * (double)s->n * (double)o->n / n;
	s->n += o->n;
	if (o->min < s->min)
		s->min = o->min;
	if (o->max > s->max)
		s->max = o->max;
}

/* tc_rsd_stat_merge of a statistic holding the one value x, to the last
 * bit (o->n = 1 and o->m2 = 0 drop out exactly), without building it */
static inline void stat_merge1(struct tc_rsd_stat *s, int64_t x)
{
	double n, d;

	if (!s->n) {
		stat_first(s, x);
		return;
	}
	n = (double)s->n + 1.0;
	d = (double)x - s->mean;
	s->mean += d / n;
	s->m2 += d * d * (double)s->n / n;
	s->n++;
	if (x < s->min)
		s->min = x;
	if (x > s->max)
		s->max = x;
}

double tc_rsd_stat_stddev(const struct tc_rsd_stat *s)
{
	if (s->n < 2 || s->m2 <= 0)
		return 0;
	return sqrt(s->m2 / (double)s->n);
}

/* ---- the compressor's state ------------------------------------------- */

/* Call-site ids below SITE_DENSE (the shim numbers them from 0) are looked
 * up in a plain array, the rest in the hash table; an absent id reads 0
 * from either. */
#define SITE_DENSE 4096u

struct site_map {
	uint64_t *dense;        /* ndense entries (a power of two) */
	uint32_t ndense;
	uint32_t *ids;
	uint64_t *sigs;
	bool *used;
	size_t cap, n;
};

/* An (op, call site) pair, the key of event nodes in TC_RSD_MATCH_CALLSITE. */
struct site_key {
	uint32_t op;
	uint32_t callsite;
	uint64_t stack;
	uint64_t hash;          /* of op and stack: the same on every rank */
};

/* One event of a loop iteration in progress (see tc_rsd.it). */
struct it_rec {
	uint32_t event;
	int64_t comp, comm;
};

struct tc_rsd {
	int32_t rank;
	uint32_t window;
	int match;
	struct site_map sites;

	/* keys when matching by call site */
	struct site_key *keys;
	size_t nkeys, akeys;
	uint32_t *ktab;         /* open addressing: index + 1, 0 = empty */
	size_t kcap;

	/* distinct events, interned by content */
	struct tc_rsd_event *evs;
	size_t nevs, aevs;
	uint32_t *evtab;        /* open addressing: index + 1, 0 = empty */
	size_t evcap;

	/* the top-level queue, with the hash of each node and, for loops, the
	 * hash of the last body node (0 for events) in dense arrays */
	struct tc_rsd_node *q;
	uint64_t *qhash;
	uint64_t *qtail;
	size_t n, alloc;

	/* fast path: q[pend + 1 ..] equal the first pend_j body nodes of
	 * the loop q[pend]; pend < 0: none */
	ptrdiff_t pend;
	uint32_t pend_j;
	/* the last nit of those pend_j nodes are not in q yet: they wait
	 * here as their event and times until the iteration completes (and
	 * are folded into the loop's body) or breaks off (and are pushed) */
	struct it_rec *it;
	uint32_t nit, ait;

	/* encoding state */
	uint64_t last_req;
	uint64_t prev_end;
	/* the state a segment started from (tc_rsd_new_segment), where an
	 * iterator starts: 0 for a whole stream */
	uint64_t seg_req, seg_end;
	uint64_t nin;
	uint64_t digest;

	/* scratch for building an event */
	struct tc_rsd_compl *scratch;
	size_t ascratch;
};

/* ---- call sites ------------------------------------------------------- */

static size_t site_slot(const struct site_map *m, uint32_t id)
{
	size_t i = (size_t)tc_hash_fmix(id) & (m->cap - 1);

	while (m->used[i] && m->ids[i] != id)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void site_put(struct site_map *m, uint32_t id, uint64_t sig)
{
	size_t i;

	if (id < SITE_DENSE) {
		if (id >= m->ndense) {
			uint32_t n = m->ndense ? m->ndense : 16;
			while (n <= id)
				n *= 2;
			m->dense = tc_xrealloc(m->dense, n * sizeof(*m->dense));
			memset(m->dense + m->ndense, 0, (n - m->ndense) * sizeof(*m->dense));
			m->ndense = n;
		}
		m->dense[id] = sig;
		return;
	}

	if (2 * (m->n + 1) > m->cap) {
		struct site_map o = *m;
		m->cap = o.cap ? 2 * o.cap : 64;
		m->ids = tc_xcalloc(m->cap, sizeof(*m->ids));
		m->sigs = tc_xcalloc(m->cap, sizeof(*m->sigs));
		m->used = tc_xcalloc(m->cap, sizeof(*m->used));
		m->n = 0;
		for (size_t k = 0; k < o.cap; k++) {
			if (!o.used[k])
				continue;
			i = site_slot(m, o.ids[k]);
			m->used[i] = true;
			m->ids[i] = o.ids[k];
			m->sigs[i] = o.sigs[k];
			m->n++;
		}
		free(o.ids);
		free(o.sigs);
		free(o.used);
	}
	i = site_slot(m, id);
	if (!m->used[i]) {
		m->used[i] = true;
		m->ids[i] = id;
		m->n++;
	}
	m->sigs[i] = sig;
}

static uint64_t site_get(const struct site_map *m, uint32_t id)
{
	size_t i;

	if (id < SITE_DENSE)
		return id < m->ndense ? m->dense[id] : 0;
	if (!m->cap)
		return 0;
	i = site_slot(m, id);
	return m->used[i] ? m->sigs[i] : 0;
}

void tc_rsd_set_callsite(struct tc_rsd *r, uint32_t id, uint64_t signature)
{
	site_put(&r->sites, id, signature);
}

/* ---- events ----------------------------------------------------------- */

static int64_t rel_req(uint64_t id, uint64_t last)
{
	return id ? (int64_t)(id - last) : TC_RSD_NOREQ;
}

static uint64_t abs_req(int64_t rel, uint64_t last)
{
	return rel == TC_RSD_NOREQ ? 0 : last + (uint64_t)rel;
}

/* A cheap order-dependent combine for the many fields of an event; the
 * result goes through tc_hash_fmix once. */
static inline uint64_t ev_mix(uint64_t h, uint64_t v)
{
	h ^= v * 0x9e3779b97f4a7c15ULL;
	h = (h << 27 | h >> 37) * 0xc2b2ae3d27d4eb4fULL;
	return h;
}

static uint64_t event_hash(const struct tc_rsd_event *e)
{
	uint64_t h = 0x72736465766e74ULL; /* "rsdevnt" */

	h = ev_mix(h, e->op | (uint64_t)e->fields << 32);
	h = ev_mix(h, e->stack);
	h = ev_mix(h, e->comm | (uint64_t)e->newcomm << 32);
	h = ev_mix(h, (uint64_t)e->peer);
	h = ev_mix(h, (uint64_t)e->rpeer);
	h = ev_mix(h, (uint32_t)e->tag | (uint64_t)(uint32_t)e->rtag << 32);
	h = ev_mix(h, e->count);
	h = ev_mix(h, e->dtype | (uint64_t)e->dtype_size << 32);
	h = ev_mix(h, e->bytes);
	h = ev_mix(h, e->redop | (uint64_t)(uint32_t)e->root << 32);
	h = ev_mix(h, (uint32_t)e->color | (uint64_t)(uint32_t)e->key << 32);
	h = ev_mix(h, (uint64_t)e->request);
	h = ev_mix(h, e->file | (uint64_t)(uint32_t)e->result << 32);
	h = ev_mix(h, e->offset);
	h = ev_mix(h, e->ncompl | (uint64_t)e->nscounts << 32);
	h = ev_mix(h, e->nrcounts);
	for (uint32_t i = 0; i < e->ncompl; i++) {
		h = ev_mix(h, (uint64_t)e->compl[i].request);
		h = ev_mix(h, (uint64_t)e->compl[i].source);
		h = ev_mix(h, (uint32_t)e->compl[i].tag);
		h = ev_mix(h, e->compl[i].bytes);
	}
	for (uint32_t i = 0; i < e->nscounts; i++)
		h = ev_mix(h, e->scounts[i]);
	for (uint32_t i = 0; i < e->nrcounts; i++)
		h = ev_mix(h, e->rcounts[i]);
	return tc_hash_fmix(h);
}

/* The scalar fields of two events equal, without a branch per field:
 * each field read as it was written (a wider load across the fresh
 * event's separate stores would stall on store forwarding). */
static inline bool block_equal(const struct tc_rsd_event *a, const struct tc_rsd_event *b)
{
	uint64_t d;

	d = (uint64_t)(a->op ^ b->op) | (a->fields ^ b->fields) | (a->comm ^ b->comm);
	d |= (uint32_t)(a->tag ^ b->tag) | (uint32_t)(a->rtag ^ b->rtag);
	d |= (a->dtype ^ b->dtype) | (a->dtype_size ^ b->dtype_size) | (a->redop ^ b->redop);
	d |= (uint32_t)(a->root ^ b->root) | (uint32_t)(a->color ^ b->color) |
	     (uint32_t)(a->key ^ b->key);
	d |= (a->newcomm ^ b->newcomm) | (a->file ^ b->file) | (uint32_t)(a->result ^ b->result);
	d |= (a->ncompl ^ b->ncompl) | (a->nscounts ^ b->nscounts) | (a->nrcounts ^ b->nrcounts);
	d |= (a->stack ^ b->stack) | (uint64_t)(a->peer ^ b->peer) | (uint64_t)(a->rpeer ^ b->rpeer);
	d |= (a->count ^ b->count) | (a->bytes ^ b->bytes) | (uint64_t)(a->request ^ b->request);
	d |= a->offset ^ b->offset;
	return !d;
}

/* Equal in everything but the file-local call-site id and the hash. */
static bool fields_equal(const struct tc_rsd_event *a, const struct tc_rsd_event *b)
{
	if (!block_equal(a, b))
		return false;
	for (uint32_t i = 0; i < a->ncompl; i++) {
		const struct tc_rsd_compl *x = &a->compl[i], *y = &b->compl[i];
		if (x->request != y->request || x->source != y->source ||
		    x->tag != y->tag || x->bytes != y->bytes)
			return false;
	}
	if (a->nscounts && memcmp(a->scounts, b->scounts, a->nscounts * sizeof(uint64_t)))
		return false;
	if (a->nrcounts && memcmp(a->rcounts, b->rcounts, a->nrcounts * sizeof(uint64_t)))
		return false;
	return true;
}

bool tc_rsd_event_equal(const struct tc_rsd_event *a, const struct tc_rsd_event *b)
{
	return a->hash == b->hash && fields_equal(a, b);
}

static bool event_same(const struct tc_rsd_event *a, const struct tc_rsd_event *b)
{
	return a->callsite == b->callsite && tc_rsd_event_equal(a, b);
}

/* Fill e from ev in relative terms, all but the hash; arrays point into
 * scratch and ev. */
static void event_encode(struct tc_rsd *r, const struct tc_event *ev, struct tc_rsd_event *e)
{
	uint32_t f = ev->fields;

	/* every field set here: a memset of the whole event costs more than
	 * the rest of the encoding on a regular loop */
	e->dtype = 0;
	e->dtype_size = 0;
	e->file = 0;
	e->offset = 0;
	e->request = 0;
	e->ncompl = 0;
	e->compl = NULL;
	e->nscounts = 0;
	e->scounts = NULL;
	e->nrcounts = 0;
	e->rcounts = NULL;
	e->hash = 0;
	e->op = ev->op;
	e->fields = f;
	e->callsite = ev->callsite;
	e->stack = ev->callsite == TC_NO_CALLSITE ? 0 : site_get(&r->sites, ev->callsite);
	e->comm = (f & TC_F_COMM) ? ev->comm : 0;
	e->peer = tc_rel_peer((f & TC_F_PEER) ? ev->peer : TC_PEER_NONE, r->rank);
	e->tag = (f & TC_F_TAG) ? ev->tag : 0;
	e->rpeer = tc_rel_peer((f & TC_F_RPEER) ? ev->rpeer : TC_PEER_NONE, r->rank);
	e->rtag = (f & TC_F_RPEER) ? ev->rtag : 0;
	e->count = (f & TC_F_COUNT) ? ev->count : 0;
	if (f & TC_F_DTYPE) {
		e->dtype = ev->dtype;
		e->dtype_size = ev->dtype_size;
	}
	e->bytes = (f & TC_F_BYTES) ? ev->bytes : 0;
	e->redop = (f & TC_F_REDOP) ? ev->redop : 0;
	e->root = (f & TC_F_ROOT) ? ev->root : TC_PEER_NONE;
	e->color = (f & TC_F_COLOR) ? ev->color : TC_UNDEFINED;
	e->key = (f & TC_F_COLOR) ? ev->key : 0;
	e->newcomm = (f & TC_F_NEWCOMM) ? ev->newcomm : 0;
	if (f & TC_F_FILE) {
		e->file = ev->file;
		e->offset = ev->offset;
	}
	e->result = (f & TC_F_RESULT) ? ev->result : 0;
	/* completions are relative to the last request before this event */
	if ((f & TC_F_COMPL) && ev->ncompl && ev->compl) {
		struct tc_rsd_compl *c;
		TC_ALLOC_GROW(r->scratch, ev->ncompl, r->ascratch);
		c = r->scratch;
		for (uint32_t i = 0; i < ev->ncompl; i++) {
			c[i].request = rel_req(ev->compl[i].request, r->last_req);
			c[i].source = tc_rel_peer(ev->compl[i].source, r->rank);
			c[i].tag = ev->compl[i].tag;
			c[i].bytes = ev->compl[i].bytes;
		}
		e->ncompl = ev->ncompl;
		e->compl = c;
	}
	if (f & TC_F_REQUEST) {
		e->request = rel_req(ev->request, r->last_req);
		if (ev->request)
			r->last_req = ev->request;
	}
	if ((f & TC_F_SCOUNTS) && ev->nscounts && ev->scounts) {
		e->nscounts = ev->nscounts;
		e->scounts = ev->scounts;
	}
	if ((f & TC_F_RCOUNTS) && ev->nrcounts && ev->rcounts) {
		e->nrcounts = ev->nrcounts;
		e->rcounts = ev->rcounts;
	}
}

/*
 * Whether event_encode(r, ev) would give an event equal to x in every
 * field and call site (event_same but for the hash), without building it
 * and without event_encode's one side effect (the previous request id):
 * in a loop the next event mostly repeats the body's, and the compare
 * costs half what the encoding and the compare of its result do. Field by
 * field as event_encode fills them; the two must agree.
 */
static bool encode_same(const struct tc_rsd *r, const struct tc_event *ev,
			const struct tc_rsd_event *x)
{
	uint32_t f = ev->fields;
	uint32_t nc = (f & TC_F_COMPL) && ev->ncompl && ev->compl ? ev->ncompl : 0;
	uint32_t ns = (f & TC_F_SCOUNTS) && ev->nscounts && ev->scounts ? ev->nscounts : 0;
	uint32_t nr = (f & TC_F_RCOUNTS) && ev->nrcounts && ev->rcounts ? ev->nrcounts : 0;
	uint64_t d;

	d = (uint64_t)(x->op ^ ev->op) | (x->fields ^ f) | (x->callsite ^ ev->callsite);
	d |= (x->ncompl ^ nc) | (x->nscounts ^ ns) | (x->nrcounts ^ nr);
	if (d)
		return false;
	d = x->stack ^ (ev->callsite == TC_NO_CALLSITE ? 0 : site_get(&r->sites, ev->callsite));
	d |= x->comm ^ ((f & TC_F_COMM) ? ev->comm : 0);
	d |= (uint64_t)(x->peer ^ tc_rel_peer((f & TC_F_PEER) ? ev->peer : TC_PEER_NONE, r->rank));
	d |= (uint32_t)(x->tag ^ ((f & TC_F_TAG) ? ev->tag : 0));
	d |= (uint64_t)(x->rpeer ^
			tc_rel_peer((f & TC_F_RPEER) ? ev->rpeer : TC_PEER_NONE, r->rank));
	d |= (uint32_t)(x->rtag ^ ((f & TC_F_RPEER) ? ev->rtag : 0));
	d |= x->count ^ ((f & TC_F_COUNT) ? ev->count : 0);
	d |= x->dtype ^ ((f & TC_F_DTYPE) ? ev->dtype : 0);
	d |= x->dtype_size ^ ((f & TC_F_DTYPE) ? ev->dtype_size : 0);
	d |= x->bytes ^ ((f & TC_F_BYTES) ? ev->bytes : 0);
	d |= x->redop ^ ((f & TC_F_REDOP) ? ev->redop : 0);
	d |= (uint32_t)(x->root ^ ((f & TC_F_ROOT) ? ev->root : TC_PEER_NONE));
	d |= (uint32_t)(x->color ^ ((f & TC_F_COLOR) ? ev->color : TC_UNDEFINED));
	d |= (uint32_t)(x->key ^ ((f & TC_F_COLOR) ? ev->key : 0));
	d |= x->newcomm ^ ((f & TC_F_NEWCOMM) ? ev->newcomm : 0);
	d |= x->file ^ ((f & TC_F_FILE) ? ev->file : 0);
	d |= x->offset ^ ((f & TC_F_FILE) ? ev->offset : 0);
	d |= (uint32_t)(x->result ^ ((f & TC_F_RESULT) ? ev->result : 0));
	d |= (uint64_t)(x->request ^ ((f & TC_F_REQUEST) ? rel_req(ev->request, r->last_req) : 0));
	if (d)
		return false;
	for (uint32_t i = 0; i < nc; i++) {
		const struct tc_rsd_compl *a = &x->compl[i];
		const struct tc_completion *b = &ev->compl[i];
		if (a->request != rel_req(b->request, r->last_req) ||
		    a->source != tc_rel_peer(b->source, r->rank) || a->tag != b->tag ||
		    a->bytes != b->bytes)
			return false;
	}
	return (!ns || !memcmp(x->scounts, ev->scounts, ns * sizeof(uint64_t))) &&
	       (!nr || !memcmp(x->rcounts, ev->rcounts, nr * sizeof(uint64_t)));
}

static void *dup_array(const void *p, size_t n, size_t size)
{
	void *q;

	if (!n)
		return NULL;
	q = tc_xmalloc(tc_st_mult(n, size));
	memcpy(q, p, n * size);
	return q;
}

static void evtab_insert(struct tc_rsd *r, uint32_t idx)
{
	size_t i = (size_t)r->evs[idx].hash & (r->evcap - 1);

	while (r->evtab[i])
		i = (i + 1) & (r->evcap - 1);
	r->evtab[i] = idx + 1;
}

static uint32_t intern(struct tc_rsd *r, const struct tc_rsd_event *e)
{
	struct tc_rsd_event *k;
	size_t i;

	if (r->evcap) {
		for (i = (size_t)e->hash & (r->evcap - 1); r->evtab[i];
		     i = (i + 1) & (r->evcap - 1)) {
			uint32_t idx = r->evtab[i] - 1;
			if (event_same(&r->evs[idx], e))
				return idx;
		}
	}
	if (2 * (r->nevs + 1) > r->evcap) {
		free(r->evtab);
		r->evcap = r->evcap ? 2 * r->evcap : 256;
		r->evtab = tc_xcalloc(r->evcap, sizeof(*r->evtab));
		for (size_t j = 0; j < r->nevs; j++)
			evtab_insert(r, (uint32_t)j);
	}
	TC_ALLOC_GROW(r->evs, r->nevs + 1, r->aevs);
	k = &r->evs[r->nevs];
	*k = *e;
	k->compl = dup_array(e->compl, e->ncompl, sizeof(*e->compl));
	k->scounts = dup_array(e->scounts, e->nscounts, sizeof(uint64_t));
	k->rcounts = dup_array(e->rcounts, e->nrcounts, sizeof(uint64_t));
	evtab_insert(r, (uint32_t)r->nevs);
	return (uint32_t)r->nevs++;
}

static uint64_t site_key_hash(uint32_t op, uint64_t stack)
{
	return tc_hash_mix(tc_hash_mix(0x736974656b6579ULL /* "sitekey" */, op), stack);
}

static void ktab_insert(struct tc_rsd *r, uint32_t idx)
{
	size_t i = (size_t)r->keys[idx].hash & (r->kcap - 1);

	while (r->ktab[i])
		i = (i + 1) & (r->kcap - 1);
	r->ktab[i] = idx + 1;
}

static bool key_is(const struct site_key *k, const struct tc_rsd_event *e)
{
	return k->op == e->op && k->callsite == e->callsite && k->stack == e->stack;
}

static uint32_t intern_key(struct tc_rsd *r, const struct tc_rsd_event *e)
{
	uint64_t h = site_key_hash(e->op, e->stack);
	struct site_key *k;

	if (r->kcap) {
		for (size_t i = (size_t)h & (r->kcap - 1); r->ktab[i]; i = (i + 1) & (r->kcap - 1))
			if (key_is(&r->keys[r->ktab[i] - 1], e))
				return r->ktab[i] - 1;
	}
	if (2 * (r->nkeys + 1) > r->kcap) {
		free(r->ktab);
		r->kcap = r->kcap ? 2 * r->kcap : 64;
		r->ktab = tc_xcalloc(r->kcap, sizeof(*r->ktab));
		for (size_t j = 0; j < r->nkeys; j++)
			ktab_insert(r, (uint32_t)j);
	}
	TC_ALLOC_GROW(r->keys, r->nkeys + 1, r->akeys);
	k = &r->keys[r->nkeys];
	k->op = e->op;
	k->callsite = e->callsite;
	k->stack = e->stack;
	k->hash = h;
	ktab_insert(r, (uint32_t)r->nkeys);
	return (uint32_t)r->nkeys++;
}

/* ---- occurrence values ------------------------------------------------ */

/*
 * The events of an event node's occurrences, in order, when they differ
 * (TC_RSD_MATCH_CALLSITE). A sequence of entries, each either one event
 * repeated `reps` times or a chunk (itself such a sequence) repeated
 * `reps` times. Folding a loop iteration appends the iteration's values
 * as one chunk; a chunk equal to the last one only counts up its reps, so
 * values that repeat with a loop (a loop over neighbours from one call
 * site) stay as small as the loop, and only values that really change
 * (message sizes that vary from step to step) take room per change.
 */
struct vent {
	uint64_t end;            /* occurrences up to and including this entry */
	uint64_t reps;
	uint32_t event;          /* when !chunk */
	struct tc_rsd_vals *chunk;
};

struct tc_rsd_vals {
	struct vent *e;
	uint32_t n, alloc;
	uint64_t len;            /* occurrences */
};

static void vals_free(struct tc_rsd_vals *v)
{
	if (!v)
		return;
	for (uint32_t i = 0; i < v->n; i++)
		vals_free(v->e[i].chunk);
	free(v->e);
	free(v);
}

static struct vent *vals_push(struct tc_rsd_vals *v)
{
	struct vent *e;

	if (v->n == v->alloc) {
		v->alloc = v->alloc ? 2 * v->alloc : 4;
		v->e = tc_xrealloc(v->e, tc_st_mult(v->alloc, sizeof(*v->e)));
	}
	e = &v->e[v->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

/* n more occurrences of event. */
static void vals_add_event(struct tc_rsd_vals *v, uint32_t event, uint64_t n)
{
	struct vent *e = v->n ? &v->e[v->n - 1] : NULL;

	if (!e || e->chunk || e->event != event) {
		e = vals_push(v);
		e->event = event;
	}
	e->reps += n;
	v->len += n;
	e->end = v->len;
}

/* Same values in the same representation (within one compressor). */
static bool vals_same(const struct tc_rsd_vals *a, const struct tc_rsd_vals *b)
{
	if (a->n != b->n || a->len != b->len)
		return false;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct vent *x = &a->e[i], *y = &b->e[i];
		if (x->reps != y->reps || !x->chunk != !y->chunk)
			return false;
		if (x->chunk ? !vals_same(x->chunk, y->chunk) : x->event != y->event)
			return false;
	}
	return true;
}

/* Append the values c (stolen) as one chunk. */
static void vals_add_chunk(struct tc_rsd_vals *v, struct tc_rsd_vals *c)
{
	struct vent *e = v->n ? &v->e[v->n - 1] : NULL;

	if (c->n == 1 && !c->e[0].chunk) {
		vals_add_event(v, c->e[0].event, c->e[0].reps);
		vals_free(c);
		return;
	}
	if (e && e->chunk && vals_same(e->chunk, c)) {
		e->reps++;
		v->len += c->len;
		e->end = v->len;
		vals_free(c);
		return;
	}
	e = vals_push(v);
	e->chunk = c;
	e->reps = 1;
	v->len += c->len;
	e->end = v->len;
}

static uint32_t vals_at(const struct tc_rsd_vals *v, uint64_t occ)
{
	for (;;) {
		uint32_t lo = 0, hi = v->n - 1;
		const struct vent *e;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (v->e[mid].end > occ)
				hi = mid;
			else
				lo = mid + 1;
		}
		e = &v->e[lo];
		if (!e->chunk)
			return e->event;
		occ = (occ - (lo ? v->e[lo - 1].end : 0)) % e->chunk->len;
		v = e->chunk;
	}
}

uint32_t tc_rsd_event_at(const struct tc_rsd_node *nd, uint64_t occ)
{
	return nd->vals ? vals_at(nd->vals, occ) : nd->event;
}

static void vals_visit(const struct tc_rsd_vals *v, uint64_t mult, tc_rsd_occ_fn fn, void *ctx)
{
	for (uint32_t i = 0; i < v->n; i++) {
		if (v->e[i].chunk)
			vals_visit(v->e[i].chunk, mult * v->e[i].reps, fn, ctx);
		else
			fn(ctx, v->e[i].event, mult * v->e[i].reps);
	}
}

void tc_rsd_node_events(const struct tc_rsd_node *nd, tc_rsd_occ_fn fn, void *ctx)
{
	if (nd->vals)
		vals_visit(nd->vals, 1, fn, ctx);
	else
		fn(ctx, nd->event, nd->comp.n);
}

static void vals_walk(const struct tc_rsd_vals *v, const struct tc_rsd_walk_ops *ops, void *ctx)
{
	for (uint32_t i = 0; i < v->n; i++) {
		if (!v->e[i].chunk) {
			ops->run(ctx, v->e[i].event, v->e[i].reps);
			continue;
		}
		ops->begin(ctx, v->e[i].reps);
		vals_walk(v->e[i].chunk, ops, ctx);
		ops->end(ctx);
	}
}

void tc_rsd_node_walk(const struct tc_rsd_node *nd, const struct tc_rsd_walk_ops *ops,
		      void *ctx)
{
	if (nd->vals)
		vals_walk(nd->vals, ops, ctx);
	else
		ops->run(ctx, nd->event, nd->comp.n);
}

/* Append the occurrences of src (an event node with the same key) to dst,
 * before their time statistics are merged; src's values are taken. */
static void occ_append(struct tc_rsd_node *dst, struct tc_rsd_node *src)
{
	if (!dst->vals && !src->vals && dst->event == src->event)
		return;
	if (!dst->vals) {
		dst->vals = tc_xcalloc(1, sizeof(*dst->vals));
		vals_add_event(dst->vals, dst->event, dst->comp.n);
	}
	if (!src->vals) {
		vals_add_event(dst->vals, src->event, src->comp.n);
		return;
	}
	vals_add_chunk(dst->vals, src->vals);
	src->vals = NULL;
}

/* ---- nodes ------------------------------------------------------------ */

/* A loop's hash from its iterations and its body's hash (nd->key of a
 * loop), computed once: folding an iteration in changes neither the body's
 * structure nor its events' keys. */
static uint32_t body_hash(const struct tc_rsd_node *body, uint32_t nbody)
{
	uint64_t h = tc_hash_mix(0x626f6479ULL /* "body" */, nbody);

	for (uint32_t i = 0; i < nbody; i++)
		h = tc_hash_mix(h, body[i].hash);
	return (uint32_t)(h ^ h >> 32);
}

static uint64_t loop_hash(uint64_t iters, uint32_t bhash)
{
	return tc_hash_mix(tc_hash_mix(0x6c6f6f70ULL /* "loop" */, iters), bhash);
}

static void node_release(struct tc_rsd_node *nd)
{
	if (!nd->nbody) {
		vals_free(nd->vals);
		nd->vals = NULL;
		return;
	}
	for (uint32_t i = 0; i < nd->nbody; i++)
		node_release(&nd->body[i]);
	free(nd->body);
	nd->body = NULL;
	nd->nbody = 0;
}

/* Same structure and events within one compressor (times aside). */
static bool node_same(const struct tc_rsd_node *a, const struct tc_rsd_node *b)
{
	if (a->hash != b->hash || a->nbody != b->nbody)
		return false;
	if (!a->nbody)
		return a->key == b->key;
	if (a->iters != b->iters)
		return false;
	for (uint32_t i = 0; i < a->nbody; i++)
		if (!node_same(&a->body[i], &b->body[i]))
			return false;
	return true;
}

static bool seq_same(const struct tc_rsd_node *a, const struct tc_rsd_node *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].hash != b[i].hash)
			return false;
	for (size_t i = 0; i < n; i++)
		if (!node_same(&a[i], &b[i]))
			return false;
	return true;
}

/* Fold src, a later repetition of dst, into dst: its events and times
 * (src is released afterwards). */
static void node_merge(struct tc_rsd_node *dst, struct tc_rsd_node *src)
{
	if (!dst->nbody) {
		occ_append(dst, src);
		tc_rsd_stat_merge(&dst->comp, &src->comp);
		tc_rsd_stat_merge(&dst->comm, &src->comm);
		return;
	}
	for (uint32_t i = 0; i < dst->nbody; i++)
		node_merge(&dst->body[i], &src->body[i]);
}

/* ---- the queue -------------------------------------------------------- */

static void q_set(struct tc_rsd *r, size_t i)
{
	const struct tc_rsd_node *nd = &r->q[i];

	r->qhash[i] = nd->hash;
	r->qtail[i] = nd->nbody ? nd->body[nd->nbody - 1].hash : 0;
}

static void q_push(struct tc_rsd *r, const struct tc_rsd_node *nd)
{
	if (r->n + 1 > r->alloc) {
		size_t a = r->alloc;
		TC_ALLOC_GROW(r->q, r->n + 1, a);
		r->qhash = tc_xrealloc(r->qhash, tc_st_mult(a, sizeof(uint64_t)));
		r->qtail = tc_xrealloc(r->qtail, tc_st_mult(a, sizeof(uint64_t)));
		r->alloc = a;
	}
	r->q[r->n] = *nd;
	q_set(r, r->n);
	r->n++;
}

/* Fold a waiting occurrence into the event node it repeats: what
 * node_merge does with a one-occurrence node, without the node. */
static void rec_merge(struct tc_rsd_node *dst, const struct it_rec *rec)
{
	if (dst->vals || dst->event != rec->event) {
		if (!dst->vals) {
			dst->vals = tc_xcalloc(1, sizeof(*dst->vals));
			vals_add_event(dst->vals, dst->event, dst->comp.n);
		}
		vals_add_event(dst->vals, rec->event, 1);
	}
	stat_merge1(&dst->comp, rec->comp);
	stat_merge1(&dst->comm, rec->comm);
}

/* Push the waiting occurrences of the iteration in progress onto q, as
 * the nodes tc_rsd_add would have pushed. */
static void it_push(struct tc_rsd *r)
{
	uint32_t first = r->pend_j - r->nit, n = r->nit;

	r->nit = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct tc_rsd_node *b = &r->q[r->pend].body[first + i];
		struct tc_rsd_node nd;

		memset(&nd, 0, sizeof(nd));
		nd.iters = 1;
		nd.hash = b->hash;
		nd.event = r->it[i].event;
		nd.key = b->key;
		stat_first(&nd.comp, r->it[i].comp);
		stat_first(&nd.comm, r->it[i].comm);
		q_push(r, &nd);
	}
}

void tc_rsd_settle(struct tc_rsd *r)
{
	if (r->nit)
		it_push(r);
}

/* Readers see every event added: a sequence still being built is settled
 * by its owner's first read (tc_rsd_settle it before sharing it). */
static void settled(const struct tc_rsd *r)
{
	if (r->nit)
		tc_rsd_settle((struct tc_rsd *)r);
}

/* Pattern 1: q[j + 1 ..] and the waiting occurrences (d nodes in all) are
 * one more iteration of loop q[j]. */
static void extend_loop(struct tc_rsd *r, size_t j, size_t d)
{
	struct tc_rsd_node *L = &r->q[j];
	size_t nq = d - r->nit;

	for (size_t i = 0; i < nq; i++) {
		node_merge(&L->body[i], &r->q[j + 1 + i]);
		node_release(&r->q[j + 1 + i]);
	}
	for (size_t i = nq; i < d; i++)
		rec_merge(&L->body[i], &r->it[i - nq]);
	r->nit = 0;
	r->n = j + 1;
	L->iters++;
	L->hash = loop_hash(L->iters, L->key);
	q_set(r, j);
	r->pend = (ptrdiff_t)j;
	r->pend_j = 0;
}

/* Pattern 2: q[s .. s + d - 1] equals q[s + d .. s + 2d - 1]: a new loop. */
static void make_loop(struct tc_rsd *r, size_t s, size_t d)
{
	struct tc_rsd_node L;

	memset(&L, 0, sizeof(L));
	L.iters = 2;
	L.nbody = (uint32_t)d;
	L.body = tc_xmalloc(tc_st_mult(d, sizeof(*L.body)));
	memcpy(L.body, &r->q[s], d * sizeof(*L.body));
	for (size_t i = 0; i < d; i++) {
		node_merge(&L.body[i], &r->q[s + d + i]);
		node_release(&r->q[s + d + i]);
	}
	L.key = body_hash(L.body, L.nbody);
	L.hash = loop_hash(L.iters, L.key);
	r->n = s;
	q_push(r, &L);
	r->pend = (ptrdiff_t)s;
	r->pend_j = 0;
}

/* One folding step at the tail; false when nothing matches. */
static bool fold_tail(struct tc_rsd *r)
{
	size_t n = r->n, lo;
	uint64_t h;

	if (n < 2)
		return false;
	h = r->qhash[n - 1];
	lo = n - 1 > r->window ? n - 1 - r->window : 0;
	for (size_t j = n - 1; j-- > lo;) {
		size_t d = n - 1 - j;
		if (r->qtail[j] == h && r->q[j].nbody == d &&
		    seq_same(r->q[j].body, &r->q[j + 1], d)) {
			extend_loop(r, j, d);
			return true;
		}
		if (r->qhash[j] == h && 2 * d <= n &&
		    seq_same(&r->q[n - 2 * d], &r->q[n - d], d)) {
			make_loop(r, n - 2 * d, d);
			return true;
		}
	}
	return false;
}

/* The running fingerprint of the events in order (tc_rsd_digest): event
 * hashes are already mixed, so a multiply and a rotation per event do (a
 * full tc_hash_mix sat on the critical path of every event). */
static inline uint64_t digest_step(uint64_t d, uint64_t h)
{
	d = (d ^ h) * 0x9e3779b97f4a7c15ULL;
	return d << 31 | d >> 33;
}

void tc_rsd_add(struct tc_rsd *r, const struct tc_event *ev)
{
	struct tc_rsd_event e;
	struct tc_rsd_node nd;
	uint32_t key, evi;
	int64_t comp = (int64_t)(ev->t_start - r->prev_end);
	int64_t comm = (int64_t)(ev->t_end - ev->t_start);

	/* in a loop, the next event is most likely the one the body has
	 * next: compare with it directly and skip encoding, hashing and
	 * interning */
	key = evi = UINT32_MAX;
	if (r->pend >= 0) {
		const struct tc_rsd_node *want = &r->q[r->pend].body[r->pend_j];
		uint32_t last = want->nbody || r->match == TC_RSD_MATCH_PARAMS || !want->vals
					? want->event
					: tc_rsd_event_at(want, want->comp.n - 1);
		if (!want->nbody && encode_same(r, ev, &r->evs[last])) {
			key = r->match == TC_RSD_MATCH_PARAMS ? last : want->key;
			evi = last;
			if ((ev->fields & TC_F_REQUEST) && ev->request)
				r->last_req = ev->request;
			goto known;
		}
	}
	event_encode(r, ev, &e);
	if (r->pend >= 0) {
		const struct tc_rsd_node *want = &r->q[r->pend].body[r->pend_j];
		if (want->nbody) {
			/* a loop: cannot match one event */
		} else if (r->match == TC_RSD_MATCH_PARAMS) {
			if (r->evs[want->event].callsite == e.callsite &&
			    fields_equal(&r->evs[want->event], &e))
				key = evi = want->event;
		} else if (key_is(&r->keys[want->key], &e)) {
			/* most likely the same values as last time round */
			uint32_t last = want->vals ? tc_rsd_event_at(want, want->comp.n - 1)
						   : want->event;
			key = want->key;
			if (r->evs[last].callsite == e.callsite && fields_equal(&r->evs[last], &e))
				evi = last;
		}
		if (key == UINT32_MAX) {
			it_push(r);
			r->pend = -1;
		}
	}
	if (evi == UINT32_MAX) {
		e.hash = event_hash(&e);
		evi = intern(r, &e);
	}
	if (key == UINT32_MAX)
		key = r->match == TC_RSD_MATCH_PARAMS ? evi : intern_key(r, &e);
known:
	r->prev_end = ev->t_end;
	r->nin++;
	r->digest = digest_step(r->digest, r->evs[evi].hash);

	if (r->pend >= 0) {
		/* the iteration goes on: the occurrence waits for its end */
		TC_ALLOC_GROW(r->it, r->nit + 1, r->ait);
		r->it[r->nit].event = evi;
		r->it[r->nit].comp = comp;
		r->it[r->nit].comm = comm;
		r->nit++;
		if (++r->pend_j < r->q[r->pend].nbody)
			return;
		extend_loop(r, (size_t)r->pend, r->pend_j);
		while (fold_tail(r))
			;
		return;
	}
	nd.iters = 1;
	nd.nbody = 0;
	nd.vals = NULL;
	nd.body = NULL;
	nd.event = evi;
	nd.key = key;
	nd.hash = r->match == TC_RSD_MATCH_PARAMS ? r->evs[evi].hash : r->keys[key].hash;
	stat_first(&nd.comp, comp);
	stat_first(&nd.comm, comm);
	q_push(r, &nd);
	while (fold_tail(r))
		;
}

/* ---- life cycle and queries ------------------------------------------- */

struct tc_rsd *tc_rsd_new(int32_t rank, const struct tc_rsd_opts *opts)
{
	struct tc_rsd *r = tc_xcalloc(1, sizeof(*r));

	r->rank = rank;
	r->window = opts && opts->window ? opts->window : TC_RSD_WINDOW_DEFAULT;
	r->match = opts && opts->match == TC_RSD_MATCH_PARAMS ? TC_RSD_MATCH_PARAMS
							       : TC_RSD_MATCH_CALLSITE;
	if (r->window > TC_RSD_WINDOW_MAX)
		r->window = TC_RSD_WINDOW_MAX;
	r->pend = -1;
	r->digest = 0x646967657374ULL; /* "digest" */
	return r;
}

struct tc_rsd *tc_rsd_new_like(const struct tc_rsd *r)
{
	struct tc_rsd_opts o = { r->window, r->match };
	struct tc_rsd *n = tc_rsd_new(r->rank, &o);

	n->sites.dense = dup_array(r->sites.dense, r->sites.ndense, sizeof(*r->sites.dense));
	n->sites.ndense = r->sites.ndense;
	for (size_t i = 0; i < r->sites.cap; i++)
		if (r->sites.used[i])
			site_put(&n->sites, r->sites.ids[i], r->sites.sigs[i]);
	return n;
}

struct tc_rsd *tc_rsd_new_segment(const struct tc_rsd *r)
{
	struct tc_rsd *n = tc_rsd_new_like(r);

	n->last_req = n->seg_req = r->last_req;
	n->prev_end = n->seg_end = r->prev_end;
	return n;
}

void tc_rsd_free(struct tc_rsd **rp)
{
	struct tc_rsd *r = *rp;

	if (!r)
		return;
	*rp = NULL;
	for (size_t i = 0; i < r->n; i++)
		node_release(&r->q[i]);
	free(r->q);
	free(r->qhash);
	free(r->qtail);
	for (size_t i = 0; i < r->nevs; i++) {
		free((void *)r->evs[i].compl);
		free((void *)r->evs[i].scounts);
		free((void *)r->evs[i].rcounts);
	}
	free(r->evs);
	free(r->evtab);
	free(r->keys);
	free(r->ktab);
	free(r->sites.dense);
	free(r->sites.ids);
	free(r->sites.sigs);
	free(r->sites.used);
	free(r->scratch);
	free(r->it);
	free(r);
}

const char *tc_rsd_match_name(int match)
{
	return match == TC_RSD_MATCH_PARAMS ? "params" : "callsite";
}

int tc_rsd_match_from_name(const char *name)
{
	if (!strcmp(name, "params"))
		return TC_RSD_MATCH_PARAMS;
	if (!strcmp(name, "callsite"))
		return TC_RSD_MATCH_CALLSITE;
	return -1;
}

int32_t tc_rsd_rank(const struct tc_rsd *r)
{
	return r->rank;
}

const struct tc_rsd_node *tc_rsd_seq(const struct tc_rsd *r, size_t *n)
{
	settled(r);
	*n = r->n;
	return r->q;
}

const struct tc_rsd_event *tc_rsd_event(const struct tc_rsd *r, uint32_t i)
{
	return i < r->nevs ? &r->evs[i] : NULL;
}

uint32_t tc_rsd_nevents(const struct tc_rsd *r)
{
	return (uint32_t)r->nevs;
}

static uint64_t vals_size(const struct tc_rsd_vals *v)
{
	uint64_t n = v->n;

	for (uint32_t i = 0; i < v->n; i++)
		if (v->e[i].chunk)
			n += vals_size(v->e[i].chunk);
	return n;
}

static void count_nodes(const struct tc_rsd_node *seq, size_t n, uint32_t depth,
			struct tc_rsd_info *info)
{
	for (size_t i = 0; i < n; i++) {
		info->nodes++;
		if (!seq[i].nbody) {
			info->leaves++;
			if (seq[i].vals) {
				info->varying++;
				info->values += vals_size(seq[i].vals);
			}
			continue;
		}
		info->loops++;
		if (depth + 1 > info->depth)
			info->depth = depth + 1;
		count_nodes(seq[i].body, seq[i].nbody, depth + 1, info);
	}
}

void tc_rsd_info(const struct tc_rsd *r, struct tc_rsd_info *info)
{
	settled(r);
	memset(info, 0, sizeof(*info));
	info->events = r->nin;
	info->distinct = r->nevs;
	info->top = r->n;
	info->digest = tc_rsd_digest(r);
	count_nodes(r->q, r->n, 0, info);
}

uint64_t tc_rsd_digest(const struct tc_rsd *r)
{
	return tc_hash_mix(r->digest, r->nin);
}

/* Same values in the same representation, events compared by content. */
static bool vals_equal_x(const struct tc_rsd *ra, const struct tc_rsd_vals *a,
			 const struct tc_rsd *rb, const struct tc_rsd_vals *b)
{
	if (a->n != b->n || a->len != b->len)
		return false;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct vent *x = &a->e[i], *y = &b->e[i];
		if (x->reps != y->reps || !x->chunk != !y->chunk)
			return false;
		if (x->chunk ? !vals_equal_x(ra, x->chunk, rb, y->chunk)
			     : !tc_rsd_event_equal(&ra->evs[x->event], &rb->evs[y->event]))
			return false;
	}
	return true;
}

static bool node_equal_x(const struct tc_rsd *ra, const struct tc_rsd_node *a,
			 const struct tc_rsd *rb, const struct tc_rsd_node *b)
{
	if (a->hash != b->hash || a->nbody != b->nbody || a->iters != b->iters)
		return false;
	if (!a->nbody) {
		if (a->comp.n != b->comp.n || !a->vals != !b->vals)
			return false;
		if (!a->vals)
			return tc_rsd_event_equal(&ra->evs[a->event], &rb->evs[b->event]);
		return vals_equal_x(ra, a->vals, rb, b->vals);
	}
	for (uint32_t i = 0; i < a->nbody; i++)
		if (!node_equal_x(ra, &a->body[i], rb, &b->body[i]))
			return false;
	return true;
}

bool tc_rsd_equal(const struct tc_rsd *a, const struct tc_rsd *b)
{
	if (a == b)
		return true;
	settled(a);
	settled(b);
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!node_equal_x(a, &a->q[i], b, &b->q[i]))
			return false;
	return true;
}

/* ---- expansion -------------------------------------------------------- */

void tc_rsd_iter_init(struct tc_rsd_iter *it, const struct tc_rsd *r)
{
	settled(r);
	memset(it, 0, sizeof(*it));
	it->rsd = r;
	/* a segment's events continue its stream */
	it->last_req = r->seg_req;
	it->prev_end = r->seg_end;
	TC_ALLOC_GROW(it->stack, 1, it->alloc);
	it->stack[0].seq = r->q;
	it->stack[0].n = r->n;
	it->stack[0].i = 0;
	it->stack[0].iters = 1;
	it->stack[0].left = 1;
	it->depth = 1;
}

void tc_rsd_iter_release(struct tc_rsd_iter *it)
{
	free(it->stack);
	free(it->compl);
	memset(it, 0, sizeof(*it));
}

static int64_t round_mean(double m)
{
	if (!(m > -9.0e18 && m < 9.0e18))
		return 0;
	return (int64_t)llround(m);
}

/* Which occurrence of the event node the walk is at: the iteration
 * numbers of the enclosing loops read as a mixed-radix number. */
static uint64_t occurrence(const struct tc_rsd_iter *it)
{
	uint64_t occ = 0;

	for (size_t k = 1; k < it->depth; k++)
		occ = occ * it->stack[k].iters + (it->stack[k].iters - it->stack[k].left);
	return occ;
}

static void event_decode(struct tc_rsd_iter *it, const struct tc_rsd_node *nd,
			 struct tc_event *ev)
{
	const struct tc_rsd *r = it->rsd;
	const struct tc_rsd_event *e =
		&r->evs[nd->vals ? vals_at(nd->vals, occurrence(it)) : nd->event];
	uint32_t f = e->fields;

	tc_event_init(ev);
	ev->op = e->op;
	ev->fields = f;
	ev->callsite = e->callsite;
	ev->comm = e->comm;
	ev->peer = tc_abs_peer(e->peer, r->rank);
	ev->tag = e->tag;
	ev->rpeer = tc_abs_peer(e->rpeer, r->rank);
	ev->rtag = e->rtag;
	ev->count = e->count;
	ev->dtype = e->dtype;
	ev->dtype_size = e->dtype_size;
	ev->bytes = e->bytes;
	ev->redop = e->redop;
	ev->root = e->root;
	ev->color = e->color;
	ev->key = e->key;
	ev->newcomm = e->newcomm;
	ev->file = e->file;
	ev->offset = e->offset;
	ev->result = e->result;
	if (e->ncompl) {
		TC_ALLOC_GROW(it->compl, e->ncompl, it->compl_alloc);
		for (uint32_t i = 0; i < e->ncompl; i++) {
			it->compl[i].request = abs_req(e->compl[i].request, it->last_req);
			it->compl[i].source = tc_abs_peer(e->compl[i].source, r->rank);
			it->compl[i].tag = e->compl[i].tag;
			it->compl[i].bytes = e->compl[i].bytes;
		}
		ev->ncompl = e->ncompl;
		ev->compl = it->compl;
	}
	if (f & TC_F_REQUEST) {
		ev->request = abs_req(e->request, it->last_req);
		if (ev->request)
			it->last_req = ev->request;
	}
	ev->nscounts = e->nscounts;
	ev->scounts = e->scounts;
	ev->nrcounts = e->nrcounts;
	ev->rcounts = e->rcounts;
	ev->t_start = it->prev_end + (uint64_t)round_mean(nd->comp.mean);
	ev->t_end = ev->t_start + (uint64_t)round_mean(nd->comm.mean);
	it->prev_end = ev->t_end;
	it->node = nd;
}

bool tc_rsd_iter_next(struct tc_rsd_iter *it, struct tc_event *ev)
{
	while (it->depth) {
		struct tc_rsd_iter_frame *f = &it->stack[it->depth - 1];
		const struct tc_rsd_node *nd;

		if (f->i >= f->n) {
			if (--f->left > 0) {
				f->i = 0;
				continue;
			}
			it->depth--;
			if (it->depth)
				it->stack[it->depth - 1].i++;
			continue;
		}
		nd = &f->seq[f->i];
		if (!nd->nbody) {
			event_decode(it, nd, ev);
			f->i++;
			return true;
		}
		TC_ALLOC_GROW(it->stack, it->depth + 1, it->alloc);
		f = &it->stack[it->depth++];
		f->seq = nd->body;
		f->n = nd->nbody;
		f->i = 0;
		f->iters = nd->iters;
		f->left = nd->iters;
	}
	return false;
}

/* ---- text ------------------------------------------------------------- */

struct event_set {
	uint32_t *v;
	size_t n, alloc;
};

static void collect_event(void *ctx, uint32_t event, uint64_t n)
{
	struct event_set *set = ctx;

	(void)n;
	TC_ALLOC_GROW(set->v, set->n + 1, set->alloc);
	set->v[set->n++] = event;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* How many distinct events the occurrences of an event node are. */
static size_t distinct_events(const struct tc_rsd_node *nd)
{
	struct event_set set = { NULL, 0, 0 };
	size_t k = 0;

	tc_rsd_node_events(nd, collect_event, &set);
	qsort(set.v, set.n, sizeof(*set.v), cmp_u32);
	for (size_t i = 0; i < set.n; i++)
		if (i == 0 || set.v[i] != set.v[i - 1])
			k++;
	free(set.v);
	return k;
}

static void shape(const struct tc_rsd_node *seq, size_t n, struct tc_strbuf *sb)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			tc_strbuf_addch(sb, ' ');
		if (!seq[i].nbody) {
			tc_strbuf_addf(sb, "e%" PRIu32, seq[i].event);
			if (seq[i].vals)
				tc_strbuf_addf(sb, "~%zu", distinct_events(&seq[i]));
			continue;
		}
		tc_strbuf_addf(sb, "%" PRIu64 "*(", seq[i].iters);
		shape(seq[i].body, seq[i].nbody, sb);
		tc_strbuf_addch(sb, ')');
	}
}

static void fmt_peer(struct tc_strbuf *sb, const char *name, int64_t rel)
{
	if (tc_rel_is_rank(rel))
		tc_strbuf_addf(sb, " %s=%+" PRId64, name, rel);
	else if (rel - TC_REL_SPECIAL == TC_ANY_SOURCE)
		tc_strbuf_addf(sb, " %s=any", name);
	else if (rel - TC_REL_SPECIAL == TC_PROC_NULL)
		tc_strbuf_addf(sb, " %s=null", name);
}

static void fmt_stat(struct tc_strbuf *sb, const char *name, const struct tc_rsd_stat *s)
{
	tc_strbuf_addf(sb, " %s=%.0f/%.0f/%" PRId64 "/%" PRId64, name, s->mean,
		       tc_rsd_stat_stddev(s), s->min, s->max);
}

static void fmt_event(const struct tc_rsd *r, const struct tc_rsd_node *nd, struct tc_strbuf *sb)
{
	const struct tc_rsd_event *e = &r->evs[nd->event];
	const char *name = tc_op_name(e->op);
	uint32_t f = e->fields;

	if (name)
		tc_strbuf_addf(sb, "e%" PRIu32 " %s", nd->event, name);
	else
		tc_strbuf_addf(sb, "e%" PRIu32 " op%" PRIu32, nd->event, e->op);
	tc_strbuf_addf(sb, " site=%016" PRIx64, e->stack);
	if (f & TC_F_COMM)
		tc_strbuf_addf(sb, " comm=%" PRIu32, e->comm);
	if (f & TC_F_PEER)
		fmt_peer(sb, "peer", e->peer);
	if (f & TC_F_TAG)
		tc_strbuf_addf(sb, " tag=%" PRId32, e->tag);
	if (f & TC_F_RPEER) {
		fmt_peer(sb, "rpeer", e->rpeer);
		tc_strbuf_addf(sb, " rtag=%" PRId32, e->rtag);
	}
	if (f & TC_F_COUNT)
		tc_strbuf_addf(sb, " count=%" PRIu64, e->count);
	if (f & TC_F_DTYPE) {
		const char *dn = tc_dtype_name(e->dtype);
		tc_strbuf_addf(sb, " dtype=%s", dn ? dn : "?");
	}
	if (f & TC_F_BYTES)
		tc_strbuf_addf(sb, " bytes=%" PRIu64, e->bytes);
	if (f & TC_F_REDOP) {
		const char *rn = tc_redop_name(e->redop);
		tc_strbuf_addf(sb, " op=%s", rn ? rn : "?");
	}
	if (f & TC_F_ROOT)
		tc_strbuf_addf(sb, " root=%" PRId32, e->root);
	if (f & TC_F_COLOR)
		tc_strbuf_addf(sb, " color=%" PRId32 " key=%" PRId32, e->color, e->key);
	if (f & TC_F_REQUEST)
		tc_strbuf_addf(sb, " req=%+" PRId64, e->request);
	if (f & TC_F_NEWCOMM)
		tc_strbuf_addf(sb, " newcomm=%" PRIu32, e->newcomm);
	if (e->ncompl)
		tc_strbuf_addf(sb, " compl=%" PRIu32, e->ncompl);
	if (e->nscounts || e->nrcounts)
		tc_strbuf_addf(sb, " vcounts=%" PRIu32 "/%" PRIu32, e->nscounts, e->nrcounts);
	if (f & TC_F_FILE)
		tc_strbuf_addf(sb, " file=%" PRIu32 " offset=%" PRIu64, e->file, e->offset);
	if (f & TC_F_RESULT)
		tc_strbuf_addf(sb, " result=%" PRId32, e->result);
	tc_strbuf_addf(sb, " n=%" PRIu64, nd->comp.n);
	if (nd->vals)
		tc_strbuf_addf(sb, " varying=%zu", distinct_events(nd));
	fmt_stat(sb, "comp", &nd->comp);
	fmt_stat(sb, "comm", &nd->comm);
}

static void long_form(const struct tc_rsd *r, const struct tc_rsd_node *seq, size_t n,
		      int indent, struct tc_strbuf *sb)
{
	for (size_t i = 0; i < n; i++) {
		tc_strbuf_addf(sb, "%*s", 2 * indent, "");
		if (!seq[i].nbody) {
			fmt_event(r, &seq[i], sb);
			tc_strbuf_addch(sb, '\n');
			continue;
		}
		tc_strbuf_addf(sb, "loop %" PRIu64 " {\n", seq[i].iters);
		long_form(r, seq[i].body, seq[i].nbody, indent + 1, sb);
		tc_strbuf_addf(sb, "%*s}\n", 2 * indent, "");
	}
}

void tc_rsd_format(const struct tc_rsd *r, struct tc_strbuf *out, int style)
{
	settled(r);
	if (style == TC_RSD_FMT_LONG)
		long_form(r, r->q, r->n, 0, out);
	else
		shape(r->q, r->n, out);
}

/* ---- handing a sequence to another process ---------------------------- */

/* Deeper nesting than this is refused when unpacking (the packer has no
 * such limit, but no sequence read from a trace comes near it). */
#define PACK_MAX_DEPTH 1024

static size_t pow2_at_least(size_t n)
{
	size_t c = 16;

	while (c < n)
		c <<= 1;
	return c;
}

void tc_rsd_stat_pack(struct tc_strbuf *sb, const struct tc_rsd_stat *s)
{
	tc_pack_u64(sb, s->n);
	tc_pack_s64(sb, s->min);
	tc_pack_s64(sb, s->max);
	tc_pack_f64(sb, s->mean);
	tc_pack_f64(sb, s->m2);
}

void tc_rsd_stat_unpack(struct tc_unpack *u, struct tc_rsd_stat *s)
{
	s->n = tc_unpack_u64(u);
	s->min = tc_unpack_s64(u);
	s->max = tc_unpack_s64(u);
	s->mean = tc_unpack_f64(u);
	s->m2 = tc_unpack_f64(u);
}

static void pack_vals(struct tc_strbuf *sb, const struct tc_rsd_vals *v)
{
	tc_pack_u64(sb, v->n);
	tc_pack_u64(sb, v->len);
	for (uint32_t i = 0; i < v->n; i++) {
		const struct vent *e = &v->e[i];
		tc_pack_u64(sb, e->end);
		tc_pack_u64(sb, e->reps);
		tc_pack_u64(sb, e->chunk ? 0 : (uint64_t)e->event + 1);
		if (e->chunk)
			pack_vals(sb, e->chunk);
	}
}

/* The occurrence values as packed, checked for what their readers rely
 * on: at least one entry, every entry at least one occurrence, the ends
 * counting them up, the total in len. */
static struct tc_rsd_vals *unpack_vals(struct tc_unpack *u, uint32_t nevs, unsigned depth)
{
	struct tc_rsd_vals *v = tc_xcalloc(1, sizeof(*v));
	size_t n = tc_unpack_count(u, 3);
	uint64_t end = 0;

	v->len = tc_unpack_u64(u);
	if (depth > PACK_MAX_DEPTH || !n || n > UINT32_MAX)
		u->bad = true;
	for (size_t i = 0; i < n && !u->bad; i++) {
		struct vent *e = vals_push(v);
		uint64_t ev, each = 1;
		e->end = tc_unpack_u64(u);
		e->reps = tc_unpack_u64(u);
		ev = tc_unpack_u64(u);
		if (ev) {
			if (ev > nevs)
				u->bad = true;
			else
				e->event = (uint32_t)(ev - 1);
		} else {
			e->chunk = unpack_vals(u, nevs, depth + 1);
			each = e->chunk->len;
		}
		if (!e->reps || !each || e->reps > (UINT64_MAX - end) / each ||
		    e->end != end + e->reps * each)
			u->bad = true;
		end = e->end;
	}
	if (end != v->len)
		u->bad = true;
	return v;
}

static void pack_node(struct tc_strbuf *sb, const struct tc_rsd_node *nd)
{
	tc_pack_u64(sb, nd->nbody);
	tc_pack_u64(sb, nd->hash);
	tc_pack_u64(sb, nd->key);
	if (nd->nbody) {
		tc_pack_u64(sb, nd->iters);
		for (uint32_t i = 0; i < nd->nbody; i++)
			pack_node(sb, &nd->body[i]);
		return;
	}
	tc_pack_u64(sb, nd->event);
	tc_rsd_stat_pack(sb, &nd->comp);
	tc_rsd_stat_pack(sb, &nd->comm);
	tc_pack_u64(sb, nd->vals != NULL);
	if (nd->vals)
		pack_vals(sb, nd->vals);
}

static void unpack_node(struct tc_unpack *u, const struct tc_rsd *r, struct tc_rsd_node *nd,
			unsigned depth)
{
	size_t nbody = tc_unpack_count(u, 3);

	memset(nd, 0, sizeof(*nd));
	nd->iters = 1;
	nd->hash = tc_unpack_u64(u);
	nd->key = tc_unpack_u32(u);
	if (depth > PACK_MAX_DEPTH || nbody > UINT32_MAX) {
		u->bad = true;
		return;
	}
	if (nbody) {
		nd->iters = tc_unpack_u64(u);
		if (nd->iters < 2)
			u->bad = true;
		nd->body = tc_xcalloc(nbody, sizeof(*nd->body));
		nd->nbody = (uint32_t)nbody;
		for (size_t i = 0; i < nbody; i++)
			unpack_node(u, r, &nd->body[i], depth + 1);
		return;
	}
	nd->event = tc_unpack_u32(u);
	tc_rsd_stat_unpack(u, &nd->comp);
	tc_rsd_stat_unpack(u, &nd->comm);
	if (tc_unpack_u64(u))
		nd->vals = unpack_vals(u, (uint32_t)r->nevs, depth + 1);
	if (nd->event >= r->nevs ||
	    nd->key >= (r->match == TC_RSD_MATCH_PARAMS ? r->nevs : r->nkeys) || !nd->comp.n ||
	    (nd->vals && nd->vals->len != nd->comp.n))
		u->bad = true;
}

static void pack_event(struct tc_strbuf *sb, const struct tc_rsd_event *e)
{
	tc_pack_u64(sb, e->op);
	tc_pack_u64(sb, e->fields);
	tc_pack_u64(sb, e->comm);
	tc_pack_s64(sb, e->tag);
	tc_pack_s64(sb, e->rtag);
	tc_pack_u64(sb, e->dtype);
	tc_pack_u64(sb, e->dtype_size);
	tc_pack_u64(sb, e->redop);
	tc_pack_s64(sb, e->root);
	tc_pack_s64(sb, e->color);
	tc_pack_s64(sb, e->key);
	tc_pack_u64(sb, e->newcomm);
	tc_pack_u64(sb, e->file);
	tc_pack_s64(sb, e->result);
	tc_pack_u64(sb, e->stack);
	tc_pack_s64(sb, e->peer);
	tc_pack_s64(sb, e->rpeer);
	tc_pack_u64(sb, e->count);
	tc_pack_u64(sb, e->bytes);
	tc_pack_s64(sb, e->request);
	tc_pack_u64(sb, e->offset);
	tc_pack_u64(sb, e->callsite);
	tc_pack_u64(sb, e->ncompl);
	for (uint32_t i = 0; i < e->ncompl; i++) {
		tc_pack_s64(sb, e->compl[i].request);
		tc_pack_s64(sb, e->compl[i].source);
		tc_pack_s64(sb, e->compl[i].tag);
		tc_pack_u64(sb, e->compl[i].bytes);
	}
	tc_pack_u64(sb, e->nscounts);
	for (uint32_t i = 0; i < e->nscounts; i++)
		tc_pack_u64(sb, e->scounts[i]);
	tc_pack_u64(sb, e->nrcounts);
	for (uint32_t i = 0; i < e->nrcounts; i++)
		tc_pack_u64(sb, e->rcounts[i]);
}

static uint64_t *unpack_u64s(struct tc_unpack *u, uint32_t *n)
{
	size_t k = tc_unpack_count(u, 1);
	uint64_t *v = k ? tc_xmalloc(tc_st_mult(k, sizeof(*v))) : NULL;

	for (size_t i = 0; i < k; i++)
		v[i] = tc_unpack_u64(u);
	*n = (uint32_t)k;
	if (k > UINT32_MAX)
		u->bad = true;
	return v;
}

static void unpack_event(struct tc_unpack *u, struct tc_rsd_event *e)
{
	struct tc_rsd_compl *c;
	size_t nc;

	memset(e, 0, sizeof(*e));
	e->op = tc_unpack_u32(u);
	e->fields = tc_unpack_u32(u);
	e->comm = tc_unpack_u32(u);
	e->tag = tc_unpack_s32(u);
	e->rtag = tc_unpack_s32(u);
	e->dtype = tc_unpack_u32(u);
	e->dtype_size = tc_unpack_u32(u);
	e->redop = tc_unpack_u32(u);
	e->root = tc_unpack_s32(u);
	e->color = tc_unpack_s32(u);
	e->key = tc_unpack_s32(u);
	e->newcomm = tc_unpack_u32(u);
	e->file = tc_unpack_u32(u);
	e->result = tc_unpack_s32(u);
	e->stack = tc_unpack_u64(u);
	e->peer = tc_unpack_s64(u);
	e->rpeer = tc_unpack_s64(u);
	e->count = tc_unpack_u64(u);
	e->bytes = tc_unpack_u64(u);
	e->request = tc_unpack_s64(u);
	e->offset = tc_unpack_u64(u);
	e->callsite = tc_unpack_u32(u);
	nc = tc_unpack_count(u, 4);
	c = nc ? tc_xmalloc(tc_st_mult(nc, sizeof(*c))) : NULL;
	for (size_t i = 0; i < nc; i++) {
		c[i].request = tc_unpack_s64(u);
		c[i].source = tc_unpack_s64(u);
		c[i].tag = tc_unpack_s32(u);
		c[i].bytes = tc_unpack_u64(u);
	}
	e->compl = c;
	e->ncompl = (uint32_t)nc;
	if (nc > UINT32_MAX)
		u->bad = true;
	e->scounts = unpack_u64s(u, &e->nscounts);
	e->rcounts = unpack_u64s(u, &e->nrcounts);
	e->hash = event_hash(e);
}

void tc_rsd_pack(const struct tc_rsd *r, struct tc_strbuf *out)
{
	size_t nsites = 0;

	settled(r);
	tc_pack_s64(out, r->rank);
	tc_pack_u64(out, r->window);
	tc_pack_u64(out, (uint64_t)r->match);
	tc_pack_u64(out, r->last_req);
	tc_pack_u64(out, r->prev_end);
	tc_pack_u64(out, r->nin);
	tc_pack_u64(out, r->digest);
	for (uint32_t i = 0; i < r->sites.ndense; i++)
		nsites += r->sites.dense[i] != 0;
	for (size_t i = 0; i < r->sites.cap; i++)
		nsites += r->sites.used[i];
	tc_pack_u64(out, nsites);
	for (uint32_t i = 0; i < r->sites.ndense; i++)
		if (r->sites.dense[i]) {
			tc_pack_u64(out, i);
			tc_pack_u64(out, r->sites.dense[i]);
		}
	for (size_t i = 0; i < r->sites.cap; i++)
		if (r->sites.used[i]) {
			tc_pack_u64(out, r->sites.ids[i]);
			tc_pack_u64(out, r->sites.sigs[i]);
		}
	tc_pack_u64(out, r->nkeys);
	for (size_t i = 0; i < r->nkeys; i++) {
		tc_pack_u64(out, r->keys[i].op);
		tc_pack_u64(out, r->keys[i].callsite);
		tc_pack_u64(out, r->keys[i].stack);
	}
	tc_pack_u64(out, r->nevs);
	for (size_t i = 0; i < r->nevs; i++)
		pack_event(out, &r->evs[i]);
	tc_pack_u64(out, r->n);
	for (size_t i = 0; i < r->n; i++)
		pack_node(out, &r->q[i]);
}

struct tc_rsd *tc_rsd_unpack(struct tc_unpack *u)
{
	struct tc_rsd_opts o;
	struct tc_rsd *r;
	int32_t rank = tc_unpack_s32(u);
	size_t n;

	o.window = tc_unpack_u32(u);
	o.match = (int)tc_unpack_u32(u);
	if (o.match != TC_RSD_MATCH_PARAMS && o.match != TC_RSD_MATCH_CALLSITE)
		u->bad = true;
	r = tc_rsd_new(rank, &o);
	r->last_req = tc_unpack_u64(u);
	r->prev_end = tc_unpack_u64(u);
	r->nin = tc_unpack_u64(u);
	r->digest = tc_unpack_u64(u);
	n = tc_unpack_count(u, 2);
	for (size_t i = 0; i < n && !u->bad; i++) {
		uint32_t id = tc_unpack_u32(u);
		site_put(&r->sites, id, tc_unpack_u64(u));
	}
	n = tc_unpack_count(u, 3);
	if (n) {
		r->kcap = pow2_at_least(2 * n);
		r->ktab = tc_xcalloc(r->kcap, sizeof(*r->ktab));
	}
	for (size_t i = 0; i < n && !u->bad; i++) {
		struct site_key *k;
		TC_ALLOC_GROW(r->keys, r->nkeys + 1, r->akeys);
		k = &r->keys[r->nkeys];
		k->op = tc_unpack_u32(u);
		k->callsite = tc_unpack_u32(u);
		k->stack = tc_unpack_u64(u);
		k->hash = site_key_hash(k->op, k->stack);
		ktab_insert(r, (uint32_t)r->nkeys++);
	}
	n = tc_unpack_count(u, 25);
	if (n) {
		r->evcap = pow2_at_least(2 * n);
		r->evtab = tc_xcalloc(r->evcap, sizeof(*r->evtab));
	}
	for (size_t i = 0; i < n && !u->bad; i++) {
		TC_ALLOC_GROW(r->evs, r->nevs + 1, r->aevs);
		unpack_event(u, &r->evs[r->nevs]);
		evtab_insert(r, (uint32_t)r->nevs++);
	}
	n = tc_unpack_count(u, 3);
	for (size_t i = 0; i < n && !u->bad; i++) {
		struct tc_rsd_node nd;
		unpack_node(u, r, &nd, 0);
		q_push(r, &nd);
	}
	if (u->bad)
		tc_rsd_free(&r);
	return r;
}
