/*
 * pairs.c - whether a trace's point-to-point messages pair up, checked
 * before the replay.
 *
 * A replay re-executes each rank's sends and receives; when the trace has
 * more sends from one rank to another than receives of them (or fewer),
 * the replay blocks or ends with messages in flight. An exact trace pairs
 * up by construction; a clustered one whose ranks took their lead's
 * parameters (compress --lead-only, the papers' merge, the in-job
 * clustering) need not: a lead at the edge of a non-periodic grid gives
 * its members MPI_PROC_NULL where they had neighbours. The check counts
 * each rank's messages per peer (world ranks), exchanges the counts
 * (one MPI_Alltoall, one MPI_Allgather) and names the first message
 * without a partner, before anything is replayed.
 *
 * Counted: sends (blocking or not, sendrecv's send side) to a world rank
 * and receives from one, a wildcard receive by the source it matched in
 * the trace, and each start of a persistent request (partitioned ones
 * too) as its init says. A receive whose match the trace does not name
 * counts for any sender: its rank's totals are compared, not the pairs.
 * Cancelled requests (sent or not, as it happened) make a rank's counts
 * uncertain: pairs with that rank are not judged. Messages with processes
 * outside the world (spawned or connected ones) are not counted.
 *
 * The first rank with a message without partner names it: the pair's
 * messages are then compared tag by tag (messages of one tag between two
 * ranks match in order, MPI's non-overtaking rule), and the first send
 * or receive of a tag that has more of them than the other side is named
 * with its rank and event index.
 */
#include "lib/compat.h"
#include "cmd/mpi/internal.h"
#include "lib/event.h"
#include "lib/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One end of a message an event issues. */
struct msg_end {
	int32_t peer;            /* world rank; -2: a receive whose source the
				  * trace does not name */
	int32_t tag;
	bool send;
};

typedef void (*end_fn)(void *arg, size_t i, const struct msg_end *m);

/* A persistent request's init: its id and event. */
struct pinit {
	uint64_t id;
	size_t at;
};

static const struct tc_event *find_init(const struct tc_revents *e, const struct pinit *v,
					size_t n, uint64_t id)
{
	for (size_t j = n; j-- > 0;)
		if (v[j].id == id)
			return &e->ev[v[j].at];
	return NULL;
}

/* The receive end of source p (src: the source the trace names for a
 * wildcard, or negative), or false when it receives from no world rank. */
static bool recv_end(int32_t p, int32_t tag, int32_t src, struct msg_end *m)
{
	if (p == TC_ANY_SOURCE)
		p = src >= 0 ? src : -2;
	else if (p < 0)
		return false;
	*m = (struct msg_end){ p, tag, false };
	return true;
}

/* The end a persistent request's start issues (src as for recv_end). */
static bool start_end(const struct tc_event *init, int32_t src, struct msg_end *m)
{
	if (init->op == TC_OP_RECV_INIT || init->op == TC_OP_PRECV_INIT)
		return recv_end(init->peer, init->tag, src, m);
	if (init->peer < 0)
		return false;
	*m = (struct msg_end){ init->peer, init->tag, true };
	return true;
}

/*
 * Call fn for every message end of the rank's events, in order: sends
 * (blocking or not, a sendrecv's send side) to a world rank, receives
 * from one, and each start of a persistent request as its init says.
 * *cancel (when not NULL): the rank cancels a request.
 */
static void walk_ends(const struct tc_replay_mpi *s, end_fn fn, void *arg, bool *cancel)
{
	const struct tc_revents *e = s->evs;
	struct pinit *inits = NULL;
	size_t ninits = 0, ainits = 0;
	struct msg_end m;

	if (cancel)
		*cancel = false;
	for (size_t i = 0; i < e->n; i++) {
		const struct tc_event *ev = &e->ev[i], *init;
		unsigned k = tc_op_kind(ev->op);
		if ((k == TC_K_SEND || k == TC_K_SENDRECV) && (ev->fields & TC_F_PEER) &&
		    ev->peer >= 0)
			fn(arg, i, &(struct msg_end){ ev->peer, ev->tag, true });
		if (k == TC_K_RECV && (ev->fields & TC_F_PEER) &&
		    recv_end(ev->peer, ev->tag, s->src[i], &m))
			fn(arg, i, &m);
		if (k == TC_K_SENDRECV && (ev->fields & TC_F_RPEER) &&
		    recv_end(ev->rpeer, ev->rtag, s->src[i], &m))
			fn(arg, i, &m);
		if (k == TC_K_PERSIST && (ev->fields & TC_F_REQUEST)) {
			TC_ALLOC_GROW(inits, ninits + 1, ainits);
			inits[ninits++] = (struct pinit){ ev->request, i };
		}
		if (ev->op == TC_OP_START && (ev->fields & TC_F_REQUEST) &&
		    (init = find_init(e, inits, ninits, ev->request)) && start_end(init, s->src[i], &m))
			fn(arg, i, &m);
		if (ev->op == TC_OP_STARTALL) {
			for (uint32_t j = 0; j < ev->ncompl; j++)
				if ((init = find_init(e, inits, ninits, ev->compl[j].request)) &&
				    start_end(init, -1, &m))
					fn(arg, i, &m);
		}
		if (ev->op == TC_OP_CANCEL && cancel)
			*cancel = true;
	}
	free(inits);
}

