/*
 * synth.c - the synthetic workload engine: options, the per-rank
 * generator behind the sg_* helpers, and the ground truth.
 *
 * The patterns themselves are in synth_patterns.c. A rank's output is a
 * function of (options, rank) only: its random stream is seeded from
 * (seed, rank), message counts come from a hash of (seed, sender,
 * receiver, step, channel), and no clock or global state is read, so ranks
 * can be generated in any order on any thread.
 *
 * Ground truth (DESIGN.md capability 3): the engine runs a rank's pattern
 * in key mode, where every call updates two 128-bit hashes instead of
 * producing an event: one over the call sites in program order (the
 * call-path key; loops are unrolled, so it also covers loop structure) and
 * one over the call sites and the parameters of the dissertation's Table
 * 3.1 (Bahmani 2017, ch. 3.1): count without jitter, destination and
 * source relative to the own rank, datatype, reduction operation and
 * communicator. Ranks with equal keys form a group.
 */
#include "compat.h"
#include "synth.h"
#include "synth_internal.h"
#include "error.h"
#include "event.h"
#include "hash.h"
#include "json.h"
#include "strbuf.h"
#include "xalloc.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS (1 << 20)
#define MAX_ITERS 1000000
#define MAX_MSG_BYTES (1ull << 30)
#define MAX_COMPUTE_NS 1000000000000ull
#define MAX_COMMS 8

#define DEF_ITERS 10
#define DEF_MSG_BYTES 8192
#define DEF_COMPUTE_NS 100000
#define DEF_PHASES 3

struct pending {
	uint64_t req;
	int32_t source;  /* TC_PEER_NONE for sends */
	int32_t tag;
	uint64_t bytes;  /* 0 for sends */
};

struct sg {
	const struct tc_synth_opts *o;
	const struct sg_pattern *pat;
	int32_t rank, size;
	const struct tc_synth_sink *sink;
	void *ctx;
	int rc;

	bool keymode;
	uint64_t kc[2];          /* call-path key */
	uint64_t kp[2];          /* call-path + parameter key */
	uint64_t (*kphase)[2];   /* call-path key of each phase, or NULL */

	uint64_t rng;
	uint64_t t;              /* simulated clock, ns since start */
	uint64_t next_req;
	int32_t step;
	int phase;               /* current phase, -1 outside phases */
	uint32_t comm_size[MAX_COMMS];

	uint32_t *site_id;       /* pattern site -> file-local id */
	uint32_t nsite_ids;

	struct pending *pend;
	size_t npend, apend;
	struct tc_completion *compl;
	size_t acompl;
};

/* ---- options ----------------------------------------------------------- */

static struct tc_synth_pattern_info pattern_list[32];
static pthread_once_t pattern_list_once = PTHREAD_ONCE_INIT;

static void fill_pattern_list(void)
{
	size_t i;

	for (i = 0; sg_patterns[i] && i + 1 < TC_ARRAY_SIZE(pattern_list); i++) {
		pattern_list[i].name = sg_patterns[i]->name;
		pattern_list[i].summary = sg_patterns[i]->summary;
	}
	pattern_list[i].name = NULL;
	pattern_list[i].summary = NULL;
}

const struct tc_synth_pattern_info *tc_synth_patterns(void)
{
	pthread_once(&pattern_list_once, fill_pattern_list);
	return pattern_list;
}

const struct sg_pattern *sg_find_pattern(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; sg_patterns[i]; i++)
		if (!strcmp(sg_patterns[i]->name, name))
			return sg_patterns[i];
	return NULL;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* The most square factorisation of n into k factors, largest first (as
 * MPI_Dims_create does): minimises largest - smallest. */
static void square_dims(int32_t n, int k, int32_t d[3])
{
	d[0] = n;
	d[1] = d[2] = 1;
	if (k == 2) {
		int32_t b = 1;
		for (int32_t i = 1; (int64_t)i * i <= n; i++)
			if (n % i == 0)
				b = i;
		d[0] = n / b;
		d[1] = b;
	} else if (k == 3) {
		int32_t best = INT32_MAX;
		for (int32_t c = 1; (int64_t)c * c * c <= n; c++) {
			if (n % c)
				continue;
			for (int32_t b = c; (int64_t)b * b <= n / c; b++) {
				int32_t a;
				if ((n / c) % b)
					continue;
				a = n / c / b;
				if (a - c < best || (a - c == best && a < d[0])) {
					best = a - c;
					d[0] = a;
					d[1] = b;
					d[2] = c;
				}
			}
		}
	}
}

