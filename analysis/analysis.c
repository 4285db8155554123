/*
 * analysis.c - trace sets loaded once for heatmap, replay, accuracy and
 * compare (see analysis.h).
 */
#include "lib/compat.h"
#include "analysis/analysis.h"
#include "analysis/evsource.h"
#include "analysis/seqload.h"
#include "lib/progress.h"
#include "formats/load.h"
#include "formats/raw.h"
#include "cluster/cluster.h"
#include "cluster/signature.h"
#include "formats/tct.h"
#include "formats/traceset.h"
#include "lib/accuracy.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/merge.h"
#include "lib/pool.h"
#include "lib/replay.h"
#include "lib/strbuf.h"
#include "lib/trace.h"
#include "lib/xalloc.h"
#include "viz/viz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double tc_anl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A progress line for one stage of the work on a ("WHAT: STAGE"). */
static struct tc_progress *stage(const struct tc_anl *a, const char *name, uint64_t total)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s%s%s", a && a->what ? a->what : "",
		 a && a->what ? ": " : "", name);
	return tc_progress_start(buf, total);
}

/* ---- loading -------------------------------------------------------------- */

struct load_ctx {
	struct tc_anl *a;
	bool sizes;
};

static uint64_t own_trace_bytes(const struct tc_rank_trace *t)
{
	struct tc_merge_opts mopts = { 100, TC_HIST_BINS_DEFAULT, false };
	struct tc_gtrace *g = tc_gtrace_from_rsd(t->seq, NULL, t->world_size, t->events, &mopts);
	struct tc_strbuf sb = TC_STRBUF_INIT;
	uint64_t n;

	tc_anl_copy_sites(g, t);
	tc_gtrace_set_timing(g, TC_GTIMING_STATS);
	tc_gtrace_finish(g);
	tc_tct_format(g, TC_TCT_BINARY, &sb);
	n = sb.len;
	tc_strbuf_release(&sb);
	tc_gtrace_free(&g);
	return n;
}

static int load_one(size_t i, struct tc_rank_trace *t, void *p, struct tc_error *err)
{
	struct load_ctx *c = p;

	(void)err;
	tc_signatures_compute(t, &c->a->sigs[i]);
	if (c->sizes)
		c->a->trace_bytes[i] = own_trace_bytes(t);
	c->a->traces[i] = t;
	return 0;
}


int tc_anl_open(struct tc_anl *a, const char *path, unsigned flags, struct tc_pool *pool,
		struct tc_error *err)
{
	struct load_ctx lc;
	double t0 = tc_anl_now();

	struct tc_rsd_opts ropts = { TC_RSD_WINDOW_DEFAULT, TC_RSD_MATCH_CALLSITE };

	if (flags & TC_ANL_ROPTS)
		ropts = a->ropts;
	memset(a, 0, sizeof(*a));
	a->ropts = ropts;
	a->path = path;
	a->timing = TC_GTIMING_STATS;
	if (tc_tct_file_probe(path)) {
		if (flags & TC_ANL_NEED_DIR)
			return tc_error_set(err, -1, path, -1, "a trace set is needed, not a global trace");
		if (tc_tct_read(path, &a->g, err))
			return -1;
		a->world = a->g->world_size;
		a->t_load = tc_anl_now() - t0;
		return 0;
	}
	if (tc_open_set(path, 0, pool, &a->ts, err))
		return -1;
	a->n = a->ts->nfiles;
	a->world = a->ts->world_size;
	a->traces = tc_xcalloc(a->n + 1, sizeof(*a->traces));
	a->sigs = tc_xcalloc(a->n + 1, sizeof(*a->sigs));
	a->trace_bytes = tc_xcalloc(a->n + 1, sizeof(*a->trace_bytes));
	lc.a = a;
	lc.sizes = flags & TC_ANL_SIZES;
	{
		struct tc_progress *prog = stage(NULL, "reading", a->n);
		struct tc_raw_stats *st = tc_xcalloc(a->n + 1, sizeof(*st));
		int rc;
		a->ts->progress = tc_progress_counter(prog);
		rc = tc_load_each(a->ts, pool, &a->ropts, load_one, &lc, st, err);
		tc_progress_stop(&prog);
		a->ts->progress = NULL;
		if (!rc) {
			a->tracer_ns = tc_tracer_of_stats(st, a->n, &a->tracer_ops, &a->ntracer_ops);
			a->skew = tc_traceset_skews(a->ts, st);
			if (a->skew)
				rc = tc_traceset_concurrency(a->ts, pool, &a->conc, &a->nconc, err);
		}
		free(st);
		if (rc)
			return -1;
	}
	for (size_t i = 0; i < a->n; i++)
		if (a->traces[i]->rank >= a->world)
			a->world = a->traces[i]->rank + 1;
	a->t_load = tc_anl_now() - t0;
	return 0;
}

