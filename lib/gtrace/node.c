/*
 * node.c - nodes and whole global traces: node release, shape and WLCS
 * weight; a lead's compressed sequence (lib/rsd.h) made into a global
 * trace whose nodes all carry the lead's cluster ranklist (dissertation
 * §3.3, §4.2: the lead stands for every member); new and free; call
 * sites, numbering and histogram balancing (tc_gtrace_finish); timing
 * (--timing) and info.
 */
#include "lib/compat.h"
#include "lib/gtrace/internal.h"
#include "lib/hash.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- nodes ------------------------------------------------------------- */

void tc_gtime_release(struct tc_gtime *t)
{
	tc_ranklist_release(&t->ranks);
}

void tc_gt_node_release(struct tc_gnode *nd)
{
	tc_ranklist_release(&nd->ranks);
	for (uint32_t i = 0; i < nd->ntimes; i++)
		tc_gtime_release(&nd->times[i]);
	free(nd->times);
	nd->times = NULL;
	nd->ntimes = 0;
	for (uint32_t i = 0; i < nd->nbody; i++)
		tc_gt_node_release(&nd->body[i]);
	free(nd->body);
	nd->body = NULL;
	nd->nbody = 0;
	tc_gt_param_release(&nd->iters);
	if (nd->p) {
		for (unsigned p = 0; p < TC_GP_N; p++)
			tc_gt_param_release(&nd->p[p]);
		free(nd->p);
		nd->p = NULL;
	}
}

/* Shape hash and WLCS weight from op/site or the body. */
void tc_gt_node_update(struct tc_gnode *nd)
{
	uint64_t w = 0, h;

	if (!nd->nbody) {
		nd->shape = tc_hash_mix(tc_hash_mix(0x6576656e74ULL, nd->op), nd->stack);
		nd->weight = 1;
		return;
	}
	h = tc_hash_mix(0x6c6f6f70ULL, nd->nbody);
	for (uint32_t i = 0; i < nd->nbody; i++) {
		h = tc_hash_mix(h, nd->body[i].shape);
		w = tc_gt_sat_add(w, nd->body[i].weight);
	}
	nd->shape = h;
	nd->weight = tc_gt_sat_mul(w, tc_gt_param_min(&nd->iters));
}

/* Same op and call site / same loop nesting, counts and values aside. */
bool tc_gt_shape_equal(const struct tc_gnode *a, const struct tc_gnode *b)
{
	if (a->shape != b->shape || a->nbody != b->nbody)
		return false;
	if (!a->nbody)
		return a->op == b->op && a->stack == b->stack;
	for (uint32_t i = 0; i < a->nbody; i++)
		if (!tc_gt_shape_equal(&a->body[i], &b->body[i]))
			return false;
	return true;
}

/* ---- conversion of a lead's compressed sequence ------------------------ */

struct conv {
	const struct tc_rsd *rsd;
	const struct tc_ranklist *ranks;
	const struct tc_merge_opts *opts;
	/* walk state: stack of sequences being built and their repetitions */
	struct tc_gseq **stack;
	uint64_t *reps;
	size_t depth, alloc;
};

/* Parameter p of event e as a value. */
static void event_param(const struct tc_rsd_event *e, unsigned p, struct tc_gval *out)
{
	int64_t w[2];

	out->n = TC_GVAL_ABSENT;
	out->w = 0;
	out->v = NULL;
	if (!(e->fields & tc_gparam_field(p)))
		return;
	switch (p) {
	case TC_GP_COMM: w[0] = e->comm; break;
	case TC_GP_PEER: w[0] = e->peer; break;
	case TC_GP_TAG: w[0] = e->tag; break;
	case TC_GP_RPEER: w[0] = e->rpeer; break;
	case TC_GP_RTAG: w[0] = e->rtag; break;
	case TC_GP_COUNT: w[0] = (int64_t)e->count; break;
	case TC_GP_DTYPE: w[0] = e->dtype; break;
	case TC_GP_DTYPE_SIZE: w[0] = e->dtype_size; break;
	case TC_GP_BYTES: w[0] = (int64_t)e->bytes; break;
	case TC_GP_REDOP: w[0] = e->redop; break;
	case TC_GP_ROOT: w[0] = e->root; break;
	case TC_GP_COLOR: w[0] = e->color; break;
	case TC_GP_KEY: w[0] = e->key; break;
	case TC_GP_REQUEST: w[0] = e->request; break;
	case TC_GP_NEWCOMM: w[0] = e->newcomm; break;
	case TC_GP_FILE: w[0] = e->file; break;
	case TC_GP_OFFSET: w[0] = (int64_t)e->offset; break;
	case TC_GP_RESULT: w[0] = e->result; break;
	case TC_GP_COMPL: {
		int64_t *v = NULL;
		uint32_t n = e->ncompl;
		if (n) {
			v = tc_xmalloc(tc_st_mult(tc_st_mult(n, 4), sizeof(int64_t)));
			for (uint32_t i = 0; i < n; i++) {
				v[4 * i] = e->compl[i].request;
				v[4 * i + 1] = e->compl[i].source;
				v[4 * i + 2] = e->compl[i].tag;
				v[4 * i + 3] = (int64_t)e->compl[i].bytes;
			}
		}
		tc_gval_set(out, 4 * n, v);
		free(v);
		return;
	}
	case TC_GP_SCOUNTS:
	case TC_GP_RCOUNTS: {
		uint32_t n = p == TC_GP_SCOUNTS ? e->nscounts : e->nrcounts;
		const uint64_t *c = p == TC_GP_SCOUNTS ? e->scounts : e->rcounts;
		int64_t *v = n ? tc_xmalloc(tc_st_mult(n, sizeof(int64_t))) : NULL;
		for (uint32_t i = 0; i < n; i++)
			v[i] = (int64_t)c[i];
		tc_gval_set(out, n, v);
		free(v);
		return;
	}
	default:
		return;
	}
	tc_gval_set(out, 1, w);
}

