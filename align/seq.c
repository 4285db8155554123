/*
 * seq.c - a rank's event sequence for alignment: events with their
 * symbols, call sites with function names, parameters deduplicated.
 */
#include "lib/compat.h"
#include "align/align.h"
#include "align/internal.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Call-site ids above this are corruption, not data (as dump does). */
#define MAX_SITE_ID (1u << 22)

static const char *const akey_names[] = { "site", "function", "op" };

const char *tc_akey_name(int key)
{
	return key >= 0 && key < (int)TC_ARRAY_SIZE(akey_names) ? akey_names[key] : NULL;
}

int tc_akey_from_name(const char *name)
{
	for (size_t i = 0; i < TC_ARRAY_SIZE(akey_names); i++)
		if (!strcmp(name, akey_names[i]))
			return (int)i;
	return -1;
}

struct tc_aseq *tc_aseq_new(int32_t rank, int32_t world_size)
{
	struct tc_aseq *s = tc_xcalloc(1, sizeof(*s));

	s->rank = rank;
	s->world_size = world_size;
	s->key = TC_AKEY_SITE;
	return s;
}

void tc_aseq_free(struct tc_aseq **sp)
{
	struct tc_aseq *s = *sp;

	if (!s)
		return;
	*sp = NULL;
	for (size_t i = 0; i < s->nsites; i++) {
		struct tc_aseq_site *st = &s->sites[i];
		for (uint32_t k = 0; k < st->nframes; k++) {
			free(st->frames[k].fn);
			free(st->frames[k].symbol);
			free(st->frames[k].module);
		}
		free(st->frames);
	}
	free(s->sites);
	free(s->site_of_id);
	free(s->params);
	free(s->phash);
	free(s->sym);
	free(s->ev);
	free(s);
}

