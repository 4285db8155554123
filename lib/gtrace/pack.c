/*
 * pack.c - a global trace in lib/pack.h's encoding, whole: every field a
 * later merge or the writer reads (nodes, parameter variants, value
 * sequences, histograms, times, call sites, the communicator table), so
 * that an unfinished trace handed from one process to another merges on
 * to the same bytes as if it had never left. Not a file format (lib/pack.h):
 * both ends run the same build. Allocation sizes are not kept (each array
 * is allocated to its length) and the communicator table's hash index is
 * rebuilt when next needed.
 */
#include "lib/compat.h"
#include "lib/merge.h"
#include "lib/pack.h"
#include "lib/ranklist.h"
#include "lib/skew.h"
#include "lib/strbuf.h"
#include "lib/trace.h"
#include "lib/xalloc.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Nesting deeper than this (loops in loops, chunks in chunks) is taken
 * for a damaged message rather than followed down the stack. */
#define PACK_MAX_DEPTH 4096

/* ---- writing ------------------------------------------------------------- */

static void pack_ranks(struct tc_strbuf *sb, const struct tc_ranklist *rl)
{
	tc_pack_u64(sb, rl->nruns);
	for (size_t i = 0; i < rl->nruns; i++) {
		tc_pack_s64(sb, rl->runs[i].start);
		tc_pack_u64(sb, rl->runs[i].len);
		tc_pack_s64(sb, rl->runs[i].stride);
	}
	tc_pack_u64(sb, rl->count);
}

static bool gval_has_words(uint32_t n)
{
	return n > 1 && n != TC_GVAL_ABSENT;
}

static void pack_val(struct tc_strbuf *sb, const struct tc_gval *v)
{
	tc_pack_u64(sb, v->n);
	tc_pack_s64(sb, v->w);
	if (gval_has_words(v->n))
		for (uint32_t i = 0; i < v->n; i++)
			tc_pack_s64(sb, v->v[i]);
}

static void pack_seq(struct tc_strbuf *sb, const struct tc_gseq *s)
{
	tc_pack_u64(sb, s->n);
	tc_pack_u64(sb, s->len);
	for (uint32_t i = 0; i < s->n; i++) {
		const struct tc_gseq_ent *e = &s->e[i];
		tc_pack_u64(sb, e->reps);
		tc_pack_u64(sb, e->end);
		tc_pack_u64(sb, e->chunk != NULL);
		if (e->chunk)
			pack_seq(sb, e->chunk);
		else
			pack_val(sb, &e->val);
	}
}

static void pack_hist(struct tc_strbuf *sb, const struct tc_hist *h)
{
	pack_ranks(sb, &h->ranks);
	tc_pack_u64(sb, h->n);
	tc_pack_s64(sb, h->min);
	tc_pack_s64(sb, h->max);
	tc_pack_s64(sb, h->min_rank);
	tc_pack_s64(sb, h->max_rank);
	tc_pack_u64(sb, h->nbins);
	for (uint32_t i = 0; i < h->nbins; i++) {
		tc_pack_s64(sb, h->bins[i].lo);
		tc_pack_s64(sb, h->bins[i].hi);
		tc_pack_u64(sb, h->bins[i].n);
		tc_pack_f64(sb, h->bins[i].mean);
		tc_pack_f64(sb, h->bins[i].m2);
	}
}

static void pack_param(struct tc_strbuf *sb, const struct tc_gparam *gp)
{
	tc_pack_u64(sb, gp->nvar);
	for (uint32_t i = 0; i < gp->nvar; i++) {
		const struct tc_gvar *v = &gp->var[i];
		pack_ranks(sb, &v->ranks);
		pack_val(sb, &v->val);
		tc_pack_u64(sb, v->seq != NULL);
		if (v->seq)
			pack_seq(sb, v->seq);
		tc_pack_u64(sb, v->occ);
	}
	tc_pack_u64(sb, gp->hist != NULL);
	if (gp->hist)
		pack_hist(sb, gp->hist);
}