static void walk_run(void *ctx, uint32_t event, uint64_t reps)
{
	struct conv *c = ctx;
	struct tc_gval v = { 1, (int64_t)event, NULL };

	tc_gseq_add_val(c->stack[c->depth - 1], &v, reps);
}

static void walk_begin(void *ctx, uint64_t reps)
{
	struct conv *c = ctx;

	if (c->depth + 1 > c->alloc) {
		size_t a = c->alloc;
		TC_ALLOC_GROW(c->stack, c->depth + 1, a);
		c->reps = tc_xrealloc(c->reps, tc_st_mult(a, sizeof(*c->reps)));
		c->alloc = a;
	}
	c->stack[c->depth] = tc_gseq_new();
	c->reps[c->depth] = reps;
	c->depth++;
}

static void walk_end(void *ctx)
{
	struct conv *c = ctx;
	struct tc_gseq *s = c->stack[--c->depth];

	tc_gseq_add_chunk(c->stack[c->depth - 1], s, c->reps[c->depth]);
}

/* The sequence of parameter p over a sequence of event indices. */
static struct tc_gseq *project(const struct tc_rsd *rsd, const struct tc_gseq *ids, unsigned p)
{
	struct tc_gseq *out = tc_gseq_new();

	for (uint32_t i = 0; i < ids->n; i++) {
		const struct tc_gseq_ent *e = &ids->e[i];
		struct tc_gval v;
		if (e->chunk) {
			tc_gseq_add_chunk(out, project(rsd, e->chunk, p), e->reps);
			continue;
		}
		event_param(tc_rsd_event(rsd, (uint32_t)e->val.w), p, &v);
		tc_gseq_add_val(out, &v, e->reps);
		tc_gval_release(&v);
	}
	return out;
}

/* Set param from a value sequence (stolen): one variant for every rank. */
static void param_from_seq(struct tc_gparam *gp, struct tc_gseq *s, const struct tc_ranklist *ranks)
{
	struct tc_gvar *v;

	if (!s->n || (s->n == 1 && !s->e[0].chunk && s->e[0].val.n == TC_GVAL_ABSENT)) {
		tc_gseq_free(s);
		return;
	}
	v = tc_gt_param_push(gp);
	tc_granks_copy(&v->ranks, ranks);
	v->occ = s->len * ranks->count;
	if (s->n == 1 && !s->e[0].chunk) {
		v->val = s->e[0].val;
		s->e[0].val.v = NULL;
		s->e[0].val.n = TC_GVAL_ABSENT;
		tc_gseq_free(s);
		return;
	}
	v->seq = s;
}

static void conv_event(struct conv *c, const struct tc_rsd_node *nd, struct tc_gnode *g)
{
	static const struct tc_rsd_walk_ops ops = { walk_run, walk_begin, walk_end };
	const struct tc_rsd_event *e0 = tc_rsd_event(c->rsd, nd->event);
	struct tc_gseq *ids = NULL;

	g->op = e0->op;
	g->stack = e0->stack;
	g->p = tc_xcalloc(TC_GP_N, sizeof(*g->p));
	g->comp = nd->comp;
	g->comm = nd->comm;
	g->times = tc_xcalloc(1, sizeof(*g->times));
	g->ntimes = 1;
	tc_granks_copy(&g->times[0].ranks, c->ranks);
	g->times[0].comp = nd->comp;
	g->times[0].comm = nd->comm;
	if (nd->vals) {
		c->depth = 0;
		walk_begin(c, 1);
		tc_rsd_node_walk(nd, &ops, c);
		ids = c->stack[0];
		c->depth = 0;
	}
	for (unsigned p = 0; p < TC_GP_N; p++) {
		struct tc_gseq *s;
		if (ids) {
			s = project(c->rsd, ids, p);
		} else {
			struct tc_gval v;
			event_param(e0, p, &v);
			s = tc_gseq_new();
			tc_gseq_add_val(s, &v, nd->comp.n ? nd->comp.n : 1);
			tc_gval_release(&v);
		}
		param_from_seq(&g->p[p], s, c->ranks);
		tc_gt_param_consolidate(&g->p[p], tc_gparam_kind(p), c->opts);
	}
	tc_gseq_free(ids);
}