void tc_anl_release(struct tc_anl *a)
{
	free(a->tracer_ops);
	free(a->skew);
	free(a->conc);
	if (a->traces)
		tc_load_free_all(a->traces, a->n);
	free(a->sigs);
	free(a->trace_bytes);
	tc_gtrace_free(&a->g);
	tc_traceset_free(&a->ts);
	memset(a, 0, sizeof(*a));
}

/* ---- building a clustered global trace (as tracecluster compress) -------- */

void tc_anl_copy_sites(struct tc_gtrace *g, const struct tc_rank_trace *t)
{
	for (size_t i = 0; i < t->nsites; i++) {
		const struct tc_trace_site *s = &t->sites[i];
		struct tc_gframe *fr;
		if (tc_gtrace_site(g, s->signature) >= 0)
			continue;
		fr = tc_xcalloc(s->nframes ? s->nframes : 1, sizeof(*fr));
		for (uint32_t k = 0; k < s->nframes; k++) {
			fr[k].module = (char *)s->frames[k].module;
			fr[k].offset = s->frames[k].offset;
			fr[k].symbol = (char *)s->frames[k].symbol;
		}
		tc_gtrace_set_site(g, s->signature, fr, s->nframes);
		free(fr);
	}
}

struct tc_gtrace *tc_anl_none_leaf(struct tc_rank_trace *t, const struct tc_merge_opts *mo,
				   struct tc_rank_trace **tab)
{
	struct tc_gtrace *g = tc_gtrace_from_rsd(t->seq, NULL, t->world_size, t->events, mo);

	tc_anl_copy_sites(g, t);
	*tab = tc_rank_trace_new(t->rank, t->world_size, NULL);
	(*tab)->comms = t->comms;
	(*tab)->ncomms = t->ncomms;
	(*tab)->acomms = t->acomms;
	t->comms = NULL;
	t->ncomms = t->acomms = 0;
	tc_rank_trace_free(&t);
	return g;
}

static const struct tc_none_remote *none_remote;

void tc_anl_set_none_remote(const struct tc_none_remote *r)
{
	none_remote = r;
}

const struct tc_none_remote *tc_anl_none_remote(void)
{
	return none_remote;
}

struct leaf_job {
	const struct tc_clustering *cl;
	struct tc_rank_trace *const *traces;
	int32_t world;
	const struct tc_merge_opts *mopts;
	bool exact;
	struct tc_gtrace **out;
};

static void leaf_sites(struct tc_gtrace *leaf, size_t member, void *ctx)
{
	const struct tc_rank_trace *const *t = ctx;

	tc_anl_copy_sites(leaf, t[member]);
}

/*
 * The cluster's trace with every member's parameters exact
 * (tc_gtrace_exact_cluster): a member that differs from its lead in a
 * value the signatures do not see (a tag that depends on the rank, a
 * colour or key of MPI_Comm_split) keeps its own value, with its lead's
 * times; the clustering still decides whose times stand for whom and how
 * many traces the merge across clusters sees.
 */
static struct tc_gtrace *exact_leaf(const struct leaf_job *j, const struct tc_cluster *c)
{
	const struct tc_rsd **seqs = tc_xcalloc(c->nranks, sizeof(*seqs));
	const struct tc_rank_trace **t = tc_xcalloc(c->nranks, sizeof(*t));
	uint64_t *events = tc_xcalloc(c->nranks, sizeof(*events));
	size_t lead = 0;
	struct tc_gtrace *g;

