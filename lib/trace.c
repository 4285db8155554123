/*
 * trace.c - one rank's trace in memory, compressed as it is read.
 */
#include "compat.h"
#include "trace.h"
#include "event.h"
#include "hash.h"
#include "pack.h"
#include "rsd.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

struct tc_rank_trace *tc_rank_trace_new(int32_t rank, int32_t world_size,
					const struct tc_rsd_opts *opts)
{
	struct tc_rank_trace *t = tc_xcalloc(1, sizeof(*t));

	t->rank = rank;
	t->world_size = world_size;
	t->seq = tc_rsd_new(rank, opts);
	return t;
}

static void site_release(struct tc_trace_site *s)
{
	for (uint32_t k = 0; k < s->nframes; k++) {
		free((char *)s->frames[k].module);
		free((char *)s->frames[k].symbol);
	}
	free(s->frames);
	s->frames = NULL;
	s->nframes = 0;
}

/* Index of the first site with id >= id. */
static size_t site_pos(const struct tc_rank_trace *t, uint32_t id)
{
	size_t lo = 0, hi = t->nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->sites[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct tc_trace_site *tc_rank_trace_site(const struct tc_rank_trace *t, uint32_t id)
{
	size_t i = site_pos(t, id);

	return i < t->nsites && t->sites[i].id == id ? &t->sites[i] : NULL;
}

/* Words in c->edges. */
static size_t comm_edge_words(const struct tc_trace_comm *c)
{
	return c->graph ? ((size_t)c->nin + c->nout) * (c->weighted ? 2 : 1) : 0;
}

static void comm_release(struct tc_trace_comm *c)
{
	free(c->members);
	free(c->edges);
}

void tc_rank_trace_free(struct tc_rank_trace **tp)
{
	struct tc_rank_trace *t = *tp;

	if (!t)
		return;
	*tp = NULL;
	tc_rsd_free(&t->seq);
	for (size_t i = 0; i < t->nsites; i++)
		site_release(&t->sites[i]);
	free(t->sites);
	for (size_t i = 0; i < t->ncomms; i++)
		comm_release(&t->comms[i]);
	free(t->comms);
	free(t);
}

int tc_rank_trace_on_event(void *ctx, const struct tc_event *ev)
{
	struct tc_rank_trace *t = ctx;

	tc_rsd_add(t->seq, ev);
	t->events++;
	return 0;
}

int tc_rank_trace_on_callsite(void *ctx, const struct tc_callsite *cs)
{
	struct tc_rank_trace *t = ctx;

	size_t i = site_pos(t, cs->id);
	struct tc_trace_site *s;

	tc_rsd_set_callsite(t->seq, cs->id, cs->signature);
	t->callsites++;
	if (i < t->nsites && t->sites[i].id == cs->id) {
		site_release(&t->sites[i]);
	} else {
		TC_ALLOC_GROW(t->sites, t->nsites + 1, t->asites);
		memmove(&t->sites[i + 1], &t->sites[i], (t->nsites - i) * sizeof(*t->sites));
		t->nsites++;
	}
	s = &t->sites[i];
	s->id = cs->id;
	s->signature = cs->signature;
	s->nframes = cs->nframes;
	s->frames = tc_xcalloc(cs->nframes ? cs->nframes : 1, sizeof(*s->frames));
	for (uint32_t k = 0; k < cs->nframes; k++) {
		s->frames[k].module = tc_xstrdup(cs->frames[k].module ? cs->frames[k].module : "");
		s->frames[k].symbol = tc_xstrdup(cs->frames[k].symbol ? cs->frames[k].symbol : "");
		s->frames[k].offset = cs->frames[k].offset;
	}
	return 0;
}

/* Index of the first communicator with id >= id. */
static size_t comm_pos(const struct tc_rank_trace *t, uint32_t id)
{
	size_t lo = 0, hi = t->ncomms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->comms[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int tc_rank_trace_on_comm(void *ctx, const struct tc_comm *c)
{
	struct tc_rank_trace *t = ctx;
	size_t i = comm_pos(t, c->id);
	struct tc_trace_comm tc = { c->id, c->parent, c->creator, c->size, 0, { 0 }, 0, NULL,
				    false, false, 0, 0, NULL };
	size_t nedges = tc_comm_edge_words(c);

	tc.ndims = c->ndims > 8 ? 8 : c->ndims;
	for (uint32_t d = 0; d < tc.ndims; d++)
		tc.dims[d] = c->dims[d];
	tc.periods = tc.ndims ? c->periods & ((1u << tc.ndims) - 1) : 0;
	if (c->members && c->id != TC_COMM_SELF) {
		uint32_t k = 0;
		while (k < c->size && c->members[k] == (int32_t)k)
			k++;
		if (k < c->size) {
			tc.members = tc_xmalloc(tc_st_mult(c->size, sizeof(*tc.members)));
			memcpy(tc.members, c->members, c->size * sizeof(*tc.members));
		}
	}
	if (c->graph) {
		tc.graph = true;
		tc.weighted = c->weighted;
		tc.nin = c->nin;
		tc.nout = c->nout;
		tc.edges = tc_xmalloc(tc_st_mult(nedges ? nedges : 1, sizeof(*tc.edges)));
		if (nedges)
			memcpy(tc.edges, c->edges, nedges * sizeof(*tc.edges));
	}
	if (i < t->ncomms && t->comms[i].id == c->id) {
		comm_release(&t->comms[i]);
		t->comms[i] = tc;
		return 0;
	}
	TC_ALLOC_GROW(t->comms, t->ncomms + 1, t->acomms);
	memmove(&t->comms[i + 1], &t->comms[i], (t->ncomms - i) * sizeof(*t->comms));
	t->comms[i] = tc;
	t->ncomms++;
	return 0;
}

const struct tc_trace_comm *tc_rank_trace_comm(const struct tc_rank_trace *t, uint32_t id)
{
	size_t i = comm_pos(t, id);

	return i < t->ncomms && t->comms[i].id == id ? &t->comms[i] : NULL;
}

static bool comm_same(const struct tc_trace_comm *a, const struct tc_trace_comm *b)
{
	if (a->id != b->id || a->parent != b->parent || a->creator != b->creator ||
	    a->size != b->size || a->ndims != b->ndims || a->periods != b->periods)
		return false;
	if (!a->members != !b->members ||
	    (a->members && memcmp(a->members, b->members, a->size * sizeof(*a->members))))
		return false;
	for (uint32_t k = 0; k < a->ndims && k < 8; k++)
		if (a->dims[k] != b->dims[k])
			return false;
	if (a->graph != b->graph || a->weighted != b->weighted || a->nin != b->nin ||
	    a->nout != b->nout)
		return false;
	return !a->graph ||
	       !memcmp(a->edges, b->edges, comm_edge_words(a) * sizeof(*a->edges));
}

bool tc_rank_trace_same(const struct tc_rank_trace *a, const struct tc_rank_trace *b)
{
	if (a == b)
		return true;
	if (a->world_size != b->world_size || a->events != b->events || a->ncomms != b->ncomms)
		return false;
	for (size_t i = 0; i < a->ncomms; i++)
		if (!comm_same(&a->comms[i], &b->comms[i]))
			return false;
	return tc_rsd_equal(a->seq, b->seq);
}

uint64_t tc_rank_trace_digest(const struct tc_rank_trace *t)
{
	uint64_t h = tc_hash_mix(tc_rsd_digest(t->seq), (uint64_t)(uint32_t)t->world_size);

	h = tc_hash_mix(h, t->events);
	for (size_t i = 0; i < t->ncomms; i++) {
		const struct tc_trace_comm *c = &t->comms[i];
		h = tc_hash_mix(h, (uint64_t)c->id << 32 | c->size);
		h = tc_hash_mix(h, (uint64_t)c->creator << 32 | c->parent);
		for (uint32_t k = 0; c->members && k < c->size; k++)
			h = tc_hash_mix(h, (uint64_t)(uint32_t)c->members[k]);
		h = tc_hash_mix(h, (uint64_t)c->nin << 32 | c->nout);
		for (size_t k = 0; k < comm_edge_words(c); k++)
			h = tc_hash_mix(h, (uint64_t)(uint32_t)c->edges[k]);
	}
	return tc_hash_fmix(h);
}

const struct tc_rank_trace *tc_rank_trace_find(struct tc_rank_trace *const *traces, size_t n,
					       int32_t r)
{
	size_t lo = 0, hi = traces ? n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (traces[mid]->rank < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return traces && lo < n && traces[lo]->rank == r ? traces[lo] : NULL;
}

/* ---- handing a trace to another process ---------------------------------- */

void tc_trace_comm_pack(const struct tc_trace_comm *c, struct tc_strbuf *out)
{
	tc_pack_u64(out, c->id);
	tc_pack_u64(out, c->parent);
	tc_pack_u64(out, c->creator);
	tc_pack_u64(out, c->size);
	tc_pack_u64(out, c->ndims);
	for (uint32_t d = 0; d < c->ndims; d++)
		tc_pack_s64(out, c->dims[d]);
	tc_pack_u64(out, c->periods);
	tc_pack_u64(out, c->members != NULL);
	for (uint32_t k = 0; c->members && k < c->size; k++)
		tc_pack_s64(out, c->members[k]);
	tc_pack_u64(out, (c->graph ? 1u : 0u) | (c->graph && c->weighted ? 2u : 0u));
	if (c->graph) {
		tc_pack_u64(out, c->nin);
		tc_pack_u64(out, c->nout);
		for (size_t k = 0; k < comm_edge_words(c); k++)
			tc_pack_s64(out, c->edges[k]);
	}
}

void tc_rank_trace_pack(const struct tc_rank_trace *t, struct tc_strbuf *out)
{
	tc_pack_s64(out, t->rank);
	tc_pack_s64(out, t->world_size);
	tc_pack_u64(out, t->events);
	tc_pack_u64(out, t->callsites);
	tc_pack_u64(out, t->ncomms);
	for (size_t i = 0; i < t->ncomms; i++)
		tc_trace_comm_pack(&t->comms[i], out);
	tc_pack_u64(out, t->nsites);
	for (size_t i = 0; i < t->nsites; i++) {
		const struct tc_trace_site *s = &t->sites[i];
		tc_pack_u64(out, s->id);
		tc_pack_u64(out, s->signature);
		tc_pack_u64(out, s->nframes);
		for (uint32_t k = 0; k < s->nframes; k++) {
			tc_pack_str(out, s->frames[k].module);
			tc_pack_u64(out, s->frames[k].offset);
			tc_pack_str(out, s->frames[k].symbol);
		}
	}
	tc_rsd_pack(t->seq, out);
}

static void unpack_graph(struct tc_unpack *u, struct tc_trace_comm *c)
{
	uint64_t flags = tc_unpack_u64(u);
	size_t n;

	if (!flags || u->bad)
		return;
	if (flags != 1 && flags != 3) {
		u->bad = true;
		return;
	}
	c->nin = tc_unpack_u32(u);
	c->nout = tc_unpack_u32(u);
	c->graph = true;
	c->weighted = flags == 3;
	n = comm_edge_words(c);
	if (n > (size_t)(u->end - u->p)) {
		u->bad = true;
		c->graph = false;
		return;
	}
	c->edges = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*c->edges)));
	for (size_t k = 0; k < n; k++)
		c->edges[k] = tc_unpack_s32(u);
}

void tc_trace_comm_unpack(struct tc_unpack *u, struct tc_trace_comm *c)
{
	memset(c, 0, sizeof(*c));
	c->id = tc_unpack_u32(u);
	c->parent = tc_unpack_u32(u);
	c->creator = tc_unpack_u32(u);
	c->size = tc_unpack_u32(u);
	c->ndims = tc_unpack_u32(u);
	if (c->ndims > 8) {
		u->bad = true;
		c->ndims = 0;
	}
	for (uint32_t d = 0; d < c->ndims; d++)
		c->dims[d] = tc_unpack_s32(u);
	c->periods = tc_unpack_u32(u);
	if (tc_unpack_u64(u)) {
		if (c->size > (size_t)(u->end - u->p)) {
			u->bad = true;
			return;
		}
		c->members = tc_xmalloc(tc_st_mult(c->size ? c->size : 1, sizeof(*c->members)));
		for (uint32_t k = 0; k < c->size; k++)
			c->members[k] = tc_unpack_s32(u);
	}
	unpack_graph(u, c);
}

static void unpack_site(struct tc_unpack *u, struct tc_trace_site *s)
{
	size_t n;

	s->id = tc_unpack_u32(u);
	s->signature = tc_unpack_u64(u);
	n = tc_unpack_count(u, 3);
	s->frames = tc_xcalloc(n ? n : 1, sizeof(*s->frames));
	for (size_t k = 0; k < n && !u->bad; k++) {
		s->frames[k].module = tc_unpack_strdup(u);
		s->frames[k].offset = tc_unpack_u64(u);
		s->frames[k].symbol = tc_unpack_strdup(u);
		s->nframes = (uint32_t)k + 1;
	}
}

struct tc_rank_trace *tc_rank_trace_unpack(struct tc_unpack *u)
{
	struct tc_rank_trace *t = tc_xcalloc(1, sizeof(*t));
	size_t n;

	t->rank = tc_unpack_s32(u);
	t->world_size = tc_unpack_s32(u);
	t->events = tc_unpack_u64(u);
	t->callsites = tc_unpack_u64(u);
	n = tc_unpack_count(u, 7);
	t->comms = tc_xcalloc(n ? n : 1, sizeof(*t->comms));
	t->acomms = n ? n : 1;
	for (size_t i = 0; i < n && !u->bad; i++)
		tc_trace_comm_unpack(u, &t->comms[t->ncomms++]);
	n = tc_unpack_count(u, 3);
	t->sites = tc_xcalloc(n ? n : 1, sizeof(*t->sites));
	t->asites = n ? n : 1;
	for (size_t i = 0; i < n && !u->bad; i++)
		unpack_site(u, &t->sites[t->nsites++]);
	if (!u->bad)
		t->seq = tc_rsd_unpack(u);
	if (u->bad || !t->seq)
		tc_rank_trace_free(&t);
	return t;
}
