/*
 * online_cham.c - Chameleon run inside the traced job (Bahmani's
 * dissertation ch. 5, Alg. 6-8): TRACECLUSTER_ONLINE=chameleon[:K].
 *
 * The offline mode (cluster/chameleon.c) replays each rank's stream and
 * cuts it at the marker calls; here the streams are cut as the job makes
 * them. From MPI_Init on, the capture shim's writer thread hands this
 * plugin every record it writes (the tap, lib/capture/online.h), which
 * feeds the rank's interval: its events since the last invocation of
 * Alg. 6, compressed as they come (lib/rsd.h). After every
 * Call_Frequency-th call of the marker (a blocking collective over
 * MPI_COMM_WORLD at one call site) every rank, on the application's
 * thread:
 *
 *   1. takes the interval's call-path signature, and the ranks agree
 *      whether any changed (Alg. 6 lines 1 and 7-14: one MPI_Allreduce,
 *      which also checks that every rank took this call as the marker);
 *   2. steps the transition graph (AT, C, L; tc_cham_graph_step);
 *   3. leaving L: the leads' partial traces are merged with the last
 *      clustering (Alg. 6 line 28), before the interval joins them;
 *   4. the interval joins the rank's partial trace (the events since the
 *      last merge) and starts over;
 *   5. in C: the partial traces' signatures meet at rank 0, which
 *      clusters them (tc_chameleon_cluster: call-path clusters, K /
 *      #call-paths leads by K-Farthest on SRC and DEST, Alg. 7-8) and
 *      tells every rank whether it leads; the leads send their partial
 *      traces, rank 0 merges them, each lead standing for its cluster,
 *      and appends the result to the online global trace (Alg. 8 lines
 *      25-49); every partial trace starts over.
 *
 * "Non-lead ranks stop tracing in L": after C, and in L, a rank that
 * leads no cluster writes nothing to its raw file (the events still pass
 * through the tap into its interval, which the call-path signature of
 * the next invocation needs, and stay in memory as its partial trace, so
 * that a phase change and the clustering at MPI_Finalize see what every
 * rank did, as the offline mode does).
 *
 * At MPI_Finalize (tc_online_cham_finish) the events since the last
 * merge are clustered and merged once more, the leads' call sites are
 * gathered, and rank 0 writes DIR/global.tct and DIR/online.json.
 *
 * The marker: TRACECLUSTER_ONLINE_MARKER=OP[@CALLSITE] as compress
 * --marker takes it, or "auto" (the default): until the ranks agree on
 * one, every blocking collective over the world reaches the plugin,
 * and at the 4th, 8th, 16th ... of them (the same calls on every
 * rank: collectives over one communicator are called in one order)
 * each rank names its candidate from its events so far, the timestep
 * loop's first collective (tc_chameleon_candidate, dissertation ch. 7
 * future work), and the candidate most ranks name wins once more than
 * half the ranks have one. Events before the agreement belong to the
 * first interval.
 *
 * Failures are agreed on: a rank that stops recording (out of memory, a
 * write error) or ranks that disagree on a marker call turn the plugin
 * off on every rank at the same call; every event is written from then
 * on and the raw files stay. Only PMPI calls are made: nothing here is
 * recorded.
 */
#include "lib/compat.h"
#include "cmd/mpi/online.h"
#include "analysis/analysis.h"
#include "cluster/cluster.h"
#include "cluster/signature.h"
#include "formats/tct.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/merge.h"
#include "lib/pack.h"
#include "lib/rsd.h"
#include "lib/strbuf.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the first agreement on an automatic marker, then at every power of two */
#define AUTO_FIRST 4

struct cham {
	struct tc_online_args a;
	char dir[PATH_MAX];
	char mode[64];
	bool keep_all;          /* KEEP=all: every event written */
	struct tc_cluster_opts copts;
	struct tc_merge_opts mopts;

	/* the rank's stream (tap, writer thread; read after a sync) */
	struct tc_rank_trace *t; /* call sites and communicators; t->seq stays empty */
	struct tc_rsd *ival;    /* events since the last invocation of Alg. 6 */
	struct tc_rsd *part;    /* partial trace: events since the last merge */
	uint64_t ival_events, part_events;
	uint64_t events, withheld; /* events seen; of them not written */

	/* the marker */
	bool marker_known;
	uint32_t marker_op;
	uint64_t marker_site;
	bool any_site;          /* OP without @CALLSITE: every call site */
	uint32_t freq;
	unsigned char *ops_ref; /* the hooks' ops[] */
	void (*sync)(void);
	uint64_t colls;         /* world collectives while looking for it */
	uint64_t markers;       /* marker calls */

	/* Alg. 6 */
	struct tc_cham_graph graph;
	uint64_t old_callpath;
	bool clustered, is_lead, write;
	bool off;
	char why[200];
	/* out of memory in a step (the tap on the writer thread, or the
	 * main thread): the state is abandoned, every agreement from then
	 * on says no and the plugin goes off on every rank */
	atomic_bool broken;
	double hook_s;          /* time spent at marker calls */

