/*
 * wild.c - the sources of wildcard receives a trace does not name.
 *
 * The capture shim records the source each MPI_ANY_SOURCE receive
 * matched, and the replay names it (--any-source recorded). The traces of
 * other tools need not have it: ScalaTrace keeps the wildcard alone (and
 * not always the tag that told the program's messages apart). Posted as
 * wildcards, such receives take whatever arrives first in the replay,
 * which need not be what they took in the traced run: a message of another
 * size (MPI_ERR_TRUNCATE), or one a later receive of a named source waits
 * for. So, before anything is replayed, the first rank infers their
 * sources by running the trace's point-to-point skeleton, every rank's,
 * in a simulation that keeps MPI's causality:
 *
 *   - each rank gives it its sends (peer, tag, bytes), receives (source,
 *     tag, capacity), nonblocking receives and the calls that complete
 *     them (the requests each completed, as the trace says), and its
 *     collectives on the world that no rank leaves before all have
 *     entered (one MPI_Gatherv);
 *   - the ranks advance in turns, each as far as it can: a send queues
 *     its message at its receiver (sends are taken to be buffered), a
 *     receive takes a queued message or blocks, a completion call blocks
 *     until its receives have messages, a collective until every rank
 *     has entered it;
 *   - a receive of a named source takes that sender's first queued
 *     message whose tag it accepts (MPI's non-overtaking rule); a wildcard
 *     looks at each sender's first queued message it accepts and takes
 *     one of its own size (sizes tell apart what lost tags no longer do),
 *     and one that only fits its capacity when no rank can move otherwise. A message sent after the receiver
 *     passed its point cannot be taken there, so the queue holds only
 *     what could have arrived;
 *   - blocking sends wait until their message is taken (a program that
 *     works must work when MPI_Send does not buffer), unless the ranks
 *     then block, in which case the run is made again with them buffered.
 *
 * The sources found are sent back to their ranks (one MPI_Scatterv). A
 * receive cancelled before it matched, or a wildcard never completed in
 * the trace, takes no message there. When the simulation cannot be run (a
 * wildcard sendrecv, persistent receive or matched probe of a source the
 * trace does not name) or blocks before its end, every wildcard stays a
 * wildcard, and the lowest rank that can tell says why.
 * Communicators other than the world are not told apart (a sender's
 * messages to a rank are one sequence per tag), as in the pairs check
 * (pairs.c).
 */
#include "lib/compat.h"
#include "cmd/mpi/internal.h"
#include "lib/event.h"
#include "lib/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the skeleton's operations, each [op, words...] */
enum {
	SK_SEND = 1,     /* peer, tag, bytes, blocking (MPI_Send, MPI_Ssend, MPI_Rsend) */
	SK_RECV,         /* source (-2: unnamed wildcard), tag, capacity (-1 any), event */
	SK_IRECV,        /* source, tag, capacity, event, request */
	SK_WAIT,         /* n, requests... */
	SK_COLL          /* (none) */
};

#define UNNAMED (-2)

/* ---- each rank's skeleton --------------------------------------------------------- */

struct skel {
	int64_t *w;
	size_t n, alloc;
};

/* k NULL: the walk only counts (skeleton()) */
static void put(struct skel *k, int64_t v)
{
	if (!k)
		return;
	TC_ALLOC_GROW(k->w, k->n + 1, k->alloc);
	k->w[k->n++] = v;
}

/* A collective on the world that no rank leaves before every rank has
 * entered it. */
static bool sync_coll(const struct tc_event *ev)
{
	switch (ev->op) {
	case TC_OP_BARRIER:
	case TC_OP_ALLREDUCE:
	case TC_OP_REDUCE_SCATTER:
	case TC_OP_REDUCE_SCATTER_BLOCK:
	case TC_OP_ALLGATHER:
	case TC_OP_ALLGATHERV:
	case TC_OP_ALLTOALL:
	case TC_OP_ALLTOALLV:
	case TC_OP_ALLTOALLW:
		return ev->comm == 0;
	default:
		return false;
	}
}