char *tc_fn_name(const char *symbol, const char *module, uint64_t offset)
{
	const char *plus;
	char buf[96];

	if (symbol && *symbol) {
		plus = strrchr(symbol, '+');
		if (plus && plus != symbol && plus[1] == '0' && plus[2] == 'x')
			return tc_xstrndup(symbol, (size_t)(plus - symbol));
		return tc_xstrdup(symbol);
	}
	if (module && *module) {
		const char *base = strrchr(module, '/');
		snprintf(buf, sizeof(buf), "%s@0x%" PRIx64, base ? base + 1 : module, offset);
	} else {
		snprintf(buf, sizeof(buf), "?@0x%" PRIx64, offset);
	}
	return tc_xstrdup(buf);
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

bool tc_module_is_shared(const char *module)
{
	const char *b = base_name(module ? module : ""), *p = b;

	while ((p = strstr(p, ".so")) != NULL) {
		if (p > b && (p[3] == '\0' || p[3] == '.'))
			return true;
		p += 3;
	}
	return false;
}

/* The key of every main program: a value no file name hashes to by
 * accident ("main program"). */
#define MAIN_MODULE_KEY 0x6d61696e2070726fULL

uint64_t tc_module_key(const char *module)
{
	const char *b;

	if (!module || !*module)
		return 0;
	if (!tc_module_is_shared(module))
		return MAIN_MODULE_KEY;
	b = base_name(module);
	return tc_hash64(b, strlen(b), 0x6d6f64756c65ULL);
}

uint64_t tc_frame_fn_hash(const struct tc_aseq_frame *f, uint64_t seed)
{
	if (!f->symbol[0] && f->modkey == MAIN_MODULE_KEY) {
		/* an unsymbolised frame of the main program: by its offset,
		 * not the program's file name */
		char buf[40];
		snprintf(buf, sizeof(buf), "@0x%" PRIx64, f->offset);
		return tc_hash64(buf, strlen(buf), tc_hash_mix(seed, MAIN_MODULE_KEY));
	}
	return tc_hash64(f->fn, strlen(f->fn), seed);
}

int tc_aseq_on_callsite(void *ctx, const struct tc_callsite *cs)
{
	struct tc_aseq *s = ctx;
	struct tc_aseq_site *st;
	uint64_t fk = 0x666e6b6579ULL; /* "fnkey" */
	uint64_t sk = 0x736974656b6579ULL; /* "sitekey" */

	if (cs->id >= MAX_SITE_ID)
		return 0;
	if (cs->id >= s->nsite_ids) {
		size_t n = s->nsite_ids ? s->nsite_ids : 16;
		while (n <= cs->id)
			n *= 2;
		s->site_of_id = tc_xrealloc(s->site_of_id, n * sizeof(*s->site_of_id));
		for (size_t i = s->nsite_ids; i < n; i++)
			s->site_of_id[i] = UINT32_MAX;
		s->nsite_ids = n;
	}
	TC_ALLOC_GROW(s->sites, s->nsites + 1, s->asites);
	st = &s->sites[s->nsites];
	memset(st, 0, sizeof(*st));
	st->signature = cs->signature;
	st->nframes = cs->nframes;
	st->frames = tc_xcalloc(cs->nframes ? cs->nframes : 1, sizeof(*st->frames));
	for (uint32_t k = 0; k < cs->nframes; k++) {
		const struct tc_frame *f = &cs->frames[k];
		struct tc_aseq_frame *d = &st->frames[k];
		d->symbol = tc_xstrdup(f->symbol ? f->symbol : "");
		d->module = tc_xstrdup(f->module ? f->module : "");
		d->offset = f->offset;
		d->modkey = tc_module_key(d->module);
		d->fn = tc_fn_name(d->symbol, d->module, d->offset);
		fk = tc_frame_fn_hash(d, fk);
		sk = tc_hash_mix(tc_hash_mix(sk, d->modkey), d->offset);
	}
	st->fnkey = fk;
	st->sitekey = cs->nframes ? sk : cs->signature;
	s->site_of_id[cs->id] = (uint32_t)s->nsites++;
	return 0;
}

static uint64_t param_hash(const struct tc_aseq_param *p)
{
	return tc_hash64(p, sizeof(*p), 0x7061726d);
}

static void phash_insert(struct tc_aseq *s, uint32_t idx)
{
	size_t mask = s->phash_size - 1;
	size_t h = (size_t)param_hash(&s->params[idx]) & mask;

	while (s->phash[h])
		h = (h + 1) & mask;
	s->phash[h] = idx + 1;
}

static uint32_t param_id(struct tc_aseq *s, const struct tc_aseq_param *p)
{
	size_t mask, h;

	if (s->nparams * 2 >= s->phash_size) {
		s->phash_size = s->phash_size ? s->phash_size * 2 : 64;
		free(s->phash);
		s->phash = tc_xcalloc(s->phash_size, sizeof(*s->phash));
		for (size_t i = 0; i < s->nparams; i++)
			phash_insert(s, (uint32_t)i);
	}
	mask = s->phash_size - 1;
	h = (size_t)param_hash(p) & mask;
	while (s->phash[h]) {
		uint32_t i = s->phash[h] - 1;
		if (!memcmp(&s->params[i], p, sizeof(*p)))
			return i;
		h = (h + 1) & mask;
	}
	TC_ALLOC_GROW(s->params, s->nparams + 1, s->aparams);
	s->params[s->nparams] = *p;
	s->phash[h] = (uint32_t)s->nparams + 1;
	return (uint32_t)s->nparams++;
}

static uint64_t symbol(const struct tc_aseq *s, const struct tc_aseq_event *e, int key)
{
	uint64_t h = tc_hash_fmix(0x73796d00ULL + e->op);
	const struct tc_aseq_site *st = e->site != UINT32_MAX ? &s->sites[e->site] : NULL;

	switch (key) {
	case TC_AKEY_FUNCTION:
		return tc_hash_mix(h, st ? st->fnkey : 0);
	case TC_AKEY_OP:
		return h;
	default:
		return tc_hash_mix(h, st ? st->sitekey : 0);
	}
}

int tc_aseq_on_event(void *ctx, const struct tc_event *ev)
{
	struct tc_aseq *s = ctx;
	struct tc_aseq_param p;
	struct tc_aseq_event *e;
	uint32_t f = ev->fields;

	if (s->max_events && s->n >= s->max_events) {
		s->truncated = true;
		return 1;
	}
	memset(&p, 0, sizeof(p));
	p.fields = f & (TC_F_COMM | TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE |
			TC_F_BYTES | TC_F_REDOP | TC_F_ROOT | TC_F_RPEER);
	p.comm = (f & TC_F_COMM) ? ev->comm : 0;
	p.peer = (f & TC_F_PEER) ? ev->peer : TC_PEER_NONE;
	p.tag = (f & TC_F_TAG) ? ev->tag : 0;
	p.rpeer = (f & TC_F_RPEER) ? ev->rpeer : TC_PEER_NONE;
	p.rtag = (f & TC_F_RPEER) ? ev->rtag : 0;
	p.root = (f & TC_F_ROOT) ? ev->root : -1;
	p.dtype = (f & TC_F_DTYPE) ? ev->dtype : 0;
	p.redop = (f & TC_F_REDOP) ? ev->redop : 0;
	p.count = (f & TC_F_COUNT) ? ev->count : 0;
	p.bytes = tc_event_bytes(ev);
	if (s->n + 1 > s->alloc) {
		TC_ALLOC_GROW(s->ev, s->n + 1, s->alloc);
		s->sym = tc_xrealloc(s->sym, tc_st_mult(s->alloc, sizeof(*s->sym)));
	}
	e = &s->ev[s->n];
	e->op = ev->op;
	e->site = ev->callsite < s->nsite_ids ? s->site_of_id[ev->callsite] : UINT32_MAX;
	e->param = param_id(s, &p);
	e->t_start = ev->t_start;
	e->t_end = ev->t_end >= ev->t_start ? ev->t_end : ev->t_start;
	s->sym[s->n] = symbol(s, e, s->key);
	s->n++;
	return 0;
}

void tc_aseq_rekey(struct tc_aseq *s, int key)
{
	s->key = key;
	for (size_t i = 0; i < s->n; i++)
		s->sym[i] = symbol(s, &s->ev[i], key);
}

const struct tc_aseq_site *tc_aseq_site_of(const struct tc_aseq *s, size_t i)
{
	return s->ev[i].site != UINT32_MAX ? &s->sites[s->ev[i].site] : NULL;
}

const char *tc_aseq_where(const struct tc_aseq *s, size_t i)
{
	const struct tc_aseq_site *st = tc_aseq_site_of(s, i);

	if (!st || !st->nframes)
		return "";
	return st->frames[0].symbol[0] ? st->frames[0].symbol : st->frames[0].fn;
}

/* Whether frames x and y are the same under key (site or function). */
static bool frame_equal(const struct tc_aseq_frame *x, const struct tc_aseq_frame *y, int key)
{
	if (key != TC_AKEY_FUNCTION)
		return x->modkey == y->modkey && x->offset == y->offset;
	if (!x->symbol[0] && !y->symbol[0] && x->modkey == MAIN_MODULE_KEY &&
	    y->modkey == MAIN_MODULE_KEY)
		return x->offset == y->offset;
	return !strcmp(x->fn, y->fn);
}

static void add_frame(struct tc_strbuf *out, const char *run, const struct tc_aseq_frame *f)
{
	if (f->module[0])
		tc_strbuf_addf(out, "%s %s+0x%" PRIx64, run, f->module, f->offset);
	else
		tc_strbuf_addf(out, "%s 0x%" PRIx64, run, f->offset);
	if (f->symbol[0])
		tc_strbuf_addf(out, " (%s)", f->symbol);
}

void tc_aseq_explain(const struct tc_aseq *a, size_t i, const struct tc_aseq *b, size_t j,
		     struct tc_strbuf *out)
{
	const struct tc_aseq_site *sa, *sb;
	uint32_t n;

	if (i == SIZE_MAX || j == SIZE_MAX) {
		if (i != j)
			tc_strbuf_addf(out, "%s has no event here", i == SIZE_MAX ? "A" : "B");
		return;
	}
	if (a->ev[i].op != b->ev[j].op) {
		const char *x = tc_op_name(a->ev[i].op), *y = tc_op_name(b->ev[j].op);
		tc_strbuf_addf(out, "operation: A %s, B %s", x ? x : "MPI_?", y ? y : "MPI_?");
		return;
	}
	if (a->key == TC_AKEY_OP || a->sym[i] == b->sym[j])
		return;
	sa = tc_aseq_site_of(a, i);
	sb = tc_aseq_site_of(b, j);
	if (!sa || !sb) {
		tc_strbuf_addf(out, "call site: A %s, B %s", sa ? "recorded" : "none",
			       sb ? "recorded" : "none");
		return;
	}
	n = TC_MIN(sa->nframes, sb->nframes);
	for (uint32_t k = 0; k < n; k++) {
		if (frame_equal(&sa->frames[k], &sb->frames[k], a->key))
			continue;
		tc_strbuf_addf(out, "call-site frame #%" PRIu32 ": ", k);
		add_frame(out, "A", &sa->frames[k]);
		tc_strbuf_addstr(out, ", ");
		add_frame(out, "B", &sb->frames[k]);
		return;
	}
	if (sa->nframes != sb->nframes)
		tc_strbuf_addf(out, "call stacks of %" PRIu32 " frames in A, %" PRIu32 " in B",
			       sa->nframes, sb->nframes);
	else
		tc_strbuf_addf(out, "call-site signatures: A 0x%016" PRIx64 ", B 0x%016" PRIx64,
			       sa->signature, sb->signature);
}

static void add_peer(struct tc_strbuf *out, const char *key, int32_t peer, int32_t rank)
{
	switch (peer) {
	case TC_ANY_SOURCE:
		tc_strbuf_addf(out, " %s=ANY", key);
		return;
	case TC_PROC_NULL:
		tc_strbuf_addf(out, " %s=NULL", key);
		return;
	}
	if (peer >= 0)
		tc_strbuf_addf(out, " %s=%+" PRId64 "(%" PRId32 ")", key,
			       (int64_t)peer - rank, peer);
}

void tc_aseq_format_params(const struct tc_aseq *s, size_t i, struct tc_strbuf *out)
{
	const struct tc_aseq_param *p = &s->params[s->ev[i].param];
	size_t start = out->len;

	if ((p->fields & TC_F_COMM) && p->comm)
		tc_strbuf_addf(out, " comm=%" PRIu32, p->comm);
	if (p->fields & TC_F_PEER)
		add_peer(out, "peer", p->peer, s->rank);
	if (p->fields & TC_F_TAG)
		tc_strbuf_addf(out, " tag=%" PRId32, p->tag);
	if (p->fields & TC_F_RPEER) {
		add_peer(out, "rpeer", p->rpeer, s->rank);
		tc_strbuf_addf(out, " rtag=%" PRId32, p->rtag);
	}
	if (p->fields & TC_F_ROOT)
		tc_strbuf_addf(out, " root=%" PRId32, p->root);
	if (p->fields & TC_F_COUNT)
		tc_strbuf_addf(out, " count=%" PRIu64, p->count);
	if (p->fields & TC_F_DTYPE) {
		const char *n = tc_dtype_name(p->dtype);
		tc_strbuf_addf(out, " %s", n ? n : "unknown-type");
	}
	if (p->fields & TC_F_REDOP) {
		const char *n = tc_redop_name(p->redop);
		tc_strbuf_addf(out, " %s", n ? n : "user-op");
	}
	if (p->bytes && !(p->fields & TC_F_COUNT))
		tc_strbuf_addf(out, " bytes=%" PRIu64, p->bytes);
	/* drop the leading blank */
	if (out->len > start) {
		memmove(out->buf + start, out->buf + start + 1, out->len - start);
		out->len--;
	}
}

static int64_t rel(int32_t peer, int32_t rank)
{
	return peer >= 0 ? (int64_t)peer - rank : (int64_t)INT32_MIN * 4 + peer;
}

bool tc_aseq_params_equal(const struct tc_aseq *a, size_t i, const struct tc_aseq *b,
			  size_t j, bool relative)
{
	const struct tc_aseq_param *p = &a->params[a->ev[i].param];
	const struct tc_aseq_param *q = &b->params[b->ev[j].param];
	int32_t ra = relative ? a->rank : 0, rb = relative ? b->rank : 0;

	if (p->fields != q->fields || p->comm != q->comm || p->tag != q->tag ||
	    p->rtag != q->rtag || p->dtype != q->dtype || p->redop != q->redop ||
	    p->count != q->count || p->bytes != q->bytes || p->root != q->root)
		return false;
	return rel(p->peer, ra) == rel(q->peer, rb) && rel(p->rpeer, ra) == rel(q->rpeer, rb);
}

uint64_t tc_aseq_comp_ns(const struct tc_aseq *s, size_t i)
{
	if (i == 0 || s->ev[i].t_start < s->ev[i - 1].t_end)
		return 0;
	return s->ev[i].t_start - s->ev[i - 1].t_end;
}

uint64_t tc_aseq_call_ns(const struct tc_aseq *s, size_t i)
{
	return s->ev[i].t_end - s->ev[i].t_start;
}
