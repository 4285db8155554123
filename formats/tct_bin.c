/*
 * tct_bin.c - the binary form of the global compressed trace: the same
 * tree as the text and JSON forms (lib/merge.h), written as varints into
 * one body that a general-purpose compressor (zstd or zlib) then
 * compresses. The format is specified in formats/tct-binary.md.
 *
 * Size comes from the layout as much as from the compressor: strings
 * (module paths, symbol names) are stored once and frames refer to them,
 * call sites refer to frames, a symbol "name+0xOFF" is stored as the name
 * and the offset, a stack signature that follows from the site's frames
 * (tc_stack_signature) is not stored, ranklists are ScalaTrace's
 * multi-dimensional items, a node's ranks and a variant's ranks are left
 * out when they equal the enclosing ones, peers are relative to the rank,
 * and times are whole nanoseconds (under --timing stats, 8-bit
 * mantissas: about 0.4%).
 */
#include "lib/compat.h"
#include "formats/tct.h"
#include "formats/tct_internal.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/merge.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/skew.h"
#include "lib/strbuf.h"
#include "lib/varint.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

static const uint8_t bin_magic[8] = { 0x89, 'T', 'C', 'T', 'B', '\r', '\n', 0x1a };
#define BIN_VERSION 1
#define BIN_HEADER_FIXED 10     /* magic, version, codec */

enum bin_codec {
	CODEC_STORED = 0,
	CODEC_ZLIB = 1,
	CODEC_ZSTD = 2,
};
#define ZSTD_LEVEL 19

/* node heads */
#define NODE_LOOP 1u
#define NODE_RANKS 2u           /* the node's own ranks follow */
/* variant heads */
#define VAR_SEQ 1u
#define VAR_RANKS 2u
#define VAR_ABSENT 4u
/* value sequence entry heads (low bits; the rest is reps - 1) */
#define ENT_CHUNK 1u
#define ENT_ABSENT 2u
#define ENT_SHIFT 2
/* a time statistic: spread * 2 + STAT_SPREAD when mean and deviation follow */
#define STAT_SPREAD 1u

/* ---- writing ------------------------------------------------------------ */

/* An index of interned items: slots hold item number + 1 (0: empty),
 * open addressing, at most half full. */
struct itab {
	uint32_t *slot;
	size_t mask;
};

struct bw {
	struct tc_strbuf *sb;
	/* strings and frames, interned */
	char **str;
	size_t nstr, astr;
	struct bframe {
		uint64_t module, offset, symbol, symoff; /* symoff: offset + 1, or 0 */
	} *fr;
	size_t nfr, afr;
	struct itab stab, ftab;
};

static void put_u(struct bw *w, uint64_t v)
{
	uint8_t b[TC_VARINT_MAX];

	tc_strbuf_add(w->sb, b, (size_t)(tc_varint_put(b, v) - b));
}

static void put_s(struct bw *w, int64_t v)
{
	put_u(w, tc_zigzag(v));
}

static void put_bytes(struct bw *w, const void *p, size_t n)
{
	put_u(w, n);
	tc_strbuf_add(w->sb, p, n);
}

static void put_f64(struct bw *w, double d)
{
	uint8_t b[8];
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(u >> (8 * i));
	tc_strbuf_add(w->sb, b, 8);
}

/* A relative peer: even codes are ranks (zigzag), odd ones the special
 * values (any, null, ...) below TC_REL_SPECIAL. */
static uint64_t peer_code(int64_t rel)
{
	if (tc_rel_is_rank(rel))
		return tc_zigzag(rel) << 1;
	return ((uint64_t)(TC_REL_SPECIAL - rel) << 1) - 1;
}

static uint64_t req_code(int64_t rel)
{
	return rel == TC_RSD_NOREQ ? 0 : tc_zigzag(rel) + 1;
}

static void put_rl(struct bw *w, const struct tc_ranklist *rl)
{
	struct rl_item *it;
	size_t n = tc_tct_rl_items(rl, &it);

	put_u(w, n);
	for (size_t i = 0; i < n; i++) {
		bool stride = it[i].len > 1 && it[i].stride != 1;
		put_s(w, it[i].start);
		put_u(w, it[i].len);
		put_u(w, (uint64_t)it[i].ndim << 1 | stride);
		if (stride)
			put_s(w, it[i].stride);
		for (uint32_t k = 0; k < it[i].ndim; k++) {
			put_u(w, it[i].n[k]);
			put_s(w, it[i].d[k]);
		}
	}
	free(it);
}

static void put_word(struct bw *w, enum tc_gparam_kind kind, int64_t x)
{
	switch (kind) {
	case TC_GPK_PEER:
		put_u(w, peer_code(x));
		break;
	case TC_GPK_REQ:
		put_u(w, req_code(x));
		break;
	case TC_GPK_UINT:
	case TC_GPK_DTYPE:
	case TC_GPK_REDOP:
		put_u(w, (uint64_t)x);
		break;
	default:
		put_s(w, x);
	}
}

/* A present value (n words). */
static void put_val(struct bw *w, enum tc_gparam_kind kind, const struct tc_gval *v)
{
	const int64_t *x = tc_gval_words(v);

	if (kind == TC_GPK_COMPL) {
		put_u(w, v->n / 4);
		for (uint32_t i = 0; i + 3 < v->n; i += 4) {
			put_u(w, req_code(x[i]));
			put_u(w, peer_code(x[i + 1]));
			put_s(w, x[i + 2]);
			put_u(w, (uint64_t)x[i + 3]);
		}
	} else if (kind == TC_GPK_UARRAY) {
		put_u(w, v->n);
		for (uint32_t i = 0; i < v->n; i++)
			put_u(w, (uint64_t)x[i]);
	} else {
		put_word(w, kind, x[0]);
	}
}

static void put_seq(struct bw *w, enum tc_gparam_kind kind, const struct tc_gseq *s)
{
	put_u(w, s->n);
	for (uint32_t i = 0; i < s->n; i++) {
		const struct tc_gseq_ent *e = &s->e[i];
		uint64_t head = (e->reps - 1) << ENT_SHIFT;
		if (e->chunk) {
			put_u(w, head | ENT_CHUNK);
			put_seq(w, kind, e->chunk);
		} else if (e->val.n == TC_GVAL_ABSENT) {
			put_u(w, head | ENT_ABSENT);
		} else {
			put_u(w, head);
			put_val(w, kind, &e->val);
		}
	}
}

static void put_hist(struct bw *w, const struct tc_hist *h)
{
	put_rl(w, &h->ranks);
	put_u(w, h->n);
	put_s(w, h->min);
	put_s(w, h->max);
	put_s(w, h->min_rank);
	put_s(w, h->max_rank);
	put_u(w, h->nbins);
	for (uint32_t k = 0; k < h->nbins; k++) {
		const struct tc_hbin *b = &h->bins[k];
		put_s(w, b->lo);
		put_u(w, (uint64_t)(b->hi - b->lo));
		put_u(w, b->n);
		put_f64(w, b->mean);
		put_f64(w, b->m2);
	}
}

static void put_param(struct bw *w, enum tc_gparam_kind kind, const struct tc_gparam *gp,
		      const struct tc_ranklist *node_ranks)
{
	put_u(w, (uint64_t)gp->nvar << 1 | (gp->hist != NULL));
	for (uint32_t i = 0; i < gp->nvar; i++) {
		const struct tc_gvar *v = &gp->var[i];
		bool ranks = !tc_tct_rl_same(&v->ranks, node_ranks);
		unsigned head = (v->seq ? VAR_SEQ : 0) | (ranks ? VAR_RANKS : 0) |
				(!v->seq && v->val.n == TC_GVAL_ABSENT ? VAR_ABSENT : 0);
		put_u(w, head);
		if (ranks)
			put_rl(w, &v->ranks);
		if (v->seq)
			put_seq(w, kind, v->seq);
		else if (!(head & VAR_ABSENT))
			put_val(w, kind, &v->val);
	}
	if (gp->hist)
		put_hist(w, gp->hist);
}

