/*
 * comms.c - a global trace's communicator table: every rank's
 * communicators (lib/trace.h), one entry per id and properties with the
 * ranks that have it, found through a hash index of the entries.
 */
#include "lib/compat.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/merge.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct tc_gcomm *tc_gtrace_push_comm(struct tc_gtrace *g)
{
	struct tc_gcomm *c;

	TC_ALLOC_GROW(g->comms, g->ncomms + 1, g->acomms);
	c = &g->comms[g->ncomms++];
	memset(c, 0, sizeof(*c));
	tc_ranklist_init(&c->ranks);
	return c;
}

bool tc_gcomm_same(const struct tc_gcomm *a, const struct tc_gcomm *b)
{
	if (a->id != b->id || a->parent != b->parent || a->creator != b->creator ||
	    a->size != b->size || a->ndims != b->ndims || a->periods != b->periods ||
	    memcmp(a->dims, b->dims, sizeof(a->dims)) || !a->members != !b->members ||
	    a->graph != b->graph || a->weighted != b->weighted || a->nin != b->nin ||
	    a->nout != b->nout)
		return false;
	if (a->members && memcmp(a->members, b->members, a->size * sizeof(*a->members)))
		return false;
	return !a->graph ||
	       !memcmp(a->edges, b->edges, tc_gcomm_edge_words(a) * sizeof(*a->edges));
}

static uint64_t comm_hash(const struct tc_gcomm *c)
{
	uint64_t h = tc_hash_mix(tc_hash_mix(c->id, c->parent), c->creator);

	h = tc_hash_mix(tc_hash_mix(h, c->size), c->ndims ^ ((uint64_t)c->periods << 32));
	h = tc_hash_mix(h, tc_hash64(c->dims, sizeof(c->dims), 0));
	if (c->members)
		h = tc_hash_mix(h, tc_hash64(c->members, c->size * sizeof(*c->members), 1));
	return h;
}

/* Put entry k into the index (its slots hold entry + 1, 0 when free). */
static void index_put(struct tc_gtrace *g, size_t k)
{
	size_t mask = g->comm_slots - 1, at = (size_t)comm_hash(&g->comms[k]) & mask;

	while (g->comm_index[at])
		at = (at + 1) & mask;
	g->comm_index[at] = k + 1;
}

/* The index covering every entry, with room for one more. */
static void index_fit(struct tc_gtrace *g)
{
	if (2 * (g->ncomms + 1) > g->comm_slots) {
		size_t n = g->comm_slots ? g->comm_slots : 64;
		while (2 * (g->ncomms + 1) > n)
			n *= 2;
		free(g->comm_index);
		g->comm_index = tc_xcalloc(n, sizeof(*g->comm_index));
		g->comm_slots = n;
		g->comm_indexed = 0;
	}
	for (; g->comm_indexed < g->ncomms; g->comm_indexed++)
		index_put(g, g->comm_indexed);
}

void tc_gtrace_add_comms(struct tc_gtrace *g, int32_t rank, const struct tc_trace_comm *cs,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct tc_trace_comm *tc = &cs[i];
		struct tc_gcomm c = { .id = tc->id, .parent = tc->parent, .creator = tc->creator,
				      .size = tc->size, .ndims = tc->ndims, .periods = tc->periods,
				      .members = tc->members, .graph = tc->graph,
				      .weighted = tc->weighted, .nin = tc->nin, .nout = tc->nout,
				      .edges = tc->edges };
		size_t mask, at, k = 0;

		if (tc->id == TC_COMM_WORLD || tc->id == TC_COMM_SELF)
			continue;
		memcpy(c.dims, tc->dims, sizeof(c.dims));
		index_fit(g);
		mask = g->comm_slots - 1;
		for (at = (size_t)comm_hash(&c) & mask; (k = g->comm_index[at]); at = (at + 1) & mask)
			if (tc_gcomm_same(&g->comms[k - 1], &c))
				break;
		if (!k) {
			struct tc_gcomm *e = tc_gtrace_push_comm(g);
			struct tc_ranklist rl = e->ranks;
			*e = c;
			e->ranks = rl;
			e->members = NULL;
			e->edges = NULL;
			if (c.members) {
				e->members = tc_xmalloc(tc_st_mult(c.size, sizeof(*e->members)));
				memcpy(e->members, c.members, c.size * sizeof(*e->members));
			}
			if (c.graph) {
				size_t w = tc_gcomm_edge_words(&c);
				e->edges = tc_xmalloc(tc_st_mult(w + 1, sizeof(*e->edges)));
				memcpy(e->edges, c.edges, w * sizeof(*e->edges));
			}
			k = g->ncomms;
			g->comm_index[at] = k;
			g->comm_indexed = g->ncomms;
		}
		tc_ranklist_add(&g->comms[k - 1].ranks, rank);
	}
}