	/* the automatic marker's vote, made at MPI_Init */
	uint64_t *vote;
	struct tc_cham_candidate *cand;

	/* rank 0 */
	struct tc_signatures *sigs;
	struct tc_clustering cl; /* the last clustering */
	unsigned char *flags;   /* per rank: leads now / went into the trace */
	unsigned char *needed;
	struct tc_gtrace *online;
	struct tc_chameleon st;  /* the numbers of Table 5.2 */
	size_t states_alloc;
};

bool tc_online_is_chameleon(const char *mode)
{
	return mode && !strncmp(mode, "chameleon", 9) && (!mode[9] || mode[9] == ':');
}

/* ---- the tap (writer thread) ------------------------------------------------ */

static bool broken(const struct cham *c)
{
	return atomic_load_explicit(&c->broken, memory_order_relaxed);
}

/* fn(ctx) unless c is broken; out of memory in it breaks c. */
static bool step(struct cham *c, void (*fn)(void *), void *ctx)
{
	if (broken(c))
		return false;
	if (tc_online_guarded(fn, ctx))
		return true;
	atomic_store(&c->broken, true);
	return false;
}

struct tap {
	struct cham *c;
	const struct tc_event *ev;
	const struct tc_callsite *cs;
	const struct tc_comm *cm;
};

static void tap_event(void *p)
{
	struct tap *t = p;
	struct cham *c = t->c;

	tc_rsd_add(c->ival, t->ev);
	c->ival_events++;
	c->events++;
	if (!c->write && !c->keep_all)
		c->withheld++;
}

static void tap_callsite(void *p)
{
	struct tap *t = p;

	tc_rank_trace_on_callsite(t->c->t, t->cs);
	tc_rsd_set_callsite(t->c->ival, t->cs->id, t->cs->signature);
	tc_rsd_set_callsite(t->c->part, t->cs->id, t->cs->signature);
}

static void tap_comm(void *p)
{
	struct tap *t = p;

	tc_rank_trace_on_comm(t->c->t, t->cm);
}

static void on_event(void *p, const struct tc_event *ev)
{
	struct tap t = { p, ev, NULL, NULL };

	if (!t.c->off)
		step(t.c, tap_event, &t);
}

static void on_callsite(void *p, const struct tc_callsite *cs)
{
	struct tap t = { p, NULL, cs, NULL };

	step(t.c, tap_callsite, &t);
}

static void on_comm(void *p, const struct tc_comm *cm)
{
	struct tap t = { p, NULL, NULL, cm };

	step(t.c, tap_comm, &t);
}

/* ---- the steps --------------------------------------------------------------- */

static int answer(const struct cham *c)
{
	if (c->off)
		return TC_ONLINE_OFF;
	if (broken(c))
		return TC_ONLINE_WRITE; /* nothing withheld until it goes off */
	return c->write || c->keep_all ? TC_ONLINE_WRITE : 0;
}

/* Give up on every rank alike (the caller agreed first). */
static int give_up(struct cham *c, const char *fmt, const char *arg)
{
	c->off = true;
	snprintf(c->why, sizeof(c->why), fmt, arg);
	return TC_ONLINE_OFF;
}

static uint64_t site_of(const struct cham *c, uint32_t id)
{
	const struct tc_trace_site *s = id == TC_NO_CALLSITE ? NULL : tc_rank_trace_site(c->t, id);

	return s ? s->signature : 0;
}

/* Start *r over, continuing its stream's encoding state. */
static void restart(struct tc_rsd **r, uint64_t *events)
{
	struct tc_rsd *n = tc_rsd_new_segment(*r);

	tc_rsd_free(r);
	*r = n;
	*events = 0;
}

/* The interval joins the partial trace (Alg. 8: the events since the
 * last merge) and starts over. */
static void feed_part_step(void *p)
{
	struct cham *c = p;
	struct tc_rsd_iter it;
	struct tc_event ev;

	if (!c->part_events) {
		/* the partial trace starts where the interval did (both
		 * started over at the same event): the interval becomes it,
		 * with the events' own times, nothing compressed twice */
		tc_rsd_free(&c->part);
		c->part = c->ival;
		c->part_events = c->ival_events;
		c->ival = tc_rsd_new_segment(c->part);
		c->ival_events = 0;
		return;
	}
	tc_rsd_iter_init(&it, c->ival);
	while (tc_rsd_iter_next(&it, &ev)) {
		tc_rsd_add(c->part, &ev);
		c->part_events++;
	}
	tc_rsd_iter_release(&it);
	restart(&c->ival, &c->ival_events);
}

static void feed_part(struct cham *c)
{
	step(c, feed_part_step, c);
}

struct sig_step {
	struct cham *c;
	struct tc_signatures sig;
};

static void sig_of_part(void *p)
{
	struct sig_step *s = p;

	tc_signatures_compute_seq(s->c->part, s->c->t, &s->sig);
}

static void sig_of_ival(void *p)
{
	struct sig_step *s = p;

	tc_signatures_compute_seq(s->c->ival, s->c->t, &s->sig);
}