/* Whole nanoseconds; the count is the event's (or the time entry's). */
static uint64_t round_ns(double x)
{
	return x <= 0 || !isfinite(x) ? 0 : (uint64_t)llround(x);
}

static void put_stat(struct bw *w, const struct tc_rsd_stat *s)
{
	bool spread = s->n > 1 && s->max > s->min;

	put_s(w, s->min);
	put_u(w, (uint64_t)(s->max - s->min) << 1 | (spread ? STAT_SPREAD : 0));
	if (spread) {
		put_u(w, round_ns(s->mean - (double)s->min));
		put_u(w, round_ns(tc_rsd_stat_stddev(s)));
	}
}

/*
 * A mean of a time entry under --timing stats, to about 0.4%: below 256 ns
 * exact, above as an 8-bit mantissa m (128..255) and an exponent e >= 1,
 * coded 256 + (e - 1) * 128 + (m - 128).
 */
static uint64_t qtime_code(double x)
{
	uint64_t v = round_ns(x), m;
	unsigned e = 0;

	if (v < 256)
		return v;
	while ((v >> e) >= 256)
		e++;
	m = (v + ((uint64_t)1 << (e - 1))) >> e;
	if (m == 256) {
		m = 128;
		e++;
	}
	return 256 + (uint64_t)(e - 1) * 128 + (m - 128);
}

static bool qtime_value(uint64_t c, double *x)
{
	uint64_t e, m;

	if (c < 256) {
		*x = (double)c;
		return true;
	}
	e = (c - 256) / 128 + 1;
	m = (c - 256) % 128 + 128;
	if (e > 55)
		return false;
	*x = (double)(m << e);
	return true;
}

/* Layout of the time entries of an event (TIMES_*). */
#define TIMES_VECTOR 1u         /* an entry number per rank, not ranklists */
#define TIMES_EVEN 2u           /* every rank has n / ranks occurrences */

/* Whether every entry's count is its share of the event's. */
static bool times_even(const struct tc_gnode *nd)
{
	for (uint32_t i = 0; i < nd->ntimes; i++)
		if (nd->times[i].comp.n * nd->ranks.count != nd->comp.n * nd->times[i].ranks.count)
			return false;
	return true;
}

/* Bytes of the entries' ranklists against a per-rank entry number. */
static bool times_vector(const struct tc_gnode *nd)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct bw tmp;
	size_t rl;

	memset(&tmp, 0, sizeof(tmp));
	tmp.sb = &sb;
	for (uint32_t i = 0; i < nd->ntimes; i++)
		put_rl(&tmp, &nd->times[i].ranks);
	rl = sb.len;
	tc_strbuf_release(&sb);
	return nd->ranks.count * (nd->ntimes > 127 ? 2 : 1) < rl;
}

static void put_entry_numbers(struct bw *w, const struct tc_gnode *nd)
{
	int32_t *ranks = tc_xcalloc(nd->ranks.count, sizeof(*ranks));
	uint32_t *idx = tc_xcalloc(nd->ranks.count, sizeof(*idx));

	tc_ranklist_expand(&nd->ranks, ranks);
	for (uint32_t i = 0; i < nd->ntimes; i++) {
		const struct tc_ranklist *rl = &nd->times[i].ranks;
		for (size_t k = 0; k < rl->nruns; k++)
			for (uint32_t j = 0; j < rl->runs[k].len; j++) {
				int32_t r = rl->runs[k].start + (int32_t)j * rl->runs[k].stride;
				size_t lo = 0, hi = nd->ranks.count;
				while (lo < hi) {
					size_t mid = lo + (hi - lo) / 2;
					if (ranks[mid] < r)
						lo = mid + 1;
					else
						hi = mid;
				}
				if (lo < nd->ranks.count && ranks[lo] == r)
					idx[lo] = i;
			}
	}
	for (uint64_t k = 0; k < nd->ranks.count; k++)
		put_u(w, idx[k]);
	free(ranks);
	free(idx);
}

/* A statistic under --timing stats: every number to about 0.4% (a
 * negative minimum is kept as 0). */
static void put_qstat(struct bw *w, const struct tc_rsd_stat *s)
{
	bool spread = s->n > 1 && s->max > s->min;
	double lo = s->min > 0 ? (double)s->min : 0;

	put_u(w, qtime_code(lo));
	put_u(w, qtime_code((double)s->max - lo) << 1 | (spread ? STAT_SPREAD : 0));
	if (spread) {
		put_u(w, qtime_code(s->mean - lo));
		put_u(w, qtime_code(tc_rsd_stat_stddev(s)));
	}
}

static void put_times(struct bw *w, const struct tc_gtrace *g, const struct tc_gnode *nd)
{
	uint32_t nt = nd->ntimes > 1 ? nd->ntimes : 0; /* one entry: the node's own */
	unsigned layout = 0;

	if (g->timing == TC_GTIMING_NONE)
		return;
	put_u(w, nt);
	if (g->timing == TC_GTIMING_STATS) {
		put_qstat(w, &nd->comp);
		put_qstat(w, &nd->comm);
	} else if (!nt) {
		put_stat(w, &nd->comp);
		put_stat(w, &nd->comm);
	}
	if (!nt)
		return;
	layout = (times_vector(nd) ? TIMES_VECTOR : 0) | (times_even(nd) ? TIMES_EVEN : 0);
	put_u(w, layout);
	if (layout & TIMES_VECTOR)
		put_entry_numbers(w, nd);
	for (uint32_t i = 0; i < nt; i++) {
		const struct tc_gtime *t = &nd->times[i];
		if (!(layout & TIMES_VECTOR))
			put_rl(w, &t->ranks);
		if (!(layout & TIMES_EVEN))
			put_u(w, t->comp.n);
		if (g->timing == TC_GTIMING_STATS) {
			put_u(w, qtime_code(t->comp.mean));
			put_u(w, qtime_code(t->comm.mean));
		} else {
			put_stat(w, &t->comp);
			put_stat(w, &t->comm);
		}
	}
}

static uint64_t site_index(const struct tc_gtrace *g, uint64_t sig)
{
	ptrdiff_t i = tc_gtrace_site(g, sig);
	return i < 0 ? 0 : (uint64_t)i;
}

static void put_node(struct bw *w, const struct tc_gtrace *g, const struct tc_gnode *nd,
		     const struct tc_ranklist *parent)
{
	bool ranks = !tc_tct_rl_same(&nd->ranks, parent);

	put_u(w, (nd->nbody ? NODE_LOOP : 0) | (ranks ? NODE_RANKS : 0));
	if (ranks)
		put_rl(w, &nd->ranks);
	if (nd->nbody) {
		put_param(w, TC_GPK_UINT, &nd->iters, &nd->ranks);
		put_u(w, nd->nbody);
		for (uint32_t i = 0; i < nd->nbody; i++)
			put_node(w, g, &nd->body[i], &nd->ranks);
		return;
	}
	{
		uint64_t mask = 0;
		put_u(w, nd->op);
		put_u(w, site_index(g, nd->stack));
		put_u(w, nd->comp.n);
		for (unsigned p = 0; p < TC_GP_N; p++)
			if (nd->p[p].nvar || nd->p[p].hist)
				mask |= (uint64_t)1 << p;
		put_u(w, mask);
		for (unsigned p = 0; p < TC_GP_N; p++)
			if (mask >> p & 1)
				put_param(w, tc_gparam_kind(p), &nd->p[p], &nd->ranks);
		put_times(w, g, nd);
	}
}

