/*
 * ops.c - one rank's events re-executed as the MPI calls they record.
 *
 * Peers and roots are world ranks in the trace and become ranks of the
 * event's communicator; communicators are created by the same calls with
 * the recorded colours and keys (a Comm_create's group is gathered from
 * which ranks recorded a new communicator; a Cartesian grid's dimensions
 * come from a trace set's communicator table, else MPI_Dims_create);
 * requests are kept by the ids the trace gives them, so that each
 * completion completes the request it completed when it was recorded. A wait/test call is given the requests it completed in
 * the trace and nothing else, and a test or a waitsome/waitany/testany/
 * testsome call first waits (without completing them, MPI_Request_get_
 * status) until they are all complete, so that it completes exactly those.
 * A wildcard receive or probe names the source it matched in the trace
 * (its completion, found by a backward pass), so that matching is as
 * recorded. Data are zeros of the recorded sizes. Helper communication
 * goes through PMPI_ so that a replay traced with the capture shim
 * records the trace's calls only. MPI-4 calls are issued as their MPI-3
 * equivalents (the MPI the replay is built with may have none: Open MPI
 * 4.1). One-sided communication is in rma.c,
 * MPI-IO in io.c; what cannot be replayed is refused before the replay
 * starts (tc_replay_mpi_refusal), and a call that cannot be issued with
 * the recorded parameters is counted in skipped.
 *
 * A polling MPI_Improbe that found no message in the trace may find one
 * in the replay, which takes it off the queue. By default such a poll is
 * not issued when a message it would take is already there; one that
 * arrives between that check and the call, or any under --empty-polls
 * issue, is held (struct tc_rheld) and given to the trace's call that
 * takes it: a matched probe takes it as its message, a receive receives
 * it with MPI_Mrecv or MPI_Imrecv (a sendrecv's receive half too, its
 * send then an MPI_Isend completed after it; a persistent receive's
 * start with MPI_Imrecv in its stead); another probe that would find it
 * is not issued.
 * Held messages come first, so that messages between two ranks still
 * match in the order they were sent.
 */
#include "lib/compat.h"
#include "cmd/mpi/internal.h"
#include "lib/event.h"
#include "lib/xalloc.h"

#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- datatypes and reduction ops ------------------------------------------- */

static MPI_Datatype dtype_predefined(unsigned dt)
{
	switch (dt) {
	case TC_DT_CHAR: return MPI_CHAR;
	case TC_DT_SIGNED_CHAR: return MPI_SIGNED_CHAR;
	case TC_DT_UNSIGNED_CHAR: return MPI_UNSIGNED_CHAR;
	case TC_DT_BYTE: return MPI_BYTE;
	case TC_DT_SHORT: return MPI_SHORT;
	case TC_DT_UNSIGNED_SHORT: return MPI_UNSIGNED_SHORT;
	case TC_DT_INT: return MPI_INT;
	case TC_DT_UNSIGNED: return MPI_UNSIGNED;
	case TC_DT_LONG: return MPI_LONG;
	case TC_DT_UNSIGNED_LONG: return MPI_UNSIGNED_LONG;
	case TC_DT_LONG_LONG: return MPI_LONG_LONG;
	case TC_DT_UNSIGNED_LONG_LONG: return MPI_UNSIGNED_LONG_LONG;
	case TC_DT_FLOAT: return MPI_FLOAT;
	case TC_DT_DOUBLE: return MPI_DOUBLE;
	case TC_DT_LONG_DOUBLE: return MPI_LONG_DOUBLE;
	case TC_DT_C_BOOL: return MPI_C_BOOL;
	case TC_DT_INT8_T: return MPI_INT8_T;
	case TC_DT_INT16_T: return MPI_INT16_T;
	case TC_DT_INT32_T: return MPI_INT32_T;
	case TC_DT_INT64_T: return MPI_INT64_T;
	case TC_DT_UINT8_T: return MPI_UINT8_T;
	case TC_DT_UINT16_T: return MPI_UINT16_T;
	case TC_DT_UINT32_T: return MPI_UINT32_T;
	case TC_DT_UINT64_T: return MPI_UINT64_T;
	case TC_DT_C_COMPLEX: return MPI_C_COMPLEX;
	case TC_DT_C_DOUBLE_COMPLEX: return MPI_C_DOUBLE_COMPLEX;
	case TC_DT_WCHAR: return MPI_WCHAR;
	case TC_DT_PACKED: return MPI_PACKED;
	case TC_DT_AINT: return MPI_AINT;
	case TC_DT_OFFSET: return MPI_OFFSET;
	case TC_DT_COUNT: return MPI_COUNT;
	case TC_DT_FLOAT_INT: return MPI_FLOAT_INT;
	case TC_DT_DOUBLE_INT: return MPI_DOUBLE_INT;
	case TC_DT_LONG_INT: return MPI_LONG_INT;
	case TC_DT_TWO_INT: return MPI_2INT;
	case TC_DT_SHORT_INT: return MPI_SHORT_INT;
	case TC_DT_LONG_DOUBLE_INT: return MPI_LONG_DOUBLE_INT;
	case TC_DT_INTEGER: return MPI_INTEGER;
	case TC_DT_REAL: return MPI_REAL;
	case TC_DT_DOUBLE_PRECISION: return MPI_DOUBLE_PRECISION;
	case TC_DT_COMPLEX: return MPI_COMPLEX;
	case TC_DT_DOUBLE_COMPLEX: return MPI_DOUBLE_COMPLEX;
	case TC_DT_LOGICAL: return MPI_LOGICAL;
	case TC_DT_CHARACTER: return MPI_CHARACTER;
	case TC_DT_TWO_REAL: return MPI_2REAL;
	case TC_DT_TWO_DOUBLE_PRECISION: return MPI_2DOUBLE_PRECISION;
	case TC_DT_TWO_INTEGER: return MPI_2INTEGER;
	default: return MPI_DATATYPE_NULL;
	}
}

/* Contiguous byte types by size, made once. */
#define NBYTETYPES 64
static struct { uint32_t size; MPI_Datatype t; } bytetypes[NBYTETYPES];
static size_t nbytetypes;

/* The type of the event's elements: its own when predefined and of the
 * recorded size, else *exact = false and a contiguous type of that size. */
MPI_Datatype tc_rp_dtype(const struct tc_event *ev, bool *exact)
{
	MPI_Datatype t;
	int size = 0;

	*exact = true;
	if (!(ev->fields & TC_F_DTYPE) || ev->dtype_size == 0)
		return MPI_BYTE;
	t = dtype_predefined(ev->dtype);
	if (t != MPI_DATATYPE_NULL && PMPI_Type_size(t, &size) == MPI_SUCCESS &&
	    (uint32_t)size == ev->dtype_size)
		return t;
	*exact = false;
	if (ev->dtype_size == 1)
		return MPI_BYTE;
	for (size_t i = 0; i < nbytetypes; i++)
		if (bytetypes[i].size == ev->dtype_size)
			return bytetypes[i].t;
	PMPI_Type_contiguous((int)ev->dtype_size, MPI_BYTE, &t);
	PMPI_Type_commit(&t);
	if (nbytetypes < NBYTETYPES) {
		bytetypes[nbytetypes].size = ev->dtype_size;
		bytetypes[nbytetypes++].t = t;
	}
	return t;
}

static void noop_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)in, (void)inout, (void)len, (void)dt;
}

static MPI_Op noop_op = MPI_OP_NULL;

MPI_Op tc_rp_predef_op(unsigned redop)
{
	switch (redop) {
	case TC_RED_MAX: return MPI_MAX;
	case TC_RED_MIN: return MPI_MIN;
	case TC_RED_SUM: return MPI_SUM;
	case TC_RED_PROD: return MPI_PROD;
	case TC_RED_LAND: return MPI_LAND;
	case TC_RED_BAND: return MPI_BAND;
	case TC_RED_LOR: return MPI_LOR;
	case TC_RED_BOR: return MPI_BOR;
	case TC_RED_LXOR: return MPI_LXOR;
	case TC_RED_BXOR: return MPI_BXOR;
	case TC_RED_MAXLOC: return MPI_MAXLOC;
	case TC_RED_MINLOC: return MPI_MINLOC;
	case TC_RED_REPLACE: return MPI_REPLACE;
	case TC_RED_NO_OP: return MPI_NO_OP;
	default: return MPI_OP_NULL;
	}
}

/* The event's reduction op, or (a user op, or a type that is not the
 * recorded predefined one) an op that does nothing, valid on any type. */
static MPI_Op event_redop(const struct tc_event *ev, bool exact_type)
{
	MPI_Op op = tc_rp_predef_op(ev->redop);

	if (exact_type && op != MPI_OP_NULL && op != MPI_REPLACE && op != MPI_NO_OP)
		return op;
	if (noop_op == MPI_OP_NULL)
		PMPI_Op_create(noop_fn, 1, &noop_op);
	return noop_op;
}

/* ---- communicators ------------------------------------------------------------ */

static void comm_set(struct tc_replay_mpi *s, uint32_t id, MPI_Comm c)
{
	struct tc_rcomm *rc;
	MPI_Group wg, g;
	int32_t *wr;
	int inter = 0;

	if (id >= s->ncomms) {
		size_t n = s->ncomms ? s->ncomms : 4;
		while (n <= id)
			n *= 2;
		s->comms = tc_xrealloc(s->comms, tc_st_mult(n, sizeof(*s->comms)));
		memset(s->comms + s->ncomms, 0, (n - s->ncomms) * sizeof(*s->comms));
		s->ncomms = n;
	}
	rc = &s->comms[id];
	free(rc->w2c);
	rc->c = c;
	rc->valid = true;
	rc->w2c = tc_xmalloc(tc_st_mult((size_t)s->world, sizeof(*rc->w2c)));
	wr = tc_xmalloc(tc_st_mult((size_t)s->world, sizeof(*wr)));
	for (int32_t i = 0; i < s->world; i++)
		wr[i] = i;
	PMPI_Comm_test_inter(c, &inter);
	rc->inter = inter != 0;
	rc->topo = MPI_UNDEFINED;
	if (!rc->inter)
		PMPI_Topo_test(c, &rc->topo);
	/* the peers of an intercommunicator are ranks of its remote group */
	if (rc->inter)
		PMPI_Comm_remote_size(c, &rc->size);
	else
		PMPI_Comm_size(c, &rc->size);
	PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	if (rc->inter)
		PMPI_Comm_remote_group(c, &g);
	else
		PMPI_Comm_group(c, &g);
	PMPI_Group_translate_ranks(wg, s->world, wr, g, rc->w2c);
	for (int32_t i = 0; i < s->world; i++)
		if (rc->w2c[i] == MPI_UNDEFINED)
			rc->w2c[i] = -1;
	PMPI_Group_free(&g);
	PMPI_Group_free(&wg);
	free(wr);
}

struct tc_rcomm *tc_rp_comm_get(struct tc_replay_mpi *s, const struct tc_event *ev)
{
	uint32_t id = ev->fields & TC_F_COMM ? ev->comm : TC_COMM_WORLD;

	/* a Comm_idup'ed communicator gets its id at its first use, in the
	 * order of the calls */
	if ((id >= s->ncomms || !s->comms[id].valid) && s->nidup) {
		comm_set(s, id, s->idup[0]);
		memmove(s->idup, s->idup + 1, --s->nidup * sizeof(*s->idup));
	}
	return id < s->ncomms && s->comms[id].valid ? &s->comms[id] : NULL;
}

/* The communicator table's entry of id, or NULL (none: a global trace
 * written before it kept one). */