	for (size_t k = 0; k < c->nranks; k++) {
		t[k] = j->traces[c->index[k]];
		seqs[k] = t[k]->seq;
		events[k] = t[k]->events;
		if (c->index[k] == c->lead_index)
			lead = k;
	}
	g = tc_gtrace_exact_cluster(seqs, events, c->ranks, c->nranks, lead, j->world, j->mopts,
				    leaf_sites, t);
	free(seqs);
	free(t);
	free(events);
	return g;
}

static void make_leaf(size_t i, void *p)
{
	struct leaf_job *j = p;
	const struct tc_cluster *c = &j->cl->clusters[i];
	const struct tc_rank_trace *t = j->traces[c->lead_index];

	if (j->exact && c->nranks > 1) {
		j->out[i] = exact_leaf(j, c);
		return;
	}
	j->out[i] = tc_gtrace_from_rsd(t->seq, &c->ranklist, j->world, t->events, j->mopts);
	tc_anl_copy_sites(j->out[i], t);
}

struct tc_gtrace **tc_anl_make_leaves(const struct tc_clustering *cl,
				      struct tc_rank_trace *const *traces, int32_t world,
				      const struct tc_merge_opts *mopts, bool exact,
				      struct tc_pool *pool)
{
	struct tc_gtrace **leaves = tc_xcalloc(cl->nclusters + 1, sizeof(*leaves));
	struct leaf_job job = { cl, traces, world, mopts, exact, leaves };

	tc_pool_for(pool, cl->nclusters, make_leaf, &job);
	return leaves;
}

struct tc_gtrace *tc_anl_merge_clusters(const struct tc_clustering *cl, struct tc_gtrace **leaves,
					struct tc_pool *pool, const struct tc_merge_opts *mopts)
{
	size_t ngroups = 0;
	struct tc_gtrace **groups = tc_xcalloc(cl->nclusters + 1, sizeof(*groups));
	struct tc_gtrace **items = tc_xcalloc(cl->nclusters + 1, sizeof(*items));
	bool *done = tc_xcalloc(cl->nclusters + 1, sizeof(*done));
	struct tc_merge_opts across = *mopts;
	struct tc_gtrace *g;

	across.filtering = false;
	for (size_t i = 0; i < cl->nclusters; i++) {
		size_t n = 0;
		if (done[i])
			continue;
		for (size_t k = i; k < cl->nclusters; k++) {
			if (done[k] || cl->clusters[k].parent != cl->clusters[i].parent ||
			    (cl->clusters[i].parent < 0 && k != i))
				continue;
			done[k] = true;
			items[n++] = leaves[k];
			leaves[k] = NULL;
		}
		groups[ngroups++] = tc_gtrace_merge_tree(items, n, pool, mopts);
	}
	g = tc_gtrace_merge_tree(groups, ngroups, pool, &across);
	free(groups);
	free(items);
	free(done);
	return g;
}

int tc_anl_build(const struct tc_anl *a, const struct tc_cluster_mode *mode,
		 const struct tc_cluster_opts *co, struct tc_pool *pool,
		 struct tc_anl_built *out, struct tc_error *err)
{
	struct tc_merge_opts mopts = { 100, TC_HIST_BINS_DEFAULT, false };
	struct tc_cluster_opts copts;
	struct tc_cluster_input in = { a->sigs, a->n, a->traces };
	struct tc_gtrace **leaves;
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_progress *prog;
	double t0 = tc_anl_now();