static void pack_node(struct tc_strbuf *sb, const struct tc_gnode *nd)
{
	pack_ranks(sb, &nd->ranks);
	tc_pack_u64(sb, nd->nbody);
	for (uint32_t i = 0; i < nd->nbody; i++)
		pack_node(sb, &nd->body[i]);
	pack_param(sb, &nd->iters);
	tc_pack_u64(sb, nd->op);
	tc_pack_u64(sb, nd->stack);
	tc_pack_u64(sb, nd->p != NULL);
	for (unsigned p = 0; nd->p && p < TC_GP_N; p++)
		pack_param(sb, &nd->p[p]);
	tc_rsd_stat_pack(sb, &nd->comp);
	tc_rsd_stat_pack(sb, &nd->comm);
	tc_pack_u64(sb, nd->ntimes);
	for (uint32_t i = 0; i < nd->ntimes; i++) {
		pack_ranks(sb, &nd->times[i].ranks);
		tc_rsd_stat_pack(sb, &nd->times[i].comp);
		tc_rsd_stat_pack(sb, &nd->times[i].comm);
	}
	tc_pack_u64(sb, nd->shape);
	tc_pack_u64(sb, nd->weight);
	tc_pack_u64(sb, nd->id);
}

/* A string that may be NULL: a flag, then the bytes. */
static void pack_opt_str(struct tc_strbuf *sb, const char *s)
{
	tc_pack_u64(sb, s != NULL);
	tc_pack_str(sb, s);
}

/* An entry of the communicator table: its ranks, then the communicator
 * as a rank's trace packs one (lib/trace.h). */
static void pack_comm(struct tc_strbuf *sb, const struct tc_gcomm *c)
{
	struct tc_trace_comm t;

	memset(&t, 0, sizeof(t));
	t.id = c->id;
	t.parent = c->parent;
	t.creator = c->creator;
	t.size = c->size;
	t.ndims = c->ndims;
	memcpy(t.dims, c->dims, sizeof(t.dims));
	t.periods = c->periods;
	t.members = c->members;
	t.graph = c->graph;
	t.weighted = c->weighted;
	t.nin = c->nin;
	t.nout = c->nout;
	t.edges = c->edges;
	pack_ranks(sb, &c->ranks);
	tc_trace_comm_pack(&t, sb);
}

void tc_gtrace_pack(const struct tc_gtrace *g, struct tc_strbuf *out)
{
	tc_pack_s64(out, g->world_size);
	tc_pack_u64(out, g->timing);
	pack_ranks(out, &g->ranks);
	tc_pack_u64(out, g->n);
	for (size_t i = 0; i < g->n; i++)
		pack_node(out, &g->seq[i]);
	tc_pack_u64(out, g->nsites);
	for (size_t i = 0; i < g->nsites; i++) {
		const struct tc_gsite *s = &g->sites[i];
		tc_pack_u64(out, s->sig);
		tc_pack_u64(out, s->nframes);
		for (uint32_t k = 0; k < s->nframes; k++) {
			pack_opt_str(out, s->frames[k].module);
			tc_pack_u64(out, s->frames[k].offset);
			pack_opt_str(out, s->frames[k].symbol);
		}
	}
	tc_pack_str(out, g->mode);
	tc_pack_str(out, g->variant);
	tc_pack_f64(out, g->precision);
	tc_pack_u64(out, g->bins);
	tc_pack_u64(out, g->events);
	tc_pack_u64(out, g->leads);
	tc_pack_u64(out, g->nnodes);
	tc_pack_u64(out, g->tracer_ns);
	tc_pack_u64(out, g->ntracer_ops);
	for (size_t i = 0; i < g->ntracer_ops; i++) {
		tc_pack_u64(out, g->tracer_ops[i].op);
		tc_pack_u64(out, g->tracer_ops[i].ns);
		tc_pack_u64(out, g->tracer_ops[i].calls);
	}
	tc_pack_u64(out, g->ncomms);
	for (size_t i = 0; i < g->ncomms; i++)
		pack_comm(out, &g->comms[i]);
	tc_pack_u64(out, g->skew ? (uint64_t)g->world_size : 0);
	for (int32_t k = 0; g->skew && k < g->world_size; k++)
		tc_pack_u64(out, g->skew[k]);
	tc_pack_u64(out, g->skew ? g->nconc : 0);
	for (size_t k = 0; g->skew && k < g->nconc; k++)
		tc_pack_u64(out, g->conc[k]);
}