/* Grow t to hold n + 1 items; hash(i) rehashes item i. */
static void itab_reserve(struct itab *t, size_t n, uint64_t (*hash)(const struct bw *, size_t),
			 const struct bw *w)
{
	size_t cap = t->slot ? t->mask + 1 : 0;

	if (2 * (n + 1) <= cap)
		return;
	cap = cap ? 2 * cap : 64;
	while (2 * (n + 1) > cap)
		cap *= 2;
	free(t->slot);
	t->slot = tc_xcalloc(cap, sizeof(*t->slot));
	t->mask = cap - 1;
	for (size_t i = 0; i < n; i++) {
		size_t j = hash(w, i) & t->mask;
		while (t->slot[j])
			j = (j + 1) & t->mask;
		t->slot[j] = (uint32_t)(i + 1);
	}
}

static uint64_t str_hash(const char *s)
{
	return tc_hash64(s, strlen(s), 0);
}

static uint64_t stab_hash(const struct bw *w, size_t i)
{
	return str_hash(w->str[i]);
}

static uint64_t frame_hash(const struct bframe *b)
{
	return tc_hash64(b, sizeof(*b), 0);
}

static uint64_t ftab_hash(const struct bw *w, size_t i)
{
	return frame_hash(&w->fr[i]);
}

static uint64_t intern_str(struct bw *w, const char *s)
{
	size_t j;

	itab_reserve(&w->stab, w->nstr, stab_hash, w);
	for (j = str_hash(s) & w->stab.mask; w->stab.slot[j]; j = (j + 1) & w->stab.mask)
		if (!strcmp(w->str[w->stab.slot[j] - 1], s))
			return w->stab.slot[j] - 1;
	TC_ALLOC_GROW(w->str, w->nstr + 1, w->astr);
	w->str[w->nstr] = tc_xstrdup(s);
	w->stab.slot[j] = (uint32_t)(w->nstr + 1);
	return w->nstr++;
}

/* "name+0xHEX" as name and offset, when printing them back gives the
 * same string; otherwise the whole symbol and no offset. */
static void split_symbol(const char *sym, char **name, uint64_t *symoff)
{
	const char *plus = strrchr(sym, '+');
	char *end;
	unsigned long long off;
	char back[24];

	*symoff = 0;
	if (plus && plus[1] == '0' && plus[2] == 'x' && plus[3]) {
		off = strtoull(plus + 3, &end, 16);
		snprintf(back, sizeof(back), "0x%llx", off);
		if (!*end && !strcmp(back, plus + 1) && off < UINT64_MAX) {
			*name = tc_xstrndup(sym, (size_t)(plus - sym));
			*symoff = off + 1;
			return;
		}
	}
	*name = tc_xstrdup(sym);
}

static uint64_t intern_frame(struct bw *w, const struct tc_gframe *f)
{
	struct bframe b;
	char *name;
	size_t j;

	b.module = intern_str(w, f->module ? f->module : "");
	b.offset = f->offset;
	split_symbol(f->symbol ? f->symbol : "", &name, &b.symoff);
	b.symbol = intern_str(w, name);
	free(name);
	itab_reserve(&w->ftab, w->nfr, ftab_hash, w);
	for (j = frame_hash(&b) & w->ftab.mask; w->ftab.slot[j]; j = (j + 1) & w->ftab.mask)
		if (!memcmp(&w->fr[w->ftab.slot[j] - 1], &b, sizeof(b)))
			return w->ftab.slot[j] - 1;
	TC_ALLOC_GROW(w->fr, w->nfr + 1, w->afr);
	w->fr[w->nfr] = b;
	w->ftab.slot[j] = (uint32_t)(w->nfr + 1);
	return w->nfr++;
}

static uint64_t frames_signature(const struct tc_gsite *s)
{
	struct tc_frame *fr = tc_xcalloc(s->nframes ? s->nframes : 1, sizeof(*fr));
	uint64_t sig;

	for (uint32_t k = 0; k < s->nframes; k++) {
		fr[k].module = s->frames[k].module;
		fr[k].offset = s->frames[k].offset;
		fr[k].symbol = s->frames[k].symbol;
	}
	sig = tc_stack_signature(fr, s->nframes);
	free(fr);
	return sig;
}

static void put_body(struct bw *w, const struct tc_gtrace *g)
{
	struct tc_strbuf sites = TC_STRBUF_INIT, *main_sb = w->sb;

	put_u(w, (uint64_t)g->world_size);
	put_rl(w, &g->ranks);
	put_bytes(w, g->mode, strlen(g->mode));
	put_bytes(w, g->variant, strlen(g->variant));
	put_u(w, g->timing);
	put_u(w, (uint64_t)llround(g->precision * 1000));
	put_u(w, g->bins);
	put_u(w, g->leads);
	put_u(w, g->events);

	/* sites first into their own buffer: they intern the strings and
	 * frames, which the body lists before them */
	w->sb = &sites;
	put_u(w, g->nsites);
	for (size_t i = 0; i < g->nsites; i++) {
		const struct tc_gsite *s = &g->sites[i];
		bool derived = s->nframes && frames_signature(s) == s->sig;
		put_u(w, (uint64_t)s->nframes << 1 | !derived);
		if (!derived) {
			uint8_t b[8];
			for (int k = 0; k < 8; k++)
				b[k] = (uint8_t)(s->sig >> (8 * k));
			tc_strbuf_add(w->sb, b, 8);
		}
		for (uint32_t k = 0; k < s->nframes; k++)
			put_u(w, intern_frame(w, &s->frames[k]));
	}
	w->sb = main_sb;
	put_u(w, w->nstr);
	for (size_t i = 0; i < w->nstr; i++)
		put_bytes(w, w->str[i], strlen(w->str[i]));
	put_u(w, w->nfr);
	for (size_t i = 0; i < w->nfr; i++) {
		put_u(w, w->fr[i].module);
		put_u(w, w->fr[i].offset);
		put_u(w, w->fr[i].symbol);
		put_u(w, w->fr[i].symoff);
	}
	tc_strbuf_add(w->sb, sites.buf ? sites.buf : "", sites.len);
	tc_strbuf_release(&sites);

	put_u(w, g->n);
	for (size_t i = 0; i < g->n; i++)
		put_node(w, g, &g->seq[i], &g->ranks);
	/* the communicator table, when there is one, after the nodes (a
	 * body that ends with them has none); then the tracer's time when
	 * measured (the table's count, 0 too, before it) */
	if (g->ncomms || g->tracer_ns || g->ntracer_ops || g->skew)
		put_u(w, g->ncomms);
	for (size_t i = 0; i < g->ncomms; i++) {
		const struct tc_gcomm *c = &g->comms[i];
		put_u(w, c->id);
		put_rl(w, &c->ranks);
		put_u(w, c->parent);
		put_u(w, c->creator);
		put_u(w, c->size);
		put_u(w, (c->members ? 1u : 0u) | (c->ndims ? 2u : 0u) | (c->graph ? 4u : 0u) |
			 (c->graph && c->weighted ? 8u : 0u));
		for (uint32_t k = 0; c->members && k < c->size; k++)
			put_s(w, c->members[k]);
		if (c->ndims) {
			put_u(w, c->ndims);
			for (uint32_t d = 0; d < c->ndims; d++)
				put_s(w, c->dims[d]);
			put_u(w, c->periods);
		}
		if (c->graph) {
			put_u(w, c->nin);
			put_u(w, c->nout);
			for (size_t k = 0; k < tc_gcomm_edge_words(c); k++)
				put_s(w, c->edges[k]);
		}
	}
	/* then the tracer's time per op when measured (the mean, 0 too,
	 * before it) */
	if (g->tracer_ns || g->ntracer_ops || g->skew)
		put_u(w, g->tracer_ns);
	if (g->ntracer_ops || g->skew)
		put_u(w, g->ntracer_ops);
	for (size_t i = 0; i < g->ntracer_ops; i++) {
		put_u(w, g->tracer_ops[i].op);
		put_u(w, g->tracer_ops[i].ns);
		put_u(w, g->tracer_ops[i].calls);
	}
	/* then the ranks' skews when known (their count, 0 too, before them) */
	for (int32_t k = 0; g->skew && k < g->world_size; k++)
		put_u(w, g->skew[k]);
	/* then the concurrency when known (its count before it) */
	if (g->skew && g->nconc) {
		put_u(w, g->nconc);
		for (size_t k = 0; k < g->nconc; k++)
			put_u(w, g->conc[k]);
	}
}