	memset(out, 0, sizeof(*out));
	tc_clustering_init(&out->cl);
	if (!a->traces)
		return tc_error_set(err, -1, a->path, -1, "a trace set is needed, not a global trace");
	if (co)
		copts = *co;
	else
		tc_cluster_opts_init(&copts);
	copts.pool = pool;
	copts.online = true;
	copts.merge = &mopts;
	copts.exact_members = !a->lead_only;
	prog = stage(a, "clustering and merging", 0);
	if (tc_cluster_run(mode, &in, &copts, &out->cl, err)) {
		tc_progress_stop(&prog);
		return -1;
	}
	if (out->cl.filter.applied)
		mopts.filtering = true; /* §3.6, as compress does */
	if (out->cl.chameleon) {
		/* chameleon builds the online global trace as it goes (§5.1,
		 * Alg. 8), as tracecluster compress takes it */
		out->g = out->cl.chameleon->online;
		out->cl.chameleon->online = NULL;
		for (size_t i = 0; out->g && i < a->n; i++)
			tc_anl_copy_sites(out->g, a->traces[i]);
	} else {
		leaves = tc_anl_make_leaves(&out->cl, a->traces, a->world, &mopts, !a->lead_only,
					    pool);
		out->g = tc_anl_merge_clusters(&out->cl, leaves, pool, &mopts);
		free(leaves);
	}
	tc_progress_stop(&prog);
	if (!out->g)
		return tc_error_set(err, -1, a->path, -1, "no rank to merge");
	/* the tracer's time in the gaps, as compress keeps it (the in-job
	 * chameleon trace its own mean) */
	if (!out->g->tracer_ns)
		out->g->tracer_ns = a->tracer_ns;
	if (!out->g->ntracer_ops && a->ntracer_ops) {
		free(out->g->tracer_ops);
		out->g->tracer_ops = tc_xmalloc(a->ntracer_ops * sizeof(*a->tracer_ops));
		memcpy(out->g->tracer_ops, a->tracer_ops, a->ntracer_ops * sizeof(*a->tracer_ops));
		out->g->ntracer_ops = a->ntracer_ops;
	}
	if (out->g->world_size < a->world)
		out->g->world_size = a->world;
	if (a->skew && !a->lead_only && !out->g->skew && out->g->world_size == a->world &&
	    out->g->ranks.count == (uint64_t)a->world) {
		size_t bytes = (size_t)a->world * sizeof(*a->skew);
		out->g->skew = tc_xmalloc(bytes);
		memcpy(out->g->skew, a->skew, bytes);
		if (a->nconc) {
			out->g->conc = tc_xmalloc(a->nconc * sizeof(*a->conc));
			memcpy(out->g->conc, a->conc, a->nconc * sizeof(*a->conc));
			out->g->nconc = a->nconc;
		}
	}
	snprintf(out->g->mode, sizeof(out->g->mode), "%s", mode->name);
	snprintf(out->g->variant, sizeof(out->g->variant), "%s",
		 mopts.filtering ? "filtering" : "default");
	out->g->precision = mopts.precision;
	out->g->bins = mopts.bins;
	if (out->g->world_size < a->world)
		out->g->world_size = a->world;
	tc_gtrace_set_timing(out->g, (enum tc_gtiming)a->timing);
	tc_gtrace_finish(out->g);
	out->seconds = tc_anl_now() - t0;
	tc_tct_format(out->g, TC_TCT_BINARY, &sb);
	out->bytes = sb.len;
	tc_strbuf_release(&sb);
	return 0;
}

void tc_anl_built_release(struct tc_anl_built *b)
{
	tc_gtrace_free(&b->g);
	tc_clustering_release(&b->cl);
}

/* ---- event streams --------------------------------------------------------- */

struct stream {
	bool isg, ok;
	struct tc_rsd_iter r;
	struct tc_gtrace_iter gi;
	uint64_t *sigs;
	size_t nsigs;
};

static bool stream_next(void *p, struct tc_event *ev)
{
	struct stream *s = p;

	if (!s->ok)
		return false;
	return s->isg ? tc_gtrace_iter_next(&s->gi, ev) : tc_rsd_iter_next(&s->r, ev);
}

/* Open rank r's stream of g (g non-NULL) or of trace t. */
static bool stream_open(struct stream *s, const struct tc_gtrace *g, const struct tc_rank_trace *t,
			int32_t r, bool with_sigs)
{
	memset(s, 0, sizeof(*s));
	if (g) {
		s->isg = true;
		if (tc_gtrace_iter_init(&s->gi, g, r))
			return false;
		if (with_sigs) {
			s->nsigs = g->nsites;
			s->sigs = tc_xcalloc(s->nsigs + 1, sizeof(*s->sigs));
			for (size_t i = 0; i < g->nsites; i++)
				s->sigs[i] = g->sites[i].sig;
		}
	} else {
		tc_rsd_iter_init(&s->r, t->seq);
		if (with_sigs) {
			for (size_t i = 0; i < t->nsites; i++)
				if (t->sites[i].id + 1 > s->nsigs)
					s->nsigs = t->sites[i].id + 1;
			s->sigs = tc_xcalloc(s->nsigs + 1, sizeof(*s->sigs));
			for (size_t i = 0; i < t->nsites; i++)
				s->sigs[t->sites[i].id] = t->sites[i].signature;
		}
	}
	s->ok = true;
	return true;
}