static void conv_seq(struct conv *c, const struct tc_rsd_node *seq, size_t n, uint64_t mult,
		     struct tc_gnode *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct tc_rsd_node *nd = &seq[i];
		struct tc_gnode *g = &out[i];
		memset(g, 0, sizeof(*g));
		tc_granks_copy(&g->ranks, c->ranks);
		if (!nd->nbody) {
			conv_event(c, nd, g);
		} else {
			struct tc_gval it = { 1, (int64_t)nd->iters, NULL };
			struct tc_gvar *v = tc_gt_param_push(&g->iters);
			tc_granks_copy(&v->ranks, c->ranks);
			v->val = it;
			v->occ = tc_gt_sat_mul(mult, c->ranks->count);
			g->nbody = nd->nbody;
			g->body = tc_xmalloc(tc_st_mult(nd->nbody, sizeof(*g->body)));
			conv_seq(c, nd->body, nd->nbody, tc_gt_sat_mul(mult, nd->iters), g->body);
		}
		tc_gt_node_update(g);
	}
}

void tc_gt_merge_opts_fix(struct tc_merge_opts *o, const struct tc_merge_opts *in)
{
	if (in)
		*o = *in;
	else
		memset(o, 0, sizeof(*o));
	if (!in || !(o->precision >= 0 && o->precision <= 100))
		o->precision = 100;
	if (!o->bins)
		o->bins = TC_HIST_BINS_DEFAULT;
	if (o->bins > TC_HIST_BINS_MAX)
		o->bins = TC_HIST_BINS_MAX;
}

struct tc_gtrace *tc_gtrace_new(int32_t world_size)
{
	struct tc_gtrace *g = tc_xcalloc(1, sizeof(*g));

	g->world_size = world_size;
	g->precision = 100;
	g->bins = TC_HIST_BINS_DEFAULT;
	snprintf(g->mode, sizeof(g->mode), "none");
	snprintf(g->variant, sizeof(g->variant), "default");
	return g;
}

static void site_release(struct tc_gsite *s)
{
	for (uint32_t i = 0; i < s->nframes; i++) {
		free(s->frames[i].module);
		free(s->frames[i].symbol);
	}
	free(s->frames);
	s->frames = NULL;
	s->nframes = 0;
}

void tc_gtrace_free(struct tc_gtrace **gp)
{
	struct tc_gtrace *g = *gp;

	if (!g)
		return;
	*gp = NULL;
	for (size_t i = 0; i < g->n; i++)
		tc_gt_node_release(&g->seq[i]);
	free(g->seq);
	for (size_t i = 0; i < g->nsites; i++)
		site_release(&g->sites[i]);
	free(g->sites);
	for (size_t i = 0; i < g->ncomms; i++) {
		tc_ranklist_release(&g->comms[i].ranks);
		free(g->comms[i].members);
		free(g->comms[i].edges);
	}
	free(g->comms);
	free(g->comm_index);
	free(g->tracer_ops);
	free(g->skew);
	free(g->conc);
	tc_ranklist_release(&g->ranks);
	free(g);
}

struct tc_gtrace *tc_gtrace_from_rsd(const struct tc_rsd *rsd, const struct tc_ranklist *ranks,
				     int32_t world_size, uint64_t events,
				     const struct tc_merge_opts *opts)
{
	struct tc_gtrace *g = tc_gtrace_new(world_size);
	struct tc_merge_opts o;
	struct tc_ranklist own;
	struct conv c;
	const struct tc_rsd_node *seq;
	size_t n;

	tc_gt_merge_opts_fix(&o, opts);
	tc_ranklist_init(&own);
	if (ranks) {
		tc_granks_copy(&own, ranks);
		tc_granks_normalize(&own);
	} else {
		tc_ranklist_add(&own, tc_rsd_rank(rsd));
	}
	memset(&c, 0, sizeof(c));
	c.rsd = rsd;
	c.ranks = &own;
	c.opts = &o;
	seq = tc_rsd_seq(rsd, &n);
	g->seq = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*g->seq)));
	g->n = g->alloc = n;
	conv_seq(&c, seq, n, 1, g->seq);
	free(c.stack);
	free(c.reps);
	g->ranks = own;
	g->events = tc_gt_sat_mul(events, own.count);
	g->leads = 1;
	g->precision = o.precision;
	g->bins = o.bins;
	return g;
}
/* ---- sites, numbering, info -------------------------------------------- */