static void cluster_step(void *p)
{
	struct cham *c = p;

	tc_clustering_init(&c->cl);
	tc_chameleon_cluster(c->sigs, (size_t)c->a.size, &c->copts, &c->cl);
	for (size_t k = 0; k < c->cl.nclusters; k++)
		c->flags[c->cl.clusters[k].lead_index] = 1;
}

/* Alg. 8 lines 7-24: cluster the partial traces at rank 0; every rank
 * learns whether it leads. A broken rank sends a blank signature and
 * leads nothing; the next agreement turns the plugin off. */
static void recluster(struct cham *c)
{
	struct sig_step s = { c, { 0 } };
	unsigned char lead = 0;

	if (!step(c, sig_of_part, &s))
		memset(&s.sig, 0, sizeof(s.sig));
	s.sig.rank = c->a.rank;
	PMPI_Gather(&s.sig, (int)sizeof(s.sig), MPI_BYTE, c->sigs, (int)sizeof(s.sig), MPI_BYTE, 0,
		    MPI_COMM_WORLD);
	if (c->a.rank == 0) {
		memset(c->flags, 0, (size_t)c->a.size);
		if (!broken(c)) {
			tc_clustering_release(&c->cl);
			if (!step(c, cluster_step, c))
				memset(c->flags, 0, (size_t)c->a.size);
		}
		c->st.reclusterings++;
	}
	PMPI_Scatter(c->flags, 1, MPI_BYTE, &lead, 1, MPI_BYTE, 0, MPI_COMM_WORLD);
	c->is_lead = lead != 0 && !broken(c);
	c->clustered = true;
}

/*
 * Alg. 8 lines 25-49: the leads' partial traces meet at rank 0 and are
 * merged, each lead standing for its cluster, into a partial global
 * trace appended to the online one; every partial trace starts over.
 */
struct flush_step {
	struct cham *c;
	struct tc_strbuf sb;
	struct tc_online_bytes b;
	bool ok;
};

static void flush_pack(void *p)
{
	struct flush_step *f = p;

	tc_rsd_pack(f->c->part, &f->sb);
}

static void flush_merge(void *p)
{
	struct flush_step *f = p;
	struct cham *c = f->c;
	size_t nc = c->cl.nclusters;
	struct tc_gtrace **items = tc_xcalloc(nc + 1, sizeof(*items)), *g;

	for (size_t k = 0; k < nc; k++) {
		const struct tc_cluster *cl = &c->cl.clusters[k];
		size_t lead = cl->lead_index;
		struct tc_unpack u;
		struct tc_rsd *r;
		struct tc_rsd_info info;
		tc_unpack_init(&u, f->b.buf + f->b.offs[lead], (size_t)f->b.lens[lead]);
		r = tc_rsd_unpack(&u);
		if (!r || !tc_unpack_done(&u)) {
			tc_rsd_free(&r);
			f->ok = false;
			break;
		}
		tc_rsd_info(r, &info);
		items[k] = tc_gtrace_from_rsd(r, &cl->ranklist, c->a.size, info.events, &c->mopts);
		tc_rsd_free(&r);
		c->needed[lead] = 1;
		c->st.events_used += info.events;
	}
	if (!f->ok) {
		for (size_t k = 0; k < nc; k++)
			tc_gtrace_free(&items[k]);
		nc = 0;
	}
	g = tc_gtrace_merge_tree(items, nc, NULL, &c->mopts);
	free(items);
	/* Alg. 8 line 47: "Merge partial trace with Online Global Trace" */
	if (!c->online)
		c->online = g;
	else if (g)
		tc_gtrace_append(c->online, &g);
	c->st.merges++;
}

static void flush_restart(void *p)
{
	struct cham *c = p;

	restart(&c->part, &c->part_events);
}

/*
 * Alg. 8 lines 25-49: the leads' partial traces meet at rank 0 and are
 * merged, each lead standing for its cluster, into a partial global
 * trace appended to the online one; every partial trace starts over.
 * Agreed on: false on every rank when any failed or is broken.
 */
static bool flush(struct cham *c)
{
	struct flush_step f = { c, TC_STRBUF_INIT, { 0 }, true };
	bool mine = true, ok;

	if (c->is_lead && !step(c, flush_pack, &f))
		mine = false;
	ok = tc_online_gather(&c->a, mine ? &f.sb : &(struct tc_strbuf)TC_STRBUF_INIT,
			      mine && !broken(c), &f.b);
	if (mine)
		tc_strbuf_release(&f.sb);
	if (ok && c->a.rank == 0 && !step(c, flush_merge, &f))
		f.ok = false;
	tc_online_bytes_release(&f.b);
	step(c, flush_restart, c);
	return tc_online_all(ok && f.ok && !broken(c));
}

struct state_step {
	struct cham *c;
	int st;
};

static void state_grow(void *p)
{
	struct state_step *s = p;
	struct cham *c = s->c;

	TC_ALLOC_GROW(c->st.states, c->st.calls + 1, c->states_alloc);
	c->st.states[c->st.calls++] = (uint8_t)s->st;
	c->st.in_state[s->st]++;
}