static void put_le32(struct tc_strbuf *sb, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	tc_strbuf_add(sb, b, 4);
}

void tc_tct_bin_format(const struct tc_gtrace *g, struct tc_strbuf *out)
{
	struct tc_strbuf body = TC_STRBUF_INIT;
	struct bw w;
	uint8_t v[TC_VARINT_MAX];
	size_t cap, n, codec_at;
	uLong crc;

	memset(&w, 0, sizeof(w));
	w.sb = &body;
	put_body(&w, g);
	for (size_t i = 0; i < w.nstr; i++)
		free(w.str[i]);
	free(w.str);
	free(w.fr);
	free(w.stab.slot);
	free(w.ftab.slot);

	tc_strbuf_add(out, bin_magic, sizeof(bin_magic));
	tc_strbuf_addch(out, BIN_VERSION);
	codec_at = out->len;
	tc_strbuf_addch(out, CODEC_ZSTD);
	tc_strbuf_add(out, v, (size_t)(tc_varint_put(v, body.len) - v));
	crc = crc32(0L, Z_NULL, 0);
	for (size_t off = 0; off < body.len;) {
		size_t k = body.len - off > (1u << 30) ? (1u << 30) : body.len - off;
		crc = crc32(crc, (const Bytef *)body.buf + off, (uInt)k);
		off += k;
	}
	put_le32(out, (uint32_t)crc);
	cap = ZSTD_compressBound(body.len);
	tc_strbuf_grow(out, cap);
	n = ZSTD_compress(out->buf + out->len, cap, body.buf ? body.buf : "", body.len, ZSTD_LEVEL);
	if (ZSTD_isError(n) || n >= body.len) {
		/* stored is never larger than the body */
		out->buf[codec_at] = CODEC_STORED;
		tc_strbuf_add(out, body.buf ? body.buf : "", body.len);
	} else {
		out->len += n;
		out->buf[out->len] = '\0';
	}
	tc_strbuf_release(&body);
}

/* ---- reading ------------------------------------------------------------ */

#define MAX_BODY ((uint64_t)1 << 31)
#define MAX_STRING ((uint64_t)1 << 20)

struct br {
	struct rd *rd;          /* the node places, or NULL */
	const uint8_t *p, *start, *end;
	const char *name;
	uint64_t base;          /* offset of the body in the decompressed stream */
	struct tc_error *err;
	struct tc_gtrace *g;
	char **str;
	uint64_t nstr;
	struct tc_gframe *fr;
	uint64_t nfr;
};

static int fail(struct br *r, const char *msg)
{
	return tc_error_set(r->err, TC_ERR_FORMAT, r->name, -1, "body byte %td: %s",
			    r->p - r->start, msg);
}

static bool get_u(struct br *r, uint64_t *v)
{
	const uint8_t *q = tc_varint_get(r->p, r->end, v);

	if (!q)
		return false;
	r->p = q;
	return true;
}

static bool get_s(struct br *r, int64_t *v)
{
	uint64_t u;

	if (!get_u(r, &u))
		return false;
	*v = tc_unzigzag(u);
	return true;
}

/* A count of things each at least min_bytes long: at most what is left. */
static bool get_count(struct br *r, uint64_t *n, uint64_t cap, uint64_t min_bytes)
{
	return get_u(r, n) && *n <= cap && *n <= (uint64_t)(r->end - r->p) / min_bytes;
}

static bool get_f64(struct br *r, double *d)
{
	uint64_t u = 0;

	if (r->end - r->p < 8)
		return false;
	for (int i = 0; i < 8; i++)
		u |= (uint64_t)r->p[i] << (8 * i);
	r->p += 8;
	memcpy(d, &u, sizeof(*d));
	return isfinite(*d);
}

static bool peer_decode(uint64_t c, int64_t *rel)
{
	if (!(c & 1)) {
		*rel = tc_unzigzag(c >> 1);
		return tc_rel_is_rank(*rel);
	}
	c = (c + 1) >> 1;
	if (c > (uint64_t)INT32_MAX + 1)
		return false;
	*rel = TC_REL_SPECIAL - (int64_t)c;
	return true;
}

static bool req_decode(uint64_t c, int64_t *rel)
{
	*rel = c ? tc_unzigzag(c - 1) : TC_RSD_NOREQ;
	return true;
}

static int get_rl(struct br *r, struct tc_ranklist *rl)
{
	struct rl_build b = { NULL, 0, 0, r->g->world_size };
	uint64_t n;
	const char *msg = NULL;

	if (!get_count(r, &n, MAX_WORLD, 3))
		return fail(r, "bad ranklist");
	for (uint64_t i = 0; i < n && !msg; i++) {
		struct rl_item it;
		uint64_t dims;
		memset(&it, 0, sizeof(it));
		it.stride = 1;
		if (!get_s(r, &it.start) || !get_u(r, &it.len) || !get_u(r, &dims) ||
		    (dims >> 1) > RL_DIMS || ((dims & 1) && !get_s(r, &it.stride))) {
			tc_tct_rl_build_release(&b);
			return fail(r, "bad ranklist item");
		}
		it.ndim = (uint32_t)(dims >> 1);
		for (uint32_t k = 0; k < it.ndim; k++)
			if (!get_u(r, &it.n[k]) || !get_s(r, &it.d[k])) {
				tc_tct_rl_build_release(&b);
				return fail(r, "bad ranklist item");
			}
		msg = tc_tct_rl_build_add(&b, &it);
	}
	if (msg || (msg = tc_tct_rl_build_finish(&b, rl))) {
		tc_tct_rl_build_release(&b);
		return fail(r, msg);
	}
	return 0;
}

static int get_word(struct br *r, enum tc_gparam_kind kind, int64_t *x)
{
	uint64_t u;

	switch (kind) {
	case TC_GPK_PEER:
		if (!get_u(r, &u) || !peer_decode(u, x))
			return fail(r, "bad peer");
		return 0;
	case TC_GPK_REQ:
		if (!get_u(r, &u) || !req_decode(u, x))
			return fail(r, "bad request");
		return 0;
	case TC_GPK_UINT:
	case TC_GPK_DTYPE:
	case TC_GPK_REDOP:
		if (!get_u(r, &u))
			return fail(r, "bad value");
		*x = (int64_t)u;
		return 0;
	default:
		if (!get_s(r, x))
			return fail(r, "bad value");
		return 0;
	}
}

static int get_val(struct br *r, unsigned p, enum tc_gparam_kind kind, struct tc_gval *out)
{
	const char *msg;
	int64_t *w = NULL;
	uint64_t n;

	out->n = TC_GVAL_ABSENT;
	if (kind == TC_GPK_COMPL || kind == TC_GPK_UARRAY) {
		size_t per = kind == TC_GPK_COMPL ? 4 : 1;
		if (!get_count(r, &n, MAX_WORDS / per, per))
			return fail(r, "bad array length");
		w = tc_xcalloc(n ? n * per : 1, sizeof(*w));
		for (uint64_t i = 0; i < n; i++) {
			uint64_t u;
			if (kind == TC_GPK_UARRAY) {
				if (!get_u(r, &u))
					goto bad;
				w[i] = (int64_t)u;
				continue;
			}
			if (!get_u(r, &u) || !req_decode(u, &w[4 * i]) || !get_u(r, &u) ||
			    !peer_decode(u, &w[4 * i + 1]) || !get_s(r, &w[4 * i + 2]) || !get_u(r, &u))
				goto bad;
			w[4 * i + 3] = (int64_t)u;
		}
		tc_gval_set(out, (uint32_t)(n * per), w);
		free(w);
	} else {
		int64_t x;
		if (get_word(r, kind, &x))
			return TC_ERR_FORMAT;
		tc_gval_set(out, 1, &x);
	}
	if ((msg = tc_tct_val_check(p, out))) {
		tc_gval_release(out);
		return fail(r, msg);
	}
	return 0;
bad:
	free(w);
	return fail(r, "bad array value");
}