int tc_synth_validate(struct tc_synth_opts *o, struct tc_error *err)
{
	const struct sg_pattern *p = sg_find_pattern(o->pattern);
	int given = 0;
	int64_t prod = 1;

	if (!o->pattern || !*o->pattern)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1, "no pattern given (see --list)");
	if (!p)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "unknown pattern '%s' (see --list)", o->pattern);
	if (o->ranks < 1 || o->ranks > MAX_RANKS)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "--ranks: %" PRId32 " is out of range (1 to %d)",
				    o->ranks, MAX_RANKS);
	if (o->ranks < p->min_ranks)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "pattern '%s' needs at least %" PRId32 " ranks, not %" PRId32,
				    p->name, p->min_ranks, o->ranks);
	if (p->pow2 && !is_pow2((uint64_t)o->ranks))
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "pattern '%s' needs a power-of-two rank count, not %" PRId32,
				    p->name, o->ranks);
	if (o->iters < 0 || o->iters > MAX_ITERS)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "--iters: %" PRId32 " is out of range (1 to %d)",
				    o->iters, MAX_ITERS);
	if (!o->iters)
		o->iters = DEF_ITERS;
	if (o->msg_bytes > MAX_MSG_BYTES)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "--msg-bytes: %" PRIu64 " is too large (at most %llu)",
				    o->msg_bytes, MAX_MSG_BYTES);
	if (!o->msg_bytes)
		o->msg_bytes = DEF_MSG_BYTES;
	if (o->compute_ns > MAX_COMPUTE_NS)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "--compute-ns: %" PRIu64 " is too large (at most %llu)",
				    o->compute_ns, MAX_COMPUTE_NS);
	if (!o->compute_ns)
		o->compute_ns = DEF_COMPUTE_NS;
	if (!(o->jitter >= 0.0 && o->jitter <= 1.0))
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "--jitter: %g is out of range (0 to 1)", o->jitter);
	if (!(o->count_jitter >= 0.0 && o->count_jitter <= 0.5))
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "--count-jitter: %g is out of range (0 to 0.5)",
				    o->count_jitter);
	if (p->phased) {
		if (o->phases < 0 || o->phases > SG_MAX_PHASES)
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "--phases: %" PRId32 " is out of range (1 to %d)",
					    o->phases, SG_MAX_PHASES);
		if (!o->phases)
			o->phases = DEF_PHASES;
		if ((int64_t)o->phases * o->iters > MAX_ITERS)
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "--phases times --iters is above %d steps", MAX_ITERS);
	} else if (o->phases) {
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "--phases applies to the phases pattern only");
	}

	for (int i = 0; i < 3; i++) {
		if (o->dims[i] < 0)
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "--dims: negative dimension");
		if (o->dims[i] && i >= p->ndims && o->dims[i] != 1)
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "--dims: pattern '%s' takes %d dimension%s",
					    p->name, p->ndims, p->ndims > 1 ? "s" : "");
		if (o->dims[i] && i < p->ndims)
			given++;
	}
	if (given && given < p->ndims)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "--dims: pattern '%s' takes %d dimensions", p->name, p->ndims);
	if (given) {
		for (int i = 0; i < p->ndims; i++)
			prod *= o->dims[i];
		if (prod != o->ranks)
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "--dims: product %" PRId64 " is not the rank count %" PRId32,
					    prod, o->ranks);
	} else {
		square_dims(o->ranks, p->ndims, o->dims);
	}
	for (int i = p->ndims; i < 3; i++)
		o->dims[i] = 1;
	if (p->check)
		return p->check(o, err);
	return 0;
}

uint64_t tc_synth_start_time(const struct tc_synth_opts *opts)
{
	/* 2023-11-14 plus up to ~3 years, in whole microseconds */
	return 1700000000000000000ULL +
	       tc_hash_fmix(opts->seed ^ 0x7374617274ULL) % 100000000000000ULL * 1000;
}

/* ---- the generator ----------------------------------------------------- */

const struct tc_synth_opts *sg_opts(const struct sg *g) { return g->o; }
int32_t sg_rank(const struct sg *g) { return g->rank; }
int32_t sg_size(const struct sg *g) { return g->size; }
bool sg_keymode(const struct sg *g) { return g->keymode; }
bool sg_stopped(const struct sg *g) { return g->rc != 0; }

static uint64_t rng_next(struct sg *g)
{
	g->rng += 0x9e3779b97f4a7c15ULL;
	return tc_hash_fmix(g->rng);
}

double sg_uniform(struct sg *g)
{
	return (double)(rng_next(g) >> 11) * 0x1.0p-53;
}

void sg_coords(const struct tc_synth_opts *o, int32_t rank, int32_t c[3])
{
	c[0] = rank % o->dims[0];
	c[1] = rank / o->dims[0] % o->dims[1];
	c[2] = rank / o->dims[0] / o->dims[1];
}

int32_t sg_rank_of(const struct tc_synth_opts *o, const int32_t c[3])
{
	return c[0] + o->dims[0] * (c[1] + o->dims[1] * c[2]);
}

uint64_t sg_elems(uint64_t bytes, uint32_t dtype_size)
{
	uint64_t n = dtype_size ? bytes / dtype_size : bytes;
	return n ? n : 1;
}