static const struct tc_comm *table_comm(const struct tc_replay_mpi *s, uint32_t id)
{
	for (size_t i = 0; i < s->evs->ncomms; i++)
		if (s->evs->comms[i].id == id)
			return &s->evs->comms[i];
	return NULL;
}

/* A world rank as a rank of c: MPI_PROC_NULL etc. kept; false if not a member. */
bool tc_rp_comm_rank(const struct tc_rcomm *c, int32_t w, int *out)
{
	if (w == TC_ANY_SOURCE)
		*out = MPI_ANY_SOURCE;
	else if (w == TC_PROC_NULL)
		*out = MPI_PROC_NULL;
	else if (w >= 0 && c->w2c && c->w2c[w] >= 0)
		*out = c->w2c[w];
	else
		return false;
	return true;
}

static int tag_of(int32_t t)
{
	return t == TC_ANY_TAG ? MPI_ANY_TAG : t;
}

/* ---- requests ------------------------------------------------------------------- */

struct tc_rreq *tc_rp_req_find(struct tc_replay_mpi *s, uint64_t id)
{
	for (size_t i = s->nreqs; i-- > 0;)
		if (s->reqs[i].id == id)
			return &s->reqs[i];
	return NULL;
}

struct tc_rreq *tc_rp_req_add(struct tc_replay_mpi *s, uint64_t id)
{
	struct tc_rreq *q = tc_rp_req_find(s, id);

	if (!q) {
		if (s->nreqs == s->areqs) {
			s->areqs = s->areqs ? 2 * s->areqs : 16;
			s->reqs = tc_xrealloc(s->reqs, tc_st_mult(s->areqs, sizeof(*s->reqs)));
		}
		q = &s->reqs[s->nreqs++];
	}
	memset(q, 0, sizeof(*q));
	q->id = id;
	q->h = MPI_REQUEST_NULL;
	q->m = MPI_MESSAGE_NULL;
	q->h2 = MPI_REQUEST_NULL;
	q->ph = MPI_REQUEST_NULL;
	q->done_src = TC_PEER_NONE;
	return q;
}

static void req_drop(struct tc_replay_mpi *s, struct tc_rreq *q)
{
	*q = s->reqs[--s->nreqs];
}

