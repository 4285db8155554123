/*
 * chameleon.c - Chameleon: phase-aware clustering over marker intervals.
 *
 * Bahmani's dissertation (2017) ch. 5, run offline over the per-rank
 * streams: each rank's compressed trace is expanded again, event by
 * event, and cut at its calls of the marker ("special MPI collective
 * events, which trigger clustering ... we consider MPI_Barrier as the
 * marker", §5.1). At every Call_Frequency-th marker call (Alg. 8, lines
 * 1-4) every rank has two compressed sequences: the events since the last
 * marker invocation (the interval, whose call-path signature Alg. 6
 * compares with the previous one: "Chameleon creates the Call-Path
 * signature of added events between two calls") and its partial trace,
 * the events since the last time the leads' traces were merged (Alg. 8,
 * line 51 deletes it only under "C" and "L"). The transition graph
 * (Fig. 5.1, Alg. 6) then decides:
 *
 *   AT  All Tracing: nothing but Alg. 6 (§5.1 (2));
 *   C   Clustering: call-path clusters, K/#call-paths leads in each by
 *       find-top-K on SRC and DEST (Alg. 7, Alg. 8 lines 7-24), the leads'
 *       partial traces get their clusters' ranklists and are merged over a
 *       radix tree, and the result is appended to the online trace (lines
 *       25-49); every partial trace starts over (line 51);
 *   L   Lead: only the leads trace; "synonymous to the state AT in terms
 *       of its actions" while the call path stays the same (Alg. 6 line
 *       24), and when it changes the leads' partial traces are merged with
 *       the clustering of the last C (line 30) before going to AT. The
 *       interval whose call path changed is not part of that merge: it
 *       belongs to the AT state that follows (where every rank traces)
 *       and starts the next partial trace, so that the old leads never
 *       stand for the new phase's events.
 *
 * At the end (MPI_Finalize) "re-clustering must be triggered but the
 * inter-compression part remains the same": the events since the last
 * merge are clustered and merged once more.
 *
 * The one departure from Alg. 6 as printed: on leaving L (line 27-31) the
 * Re-Clustering flag is set again, as the transition graph of §5.1 says
 * ("merge all partial traces ... and then go to state AT", and AT goes to
 * C when the call path repeats); without it a phase change after an L
 * phase would never be clustered again.
 *
 * Clustering uses the signatures of the partial traces (the events that
 * the leads' traces stand for in the merge), Call-Path, SRC and DEST only
 * ("we only consider Call-Path, SRC and DEST signatures", §5.1).
 *
 * Deterministic: per-rank work runs on the pool by rank index, every
 * reduction is over fixed trees, so the result is the same for every
 * thread count.
 */
#include "lib/compat.h"
#include "cluster/cluster.h"
#include "cluster/internal.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/merge.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[TC_NCHAM_STATES] = { "AT", "C", "L" };

const char *tc_cham_state_name(int state)
{
	return state >= 0 && state < TC_NCHAM_STATES ? state_names[state] : NULL;
}

void tc_chameleon_free(struct tc_chameleon **cp)
{
	struct tc_chameleon *c = *cp;

	if (!c)
		return;
	*cp = NULL;
	free(c->states);
	tc_gtrace_free(&c->online);
	free(c);
}

static void run_for(struct tc_pool *pool, size_t n, tc_pool_for_fn fn, void *ctx)
{
	if (pool) {
		tc_pool_for(pool, n, fn, ctx);
		return;
	}
	for (size_t i = 0; i < n; i++)
		fn(i, ctx);
}

/* ---- the marker ------------------------------------------------------------ */

struct site_count {
	uint64_t site;
	uint64_t n;
};

struct site_counts {
	struct site_count *v;
	size_t n, alloc;
};