uint64_t sg_count(const struct sg *g, int32_t src, int32_t dst, uint32_t chan,
		  uint64_t base)
{
	uint64_t h;
	double u;

	if (g->o->count_jitter <= 0.0 || !base)
		return base;
	h = tc_hash_mix(tc_hash_fmix(g->o->seed ^ 0x636f756e74ULL), (uint64_t)(uint32_t)src);
	h = tc_hash_mix(h, (uint64_t)(uint32_t)dst);
	h = tc_hash_mix(h, (uint64_t)(uint32_t)g->step);
	h = tc_hash_mix(h, chan);
	u = (double)(h >> 11) * 0x1.0p-53;
	/* one-sided: base <= count < base * (1 + count_jitter) */
	return base + (uint64_t)floor((double)base * g->o->count_jitter * u);
}

static uint32_t dtype_size(uint32_t dt)
{
	switch (dt) {
	case TC_DT_CHAR: case TC_DT_BYTE: case TC_DT_SIGNED_CHAR: case TC_DT_UNSIGNED_CHAR:
		return 1;
	case TC_DT_INT: case TC_DT_UNSIGNED: case TC_DT_FLOAT:
		return 4;
	case TC_DT_DOUBLE_COMPLEX: case TC_DT_C_DOUBLE_COMPLEX:
		return 16;
	default:
		return 8;
	}
}

/* Hash the module-relative address of a function of the pattern. */
static uint64_t fn_base(const char *prefix, const char *fn)
{
	uint64_t h = tc_hash64(fn, strlen(fn), tc_hash64(prefix, strlen(prefix), 0));
	return 0x1000 + (h % 0x4000) * 0x400;
}

static uint64_t call_offset(const char *prefix, const char *caller, const char *callee)
{
	uint64_t h = tc_hash64(callee, strlen(callee), 0x63616c6cULL);
	return fn_base(prefix, caller) + 0x30 + (h % 0x80) * 4;
}

struct site_frames {
	char module[64];
	char sym[4][160];
	struct tc_frame fr[4];
	uint32_t n;
};

/* The 2-4 frames of call site `site`, innermost first. */
static void site_frames(const struct sg_pattern *pat, unsigned site, struct site_frames *sf)
{
	const struct sg_site *s = &pat->sites[site];
	const char *chain[4];
	char prefix[48];
	uint32_t n = 0;

	snprintf(sf->module, sizeof(sf->module), "synth-%s", pat->name);
	snprintf(prefix, sizeof(prefix), "%s", pat->name);
	for (size_t i = 0; prefix[i]; i++)
		if (prefix[i] == '-')
			prefix[i] = '_';
	chain[n++] = s->fn;
	if (s->caller)
		chain[n++] = s->caller;
	if (s->caller2)
		chain[n++] = s->caller2;
	chain[n++] = "main";
	for (uint32_t k = 0; k < n; k++) {
		uint64_t base = fn_base(prefix, chain[k]);
		uint64_t off = k == 0 ? base + 0x1c + 0x28 * s->at
				      : call_offset(prefix, chain[k], chain[k - 1]);

		if (k == n - 1)
			snprintf(sf->sym[k], sizeof(sf->sym[k]), "main+0x%" PRIx64, off - base);
		else
			snprintf(sf->sym[k], sizeof(sf->sym[k]), "%s_%s+0x%" PRIx64, prefix,
				 chain[k], off - base);
		sf->fr[k].module = sf->module;
		sf->fr[k].offset = off;
		sf->fr[k].symbol = sf->sym[k];
	}
	sf->n = n;
}

uint64_t tc_synth_marker_signature(const struct tc_synth_opts *opts)
{
	const struct sg_pattern *pat = sg_find_pattern(opts->pattern);
	struct site_frames sf;

	if (!pat || pat->marker_site < 0)
		return 0;
	site_frames(pat, (unsigned)pat->marker_site, &sf);
	return tc_stack_signature(sf.fr, sf.n);
}

/* Define call site `site` on first use; returns its file-local id. */
static uint32_t site_id(struct sg *g, unsigned site)
{
	struct site_frames sf;
	struct tc_callsite cs;

	if (g->site_id[site] != TC_NO_CALLSITE)
		return g->site_id[site];
	site_frames(g->pat, site, &sf);
	cs.id = g->nsite_ids++;
	cs.signature = tc_stack_signature(sf.fr, sf.n);
	cs.nframes = sf.n;
	cs.frames = sf.fr;
	g->site_id[site] = cs.id;
	if (g->sink->callsite && g->sink->callsite(g->ctx, &cs))
		g->rc = TC_ERR_STOP;
	return cs.id;
}

static void key_mix(uint64_t k[2], uint64_t v)
{
	k[0] = tc_hash_mix(k[0], v);
	k[1] = tc_hash_mix(k[1] ^ 0x5bd1e995ULL, v * 0xff51afd7ed558ccdULL + 1);
}

static uint64_t rel_peer(const struct sg *g, int32_t peer)
{
	if (peer < 0)
		return 0x8000000000000000ULL | (uint32_t)peer; /* ANY_SOURCE etc. */
	return (uint64_t)(int64_t)(peer - g->rank);
}