static void stream_close(struct stream *s)
{
	if (!s->ok)
		return;
	if (s->isg)
		tc_gtrace_iter_release(&s->gi);
	else
		tc_rsd_iter_release(&s->r);
	free(s->sigs);
	s->ok = false;
}

/* The ranks of a source: indices into a->traces, or world ranks of g. */
static size_t source_ranks(const struct tc_anl *a, const struct tc_gtrace *g, int32_t **out)
{
	size_t n = 0;
	int32_t *r;

	if (!g && !a->traces)
		g = a->g;
	if (g) {
		struct tc_gtrace_iter it;
		r = tc_xcalloc((size_t)(g->world_size > 0 ? g->world_size : 0) + 1, sizeof(*r));
		for (int32_t k = 0; k < g->world_size; k++) {
			if (tc_gtrace_iter_init(&it, g, k))
				continue;
			tc_gtrace_iter_release(&it);
			r[n++] = k;
		}
	} else {
		r = tc_xcalloc(a->n + 1, sizeof(*r));
		for (size_t i = 0; i < a->n; i++)
			r[n++] = a->traces[i]->rank;
	}
	*out = r;
	return n;
}

/* g's events for one rank with the compute times of another stream (the
 * rank's original trace), event by event: what g's operations take with
 * the rank's own compute gaps.  Once the time source ends, g's own gaps
 * go on.  Only the gap before an event and its length are carried over:
 * the replay reads nothing else of the times. */
struct retimed {
	struct stream times;
	uint64_t g_end, t_end, end;  /* previous ends: g's, the source's, ours */
	bool first;
};

static void retime(struct retimed *rt, struct tc_event *ev)
{
	struct tc_event o;
	uint64_t gap = 0, len, g_end = ev->t_end > ev->t_start ? ev->t_end : ev->t_start;

	tc_event_init(&o);
	if (stream_next(&rt->times, &o)) {
		uint64_t o_end = o.t_end > o.t_start ? o.t_end : o.t_start;
		if (!rt->first && o.t_start > rt->t_end)
			gap = o.t_start - rt->t_end;
		len = o_end - o.t_start;
		rt->t_end = o_end;
	} else {
		if (!rt->first && ev->t_start > rt->g_end)
			gap = ev->t_start - rt->g_end;
		len = g_end - ev->t_start;
	}
	rt->g_end = g_end;
	ev->t_start = rt->first ? 0 : rt->end + gap;
	ev->t_end = ev->t_start + len;
	rt->end = ev->t_end;
	rt->first = false;
}

struct replay_ctx {
	struct stream *s;
	struct retimed *rt;      /* per rank, or NULL */
	atomic_uint_least64_t *done;
};

static bool replay_next(void *p, size_t idx, struct tc_event *ev)
{
	struct replay_ctx *c = p;

	tc_progress_add(c->done, 1);
	if (!stream_next(&c->s[idx], ev))
		return false;
	if (c->rt)
		retime(&c->rt[idx], ev);
	return true;
}

static const struct tc_rank_trace *trace_of(const struct tc_anl *a, int32_t r);

/* Replay g (NULL: the original); own: g's events with each rank's compute
 * times from its original trace. */