static int64_t bytes_of(const struct tc_event *ev)
{
	return (int64_t)(ev->count * ev->dtype_size);
}

/* The source a receive of peer names: the one the trace says it matched
 * for a wildcard, UNNAMED when it does not say, -1 for no rank. */
static int64_t source_of(const struct tc_replay_mpi *s, size_t i, int32_t peer)
{
	if (peer == TC_ANY_SOURCE)
		return s->src[i] >= 0 ? s->src[i] : UNNAMED;
	return peer >= 0 ? peer : -1;
}

/* The persistent requests' inits met so far: request id and init. */
struct inits {
	struct { uint64_t id; const struct tc_event *ev; } *v;
	size_t n, alloc;
};

/* A persistent request's init, by request id: the latest met. */
static const struct tc_event *init_of(const struct inits *in, uint64_t id)
{
	for (size_t j = in->n; j-- > 0;)
		if (in->v[j].id == id)
			return in->v[j].ev;
	return NULL;
}

/* The receive a persistent request's start issues, or its send, into k:
 * src the source its completion names for a wildcard (-1: none). */
static void start_one(struct skel *k, const struct tc_event *in, uint64_t id, int32_t src)
{
	if (!in || in->peer == TC_PROC_NULL)
		return;
	if (in->op == TC_OP_RECV_INIT) {
		put(k, SK_IRECV);
		put(k, in->peer != TC_ANY_SOURCE ? in->peer : src >= 0 ? src : UNNAMED);
		put(k, in->tag);
		put(k, bytes_of(in));
		put(k, -1);   /* a persistent receive is not named: no event */
		put(k, (int64_t)id);
	} else if (in->op != TC_OP_PSEND_INIT && in->op != TC_OP_PRECV_INIT && in->peer >= 0) {
		put(k, SK_SEND);
		put(k, in->peer);
		put(k, in->tag);
		put(k, bytes_of(in));
		put(k, 0);
	}
}

/* What became of each nonblocking receive: done[i] the call that
 * completes it (SIZE_MAX: none in the trace), cancelled[i] whether an
 * MPI_Cancel of its request comes before that. */
struct fate {
	size_t *done;
	bool *cancelled;
};

static void fates(const struct tc_revents *e, struct fate *f)
{
	struct { uint64_t id; size_t at; bool cancel; } *p = NULL;
	size_t np = 0, ap = 0;

	f->done = tc_xmalloc(tc_st_mult(e->n ? e->n : 1, sizeof(*f->done)));
	f->cancelled = tc_xcalloc(e->n ? e->n : 1, sizeof(*f->cancelled));
	for (size_t i = e->n; i-- > 0;) {
		const struct tc_event *ev = &e->ev[i];
		f->done[i] = SIZE_MAX;
		if (ev->op == TC_OP_CANCEL || ev->op == TC_OP_REQUEST_FREE) {
			size_t j = np;
			if (!(ev->fields & TC_F_REQUEST))
				continue;
			while (j-- > 0 && p[j].id != ev->request)
				;
			if (j == SIZE_MAX) {
				TC_ALLOC_GROW(p, np + 1, ap);
				p[np].id = ev->request;
				p[np].at = SIZE_MAX;
				p[np++].cancel = false;
				j = np - 1;
			}
			p[j].cancel |= ev->op == TC_OP_CANCEL;
		} else if (tc_op_kind(ev->op) == TC_K_WAIT) {
			for (uint32_t c = 0; c < ev->ncompl; c++) {
				if (!ev->compl[c].request)
					continue;
				TC_ALLOC_GROW(p, np + 1, ap);
				p[np].id = ev->compl[c].request;
				p[np].at = i;
				p[np++].cancel = false;
			}
		} else if (ev->fields & TC_F_REQUEST) {
			/* the latest pending entry of the id is the fate of the
			 * request the call makes (a send's too: the list stays
			 * as short as the requests in flight) */
			for (size_t j = np; j-- > 0;) {
				if (p[j].id != ev->request)
					continue;
				f->done[i] = p[j].at;
				f->cancelled[i] = p[j].cancel;
				p[j] = p[--np];
				break;
			}
		}
	}
	free(p);
}