static int get_seq(struct br *r, unsigned p, enum tc_gparam_kind kind, struct tc_gseq *s,
		   int depth)
{
	uint64_t n;

	if (depth > MAX_SEQ_DEPTH)
		return fail(r, "value sequence nested too deeply");
	if (!get_count(r, &n, UINT32_MAX, 1) || !n)
		return fail(r, "bad value sequence");
	for (uint64_t i = 0; i < n; i++) {
		uint64_t head, reps;
		if (!get_u(r, &head))
			return fail(r, "bad value sequence entry");
		reps = (head >> ENT_SHIFT) + 1;
		if (head & ENT_CHUNK) {
			struct tc_gseq *c = tc_gseq_new();
			if (get_seq(r, p, kind, c, depth + 1)) {
				tc_gseq_free(c);
				return TC_ERR_FORMAT;
			}
			if (!tc_tct_occ_add_ok(s->len, c->len, reps)) {
				tc_gseq_free(c);
				return fail(r, "value sequence too long");
			}
			tc_gseq_add_chunk(s, c, reps);
		} else {
			struct tc_gval v = { .n = TC_GVAL_ABSENT };
			if (!(head & ENT_ABSENT) && get_val(r, p, kind, &v))
				return TC_ERR_FORMAT;
			if (!tc_tct_occ_add_ok(s->len, 1, reps)) {
				tc_gval_release(&v);
				return fail(r, "value sequence too long");
			}
			tc_gseq_add_val(s, &v, reps);
			tc_gval_release(&v);
		}
	}
	return 0;
}

static int get_hist(struct br *r, const struct tc_ranklist *node_ranks, struct tc_hist **out)
{
	struct tc_hist *h = tc_xcalloc(1, sizeof(*h));
	const char *msg;
	uint64_t nb, hl;
	int64_t mr, xr;

	*out = h;
	if (get_rl(r, &h->ranks))
		return TC_ERR_FORMAT;
	if (!get_u(r, &h->n) || !get_s(r, &h->min) || !get_s(r, &h->max) || !get_s(r, &mr) ||
	    !get_s(r, &xr) || mr < 0 || mr >= r->g->world_size || xr < 0 ||
	    xr >= r->g->world_size || !get_count(r, &nb, TC_HIST_BINS_MAX, 19))
		return fail(r, "bad histogram");
	h->min_rank = (int32_t)mr;
	h->max_rank = (int32_t)xr;
	h->bins = tc_xcalloc(nb ? nb : 1, sizeof(*h->bins));
	for (uint64_t k = 0; k < nb; k++) {
		struct tc_hbin *b = &h->bins[k];
		if (!get_s(r, &b->lo) || !get_u(r, &hl) || hl > (uint64_t)INT64_MAX - (uint64_t)b->lo ||
		    !get_u(r, &b->n) || !get_f64(r, &b->mean) || !get_f64(r, &b->m2))
			return fail(r, "bad histogram bin");
		b->hi = (int64_t)((uint64_t)b->lo + hl);
		h->nbins++;
	}
	if ((msg = tc_tct_hist_check(h)))
		return fail(r, msg);
	if (!tc_tct_rl_within(&h->ranks, node_ranks))
		return fail(r, "histogram ranks outside the node's ranks");
	return 0;
}

static int get_param(struct br *r, unsigned p, struct tc_gparam *gp,
		     const struct tc_ranklist *node_ranks)
{
	enum tc_gparam_kind kind = p == TC_GP_N ? TC_GPK_UINT : tc_gparam_kind(p);
	uint64_t head, nvar;

	if (!get_u(r, &head) || !(nvar = head >> 1, nvar <= (uint64_t)(r->end - r->p)) ||
	    nvar > MAX_WORLD || (!nvar && !(head & 1)))
		return fail(r, "bad parameter");
	gp->var = tc_xcalloc(nvar ? nvar : 1, sizeof(*gp->var));
	for (uint64_t i = 0; i < nvar; i++) {
		struct tc_gvar *v = &gp->var[gp->nvar++];
		uint64_t vh;
		v->val.n = TC_GVAL_ABSENT;
		if (!get_u(r, &vh) || vh > (VAR_SEQ | VAR_RANKS | VAR_ABSENT) ||
		    ((vh & VAR_SEQ) && (vh & VAR_ABSENT)))
			return fail(r, "bad parameter variant");
		if (vh & VAR_RANKS) {
			if (get_rl(r, &v->ranks))
				return TC_ERR_FORMAT;
			if (!v->ranks.count || !tc_tct_rl_within(&v->ranks, node_ranks))
				return fail(r, "variant ranks outside the node's ranks");
		} else {
			tc_granks_copy(&v->ranks, node_ranks);
		}
		if (vh & VAR_SEQ) {
			v->seq = tc_gseq_new();
			if (get_seq(r, p, kind, v->seq, 0))
				return TC_ERR_FORMAT;
		} else if (!(vh & VAR_ABSENT)) {
			if (get_val(r, p, kind, &v->val))
				return TC_ERR_FORMAT;
		} else if (p == TC_GP_N) {
			return fail(r, "loop count missing");
		}
	}
	if ((head & 1) && get_hist(r, node_ranks, &gp->hist))
		return TC_ERR_FORMAT;
	return 0;
}

/* A statistic of n occurrences. */
static int get_stat(struct br *r, struct tc_rsd_stat *s, uint64_t n)
{
	uint64_t span, mean, sd;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!get_s(r, &s->min) || !get_u(r, &span) ||
	    (span >> 1) > (uint64_t)INT64_MAX - (uint64_t)(s->min > 0 ? s->min : 0))
		return fail(r, "bad time statistic");
	s->max = (int64_t)((uint64_t)s->min + (span >> 1));
	s->mean = (double)s->min;
	if (span & STAT_SPREAD) {
		if (!get_u(r, &mean) || !get_u(r, &sd) || n < 2 || mean > (uint64_t)(s->max - s->min))
			return fail(r, "bad time statistic");
		s->mean = (double)s->min + (double)mean;
		s->m2 = (double)sd * (double)sd * (double)n;
	}
	return 0;
}

/* The entries' ranks from an entry number per rank of the node. */
static int get_entry_numbers(struct br *r, struct tc_gnode *nd)
{
	int32_t *ranks;
	int rc = 0;

	if (nd->ranks.count > (uint64_t)(r->end - r->p))
		return fail(r, "bad time entry numbers");
	ranks = tc_xcalloc(nd->ranks.count, sizeof(*ranks));
	tc_ranklist_expand(&nd->ranks, ranks);
	for (uint64_t k = 0; k < nd->ranks.count; k++) {
		uint64_t e;
		if (!get_u(r, &e) || e >= nd->ntimes) {
			rc = fail(r, "bad time entry number");
			break;
		}
		tc_ranklist_add(&nd->times[e].ranks, ranks[k]);
	}
	free(ranks);
	return rc;
}

/* Under --timing stats an entry keeps its means; its minimum, maximum
 * and deviation are the event's. */
static int get_qmean(struct br *r, struct tc_rsd_stat *s, const struct tc_rsd_stat *all, uint64_t n)
{
	uint64_t c;

	if (!get_u(r, &c) || !qtime_value(c, &s->mean))
		return fail(r, "bad time entry");
	s->n = n;
	s->min = all->min < (int64_t)s->mean ? all->min : (int64_t)s->mean;
	s->max = all->max > (int64_t)s->mean ? all->max : (int64_t)s->mean;
	s->m2 = 0;
	return 0;
}