static void count_nodes(const struct tc_rsd *rsd, const struct tc_rsd_node *seq, size_t n,
			uint32_t op, struct site_counts *sc)
{
	for (size_t i = 0; i < n; i++) {
		const struct tc_rsd_node *nd = &seq[i];
		const struct tc_rsd_event *e;
		size_t j;
		if (nd->nbody) {
			count_nodes(rsd, nd->body, nd->nbody, op, sc);
			continue;
		}
		e = tc_rsd_event(rsd, nd->event);
		if (e->op != op)
			continue;
		for (j = 0; j < sc->n && sc->v[j].site != e->stack; j++)
			;
		if (j == sc->n) {
			if (sc->n == sc->alloc) {
				sc->alloc = sc->alloc ? 2 * sc->alloc : 8;
				sc->v = tc_xrealloc(sc->v, tc_st_mult(sc->alloc, sizeof(*sc->v)));
			}
			sc->v[sc->n].site = e->stack;
			sc->v[sc->n].n = 0;
			sc->n++;
		}
		sc->v[j].n += nd->comp.n;
	}
}

/* Events of every occurrence under a node. */
static uint64_t node_events(const struct tc_rsd_node *nd)
{
	uint64_t n = 0;

	if (!nd->nbody)
		return nd->comp.n;
	for (uint32_t i = 0; i < nd->nbody; i++)
		n += node_events(&nd->body[i]);
	return n;
}

struct vote {
	uint32_t op;
	uint64_t site;
	size_t ranks;
};

bool tc_chameleon_candidate(const struct tc_rsd *rsd, uint32_t *op, uint64_t *site)
{
	size_t len;
	const struct tc_rsd_node *seq = tc_rsd_seq(rsd, &len), *loop = NULL, *pick = NULL;
	uint64_t most = 0;

	for (size_t i = 0; i < len; i++) {
		uint64_t ev;
		if (!seq[i].nbody)
			continue;
		ev = node_events(&seq[i]);
		if (ev > most) {
			most = ev;
			loop = &seq[i];
		}
	}
	if (!loop)
		return false;
	for (uint32_t i = 0; i < loop->nbody && !pick; i++)
		if (!loop->body[i].nbody &&
		    tc_op_kind(tc_rsd_event(rsd, loop->body[i].event)->op) == TC_K_COLL)
			pick = &loop->body[i];
	for (uint32_t i = 0; i < loop->nbody && !pick; i++)
		if (!loop->body[i].nbody)
			pick = &loop->body[i];
	if (!pick)
		return false;
	*op = tc_rsd_event(rsd, pick->event)->op;
	*site = tc_rsd_event(rsd, pick->event)->stack;
	return true;
}

bool tc_chameleon_vote(const struct tc_cham_candidate *c, size_t n, uint32_t *op,
		       uint64_t *site)
{
	struct vote *v = NULL;
	size_t nv = 0, alloc = 0, best = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		uint32_t o = c[i].op;
		uint64_t s = c[i].site;
		size_t j;
		if (!c[i].has)
			continue;
		for (j = 0; j < nv && (v[j].op != o || v[j].site != s); j++)
			;
		if (j == nv) {
			TC_ALLOC_GROW(v, nv + 1, alloc);
			v[nv].op = o;
			v[nv].site = s;
			v[nv].ranks = 0;
			nv++;
		}
		v[j].ranks++;
	}
	for (size_t j = 0; j < nv; j++)
		if (best == SIZE_MAX || v[j].ranks > v[best].ranks ||
		    (v[j].ranks == v[best].ranks &&
		     (v[j].op < v[best].op || (v[j].op == v[best].op && v[j].site < v[best].site))))
			best = j;
	if (best != SIZE_MAX) {
		*op = v[best].op;
		*site = v[best].site;
	}
	free(v);
	return best != SIZE_MAX;
}

static int auto_marker(struct tc_rank_trace *const *traces, size_t n, uint32_t *op,
		       uint64_t *site, struct tc_error *err)
{
	struct tc_cham_candidate *c = tc_xcalloc(n ? n : 1, sizeof(*c));
	bool found;

	for (size_t i = 0; i < n; i++)
		c[i].has = tc_chameleon_candidate(traces[i]->seq, &c[i].op, &c[i].site);
	found = tc_chameleon_vote(c, n, op, site);
	free(c);
	if (!found)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "no marker: no rank repeats a loop to find one in (choose one "
				    "with --marker OP[@CALLSITE])");
	return 0;
}