/*
 * The rank's skeleton into k (NULL: none, the counts alone); *unnamed:
 * its wildcard receives of a source the trace does not name (those it
 * completes, not cancelled); the index of one the simulation cannot
 * follow in *bad (SIZE_MAX: none).
 */
static void skeleton(const struct tc_replay_mpi *s, struct skel *k, uint64_t *unnamed, size_t *bad)
{
	const struct tc_revents *e = s->evs;
	struct inits in = { NULL, 0, 0 };
	struct fate f;

	fates(e, &f);
	*unnamed = 0;
	*bad = SIZE_MAX;
#define CANNOT(i_)                              \
	do {                                    \
		++*unnamed;                     \
		if (*bad == SIZE_MAX)           \
			*bad = (i_);            \
	} while (0)
	for (size_t i = 0; i < e->n; i++) {
		const struct tc_event *ev = &e->ev[i];
		unsigned kind = tc_op_kind(ev->op);
		int64_t src;
		switch (kind) {
		case TC_K_SEND:
			if (ev->peer < 0)
				break;
			put(k, SK_SEND);
			put(k, ev->peer);
			put(k, ev->tag);
			put(k, bytes_of(ev));
			put(k, ev->op == TC_OP_SEND || ev->op == TC_OP_SSEND || ev->op == TC_OP_RSEND);
			break;
		case TC_K_RECV:
			if (ev->op != TC_OP_RECV && ev->op != TC_OP_IRECV)
				break;   /* Mrecv: its matched probe took the message */
			if ((src = source_of(s, i, ev->peer)) == -1)
				break;
			if (ev->op == TC_OP_IRECV && f.cancelled[i] && s->src[i] < 0)
				break;   /* cancelled before it matched */
			if (ev->op == TC_OP_IRECV && f.done[i] == SIZE_MAX && src == UNNAMED)
				break;   /* never completed: what it took is not told */
			*unnamed += src == UNNAMED;
			put(k, ev->op == TC_OP_RECV ? SK_RECV : SK_IRECV);
			put(k, src);
			put(k, ev->tag);
			put(k, bytes_of(ev));
			put(k, (int64_t)i);
			if (ev->op == TC_OP_IRECV)
				put(k, (int64_t)ev->request);
			break;
		case TC_K_SENDRECV:
			if (ev->peer >= 0) {
				put(k, SK_SEND);
				put(k, ev->peer);
				put(k, ev->tag);
				put(k, bytes_of(ev));
				put(k, 0);
			}
			if ((src = source_of(s, i, ev->rpeer)) == -1)
				break;
			if (src == UNNAMED)
				CANNOT(i);
			if (ev->op == TC_OP_SENDRECV || ev->op == TC_OP_SENDRECV_REPLACE) {
				put(k, SK_RECV);
				put(k, src);
				put(k, ev->rtag);
				put(k, -1);
				put(k, -1);
			} else if (!f.cancelled[i] || s->src[i] >= 0) {
				put(k, SK_IRECV);
				put(k, src);
				put(k, ev->rtag);
				put(k, -1);
				put(k, -1);
				put(k, (int64_t)ev->request);
			}
			break;
		case TC_K_PROBE:
			/* a matched probe takes its message */
			if (ev->op != TC_OP_MPROBE && ev->op != TC_OP_IMPROBE)
				break;
			if (ev->op == TC_OP_IMPROBE && !ev->ncompl)
				break;   /* found none */
			if ((src = source_of(s, i, ev->peer)) == -1)
				break;
			if (src == UNNAMED)
				CANNOT(i);
			put(k, SK_RECV);
			put(k, src);
			put(k, ev->tag);
			put(k, -1);
			put(k, -1);
			break;
		case TC_K_PERSIST:
			if (ev->fields & TC_F_REQUEST) {
				TC_ALLOC_GROW(in.v, in.n + 1, in.alloc);
				in.v[in.n].id = ev->request;
				in.v[in.n++].ev = ev;
			}
			break;
		case TC_K_START:
			for (uint32_t j = 0; j < (ev->op == TC_OP_START ? 1 : ev->ncompl); j++) {
				uint64_t id = ev->op == TC_OP_START ? ev->request : ev->compl[j].request;
				const struct tc_event *init = init_of(&in, id);
				int32_t got = ev->op == TC_OP_START ? s->src[i] : -1;
				if (init && init->op == TC_OP_RECV_INIT && init->peer == TC_ANY_SOURCE &&
				    got < 0)
					CANNOT(i);
				start_one(k, init, id, got);
			}
			break;
		case TC_K_WAIT:
			if (ev->op == TC_OP_CANCEL || ev->op == TC_OP_REQUEST_FREE || !ev->ncompl)
				break;
			put(k, SK_WAIT);
			put(k, ev->ncompl);
			for (uint32_t j = 0; j < ev->ncompl; j++)
				put(k, (int64_t)ev->compl[j].request);
			break;
		case TC_K_COLL:
			if (sync_coll(ev))
				put(k, SK_COLL);
			break;
		default:
			break;
		}
	}
#undef CANNOT
	free(in.v);
	free(f.done);
	free(f.cancelled);
}