static int replay(const struct tc_anl *a, const struct tc_gtrace *g, bool own,
		  const struct tc_replay_params *p, struct tc_replay_result *res)
{
	int32_t *ranks;
	size_t n;
	struct replay_ctx c;
	struct tc_progress *prog;
	uint64_t events = 0;
	int rc;

	if (!g && !a->traces)
		g = a->g;
	n = source_ranks(a, g, &ranks);
	c.s = tc_xcalloc(n + 1, sizeof(*c.s));
	c.rt = own && g ? tc_xcalloc(n + 1, sizeof(*c.rt)) : NULL;
	for (size_t i = 0; i < n; i++) {
		stream_open(&c.s[i], g, g ? NULL : a->traces[i], ranks[i], false);
		if (c.rt) {
			const struct tc_rank_trace *t = trace_of(a, ranks[i]);
			c.rt[i].first = true;
			if (t)
				stream_open(&c.rt[i].times, NULL, t, t->rank, false);
		}
	}
	/* the original's events: what the clustered replay also comes near */
	for (size_t i = 0; a->traces && i < a->n; i++)
		events += a->traces[i]->events;
	prog = stage(a, !g ? (p->gaps ? "replay, events" : "replay (communication), events")
			   : c.rt ? "replay (clustered, own times), events"
			   : p->gaps ? "replay (clustered), events"
				     : "replay (clustered, communication), events",
		     events);
	c.done = tc_progress_counter(prog);
	rc = tc_replay_run(n, ranks, g ? g->world_size : a->world, p, replay_next, &c, res);
	tc_progress_stop(&prog);
	for (size_t i = 0; i < n; i++) {
		stream_close(&c.s[i]);
		if (c.rt)
			stream_close(&c.rt[i].times);
	}
	free(c.s);
	free(c.rt);
	free(ranks);
	return rc;
}

int tc_anl_replay(const struct tc_anl *a, const struct tc_gtrace *g,
		  const struct tc_replay_params *p, struct tc_replay_result *res)
{
	return replay(a, g, false, p, res);
}

struct matrix_job {
	const struct tc_anl *a;
	const struct tc_gtrace *g;
	const int32_t *ranks;
	int metric;
	bool coll;
	int32_t world;
	struct tc_matrix *rows;
	atomic_uint_least64_t *done;
};

/* The loaded trace of world rank r, whose communicators (members
 * included) stand for those of r's events in any source; NULL when a .tct
 * file is the source. a->traces is sorted by rank. */
static const struct tc_rank_trace *trace_of(const struct tc_anl *a, int32_t r)
{
	return tc_rank_trace_find(a->traces, a->n, r);
}

static void matrix_rank(size_t i, void *p)
{
	struct matrix_job *j = p;
	const struct tc_rank_trace *t = j->g ? trace_of(j->a, j->ranks[i]) : j->a->traces[i];
	struct stream s;
	struct tc_event ev;
	struct tc_matrix_comm mc;
	struct tc_evsrc_comms tab;

	tc_matrix_init(&j->rows[i], j->world);
	if (!stream_open(&s, j->g, j->g ? NULL : j->a->traces[i], j->ranks[i], false))
		return;
	/* a .tct read alone: its own communicator table */
	tc_evsrc_comms_init(&tab, t || !j->coll ? NULL : j->g, j->ranks[i]);
	for (;;) {
		const struct tc_matrix_comm *c = NULL;
		tc_event_init(&ev);
		if (!stream_next(&s, &ev))
			break;
		if (j->coll) {
			c = t ? tc_evsrc_trace_comm(t, ev.comm, &mc) :
				 tc_evsrc_comms_get(&tab, ev.comm, &mc);
			if (!c && ev.comm != TC_COMM_WORLD && ev.comm != TC_COMM_SELF &&
			    tc_op_valid(ev.op) && tc_op_kind(ev.op) == TC_K_COLL)
				j->rows[i].unmapped++;
		}
		tc_matrix_add_event(&j->rows[i], j->ranks[i], &ev, j->metric, j->coll, c);
	}
	tc_evsrc_comms_release(&tab);
	stream_close(&s);
	tc_matrix_finish(&j->rows[i]);
	tc_progress_add(j->done, 1);
}

void tc_anl_matrix(const struct tc_anl *a, const struct tc_gtrace *g, int metric, bool collectives,
		   struct tc_pool *pool, struct tc_matrix *out)
{
	struct matrix_job j;
	struct tc_progress *prog;
	int32_t *ranks;
	size_t n;