static void push_state(struct cham *c, int st)
{
	struct state_step s = { c, st };

	if (c->a.rank != 0)
		return;
	step(c, state_grow, &s);
}

/* Alg. 6 at a marker invocation, every rank; changed agreed already. */
static int invocation(struct cham *c, bool changed)
{
	bool merge, listen;
	int st = tc_cham_graph_step(&c->graph, changed, &merge);

	push_state(c, st);
	/* leaving L: the leads' traces of the L phase, with the clustering
	 * they were chosen by; the interval that changed goes to the next
	 * partial trace */
	if (merge && !flush(c))
		return give_up(c, "%s", "a partial trace that could not be handed over");
	feed_part(c);
	if (st == TC_CHAM_C) {
		recluster(c);
		if (!flush(c))
			return give_up(c, "%s", "a partial trace that could not be handed over");
	}
	/* after C and while in L only the leads trace */
	listen = st == TC_CHAM_C || (st == TC_CHAM_L && !merge);
	c->write = !listen || c->is_lead;
	return answer(c);
}

/* A call of the marker's op (or, while looking for a marker, of any
 * blocking collective) over the world. */
static int marker_call(struct cham *c, const struct tc_event *ev, int call)
{
	/* a call paused by MPI_Pcontrol is not in the trace: not a marker */
	bool mine = (call & TC_ONLINE_CALL_RECORDED) && ev->op == c->marker_op &&
		    (c->any_site || site_of(c, ev->callsite) == c->marker_site);
	bool invoke = mine && (c->markers + 1) % c->freq == 0;
	struct sig_step s = { c, { 0 } };
	int v[4] = { mine, !mine, 0, 0 };

	if (invoke) {
		/* Alg. 6 line 1: the call path of the interval */
		if (step(c, sig_of_ival, &s)) {
			v[3] = s.sig.callpath != c->old_callpath;
			c->old_callpath = s.sig.callpath;
		}
	}
	v[2] = !(call & TC_ONLINE_CALL_OK) || broken(c);
	PMPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (v[2])
		return give_up(c, "%s", "a rank stopped recording or ran out of memory");
	if (v[0] && v[1])
		return give_up(c, "ranks disagree on a call of the marker %s (another call site)",
			       tc_op_name(c->marker_op));
	if (!v[0])
		return answer(c);
	c->markers++;
	if (!invoke)
		return answer(c);
	return invocation(c, v[3] != 0);
}

static bool is_blocking_coll(uint32_t op)
{
	return tc_op_valid(op) && tc_op_kind(op) == TC_K_COLL &&
	       !(tc_op_flags(op) & (TC_OPF_NB | TC_OPF_NEIGH));
}

/* The calls that reach at_collective: every blocking collective while
 * looking for the marker, then the marker's op. */
static void mark_marker_ops(struct cham *c, bool any)
{
	memset(c->ops_ref, 0, TC_ONLINE_OPS);
	for (unsigned op = 0; op < TC_ONLINE_OPS; op++)
		if (is_blocking_coll(op) && (any || op == c->marker_op))
			c->ops_ref[op] = 1;
}

struct cand_step {
	struct cham *c;
	uint32_t op;
	uint64_t site;
	bool has;
};

static void candidate(void *p)
{
	struct cand_step *s = p;

	s->has = tc_chameleon_candidate(s->c->ival, &s->op, &s->site);
}

struct vote_step {
	struct cham *c;
	size_t n;
	bool enough, found;
};

static void vote(void *p)
{
	struct vote_step *v = p;

	v->found = tc_chameleon_vote(v->c->cand, v->n, &v->c->marker_op, &v->c->marker_site);
}

/* Looking for the marker: agree on one at the 4th, 8th, 16th ... collective
 * (the vote's buffers were made at MPI_Init). */
static int find_marker(struct cham *c, int call)
{
	bool ok = (call & TC_ONLINE_CALL_OK) && !broken(c);
	uint64_t mine[3], *all = c->vote;
	struct tc_cham_candidate *cand = c->cand;
	struct cand_step cs = { c, 0, 0, false };
	struct vote_step vs = { c, 0, false, false };
	size_t n = (size_t)c->a.size, have = 0;
	bool bad = false, found;

	c->colls++;
	if (c->colls < AUTO_FIRST || (c->colls & (c->colls - 1)))
		return answer(c);
	memset(mine, 0, sizeof(mine));
	/* only a blocking collective can be a marker in the job */
	if (ok && step(c, candidate, &cs) && cs.has && is_blocking_coll(cs.op)) {
		mine[0] |= 1;
		mine[1] = cs.op;
		mine[2] = cs.site;
	}
	mine[0] |= (uint64_t)(ok && !broken(c)) << 1;
	PMPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, MPI_COMM_WORLD);
	for (size_t i = 0; i < n; i++) {
		bad |= !(all[3 * i] & 2);
		cand[i].has = all[3 * i] & 1;
		cand[i].op = (uint32_t)all[3 * i + 1];
		cand[i].site = all[3 * i + 2];
		have += cand[i].has;
	}
	vs.n = n;
	vs.enough = !bad && 2 * have > n;
	/* the same vote on every rank, unless one runs out of memory in it:
	 * agreed on, since the calls that follow depend on its outcome */
	if (vs.enough && !step(c, vote, &vs))
		bad = true;
	{
		int fine = !bad && !broken(c);
		PMPI_Allreduce(MPI_IN_PLACE, &fine, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		bad = !fine;
	}
	found = vs.found;
	if (bad)
		return give_up(c, "%s", "a rank stopped recording or ran out of memory");
	if (found) {
		c->marker_known = true;
		mark_marker_ops(c, false);
	}
	return answer(c);
}

