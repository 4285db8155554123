/*
 * comms.c - a global trace's communicator table: every rank's
 * communicators (lib/trace.h), one entry per id and properties with the
 * ranks that have it.
 */
#include "lib/compat.h"
#include "lib/event.h"
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
		size_t k;

		if (tc->id == TC_COMM_WORLD || tc->id == TC_COMM_SELF)
			continue;
		memcpy(c.dims, tc->dims, sizeof(c.dims));
		/* the latest entries first: ranks that share one come together */
		for (k = g->ncomms; k-- > 0;)
			if (tc_gcomm_same(&g->comms[k], &c))
				break;
		if (k == (size_t)-1) {
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
			k = g->ncomms - 1;
		}
		tc_ranklist_add(&g->comms[k].ranks, rank);
	}
}