ptrdiff_t tc_gtrace_site(const struct tc_gtrace *g, uint64_t sig)
{
	size_t lo = 0, hi = g->nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->sites[mid].sig < sig)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->nsites && g->sites[lo].sig == sig ? (ptrdiff_t)lo : -1;
}

void tc_gtrace_set_site(struct tc_gtrace *g, uint64_t sig, const struct tc_gframe *frames,
			uint32_t nframes)
{
	size_t lo = 0, hi = g->nsites;
	struct tc_gsite *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->sites[mid].sig < sig)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->nsites && g->sites[lo].sig == sig) {
		s = &g->sites[lo];
		site_release(s);
	} else {
		TC_ALLOC_GROW(g->sites, g->nsites + 1, g->asites);
		memmove(&g->sites[lo + 1], &g->sites[lo], (g->nsites - lo) * sizeof(*g->sites));
		g->nsites++;
		s = &g->sites[lo];
		memset(s, 0, sizeof(*s));
		s->sig = sig;
	}
	if (nframes) {
		s->frames = tc_xcalloc(nframes, sizeof(*s->frames));
		for (uint32_t i = 0; i < nframes; i++) {
			s->frames[i].module = tc_xstrdup(frames[i].module ? frames[i].module : "");
			s->frames[i].offset = frames[i].offset;
			s->frames[i].symbol = tc_xstrdup(frames[i].symbol ? frames[i].symbol : "");
		}
		s->nframes = nframes;
	}
}

static void finish_seq(struct tc_gtrace *g, struct tc_gnode *seq, size_t n, uint64_t *id)
{
	for (size_t i = 0; i < n; i++) {
		struct tc_gnode *nd = &seq[i];
		nd->id = (uint32_t)(*id)++;
		if (nd->nbody) {
			if (nd->iters.hist)
				tc_hist_balance(nd->iters.hist, g->bins);
			finish_seq(g, nd->body, nd->nbody, id);
		} else {
			if (tc_gtrace_site(g, nd->stack) < 0)
				tc_gtrace_set_site(g, nd->stack, NULL, 0);
			for (unsigned p = 0; p < TC_GP_N; p++)
				if (nd->p[p].hist)
					tc_hist_balance(nd->p[p].hist, g->bins);
		}
		tc_gt_node_update(nd);
	}
}

static void mark_sites(const struct tc_gtrace *g, const struct tc_gnode *seq, size_t n, bool *used)
{
	for (size_t i = 0; i < n; i++) {
		if (seq[i].nbody)
			mark_sites(g, seq[i].body, seq[i].nbody, used);
		else
			used[tc_gtrace_site(g, seq[i].stack)] = true;
	}
}

void tc_gtrace_finish(struct tc_gtrace *g)
{
	uint64_t id = 0;
	bool *used;
	size_t k = 0;

	finish_seq(g, g->seq, g->n, &id);
	g->nnodes = id;
	/* keep only the call sites that events use */
	used = tc_xcalloc(g->nsites ? g->nsites : 1, sizeof(*used));
	mark_sites(g, g->seq, g->n, used);
	for (size_t i = 0; i < g->nsites; i++) {
		if (used[i])
			g->sites[k++] = g->sites[i];
		else
			site_release(&g->sites[i]);
	}
	g->nsites = k;
	free(used);
}

static void info_param(const struct tc_gparam *gp, struct tc_gtrace_info *in)
{
	in->variants += gp->nvar;
	for (uint32_t i = 0; i < gp->nvar; i++)
		if (gp->var[i].seq)
			in->varying++;
	if (gp->hist)
		in->hists++;
}

static void info_seq(const struct tc_gnode *seq, size_t n, uint32_t depth,
		     struct tc_gtrace_info *in)
{
	for (size_t i = 0; i < n; i++) {
		const struct tc_gnode *nd = &seq[i];
		in->nodes++;
		if (!nd->nbody) {
			in->events++;
			for (unsigned p = 0; p < TC_GP_N; p++)
				info_param(&nd->p[p], in);
			continue;
		}
		in->loops++;
		info_param(&nd->iters, in);
		if (depth + 1 > in->depth)
			in->depth = depth + 1;
		info_seq(nd->body, nd->nbody, depth + 1, in);
	}
}

void tc_gtrace_info(const struct tc_gtrace *g, struct tc_gtrace_info *info)
{
	memset(info, 0, sizeof(*info));
	info_seq(g->seq, g->n, 0, info);
}