/* Whether the collective's communicator holds every rank (the world or
 * a copy of it in any order): only there do all ranks make the call. */
static bool spans_world(struct cham *c, uint32_t comm)
{
	const struct tc_trace_comm *tc;

	if (comm == 0)
		return true;
	tc = tc_rank_trace_comm(c->t, comm);
	if (!tc || tc->size != (uint32_t)c->a.size)
		return false;
	switch (tc->creator) {
	case TC_OP_INTERCOMM_CREATE:
	case TC_OP_INTERCOMM_CREATE_FROM_GROUPS:
	case TC_OP_INTERCOMM_MERGE:
	case TC_OP_COMM_SPAWN:
	case TC_OP_COMM_CONNECT:
	case TC_OP_COMM_ACCEPT:
		return false; /* another job's ranks take part */
	default:
		return true;
	}
}

static int at_collective(void *p, const struct tc_event *ev, int call)
{
	struct cham *c = p;
	double t0 = tc_online_now();
	int ans;

	if (c->off)
		return TC_ONLINE_OFF;
	/* the tap up to this call, its own event and communicator included */
	c->sync();
	if (!spans_world(c, ev->comm))
		return answer(c);
	ans = c->marker_known ? marker_call(c, ev, call) : find_marker(c, call);
	c->hook_s += tc_online_now() - t0;
	return ans;
}

/* ---- MPI_Init ------------------------------------------------------------------ */

/* TRACECLUSTER_ONLINE=chameleon[:K], _MARKER, _FREQ and _KEEP into c. */
static bool configure(struct cham *c, const struct tc_online_args *a)
{
	const char *marker = getenv("TRACECLUSTER_ONLINE_MARKER");
	const char *freq = getenv("TRACECLUSTER_ONLINE_FREQ");
	const char *keep = a->keep && *a->keep ? a->keep : "leads";
	char *end;

	tc_cluster_opts_init(&c->copts);
	c->mopts.precision = 100;
	c->mopts.bins = TC_HIST_BINS_DEFAULT;
	if (a->mode[9] == ':') {
		unsigned long k;
		errno = 0;
		k = strtoul(a->mode + 10, &end, 10);
		if (errno || *end || !k || k > UINT32_MAX)
			return false;
		c->copts.k = (uint32_t)k;
	}
	if (marker && *marker && strcmp(marker, "auto")) {
		if (tc_chameleon_parse_marker(marker, &c->marker_op, &c->marker_site) ||
		    !is_blocking_coll(c->marker_op))
			return false;
		c->marker_known = true;
		c->any_site = c->marker_site == 0;
	}
	c->freq = 1;
	if (freq && *freq) {
		unsigned long f;
		errno = 0;
		f = strtoul(freq, &end, 10);
		if (errno || *end || !f || f > UINT32_MAX)
			return false;
		c->freq = (uint32_t)f;
	}
	if (strcmp(keep, "leads") && strcmp(keep, "all") && strcmp(keep, "none"))
		return false;
	c->keep_all = !strcmp(keep, "all");
	return true;
}

static void cham_free(struct cham *c)
{
	if (!c)
		return;
	tc_rank_trace_free(&c->t);
	tc_rsd_free(&c->ival);
	tc_rsd_free(&c->part);
	free(c->sigs);
	free(c->flags);
	free(c->needed);
	free(c->vote);
	free(c->cand);
	tc_clustering_release(&c->cl);
	tc_gtrace_free(&c->online);
	free(c->st.states);
	free(c);
}

/* What the plugin needs from MPI_Init on, made before the ranks agree to
 * start (out of memory here: the plugin does not start). */
static void make_state(void *p)
{
	struct cham *c = p;
	size_t n = (size_t)c->a.size;

	c->t = tc_rank_trace_new(c->a.rank, c->a.size, NULL);
	c->ival = tc_rsd_new_like(c->t->seq);
	c->part = tc_rsd_new_like(c->t->seq);
	if (!c->marker_known) {
		c->vote = tc_xcalloc(n, 3 * sizeof(*c->vote));
		c->cand = tc_xcalloc(n, sizeof(*c->cand));
	}
	if (c->a.rank == 0) {
		c->sigs = tc_xcalloc(n, sizeof(*c->sigs));
		c->flags = tc_xcalloc(n, 1);
		c->needed = tc_xcalloc(n, 1);
	}
}

/* The shim's time after each op's calls over the job's ranks, its means
 * weighted by their calls, onto the global trace at rank 0 (collective). */