int tc_chameleon_marker(struct tc_rank_trace *const *traces, size_t n, uint32_t *opp,
			uint64_t marker_site, uint64_t *site, struct tc_error *err)
{
	struct site_counts sc = { NULL, 0, 0 };
	uint32_t op = *opp ? *opp : TC_OP_BARRIER;
	const char *name;
	size_t best = SIZE_MAX;

	if (*opp == TC_CHAM_MARKER_AUTO)
		return auto_marker(traces, n, opp, site, err);
	name = tc_op_name(op);
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const struct tc_rsd_node *seq = tc_rsd_seq(traces[i]->seq, &len);
		count_nodes(traces[i]->seq, seq, len, op, &sc);
	}
	for (size_t j = 0; j < sc.n; j++) {
		if (marker_site) {
			if (sc.v[j].site == marker_site)
				best = j;
			continue;
		}
		if (best == SIZE_MAX || sc.v[j].n > sc.v[best].n ||
		    (sc.v[j].n == sc.v[best].n && sc.v[j].site < sc.v[best].site))
			best = j;
	}
	if (best != SIZE_MAX)
		*site = sc.v[best].site;
	free(sc.v);
	if (best == SIZE_MAX) {
		/* nothing given and no MPI_Barrier: find one */
		if (!*opp && !marker_site)
			return auto_marker(traces, n, opp, site, err);
		if (marker_site)
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "no marker: no %s call at call site 0x%016" PRIx64
					    " in the traces", name ? name : "?", marker_site);
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "no marker: no %s call in the traces (choose one with "
				    "--marker OP[@CALLSITE])", name ? name : "?");
	}
	*opp = op;
	return 0;
}

int tc_chameleon_parse_marker(const char *s, uint32_t *op, uint64_t *site)
{
	const char *at = strchr(s, '@');
	char name[64];
	size_t len = at ? (size_t)(at - s) : strlen(s);
	unsigned o;

	if (!strcmp(s, "auto")) {
		*op = TC_CHAM_MARKER_AUTO;
		*site = 0;
		return 0;
	}
	if (!len || len >= sizeof(name))
		return -1;
	memcpy(name, s, len);
	name[len] = '\0';
	o = tc_op_from_name(name);
	if (o == TC_OP_NONE)
		return -1;
	*op = o;
	*site = 0;
	if (at) {
		char *end;
		unsigned long long v;
		if (!at[1])
			return -1;
		errno = 0;
		v = strtoull(at + 1, &end, 0);
		if (errno || *end || !v)
			return -1;
		*site = (uint64_t)v;
	}
	return 0;
}

/* ---- per-rank streams ------------------------------------------------------ */

struct crank {
	const struct tc_rank_trace *t;
	struct tc_rsd_iter it;  /* where the intervals are read */
	struct tc_rsd_iter pit; /* where the partial trace is read, behind it */
	bool started, ended;
	struct tc_rsd *ival;    /* events since the last invocation of Alg. 6 */
	struct tc_rsd *part;    /* partial trace: events since the last merge */
	uint64_t ival_events, part_events;
	uint32_t found;         /* marker calls in the last advance */
	uint64_t markers;       /* marker calls so far */
	uint64_t callpath;      /* of the interval */
};

/* Alg. 8 line 51 (and the interval after each invocation): start over,
 * continuing the stream's encoding state. */
static void reset_rsd(struct tc_rsd **r, uint64_t *events)
{
	struct tc_rsd *n = tc_rsd_new_segment(*r);

	tc_rsd_free(r);
	*r = n;
	*events = 0;
}

struct advance_job {
	struct crank *r;
	uint32_t op;
	uint64_t site;
	uint32_t freq;
};

/* Feed rank i's events into its interval up to and including its
 * freq-th next marker call (Alg. 8 lines 1-4), or to its end; at a marker
 * invocation take the interval's call-path signature. */
static void advance_one(size_t i, void *p)
{
	struct advance_job *j = p;
	struct crank *r = &j->r[i];
	struct tc_event ev;

	r->found = 0;
	if (!r->started) {
		tc_rsd_iter_init(&r->it, r->t->seq);
		tc_rsd_iter_init(&r->pit, r->t->seq);
		r->started = true;
	}
	while (!r->ended && r->found < j->freq) {
		const struct tc_rsd_event *e;
		if (!tc_rsd_iter_next(&r->it, &ev)) {
			r->ended = true;
			break;
		}
		tc_rsd_add(r->ival, &ev);
		r->ival_events++;
		e = tc_rsd_event(r->t->seq, r->it.node->event);
		if (ev.op == j->op && e->stack == j->site) {
			r->found++;
			r->markers++;
		}
	}
	if (r->found == j->freq) {
		/* Alg. 6 line 1: the call path of the interval */
		struct tc_signatures s;
		tc_signatures_compute_seq(r->ival, r->t, &s);
		r->callpath = s.callpath;
	}
}