/* ---- reading ------------------------------------------------------------- */

/* Whether n more values of at least one byte each can be in the message. */
static bool fits(struct tc_unpack *u, size_t n)
{
	if (u->bad || n > (size_t)(u->end - u->p))
		u->bad = true;
	return !u->bad;
}

/* An array of n items of size bytes, at least min_bytes each in the
 * message (so a damaged count asks for nothing huge); NULL for none. */
static void *unpack_array(struct tc_unpack *u, size_t *n, size_t min_bytes, size_t size)
{
	*n = tc_unpack_count(u, min_bytes);
	return *n ? tc_xcalloc(*n, size) : NULL;
}

static void unpack_ranks(struct tc_unpack *u, struct tc_ranklist *rl)
{
	tc_ranklist_init(rl);
	rl->runs = unpack_array(u, &rl->nruns, 3, sizeof(*rl->runs));
	rl->alloc = rl->nruns;
	for (size_t i = 0; i < rl->nruns; i++) {
		rl->runs[i].start = (int32_t)tc_unpack_s32(u);
		rl->runs[i].len = tc_unpack_u32(u);
		rl->runs[i].stride = tc_unpack_s32(u);
	}
	rl->count = tc_unpack_u64(u);
}

static void unpack_val(struct tc_unpack *u, struct tc_gval *v)
{
	v->n = tc_unpack_u32(u);
	v->w = tc_unpack_s64(u);
	v->v = NULL;
	if (!gval_has_words(v->n))
		return;
	if (!fits(u, v->n)) {
		v->n = TC_GVAL_ABSENT;
		return;
	}
	v->v = tc_xmalloc(tc_st_mult(v->n, sizeof(*v->v)));
	for (uint32_t i = 0; i < v->n; i++)
		v->v[i] = tc_unpack_s64(u);
}

static struct tc_gseq *unpack_seq(struct tc_unpack *u, unsigned depth)
{
	struct tc_gseq *s = tc_gseq_new();
	size_t n;

	if (depth > PACK_MAX_DEPTH)
		u->bad = true;
	s->e = unpack_array(u, &n, 4, sizeof(*s->e));
	s->n = s->alloc = (uint32_t)TC_MIN(n, UINT32_MAX);
	s->len = tc_unpack_u64(u);
	for (uint32_t i = 0; i < s->n; i++) {
		struct tc_gseq_ent *e = &s->e[i];
		e->reps = tc_unpack_u64(u);
		e->end = tc_unpack_u64(u);
		e->val.n = TC_GVAL_ABSENT;
		if (tc_unpack_u64(u) && !u->bad)
			e->chunk = unpack_seq(u, depth + 1);
		else
			unpack_val(u, &e->val);
	}
	return s;
}

static struct tc_hist *unpack_hist(struct tc_unpack *u)
{
	struct tc_hist *h = tc_xcalloc(1, sizeof(*h));
	size_t n;

	unpack_ranks(u, &h->ranks);
	h->n = tc_unpack_u64(u);
	h->min = tc_unpack_s64(u);
	h->max = tc_unpack_s64(u);
	h->min_rank = tc_unpack_s32(u);
	h->max_rank = tc_unpack_s32(u);
	h->bins = unpack_array(u, &n, 21, sizeof(*h->bins));
	h->nbins = (uint32_t)TC_MIN(n, UINT32_MAX);
	for (uint32_t i = 0; i < h->nbins; i++) {
		h->bins[i].lo = tc_unpack_s64(u);
		h->bins[i].hi = tc_unpack_s64(u);
		h->bins[i].n = tc_unpack_u64(u);
		h->bins[i].mean = tc_unpack_f64(u);
		h->bins[i].m2 = tc_unpack_f64(u);
	}
	return h;
}