static void tracer_ops_reduce(struct cham *c, const struct tc_online_args *a)
{
	double v[2 * TC_ONLINE_OPS];
	struct tc_gtrace *g = a->rank == 0 ? c->online : NULL;

	for (int op = 0; op < TC_ONLINE_OPS; op++) {
		v[op] = (double)a->tracer_op_ns[op] * (double)a->tracer_op_calls[op];
		v[TC_ONLINE_OPS + op] = (double)a->tracer_op_calls[op];
	}
	PMPI_Reduce(a->rank == 0 ? MPI_IN_PLACE : v, v, 2 * TC_ONLINE_OPS, MPI_DOUBLE, MPI_SUM, 0,
		    MPI_COMM_WORLD);
	/* without memory the trace goes without them (its gaps take the mean) */
	if (g && !g->ntracer_ops) {
		free(g->tracer_ops);
		g->tracer_ops = calloc(TC_OP_MAX, sizeof(*g->tracer_ops));
	}
	if (g && g->tracer_ops && !g->ntracer_ops) {
		for (int op = 1; op < TC_ONLINE_OPS && op < TC_OP_MAX; op++) {
			double calls = v[TC_ONLINE_OPS + op], ns;
			if (!(calls > 0))
				continue;
			ns = v[op] / calls + 0.5;
			g->tracer_ops[g->ntracer_ops++] = (struct tc_tracer_op){
				(uint32_t)op, ns < (double)TC_TRACER_NS_MAX ? (uint32_t)ns
									   : (uint32_t)TC_TRACER_NS_MAX,
				calls < (double)TC_TRACER_CALLS_MAX ? (uint64_t)calls
								    : TC_TRACER_CALLS_MAX };
		}
	}
}

TC_ONLINE_API int tracecluster_online_start(const struct tc_online_args *a,
					    struct tc_online_hooks *h)
{
	struct cham *c = calloc(1, sizeof(*c));
	bool ok = c && a->abi == TC_ONLINE_ABI && tc_online_is_chameleon(a->mode) &&
		  configure(c, a), room = true;

	tc_online_set_rank(a->rank);
	if (!c)
		tc_online_oom(sizeof(*c));
	if (ok) {
		c->a = *a;
		snprintf(c->dir, sizeof(c->dir), "%s", a->dir);
		snprintf(c->mode, sizeof(c->mode), "%s", a->mode);
		c->a.dir = c->dir;
		c->a.mode = c->mode;
		c->a.keep = NULL;
		room = tc_online_guarded(make_state, c);
		ok = room;
	}
	if (!tc_online_all(ok)) {
		if (a->rank == 0)
			tc_online_say(a, "TRACECLUSTER_ONLINE='%s': expected chameleon[:K] with "
					 "TRACECLUSTER_ONLINE_MARKER=OP[@CALLSITE] (a blocking "
					 "collective) or auto, TRACECLUSTER_ONLINE_FREQ=N >= 1 and "
					 "KEEP leads, all or none, and room for it; the raw files stay",
				      a->mode);
		if (room)
			cham_free(c);
		return -1;
	}
	c->write = true;
	tc_cham_graph_init(&c->graph);
	tc_clustering_init(&c->cl);
	h->ctx = c;
	h->on_event = on_event;
	h->on_callsite = on_callsite;
	h->on_comm = on_comm;
	h->at_collective = at_collective;
	c->ops_ref = h->ops;
	c->sync = h->sync;
	mark_marker_ops(c, !c->marker_known);
	return 0;
}

/* ---- MPI_Finalize ---------------------------------------------------------------- */

struct sites_step {
	struct cham *c;
	struct tc_strbuf sb;
	struct tc_online_bytes b;
	bool ok;
};

static void sites_pack(void *p)
{
	struct sites_step *s = p;

	tc_rank_trace_pack(s->c->t, &s->sb);
}

static void sites_copy(void *p)
{
	struct sites_step *s = p;

	for (int r = 0; r < s->c->a.size && s->ok; r++) {
		struct tc_unpack u;
		struct tc_rank_trace *t;
		if (!s->b.lens[r])
			continue;
		tc_unpack_init(&u, s->b.buf + s->b.offs[r], (size_t)s->b.lens[r]);
		t = tc_rank_trace_unpack(&u);
		s->ok = t && tc_unpack_done(&u);
		if (s->ok)
			tc_anl_copy_sites(s->c->online, t);
		tc_rank_trace_free(&t);
	}
}

/* Rank 0: the call sites of the ranks whose events went into the trace
 * (their tables hold the symbols the shim added at the end); every rank
 * learns whether its events did (*needed_out). */