	if (!g && !a->traces)
		g = a->g;
	n = source_ranks(a, g, &ranks);
	j.a = a;
	j.g = g;
	j.ranks = ranks;
	j.metric = metric;
	j.coll = collectives;
	j.world = g ? g->world_size : a->world;
	j.rows = tc_xcalloc(n + 1, sizeof(*j.rows));
	prog = stage(a, g ? "matrix (clustered), ranks" : "matrix, ranks", n);
	j.done = tc_progress_counter(prog);
	tc_pool_for(pool, n, matrix_rank, &j);
	tc_progress_stop(&prog);
	tc_matrix_init(out, j.world);
	for (size_t i = 0; i < n; i++) {
		tc_matrix_append(out, &j.rows[i]);
		tc_matrix_release(&j.rows[i]);
	}
	tc_matrix_finish(out);
	free(j.rows);
	free(ranks);
}

struct match_job {
	const struct tc_anl *a;
	const struct tc_gtrace *g;
	struct tc_match *res;
	atomic_uint_least64_t *done;
};

static void match_rank(size_t i, void *p)
{
	struct match_job *j = p;
	const struct tc_rank_trace *t = j->a->traces[i];
	struct stream sa, sb;
	struct tc_evstream ea, eb;

	memset(&j->res[i], 0, sizeof(j->res[i]));
	stream_open(&sa, NULL, t, t->rank, true);
	stream_open(&sb, j->g, NULL, t->rank, true); /* not covered: no events */
	ea.next = stream_next;
	ea.it = &sa;
	ea.sigs = sa.sigs;
	ea.nsigs = sa.nsigs;
	eb.next = stream_next;
	eb.it = &sb;
	eb.sigs = sb.sigs;
	eb.nsigs = sb.nsigs;
	tc_match_rank(&j->res[i], t->rank, &ea, &eb, &j->a->ropts);
	stream_close(&sa);
	stream_close(&sb);
	tc_progress_add(j->done, 1);
}

void tc_anl_match(const struct tc_anl *a, const struct tc_gtrace *g, struct tc_pool *pool,
		  struct tc_match *out)
{
	struct tc_progress *prog = stage(a, "matching, ranks", a->n);
	struct match_job j = { a, g, tc_xcalloc(a->n + 1, sizeof(struct tc_match)),
			       tc_progress_counter(prog) };

	memset(out, 0, sizeof(*out));
	tc_pool_for(pool, a->n, match_rank, &j);
	tc_progress_stop(&prog);
	for (size_t i = 0; i < a->n; i++)
		tc_match_add(out, &j.res[i]);
	free(j.res);
}

/* Bytes of the signatures a mode sends up the tree (ICS'14 §5.3: 64-bit
 * signatures): call path 1, call path + parameter 2, reference 1,
 * ACURDION's modes their eleven. */
static double signature_bytes(const char *mode)
{
	if (!strcmp(mode, "callpath") || !strcmp(mode, "reference"))
		return 8;
	if (!strcmp(mode, "callpath-param"))
		return 16;
	return 8.0 * TC_NSIGS;
}