static int get_qstat(struct br *r, struct tc_rsd_stat *s, uint64_t n)
{
	uint64_t lo, span, mean, sd;
	double x, y, z, v;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!get_u(r, &lo) || !get_u(r, &span) || !qtime_value(lo, &x) ||
	    !qtime_value(span >> 1, &y) || x + y > 9e18)
		return fail(r, "bad time statistic");
	s->min = (int64_t)x;
	s->max = (int64_t)(x + y);
	s->mean = x;
	if (span & STAT_SPREAD) {
		if (n < 2 || !get_u(r, &mean) || !get_u(r, &sd) || !qtime_value(mean, &z) ||
		    !qtime_value(sd, &v))
			return fail(r, "bad time statistic");
		s->mean = x + z > (double)s->max ? (double)s->max : x + z;
		s->m2 = v * v * (double)n;
	}
	return 0;
}

/* An entry's count under TIMES_EVEN: its ranks' share of the event's n
 * occurrences, n * ranks / all, exact (the writer checked that it is a
 * whole number; n need not be a multiple of all). */
static bool even_share(uint64_t n, uint64_t ranks, uint64_t all, uint64_t *out)
{
	unsigned __int128 p = (unsigned __int128)n * ranks;

	if (!ranks || !all || p % all || p / all > UINT64_MAX)
		return false;
	*out = (uint64_t)(p / all);
	return true;
}

static int get_times(struct br *r, struct tc_gnode *nd, uint64_t n)
{
	bool stats = r->g->timing == TC_GTIMING_STATS;
	struct tc_rsd_stat comp, comm;
	const char *msg;
	uint64_t nt, layout;

	if (r->g->timing == TC_GTIMING_NONE) {
		nd->comp.n = nd->comm.n = n;
		return 0;
	}
	if (!get_count(r, &nt, MAX_WORLD, 4) || nt == 1)
		return fail(r, "bad time entries");
	if (stats) {
		if (get_qstat(r, &nd->comp, n) || get_qstat(r, &nd->comm, n))
			return TC_ERR_FORMAT;
	} else if (!nt && (get_stat(r, &nd->comp, n) || get_stat(r, &nd->comm, n))) {
		return TC_ERR_FORMAT;
	}
	if (!nt)
		return 0;
	comp = nd->comp;
	comm = nd->comm;
	if (!get_u(r, &layout) || layout > (TIMES_VECTOR | TIMES_EVEN))
		return fail(r, "bad time entries");
	nd->times = tc_xcalloc(nt, sizeof(*nd->times));
	for (uint64_t i = 0; i < nt; i++)
		tc_ranklist_init(&nd->times[i].ranks);
	nd->ntimes = (uint32_t)nt;
	if ((layout & TIMES_VECTOR) && get_entry_numbers(r, nd))
		return TC_ERR_FORMAT;
	for (uint64_t i = 0; i < nt; i++) {
		struct tc_gtime *t = &nd->times[i];
		uint64_t tn;
		if (!(layout & TIMES_VECTOR) && get_rl(r, &t->ranks))
			return TC_ERR_FORMAT;
		if (!(layout & TIMES_EVEN)) {
			if (!get_u(r, &tn))
				return fail(r, "bad time entry");
		} else if (!even_share(n, t->ranks.count, nd->ranks.count, &tn)) {
			return fail(r, "bad time entry");
		}
		if (stats) {
			if (get_qmean(r, &t->comp, &comp, tn) || get_qmean(r, &t->comm, &comm, tn))
				return TC_ERR_FORMAT;
		} else if (get_stat(r, &t->comp, tn) || get_stat(r, &t->comm, tn)) {
			return TC_ERR_FORMAT;
		}
	}
	if ((msg = tc_tct_times_check(nd, n)))
		return fail(r, msg);
	if (stats) {
		/* the event's own statistics, not the merge of the means */
		nd->comp = comp;
		nd->comm = comm;
	}
	return 0;
}

static int get_nodes(struct br *r, const struct tc_ranklist *parent, unsigned depth,
		     struct tc_gnode **out, uint32_t *nout);

static int get_node(struct br *r, struct tc_gnode *nd, const struct tc_ranklist *parent,
		    unsigned depth)
{
	uint64_t head, op, site, n, mask;

	if (r->rd)
		tc_tct_rd_node_at(r->rd, (size_t)(r->p - r->start));
	if (!get_u(r, &head) || head > (NODE_LOOP | NODE_RANKS))
		return fail(r, "bad node");
	if (head & NODE_RANKS) {
		if (get_rl(r, &nd->ranks))
			return TC_ERR_FORMAT;
		if (!nd->ranks.count)
			return fail(r, "node without ranks");
		if (!tc_tct_rl_within(&nd->ranks, parent))
			return fail(r, "node ranks outside the enclosing ranks");
	} else {
		tc_granks_copy(&nd->ranks, parent);
	}
	if (head & NODE_LOOP) {
		if (depth + 1 >= MAX_DEPTH)
			return fail(r, "loops nested too deeply");
		if (get_param(r, TC_GP_N, &nd->iters, &nd->ranks))
			return TC_ERR_FORMAT;
		if (get_nodes(r, &nd->ranks, depth + 1, &nd->body, &nd->nbody))
			return TC_ERR_FORMAT;
		if (!nd->nbody)
			return fail(r, "empty loop body");
		return 0;
	}
	nd->p = tc_xcalloc(TC_GP_N, sizeof(*nd->p));
	if (!get_u(r, &op) || op > UINT32_MAX || !get_u(r, &site) || !get_u(r, &n) ||
	    !get_u(r, &mask) || mask >> TC_GP_N)
		return fail(r, "bad event");
	if (site >= r->g->nsites)
		return fail(r, "event: site not in the site table");
	nd->op = (uint32_t)op;
	nd->stack = r->g->sites[site].sig;
	for (unsigned p = 0; p < TC_GP_N; p++)
		if ((mask >> p & 1) && get_param(r, p, &nd->p[p], &nd->ranks))
			return TC_ERR_FORMAT;
	return get_times(r, nd, n);
}

static int get_nodes(struct br *r, const struct tc_ranklist *parent, unsigned depth,
		     struct tc_gnode **out, uint32_t *nout)
{
	uint64_t n;

	*out = NULL;
	*nout = 0;
	if (!get_count(r, &n, UINT32_MAX, 5))
		return fail(r, "bad node count");
	*out = tc_xcalloc(n ? n : 1, sizeof(**out));
	for (uint64_t i = 0; i < n; i++) {
		(*nout)++;
		if (get_node(r, &(*out)[i], parent, depth))
			return TC_ERR_FORMAT;
	}
	return 0;
}

static int get_str(struct br *r, char **out)
{
	uint64_t n;

	if (!get_count(r, &n, MAX_STRING, 1))
		return fail(r, "bad string");
	if (memchr(r->p, '\0', n))
		return fail(r, "string with a NUL byte");
	*out = tc_xstrndup((const char *)r->p, n);
	r->p += n;
	return 0;
}

static int get_header(struct br *r)
{
	struct tc_gtrace *g = r->g;
	uint64_t u;
	char *s;

	if (!get_u(r, &u) || !u || u > MAX_WORLD)
		return fail(r, "bad world size");
	g->world_size = (int32_t)u;
	if (get_rl(r, &g->ranks))
		return TC_ERR_FORMAT;
	if (!g->ranks.count)
		return fail(r, "the trace covers no rank");
	if (get_str(r, &s))
		return TC_ERR_FORMAT;
	snprintf(g->mode, sizeof(g->mode), "%s", s);
	free(s);
	if (get_str(r, &s))
		return TC_ERR_FORMAT;
	snprintf(g->variant, sizeof(g->variant), "%s", s);
	free(s);
	if (!get_u(r, &u) || !tc_gtiming_name((unsigned)u) || u > 2)
		return fail(r, "bad timing");
	g->timing = (enum tc_gtiming)u;
	if (!get_u(r, &u) || u > 100000)
		return fail(r, "bad precision");
	g->precision = (double)u / 1000;
	if (!get_u(r, &u) || !u || u > TC_HIST_BINS_MAX)
		return fail(r, "bad bin count");
	g->bins = (uint32_t)u;
	if (!get_u(r, &u) || u > UINT32_MAX)
		return fail(r, "bad lead count");
	g->leads = (uint32_t)u;
	if (!get_u(r, &g->events))
		return fail(r, "bad event count");
	return 0;
}