static void unpack_param(struct tc_unpack *u, struct tc_gparam *gp)
{
	size_t n;

	memset(gp, 0, sizeof(*gp));
	gp->var = unpack_array(u, &n, 6, sizeof(*gp->var));
	gp->nvar = (uint32_t)TC_MIN(n, UINT32_MAX);
	for (uint32_t i = 0; i < gp->nvar; i++) {
		struct tc_gvar *v = &gp->var[i];
		unpack_ranks(u, &v->ranks);
		unpack_val(u, &v->val);
		if (tc_unpack_u64(u) && !u->bad)
			v->seq = unpack_seq(u, 0);
		v->occ = tc_unpack_u64(u);
	}
	if (tc_unpack_u64(u) && !u->bad)
		gp->hist = unpack_hist(u);
}

static void unpack_node(struct tc_unpack *u, struct tc_gnode *nd, unsigned depth)
{
	size_t n;

	memset(nd, 0, sizeof(*nd));
	if (depth > PACK_MAX_DEPTH)
		u->bad = true;
	unpack_ranks(u, &nd->ranks);
	nd->body = unpack_array(u, &n, 8, sizeof(*nd->body));
	nd->nbody = (uint32_t)TC_MIN(n, UINT32_MAX);
	for (uint32_t i = 0; i < nd->nbody; i++) {
		if (u->bad) {
			/* the rest stay empty, as calloc left them */
			break;
		}
		unpack_node(u, &nd->body[i], depth + 1);
	}
	unpack_param(u, &nd->iters);
	nd->op = tc_unpack_u32(u);
	nd->stack = tc_unpack_u64(u);
	if (tc_unpack_u64(u) && !u->bad) {
		nd->p = tc_xcalloc(TC_GP_N, sizeof(*nd->p));
		for (unsigned p = 0; p < TC_GP_N; p++)
			unpack_param(u, &nd->p[p]);
	}
	tc_rsd_stat_unpack(u, &nd->comp);
	tc_rsd_stat_unpack(u, &nd->comm);
	nd->times = unpack_array(u, &n, 11, sizeof(*nd->times));
	nd->ntimes = (uint32_t)TC_MIN(n, UINT32_MAX);
	for (uint32_t i = 0; i < nd->ntimes; i++) {
		unpack_ranks(u, &nd->times[i].ranks);
		tc_rsd_stat_unpack(u, &nd->times[i].comp);
		tc_rsd_stat_unpack(u, &nd->times[i].comm);
	}
	nd->shape = tc_unpack_u64(u);
	nd->weight = tc_unpack_u64(u);
	nd->id = tc_unpack_u32(u);
}

static char *unpack_opt_str(struct tc_unpack *u)
{
	bool present = tc_unpack_u64(u) != 0;
	char *s = tc_unpack_strdup(u);

	if (!present) {
		free(s);
		return NULL;
	}
	return s;
}

/* Copy a packed string into a fixed buffer (longer ones are damage). */
static void unpack_name(struct tc_unpack *u, char *dst, size_t size)
{
	size_t n;
	const char *s = tc_unpack_bytes(u, &n);

	if (n >= size) {
		u->bad = true;
		n = 0;
	}
	memcpy(dst, s ? s : "", n);
	dst[n] = '\0';
}

static void unpack_comm(struct tc_unpack *u, struct tc_gcomm *c)
{
	struct tc_trace_comm t;

	unpack_ranks(u, &c->ranks);
	tc_trace_comm_unpack(u, &t);
	c->id = t.id;
	c->parent = t.parent;
	c->creator = t.creator;
	c->size = t.size;
	c->ndims = t.ndims;
	memcpy(c->dims, t.dims, sizeof(c->dims));
	c->periods = t.periods;
	c->members = t.members;
	c->graph = t.graph;
	c->weighted = t.weighted;
	c->nin = t.nin;
	c->nout = t.nout;
	c->edges = t.edges;
}