static bool gather_sites(struct cham *c, unsigned char *needed_out)
{
	struct sites_step s = { c, TC_STRBUF_INIT, { 0 }, true };
	unsigned char needed = 0;
	bool mine = true, ok;

	PMPI_Scatter(c->needed, 1, MPI_BYTE, &needed, 1, MPI_BYTE, 0, MPI_COMM_WORLD);
	*needed_out = needed;
	if (needed && !step(c, sites_pack, &s))
		mine = false;
	ok = tc_online_gather(&c->a, mine ? &s.sb : &(struct tc_strbuf)TC_STRBUF_INIT,
			      mine && !broken(c), &s.b);
	if (mine)
		tc_strbuf_release(&s.sb);
	if (ok && c->a.rank == 0 && !step(c, sites_copy, &s))
		s.ok = false;
	tc_online_bytes_release(&s.b);
	return ok && s.ok;
}

struct global_step {
	struct cham *c;
	uint64_t bytes;
	bool ok;
};

static void global_write(void *p)
{
	struct global_step *g = p;

	g->ok = tc_online_write_global(&g->c->a, g->c->online, "chameleon", &g->c->mopts,
				       &g->bytes);
}

/* Rank 0: DIR/global.tct (a guarded step). */
static bool write_global(struct cham *c, uint64_t *bytes)
{
	struct global_step g = { c, 0, false };

	if (!step(c, global_write, &g))
		return false;
	*bytes = g.bytes;
	return g.ok;
}

/* The numbers of the run, summed or maximised over the ranks. */
struct totals {
	uint64_t events, withheld, raw_bytes, kept_gaps;
	double hook_s, finish_s;
};

static void write_report(struct cham *c, const struct totals *tt, uint64_t bytes,
			 const char *keep)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_error err;
	char path[PATH_MAX + 16];
	const char *op = tc_op_name(c->marker_op);

	snprintf(path, sizeof(path), "%s/online.json", c->dir);
	tc_strbuf_addf(&sb, "{\"mode\":\"chameleon\",\"ranks\":%d,\"k\":%" PRIu32
			    ",\"marker\":{\"op\":\"%s\",\"site\":\"0x%016" PRIx64
			    "\",\"any_site\":%s,\"found\":\"%s\",\"calls\":%" PRIu64
			    ",\"call_frequency\":%" PRIu32 "},",
		       c->a.size, c->copts.k, c->marker_known && op ? op : "",
		       c->marker_site, c->any_site ? "true" : "false",
		       !c->marker_known ? "none" : getenv("TRACECLUSTER_ONLINE_MARKER") &&
		       *getenv("TRACECLUSTER_ONLINE_MARKER") &&
		       strcmp(getenv("TRACECLUSTER_ONLINE_MARKER"), "auto") ? "given" : "auto",
		       c->markers, c->freq);
	tc_strbuf_addf(&sb, "\"invocations\":%" PRIu64 ",\"states\":\"", c->st.calls);
	for (uint64_t i = 0; i < c->st.calls; i++)
		tc_strbuf_addf(&sb, "%s%s", i ? " " : "", tc_cham_state_name(c->st.states[i]));
	tc_strbuf_addf(&sb, "\",\"in_state\":{\"AT\":%" PRIu64 ",\"C\":%" PRIu64 ",\"L\":%" PRIu64
			    "},\"reclusterings\":%" PRIu64 ",\"final_clustering\":%s,\"merges\":%"
			    PRIu64 ",\"clusters\":%zu,\"needed\":%zu,",
		       c->st.in_state[TC_CHAM_AT], c->st.in_state[TC_CHAM_C],
		       c->st.in_state[TC_CHAM_L], c->st.reclusterings,
		       c->st.final_clustering ? "true" : "false", c->st.merges, c->cl.nclusters,
		       c->st.needed);
	tc_strbuf_addf(&sb, "\"events\":%" PRIu64 ",\"events_used\":%" PRIu64
			    ",\"events_not_written\":%" PRIu64 ",\"raw_bytes_written\":%" PRIu64
			    ",\"global_trace\":\"global.tct\",\"bytes\":%" PRIu64
			    ",\"seconds_at_markers\":%.6f,\"seconds_at_finalize\":%.6f,"
			    "\"kept\":\"%s\",\"kept_files_with_gaps\":%" PRIu64 "}\n",
		       tt->events, c->st.events_used, tt->withheld, tt->raw_bytes, bytes,
		       tt->hook_s, tt->finish_s, keep, tt->kept_gaps);
	tc_error_clear(&err);
	if (tc_tct_write_file(path, sb.buf, sb.len, &err)) {
		char msg[1200];
		tc_error_format(&err, msg, sizeof(msg));
		tc_online_say(&c->a, "%s", msg);
	}
	tc_strbuf_release(&sb);
}

struct report_args {
	struct cham *c;
	const struct totals *tt;
	uint64_t bytes;
	const char *keep;
};

static void report_write(void *p)
{
	struct report_args *r = p;

	write_report(r->c, r->tt, r->bytes, r->keep);
}

static void report_step(struct cham *c, const struct totals *tt, uint64_t bytes,
			const char *keep)
{
	struct report_args r = { c, tt, bytes, keep };

	step(c, report_write, &r);
}