/* Key mode: fold the call into the keys instead of emitting it. */
static void key_record(struct sg *g, unsigned site, const struct tc_event *ev,
		       uint64_t base)
{
	uint64_t v = ((uint64_t)site << 16) | ev->op;

	key_mix(g->kc, v);
	if (g->kphase && g->phase >= 0)
		key_mix(g->kphase[g->phase], v);
	key_mix(g->kp, v);
	key_mix(g->kp, base);
	key_mix(g->kp, ev->fields & TC_F_PEER ? rel_peer(g, ev->peer) : 1);
	key_mix(g->kp, ev->dtype);
	key_mix(g->kp, ev->redop);
	key_mix(g->kp, ev->comm);
}

/* Simulated duration of a call moving `bytes` bytes (ns). */
static uint64_t duration(struct sg *g, const struct tc_event *ev, uint64_t bytes)
{
	double d;
	unsigned kind = tc_op_kind(ev->op);
	uint32_t n = ev->comm < MAX_COMMS ? g->comm_size[ev->comm] : 2;
	double stages = ceil(log2((double)n + 1.0));

	switch (kind) {
	case TC_K_ENV:
		d = ev->op == TC_OP_INIT ? 50000.0 : 20000.0;
		break;
	case TC_K_SEND:
		d = (tc_op_flags(ev->op) & TC_OPF_NB) ? 250.0 : 600.0 + 0.1 * (double)bytes;
		break;
	case TC_K_RECV:
		d = (tc_op_flags(ev->op) & TC_OPF_NB) ? 200.0 : 900.0 + 0.1 * (double)bytes;
		break;
	case TC_K_WAIT:
		d = 300.0 + 0.1 * (double)bytes;
		break;
	case TC_K_COLL:
		d = (1200.0 + 0.2 * (double)bytes) * (stages > 1 ? stages : 1);
		break;
	default:
		d = 5000.0;
		break;
	}
	d *= 0.9 + 0.2 * sg_uniform(g);
	return (uint64_t)d + 1;
}

/* Time the event, define its call site and hand it to the sink. */
static void emit(struct sg *g, unsigned site, struct tc_event *ev, uint64_t base,
		 uint64_t moved)
{
	if (g->rc)
		return;
	if (g->keymode) {
		key_record(g, site, ev, base);
		return;
	}
	ev->callsite = site_id(g, site);
	if (g->rc)
		return;
	g->t += 80 + (uint64_t)(120.0 * sg_uniform(g)); /* between calls */
	ev->t_start = g->t;
	g->t += duration(g, ev, moved);
	ev->t_end = g->t;
	if (g->sink->event(g->ctx, ev))
		g->rc = TC_ERR_STOP;
}

static void set_comm(struct tc_event *ev, uint32_t comm)
{
	ev->comm = comm;
	if (comm != TC_COMM_WORLD)
		ev->fields |= TC_F_COMM;
}

static void p2p_event(struct tc_event *ev, unsigned op, int32_t peer, int32_t tag,
		      uint64_t count, uint32_t dtype, uint32_t comm)
{
	tc_event_init(ev);
	ev->op = op;
	ev->fields |= TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE;
	ev->peer = peer;
	ev->tag = tag;
	ev->count = count;
	ev->dtype = dtype;
	ev->dtype_size = dtype_size(dtype);
	set_comm(ev, comm);
}

static void add_pending(struct sg *g, uint64_t req, int32_t source, int32_t tag,
			uint64_t bytes)
{
	TC_ALLOC_GROW(g->pend, g->npend + 1, g->apend);
	g->pend[g->npend].req = req;
	g->pend[g->npend].source = source;
	g->pend[g->npend].tag = tag;
	g->pend[g->npend].bytes = bytes;
	g->npend++;
}

void sg_isend(struct sg *g, unsigned site, int32_t peer, int32_t tag,
	      uint64_t count, uint64_t base, uint32_t dtype, uint32_t comm)
{
	struct tc_event ev;

	p2p_event(&ev, TC_OP_ISEND, peer, tag, count, dtype, comm);
	ev.fields |= TC_F_REQUEST;
	ev.request = g->next_req++;
	add_pending(g, ev.request, TC_PEER_NONE, tag, 0);
	emit(g, site, &ev, base, count * ev.dtype_size);
}

void sg_irecv(struct sg *g, unsigned site, int32_t peer, int32_t tag,
	      uint64_t count, uint64_t base, uint32_t dtype, uint32_t comm)
{
	struct tc_event ev;

	p2p_event(&ev, TC_OP_IRECV, peer, tag, count, dtype, comm);
	ev.fields |= TC_F_REQUEST;
	ev.request = g->next_req++;
	add_pending(g, ev.request, peer, tag, count * ev.dtype_size);
	emit(g, site, &ev, base, 0);
}