/* Add rank i's last interval to its partial trace (the same events,
 * read again from the second iterator) and start the next interval. */
static void feed_part_one(size_t i, void *p)
{
	struct crank *r = &((struct crank *)p)[i];
	struct tc_event ev;

	for (uint64_t k = 0; k < r->ival_events && tc_rsd_iter_next(&r->pit, &ev); k++) {
		tc_rsd_add(r->part, &ev);
		r->part_events++;
	}
	reset_rsd(&r->ival, &r->ival_events);
}

struct sig_job {
	struct crank *r;
	struct tc_signatures *sigs; /* the partial traces' signatures */
};

static void part_sig_one(size_t i, void *p)
{
	struct sig_job *j = p;

	tc_signatures_compute_seq(j->r[i].part, j->r[i].t, &j->sigs[i]);
	j->sigs[i].rank = j->r[i].t->rank;
}

static void reset_part_one(size_t i, void *p)
{
	struct crank *r = &((struct crank *)p)[i];

	reset_rsd(&r->part, &r->part_events);
}

/* ---- clustering (Alg. 8 lines 7-24, Alg. 7) -------------------------------- */

/*
 * Cluster the ranks by their partial traces' signatures: exact call-path
 * clusters over a radix tree, then in each K / #call-paths (at least one)
 * leads chosen by K-Farthest over SRC and DEST, the other ranks joining
 * the closest lead (Alg. 7), again over radix trees (Alg. 8 lines 8-22:
 * every node merges its children's lists with itself and keeps the top
 * K). head[i] receives the lead (input index) of i, main_of[i] its
 * call-path cluster. Returns the number of call-path clusters.
 */
static size_t cham_cluster(const struct tc_signatures *sigs, size_t n,
			   const struct tc_cluster_opts *o, uint32_t *head, uint32_t *main_of)
{
	struct tc_cluster_input in = { sigs, n, NULL };
	struct tc_exact_spec spec;
	struct tc_all_tree a;
	struct tc_group_forest g;
	struct tc_forest f;
	struct tc_cluster_metric mt;
	uint64_t *keys = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*keys)));
	uint32_t *first = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*first)));
	uint32_t *kt, localk;
	size_t nmains = 0;

	for (size_t i = 0; i < n; i++)
		keys[i] = sigs[i].callpath;
	memset(&spec, 0, sizeof(spec));
	spec.keys = keys;
	spec.nk = 1;
	tc_all_tree_init(&a, &f, n, o->radix);
	tc_exact_reduce(&f, &spec, o->pool, head);
	tc_forest_release(&f);
	tc_all_tree_release(&a);
	/* call-path clusters numbered in order of their first member (the
	 * head is the lowest index) */
	for (size_t i = 0; i < n; i++) {
		if (head[i] == i)
			first[i] = (uint32_t)nmains++;
		main_of[i] = first[head[i]];
	}
	/* Alg. 8 line 13: local K = K / Number of Call-Paths */
	localk = nmains ? o->k / (uint32_t)nmains : 1;
	if (localk < 1)
		localk = 1;
	kt = tc_xmalloc(tc_st_mult(nmains ? nmains : 1, sizeof(*kt)));
	for (size_t c = 0; c < nmains; c++)
		kt[c] = localk;
	tc_cluster_metric_init(&mt, sigs, n,
			       (UINT32_C(1) << TC_SIG_SRC) | (UINT32_C(1) << TC_SIG_DEST),
			       o->distance, o->pool);
	tc_group_forest_init(&g, &f, main_of, n, nmains, o->radix);
	tc_k_reduce(&f, &mt, &in, kt, false, o, head);
	tc_forest_release(&f);
	tc_group_forest_release(&g);
	free(kt);
	free(first);
	free(keys);
	return nmains;
}

