/*
 * colls.c - whether the ranks' collectives on MPI_COMM_WORLD agree,
 * checked before the replay.
 *
 * Every rank of a communicator calls its collectives in the same order,
 * the same operation with the same root, and the data they move agree:
 * as many bytes per rank of a uniform collective (MPI_Bcast's count, each
 * rank's share of MPI_Gather), the same receive vector of
 * MPI_Reduce_scatter, and of a v-collective each rank's bytes to another
 * what that one receives from it. An exact trace agrees by construction;
 * a clustered one whose members took their lead's parameters need not (a
 * member with its lead's MPI_Alltoallv vectors), and its replay would
 * stop with a truncated message or wait for data that never comes. The
 * check covers MPI_COMM_WORLD, whose ranks are world ranks everywhere
 * (other communicators are made during the replay):
 *
 * 1. the k-th collective on the world of every rank, hashed (operation,
 *    root, and a uniform collective's bytes), compared over the ranks
 *    with one minimum and one maximum reduction (in chunks); the first
 *    k that differs is named with both ranks' events;
 * 2. the bytes each rank's v-collectives on the world send to each
 *    other rank and receive from it, summed, exchanged (one
 *    MPI_Alltoall), compared pair by pair; the first pair that differs
 *    is compared collective by collective to name the call.
 *
 * Bytes are counts times the event's element size, as the replay issues
 * them (one type for both sides of a call).
 */
#include "lib/compat.h"
#include "cmd/mpi/internal.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* entries of the per-collective reductions at once */
#define CHUNK 65536

enum vkind { V_NONE, V_GATHER, V_SCATTER, V_ALLGATHER, V_ALLTOALL };

/* The v-collective family of op (any of its blocking, nonblocking and
 * persistent forms), V_NONE for any other. */
static enum vkind vkind(unsigned op)
{
	switch (tc_op_base(op)) {
	case TC_OP_GATHERV:
	case TC_OP_IGATHERV:
		return V_GATHER;
	case TC_OP_SCATTERV:
	case TC_OP_ISCATTERV:
		return V_SCATTER;
	case TC_OP_ALLGATHERV:
	case TC_OP_IALLGATHERV:
		return V_ALLGATHER;
	case TC_OP_ALLTOALLV:
	case TC_OP_IALLTOALLV:
	case TC_OP_ALLTOALLW:
	case TC_OP_IALLTOALLW:
		return V_ALLTOALL;
	default:
		return V_NONE;
	}
}

/* Whether ev is a collective on the world that the check follows. */
static bool world_coll(const struct tc_event *ev)
{
	return tc_op_kind(ev->op) == TC_K_COLL && !(tc_op_flags(ev->op) & TC_OPF_NEIGH) &&
	       ((ev->fields & TC_F_COMM) ? ev->comm : TC_COMM_WORLD) == TC_COMM_WORLD;
}

static uint64_t bytes_of(const struct tc_event *ev, uint64_t count)
{
	return count * (uint64_t)ev->dtype_size;
}

/* What every rank's k-th collective on the world must have alike. */
static uint64_t coll_hash(const struct tc_event *ev)
{
	uint64_t h = tc_hash_mix(0x636f6c6cULL, ev->op);
	unsigned base = tc_op_base(ev->op);

	if (tc_op_flags(ev->op) & TC_OPF_ROOT)
		h = tc_hash_mix(h, (uint64_t)(uint32_t)ev->root);
	if (base == TC_OP_REDUCE_SCATTER || base == TC_OP_IREDUCE_SCATTER) {
		for (uint32_t j = 0; j < ev->nrcounts; j++)
			h = tc_hash_mix(h, bytes_of(ev, ev->rcounts[j]));
	} else if (!(tc_op_flags(ev->op) & TC_OPF_V)) {
		/* a uniform collective (as tc_rp_event_text names its bytes) */
		h = tc_hash_mix(h, bytes_of(ev, ev->count));
	}
	/* 0 and UINT64_MAX mark "none" in the reductions */
	return h == 0 || h == UINT64_MAX ? 1 : h;
}

/* The bytes the rank's v-collective ev sends to world rank p (send) or
 * receives from it, the rank being me and the world of size w. */
static uint64_t vbytes(const struct tc_event *ev, int32_t me, int32_t p, bool send)
{
	bool root = ev->root == me;

	switch (vkind(ev->op)) {
	case V_GATHER:
		if (send)
			return p == ev->root ? bytes_of(ev, ev->count) : 0;
		return root && (uint32_t)p < ev->nrcounts ? bytes_of(ev, ev->rcounts[p]) : 0;
	case V_SCATTER:
		if (!send)
			return p == ev->root ? bytes_of(ev, ev->count) : 0;
		return root && (uint32_t)p < ev->nscounts ? bytes_of(ev, ev->scounts[p]) : 0;
	case V_ALLGATHER:
		if (send)
			return bytes_of(ev, ev->count);
		return (uint32_t)p < ev->nrcounts ? bytes_of(ev, ev->rcounts[p]) : 0;
	case V_ALLTOALL:
		if (send)
			return (uint32_t)p < ev->nscounts ? bytes_of(ev, ev->scounts[p]) : 0;
		return (uint32_t)p < ev->nrcounts ? bytes_of(ev, ev->rcounts[p]) : 0;
	default:
		return 0;
	}
}