void sg_send(struct sg *g, unsigned site, int32_t peer, int32_t tag,
	     uint64_t count, uint64_t base, uint32_t dtype, uint32_t comm)
{
	struct tc_event ev;

	p2p_event(&ev, TC_OP_SEND, peer, tag, count, dtype, comm);
	emit(g, site, &ev, base, count * ev.dtype_size);
}

void sg_recv(struct sg *g, unsigned site, int32_t peer, int32_t source,
	     int32_t tag, uint64_t count, uint64_t base, uint32_t dtype,
	     uint32_t comm)
{
	struct tc_event ev;
	struct tc_completion c;

	p2p_event(&ev, TC_OP_RECV, peer, tag, count, dtype, comm);
	c.request = 0;
	c.source = source;
	c.tag = tag;
	c.bytes = count * ev.dtype_size;
	ev.fields |= TC_F_COMPL;
	ev.ncompl = 1;
	ev.compl = &c;
	emit(g, site, &ev, base, c.bytes);
}

static void complete(struct sg *g, unsigned site, unsigned op, size_t n)
{
	struct tc_event ev;
	uint64_t bytes = 0;

	if (!n)
		return;
	TC_ALLOC_GROW(g->compl, n, g->acompl);
	for (size_t i = 0; i < n; i++) {
		g->compl[i].request = g->pend[i].req;
		g->compl[i].source = g->pend[i].source;
		g->compl[i].tag = g->pend[i].source == TC_PEER_NONE ? TC_ANY_TAG : g->pend[i].tag;
		g->compl[i].bytes = g->pend[i].bytes;
		bytes += g->pend[i].bytes;
	}
	tc_event_init(&ev);
	ev.op = op;
	ev.fields = TC_F_COMPL;
	ev.ncompl = (uint32_t)n;
	ev.compl = g->compl;
	emit(g, site, &ev, 0, bytes);
	memmove(g->pend, g->pend + n, (g->npend - n) * sizeof(*g->pend));
	g->npend -= n;
}

void sg_waitall(struct sg *g, unsigned site)
{
	complete(g, site, TC_OP_WAITALL, g->npend);
}

void sg_wait(struct sg *g, unsigned site)
{
	complete(g, site, TC_OP_WAIT, g->npend ? 1 : 0);
}

void sg_coll(struct sg *g, unsigned site, unsigned op, uint64_t count,
	     uint32_t dtype, uint32_t redop, int32_t root, uint32_t comm,
	     uint64_t bytes)
{
	struct tc_event ev;

	tc_event_init(&ev);
	ev.op = op;
	set_comm(&ev, comm);
	if (dtype) {
		ev.fields |= TC_F_COUNT | TC_F_DTYPE;
		ev.count = count;
		ev.dtype = dtype;
		ev.dtype_size = dtype_size(dtype);
	}
	if (redop) {
		ev.fields |= TC_F_REDOP;
		ev.redop = redop;
	}
	if (root >= 0) {
		ev.fields |= TC_F_ROOT;
		ev.root = root;
	}
	if (bytes && bytes != count * ev.dtype_size) {
		ev.fields |= TC_F_BYTES;
		ev.bytes = bytes;
	}
	emit(g, site, &ev, count, bytes ? bytes : count * ev.dtype_size);
}

void sg_alltoallv(struct sg *g, unsigned site, const uint64_t *scounts,
		  const uint64_t *rcounts, uint32_t n, uint32_t dtype,
		  uint32_t comm, uint64_t base)
{
	struct tc_event ev;
	uint64_t total = 0;

	tc_event_init(&ev);
	ev.op = TC_OP_ALLTOALLV;
	set_comm(&ev, comm);
	for (uint32_t i = 0; scounts && i < n; i++)
		total += scounts[i];
	ev.fields |= TC_F_COUNT | TC_F_DTYPE | TC_F_BYTES | TC_F_SCOUNTS | TC_F_RCOUNTS;
	ev.count = total;
	ev.dtype = dtype;
	ev.dtype_size = dtype_size(dtype);
	ev.bytes = total * ev.dtype_size;
	ev.nscounts = ev.nrcounts = n;
	ev.scounts = scounts;
	ev.rcounts = rcounts;
	emit(g, site, &ev, base, ev.bytes);
}

void sg_split(struct sg *g, unsigned site, int32_t color, int32_t key,
	      uint32_t newcomm, const int32_t *members, uint32_t n)
{
	struct tc_event ev;
	struct tc_comm c;

	if (newcomm < MAX_COMMS)
		g->comm_size[newcomm] = n;
	if (!g->keymode && !g->rc) {
		memset(&c, 0, sizeof(c));
		c.id = newcomm;
		c.parent = TC_COMM_WORLD;
		c.creator = TC_OP_COMM_SPLIT;
		c.size = n;
		c.members = members;
		if (g->sink->comm && g->sink->comm(g->ctx, &c))
			g->rc = TC_ERR_STOP;
	}
	tc_event_init(&ev);
	ev.op = TC_OP_COMM_SPLIT;
	ev.fields = TC_F_COLOR | TC_F_NEWCOMM;
	ev.color = color;
	ev.key = key;
	ev.newcomm = newcomm;
	emit(g, site, &ev, 0, 0);
}