/* Whether the rank may have a wildcard whose source the trace does not
 * name: without one (every trace of the capture shim), nothing is
 * allocated or walked further. */
static bool may_be_unnamed(const struct tc_replay_mpi *s)
{
	for (size_t i = 0; i < s->evs->n; i++) {
		const struct tc_event *ev = &s->evs->ev[i];
		if (s->src[i] < 0 && (ev->peer == TC_ANY_SOURCE || ev->rpeer == TC_ANY_SOURCE ||
				      tc_op_kind(ev->op) == TC_K_START))
			return true;
	}
	return false;
}

/* ---- the simulation (the first rank) --------------------------------------------- */

struct msg {
	int32_t src, tag;
	int64_t bytes;
	bool taken;
};

/* a nonblocking receive posted and not yet completed */
struct pend {
	int64_t src, tag, cap, at, req;
	bool matched;
};

struct rk {
	const int64_t *w;        /* its skeleton */
	size_t n, pc;
	struct msg *q;           /* messages queued for it, in arrival order */
	size_t nq, aq, head;     /* head: none before it untaken */
	struct pend *p;
	size_t np, ap;
	uint64_t colls;          /* collectives entered */
	bool in_coll;
	/* a blocking send queued, not yet taken: its place in its
	 * receiver's queue */
	bool sent;
	size_t sent_at;
};

struct sim {
	struct rk *r;
	int32_t world;
	bool sync;               /* blocking sends wait until taken */
	bool loose;              /* wildcards take messages that only fit */
	uint64_t *seen, stamp;   /* per sender: met in take() call stamp */
	/* entered[c]: the ranks that have entered their c-th collective */
	int32_t *entered;
	size_t nentered, aentered;
	/* the inferred sources: (rank, event, source) triples */
	int64_t *found;
	size_t nfound, afound;
};

/* The message of rk r a receive of src (UNNAMED: a wildcard of capacity
 * cap, -1 any) and tag takes, marked taken; its source, or -1 when none
 * is queued. A wildcard looks at each sender's first message it accepts
 * (one sender's messages match in order) and takes one of its own size
 * (or of one not known), and one that only fits when loose. */
static int32_t take(struct sim *sm, struct rk *r, int64_t src, int64_t tag, int64_t cap)
{
	size_t fit = SIZE_MAX;

	while (r->head < r->nq && r->q[r->head].taken)
		r->head++;
	sm->stamp++;
	for (size_t j = r->head; j < r->nq; j++) {
		struct msg *m = &r->q[j];
		if (m->taken || (tag != TC_ANY_TAG && m->tag != tag))
			continue;
		if (src != UNNAMED) {
			if (m->src != src)
				continue;
			fit = j;
			break;
		}
		if (sm->seen[m->src] == sm->stamp)
			continue;   /* not its sender's first */
		sm->seen[m->src] = sm->stamp;
		if (cap < 0 || m->bytes < 0 || m->bytes == cap) {
			fit = j;
			break;
		}
		if (sm->loose && m->bytes < cap && fit == SIZE_MAX)
			fit = j;
	}
	if (fit == SIZE_MAX)
		return -1;
	r->q[fit].taken = true;
	return r->q[fit].src;
}