static int get_sites(struct br *r)
{
	struct tc_gtrace *g = r->g;
	struct tc_gframe *tmp = NULL;
	struct tc_frame *sf = NULL;
	uint64_t n, prev = 0;
	int rc = TC_ERR_FORMAT;

	if (!get_count(r, &r->nstr, MAX_SITES, 1))
		return fail(r, "bad string table");
	r->str = tc_xcalloc(r->nstr ? r->nstr : 1, sizeof(*r->str));
	for (uint64_t i = 0; i < r->nstr; i++)
		if (get_str(r, &r->str[i]))
			return TC_ERR_FORMAT;
	if (!get_count(r, &r->nfr, MAX_SITES, 4))
		return fail(r, "bad frame table");
	r->fr = tc_xcalloc(r->nfr ? r->nfr : 1, sizeof(*r->fr));
	for (uint64_t i = 0; i < r->nfr; i++) {
		uint64_t m, sy, so;
		struct tc_strbuf sb = TC_STRBUF_INIT;
		if (!get_u(r, &m) || m >= r->nstr || !get_u(r, &r->fr[i].offset) || !get_u(r, &sy) ||
		    sy >= r->nstr || !get_u(r, &so))
			return fail(r, "bad frame");
		r->fr[i].module = r->str[m];
		tc_strbuf_addstr(&sb, r->str[sy]);
		if (so)
			tc_strbuf_addf(&sb, "+0x%" PRIx64, so - 1);
		r->fr[i].symbol = tc_strbuf_detach(&sb, NULL);
	}
	if (!get_count(r, &n, MAX_SITES, 1))
		return fail(r, "bad site table");
	tmp = tc_xcalloc(MAX_FRAMES, sizeof(*tmp));
	sf = tc_xcalloc(MAX_FRAMES, sizeof(*sf));
	for (uint64_t i = 0; i < n; i++) {
		uint64_t head, nf, sig = 0, f;
		if (!get_u(r, &head) || (nf = head >> 1) > MAX_FRAMES || (!nf && !(head & 1))) {
			fail(r, "bad site");
			goto out;
		}
		if (head & 1) {
			if (r->end - r->p < 8) {
				fail(r, "bad site signature");
				goto out;
			}
			for (int k = 0; k < 8; k++)
				sig |= (uint64_t)r->p[k] << (8 * k);
			r->p += 8;
		}
		for (uint64_t k = 0; k < nf; k++) {
			if (!get_u(r, &f) || f >= r->nfr) {
				fail(r, "bad site frame");
				goto out;
			}
			tmp[k] = r->fr[f];
			sf[k].module = tmp[k].module;
			sf[k].offset = tmp[k].offset;
			sf[k].symbol = tmp[k].symbol;
		}
		if (!(head & 1))
			sig = tc_stack_signature(sf, (uint32_t)nf);
		if (i && sig <= prev) {
			fail(r, "sites must be sorted by signature");
			goto out;
		}
		prev = sig;
		tc_gtrace_set_site(g, sig, tmp, (uint32_t)nf);
	}
	rc = 0;
out:
	free(tmp);
	free(sf);
	return rc;
}

/* A communicator's graph: u nin, u nout, s edges (and weights). */
static int get_graph(struct br *r, struct tc_gcomm *c, bool weighted)
{
	uint64_t nin, nout;
	size_t n;
	int64_t x;

	if (!get_u(r, &nin) || nin > MAX_DEGREE || !get_u(r, &nout) || nout > MAX_DEGREE)
		return fail(r, "bad communicator graph");
	c->graph = true;
	c->weighted = weighted;
	c->nin = (uint32_t)nin;
	c->nout = (uint32_t)nout;
	n = tc_gcomm_edge_words(c);
	if (n > (size_t)(r->end - r->p))
		return fail(r, "bad communicator graph");
	c->edges = tc_xmalloc(tc_st_mult(n + 1, sizeof(*c->edges)));
	for (size_t k = 0; k < n; k++) {
		if (!get_s(r, &x) || x < INT32_MIN || x > INT32_MAX)
			return fail(r, "bad communicator graph");
		c->edges[k] = (int32_t)x;
	}
	return 0;
}

/* The communicator table (formats/tct-binary.md "comms"). */
/* The tracer's time per op: the count (0 only when the skews follow),
 * then op, ns, calls each, the ops ascending. */
static int get_tracer_ops(struct br *r)
{
	uint64_t n, op, ns, calls;

	if (!get_u(r, &n) || (!n && r->p == r->end) || n > TC_OP_MAX)
		return fail(r, "bad tracer_op count");
	if (!n)
		return 0;
	r->g->tracer_ops = tc_xcalloc((size_t)n, sizeof(*r->g->tracer_ops));
	for (size_t i = 0; i < n; i++) {
		if (!get_u(r, &op) || !get_u(r, &ns) || !get_u(r, &calls) || !op ||
		    op >= TC_OP_MAX || (i && op <= r->g->tracer_ops[i - 1].op) ||
		    ns > TC_TRACER_NS_MAX || !calls || calls > TC_TRACER_CALLS_MAX)
			return fail(r, "bad tracer_op");
		r->g->tracer_ops[i] = (struct tc_tracer_op){ (uint32_t)op, (uint32_t)ns, calls };
		r->g->ntracer_ops = i + 1;
	}
	return 0;
}

/* The ranks' skews: one per world rank, of a trace that covers it. */
static int get_skews(struct br *r)
{
	struct tc_gtrace *g = r->g;
	const char *why;

	if (g->ranks.count != (uint64_t)g->world_size)
		return fail(r, "skews of a trace that does not cover the world");
	if (r->end - r->p < g->world_size)
		return fail(r, "fewer skews than ranks");
	g->skew = tc_xmalloc(tc_st_mult((size_t)g->world_size, sizeof(*g->skew)));
	for (int32_t k = 0; k < g->world_size; k++)
		if (!get_u(r, &g->skew[k]))
			return fail(r, "bad skew");
	if ((why = tc_skew_check(g->skew, (size_t)g->world_size)))
		return fail(r, why);
	return 0;
}

/* The ranks' concurrency in their gaps: the count, then ns each. */
static int get_concurrency(struct br *r)
{
	struct tc_gtrace *g = r->g;
	uint64_t n;
	const char *why;

	if (!get_u(r, &n) || !n || n > (uint64_t)g->world_size ||
	    n > (uint64_t)(r->end - r->p))
		return fail(r, "bad concurrency count");
	g->conc = tc_xmalloc(tc_st_mult((size_t)n, sizeof(*g->conc)));
	for (size_t k = 0; k < n; k++) {
		if (!get_u(r, &g->conc[k]))
			return fail(r, "bad concurrency");
		g->nconc = k + 1;
	}
	if ((why = tc_conc_check(g->conc, g->nconc, g->world_size)))
		return fail(r, why);
	return 0;
}