/* The clusters of head (leads) and main_of (call-path clusters) into out. */
static void partition(const struct tc_cluster_input *in, const uint32_t *head,
		      const uint32_t *main_of, struct tc_clustering *out)
{
	size_t n = in->n, nm = 0;
	uint32_t *mh, *firstm;

	out->clusters = tc_build_clusters(in, head, &out->nclusters, NULL);
	for (size_t i = 0; i < n; i++)
		if (main_of[i] + 1 > nm)
			nm = main_of[i] + 1;
	mh = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*mh)));
	firstm = tc_xmalloc(tc_st_mult(nm ? nm : 1, sizeof(*firstm)));
	for (size_t m = 0; m < nm; m++)
		firstm[m] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		if (firstm[main_of[i]] == UINT32_MAX)
			firstm[main_of[i]] = (uint32_t)i;
		mh[i] = firstm[main_of[i]];
	}
	out->mains = tc_build_clusters(in, mh, &out->nmains, NULL);
	tc_link_mains(out->clusters, out->nclusters, out->mains, out->nmains, main_of);
	free(firstm);
	free(mh);
}

void tc_chameleon_cluster(const struct tc_signatures *sigs, size_t n,
			  const struct tc_cluster_opts *o, struct tc_clustering *out)
{
	struct tc_cluster_input in = { sigs, n, NULL };
	uint32_t *head = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*head)));
	uint32_t *main_of = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*main_of)));

	out->claim = TC_LEVEL_NONE;
	out->dims = (UINT32_C(1) << TC_SIG_CALLPATH) | (UINT32_C(1) << TC_SIG_SRC) |
		    (UINT32_C(1) << TC_SIG_DEST);
	cham_cluster(sigs, n, o, head, main_of);
	partition(&in, head, main_of, out);
	free(head);
	free(main_of);
}

/* ---- merging (Alg. 8 lines 25-49) ------------------------------------------ */

struct state {
	const struct tc_cluster_input *in;
	const struct tc_cluster_opts *o;
	struct tc_merge_opts mopts;
	struct crank *r;
	size_t n;
	int32_t world;
	struct tc_chameleon *ch;
	bool *needed;
	uint32_t *head;         /* the last clustering, or NULL */
	uint32_t *main_of;
	struct tc_signatures *psigs;
};

struct leaf_job {
	struct state *s;
	const struct tc_cluster *cl;
	struct tc_gtrace **out;
};

/* The cluster's partial trace with its members' own parameters. */
static struct tc_gtrace *exact_leaf(const struct state *s, const struct tc_cluster *c)
{
	const struct tc_rsd **seqs = tc_xcalloc(c->nranks, sizeof(*seqs));
	uint64_t *events = tc_xcalloc(c->nranks, sizeof(*events));
	size_t lead = 0;
	struct tc_gtrace *g;

	for (size_t k = 0; k < c->nranks; k++) {
		const struct crank *r = &s->r[c->index[k]];
		seqs[k] = r->part;
		events[k] = r->part_events;
		if (c->index[k] == c->lead_index)
			lead = k;
	}
	g = tc_gtrace_exact_cluster(seqs, events, c->ranks, c->nranks, lead, s->world, &s->mopts,
				    NULL, NULL);
	free(seqs);
	free(events);
	return g;
}

static void leaf_one(size_t i, void *p)
{
	struct leaf_job *j = p;
	const struct tc_cluster *c = &j->cl[i];
	const struct crank *r = &j->s->r[c->lead_index];

	if (j->s->o->exact_members && c->nranks > 1) {
		j->out[i] = exact_leaf(j->s, c);
		return;
	}
	/* "Replace ranklist of collected events with my cluster ranklist" */
	j->out[i] = tc_gtrace_from_rsd(r->part, &c->ranklist, j->s->world, r->part_events,
				       &j->s->mopts);
}

/*
 * Merge the leads' partial traces (every lead stands for its cluster) and
 * append the result to the online trace; every rank's partial trace starts
 * over.
 */