static void found(struct sim *sm, int32_t rank, int64_t at, int32_t src)
{
	if (at < 0)
		return;
	TC_ALLOC_GROW(sm->found, sm->nfound + 3, sm->afound);
	sm->found[sm->nfound++] = rank;
	sm->found[sm->nfound++] = at;
	sm->found[sm->nfound++] = src;
}

/* Match the rank's pending receives in the order they were posted. */
static void match_pending(struct sim *sm, int32_t rank)
{
	struct rk *r = &sm->r[rank];

	for (size_t j = 0; j < r->np; j++) {
		struct pend *p = &r->p[j];
		int32_t got;
		if (p->matched || (got = take(sm, r, p->src, p->tag, p->cap)) < 0)
			continue;
		p->matched = true;
		if (p->src == UNNAMED)
			found(sm, rank, p->at, got);
	}
}

/* Advance the rank as far as it goes; whether it moved. */
static bool advance(struct sim *sm, int32_t rank)
{
	struct rk *r = &sm->r[rank];
	bool moved = false;

	while (r->pc < r->n) {
		const int64_t *o = &r->w[r->pc];
		/* the words each operation has, after its own */
		size_t len = o[0] == SK_SEND || o[0] == SK_RECV ? 5 : o[0] == SK_IRECV ? 6 :
			     o[0] == SK_WAIT && r->pc + 1 < r->n && o[1] >= 0 ? 2 + (size_t)o[1] :
			     o[0] == SK_COLL ? 1 : SIZE_MAX;
		if (len > r->n - r->pc)
			return moved;   /* not a skeleton: never */
		switch (o[0]) {
		case SK_SEND: {
			struct rk *to;
			if (o[1] < 0 || o[1] >= sm->world)
				break;
			to = &sm->r[o[1]];
			if (!r->sent) {
				TC_ALLOC_GROW(to->q, to->nq + 1, to->aq);
				to->q[to->nq++] = (struct msg){ rank, (int32_t)o[2], o[3], false };
				if (!sm->sync || !o[4])
					break;
				r->sent = true;
				r->sent_at = to->nq - 1;
				moved = true;
			}
			/* MPI_Send may wait for its receive: a program that works
			 * must work when it does */
			match_pending(sm, (int32_t)o[1]);
			if (!to->q[r->sent_at].taken)
				return moved;
			r->sent = false;
			break;
		}
		case SK_RECV: {
			int32_t got;
			match_pending(sm, rank);
			if ((got = take(sm, r, o[1], o[2], o[3])) < 0)
				return moved;
			if (o[1] == UNNAMED)
				found(sm, rank, o[4], got);
			break;
		}
		case SK_IRECV:
			TC_ALLOC_GROW(r->p, r->np + 1, r->ap);
			r->p[r->np++] = (struct pend){ o[1], o[2], o[3], o[4], o[5], false };
			match_pending(sm, rank);
			break;
		case SK_WAIT: {
			match_pending(sm, rank);
			/* blocked while one it completes has no message yet */
			for (int64_t j = 0; j < o[1]; j++)
				for (size_t k = r->np; k-- > 0;)
					if (r->p[k].req == o[2 + j]) {
						if (!r->p[k].matched)
							return moved;
						break;
					}
			/* done: the latest pending receive of each request goes */
			for (int64_t j = 0; j < o[1]; j++)
				for (size_t k = r->np; k-- > 0;)
					if (r->p[k].req == o[2 + j]) {
						memmove(&r->p[k], &r->p[k + 1], (r->np - k - 1) * sizeof(*r->p));
						r->np--;
						break;
					}
			break;
		}
		case SK_COLL:
			if (!r->in_coll) {
				if (r->colls == sm->nentered) {
					TC_ALLOC_GROW(sm->entered, sm->nentered + 1, sm->aentered);
					sm->entered[sm->nentered++] = 0;
				}
				sm->entered[r->colls++]++;
				r->in_coll = true;
			}
			if (sm->entered[r->colls - 1] < sm->world)
				return moved;
			r->in_coll = false;
			break;
		default:
			return moved;   /* not a skeleton: never */
		}
		r->pc += len;
		moved = true;
	}
	return moved;
}