double tc_anl_space(const struct tc_anl *a, const struct tc_clustering *cl)
{
	double T = 0;

	if (!a->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		T += (double)a->trace_bytes[i];
	T /= (double)a->n;
	if (!cl)
		return tc_space_per_process(T, 0, a->n, a->n, 0, true);
	return tc_space_per_process(T, signature_bytes(cl->mode ? cl->mode : ""), a->n,
				    cl->nclusters, cl->nmains, false);
}

/* A replay's makespan; *stalled set when it stalled. */
static double makespan(const struct tc_anl *a, const struct tc_gtrace *g, bool own,
		       const struct tc_replay_params *p, bool *stalled, uint64_t *forced)
{
	struct tc_replay_result r;
	double t;

	replay(a, g, own, p, &r);
	t = r.makespan;
	*stalled |= r.deadlock;
	if (forced)
		*forced = r.forced;
	tc_replay_result_release(&r);
	return t;
}

void tc_anl_base_replay(const struct tc_anl *a, const struct tc_replay_params *p,
			struct tc_anl_base *out)
{
	struct tc_replay_params q = *p;

	memset(out, 0, sizeof(*out));
	out->t = makespan(a, NULL, false, p, &out->deadlock, NULL);
	q.gaps = false;
	out->t_comm = p->gaps ? makespan(a, NULL, false, &q, &out->deadlock, NULL) : out->t;
}

/* 1 - |t - t'| / t, and 1 when both are 0. */
double tc_anl_acc(double t, double t1)
{
	return t > 0 ? 1 - fabs(t - t1) / t : (t1 == 0 ? 1 : 0);
}

void tc_anl_fidelity(const struct tc_anl *a, const struct tc_gtrace *g, struct tc_pool *pool,
		     const struct tc_replay_params *p, const struct tc_anl_base *base,
		     struct tc_anl_fidelity *out)
{
	struct tc_anl_base own_base;
	struct tc_replay_params q = *p;

	memset(out, 0, sizeof(*out));
	out->gaps = p->gaps;
	tc_anl_match(a, g, pool, &out->match);
	if (!base) {
		tc_anl_base_replay(a, p, &own_base);
		base = &own_base;
	}
	out->t = base->t;
	out->t_comm = base->t_comm;
	out->deadlock = base->deadlock;
	out->t_clustered = makespan(a, g, false, p, &out->deadlock, &out->forced);
	q.gaps = false;
	out->t_comm_clustered = p->gaps ? makespan(a, g, false, &q, &out->deadlock, NULL)
					: out->t_clustered;
	/* own times only where there are originals to take them from */
	out->t_own = p->gaps && a->traces ? makespan(a, g, true, p, &out->deadlock, NULL)
					  : out->t_clustered;
	out->acc = tc_anl_acc(out->t, out->t_clustered);
	out->acc_comm = tc_anl_acc(out->t_comm, out->t_comm_clustered);
	out->acc_own = tc_anl_acc(out->t, out->t_own);
	out->err_cluster = 1 - out->acc_own;
	out->err_timing = out->t > 0 ? fabs(out->t_clustered - out->t_own) / out->t : 0;
}

void tc_anl_evaluate_built(const struct tc_anl *a, const struct tc_cluster_mode *mode,
			   const struct tc_cluster_opts *copts, const struct tc_anl_built *b,
			   struct tc_pool *pool, const struct tc_replay_params *p,
			   const struct tc_anl_base *base, const struct tc_matrix *orig,
			   int metric, struct tc_anl_eval *out)
{
	struct tc_matrix own, clus, delta;
	double dummy;

	memset(out, 0, sizeof(*out));
	out->mode = mode->name;
	if (copts)
		out->opts = *copts;
	else
		tc_cluster_opts_init(&out->opts);
	out->opts.pool = NULL;
	out->opts.merge = NULL;
	out->clusters = b->cl.nclusters;
	out->mains = b->cl.nmains;
	out->leads = b->cl.nclusters;
	out->bytes = b->bytes;
	out->seconds = b->seconds;
	out->space = tc_anl_space(a, &b->cl);
	tc_anl_fidelity(a, b->g, pool, p, base, &out->fid);
	tc_matrix_init(&own, 0);
	if (!orig) {
		tc_anl_matrix(a, NULL, metric, false, pool, &own);
		orig = &own;
	}
	tc_anl_matrix(a, b->g, metric, false, pool, &clus);
	tc_matrix_diff(&delta, orig, &clus);
	tc_matrix_norms(&delta, &out->l1, &out->max);
	tc_matrix_norms(orig, &out->total, &dummy);
	tc_matrix_release(&own);
	tc_matrix_release(&clus);
	tc_matrix_release(&delta);
}

int tc_anl_evaluate(const struct tc_anl *a, const struct tc_cluster_mode *mode,
		    const struct tc_cluster_opts *copts, struct tc_pool *pool,
		    const struct tc_replay_params *p, const struct tc_anl_base *base,
		    const struct tc_matrix *orig, int metric,
		    struct tc_anl_eval *out, struct tc_error *err)
{
	struct tc_anl_built b;

	if (tc_anl_build(a, mode, copts, pool, &b, err)) {
		tc_anl_built_release(&b);
		memset(out, 0, sizeof(*out));
		out->mode = mode->name;
		return -1;
	}
	tc_anl_evaluate_built(a, mode, copts, &b, pool, p, base, orig, metric, out);
	tc_anl_built_release(&b);
	return 0;
}