static void flush(struct state *s)
{
	size_t nc;
	struct tc_cluster *cl = tc_build_clusters(s->in, s->head, &nc, NULL);

	for (size_t c = 0; c < nc; c++) {
		s->needed[cl[c].lead_index] = true;
		s->ch->events_used += s->r[cl[c].lead_index].part_events;
	}
	if (s->o->online) {
		struct tc_gtrace **items = tc_xcalloc(nc + 1, sizeof(*items));
		struct leaf_job j = { s, cl, items };
		struct tc_gtrace *g;
		run_for(s->o->pool, nc, leaf_one, &j);
		g = tc_gtrace_merge_tree(items, nc, s->o->pool, &s->mopts);
		/* line 47: "Merge partial trace with Online Global Trace" */
		if (!s->ch->online)
			s->ch->online = g;
		else
			tc_gtrace_append(s->ch->online, &g);
		free(items);
	}
	s->ch->merges++;
	tc_free_clusters(cl, nc);
	run_for(s->o->pool, s->n, reset_part_one, s->r);
}

static void recluster(struct state *s)
{
	struct sig_job sj = { s->r, s->psigs };

	run_for(s->o->pool, s->n, part_sig_one, &sj);
	if (!s->head) {
		s->head = tc_xmalloc(tc_st_mult(s->n, sizeof(*s->head)));
		s->main_of = tc_xmalloc(tc_st_mult(s->n, sizeof(*s->main_of)));
	}
	cham_cluster(s->psigs, s->n, s->o, s->head, s->main_of);
}

/* ---- Alg. 6 ----------------------------------------------------------------- */

void tc_cham_graph_init(struct tc_cham_graph *g)
{
	g->first = true;
	g->reclustering = true;         /* "Re-Clustering Flag = true" */
	g->lead = false;                /* "Lead Flag = false" */
}

int tc_cham_graph_step(struct tc_cham_graph *g, bool changed, bool *merge)
{
	*merge = false;
	if (g->first) {
		/* lines 2-6: first time hitting the marker */
		g->first = false;
		return TC_CHAM_AT;
	}
	if (!changed) {
		/* line 15: globValReduce == 0 */
		if (g->reclustering) {
			/* clustering phase */
			g->reclustering = false;
			return TC_CHAM_C;
		}
		/* line 22: Lead phase w/o inter-compression */
		g->lead = true;
		return TC_CHAM_L;
	}
	if (g->lead) {
		/* line 28: Lead phase w/ inter-compression, then AT; see the
		 * note at the top on the Re-Clustering flag */
		g->lead = false;
		g->reclustering = true;
		*merge = true;
		return TC_CHAM_L;
	}
	g->reclustering = true;
	return TC_CHAM_AT;
}

/* Lines 1 and 7-14 over every rank: whether any rank's call path of the
 * interval differs from its previous one (the sum of MPI_Reduce, handed
 * to every rank by MPI_Bcast); OldCallPath = CurrentCallPath. */
static bool any_changed(uint64_t *old, const struct crank *r, size_t n)
{
	bool changed = false;

	for (size_t i = 0; i < n; i++) {
		if (old[i] != r[i].callpath)
			changed = true;
		old[i] = r[i].callpath;
	}
	return changed;
}

/* ---- the mode --------------------------------------------------------------- */

static void push_state(struct tc_chameleon *ch, int st, size_t *alloc)
{
	if (ch->calls == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 64;
		ch->states = tc_xrealloc(ch->states, tc_st_mult(*alloc, 1));
	}
	ch->states[ch->calls++] = (uint8_t)st;
	ch->in_state[st]++;
}

