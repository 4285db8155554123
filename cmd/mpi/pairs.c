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
 * the trace. A receive whose match the trace does not name counts for
 * any sender: its rank's totals are compared, not the pairs. Persistent
 * requests (sent once per start) and cancelled ones (sent or not, as it
 * happened) make a rank's counts uncertain: pairs with that rank are not
 * judged. Messages with processes outside the world (spawned or connected
 * ones) are not counted.
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

/* The world rank ev sends to (its send side), or -1. */
static int32_t send_peer(const struct tc_event *ev)
{
	unsigned k = tc_op_kind(ev->op);

	if ((k == TC_K_SEND || k == TC_K_SENDRECV) && (ev->fields & TC_F_PEER) && ev->peer >= 0)
		return ev->peer;
	return -1;
}

/* The world rank event i receives from (receive side): -1 when it
 * receives nothing from the world (none, MPI_PROC_NULL, outside), -2 for
 * a wildcard receive whose match the trace does not name. */
static int32_t recv_peer(const struct tc_replay_mpi *s, size_t i)
{
	const struct tc_event *ev = &s->evs->ev[i];
	unsigned k = tc_op_kind(ev->op);
	int32_t p;

	if (k == TC_K_RECV && (ev->fields & TC_F_PEER))
		p = ev->peer;
	else if (k == TC_K_SENDRECV && (ev->fields & TC_F_RPEER))
		p = ev->rpeer;
	else
		return -1;
	if (p == TC_ANY_SOURCE)
		return s->src[i] >= 0 ? s->src[i] : -2;
	return p >= 0 ? p : -1;
}

/* Whether the rank's counts are uncertain (see the head comment). */
static bool uncertain(const struct tc_event *ev)
{
	return tc_op_kind(ev->op) == TC_K_PERSIST || ev->op == TC_OP_CANCEL;
}

/* The tag a send or receive carries (a sendrecv's receive side its rtag). */
static int32_t msg_tag(const struct tc_event *ev, bool send)
{
	return !send && tc_op_kind(ev->op) == TC_K_SENDRECV ? ev->rtag : ev->tag;
}

/* Whether event i sends to peer (send) or receives from it. */
static bool with_peer(const struct tc_replay_mpi *s, size_t i, int32_t peer, bool send)
{
	return (send ? send_peer(&s->evs->ev[i]) : recv_peer(s, i)) == peer;
}

/* The index of the n-th (from 0) event of the rank that sends to peer
 * (send) or receives from it, of any tag (all) or of tag. */
static size_t nth_event(const struct tc_replay_mpi *s, int32_t peer, bool send, bool all,
			int32_t tag, uint64_t n)
{
	for (size_t i = 0; i < s->evs->n; i++) {
		if (with_peer(s, i, peer, send) && (all || msg_tag(&s->evs->ev[i], send) == tag) &&
		    n-- == 0)
			return i;
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The tags of the rank's sends to peer (send) or receives from it, as
 * pairs (tag, how many) sorted by tag, in a new array of *n pairs; *any:
 * some are receives of any tag.
 */
static int64_t *tag_counts(const struct tc_replay_mpi *s, int32_t peer, bool send, int *n,
			   bool *any)
{
	int64_t *t = NULL, *out;
	size_t nt = 0, at = 0, k = 0;

	*any = false;
	for (size_t i = 0; i < s->evs->n; i++) {
		if (!with_peer(s, i, peer, send))
			continue;
		if (!send && msg_tag(&s->evs->ev[i], false) == TC_ANY_TAG)
			*any = true;
		TC_ALLOC_GROW(t, nt + 1, at);
		t[nt++] = msg_tag(&s->evs->ev[i], send);
	}
	if (nt)
		qsort(t, nt, sizeof(*t), cmp_i64);
	out = tc_xmalloc(tc_st_mult(2 * nt + 1, sizeof(*out)));
	for (size_t i = 0; i < nt; i++) {
		if (!k || out[2 * (k - 1)] != t[i]) {
			out[2 * k] = t[i];
			out[2 * k++ + 1] = 0;
		}
		out[2 * (k - 1) + 1]++;
	}
	free(t);
	*n = (int)k;
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
	size_t at;
	const char *op;

	if (s->rank == src)
		snd = tag_counts(s, dst, true, &ns, &any);
	if (s->rank == dst) {
		rcv = tag_counts(s, src, false, &nr, &any);
		if (src != dst) {
			MPI_Status st;
			PMPI_Probe(src, 0, MPI_COMM_WORLD, &st);
			PMPI_Get_count(&st, MPI_INT64_T, &ns);
			snd = tc_xmalloc(tc_st_mult((size_t)ns + 1, sizeof(*snd)));
			PMPI_Recv(snd, ns, MPI_INT64_T, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
	at = nth_event(s, v.send ? dst : src, v.send, false, (int32_t)v.tag, (uint64_t)v.nth);
	op = tc_op_name(s->evs->ev[at].op);
	if (v.send)
		snprintf(msg, len, "rank %" PRId32 " sends %" PRId64 " message%s of tag %" PRId64
			 " to rank %" PRId32 ", which receives %" PRId64 " of them; the first "
			 "unreceived: rank %" PRId32 " event %zu (%s, comm %" PRIu32 ")", src, v.n,
			 v.n == 1 ? "" : "s", v.tag, dst, v.other, s->rank, at, op ? op : "?",
			 s->evs->ev[at].comm);
	else
		snprintf(msg, len, "rank %" PRId32 " receives %" PRId64 " message%s of tag %" PRId64
			 " from rank %" PRId32 ", which sends %" PRId64 " of them; the first "
			 "unsent: rank %" PRId32 " event %zu (%s, comm %" PRIu32 ")", dst, v.n,
			 v.n == 1 ? "" : "s", v.tag, src, v.other, s->rank, at, op ? op : "?",
			 s->evs->ev[at].comm);
	return true;
}

static void describe(const struct tc_replay_mpi *s, size_t i, char *out, size_t len)
{
	const struct tc_event *ev = &s->evs->ev[i];
	const char *op = tc_op_name(ev->op);

	snprintf(out, len, "rank %" PRId32 " event %zu (%s, comm %" PRIu32 ", tag %" PRId32 ")",
		 s->rank, i, op ? op : "?", ev->comm, ev->tag);
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
	char msg[512] = "", where[160], line[600];
	int bad_rank, first, pair[2] = { -1, -1 };
	bool judge_total = true;

	for (size_t i = 0; i < s->evs->n; i++) {
		const struct tc_event *ev = &s->evs->ev[i];
		int32_t p = send_peer(ev);
		if (p >= 0 && p < s->world)
			mine[2 * (size_t)p]++;
		p = recv_peer(s, i);
		if (p >= 0 && p < s->world)
			mine[2 * (size_t)p + 1]++;
		else if (p == -2)
			me[0]++;
		if (uncertain(ev))
			me[1] = 1;
	}
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
	bad_rank = *msg ? s->rank : s->world;
	PMPI_Allreduce(&bad_rank, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first < s->world) {
		/* the pair's messages tag by tag, where they are; one rank
		 * reports: the one that named the message, else the first */
		int namer = s->world, printer;
		PMPI_Bcast(pair, 2, MPI_INT, first, MPI_COMM_WORLD);
		if (pair[0] >= 0 && (s->rank == pair[0] || s->rank == pair[1]) &&
		    name_by_tag(s, pair[0], pair[1], msg, sizeof(msg)))
			namer = s->rank;
		PMPI_Allreduce(MPI_IN_PLACE, &namer, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
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