static int get_comms(struct br *r)
{
	struct tc_gtrace *g = r->g;
	uint64_t n, v, flags, id, parent, creator, size;
	int64_t x;
	const char *why;

	if (!get_count(r, &n, MAX_COMMS, 7))
		return fail(r, "bad communicator count");
	for (uint64_t i = 0; i < n; i++) {
		struct tc_gcomm *c = tc_gtrace_push_comm(g);
		if (!get_u(r, &id) || id > UINT32_MAX)
			return fail(r, "bad communicator id");
		c->id = (uint32_t)id;
		if (get_rl(r, &c->ranks))
			return TC_ERR_FORMAT;
		if (!get_u(r, &parent) || parent > UINT32_MAX || !get_u(r, &creator) ||
		    creator >= TC_OP_MAX || !get_u(r, &size) ||
		    size > (uint64_t)g->world_size || !get_u(r, &flags) || flags > 15 ||
		    (flags & 12) == 8)
			return fail(r, "bad communicator");
		c->parent = (uint32_t)parent;
		c->creator = (uint32_t)creator;
		c->size = (uint32_t)size;
		if (flags & 1) {
			if (size > (uint64_t)(r->end - r->p))
				return fail(r, "bad communicator members");
			c->members = tc_xmalloc(tc_st_mult(c->size, sizeof(*c->members)));
			for (uint32_t k = 0; k < c->size; k++) {
				if (!get_s(r, &x) || x < INT32_MIN || x > INT32_MAX)
					return fail(r, "bad communicator members");
				c->members[k] = (int32_t)x;
			}
		}
		if (flags & 2) {
			if (!get_u(r, &v) || !v || v > 8)
				return fail(r, "bad communicator grid");
			c->ndims = (uint32_t)v;
			for (uint32_t d = 0; d < c->ndims; d++) {
				if (!get_s(r, &x) || x < INT32_MIN || x > INT32_MAX)
					return fail(r, "bad communicator grid");
				c->dims[d] = (int32_t)x;
			}
			if (!get_u(r, &v) || v > UINT32_MAX)
				return fail(r, "bad communicator grid");
			c->periods = (uint32_t)v;
		}
		if ((flags & 4) && get_graph(r, c, (flags & 8) != 0))
			return TC_ERR_FORMAT;
		if ((why = tc_tct_comm_check(c, g->world_size)))
			return fail(r, why);
	}
	return 0;
}

static void br_release(struct br *r)
{
	for (uint64_t i = 0; i < r->nstr; i++)
		free(r->str[i]);
	free(r->str);
	for (uint64_t i = 0; i < r->nfr; i++)
		free(r->fr[i].symbol);
	free(r->fr);
}

bool tc_tct_bin_probe(const void *buf, size_t len)
{
	return len >= sizeof(bin_magic) && !memcmp(buf, bin_magic, sizeof(bin_magic));
}

/* Decompress into out (body_len bytes expected); 0 or a message. */
static const char *decompress(unsigned codec, const uint8_t *in, size_t n, uint64_t body_len,
			      uint8_t **out)
{
	uint8_t *buf = tc_xmalloc(body_len ? body_len : 1);
	const char *msg = NULL;

	*out = buf;
	if (codec == CODEC_STORED) {
		if (n != body_len)
			return "stored body length mismatch (truncated?)";
		memcpy(buf, in, n);
	} else if (codec == CODEC_ZSTD) {
		ZSTD_DCtx *d = ZSTD_createDCtx();
		ZSTD_inBuffer ib = { in, n, 0 };
		ZSTD_outBuffer ob = { buf, body_len, 0 };
		size_t rc;
		if (!d)
			return "out of memory";
		do {
			rc = ZSTD_decompressStream(d, &ob, &ib);
		} while (!ZSTD_isError(rc) && rc && ib.pos < ib.size && ob.pos < ob.size);
		if (ZSTD_isError(rc))
			msg = "corrupt compressed body";
		else if (rc || ob.pos != body_len)
			msg = "truncated compressed body";
		else if (ib.pos != ib.size)
			msg = "data after the compressed body";
		ZSTD_freeDCtx(d);
	} else if (codec == CODEC_ZLIB) {
		z_stream z;
		int rc;
		memset(&z, 0, sizeof(z));
		if (inflateInit(&z) != Z_OK)
			return "out of memory";
		z.next_in = (Bytef *)in;
		z.avail_in = (uInt)n;
		z.next_out = buf;
		z.avail_out = (uInt)body_len;
		rc = inflate(&z, Z_FINISH);
		if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_MEM_ERROR)
			msg = "corrupt compressed body";
		else if (rc != Z_STREAM_END || z.total_out != body_len)
			msg = "truncated compressed body";
		else if (z.avail_in)
			msg = "data after the compressed body";
		inflateEnd(&z);
	} else {
		msg = "unknown compression";
	}
	return msg;
}

int tc_tct_bin_parse(struct rd *rd, const void *buf, size_t len, const char *name,
		     struct tc_gtrace *g, struct tc_error *err)
{
	const uint8_t *p = buf, *end = p + len, *q;
	uint8_t *body = NULL;
	uint64_t body_len;
	uint32_t crc;
	const char *msg;
	struct br r;
	int rc = TC_ERR_FORMAT;

	if (len < BIN_HEADER_FIXED + 5)
		return tc_error_set(err, TC_ERR_FORMAT, name, (int64_t)len, "truncated header");
	if (p[8] != BIN_VERSION)
		return tc_error_set(err, TC_ERR_VERSION, name, 8,
				    "binary global trace version %u is not supported (this reader: %u)",
				    p[8], BIN_VERSION);
	q = tc_varint_get(p + BIN_HEADER_FIXED, end, &body_len);
	if (!q || body_len > MAX_BODY)
		return tc_error_set(err, TC_ERR_FORMAT, name, BIN_HEADER_FIXED, "bad body length");
	if (end - q < 4)
		return tc_error_set(err, TC_ERR_FORMAT, name, (int64_t)len, "truncated header");
	crc = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
	q += 4;
	/* a compressor cannot expand beyond this: refuse absurd lengths
	 * before allocating them (zstd's best ratio is far below 1:2^16) */
	if (p[9] != CODEC_STORED && body_len / 65536 > (uint64_t)(end - q))
		return tc_error_set(err, TC_ERR_FORMAT, name, BIN_HEADER_FIXED,
				    "body length out of proportion to the file");
	if ((msg = decompress(p[9], q, (size_t)(end - q), body_len, &body))) {
		free(body);
		return tc_error_set(err, TC_ERR_FORMAT, name, (int64_t)(q - p), "%s", msg);
	}
	{
		uLong c = crc32(0L, Z_NULL, 0);
		for (uint64_t off = 0; off < body_len;) {
			uint64_t k = body_len - off > (1u << 30) ? (1u << 30) : body_len - off;
			c = crc32(c, body + off, (uInt)k);
			off += k;
		}
		if ((uint32_t)c != crc) {
			free(body);
			return tc_error_set(err, TC_ERR_FORMAT, name, (int64_t)(q - p),
					    "checksum mismatch: the trace is damaged");
		}
	}
	memset(&r, 0, sizeof(r));
	r.rd = rd;
	if (rd)
		rd->node_bytes = true;
	r.p = r.start = body;
	r.end = body + body_len;
	r.name = name;
	r.err = err;
	r.g = g;
	if (get_header(&r) || get_sites(&r))
		goto out;
	{
		uint32_t n = 0;
		int e = get_nodes(&r, &g->ranks, 0, &g->seq, &n);
		/* a partly read tree is released with g */
		g->n = g->alloc = n;
		if (e)
			goto out;
	}
	if (r.p != r.end && get_comms(&r))
		goto out;
	if (r.p != r.end && (!get_u(&r, &r.g->tracer_ns) || r.g->tracer_ns > TC_TRACER_NS_MAX ||
			     (!r.g->tracer_ns && r.p == r.end))) {
		fail(&r, "bad tracer_ns");
		goto out;
	}
	if (r.p != r.end && get_tracer_ops(&r))
		goto out;
	if (r.p != r.end && get_skews(&r))
		goto out;
	if (r.p != r.end && get_concurrency(&r))
		goto out;
	if (r.p != r.end) {
		fail(&r, "unexpected bytes after the trace");
		goto out;
	}
	rc = 0;
out:
	br_release(&r);
	free(body);
	return rc;
}