void sg_compute(struct sg *g)
{
	double f;

	if (g->keymode)
		return;
	f = 1.0 + g->o->jitter * (2.0 * sg_uniform(g) - 1.0);
	g->t += (uint64_t)((double)g->o->compute_ns * f);
}

void sg_step(struct sg *g, int32_t step, int phase)
{
	g->step = step;
	g->phase = phase;
	sg_compute(g);
}

void sg_end_steps(struct sg *g)
{
	g->phase = -1;
	g->step = -1;
}

static void env_event(struct sg *g, unsigned site, unsigned op)
{
	struct tc_event ev;

	tc_event_init(&ev);
	ev.op = op;
	emit(g, site, &ev, 0, 0);
}

static void sg_setup(struct sg *g, const struct tc_synth_opts *o, int32_t rank,
		     bool keymode)
{
	memset(g, 0, sizeof(*g));
	g->o = o;
	g->pat = sg_find_pattern(o->pattern);
	g->rank = rank;
	g->size = o->ranks;
	g->keymode = keymode;
	g->kc[0] = g->kp[0] = 0x6b6579ULL;
	g->kc[1] = g->kp[1] = 0x4b4559ULL;
	g->rng = tc_hash_mix(tc_hash_fmix(o->seed), (uint64_t)(uint32_t)rank);
	g->next_req = 1;
	g->step = -1;
	g->phase = -1;
	g->comm_size[TC_COMM_WORLD] = (uint32_t)o->ranks;
	g->comm_size[TC_COMM_SELF] = 1;
	g->site_id = tc_xmalloc(tc_st_mult(g->pat->nsites, sizeof(*g->site_id)));
	for (size_t i = 0; i < g->pat->nsites; i++)
		g->site_id[i] = TC_NO_CALLSITE;
}

static void sg_release(struct sg *g)
{
	free(g->site_id);
	free(g->pend);
	free(g->compl);
}

/* Play the whole rank: communicators, MPI_Init, the pattern, MPI_Finalize. */
static void play(struct sg *g)
{
	if (!g->keymode) {
		struct tc_comm c;
		int32_t self = g->rank;

		/* NULL members: world is ranks 0..P-1, written as one run */
		memset(&c, 0, sizeof(c));
		c.id = TC_COMM_WORLD;
		c.size = (uint32_t)g->size;
		c.members = NULL;
		if (g->sink->comm && g->sink->comm(g->ctx, &c))
			g->rc = TC_ERR_STOP;
		c.id = TC_COMM_SELF;
		c.size = 1;
		c.members = &self;
		if (!g->rc && g->sink->comm && g->sink->comm(g->ctx, &c))
			g->rc = TC_ERR_STOP;
	}
	env_event(g, SG_SITE_INIT, TC_OP_INIT);
	if (!g->rc)
		g->pat->run(g);
	sg_end_steps(g);
	/* a pattern leaves no request behind, but be safe */
	sg_waitall(g, SG_SITE_FINALIZE);
	env_event(g, SG_SITE_FINALIZE, TC_OP_FINALIZE);
}

int tc_synth_rank(const struct tc_synth_opts *opts, int32_t rank,
		  const struct tc_synth_sink *sink, void *ctx, struct tc_error *err)
{
	struct sg g;

	if (!sg_find_pattern(opts->pattern) || rank < 0 || rank >= opts->ranks ||
	    !opts->iters || !opts->dims[0])
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "synth: options not validated or rank %" PRId32 " out of range",
				    rank);
	sg_setup(&g, opts, rank, false);
	g.sink = sink;
	g.ctx = ctx;
	play(&g);
	sg_release(&g);
	if (g.rc)
		return tc_error_set(err, g.rc, NULL, -1, "synth: rank %" PRId32 " stopped by its sink",
				    rank);
	return 0;
}

/* ---- ground truth -------------------------------------------------------- */

struct keyed {
	uint64_t k0, k1;
	int32_t rank;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->k0 != y->k0)
		return x->k0 < y->k0 ? -1 : 1;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* A partition of the ranks: group[r] is r's group, numbered by first rank. */
struct partition {
	int32_t *group;
	int32_t ngroups;
	int32_t *first;    /* first rank of each group */
	int32_t *size;
};

static void partition_release(struct partition *p)
{
	free(p->group);
	free(p->first);
	free(p->size);
}