/* Free the simulation's ranks and counts. */
static void sim_free(struct sim *sm)
{
	if (sm->r)
		for (int32_t i = 0; i < sm->world; i++) {
			free(sm->r[i].q);
			free(sm->r[i].p);
		}
	free(sm->r);
	free(sm->seen);
	free(sm->entered);
	sm->r = NULL;
	sm->seen = NULL;
	sm->entered = NULL;
	sm->nentered = sm->aentered = 0;
}

/* Empty the simulation's ranks and findings for a run. */
static void sim_reset(struct sim *sm)
{
	sim_free(sm);
	sm->r = tc_xcalloc((size_t)sm->world, sizeof(*sm->r));
	sm->seen = tc_xcalloc((size_t)sm->world, sizeof(*sm->seen));
	sm->stamp = 0;
	sm->nfound = 0;
}

/* Run the ranks' skeletons (w, of count words each at displ); false when
 * they block before their ends (*stuck: the lowest rank that does). */
static bool simulate(struct sim *sm, const int64_t *w, const int *count, const int *displ,
		     int32_t *stuck)
{
	bool moved, done;

	sm->loose = false;
	for (int32_t i = 0; i < sm->world; i++) {
		sm->r[i].w = w + displ[i];
		sm->r[i].n = (size_t)count[i];
	}
	/* a wildcard waits for a message of its size while the ranks move;
	 * when none does, the wildcards met in one round take messages that
	 * fit (each its first, in the order posted), and the ranks go on as
	 * before */
	for (;;) {
		moved = false;
		done = true;
		for (int32_t i = 0; i < sm->world; i++) {
			moved |= advance(sm, i);
			done &= sm->r[i].pc >= sm->r[i].n;
		}
		if (done || (!moved && sm->loose))
			break;
		sm->loose = !moved;
	}
	*stuck = -1;
	for (int32_t i = 0; i < sm->world && *stuck < 0; i++)
		if (sm->r[i].pc < sm->r[i].n)
			*stuck = i;
	return done;
}

/* ---- the whole ------------------------------------------------------------------- */