/* The English suffix of the ordinal n ("st" for 1, "th" for 11). */
static const char *ordinal(uint64_t n)
{
	if (n % 100 >= 11 && n % 100 <= 13)
		return "th";
	return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* The index of the rank's k-th (from 0) collective on the world. */
static size_t kth_coll(const struct tc_revents *e, uint64_t k)
{
	for (size_t i = 0; i < e->n; i++)
		if (world_coll(&e->ev[i]) && k-- == 0)
			return i;
	return 0;
}

/*
 * Step 1: the sequences. Returns whether they agree; when not, msg is
 * written at the rank that reports (*reporter, the same on every rank).
 */
static bool same_sequence(const struct tc_replay_mpi *s, char *msg, size_t len, int *reporter)
{
	const struct tc_revents *e = s->evs;
	uint64_t n = 0, nmin, nmax, *h, *lo, *hi;
	uint64_t first = UINT64_MAX, at = 0;
	size_t k = 0;
	int a = 0, b = 0;

	for (size_t i = 0; i < e->n; i++)
		n += world_coll(&e->ev[i]);
	PMPI_Allreduce(&n, &nmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
	PMPI_Allreduce(&n, &nmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	h = tc_xmalloc(tc_st_mult(CHUNK, sizeof(*h)));
	lo = tc_xmalloc(tc_st_mult(CHUNK, sizeof(*lo)));
	hi = tc_xmalloc(tc_st_mult(CHUNK, sizeof(*hi)));
	/* the first of the common prefix that differs, chunk by chunk */
	for (size_t i = 0; at < nmin && first == UINT64_MAX;) {
		int m = (int)(nmin - at < CHUNK ? nmin - at : CHUNK);
		for (k = 0; k < (size_t)m; i++)
			if (world_coll(&e->ev[i]))
				h[k++] = coll_hash(&e->ev[i]);
		PMPI_Allreduce(h, lo, m, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
		PMPI_Allreduce(h, hi, m, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
		for (int j = 0; j < m && first == UINT64_MAX; j++)
			if (lo[j] != hi[j])
				first = at + (uint64_t)j;
		if (first != UINT64_MAX) {
			uint64_t j = first - at;
			a = tc_rp_lowest(s, h[j] == lo[j]);
			b = tc_rp_lowest(s, h[j] == hi[j]);
		}
		at += (uint64_t)m;
	}
	if (first == UINT64_MAX && nmin == nmax) {
		free(h);
		free(lo);
		free(hi);
		return true;
	}
	if (first == UINT64_MAX) {
		/* a common prefix, then one rank calls more */
		a = tc_rp_lowest(s, n == nmin);
		b = tc_rp_lowest(s, n == nmax);
		first = nmin;
	}
	*reporter = a;
	/* b tells a its event; a writes the line */
	if (s->rank == b || s->rank == a) {
		char mine[256];
		snprintf(mine, sizeof(mine), "calls no more (%" PRIu64 " in all)", n);
		if (first < n)
			tc_rp_event_text(&e->ev[kth_coll(e, first)], kth_coll(e, first), mine,
					 sizeof(mine));
		if (s->rank == b && b != a)
			PMPI_Send(mine, (int)sizeof(mine), MPI_CHAR, a, 3, MPI_COMM_WORLD);
		if (s->rank == a) {
			char other[256];
			if (b != a) {
				PMPI_Recv(other, (int)sizeof(other), MPI_CHAR, b, 3, MPI_COMM_WORLD,
					  MPI_STATUS_IGNORE);
				other[sizeof(other) - 1] = '\0';
			} else {
				snprintf(other, sizeof(other), "%s", mine);
			}
			snprintf(msg, len, "the ranks' collectives on MPI_COMM_WORLD disagree at the "
				 "%" PRIu64 "%s: rank %d %s, rank %d %s", first + 1, ordinal(first + 1),
				 a < b ? a : b, a < b ? mine : other, a < b ? b : a,
				 a < b ? other : mine);
		}
	}
	free(h);
	free(lo);
	free(hi);
	return false;
}

/*
 * Step 2, the first pair (src, dst) whose v-collective bytes differ:
 * compared collective by collective at dst, which writes msg.
 */
static void name_vcoll(const struct tc_replay_mpi *s, int src, int dst, char *msg, size_t len)
{
	const struct tc_revents *e = s->evs;
	/* per v-collective: its number among the world's collectives, its
	 * event, the bytes from the other rank (dst) or to it (src) */
	int64_t *v = NULL, *w = NULL;
	size_t nv = 0, av = 0, nw = 0;
	uint64_t k = 0;
	int cnt;

	for (size_t i = 0; i < e->n; i++) {
		const struct tc_event *ev = &e->ev[i];
		if (!world_coll(ev))
			continue;
		if (vkind(ev->op) != V_NONE) {
			TC_ALLOC_GROW(v, 3 * (nv + 1), av);
			v[3 * nv] = (int64_t)k;
			v[3 * nv + 1] = (int64_t)i;
			v[3 * nv++ + 2] = (int64_t)(s->rank == dst ?
				vbytes(ev, s->rank, src, false) : vbytes(ev, s->rank, dst, true));
		}
		k++;
	}
	if (s->rank == src && src != dst) {
		PMPI_Send(v, (int)(3 * nv), MPI_INT64_T, dst, 4, MPI_COMM_WORLD);
		free(v);
		return;
	}
	if (src != dst) {
		w = tc_rp_recv_i64(src, 4, &cnt);
		nw = (size_t)cnt / 3;
	} else {
		/* to itself: the send side of the same calls */
		w = tc_xmalloc(tc_st_mult(3 * nv + 1, sizeof(*w)));
		for (size_t j = 0; j < nv; j++) {
			w[3 * j] = v[3 * j];
			w[3 * j + 1] = v[3 * j + 1];
			w[3 * j + 2] = (int64_t)vbytes(&e->ev[v[3 * j + 1]], s->rank, dst, true);
		}
		nw = nv;
	}
	/* the sequences agree (step 1): the same v-collectives in order */
	for (size_t j = 0; j < nv && j < nw; j++) {
		if (w[3 * j + 2] == v[3 * j + 2])
			continue;
		const char *op = tc_op_name(e->ev[v[3 * j + 1]].op);
		snprintf(msg, len, "the ranks' v-collectives on MPI_COMM_WORLD disagree: at the %"
			 PRId64 "%s collective, %s, rank %d (event %" PRId64 ") sends %" PRId64
			 " bytes to rank %d (event %" PRId64 "), which receives %" PRId64, v[3 * j] + 1,
			 ordinal((uint64_t)v[3 * j] + 1), op ? op : "?", src, w[3 * j + 1],
			 w[3 * j + 2], dst, v[3 * j + 1], v[3 * j + 2]);
		break;
	}
	if (!*msg) {
		/* per call alike, in sum not: cannot happen with agreeing
		 * sequences, said as it is all the same */
		int64_t sent = 0, got = 0;
		for (size_t j = 0; j < nw; j++)
			sent += w[3 * j + 2];
		for (size_t j = 0; j < nv; j++)
			got += v[3 * j + 2];
		snprintf(msg, len, "the ranks' v-collectives on MPI_COMM_WORLD disagree: rank %d "
			 "sends %" PRId64 " bytes to rank %d, which receives %" PRId64, src, sent, dst,
			 got);
	}
	free(v);
	free(w);
}

bool tc_replay_colls_check(const struct tc_replay_mpi *s, bool force)
{
	const struct tc_revents *e = s->evs;
	size_t w = (size_t)s->world;
	uint64_t *mine, *theirs;
	char msg[800] = "";
	int reporter = s->world, pair[2] = { -1, -1 }, first;

	if (!same_sequence(s, msg, sizeof(msg), &reporter)) {
		tc_replay_disagree(s, force, reporter, msg);
		return false;
	}
	/* mine[2p]: v-collective bytes to p, mine[2p+1]: from p */
	mine = tc_xcalloc(2 * w, sizeof(*mine));
	theirs = tc_xcalloc(2 * w, sizeof(*theirs));
	for (size_t i = 0; i < e->n; i++) {
		const struct tc_event *ev = &e->ev[i];
		if (!world_coll(ev) || vkind(ev->op) == V_NONE)
			continue;
		for (size_t p = 0; p < w; p++) {
			mine[2 * p] += vbytes(ev, s->rank, (int32_t)p, true);
			mine[2 * p + 1] += vbytes(ev, s->rank, (int32_t)p, false);
		}
	}
	PMPI_Alltoall(mine, 2, MPI_UINT64_T, theirs, 2, MPI_UINT64_T, MPI_COMM_WORLD);
	/* this rank's bytes to p against p's from it */
	for (size_t p = 0; p < w && pair[0] < 0; p++) {
		if (mine[2 * p] != theirs[2 * p + 1]) {
			pair[0] = s->rank;
			pair[1] = (int)p;
		}
	}
	free(mine);
	free(theirs);
	first = tc_rp_lowest(s, pair[0] >= 0);
	if (first == s->world)
		return true;
	PMPI_Bcast(pair, 2, MPI_INT, first, MPI_COMM_WORLD);
	if (s->rank == pair[0] || s->rank == pair[1])
		name_vcoll(s, pair[0], pair[1], msg, sizeof(msg));
	tc_replay_disagree(s, force, pair[1], msg);
	return false;
}
