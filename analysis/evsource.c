/*
 * evsource.c - every rank's events for the figures that filter them (see
 * evsource.h).
 */
#include "lib/compat.h"
#include "analysis/evsource.h"
#include "formats/raw.h"
#include "formats/reader.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/merge.h"
#include "lib/pool.h"
#include "lib/ranklist.h"
#include "lib/trace.h"
#include "lib/xalloc.h"
#include "viz/viz.h"

#include <stdlib.h>
#include <string.h>

size_t tc_evsrc_slots(const struct tc_evsrc *s)
{
	if (s->ts)
		return s->ts->nfiles;
	return s->g && s->g->world_size > 0 ? (size_t)s->g->world_size : 0;
}

int32_t tc_evsrc_world(const struct tc_evsrc *s)
{
	int32_t w = 0;

	if (s->g)
		return s->g->world_size;
	w = s->ts->world_size;
	for (size_t i = 0; i < s->ts->nfiles; i++)
		if (s->ts->files[i].hdr.rank >= w)
			w = s->ts->files[i].hdr.rank + 1;
	return w;
}

/* ---- a trace set, as recorded -------------------------------------------- */

struct raw_comm {
	uint32_t id;
	int32_t size;
	int32_t *members;        /* NULL: 0 .. size-1 */
	uint32_t ndims;          /* Cartesian topology */
	int32_t dims[8];
	uint32_t periods;
	bool graph;              /* graph topology: the rank's destinations */
	uint32_t nout;
	int32_t *out;
};

/* One file being read. */
struct raw_file {
	const struct tc_evsrc *s;
	size_t slot;
	int32_t rank;
	uint64_t start;          /* ns after the run's start */
	tc_evsrc_fn fn;
	void *ctx;
	uint64_t *sites;         /* by file-local call-site id */
	size_t nsites, asites;
	struct raw_comm *comms;
	size_t ncomms, acomms;
};

struct raw_job {
	const struct tc_evsrc *s;
	uint64_t t0;             /* the earliest start, ns since the epoch */
	tc_evsrc_fn fn;
	void *ctx;
};

static int raw_callsite(void *p, const struct tc_callsite *cs)
{
	struct raw_file *f = p;

	if (cs->id >= 1u << 24)
		return 0;
	if (cs->id >= f->nsites) {
		TC_ALLOC_GROW(f->sites, (size_t)cs->id + 1, f->asites);
		memset(f->sites + f->nsites, 0, ((size_t)cs->id + 1 - f->nsites) * sizeof(*f->sites));
		f->nsites = (size_t)cs->id + 1;
	}
	f->sites[cs->id] = cs->signature;
	return 0;
}

static int raw_comm(void *p, const struct tc_comm *c)
{
	struct raw_file *f = p;
	struct raw_comm *rc = NULL;

	if (c->size > INT32_MAX)
		return 0;
	for (size_t i = 0; i < f->ncomms; i++)
		if (f->comms[i].id == c->id)
			rc = &f->comms[i];
	if (!rc) {
		TC_ALLOC_GROW(f->comms, f->ncomms + 1, f->acomms);
		rc = &f->comms[f->ncomms++];
		rc->id = c->id;
	} else {
		free(rc->members);
		free(rc->out);
	}
	rc->size = (int32_t)c->size;
	rc->ndims = c->ndims > 8 ? 8 : c->ndims;
	memcpy(rc->dims, c->dims, sizeof(rc->dims));
	rc->periods = c->periods;
	rc->graph = c->graph;
	rc->nout = c->graph ? c->nout : 0;
	rc->out = NULL;
	if (rc->nout) {
		rc->out = tc_xmalloc(tc_st_mult(rc->nout, sizeof(*rc->out)));
		memcpy(rc->out, c->edges + c->nin, (size_t)rc->nout * sizeof(*rc->out));
	}
	rc->members = NULL;
	if (c->members && c->size) {
		rc->members = tc_xmalloc(tc_st_mult(c->size, sizeof(*rc->members)));
		memcpy(rc->members, c->members, (size_t)c->size * sizeof(*rc->members));
	}
	return 0;
}

static int raw_event(void *p, const struct tc_event *ev)
{
	struct raw_file *f = p;
	struct tc_matrix_comm mc, *comm = NULL;
	uint64_t site = ev->callsite < f->nsites ? f->sites[ev->callsite] : 0;

	if (ev->comm != TC_COMM_WORLD) {
		for (size_t i = 0; i < f->ncomms; i++) {
			if (f->comms[i].id != ev->comm)
				continue;
			mc.size = f->comms[i].size;
			mc.members = f->comms[i].members;
			mc.ndims = f->comms[i].ndims;
			mc.dims = f->comms[i].dims;
			mc.periods = f->comms[i].periods;
			mc.graph = f->comms[i].graph;
			mc.nout = f->comms[i].nout;
			mc.out = f->comms[i].out;
			comm = &mc;
			break;
		}
	}
	f->fn(f->ctx, f->slot, f->rank, ev, site, comm, f->start + ev->t_start);
	return 0;
}