struct tc_gtrace *tc_gtrace_unpack(struct tc_unpack *u)
{
	struct tc_gtrace *g = tc_gtrace_new(0);
	size_t n;

	g->world_size = tc_unpack_s32(u);
	g->timing = (enum tc_gtiming)tc_unpack_u32(u);
	unpack_ranks(u, &g->ranks);
	g->seq = unpack_array(u, &n, 8, sizeof(*g->seq));
	g->n = g->alloc = n;
	for (size_t i = 0; i < g->n && !u->bad; i++)
		unpack_node(u, &g->seq[i], 0);
	g->sites = unpack_array(u, &n, 2, sizeof(*g->sites));
	g->nsites = g->asites = n;
	for (size_t i = 0; i < g->nsites && !u->bad; i++) {
		struct tc_gsite *s = &g->sites[i];
		size_t nf;
		s->sig = tc_unpack_u64(u);
		s->frames = unpack_array(u, &nf, 5, sizeof(*s->frames));
		s->nframes = (uint32_t)TC_MIN(nf, UINT32_MAX);
		for (uint32_t k = 0; k < s->nframes; k++) {
			s->frames[k].module = unpack_opt_str(u);
			s->frames[k].offset = tc_unpack_u64(u);
			s->frames[k].symbol = unpack_opt_str(u);
		}
	}
	unpack_name(u, g->mode, sizeof(g->mode));
	unpack_name(u, g->variant, sizeof(g->variant));
	g->precision = tc_unpack_f64(u);
	g->bins = tc_unpack_u32(u);
	g->events = tc_unpack_u64(u);
	g->leads = tc_unpack_u32(u);
	g->nnodes = tc_unpack_u64(u);
	g->tracer_ns = tc_unpack_u64(u);
	g->tracer_ops = unpack_array(u, &g->ntracer_ops, 3, sizeof(*g->tracer_ops));
	for (size_t i = 0; i < g->ntracer_ops && !u->bad; i++) {
		uint32_t op = tc_unpack_u32(u);
		g->tracer_ops[i].op = op < TC_OP_MAX ? op : 0;
		g->tracer_ops[i].ns = tc_unpack_u32(u);
		g->tracer_ops[i].calls = tc_unpack_u64(u);
		if (!op || op >= TC_OP_MAX || (i && op <= g->tracer_ops[i - 1].op) ||
		    g->tracer_ops[i].ns > TC_TRACER_NS_MAX || !g->tracer_ops[i].calls ||
		    g->tracer_ops[i].calls > TC_TRACER_CALLS_MAX)
			u->bad = true;
	}
	g->comms = unpack_array(u, &n, 14, sizeof(*g->comms));
	g->ncomms = g->acomms = n;
	for (size_t i = 0; i < g->ncomms && !u->bad; i++)
		unpack_comm(u, &g->comms[i]);
	g->skew = unpack_array(u, &n, 1, sizeof(*g->skew));
	if (n && (n != (size_t)g->world_size || g->ranks.count != n))
		u->bad = true;
	for (size_t k = 0; k < n && !u->bad; k++)
		g->skew[k] = tc_unpack_u64(u);
	if (n && !u->bad && tc_skew_check(g->skew, n))
		u->bad = true;
	g->conc = unpack_array(u, &g->nconc, 1, sizeof(*g->conc));
	for (size_t k = 0; k < g->nconc && !u->bad; k++)
		g->conc[k] = tc_unpack_u64(u);
	if (g->nconc && !u->bad && (!g->skew || tc_conc_check(g->conc, g->nconc, g->world_size)))
		u->bad = true;
	if (u->bad) {
		tc_gtrace_free(&g);
		return NULL;
	}
	return g;
}