static void partition_build(struct partition *p, struct keyed *k, int32_t n)
{
	int32_t *id_of_run, nruns = 0;

	qsort(k, (size_t)n, sizeof(*k), cmp_keyed);
	p->group = tc_xmalloc(tc_st_mult((size_t)n, sizeof(int32_t)));
	id_of_run = tc_xmalloc(tc_st_mult((size_t)n, sizeof(int32_t)));
	/* runs of equal keys; mark each rank with its run */
	for (int32_t i = 0; i < n; i++) {
		if (i && (k[i].k0 != k[i - 1].k0 || k[i].k1 != k[i - 1].k1))
			nruns++;
		p->group[k[i].rank] = nruns;
	}
	nruns++;
	/* renumber runs in order of their first rank */
	for (int32_t i = 0; i < nruns; i++)
		id_of_run[i] = -1;
	p->ngroups = 0;
	p->first = tc_xmalloc(tc_st_mult((size_t)nruns, sizeof(int32_t)));
	p->size = tc_xcalloc((size_t)nruns, sizeof(int32_t));
	for (int32_t r = 0; r < n; r++) {
		int32_t run = p->group[r];
		if (id_of_run[run] < 0) {
			id_of_run[run] = p->ngroups;
			p->first[p->ngroups++] = r;
		}
		p->group[r] = id_of_run[run];
		p->size[p->group[r]]++;
	}
	free(id_of_run);
}

/* {"groups":[{"label":..,"ranks":[..]},..]} */
static struct tc_json *groups_json(const struct partition *p, int32_t n, char **labels)
{
	struct tc_json *obj = tc_json_object(), *arr = tc_json_array();
	struct tc_json **ranks = tc_xmalloc(tc_st_mult((size_t)p->ngroups, sizeof(*ranks)));

	for (int32_t i = 0; i < p->ngroups; i++) {
		struct tc_json *g = tc_json_object();
		ranks[i] = tc_json_array();
		tc_json_set_str(g, "label", labels[i]);
		tc_json_set(g, "ranks", ranks[i]);
		tc_json_append(arr, g);
	}
	for (int32_t r = 0; r < n; r++)
		tc_json_append(ranks[p->group[r]], tc_json_int(r));
	free(ranks);
	tc_json_set(obj, "groups", arr);
	tc_json_set_int(obj, "count", p->ngroups);
	return obj;
}

struct label_ref {
	const char *s;
	int32_t group;
};

static int cmp_label_ref(const void *a, const void *b)
{
	const struct label_ref *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->group > y->group) - (x->group < y->group);
}

/* Make labels unique: the second and later groups of an equal label get
 * ".2", ".3", ... in order of their first rank. */
static void unique_labels(char **labels, int32_t n)
{
	struct label_ref *ref = tc_xmalloc(tc_st_mult((size_t)n, sizeof(*ref)));
	int32_t i = 0;

	for (int32_t k = 0; k < n; k++) {
		ref[k].s = labels[k];
		ref[k].group = k;
	}
	qsort(ref, (size_t)n, sizeof(*ref), cmp_label_ref);
	while (i < n) {
		int32_t j = i + 1;
		while (j < n && !strcmp(ref[j].s, ref[i].s))
			j++;
		for (int32_t k = i + 1; k < j; k++) {
			struct tc_strbuf sb = TC_STRBUF_INIT;
			tc_strbuf_addf(&sb, "%s.%" PRId32, ref[k].s, k - i + 1);
			labels[ref[k].group] = tc_strbuf_detach(&sb, NULL);
		}
		i = j;
	}
	free(ref);
}

static char **role_labels(const struct tc_synth_opts *o, const struct sg_pattern *pat,
			  const struct partition *p, int phase)
{
	char **labels = tc_xmalloc(tc_st_mult((size_t)p->ngroups, sizeof(*labels)));
	char buf[128];

	for (int32_t i = 0; i < p->ngroups; i++) {
		pat->label(o, p->first[i], phase, buf, sizeof(buf));
		labels[i] = tc_xstrdup(buf);
	}
	unique_labels(labels, p->ngroups);
	return labels;
}