int tc_mode_chameleon(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		      struct tc_clustering *out, struct tc_error *err)
{
	struct tc_chameleon *ch = tc_xcalloc(1, sizeof(*ch));
	struct state s;
	struct tc_cham_graph graph;
	uint64_t *old = NULL;
	struct advance_job aj;
	size_t n = in->n, alloc = 0;
	int rc = 0;

	out->chameleon = ch;
	out->claim = TC_LEVEL_NONE;
	out->dims = (UINT32_C(1) << TC_SIG_CALLPATH) | (UINT32_C(1) << TC_SIG_SRC) |
		    (UINT32_C(1) << TC_SIG_DEST);
	ch->marker_op = o->marker_op;
	ch->call_frequency = o->call_frequency ? o->call_frequency : 1;
	ch->ranks = n;
	if (!n) {
		if (!ch->marker_op || ch->marker_op == TC_CHAM_MARKER_AUTO)
			ch->marker_op = TC_OP_BARRIER;
		return 0;
	}
	rc = tc_chameleon_marker(in->traces, n, &ch->marker_op, o->marker_site, &ch->marker_site,
				 err);
	if (rc)
		return rc;

	memset(&s, 0, sizeof(s));
	s.in = in;
	s.o = o;
	if (o->merge) {
		s.mopts = *o->merge;
	} else {
		s.mopts.precision = 100;
		s.mopts.bins = TC_HIST_BINS_DEFAULT;
	}
	s.n = n;
	s.ch = ch;
	s.r = tc_xcalloc(n, sizeof(*s.r));
	s.needed = tc_xcalloc(n, sizeof(*s.needed));
	s.psigs = tc_xcalloc(n, sizeof(*s.psigs));
	for (size_t i = 0; i < n; i++) {
		const struct tc_rank_trace *t = in->traces[i];
		s.r[i].t = t;
		s.r[i].ival = tc_rsd_new_like(t->seq);
		s.r[i].part = tc_rsd_new_like(t->seq);
		ch->events += t->events;
		if (s.world < t->world_size)
			s.world = t->world_size;
	}
	tc_cham_graph_init(&graph);
	old = tc_xcalloc(n, sizeof(*old));

	aj.r = s.r;
	aj.op = ch->marker_op;
	aj.site = ch->marker_site;
	aj.freq = ch->call_frequency;
	for (;;) {
		size_t full = 0;
		bool merge;
		int st;

		run_for(o->pool, n, advance_one, &aj);
		for (size_t i = 0; i < n; i++)
			full += s.r[i].found == aj.freq;
		if (!full)
			break;
		if (full != n) {
			/* the marker is a collective: every rank calls it alike */
			size_t i = 0, j = 0;
			while (s.r[i].found == aj.freq)
				i++;
			while (s.r[j].found != aj.freq)
				j++;
			rc = tc_error_set(err, TC_ERR_FORMAT, NULL, -1,
					  "rank %" PRId32 " calls the marker %" PRIu64
					  " times, rank %" PRId32 " more often",
					  s.r[i].t->rank, s.r[i].markers, s.r[j].t->rank);
			goto out;
		}
		/* Alg. 8 line 5 */
		st = tc_cham_graph_step(&graph, any_changed(old, s.r, n), &merge);
		push_state(ch, st, &alloc);
		/* Leaving L: the leads' traces of the L phase are merged with
		 * the clustering they were chosen by; the interval that
		 * changed belongs to the AT state that follows and goes into
		 * the next partial trace (every rank traces in AT). */
		if (merge)
			flush(&s);
		run_for(o->pool, n, feed_part_one, s.r);
		if (st == TC_CHAM_C) {
			recluster(&s);
			ch->reclusterings++;
			flush(&s);
		}
	}
	ch->marker_calls = s.r[0].markers;
	for (size_t i = 1; i < n; i++) {
		if (s.r[i].markers != ch->marker_calls) {
			rc = tc_error_set(err, TC_ERR_FORMAT, NULL, -1,
					  "rank %" PRId32 " calls the marker %" PRIu64
					  " times, rank %" PRId32 " %" PRIu64 " times",
					  s.r[i].t->rank, s.r[i].markers, s.r[0].t->rank,
					  ch->marker_calls);
			goto out;
		}
	}
	/* the events after the last marker invocation */
	run_for(o->pool, n, feed_part_one, s.r);
	/* MPI_Finalize: re-cluster over the last events and merge them */
	{
		bool pending = !s.head;
		for (size_t i = 0; i < n && !pending; i++)
			pending = s.r[i].part_events > 0;
		if (pending) {
			recluster(&s);
			ch->final_clustering = true;
			flush(&s);
		}
	}
	for (size_t i = 0; i < n; i++)
		ch->needed += s.needed[i];

	/* the partition: the last clustering */
	partition(in, s.head, s.main_of, out);
out:
	for (size_t i = 0; i < n; i++) {
		if (s.r[i].started) {
			tc_rsd_iter_release(&s.r[i].it);
			tc_rsd_iter_release(&s.r[i].pit);
		}
		tc_rsd_free(&s.r[i].ival);
		tc_rsd_free(&s.r[i].part);
	}
	free(old);
	free(s.r);
	free(s.needed);
	free(s.psigs);
	free(s.head);
	free(s.main_of);
	return rc;
}