/* Finding the n-th end (from 0) to or from a peer, of a tag or any. */
struct nth {
	int32_t peer, tag;
	bool send, all;
	uint64_t n;
	size_t at;
};

static void nth_fn(void *arg, size_t i, const struct msg_end *m)
{
	struct nth *q = arg;

	if (m->peer == q->peer && m->send == q->send && (q->all || m->tag == q->tag) &&
	    q->n-- == 0)
		q->at = i;
}

/* The index of the event of the n-th (from 0) end of the rank that
 * sends to peer (send) or receives from it, of any tag (all) or of tag. */
static size_t nth_event(const struct tc_replay_mpi *s, int32_t peer, bool send, bool all,
			int32_t tag, uint64_t n)
{
	struct nth q = { peer, tag, send, all, n, 0 };

	walk_ends(s, nth_fn, &q, NULL);
	return q.at;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Collecting the tags of the ends to or from a peer. */
struct tags {
	int32_t peer;
	bool send, any;
	int64_t *t;
	size_t n, alloc;
};

static void tags_fn(void *arg, size_t i, const struct msg_end *m)
{
	struct tags *q = arg;

	(void)i;
	if (m->peer != q->peer || m->send != q->send)
		return;
	if (!m->send && m->tag == TC_ANY_TAG)
		q->any = true;
	TC_ALLOC_GROW(q->t, q->n + 1, q->alloc);
	q->t[q->n++] = m->tag;
}

/*
 * The tags of the rank's sends to peer (send) or receives from it, as
 * pairs (tag, how many) sorted by tag, in a new array of *n pairs; *any:
 * some are receives of any tag.
 */
static int64_t *tag_counts(const struct tc_replay_mpi *s, int32_t peer, bool send, int *n,
			   bool *any)
{
	struct tags q = { peer, send, false, NULL, 0, 0 };
	int64_t *out;
	size_t k = 0;

	walk_ends(s, tags_fn, &q, NULL);
	if (q.n)
		qsort(q.t, q.n, sizeof(*q.t), cmp_i64);
	out = tc_xmalloc(tc_st_mult(2 * q.n + 1, sizeof(*out)));
	for (size_t i = 0; i < q.n; i++) {
		if (!k || out[2 * (k - 1)] != q.t[i]) {
			out[2 * k] = q.t[i];
			out[2 * k++ + 1] = 0;
		}
		out[2 * (k - 1) + 1]++;
	}
	free(q.t);
	*n = (int)k;
	*any = q.any;
	return out;
}

/* What the receiver of the pair found, for the sender: who names the
 * message (-1: the rank that found the pair, by counts alone), whether a
 * send, its tag and which one of that tag it is. */
struct verdict {
	int64_t who, send, tag, nth, n, other;
};

/*
 * The receiver d compares the pair's tags: the first tag with more
 * receives than sends names a receive, else the first with more sends
 * than receives (unless some receives take any tag) names a send.
 */
static struct verdict compare_tags(const int64_t *snd, int ns, const int64_t *rcv, int nr,
				   bool any, int32_t src, int32_t dst)
{
	struct verdict v = { -1, 0, 0, 0, 0, 0 };
	int i = 0, j = 0;

	for (int pass = 0; pass < 2 && v.who < 0; pass++) {
		for (i = 0, j = 0; (i < ns || j < nr) && v.who < 0;) {
			int64_t ts = i < ns ? snd[2 * i] : INT64_MAX, tr = j < nr ? rcv[2 * j] : INT64_MAX;
			int64_t cs = ts <= tr ? snd[2 * i + 1] : 0, cr = tr <= ts ? rcv[2 * j + 1] : 0;
			int64_t tag = ts <= tr ? ts : tr;
			if (pass == 0 && cr > cs && tag != TC_ANY_TAG)
				v = (struct verdict){ dst, 0, tag, cs, cr, cs };
			else if (pass == 1 && cs > cr && !any)
				v = (struct verdict){ src, 1, tag, cr, cs, cr };
			i += ts <= tr;
			j += tr <= ts;
		}
	}
	return v;
}

/* "rank R event I (...)": the rank's event i. */
static void describe(const struct tc_replay_mpi *s, size_t i, char *out, size_t len)
{
	char ev[256];

	tc_rp_event_text(&s->evs->ev[i], i, ev, sizeof(ev));
	snprintf(out, len, "rank %" PRId32 " %s", s->rank, ev);
}

/*
 * Name the first unpaired message of the pair (src, dst) in msg at the
 * rank that has it: the sender's tags go to the receiver, which compares
 * them with its own and tells the sender what it found. Collective over
 * the two ranks. Returns whether this rank wrote msg.
 */
static bool name_by_tag(const struct tc_replay_mpi *s, int32_t src, int32_t dst, char *msg,
			size_t len)
{
	int64_t *snd = NULL, *rcv = NULL;
	int ns = 0, nr = 0;
	bool any = false, mine;
	struct verdict v = { -1, 0, 0, 0, 0, 0 };
	char where[300];

	if (s->rank == src)
		snd = tag_counts(s, dst, true, &ns, &any);
	if (s->rank == dst) {
		rcv = tag_counts(s, src, false, &nr, &any);
		if (src != dst) {
			snd = tc_rp_recv_i64(src, 0, &ns);
			ns /= 2;
		}
		v = compare_tags(snd, ns, rcv, nr, any, src, dst);
		if (src != dst)
			PMPI_Send(&v, 6, MPI_INT64_T, src, 1, MPI_COMM_WORLD);
	} else if (s->rank == src) {
		PMPI_Send(snd, 2 * ns, MPI_INT64_T, dst, 0, MPI_COMM_WORLD);
		PMPI_Recv(&v, 6, MPI_INT64_T, dst, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	free(snd);
	free(rcv);
	mine = v.who == s->rank;
	if (!mine)
		return false;
	describe(s, nth_event(s, v.send ? dst : src, v.send, false, (int32_t)v.tag,
			      (uint64_t)v.nth), where, sizeof(where));
	if (v.send)
		snprintf(msg, len, "rank %" PRId32 " sends %" PRId64 " message%s of tag %" PRId64
			 " to rank %" PRId32 ", which receives %" PRId64 " of them; the first "
			 "unreceived: %s", src, v.n, v.n == 1 ? "" : "s", v.tag, dst, v.other, where);
	else
		snprintf(msg, len, "rank %" PRId32 " receives %" PRId64 " message%s of tag %" PRId64
			 " from rank %" PRId32 ", which sends %" PRId64 " of them; the first "
			 "unsent: %s", dst, v.n, v.n == 1 ? "" : "s", v.tag, src, v.other, where);
	return true;
}

/* Counting the ends per peer: counts[2p] sends to p, counts[2p+1]
 * receives from p, *wild receives of a source the trace does not name. */
struct tally {
	uint64_t *counts, wild;
	int32_t world;
};

static void tally_fn(void *arg, size_t i, const struct msg_end *m)
{
	struct tally *q = arg;

	(void)i;
	if (m->peer >= 0 && m->peer < q->world)
		q->counts[2 * (size_t)m->peer + !m->send]++;
	else if (m->peer == -2)
		q->wild++;
}

bool tc_replay_pairs_check(const struct tc_replay_mpi *s, bool force)
{
	size_t w = (size_t)s->world;
	/* mine[2p]: sends to p, mine[2p+1]: receives from p; theirs the same
	 * of p towards this rank; info: wildcard receives, uncertain */
	uint64_t *mine = tc_xcalloc(2 * w, sizeof(*mine));
	uint64_t *theirs = tc_xcalloc(2 * w, sizeof(*theirs));
	uint64_t *info = tc_xcalloc(2 * w, sizeof(*info));
	uint64_t me[2] = { 0, 0 }, sent_in = 0, recv_known = 0;
	char msg[700] = "", where[300], line[800];
	int first, pair[2] = { -1, -1 };
	bool judge_total = true, cancel;
	struct tally t = { mine, 0, s->world };

	walk_ends(s, tally_fn, &t, &cancel);
	me[0] = t.wild;
	me[1] = cancel;
	PMPI_Alltoall(mine, 2, MPI_UINT64_T, theirs, 2, MPI_UINT64_T, MPI_COMM_WORLD);
	PMPI_Allgather(me, 2, MPI_UINT64_T, info, 2, MPI_UINT64_T, MPI_COMM_WORLD);

	/* pair by pair: this rank's sends to p against p's receives from it
	 * (found here, where the sends are), its receives from p against
	 * p's sends to it when p receives nothing by wildcard */
	for (size_t p = 0; p < w && !*msg; p++) {
		uint64_t to = mine[2 * p], from = mine[2 * p + 1];
		uint64_t p_recv = theirs[2 * p + 1], p_sent = theirs[2 * p];
		if (info[2 * p + 1] || me[1]) {
			judge_total = false;
			continue;
		}
		sent_in += p_sent;
		recv_known += from;
		if (to > p_recv && !info[2 * p]) {
			describe(s, nth_event(s, (int32_t)p, true, true, 0, p_recv), where, sizeof(where));
			snprintf(msg, sizeof(msg), "rank %" PRId32 " sends %" PRIu64 " message%s to rank "
				 "%zu, which receives %" PRIu64 " from it; by count, the first "
				 "unreceived: %s", s->rank, to, to == 1 ? "" : "s", p, p_recv, where);
			pair[0] = s->rank;
			pair[1] = (int)p;
		} else if (from > p_sent) {
			describe(s, nth_event(s, (int32_t)p, false, true, 0, p_sent), where, sizeof(where));
			snprintf(msg, sizeof(msg), "rank %" PRId32 " receives %" PRIu64 " message%s from "
				 "rank %zu, which sends %" PRIu64 " to it; by count, the first unsent: %s",
				 s->rank, from, from == 1 ? "" : "s", p, p_sent, where);
			pair[0] = (int)p;
			pair[1] = s->rank;
		}
	}
	/* with wildcard receives whose matches are not named: the totals */
	if (!*msg && judge_total && me[0] && sent_in != recv_known + me[0])
		snprintf(msg, sizeof(msg), "rank %" PRId32 " receives %" PRIu64 " message%s (%" PRIu64
			 " from any source), the ranks send it %" PRIu64, s->rank, recv_known + me[0],
			 recv_known + me[0] == 1 ? "" : "s", me[0], sent_in);
	first = tc_rp_lowest(s, *msg);
	if (first < s->world) {
		/* the pair's messages tag by tag, where they are; one rank
		 * reports: the one that named the message, else the first */
		int namer, printer;
		PMPI_Bcast(pair, 2, MPI_INT, first, MPI_COMM_WORLD);
		namer = tc_rp_lowest(s, pair[0] >= 0 && (s->rank == pair[0] || s->rank == pair[1]) &&
					name_by_tag(s, pair[0], pair[1], msg, sizeof(msg)));
		printer = namer < s->world ? namer : first;
		snprintf(line, sizeof(line), "the trace's messages do not pair up: %s", msg);
		tc_replay_disagree(s, force, printer, line);
	}
	free(mine);
	free(theirs);
	free(info);
	return first == s->world;
}

void tc_replay_disagree(const struct tc_replay_mpi *s, bool force, int printer, const char *what)
{
	if (s->rank == printer && !(force && s->o->quiet))
		fprintf(stderr, "tracecluster-replay: %s%s%s\n", force ? "warning: " : "", what,
			force ? "; replayed as it is" : " (--force replays it as it is)");
}

int64_t *tc_rp_recv_i64(int src, int tag, int *n)
{
	MPI_Status st;
	int64_t *v;

	PMPI_Probe(src, tag, MPI_COMM_WORLD, &st);
	PMPI_Get_count(&st, MPI_INT64_T, n);
	v = tc_xmalloc(tc_st_mult((size_t)*n + 1, sizeof(*v)));
	PMPI_Recv(v, *n, MPI_INT64_T, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	return v;
}

int tc_rp_lowest(const struct tc_replay_mpi *s, bool mine)
{
	int r = mine ? s->rank : s->world, all;

	PMPI_Allreduce(&r, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	return all;
}

void tc_rp_event_text(const struct tc_event *ev, size_t i, char *out, size_t len)
{
	const char *op = tc_op_name(ev->op);
	size_t at = 0;

#define PUT(...)                                                              \
	do {                                                                  \
		int n_ = snprintf(out + at, len - at, __VA_ARGS__);           \
		at = n_ < 0 ? len - 1 : at + (size_t)n_ >= len ? len - 1 : at + (size_t)n_; \
	} while (0)
	if (!len)
		return;
	PUT("event %zu (%s", i, op ? op : "?");
	if (ev->fields & TC_F_COMM)
		PUT(", comm %" PRIu32, ev->comm);
	if ((ev->fields & TC_F_PEER) && (ev->peer >= 0 || !tc_peer_name(ev->peer)))
		PUT(", peer %" PRId32, ev->peer);
	else if (ev->fields & TC_F_PEER)
		PUT(", peer %s", tc_peer_name(ev->peer));
	if (ev->fields & TC_F_TAG)
		PUT(", tag %" PRId32, ev->tag);
	if (ev->fields & TC_F_ROOT)
		PUT(", root %" PRId32, ev->root);
	/* what a uniform collective moves at every rank */
	if (tc_op_kind(ev->op) == TC_K_COLL && (ev->fields & TC_F_COUNT) &&
	    !(tc_op_flags(ev->op) & TC_OPF_V))
		PUT(", %" PRIu64 " bytes", ev->count * (uint64_t)ev->dtype_size);
	PUT(")");
#undef PUT
}