int tc_online_cham_finish(const struct tc_online_args *a)
{
	struct cham *c = a->state;
	double t0 = tc_online_now();
	const char *keep = a->keep && *a->keep ? a->keep : "leads";
	char path[PATH_MAX];
	struct totals tt;
	uint64_t mm[4], bytes = 0, mine[4], tr[2];
	double dd[2];
	unsigned char needed = 0;
	struct stat sbuf;
	bool ok, remove_it;
	int rc = -1;

	if (!c)
		return -1;
	tc_raw_rank_path(path, sizeof(path), c->dir, c->a.rank);
	if (c->off) {
		if (a->rank == 0)
			tc_online_say(a, "chameleon stopped at marker call %" PRIu64 ": %s; the raw "
					 "files stay (events after it were all written)", c->markers,
				      c->why);
		goto out;
	}
	/* one reduction for what every rank must agree on: the same marker
	 * count, every rank traced to the end, and whether any has events
	 * not yet merged (in the partial trace, or since the last marker) */
	mm[0] = c->markers;
	mm[1] = ~c->markers;
	mm[2] = !a->traced || broken(c);
	mm[3] = !c->clustered || c->part_events > 0 || c->ival_events > 0;
	PMPI_Allreduce(MPI_IN_PLACE, mm, 4, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	/* every rank has arrived: what follows is the time the mode adds to
	 * MPI_Finalize (before, the ranks wait for each other, as
	 * MPI_Finalize makes them anyway) */
	t0 = tc_online_now();
	/* the events after the last marker invocation */
	feed_part(c);
	if (mm[0] != ~mm[1] || mm[2]) {
		if (a->rank == 0)
			tc_online_say(a, "%s; the raw files stay",
				      mm[0] != ~mm[1] ? "the ranks called the marker unequally often"
						      : "not every rank traced to the end with room "
							"for the clustering");
		goto out;
	}
	/* MPI_Finalize: re-cluster over the last events and merge them */
	{
		if (mm[3]) {
			recluster(c);
			c->st.final_clustering = true;
			if (!flush(c)) {
				if (a->rank == 0)
					tc_online_say(a, "a partial trace could not be handed over; the "
							 "raw files stay");
				goto out;
			}
		}
	}
	if (a->rank == 0)
		for (int r = 0; r < a->size; r++)
			c->st.needed += c->needed[r];
	/* the shim's time per call in the gaps, over the job's measured
	 * calls (no raw file is read back here, as compress reads them) */
	tr[0] = a->tracer_sum;
	tr[1] = a->tracer_n;
	PMPI_Reduce(a->rank == 0 ? MPI_IN_PLACE : tr, tr, 2, MPI_UINT64_T, MPI_SUM, 0,
		    MPI_COMM_WORLD);
	if (a->rank == 0 && c->online && tr[1])
		c->online->tracer_ns = TC_MIN((tr[0] + tr[1] / 2) / tr[1], TC_TRACER_NS_MAX);
	tracer_ops_reduce(c, a);
	ok = gather_sites(c, &needed);
	if (ok && a->rank == 0)
		ok = write_global(c, &bytes);
	if (!tc_online_all(ok)) {
		if (a->rank == 0)
			tc_online_say(a, "the global trace was not written; the raw files stay");
		goto out;
	}
	/* the raw files the mode does not need go: KEEP=leads keeps the ranks
	 * whose events went into the global trace */
	remove_it = !strcmp(keep, "none") || (!strcmp(keep, "leads") && !needed);
	mine[0] = c->events;
	mine[1] = c->withheld;
	mine[2] = stat(path, &sbuf) == 0 ? (uint64_t)sbuf.st_size : 0;
	mine[3] = !remove_it && c->withheld > 0;
	if (remove_it)
		unlink(path);
	PMPI_Reduce(a->rank == 0 ? MPI_IN_PLACE : mine, mine, 4, MPI_UINT64_T, MPI_SUM, 0,
		    MPI_COMM_WORLD);
	dd[0] = c->hook_s;
	dd[1] = tc_online_now() - t0;
	PMPI_Reduce(a->rank == 0 ? MPI_IN_PLACE : dd, dd, 2, MPI_DOUBLE, MPI_MAX, 0,
		    MPI_COMM_WORLD);
	rc = 0;
	if (a->rank == 0) {
		tt.events = mine[0];
		tt.withheld = mine[1];
		tt.raw_bytes = mine[2];
		tt.kept_gaps = mine[3];
		tt.hook_s = dd[0];
		tt.finish_s = dd[1];
		report_step(c, &tt, bytes, keep);
		if (!a->quiet)
			tc_online_say(a, "chameleon: %" PRIu64 " marker calls, %" PRIu64
					 " clusterings, %zu leads, %s/global.tct (%" PRIu64
					 " bytes); %" PRIu64 " of %" PRIu64 " events not written; "
					 "%.3f s at markers, %.3f s at MPI_Finalize; raw files kept: %s",
				      c->markers, c->st.reclusterings, c->st.needed, c->dir, bytes,
				      tt.withheld, tt.events, tt.hook_s, tt.finish_s, keep);
	}
	PMPI_Barrier(MPI_COMM_WORLD);
out:
	/* out of memory left the state half made: the process ends soon */
	if (!broken(c))
		cham_free(c);
	return rc;
}