static void free_labels(char **labels, int32_t n)
{
	for (int32_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
}

/*
 * Labels of the parameter groups: the call-path group's label, with ".k"
 * added when parameters split that group (k-th part by first rank).
 */
static char **param_labels(const struct partition *cp, char **cp_labels,
			   const struct partition *pp)
{
	char **labels = tc_xmalloc(tc_st_mult((size_t)pp->ngroups, sizeof(*labels)));
	int32_t *seen = tc_xcalloc((size_t)cp->ngroups, sizeof(int32_t));

	for (int32_t i = 0; i < pp->ngroups; i++) {
		int32_t c = cp->group[pp->first[i]];

		seen[c]++;
		if (pp->size[i] == cp->size[c]) {
			labels[i] = tc_xstrdup(cp_labels[c]);
		} else {
			struct tc_strbuf sb = TC_STRBUF_INIT;
			tc_strbuf_addf(&sb, "%s.%" PRId32, cp_labels[c], seen[c]);
			labels[i] = tc_strbuf_detach(&sb, NULL);
		}
	}
	free(seen);
	return labels;
}

static const char *const phase_kinds[] = { "halo", "allreduce", "gather" };

int tc_synth_truth_json(const struct tc_synth_opts *opts, struct tc_strbuf *out,
			struct tc_error *err)
{
	const struct sg_pattern *pat = sg_find_pattern(opts->pattern);
	int32_t n = opts->ranks;
	int nph = pat && pat->phased ? opts->phases : 0;
	struct keyed *kc, *kp, *kph = NULL;
	uint64_t (*phase_keys)[2] = NULL;
	struct partition cp, pp;
	struct tc_json *doc, *o, *arr;
	char **cpl, **ppl;
	char *text;

	if (!pat || n < 1 || !opts->iters || !opts->dims[0])
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "synth: options not validated");
	kc = tc_xmalloc(tc_st_mult((size_t)n, sizeof(*kc)));
	kp = tc_xmalloc(tc_st_mult((size_t)n, sizeof(*kp)));
	if (nph) {
		kph = tc_xmalloc(tc_st_mult(tc_st_mult((size_t)n, (size_t)nph), sizeof(*kph)));
		phase_keys = tc_xmalloc(tc_st_mult((size_t)nph, sizeof(*phase_keys)));
	}
	for (int32_t r = 0; r < n; r++) {
		struct sg g;

		sg_setup(&g, opts, r, true);
		if (nph) {
			for (int k = 0; k < nph; k++)
				phase_keys[k][0] = phase_keys[k][1] = 0x70686173ULL;
			g.kphase = phase_keys;
		}
		play(&g);
		sg_release(&g);
		kc[r] = (struct keyed){ g.kc[0], g.kc[1], r };
		kp[r] = (struct keyed){ g.kp[0], g.kp[1], r };
		for (int k = 0; k < nph; k++)
			kph[(size_t)k * (size_t)n + (size_t)r] =
				(struct keyed){ phase_keys[k][0], phase_keys[k][1], r };
	}
	partition_build(&cp, kc, n);
	partition_build(&pp, kp, n);
	cpl = role_labels(opts, pat, &cp, -1);
	ppl = param_labels(&cp, cpl, &pp);

	doc = tc_json_object();
	tc_json_set_int(doc, "schema", 1);
	tc_json_set_str(doc, "pattern", pat->name);
	tc_json_set_int(doc, "ranks", n);
	arr = tc_json_array();
	for (int i = 0; i < pat->ndims; i++)
		tc_json_append(arr, tc_json_int(opts->dims[i]));
	tc_json_set(doc, "dims", arr);
	o = tc_json_object();
	tc_json_set_int(o, "iters", opts->iters);
	tc_json_set_uint(o, "msg_bytes", opts->msg_bytes);
	tc_json_set_uint(o, "compute_ns", opts->compute_ns);
	tc_json_set_real(o, "jitter", opts->jitter);
	tc_json_set_real(o, "count_jitter", opts->count_jitter);
	tc_json_set_uint(o, "seed", opts->seed);
	if (nph)
		tc_json_set_int(o, "phases", nph);
	tc_json_set(doc, "options", o);
	tc_json_set_str(doc, "peer_encoding", "relative");
	tc_json_set_real(doc, "count_threshold", 0.05);
	tc_json_set(doc, "callpath", groups_json(&cp, n, cpl));
	tc_json_set(doc, "callpath_param", groups_json(&pp, n, ppl));
	free_labels(cpl, cp.ngroups);
	free_labels(ppl, pp.ngroups);

	if (nph) {
		struct tc_json *phases = tc_json_array(), *marker = tc_json_object();
		char sig[32];

		for (int k = 0; k < nph; k++) {
			struct partition ph;
			struct tc_json *pj = tc_json_object();
			char **pl;

			partition_build(&ph, kph + (size_t)k * (size_t)n, n);
			pl = role_labels(opts, pat, &ph, k);
			tc_json_set_int(pj, "index", k);
			tc_json_set_str(pj, "kind", phase_kinds[k % 3]);
			tc_json_set_int(pj, "first_step", (int64_t)k * opts->iters);
			tc_json_set_int(pj, "steps", opts->iters);
			tc_json_set(pj, "callpath", groups_json(&ph, n, pl));
			tc_json_append(phases, pj);
			free_labels(pl, ph.ngroups);
			partition_release(&ph);
		}
		tc_json_set(doc, "phases", phases);
		snprintf(sig, sizeof(sig), "0x%016" PRIx64, tc_synth_marker_signature(opts));
		tc_json_set_str(marker, "op", "MPI_Barrier");
		tc_json_set_str(marker, "callsite", sig);
		tc_json_set(doc, "marker", marker);
	}

	text = tc_json_dumps(doc, TC_JSON_COMPACT);
	tc_json_free(doc);
	partition_release(&cp);
	partition_release(&pp);
	free(kc);
	free(kp);
	free(kph);
	free(phase_keys);
	if (!text)
		return tc_error_set(err, TC_ERR, NULL, -1, "synth: cannot format the truth");
	tc_strbuf_addstr(out, text);
	tc_strbuf_addch(out, '\n');
	free(text);
	return 0;
}