static int raw_one(size_t index, struct tc_reader *r, void *p, struct tc_error *err)
{
	struct raw_job *j = p;
	const struct tc_traceset_file *tf = &j->s->ts->files[index];
	struct tc_read_ops ops = { raw_event, raw_callsite, raw_comm };
	struct raw_file f;
	int rc;

	memset(&f, 0, sizeof(f));
	f.s = j->s;
	f.slot = index;
	f.rank = tf->hdr.rank;
	f.start = tf->hdr.start_time_ns - j->t0;
	f.fn = j->fn;
	f.ctx = j->ctx;
	rc = tc_reader_read(r, &ops, &f, NULL, err);
	for (size_t i = 0; i < f.ncomms; i++) {
		free(f.comms[i].members);
		free(f.comms[i].out);
	}
	free(f.comms);
	free(f.sites);
	return rc;
}

/* ---- a global trace, expanded ------------------------------------------- */

void tc_evsrc_comms_init(struct tc_evsrc_comms *t, const struct tc_gtrace *g, int32_t rank)
{
	t->c = NULL;
	t->n = 0;
	if (!g || !g->ncomms)
		return;
	t->c = tc_xmalloc(tc_st_mult(g->ncomms, sizeof(*t->c)));
	for (size_t i = 0; i < g->ncomms; i++)
		if (tc_ranklist_contains(&g->comms[i].ranks, rank))
			t->c[t->n++] = &g->comms[i];
}

/* *mc as a view of communicator c: a global trace's table entry and a
 * rank trace's communicator have these fields alike. Returns mc. */
#define MATRIX_COMM(mc, c)                                                 \
	((mc)->size = (int32_t)(c)->size, (mc)->members = (c)->members,     \
	 (mc)->ndims = (c)->ndims, (mc)->dims = (c)->dims,                  \
	 (mc)->periods = (c)->periods, (mc)->graph = (c)->graph,            \
	 (mc)->nout = (c)->nout,                                            \
	 (mc)->out = (c)->edges ? (c)->edges + (c)->nin : NULL, (mc))

const struct tc_matrix_comm *tc_evsrc_comms_get(const struct tc_evsrc_comms *t, uint32_t id,
						struct tc_matrix_comm *mc)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct tc_gcomm *gc = t->c[i];
		if (gc->id != id || !gc->size || gc->size > INT32_MAX)
			continue;
		return MATRIX_COMM(mc, gc);
	}
	return NULL;
}

void tc_evsrc_comms_release(struct tc_evsrc_comms *t)
{
	free(t->c);
	t->c = NULL;
	t->n = 0;
}

const struct tc_matrix_comm *tc_evsrc_trace_comm(const struct tc_rank_trace *t, uint32_t id,
						 struct tc_matrix_comm *mc)
{
	const struct tc_trace_comm *tc;

	if (id == TC_COMM_WORLD || !t || !(tc = tc_rank_trace_comm(t, id)) || tc->size > INT32_MAX)
		return NULL;
	return MATRIX_COMM(mc, tc);
}

struct g_job {
	const struct tc_evsrc *s;
	tc_evsrc_fn fn;
	void *ctx;
};


static void g_one(size_t i, void *p)
{
	struct g_job *j = p;
	const struct tc_gtrace *g = j->s->g;
	const struct tc_rank_trace *t = tc_rank_trace_find(j->s->traces, j->s->ntraces, (int32_t)i);
	struct tc_gtrace_iter it;
	struct tc_event ev;
	struct tc_evsrc_comms tab;

	if (tc_gtrace_iter_init(&it, g, (int32_t)i))
		return;
	/* without the trace set, the global trace's own table */
	tc_evsrc_comms_init(&tab, t ? NULL : g, (int32_t)i);
	for (;;) {
		struct tc_matrix_comm mc;
		const struct tc_matrix_comm *comm;
		uint64_t site;
		tc_event_init(&ev);
		if (!tc_gtrace_iter_next(&it, &ev))
			break;
		site = ev.callsite < g->nsites ? g->sites[ev.callsite].sig : 0;
		comm = t ? tc_evsrc_trace_comm(t, ev.comm, &mc) :
			   tc_evsrc_comms_get(&tab, ev.comm, &mc);
		j->fn(j->ctx, i, (int32_t)i, &ev, site, comm, ev.t_start);
	}
	tc_evsrc_comms_release(&tab);
	tc_gtrace_iter_release(&it);
}

int tc_evsrc_each(const struct tc_evsrc *s, struct tc_pool *pool, tc_evsrc_fn fn, void *ctx,
		  struct tc_error *err)
{
	if (s->g) {
		struct g_job j = { s, fn, ctx };
		tc_pool_for(pool, tc_evsrc_slots(s), g_one, &j);
		return 0;
	} else {
		struct raw_job j = { s, UINT64_MAX, fn, ctx };
		for (size_t i = 0; i < s->ts->nfiles; i++)
			if (s->ts->files[i].hdr.start_time_ns < j.t0)
				j.t0 = s->ts->files[i].hdr.start_time_ns;
		return tc_traceset_each(s->ts, pool, raw_one, &j, err);
	}
}