void tc_replay_infer_wildcards(struct tc_replay_mpi *s)
{
	const struct tc_revents *e = s->evs;
	struct skel k = { NULL, 0, 0 };
	/* this rank's and every rank's: wildcards to infer, ranks that say
	 * why none can be */
	uint64_t mine2[2] = { 0, 0 }, all2[2] = { 0, 0 };
	size_t bad = SIZE_MAX;
	int64_t *all = NULL, *mine = NULL;
	int *count = NULL, *displ = NULL, n, nmine = 0, ok = 1, first;
	char why[600] = "";

	if (may_be_unnamed(s))
		skeleton(s, NULL, &mine2[0], &bad);
	if (bad != SIZE_MAX) {
		char ev[256];
		tc_rp_event_text(&e->ev[bad], bad, ev, sizeof(ev));
		snprintf(why, sizeof(why), "rank %" PRId32 " %s: a wildcard whose message the "
			 "simulation cannot follow", s->rank, ev);
	}
	mine2[1] = *why != '\0';
	PMPI_Allreduce(mine2, all2, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	/* every wildcard named (a rank that says why has one unnamed) */
	if (!all2[0])
		return;
	if (all2[1])
		goto out;

	/* every skeleton to the first rank, which runs them */
	skeleton(s, &k, &mine2[0], &bad);
	n = k.n > INT32_MAX ? -1 : (int)k.n;
	if (s->rank == 0) {
		count = tc_xmalloc(tc_st_mult((size_t)s->world, sizeof(*count)));
		displ = tc_xmalloc(tc_st_mult((size_t)s->world, sizeof(*displ)));
	}
	PMPI_Gather(&n, 1, MPI_INT, count, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (s->rank == 0) {
		size_t total = 0;
		for (int32_t i = 0; i < s->world; i++) {
			displ[i] = (int)total;
			total += count[i] < 0 ? (size_t)INT32_MAX + 1 : (size_t)count[i];
			if (total > INT32_MAX)
				ok = 0;
		}
		if (ok)
			all = tc_xmalloc(tc_st_mult(total + 1, sizeof(*all)));
		else
			snprintf(why, sizeof(why), "the ranks have too many messages");
	}
	PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!ok)
		goto out;
	PMPI_Gatherv(k.w, n, MPI_INT64_T, all, count, displ, MPI_INT64_T, 0, MPI_COMM_WORLD);

	/* the sources found, each rank's to it */
	{
		int *scount = NULL, *sdispl = NULL;
		int64_t *sorted = NULL;
		if (s->rank == 0) {
			struct sim sm = { .world = s->world };
			int32_t stuck;
			int *fill;
			size_t at;
			/* blocking sends synchronous, else (a program that counts
			 * on MPI to buffer them) buffered */
			for (int pass = 0; pass < 2; pass++) {
				sim_reset(&sm);
				sm.sync = pass == 0;
				if (simulate(&sm, all, count, displ, &stuck))
					break;
				if (pass == 1) {
					snprintf(why, sizeof(why), "the ranks' messages, run in order, "
						 "leave rank %" PRId32 " blocked", stuck);
					sm.nfound = 0;
				}
			}
			scount = tc_xcalloc((size_t)s->world, sizeof(*scount));
			sdispl = tc_xcalloc((size_t)s->world, sizeof(*sdispl));
			for (size_t j = 0; j < sm.nfound; j += 3)
				scount[sm.found[j]] += 2;
			for (int32_t i = 1; i < s->world; i++)
				sdispl[i] = sdispl[i - 1] + scount[i - 1];
			sorted = tc_xmalloc(tc_st_mult(sm.nfound + 1, sizeof(*sorted)));
			fill = tc_xmalloc(tc_st_mult((size_t)s->world, sizeof(*fill)));
			memcpy(fill, sdispl, (size_t)s->world * sizeof(*fill));
			for (size_t j = 0; j < sm.nfound; j += 3) {
				at = (size_t)fill[sm.found[j]];
				sorted[at] = sm.found[j + 1];
				sorted[at + 1] = sm.found[j + 2];
				fill[sm.found[j]] += 2;
			}
			free(fill);
			sim_free(&sm);
			free(sm.found);
		}
		PMPI_Scatter(scount, 1, MPI_INT, &nmine, 1, MPI_INT, 0, MPI_COMM_WORLD);
		mine = tc_xmalloc(tc_st_mult((size_t)nmine + 1, sizeof(*mine)));
		PMPI_Scatterv(sorted, scount, sdispl, MPI_INT64_T, mine, nmine, MPI_INT64_T, 0,
			      MPI_COMM_WORLD);
		free(scount);
		free(sdispl);
		free(sorted);
	}
	for (int j = 0; j + 1 < nmine; j += 2) {
		size_t at = (size_t)mine[j];
		if (at < e->n && mine[j + 1] >= 0 && mine[j + 1] < s->world) {
			s->src[at] = (int32_t)mine[j + 1];
			s->wild_inferred++;
		}
	}
out:
	s->wild_unnamed = mine2[0] - s->wild_inferred;
	/* the lowest rank that knows why the wildcards stay says it */
	first = tc_rp_lowest(s, *why != '\0');
	if (first == s->rank && !s->o->quiet)
		fprintf(stderr, "tracecluster-replay: warning: the sources of wildcard receives "
			"the trace does not name cannot be inferred (%s): posted as "
			"MPI_ANY_SOURCE, they may take other messages than in the trace\n", why);
	free(k.w);
	free(all);
	free(mine);
	free(count);
	free(displ);
}