/* Wait until every request of v[0..n) is complete, completing none. */
static void until_complete(MPI_Request *v, int n)
{
	for (int i = 0; i < n; i++) {
		int flag = 0;
		while (v[i] != MPI_REQUEST_NULL &&
		       PMPI_Request_get_status(v[i], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag)
			;
	}
}

/* ---- the backward pass: what each wildcard receive matched ----------------------- */

struct pend {
	uint64_t id;
	int32_t src;
};

static void find_sources(struct tc_replay_mpi *s)
{
	const struct tc_revents *e = s->evs;
	struct pend *p = NULL;
	size_t np = 0, ap = 0;

	s->src = tc_xmalloc(tc_st_mult(e->n ? e->n : 1, sizeof(*s->src)));
	for (size_t i = e->n; i-- > 0;) {
		const struct tc_event *ev = &e->ev[i];
		unsigned k = tc_op_kind(ev->op);
		s->src[i] = TC_PEER_NONE;
		if (k == TC_K_WAIT && ev->op != TC_OP_CANCEL && ev->op != TC_OP_REQUEST_FREE) {
			for (uint32_t j = 0; j < ev->ncompl; j++) {
				if (!ev->compl[j].request)
					continue;
				if (np == ap) {
					ap = ap ? 2 * ap : 16;
					p = tc_xrealloc(p, tc_st_mult(ap, sizeof(*p)));
				}
				p[np].id = ev->compl[j].request;
				p[np++].src = ev->compl[j].source;
			}
			continue;
		}
		if ((ev->fields & TC_F_REQUEST) && (ev->op == TC_OP_IRECV || ev->op == TC_OP_IMRECV ||
						    ev->op == TC_OP_ISEND || ev->op == TC_OP_START ||
						    ev->op == TC_OP_ISENDRECV ||
						    ev->op == TC_OP_ISENDRECV_REPLACE ||
						    tc_op_kind(ev->op) == TC_K_SEND)) {
			/* the latest pending entry of the id is its next completion */
			for (size_t j = np; j-- > 0;) {
				if (p[j].id != ev->request)
					continue;
				s->src[i] = p[j].src;
				p[j] = p[--np];
				break;
			}
			continue;
		}
		if ((ev->op == TC_OP_RECV || k == TC_K_PROBE || k == TC_K_SENDRECV) && ev->ncompl)
			s->src[i] = ev->compl[0].source;
	}
	free(p);
}

/* ---- the remote leaders of MPI_Intercomm_create_from_groups --------------------- */

/* The k-th group of a rank's list ([n, members...] each), or NULL. */
static const int *nth_group(const int *v, int len, size_t k)
{
	int at = 0;

	for (; at < len; at += 1 + v[at])
		if (!k--)
			return v + at;
	return NULL;
}

static bool disjoint(const int *a, const int *b)
{
	for (int x = 1; x <= a[0]; x++)
		for (int y = 1; y <= b[0]; y++)
			if (a[x] == b[y])
				return false;
	return true;
}

/*
 * MPI-3 names the remote leader of an intercommunicator by its rank in a
 * peer communicator, the trace by its rank in the remote group, which
 * only the other side recorded: each rank's local groups (its
 * communicator table's members of each new intercommunicator, in the
 * order of the calls) are exchanged, and the remote group of a rank's
 * k-th call is the group of another rank's k-th call that shares no rank
 * with its own. s->src[i] of the call gets the remote leader's world
 * rank (TC_PEER_NONE: not found). Collective over the world.
 */
static void remote_leaders(struct tc_replay_mpi *s)
{
	const struct tc_revents *e = s->evs;
	int *mine = NULL, *all = NULL, *counts, *displs, n = 0, total = 0;
	size_t k = 0;

	for (size_t i = 0; i < e->n; i++) {
		const struct tc_event *ev = &e->ev[i];
		const struct tc_comm *t;
		if (ev->op != TC_OP_INTERCOMM_CREATE_FROM_GROUPS)
			continue;
		t = ev->fields & TC_F_NEWCOMM ? table_comm(s, ev->newcomm) : NULL;
		mine = tc_xrealloc(mine, tc_st_mult((size_t)n + 1 + (t ? t->size : 0), sizeof(*mine)));
		mine[n++] = t ? (int)t->size : 0;
		for (uint32_t j = 0; t && j < t->size; j++)
			mine[n++] = tc_comm_member(t, j);
	}
	counts = tc_xmalloc(tc_st_mult((size_t)s->world, sizeof(*counts)));
	displs = tc_xmalloc(tc_st_mult((size_t)s->world, sizeof(*displs)));
	PMPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
	for (int r = 0; r < s->world; r++) {
		displs[r] = total;
		total += counts[r];
	}
	if (total) {
		all = tc_xmalloc(tc_st_mult((size_t)total, sizeof(*all)));
		PMPI_Allgatherv(mine, n, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
	}
	for (size_t i = 0; i < e->n && n; i++) {
		const struct tc_event *ev = &e->ev[i];
		const int *g, *o;
		if (ev->op != TC_OP_INTERCOMM_CREATE_FROM_GROUPS)
			continue;
		g = nth_group(mine, n, k++);
		for (int r = 0; r < s->world && g && g[0]; r++) {
			o = r == s->rank ? NULL : nth_group(all + displs[r], counts[r], k - 1);
			if (o && o[0] && disjoint(g, o) && ev->peer >= 0 && ev->peer < o[0]) {
				s->src[i] = o[1 + ev->peer];
				break;
			}
		}
	}
	free(mine);
	free(all);
	free(counts);
	free(displs);
}

/* ---- buffers ---------------------------------------------------------------------- */

static uint64_t sum(const uint64_t *v, uint32_t n)
{
	uint64_t t = 0;

	for (uint32_t i = 0; i < n; i++)
		t += v[i];
	return t;
}

static size_t event_bytes(const struct tc_event *ev, int32_t world)
{
	uint64_t el = ev->count, sz = ev->dtype_size ? ev->dtype_size : 1;

	if (sum(ev->scounts, ev->nscounts) > el)
		el = sum(ev->scounts, ev->nscounts);
	if (sum(ev->rcounts, ev->nrcounts) > el)
		el = sum(ev->rcounts, ev->nrcounts);
	for (uint32_t j = 0; j < ev->ncompl; j++)
		if (ev->compl[j].bytes / sz + 1 > el)
			el = ev->compl[j].bytes / sz + 1;
	if (tc_op_kind(ev->op) == TC_K_COLL && !(tc_op_flags(ev->op) & TC_OPF_V))
		el *= (uint64_t)world;
	if (el > (uint64_t)1 << 40 || sz > (uint64_t)1 << 20)
		return 0; /* absurd: the call is skipped */
	return (size_t)(el * sz);
}

/* buffered sends that may be in flight at once */
#define BSEND_MESSAGES 64

void tc_replay_mpi_init(struct tc_replay_mpi *s, const struct tc_replay_opts *o,
			const struct tc_revents *evs, int32_t rank, int32_t world)
{
	size_t need = 64, bsend = 0;
	uint64_t rma;

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->evs = evs;
	s->rank = rank;
	s->world = world;
	atomic_init(&s->progress, 0);
	atomic_init(&s->in_mpi, false);
	comm_set(s, TC_COMM_WORLD, MPI_COMM_WORLD);
	comm_set(s, TC_COMM_SELF, MPI_COMM_SELF);
	for (size_t i = 0; i < evs->n; i++) {
		size_t b = event_bytes(&evs->ev[i], world);
		if (b > need)
			need = b;
		if ((evs->ev[i].op == TC_OP_BSEND || evs->ev[i].op == TC_OP_IBSEND ||
		     evs->ev[i].op == TC_OP_BSEND_INIT) && b + MPI_BSEND_OVERHEAD > bsend)
			bsend = b + MPI_BSEND_OVERHEAD;
	}
	/* room for BSEND_MESSAGES of the largest buffered send at once */
	if (bsend > ((size_t)1 << 30) / BSEND_MESSAGES)
		bsend = (size_t)1 << 30;
	else
		bsend *= BSEND_MESSAGES;
	s->buf_bytes = need;
	s->sbuf = tc_xcalloc(1, need);
	s->rbuf = tc_xcalloc(1, need);
	/* the application's buffers were in memory, written by its computing:
	 * so are these, before the replay, and not faulted in by its first
	 * calls (a large calloc maps pages only as they are touched) */
	for (size_t k = 0; k < need; k += 4096) {
		((volatile char *)s->sbuf)[k] = 0;
		((volatile char *)s->rbuf)[k] = 0;
	}
	if (bsend) {
		s->bsend = tc_xmalloc(bsend);
		PMPI_Buffer_attach(s->bsend, (int)(bsend > INT32_MAX ? INT32_MAX : bsend));
	}
	find_sources(s);
	remote_leaders(s);
	/* every window as large as the largest access of any rank */
	rma = tc_rp_rma_bytes(evs);
	PMPI_Allreduce(&rma, &s->rma_bytes, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	tc_rp_io_init(s);
}

/* ---- messages polls took early ---------------------------------------------------- */

/* The oldest held message of c that a call for src (a rank of c, or
 * MPI_ANY_SOURCE) and tag (or MPI_ANY_TAG) would match, or NULL. */
static struct tc_rheld *held_find(struct tc_replay_mpi *s, MPI_Comm c, int src, int tag)
{
	if (src == MPI_PROC_NULL)
		return NULL;
	for (size_t k = 0; k < s->nheld; k++) {
		struct tc_rheld *h = &s->held[k];
		if (h->c == c && (src == MPI_ANY_SOURCE || src == h->src) &&
		    (tag == MPI_ANY_TAG || tag == h->tag))
			return h;
	}
	return NULL;
}

static void held_add(struct tc_replay_mpi *s, MPI_Comm c, const MPI_Status *st, MPI_Message m)
{
	struct tc_rheld *h;
	int bytes = 0;

	if (s->nheld == s->aheld) {
		s->aheld = s->aheld ? 2 * s->aheld : 4;
		s->held = tc_xrealloc(s->held, tc_st_mult(s->aheld, sizeof(*s->held)));
	}
	/* over INT_MAX bytes (MPI_UNDEFINED): the replay's receives take
	 * int counts, and so does the drain's; it reports the truncation */
	if (PMPI_Get_count(st, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes < 0)
		bytes = INT_MAX;
	h = &s->held[s->nheld++];
	*h = (struct tc_rheld){ .c = c, .src = st->MPI_SOURCE, .tag = st->MPI_TAG,
				.bytes = bytes, .m = m };
	s->polls_took++;
}

/* The message of h, which leaves the list (its order kept). */
static MPI_Message held_take(struct tc_replay_mpi *s, struct tc_rheld *h)
{
	MPI_Message m = h->m;
	size_t k = (size_t)(h - s->held);

	memmove(h, h + 1, (s->nheld - k - 1) * sizeof(*h));
	s->nheld--;
	return m;
}

/* Receive the held messages of c (MPI_COMM_NULL: all) that no call of
 * the trace took, before c is freed or the replay ends: PMPI_, since
 * the trace has no such call. */
static void held_drain(struct tc_replay_mpi *s, MPI_Comm c)
{
	for (size_t k = 0; k < s->nheld;) {
		struct tc_rheld *h = &s->held[k];
		void *buf;
		if (c != MPI_COMM_NULL && h->c != c) {
			k++;
			continue;
		}
		buf = tc_xmalloc(h->bytes ? (size_t)h->bytes : 1);
		PMPI_Mrecv(buf, h->bytes, MPI_BYTE, &h->m, MPI_STATUS_IGNORE);
		free(buf);
		held_take(s, h);
	}
}

/* Receive cnt elements of t from peer with tag on c, blocking (h NULL)
 * or into *h: a held message that matches first, with MPI_Mrecv or
 * MPI_Imrecv. */
static void take_or_recv(struct tc_replay_mpi *s, MPI_Comm c, int cnt, MPI_Datatype t, int peer,
			 int tag, MPI_Request *h)
{
	struct tc_rheld *held = held_find(s, c, peer, tag);
	MPI_Message m;

	if (!held) {
		if (h)
			MPI_Irecv(s->rbuf, cnt, t, peer, tag, c, h);
		else
			MPI_Recv(s->rbuf, cnt, t, peer, tag, c, MPI_STATUS_IGNORE);
		return;
	}
	m = held_take(s, held);
	if (h)
		MPI_Imrecv(s->rbuf, cnt, t, &m, h);
	else
		MPI_Mrecv(s->rbuf, cnt, t, &m, MPI_STATUS_IGNORE);
}

void tc_replay_mpi_release(struct tc_replay_mpi *s)
{
	int size;
	void *b;

	held_drain(s, MPI_COMM_NULL);
	free(s->held);
	tc_rp_rma_release(s);
	tc_rp_io_release(s);
	if (s->bsend)
		PMPI_Buffer_detach(&b, &size);
	free(s->idup);
	free(s->gap_cpu);
	for (size_t i = 0; i < s->ncomms; i++)
		free(s->comms[i].w2c);
	free(s->comms);
	free(s->reqs);
	free(s->src);
	free(s->sbuf);
	free(s->rbuf);
	free(s->bsend);
	memset(s, 0, sizeof(*s));
}

/* ---- the operations ---------------------------------------------------------------- */

static void skip(struct tc_replay_mpi *s, const struct tc_event *ev)
{
	if (!s->skipped++)
		s->first_skipped = ev->op;
}

/* The peer to name: a wildcard names the recorded match (--any-source recorded). */
static int32_t wild_peer(const struct tc_replay_mpi *s, size_t i, int32_t peer)
{
	if (peer == TC_ANY_SOURCE && s->o->any_recorded && s->src[i] >= 0)
		return s->src[i];
	return peer;
}

static bool p2p(struct tc_replay_mpi *s, size_t i, const struct tc_event *ev)
{
	struct tc_rcomm *c = tc_rp_comm_get(s, ev);
	MPI_Datatype t;
	MPI_Request h = MPI_REQUEST_NULL, h2 = MPI_REQUEST_NULL, *hp = NULL;
	struct tc_rheld *held;
	bool exact;
	int peer, rpeer, cnt = (int)ev->count, rcnt;
	int32_t want = TC_PEER_NONE;

	if (!c || !tc_rp_fits_int(ev->count))
		return false;
	if (!tc_rp_comm_rank(c, wild_peer(s, i, ev->peer), &peer))
		return false;
	t = tc_rp_dtype(ev, &exact);
	if (ev->fields & TC_F_REQUEST)
		hp = &h;
	tc_rp_gap(s);
	switch (ev->op) {
	case TC_OP_SEND: MPI_Send(s->sbuf, cnt, t, peer, ev->tag, c->c); break;
	case TC_OP_BSEND: MPI_Bsend(s->sbuf, cnt, t, peer, ev->tag, c->c); break;
	case TC_OP_SSEND: MPI_Ssend(s->sbuf, cnt, t, peer, ev->tag, c->c); break;
	case TC_OP_RSEND: MPI_Rsend(s->sbuf, cnt, t, peer, ev->tag, c->c); break;
	case TC_OP_ISEND: MPI_Isend(s->sbuf, cnt, t, peer, ev->tag, c->c, &h); break;
	case TC_OP_IBSEND: MPI_Ibsend(s->sbuf, cnt, t, peer, ev->tag, c->c, &h); break;
	case TC_OP_ISSEND: MPI_Issend(s->sbuf, cnt, t, peer, ev->tag, c->c, &h); break;
	case TC_OP_IRSEND: MPI_Irsend(s->sbuf, cnt, t, peer, ev->tag, c->c, &h); break;
	case TC_OP_RECV:
		take_or_recv(s, c->c, cnt, t, peer, tag_of(ev->tag), NULL);
		break;
	case TC_OP_IRECV:
		take_or_recv(s, c->c, cnt, t, peer, tag_of(ev->tag), &h);
		want = s->src[i];
		break;
	case TC_OP_SEND_INIT: MPI_Send_init(s->sbuf, cnt, t, peer, ev->tag, c->c, &h); break;
	case TC_OP_BSEND_INIT: MPI_Bsend_init(s->sbuf, cnt, t, peer, ev->tag, c->c, &h); break;
	case TC_OP_SSEND_INIT: MPI_Ssend_init(s->sbuf, cnt, t, peer, ev->tag, c->c, &h); break;
	case TC_OP_RSEND_INIT: MPI_Rsend_init(s->sbuf, cnt, t, peer, ev->tag, c->c, &h); break;
	case TC_OP_RECV_INIT:
		MPI_Recv_init(s->rbuf, cnt, t, peer, tag_of(ev->tag), c->c, &h);
		break;
	case TC_OP_SENDRECV:
	case TC_OP_SENDRECV_REPLACE:
		if (!(ev->fields & TC_F_RPEER) || !tc_rp_comm_rank(c, wild_peer(s, i, ev->rpeer), &rpeer))
			return false;
		rcnt = cnt;
		if (ev->ncompl && ev->dtype_size &&
		    tc_rp_fits_int(ev->compl[0].bytes / ev->dtype_size))
			rcnt = (int)(ev->compl[0].bytes / ev->dtype_size);
		if ((held = held_find(s, c->c, rpeer, tag_of(ev->rtag)))) {
			/* its message taken by a poll: the send, the held
			 * message's receive, the send's wait */
			MPI_Message m = held_take(s, held);
			MPI_Isend(s->sbuf, cnt, t, peer, ev->tag, c->c, &h2);
			MPI_Mrecv(s->rbuf, rcnt, t, &m, MPI_STATUS_IGNORE);
			MPI_Wait(&h2, MPI_STATUS_IGNORE);
		} else if (ev->op == TC_OP_SENDRECV) {
			MPI_Sendrecv(s->sbuf, cnt, t, peer, ev->tag, s->rbuf, rcnt, t, rpeer,
				     tag_of(ev->rtag), c->c, MPI_STATUS_IGNORE);
		} else {
			MPI_Sendrecv_replace(s->rbuf, cnt, t, peer, ev->tag, rpeer, tag_of(ev->rtag),
					     c->c, MPI_STATUS_IGNORE);
		}
		break;
	case TC_OP_ISENDRECV:
	case TC_OP_ISENDRECV_REPLACE:
		/* MPI-3: its receive, then its send (completed, unrecorded,
		 * by the call that completes the receive) */
		if (!hp || !(ev->fields & TC_F_RPEER) ||
		    !tc_rp_comm_rank(c, wild_peer(s, i, ev->rpeer), &rpeer))
			return false;
		take_or_recv(s, c->c, cnt, t, rpeer, tag_of(ev->rtag), &h);
		MPI_Isend(s->sbuf, cnt, t, peer, ev->tag, c->c, &h2);
		want = s->src[i];
		break;
	case TC_OP_PSEND_INIT:
	case TC_OP_PRECV_INIT:
		/* MPI-3: nothing until its start (an Irecv) or the Pready of
		 * its last partition (an Isend) */
		if (!hp)
			return false;
		break;
	default:
		return false;
	}
	tc_rp_returned(s);
	if (hp) {
		struct tc_rreq *q = tc_rp_req_add(s, ev->request);
		q->h = h;
		q->h2 = h2;
		q->persistent = tc_op_kind(ev->op) == TC_K_PERSIST;
		q->done_src = want;
		if (tc_op_flags(ev->op) & TC_OPF_PART)
			q->init = ev;
		if (ev->op == TC_OP_RECV_INIT) {
			q->rinit = ev;
			q->rsrc = peer;
		}
	}
	return true;
}

static bool probe(struct tc_replay_mpi *s, size_t i, const struct tc_event *ev)
{
	struct tc_rcomm *c = tc_rp_comm_get(s, ev);
	MPI_Message m = MPI_MESSAGE_NULL;
	MPI_Status st;
	struct tc_rheld *held;
	bool found = ev->fields & TC_F_REQUEST; /* a matched probe's message, in the trace */
	int peer, tag, flag = 0;

	if (!c || !tc_rp_comm_rank(c, wild_peer(s, i, ev->peer), &peer))
		return false;
	tag = tag_of(ev->tag);
	if ((held = held_find(s, c->c, peer, tag))) {
		/* taken by an earlier poll: a matched probe that found it in
		 * the trace has it as its message; any other call would find
		 * it, or wait for another: not issued */
		if (!found || (ev->op != TC_OP_MPROBE && ev->op != TC_OP_IMPROBE))
			return false;
		m = held_take(s, held);
	} else {
		switch (ev->op) {
		case TC_OP_PROBE:
			MPI_Probe(peer, tag, c->c, MPI_STATUS_IGNORE);
			break;
		case TC_OP_IPROBE:
			/* found in the trace: wait until it is there */
			if (ev->ncompl)
				while (PMPI_Iprobe(peer, tag, c->c, &flag, MPI_STATUS_IGNORE) ==
					       MPI_SUCCESS && !flag)
					;
			MPI_Iprobe(peer, tag, c->c, &flag, MPI_STATUS_IGNORE);
			break;
		case TC_OP_MPROBE:
			MPI_Mprobe(peer, tag, c->c, &m, MPI_STATUS_IGNORE);
			break;
		case TC_OP_IMPROBE:
			if (found) {
				while (PMPI_Iprobe(peer, tag, c->c, &flag, MPI_STATUS_IGNORE) ==
					       MPI_SUCCESS && !flag)
					;
			} else if (s->o->polls_guarded &&
				   PMPI_Iprobe(peer, tag, c->c, &flag, MPI_STATUS_IGNORE) ==
					   MPI_SUCCESS && flag) {
				/* found nothing in the trace, but would take a
				 * message here that a later call of the trace
				 * takes: not issued */
				return false;
			}
			MPI_Improbe(peer, tag, c->c, &flag, &m, &st);
			if (!found && flag && m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC) {
				held_add(s, c->c, &st, m);
				m = MPI_MESSAGE_NULL;
			}
			break;
		default:
			return false;
		}
	}
	if (m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC && found) {
		struct tc_rreq *q = tc_rp_req_add(s, ev->request);
		q->msg = true;
		q->m = m;
	}
	return true;
}

static bool mrecv(struct tc_replay_mpi *s, const struct tc_event *ev)
{
	struct tc_rreq *q = ev->fields & TC_F_REQUEST ? tc_rp_req_find(s, ev->request) : NULL;
	MPI_Message m;
	MPI_Datatype t;
	bool exact;
	int cnt = (int)ev->count;

	if (!tc_rp_fits_int(ev->count))
		return false;
	t = tc_rp_dtype(ev, &exact);
	if (!q && ev->peer == TC_PROC_NULL && ev->op == TC_OP_MRECV) {
		/* the message of a probe of MPI_PROC_NULL */
		m = MPI_MESSAGE_NO_PROC;
		MPI_Mrecv(s->rbuf, cnt, t, &m, MPI_STATUS_IGNORE);
		return true;
	}
	if (!q || !q->msg)
		return false;
	m = q->m;
	if (ev->op == TC_OP_MRECV) {
		MPI_Mrecv(s->rbuf, cnt, t, &m, MPI_STATUS_IGNORE);
		req_drop(s, q);
	} else {
		q->msg = false;
		MPI_Imrecv(s->rbuf, cnt, t, &m, &q->h);
	}
	return true;
}

/* The handles of the requests the event completed (or started), in order;
 * *n is how many were found, q[] their entries. */
static void event_reqs(struct tc_replay_mpi *s, const struct tc_event *ev, MPI_Request *h,
		       struct tc_rreq **q, int *n)
{
	*n = 0;
	for (uint32_t j = 0; j < ev->ncompl; j++) {
		struct tc_rreq *r = ev->compl[j].request ? tc_rp_req_find(s, ev->compl[j].request) : NULL;
		if (!r || r->msg)
			continue;
		h[*n] = r->h;
		q[(*n)++] = r;
	}
}

/* After a completion: forget the nonblocking requests of q[0..n), keep
 * the (now inactive) persistent ones. */
static void completed(struct tc_replay_mpi *s, struct tc_rreq **q, MPI_Request *h, int n)
{
	uint64_t ids[64];
	int k = 0;

	for (int j = 0; j < n; j++) {
		if (!q[j]->persistent) {
			if (k < 64)
				ids[k++] = q[j]->id;
			continue;
		}
		/* a held message's receive that stood in for the start done:
		 * the persistent request back */
		q[j]->h = q[j]->ph != MPI_REQUEST_NULL ? q[j]->ph : h[j];
		q[j]->ph = MPI_REQUEST_NULL;
	}
	/* drop by id: dropping moves entries, so q[] goes stale */
	for (int j = 0; j < k; j++) {
		struct tc_rreq *r = tc_rp_req_find(s, ids[j]);
		if (r)
			req_drop(s, r);
	}
}

/* requests of a wait or test held on the stack */
#define WAIT_STACK 16

static bool wait_test(struct tc_replay_mpi *s, const struct tc_event *ev)
{
	uint64_t count = ev->fields & TC_F_COUNT ? ev->count : ev->ncompl;
	MPI_Request *h, h_stack[WAIT_STACK];
	struct tc_rreq **q, *q_stack[WAIT_STACK];
	int n, total, flag, idx, outc, *idxs, i_stack[WAIT_STACK];
	bool ok = true;

	if (count < ev->ncompl)
		count = ev->ncompl;
	if (!tc_rp_fits_int(count) || count > (1u << 20))
		return false;
	total = (int)(count ? count : 1);
	/* the usual few requests on the stack: no allocation between the
	 * calls, where the replay's own time stands in for the gap's */
	if (total <= WAIT_STACK) {
		h = h_stack;
		q = q_stack;
		idxs = i_stack;
	} else {
		h = tc_xmalloc(tc_st_mult((size_t)total, sizeof(*h)));
		q = tc_xmalloc(tc_st_mult((size_t)total, sizeof(*q)));
		idxs = tc_xmalloc(tc_st_mult((size_t)total, sizeof(*idxs)));
	}
	event_reqs(s, ev, h, q, &n);
	for (int j = n; j < total; j++)
		h[j] = MPI_REQUEST_NULL;
	tc_rp_gap(s);
	/* an Isendrecv completes with its send: that first, unrecorded */
	for (int j = 0; j < n; j++)
		if (q[j]->h2 != MPI_REQUEST_NULL)
			PMPI_Wait(&q[j]->h2, MPI_STATUS_IGNORE);
	switch (ev->op) {
	case TC_OP_WAIT:
		MPI_Wait(&h[0], MPI_STATUS_IGNORE);
		break;
	case TC_OP_TEST:
		until_complete(h, n);
		MPI_Test(&h[0], &flag, MPI_STATUS_IGNORE);
		break;
	case TC_OP_WAITALL:
		MPI_Waitall((int)count, h, MPI_STATUSES_IGNORE);
		break;
	case TC_OP_TESTALL:
		until_complete(h, n);
		MPI_Testall((int)count, h, &flag, MPI_STATUSES_IGNORE);
		break;
	case TC_OP_WAITANY:
		until_complete(h, n);
		MPI_Waitany((int)count, h, &idx, MPI_STATUS_IGNORE);
		break;
	case TC_OP_TESTANY:
		until_complete(h, n);
		MPI_Testany((int)count, h, &idx, &flag, MPI_STATUS_IGNORE);
		break;
	case TC_OP_WAITSOME:
		until_complete(h, n);
		MPI_Waitsome((int)count, h, &outc, idxs, MPI_STATUSES_IGNORE);
		break;
	case TC_OP_TESTSOME:
		until_complete(h, n);
		MPI_Testsome((int)count, h, &outc, idxs, MPI_STATUSES_IGNORE);
		break;
	default:
		ok = false;
	}
	tc_rp_returned(s);
	if (ok)
		completed(s, q, h, n);
	if (h != h_stack) {
		free(h);
		free(q);
		free(idxs);
	}
	return ok;
}

/* ---- MPI-4 requests through MPI-3 calls ---------------------------------------------- */

static bool coll(struct tc_replay_mpi *s, const struct tc_event *ev);
static bool neigh(struct tc_replay_mpi *s, const struct tc_event *ev);

/* The nonblocking form of a blocking collective (MPI_Iallreduce for
 * MPI_Allreduce), TC_OP_NONE for any other op. */
static unsigned nonblocking(unsigned op)
{
	switch (op) {
#define NB(id) \
	case TC_OP_##id: \
		return TC_OP_I##id;
		NB(BARRIER) NB(BCAST) NB(REDUCE) NB(ALLREDUCE) NB(REDUCE_SCATTER)
		NB(REDUCE_SCATTER_BLOCK) NB(SCAN) NB(EXSCAN) NB(GATHER) NB(GATHERV) NB(SCATTER)
		NB(SCATTERV) NB(ALLGATHER) NB(ALLGATHERV) NB(ALLTOALL) NB(ALLTOALLV) NB(ALLTOALLW)
		NB(NEIGHBOR_ALLGATHER) NB(NEIGHBOR_ALLGATHERV) NB(NEIGHBOR_ALLTOALL)
		NB(NEIGHBOR_ALLTOALLV) NB(NEIGHBOR_ALLTOALLW)
#undef NB
	default:
		return TC_OP_NONE;
	}
}

/* Issue the MPI-3 call of q's init as op (event i's): a persistent
 * collective's nonblocking form, a partitioned receive's Irecv, a
 * partitioned send's Isend. q stays the persistent request it is. */
static bool issue_init(struct tc_replay_mpi *s, size_t i, struct tc_rreq *q, unsigned op)
{
	const struct tc_event *in = q->init;
	struct tc_event e = *in;
	uint64_t id = q->id;
	bool ok;

	e.op = op;
	e.request = id;
	e.fields |= TC_F_REQUEST;
	if (op == TC_OP_IRECV || op == TC_OP_ISEND)
		ok = p2p(s, i, &e);
	else if (tc_op_flags(op) & TC_OPF_NEIGH)
		ok = neigh(s, &e);
	else
		ok = coll(s, &e);
	/* the call made the request anew */
	q = tc_rp_req_find(s, id);
	if (q) {
		q->init = in;
		q->persistent = true;
	}
	return ok;
}

/* The start of a persistent receive q whose message a poll took: that
 * message received with MPI_Imrecv in its place (true), else false. */
static bool start_held(struct tc_replay_mpi *s, struct tc_rreq *q)
{
	const struct tc_event *ev = q->rinit;
	struct tc_rcomm *c = ev ? tc_rp_comm_get(s, ev) : NULL;
	struct tc_rheld *held;
	MPI_Message m;
	bool exact;

	if (!c || q->ph != MPI_REQUEST_NULL ||
	    !(held = held_find(s, c->c, q->rsrc, tag_of(ev->tag))))
		return false;
	m = held_take(s, held);
	q->ph = q->h;
	MPI_Imrecv(s->rbuf, (int)ev->count, tc_rp_dtype(ev, &exact), &m, &q->h);
	return true;
}

/* MPI_Start of an MPI-4 request replayed through MPI-3 calls. */
static bool start_init(struct tc_replay_mpi *s, size_t i, struct tc_rreq *q)
{
	q->ready = 0;
	if (q->init->op == TC_OP_PSEND_INIT)
		return true; /* sent at the Pready of its last partition */
	if (q->init->op == TC_OP_PRECV_INIT)
		return issue_init(s, i, q, TC_OP_IRECV);
	return issue_init(s, i, q, nonblocking(tc_op_base(q->init->op)));
}

/* MPI_Pready(_range, _list): count partitions (the event's count) ready;
 * the last one sends the whole message. */
static bool pready(struct tc_replay_mpi *s, size_t i, struct tc_rreq *q, const struct tc_event *ev)
{
	uint64_t parts = q->init->fields & TC_F_FILE ? q->init->offset : 1;
	bool last = q->ready < parts && q->ready + ev->count >= parts;

	q->ready += ev->count;
	return last ? issue_init(s, i, q, TC_OP_ISEND) : true;
}

static bool request_op(struct tc_replay_mpi *s, size_t i, const struct tc_event *ev)
{
	struct tc_rreq *q = ev->fields & TC_F_REQUEST ? tc_rp_req_find(s, ev->request) : NULL;
	MPI_Request *h, one;
	struct tc_rreq **qs;
	int n, k = 0;
	bool ok = true;

	switch (ev->op) {
	case TC_OP_START:
		if (!q)
			return false;
		if (q->init)
			return start_init(s, i, q);
		if (!start_held(s, q))
			MPI_Start(&q->h);
		return true;
	case TC_OP_STARTALL:
		h = tc_xmalloc(tc_st_mult(ev->ncompl ? ev->ncompl : 1, sizeof(*h)));
		qs = tc_xmalloc(tc_st_mult(ev->ncompl ? ev->ncompl : 1, sizeof(*qs)));
		event_reqs(s, ev, h, qs, &n);
		/* MPI-4 requests and receives of held messages one by one,
		 * the others together */
		for (int j = 0; j < n; j++) {
			if (qs[j]->init)
				ok = start_init(s, i, qs[j]) && ok;
			else if (start_held(s, qs[j]))
				qs[j] = NULL;
		}
		for (int j = 0; j < n; j++) {
			if (qs[j] && !qs[j]->init) {
				h[k] = h[j];
				qs[k++] = qs[j];
			}
		}
		if (k)
			MPI_Startall(k, h);
		for (int j = 0; j < k; j++)
			qs[j]->h = h[j];
		free(h);
		free(qs);
		return ok;
	case TC_OP_PREADY:
	case TC_OP_PREADY_RANGE:
	case TC_OP_PREADY_LIST:
		if (!q || !q->init)
			return false;
		return pready(s, i, q, ev);
	case TC_OP_REQUEST_FREE:
		if (!q)
			return false;
		/* a start that received a held message, still active: that
		 * receive is the replay's own, the persistent request is the
		 * one the trace frees (a traced replay records that one) */
		if (q->ph != MPI_REQUEST_NULL) {
			PMPI_Request_free(&q->h);
			q->h = q->ph;
			q->ph = MPI_REQUEST_NULL;
		}
		/* an MPI-4 request's MPI-3 call, complete: nothing to free */
		if (!q->init || q->h != MPI_REQUEST_NULL)
			MPI_Request_free(&q->h);
		req_drop(s, q);
		return true;
	case TC_OP_CANCEL:
		if (!q)
			return false;
		/* the trace's receive matched before its cancel: let it */
		if (q->done_src >= 0 || q->done_src == TC_PROC_NULL) {
			one = q->h;
			until_complete(&one, 1);
		}
		MPI_Cancel(&q->h);
		return true;
	default:
		return false;
	}
}

static void new_comm(struct tc_replay_mpi *s, const struct tc_event *ev, MPI_Comm nc)
{
	if (nc == MPI_COMM_NULL)
		return;
	if (ev->fields & TC_F_NEWCOMM)
		comm_set(s, ev->newcomm, nc);
	else
		PMPI_Comm_free(&nc);
}

/* The world ranks of c's ranks, in order (c2w[size]). */
static void comm_worlds(const struct tc_replay_mpi *s, const struct tc_rcomm *c, int32_t *c2w)
{
	for (int32_t w = 0; w < s->world; w++)
		if (c->w2c[w] >= 0 && c->w2c[w] < c->size)
			c2w[c->w2c[w]] = w;
}

/*
 * The dimensions a Cart_sub kept, found from the new communicator's
 * recorded grid and members: of the subsets of c's dimensions, the one
 * whose grid is the recorded one and whose members (the ranks that share
 * this rank's coordinates in the dimensions dropped, in rank order) are
 * the recorded ones. False without a communicator table (an old global trace)
 * or when none fits.
 */
static bool cart_remain(const struct tc_replay_mpi *s, const struct tc_rcomm *c,
			const struct tc_event *ev, int *remain)
{
	const struct tc_comm *t = ev->fields & TC_F_NEWCOMM ? table_comm(s, ev->newcomm) : NULL;
	int nd = 0, dims[8], periods[8], me[8], at[8], me_c;
	int32_t *c2w;
	bool found = false;

	if (!t || c->topo != MPI_CART || PMPI_Cartdim_get(c->c, &nd) != MPI_SUCCESS || nd < 1 ||
	    nd > 8 || PMPI_Cart_get(c->c, nd, dims, periods, me) != MPI_SUCCESS)
		return false;
	me_c = c->w2c[s->rank];
	c2w = tc_xmalloc(tc_st_mult((size_t)c->size, sizeof(*c2w)));
	comm_worlds(s, c, c2w);
	for (unsigned mask = 0; mask < (1u << nd) && !found; mask++) {
		uint32_t k = 0, m = 0;
		bool ok = true;
		for (int d = 0; d < nd; d++) {
			remain[d] = (mask >> d) & 1;
			if (remain[d] && (k >= t->ndims || t->dims[k++] != dims[d]))
				ok = false;
		}
		if (!ok || k != t->ndims)
			continue;
		for (int r = 0; r < c->size && ok; r++) {
			bool same = true;
			PMPI_Cart_coords(c->c, r, nd, at);
			for (int d = 0; d < nd; d++)
				if (!remain[d] && at[d] != me[d])
					same = false;
			if (!same)
				continue;
			ok = m < t->size && tc_comm_member(t, m) == c2w[r];
			m++;
		}
		found = ok && m == t->size && me_c >= 0;
	}
	free(c2w);
	return found;
}

/*
 * The recorded edges of graph communicator t (ranks of t) as ranks of c
 * (its parent: the replay creates it without reordering) into e, the
 * weights copied. False when t has none or a neighbour is not in c.
 */
static bool graph_edges(const struct tc_comm *t, const struct tc_rcomm *c, int *e)
{
	size_t n;

	if (!t || !t->graph)
		return false;
	n = (size_t)t->nin + t->nout;
	for (size_t k = 0; k < n; k++)
		if (!tc_rp_comm_rank(c, tc_comm_member(t, (uint32_t)t->edges[k]), &e[k]) ||
		    e[k] < 0)
			return false;
	for (size_t k = n; k < tc_comm_edge_words(t); k++)
		e[k] = t->edges[k];
	return true;
}

/*
 * The graph communicator an MPI_Graph_create, MPI_Dist_graph_create or
 * MPI_Dist_graph_create_adjacent made, made again on c by the same call
 * from this rank's recorded neighbours (t: its table entry, NULL when
 * this rank is not in the graph or the trace has no table). A rank
 * without recorded edges takes part with none (the neighbourhood
 * collectives on such a graph are refused before the replay).
 * MPI_Graph_create needs the whole graph on every rank: gathered first.
 */
static MPI_Comm graph_create(const struct tc_rcomm *c, unsigned op, const struct tc_comm *t)
{
	MPI_Comm nc = MPI_COMM_NULL;
	int *e = tc_xcalloc((t ? tc_comm_edge_words(t) : 0) + 1, sizeof(*e));
	bool have = graph_edges(t, c, e);
	int nin = have ? (int)t->nin : 0, nout = have ? (int)t->nout : 0, me = 0;
	int *sw = have && t->weighted ? e + nin + nout : MPI_UNWEIGHTED;
	int *dw = have && t->weighted ? e + 2 * nin + nout : MPI_UNWEIGHTED;

	PMPI_Comm_rank(c->c, &me);
	if (op == TC_OP_DIST_GRAPH_CREATE_ADJACENT) {
		MPI_Dist_graph_create_adjacent(c->c, nin, e, sw, nout, e + nin, dw, MPI_INFO_NULL,
					       0, &nc);
	} else if (op == TC_OP_DIST_GRAPH_CREATE) {
		MPI_Dist_graph_create(c->c, 1, &me, &nout, e + nin, dw, MPI_INFO_NULL, 0, &nc);
	} else {
		/* degree -1: not in the graph (the last ranks of c, if any) */
		int deg = t ? nout : -1, *degs, *index, *off, *all, nnodes = 0, total = 0;
		degs = tc_xcalloc((size_t)c->size, sizeof(*degs));
		index = tc_xcalloc((size_t)c->size + 1, sizeof(*index));
		off = tc_xcalloc((size_t)c->size, sizeof(*off));
		PMPI_Allgather(&deg, 1, MPI_INT, degs, 1, MPI_INT, c->c);
		for (int j = 0; j < c->size; j++) {
			if (degs[j] >= 0)
				nnodes = j + 1;
			off[j] = total;
			total += degs[j] > 0 ? degs[j] : 0;
			index[j] = total;
			degs[j] = degs[j] > 0 ? degs[j] : 0;
		}
		all = tc_xcalloc((size_t)total + 1, sizeof(*all));
		PMPI_Allgatherv(e + nin, nout, MPI_INT, all, degs, off, MPI_INT, c->c);
		MPI_Graph_create(c->c, nnodes, index, all, 0, &nc);
		free(all);
		free(off);
		free(index);
		free(degs);
	}
	free(e);
	return nc;
}

/* The communicator of the group of c's ranks that are the recorded
 * members of ev's new communicator (MPI_Comm_create_group; unrecorded
 * when helper); false without a communicator table, or when a member is
 * not one of c. */
static bool group_comm(struct tc_replay_mpi *s, const struct tc_rcomm *c, const struct tc_event *ev,
		       bool helper, MPI_Comm *nc)
{
	const struct tc_comm *t = ev->fields & TC_F_NEWCOMM ? table_comm(s, ev->newcomm) : NULL;
	MPI_Group g, cg;
	int *members, nm = 0;

	if (!t || c->inter)
		return false;
	members = tc_xmalloc(tc_st_mult(t->size ? t->size : 1, sizeof(*members)));
	for (uint32_t j = 0; j < t->size; j++)
		if (!tc_rp_comm_rank(c, tc_comm_member(t, j), &members[nm++]))
			nm = -1 - (int)t->size; /* not a member: refused below */
	if (nm > 0) {
		PMPI_Comm_group(c->c, &cg);
		PMPI_Group_incl(cg, nm, members, &g);
		if (helper)
			PMPI_Comm_create_group(c->c, g, ev->tag, nc);
		else
			MPI_Comm_create_group(c->c, g, ev->tag, nc);
		PMPI_Group_free(&g);
		PMPI_Group_free(&cg);
	}
	free(members);
	return nm > 0;
}

static bool comm_op(struct tc_replay_mpi *s, size_t at, const struct tc_event *ev)
{
	struct tc_rcomm *c = tc_rp_comm_get(s, ev);
	MPI_Comm nc = MPI_COMM_NULL, lc;
	MPI_Group g, cg;
	const struct tc_comm *t;
	int color, in, *all, *members, nm = 0, dims[8] = { 0 }, periods[8] = { 0 }, remain[8];
	int leader;

	if (!c)
		return false;
	color = ev->color == TC_UNDEFINED ? MPI_UNDEFINED : ev->color;
	switch (ev->op) {
	case TC_OP_COMM_DUP:
		MPI_Comm_dup(c->c, &nc);
		break;
	case TC_OP_COMM_DUP_WITH_INFO:
		MPI_Comm_dup_with_info(c->c, MPI_INFO_NULL, &nc);
		break;
	case TC_OP_COMM_SPLIT:
		MPI_Comm_split(c->c, color, ev->key, &nc);
		break;
	case TC_OP_COMM_SPLIT_TYPE:
		MPI_Comm_split_type(c->c, color == MPI_UNDEFINED ? MPI_UNDEFINED :
				    MPI_COMM_TYPE_SHARED, ev->key, MPI_INFO_NULL, &nc);
		break;
	case TC_OP_COMM_CREATE:
		/* the group: the ranks that recorded a new communicator */
		in = (ev->fields & TC_F_NEWCOMM) != 0;
		all = tc_xmalloc(tc_st_mult((size_t)c->size, sizeof(*all)));
		members = tc_xmalloc(tc_st_mult((size_t)c->size, sizeof(*members)));
		PMPI_Allgather(&in, 1, MPI_INT, all, 1, MPI_INT, c->c);
		for (int j = 0; j < c->size; j++)
			if (all[j])
				members[nm++] = j;
		PMPI_Comm_group(c->c, &cg);
		PMPI_Group_incl(cg, nm, members, &g);
		MPI_Comm_create(c->c, g, &nc);
		PMPI_Group_free(&g);
		PMPI_Group_free(&cg);
		free(all);
		free(members);
		break;
	case TC_OP_CART_CREATE:
		if (!(ev->fields & TC_F_COUNT) || ev->count < 1 || ev->count > 8)
			return false;
		/* the recorded grid, else (an old global trace) a balanced one */
		t = ev->fields & TC_F_NEWCOMM ? table_comm(s, ev->newcomm) : NULL;
		if (t && t->ndims == ev->count) {
			for (uint32_t d = 0; d < t->ndims; d++) {
				dims[d] = t->dims[d];
				periods[d] = (t->periods >> d) & 1;
			}
		} else {
			PMPI_Dims_create(c->size, (int)ev->count, dims);
		}
		MPI_Cart_create(c->c, (int)ev->count, dims, periods, 0, &nc);
		break;
	case TC_OP_CART_SUB:
		if (!cart_remain(s, c, ev, remain))
			return false;
		MPI_Cart_sub(c->c, remain, &nc);
		break;
	case TC_OP_GRAPH_CREATE:
	case TC_OP_DIST_GRAPH_CREATE:
	case TC_OP_DIST_GRAPH_CREATE_ADJACENT:
		if (c->inter)
			return false;
		t = ev->fields & TC_F_NEWCOMM ? table_comm(s, ev->newcomm) : NULL;
		nc = graph_create(c, ev->op, t);
		break;
	case TC_OP_COMM_IDUP:
	case TC_OP_COMM_IDUP_WITH_INFO: /* MPI-3: MPI_Comm_idup */
		if (!(ev->fields & TC_F_REQUEST))
			return false;
		MPI_Comm_idup(c->c, &nc, &tc_rp_req_add(s, ev->request)->h);
		s->idup = tc_xrealloc(s->idup, tc_st_mult(s->nidup + 1, sizeof(*s->idup)));
		s->idup[s->nidup++] = nc;
		return true;
	case TC_OP_COMM_CREATE_GROUP:
	case TC_OP_COMM_CREATE_FROM_GROUP: /* MPI-3: MPI_Comm_create_group on the world */
		if (!group_comm(s, c, ev, false, &nc))
			return false;
		break;
	case TC_OP_INTERCOMM_CREATE_FROM_GROUPS:
		/* MPI-3: its local group's communicator (unrecorded), then
		 * MPI_Intercomm_create with the world as the peer communicator */
		if (c->inter || s->src[at] < 0 || !group_comm(s, c, ev, true, &lc))
			return false;
		MPI_Intercomm_create(lc, ev->root, MPI_COMM_WORLD, s->src[at], ev->tag, &nc);
		PMPI_Comm_free(&lc);
		break;
	case TC_OP_INTERCOMM_CREATE:
		/* the remote leader is a world rank: the world is the peer
		 * communicator (only the leaders' matters) */
		if (c->inter || !tc_rp_comm_rank(c, ev->root, &leader))
			return false;
		if (leader == c->w2c[s->rank] && ev->peer < 0)
			return false;
		MPI_Intercomm_create(c->c, leader, MPI_COMM_WORLD, ev->peer < 0 ? 0 : ev->peer,
				     ev->tag, &nc);
		break;
	case TC_OP_INTERCOMM_MERGE:
		if (!c->inter)
			return false;
		MPI_Intercomm_merge(c->c, ev->key, &nc);
		break;
	case TC_OP_COMM_FREE:
	case TC_OP_COMM_DISCONNECT:
		if (c->c == MPI_COMM_WORLD || c->c == MPI_COMM_SELF)
			return false;
		held_drain(s, c->c);
		if (ev->op == TC_OP_COMM_FREE)
			MPI_Comm_free(&c->c);
		else
			MPI_Comm_disconnect(&c->c);
		c->valid = false;
		return true;
	default:
		return false;
	}
	new_comm(s, ev, nc);
	return true;
}

/* counts as ints with displacements from their prefix sums; false if a
 * vector is missing or too large */
static bool vec(const uint64_t *v, uint32_t nv, int n, int *cnt, int *disp)
{
	uint64_t at = 0;

	if (nv != (uint32_t)n)
		return false;
	for (int j = 0; j < n; j++) {
		if (!tc_rp_fits_int(v[j]) || !tc_rp_fits_int(at))
			return false;
		cnt[j] = (int)v[j];
		disp[j] = (int)at;
		at += v[j];
	}
	return true;
}

static bool coll(struct tc_replay_mpi *s, const struct tc_event *ev)
{
	struct tc_rcomm *c = tc_rp_comm_get(s, ev);
	MPI_Request h = MPI_REQUEST_NULL;
	MPI_Datatype t, *ts = NULL;
	MPI_Op op;
	bool exact, ok = true, root_here;
	int cnt = (int)ev->count, root = 0, n, *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;
	void *sb = s->sbuf, *rb = s->rbuf;

	if (!c || !tc_rp_fits_int(ev->count))
		return false;
	if ((tc_op_flags(ev->op) & TC_OPF_ROOT) && !tc_rp_comm_rank(c, ev->root, &root))
		return false;
	root_here = root == c->w2c[s->rank];
	n = c->size;
	t = tc_rp_dtype(ev, &exact);
	op = event_redop(ev, exact);
	sc = tc_xcalloc((size_t)n, sizeof(int));
	sd = tc_xcalloc((size_t)n, sizeof(int));
	rc = tc_xcalloc((size_t)n, sizeof(int));
	rd = tc_xcalloc((size_t)n, sizeof(int));
	switch (ev->op) {
	case TC_OP_BARRIER: MPI_Barrier(c->c); break;
	case TC_OP_IBARRIER: MPI_Ibarrier(c->c, &h); break;
	case TC_OP_BCAST: MPI_Bcast(sb, cnt, t, root, c->c); break;
	case TC_OP_IBCAST: MPI_Ibcast(sb, cnt, t, root, c->c, &h); break;
	case TC_OP_REDUCE: MPI_Reduce(sb, rb, cnt, t, op, root, c->c); break;
	case TC_OP_IREDUCE: MPI_Ireduce(sb, rb, cnt, t, op, root, c->c, &h); break;
	case TC_OP_ALLREDUCE: MPI_Allreduce(sb, rb, cnt, t, op, c->c); break;
	case TC_OP_IALLREDUCE: MPI_Iallreduce(sb, rb, cnt, t, op, c->c, &h); break;
	case TC_OP_SCAN: MPI_Scan(sb, rb, cnt, t, op, c->c); break;
	case TC_OP_ISCAN: MPI_Iscan(sb, rb, cnt, t, op, c->c, &h); break;
	case TC_OP_EXSCAN: MPI_Exscan(sb, rb, cnt, t, op, c->c); break;
	case TC_OP_IEXSCAN: MPI_Iexscan(sb, rb, cnt, t, op, c->c, &h); break;
	case TC_OP_REDUCE_SCATTER_BLOCK:
		MPI_Reduce_scatter_block(sb, rb, cnt, t, op, c->c);
		break;
	case TC_OP_IREDUCE_SCATTER_BLOCK:
		MPI_Ireduce_scatter_block(sb, rb, cnt, t, op, c->c, &h);
		break;
	case TC_OP_REDUCE_SCATTER:
	case TC_OP_IREDUCE_SCATTER:
		if (!(ok = vec(ev->rcounts, ev->nrcounts, n, rc, rd)))
			break;
		if (ev->op == TC_OP_REDUCE_SCATTER)
			MPI_Reduce_scatter(sb, rb, rc, t, op, c->c);
		else
			MPI_Ireduce_scatter(sb, rb, rc, t, op, c->c, &h);
		break;
	case TC_OP_GATHER: MPI_Gather(sb, cnt, t, rb, cnt, t, root, c->c); break;
	case TC_OP_IGATHER: MPI_Igather(sb, cnt, t, rb, cnt, t, root, c->c, &h); break;
	case TC_OP_SCATTER: MPI_Scatter(sb, cnt, t, rb, cnt, t, root, c->c); break;
	case TC_OP_ISCATTER: MPI_Iscatter(sb, cnt, t, rb, cnt, t, root, c->c, &h); break;
	case TC_OP_ALLGATHER: MPI_Allgather(sb, cnt, t, rb, cnt, t, c->c); break;
	case TC_OP_IALLGATHER: MPI_Iallgather(sb, cnt, t, rb, cnt, t, c->c, &h); break;
	case TC_OP_ALLTOALL: MPI_Alltoall(sb, cnt, t, rb, cnt, t, c->c); break;
	case TC_OP_IALLTOALL: MPI_Ialltoall(sb, cnt, t, rb, cnt, t, c->c, &h); break;
	case TC_OP_GATHERV:
	case TC_OP_IGATHERV:
	case TC_OP_ALLGATHERV:
	case TC_OP_IALLGATHERV:
		if ((ev->op == TC_OP_ALLGATHERV || ev->op == TC_OP_IALLGATHERV || root_here) &&
		    !(ok = vec(ev->rcounts, ev->nrcounts, n, rc, rd)))
			break;
		if (ev->op == TC_OP_GATHERV)
			MPI_Gatherv(sb, cnt, t, rb, rc, rd, t, root, c->c);
		else if (ev->op == TC_OP_IGATHERV)
			MPI_Igatherv(sb, cnt, t, rb, rc, rd, t, root, c->c, &h);
		else if (ev->op == TC_OP_ALLGATHERV)
			MPI_Allgatherv(sb, cnt, t, rb, rc, rd, t, c->c);
		else
			MPI_Iallgatherv(sb, cnt, t, rb, rc, rd, t, c->c, &h);
		break;
	case TC_OP_SCATTERV:
	case TC_OP_ISCATTERV:
		if (root_here && !(ok = vec(ev->scounts, ev->nscounts, n, sc, sd)))
			break;
		if (ev->op == TC_OP_SCATTERV)
			MPI_Scatterv(sb, sc, sd, t, rb, cnt, t, root, c->c);
		else
			MPI_Iscatterv(sb, sc, sd, t, rb, cnt, t, root, c->c, &h);
		break;
	case TC_OP_ALLTOALLV:
	case TC_OP_IALLTOALLV:
	case TC_OP_ALLTOALLW:
	case TC_OP_IALLTOALLW:
		if (!(ok = vec(ev->scounts, ev->nscounts, n, sc, sd) &&
			   vec(ev->rcounts, ev->nrcounts, n, rc, rd)))
			break;
		if (ev->op == TC_OP_ALLTOALLV) {
			MPI_Alltoallv(sb, sc, sd, t, rb, rc, rd, t, c->c);
			break;
		}
		if (ev->op == TC_OP_IALLTOALLV) {
			MPI_Ialltoallv(sb, sc, sd, t, rb, rc, rd, t, c->c, &h);
			break;
		}
		/* alltoallw: the vectors are in bytes */
		ts = tc_xmalloc(tc_st_mult((size_t)n, sizeof(*ts)));
		for (int j = 0; j < n; j++)
			ts[j] = MPI_BYTE;
		if (ev->op == TC_OP_ALLTOALLW)
			MPI_Alltoallw(sb, sc, sd, ts, rb, rc, rd, ts, c->c);
		else
			MPI_Ialltoallw(sb, sc, sd, ts, rb, rc, rd, ts, c->c, &h);
		break;
	default:
		ok = false;
	}
	if (ok && (tc_op_flags(ev->op) & TC_OPF_NB) && (ev->fields & TC_F_REQUEST))
		tc_rp_req_add(s, ev->request)->h = h;
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	free(ts);
	return ok;
}

/* In- and out-degree of c's topology (Cartesian: 2 per dimension; graph:
 * this rank's neighbours); false without a topology. */
static bool degrees(const struct tc_rcomm *c, int *in, int *out)
{
	int nd = 0, me = 0, weighted = 0;

	*in = *out = 0;
	if (c->topo == MPI_CART) {
		if (PMPI_Cartdim_get(c->c, &nd) != MPI_SUCCESS || nd > 8)
			return false;
		*in = *out = 2 * nd;
	} else if (c->topo == MPI_GRAPH) {
		if (PMPI_Comm_rank(c->c, &me) != MPI_SUCCESS ||
		    PMPI_Graph_neighbors_count(c->c, me, in) != MPI_SUCCESS)
			return false;
		*out = *in;
	} else if (c->topo == MPI_DIST_GRAPH) {
		if (PMPI_Dist_graph_neighbors_count(c->c, in, out, &weighted) != MPI_SUCCESS)
			return false;
	} else {
		return false;
	}
	return *in >= 0 && *out >= 0;
}

/*
 * MPI_Dist_graph_create leaves the order of a rank's neighbours to MPI,
 * so the graph made again may list them in another order than the
 * recorded one: move the recorded counts cnt[0..n) of the sources (dests:
 * of the destinations) to the replayed order, neighbours matched by world
 * rank, and make disp their prefix sums again. Nothing changes when c is
 * no distributed graph or its neighbours are not the recorded ones.
 */
static void dist_order(const struct tc_replay_mpi *s, const struct tc_rcomm *c,
		       const struct tc_event *ev, bool dests, int *cnt, int *disp, int n)
{
	const struct tc_comm *t = table_comm(s, ev->fields & TC_F_COMM ? ev->comm : TC_COMM_WORLD);
	int nin = 0, nout = 0, weighted = 0, *now, *old;
	int32_t *c2w;
	bool *used, ok = true;
	const int32_t *rec;

	if (c->topo != MPI_DIST_GRAPH || !t || !t->graph || n <= 0 ||
	    (int64_t)(dests ? t->nout : t->nin) != n ||
	    PMPI_Dist_graph_neighbors_count(c->c, &nin, &nout, &weighted) != MPI_SUCCESS ||
	    (dests ? nout : nin) != n)
		return;
	rec = t->edges + (dests ? t->nin : 0);
	now = tc_xcalloc(2 * ((size_t)nin + (size_t)nout) + 1, sizeof(*now));
	old = tc_xmalloc(tc_st_mult((size_t)n, sizeof(*old)));
	used = tc_xcalloc((size_t)n, sizeof(*used));
	c2w = tc_xmalloc(tc_st_mult((size_t)c->size, sizeof(*c2w)));
	comm_worlds(s, c, c2w);
	memcpy(old, cnt, (size_t)n * sizeof(*old));
	PMPI_Dist_graph_neighbors(c->c, nin, now, weighted ? now + nin + nout : MPI_UNWEIGHTED,
				  nout, now + nin, weighted ? now + 2 * nin + nout : MPI_UNWEIGHTED);
	for (int i = 0; i < n && ok; i++) {
		int r = now[(dests ? nin : 0) + i], j = 0;
		while (j < n && (used[j] || r < 0 || r >= c->size ||
				 tc_comm_member(t, (uint32_t)rec[j]) != c2w[r]))
			j++;
		if (j == n) {
			ok = false;
			break;
		}
		used[j] = true;
		cnt[i] = old[j];
	}
	if (!ok)
		memcpy(cnt, old, (size_t)n * sizeof(*cnt));
	for (int i = 0, at = 0; i < n; at += cnt[i], i++)
		disp[i] = at;
	free(c2w);
	free(used);
	free(old);
	free(now);
}

/* Neighbourhood collectives, on a Cartesian or graph communicator: the
 * counts of the v and w forms are per neighbour (the w form's in bytes),
 * the send counts per destination, the receive counts per source. */
static bool neigh(struct tc_replay_mpi *s, const struct tc_event *ev)
{
	struct tc_rcomm *c = tc_rp_comm_get(s, ev);
	MPI_Request h = MPI_REQUEST_NULL, *hp = ev->fields & TC_F_REQUEST ? &h : NULL;
	MPI_Datatype t, *ts = NULL;
	MPI_Aint *sdw = NULL, *rdw = NULL;
	bool exact, ok = true;
	int cnt = (int)ev->count, nin, nout, n, *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;
	void *sb = s->sbuf, *rb = s->rbuf;

	if (!c || !tc_rp_fits_int(ev->count) || !degrees(c, &nin, &nout))
		return false;
	n = (nin > nout ? nin : nout) + 1;
	sc = tc_xcalloc((size_t)n, sizeof(*sc));
	sd = tc_xcalloc((size_t)n, sizeof(*sd));
	rc = tc_xcalloc((size_t)n, sizeof(*rc));
	rd = tc_xcalloc((size_t)n, sizeof(*rd));
	ts = tc_xcalloc((size_t)n, sizeof(*ts));
	sdw = tc_xcalloc((size_t)n, sizeof(*sdw));
	rdw = tc_xcalloc((size_t)n, sizeof(*rdw));
	t = tc_rp_dtype(ev, &exact);
	switch (ev->op) {
	case TC_OP_NEIGHBOR_ALLGATHER:
	case TC_OP_INEIGHBOR_ALLGATHER:
		if (hp)
			MPI_Ineighbor_allgather(sb, cnt, t, rb, cnt, t, c->c, hp);
		else
			MPI_Neighbor_allgather(sb, cnt, t, rb, cnt, t, c->c);
		break;
	case TC_OP_NEIGHBOR_ALLTOALL:
	case TC_OP_INEIGHBOR_ALLTOALL:
		if (hp)
			MPI_Ineighbor_alltoall(sb, cnt, t, rb, cnt, t, c->c, hp);
		else
			MPI_Neighbor_alltoall(sb, cnt, t, rb, cnt, t, c->c);
		break;
	case TC_OP_NEIGHBOR_ALLGATHERV:
	case TC_OP_INEIGHBOR_ALLGATHERV:
		if (!(ok = vec(ev->rcounts, ev->nrcounts, nin, rc, rd)))
			break;
		dist_order(s, c, ev, false, rc, rd, nin);
		if (hp)
			MPI_Ineighbor_allgatherv(sb, cnt, t, rb, rc, rd, t, c->c, hp);
		else
			MPI_Neighbor_allgatherv(sb, cnt, t, rb, rc, rd, t, c->c);
		break;
	case TC_OP_NEIGHBOR_ALLTOALLV:
	case TC_OP_INEIGHBOR_ALLTOALLV:
		if (!(ok = vec(ev->scounts, ev->nscounts, nout, sc, sd) &&
			   vec(ev->rcounts, ev->nrcounts, nin, rc, rd)))
			break;
		dist_order(s, c, ev, true, sc, sd, nout);
		dist_order(s, c, ev, false, rc, rd, nin);
		if (hp)
			MPI_Ineighbor_alltoallv(sb, sc, sd, t, rb, rc, rd, t, c->c, hp);
		else
			MPI_Neighbor_alltoallv(sb, sc, sd, t, rb, rc, rd, t, c->c);
		break;
	case TC_OP_NEIGHBOR_ALLTOALLW:
	case TC_OP_INEIGHBOR_ALLTOALLW:
		if (!(ok = vec(ev->scounts, ev->nscounts, nout, sc, sd) &&
			   vec(ev->rcounts, ev->nrcounts, nin, rc, rd)))
			break;
		dist_order(s, c, ev, true, sc, sd, nout);
		dist_order(s, c, ev, false, rc, rd, nin);
		for (int j = 0; j < n; j++) {
			ts[j] = MPI_BYTE;
			sdw[j] = sd[j];
			rdw[j] = rd[j];
		}
		if (hp)
			MPI_Ineighbor_alltoallw(sb, sc, sdw, ts, rb, rc, rdw, ts, c->c, hp);
		else
			MPI_Neighbor_alltoallw(sb, sc, sdw, ts, rb, rc, rdw, ts, c->c);
		break;
	default:
		ok = false;
	}
	if (ok && hp)
		tc_rp_req_add(s, ev->request)->h = h;
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	free(ts);
	free(sdw);
	free(rdw);
	return ok;
}

/* A persistent collective's init: MPI-3 has none, its nonblocking form
 * is issued at each start. */
static bool coll_init(struct tc_replay_mpi *s, const struct tc_event *ev)
{
	struct tc_rreq *q;

	if (!(ev->fields & TC_F_REQUEST) || nonblocking(tc_op_base(ev->op)) == TC_OP_NONE)
		return false;
	q = tc_rp_req_add(s, ev->request);
	q->init = ev;
	q->persistent = true;
	return true;
}

/* ---- what is refused ------------------------------------------------------------------ */

/* The trace's communicators and windows by id, for the checks before the
 * replay: which call created each. */
struct ids {
	uint32_t *op;
	size_t n;
};

static void ids_set(struct ids *m, uint32_t id, uint32_t op)
{
	if (id >= m->n) {
		size_t n = m->n ? m->n : 16;
		while (n <= id)
			n *= 2;
		m->op = tc_xrealloc(m->op, tc_st_mult(n, sizeof(*m->op)));
		memset(m->op + m->n, 0, (n - m->n) * sizeof(*m->op));
		m->n = n;
	}
	m->op[id] = op;
}

static uint32_t ids_get(const struct ids *m, uint32_t id)
{
	return id < m->n ? m->op[id] : 0;
}

/* Why ev cannot be replayed, NULL if it can (comms, wins: the creators
 * so far). */
static const char *refusal(const struct tc_replay_mpi *s, const struct ids *comms,
			   const struct ids *wins, const struct tc_event *ev)
{
	unsigned creator = ids_get(comms, ev->fields & TC_F_COMM ? ev->comm : TC_COMM_WORLD);
	bool inter = creator == TC_OP_INTERCOMM_CREATE ||
		     creator == TC_OP_INTERCOMM_CREATE_FROM_GROUPS;

	switch (tc_op_kind(ev->op)) {
	case TC_K_COLL:
		if (tc_op_flags(ev->op) & TC_OPF_NEIGH) {
			if (creator == TC_OP_GRAPH_CREATE || creator == TC_OP_DIST_GRAPH_CREATE ||
			    creator == TC_OP_DIST_GRAPH_CREATE_ADJACENT) {
				const struct tc_comm *t = table_comm(s, ev->comm);
				if (!s->evs->ncomms)
					return "neighbourhood collective on a graph topology, "
					       "whose edges are in a communicator table, which "
					       "this global trace (written before they had one) "
					       "does not have";
				if (!t || !t->graph)
					return "neighbourhood collective on a graph topology, "
					       "whose edges the trace does not record";
				return NULL;
			}
			if (creator != TC_OP_CART_CREATE && creator != TC_OP_CART_SUB)
				return "neighbourhood collective on a communicator without a "
				       "Cartesian topology";
		}
		if (inter && (tc_op_flags(ev->op) & TC_OPF_ROOT))
			return "rooted collective on an intercommunicator";
		return NULL;
	case TC_K_COMM:
		switch (ev->op) {
		case TC_OP_COMM_SPAWN:
		case TC_OP_COMM_CONNECT:
		case TC_OP_COMM_ACCEPT:
			return "dynamic processes are not replayed";
		case TC_OP_CART_SUB:
			if (!s->evs->ncomms)
				return "the dimensions MPI_Cart_sub kept are in a communicator table, "
				       "which this global trace (written before they had one) does "
				       "not have";
			return NULL;
		case TC_OP_COMM_CREATE_GROUP:
		case TC_OP_COMM_CREATE_FROM_GROUP:
		case TC_OP_INTERCOMM_CREATE_FROM_GROUPS:
			if (!s->evs->ncomms)
				return "the group of the call is in a communicator table, which this "
				       "global trace (written before they had one) does not have";
			return NULL;
		default:
			return NULL;
		}
	case TC_K_RMA:
		return tc_rp_rma_refusal(ev, ids_get(wins, ev->file));
	case TC_K_ENV:
	case TC_K_SEND:
	case TC_K_RECV:
	case TC_K_SENDRECV:
	case TC_K_PROBE:
	case TC_K_PERSIST:
	case TC_K_START:
	case TC_K_WAIT:
		return NULL;
	case TC_K_IO:
		return s->io_dir ? NULL : "MPI-IO without a scratch directory to replay it in";
	default:
		return "not an operation the replay knows";
	}
}

const char *tc_replay_mpi_refusal(const struct tc_replay_mpi *s, size_t *at)
{
	struct ids comms = { 0 }, wins = { 0 };
	const char *why = NULL;

	for (size_t i = 0; i < s->evs->n && !why; i++) {
		const struct tc_event *ev = &s->evs->ev[i];
		why = refusal(s, &comms, &wins, ev);
		if (!why && ev->op == TC_OP_INTERCOMM_CREATE_FROM_GROUPS && s->src[i] < 0)
			why = "the remote group of MPI_Intercomm_create_from_groups is no other "
			      "rank's local group of the call";
		*at = i;
		if (tc_op_kind(ev->op) == TC_K_RMA && (ev->fields & TC_F_FILE) &&
		    (tc_op_flags(ev->op) & TC_OPF_WSYNC) && ev->op != TC_OP_WIN_FENCE)
			ids_set(&wins, ev->file, ev->op);
		if (tc_op_kind(ev->op) == TC_K_COMM && (ev->fields & TC_F_NEWCOMM))
			ids_set(&comms, ev->newcomm, ev->op == TC_OP_COMM_DUP ||
				ev->op == TC_OP_COMM_DUP_WITH_INFO ?
				ids_get(&comms, ev->comm) : ev->op);
	}
	free(comms.op);
	free(wins.op);
	return why;
}

/* ---- the loop ---------------------------------------------------------------------- */

/* the last stretch of a gap that is spun without yielding */
#define SPIN_NEAR_NS 1000000

uint64_t tc_rp_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t tc_rp_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* a CPU-time gap shorter than this is spun on the wall clock alone: the
 * CPU clock costs a system call a reading, as much as such a gap */
#define CPU_CHECK_NS 50000

/* Busy for ns of CPU time from the wall clock's now: the wall clock's
 * time at least, then as much longer as the rank was without a core
 * meanwhile. Returns how far it went past ns: the last clock reading's
 * lateness, in CPU time when the CPU clock was read, else in wall time. */
static uint64_t spin_cpu(uint64_t now, uint64_t ns)
{
	uint64_t c0 = ns >= CPU_CHECK_NS ? tc_rp_cpu_ns() : 0, used = 0, end = now + ns;

	for (;;) {
		while ((now = tc_rp_wall_ns()) < end)
			;
		if (!c0)
			return now - end;
		if ((used = tc_rp_cpu_ns() - c0) >= ns)
			return used - ns;
		end = now + (ns - used);
	}
}

/* Until the wall clock's end, sleeping or spinning (--compute sleep,
 * spin); returns how far past it the wait ended. */
static uint64_t wait_wall(int mode, uint64_t now, uint64_t end)
{
	struct timespec ts;

	if (mode == TC_COMPUTE_SLEEP) {
		ts.tv_sec = (time_t)(end / 1000000000u);
		ts.tv_nsec = (long)(end % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		now = tc_rp_wall_ns();
		return now > end ? now - end : 0;
	}
	/* far from its end, the gap yields the core between its checks: on
	 * an oversubscribed node the ranks that spin then share the cores in
	 * short turns and none overshoots its end by whole time slices of the
	 * others; near its end (and a short gap throughout) it spins, as a
	 * yield could cost more than the gap */
	while (now < end) {
		if (end - now > SPIN_NEAR_NS)
			sched_yield();
		now = tc_rp_wall_ns();
	}
	return now - end;
}

/*
 * Compute for the gap of ns before event i, the previous event's call
 * having returned at back (wall-clock ns, 0: not known): the time (ns of
 * CPU time under --compute cpu, else of the wall clock) it is asked to
 * take, 0 when none.
 *
 * The replay's own time between its calls counts as compute, as the
 * application's compute would have run then: the time since back (its
 * bookkeeping of the events; longer than CPU_CHECK_NS, it is not the
 * replay's, a few hundred ns an event, but the scheduler's: the rank
 * lost its core, and none of the gap's CPU time was spent), and how far
 * each wait went past its end. Where that is more than a gap asked for
 * (NPB CG at 16 ranks: half its gaps under 30 ns untraced, where the
 * replay's bookkeeping of an event takes more), the rest is carried in
 * s->debt_ns and taken out of the gaps that follow: each rank spends
 * between its calls what its gaps ask in all, not that plus the
 * replay's own time per event (on CG 0.0757 s over the ranks where its
 * gaps asked for 0.0589, 8 ms of its 72 on 2 cores, without the debt).
 */
static uint64_t compute(struct tc_replay_mpi *s, size_t i, uint64_t ns, uint64_t back)
{
	uint64_t want, own, now, late;

	if (s->o->compute == TC_COMPUTE_NONE)
		return 0;
	now = tc_rp_wall_ns();
	own = (back && now > back && now - back < CPU_CHECK_NS ? now - back : 0) + s->debt_ns;
	want = !ns ? 0 :
	       s->o->compute == TC_COMPUTE_CPU ?
		       (s->gap_cpu ? s->gap_cpu[i] : (uint64_t)((double)ns * s->o->cpu_share)) :
		       ns;
	if (own >= want) {
		s->debt_ns = own - want;
		return want;
	}
	/* the gap's CPU time under --compute cpu: its wall time at the share
	 * of a core the rank had when it was recorded; the scheduler
	 * stretches it back to wall time as it did the application's
	 * computing */
	late = s->o->compute == TC_COMPUTE_CPU ? spin_cpu(now, want - own) :
						wait_wall(s->o->compute, now, now + (want - own));
	/* as long as CPU_CHECK_NS, the lateness is the scheduler's too */
	s->debt_ns = late < CPU_CHECK_NS ? late : 0;
	return want;
}

/* The event's MPI call has just returned, its gap computed: what the
 * replay does for it from now on (its requests' bookkeeping) counts as
 * its own time in the next gap. */
void tc_rp_returned(struct tc_replay_mpi *s)
{
	if (s->o->compute != TC_COMPUTE_NONE)
		s->gap_back = tc_rp_wall_ns();
}

/* Compute the pending gap (tc_replay_mpi's gap_*), once per event; an
 * event without one adds the replay's own time to the debt. */
void tc_rp_gap(struct tc_replay_mpi *s)
{
	if (!s->gap_pending)
		return;
	s->gap_pending = false;
	/* a gap is not an MPI call: the watchdog does not count it */
	atomic_store_explicit(&s->in_mpi, false, memory_order_relaxed);
	s->compute_ns += compute(s, s->gap_at, s->gap_ns, s->gap_back);
	atomic_store_explicit(&s->in_mpi, true, memory_order_relaxed);
}

/* Whether replay_one's function for op computes the gap itself, after
 * its own bookkeeping (p2p, wait_test: most of a trace's events). */
static bool gap_inside(unsigned op)
{
	switch (tc_op_kind(op)) {
	case TC_K_SEND:
	case TC_K_RECV:
	case TC_K_SENDRECV:
	case TC_K_PERSIST:
		return op != TC_OP_MRECV && op != TC_OP_IMRECV;
	case TC_K_WAIT:
		return op != TC_OP_CANCEL && op != TC_OP_REQUEST_FREE && op != TC_OP_PARRIVED;
	default:
		return false;
	}
}

/* Replay event i: false when its operation is not replayed. */
static bool replay_one(struct tc_replay_mpi *s, size_t i, const struct tc_event *ev)
{
	if (!gap_inside(ev->op))
		tc_rp_gap(s);
	switch (tc_op_kind(ev->op)) {
	case TC_K_ENV:
		if (ev->op == TC_OP_PCONTROL) {
			MPI_Pcontrol((int)(int64_t)ev->count);
			return true;
		}
		return ev->op != TC_OP_NONE; /* Init and Finalize: the program's own */
	case TC_K_SEND:
	case TC_K_RECV:
	case TC_K_SENDRECV:
	case TC_K_PERSIST:
		if (ev->op == TC_OP_MRECV || ev->op == TC_OP_IMRECV)
			return mrecv(s, ev);
		return p2p(s, i, ev);
	case TC_K_PROBE:
		return probe(s, i, ev);
	case TC_K_START:
		return request_op(s, i, ev);
	case TC_K_WAIT:
		if (ev->op == TC_OP_CANCEL || ev->op == TC_OP_REQUEST_FREE)
			return request_op(s, i, ev);
		if (ev->op == TC_OP_PARRIVED)
			return true; /* MPI-3 has none: the receive completes at its wait */
		return wait_test(s, ev);
	case TC_K_COLL:
		if (tc_op_flags(ev->op) & TC_OPF_PERSIST)
			return coll_init(s, ev);
		if (tc_op_flags(ev->op) & TC_OPF_NEIGH)
			return neigh(s, ev);
		return coll(s, ev);
	case TC_K_RMA:
		return tc_rp_rma(s, i, ev);
	case TC_K_IO:
		return tc_rp_io(s, ev);
	case TC_K_COMM:
		return comm_op(s, i, ev);
	default:
		return false;
	}
}

void tc_replay_mpi_run(struct tc_replay_mpi *s)
{
	const struct tc_revents *e = s->evs;
	struct tc_gap_cursor gc = { 0, false };
	uint64_t back, from;
	bool timed = s->o->compute != TC_COMPUTE_NONE;

	for (size_t i = 0; i < e->n; i++) {
		const struct tc_event *ev = &e->ev[i];
		s->gap_ns = tc_gap_next(&gc, ev, &from);
		s->gap_at = i;
		s->gap_pending = true;
		back = s->gap_back;
		/* relaxed: the watchdog polls them every second */
		atomic_store_explicit(&s->progress, (uint64_t)i, memory_order_relaxed);
		atomic_store_explicit(&s->in_mpi, true, memory_order_relaxed);
		if (!replay_one(s, i, ev))
			skip(s, ev);
		/* an event that made no MPI call: its gap all the same */
		tc_rp_gap(s);
		atomic_store_explicit(&s->in_mpi, false, memory_order_relaxed);
		/* the call's return, where its function did not stamp it */
		if (timed && s->gap_back == back)
			s->gap_back = tc_rp_wall_ns();
	}
}
