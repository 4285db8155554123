/*
 * rma.c - one-sided communication re-executed: windows, the operations
 * on them and their synchronisation.
 *
 * Every window is made by the recorded call on the recorded communicator,
 * as large as the largest access any rank makes, with the recorded
 * displacement unit; operations address displacement 0 with the recorded
 * counts and types, the target a rank of the window's communicator. A
 * lock has its recorded type and the groups of a general active target
 * epoch their recorded members. What a trace written before they were
 * recorded does not have is chosen so as not to deadlock: a lock is
 * shared; the groups are the ranks the access epochs address (start) and
 * the ranks whose access epochs address this one (post), learnt by an
 * exchange when the window is made, or their union, whichever has the
 * recorded size. How often MPI_Win_test found the exposure epoch still
 * open is timing: a recorded test that found it open is replayed as
 * nothing, and the one that found it complete as MPI_Win_test called
 * until it says so (an MPI_Win_wait the trace names as the test).
 * Operations on a dynamic window (its attached memory is not recorded)
 * are refused.
 */
#include "lib/compat.h"
#include "cmd/mpi/internal.h"
#include "lib/event.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

size_t tc_rp_rma_bytes(const struct tc_revents *evs)
{
	size_t most = 64;

	for (size_t i = 0; i < evs->n; i++) {
		const struct tc_event *ev = &evs->ev[i];
		uint64_t b = ev->count * (ev->dtype_size ? ev->dtype_size : 1);
		if (tc_op_kind(ev->op) == TC_K_RMA &&
		    (tc_op_flags(ev->op) & (TC_OPF_PUT | TC_OPF_GET)) && b > most &&
		    b < ((uint64_t)1 << 31))
			most = (size_t)b;
	}
	return most;
}

const char *tc_rp_rma_refusal(const struct tc_event *ev, unsigned win_creator)
{
	if (!(ev->fields & TC_F_FILE))
		return "an RMA call without its window";
	if ((tc_op_flags(ev->op) & (TC_OPF_PUT | TC_OPF_GET)) &&
	    win_creator == TC_OP_WIN_CREATE_DYNAMIC)
		return "an access to a dynamic window, whose attached memory the trace does "
		       "not record";
	return NULL;
}

static struct tc_rwin *win_find(struct tc_replay_mpi *s, uint32_t id)
{
	for (size_t i = s->nwins; i-- > 0;)
		if (s->wins[i].valid && s->wins[i].id == id)
			return &s->wins[i];
	return NULL;
}

static struct tc_rwin *win_add(struct tc_replay_mpi *s, uint32_t id)
{
	struct tc_rwin *w = NULL;

	for (size_t i = 0; i < s->nwins && !w; i++)
		if (!s->wins[i].valid)
			w = &s->wins[i];
	if (!w) {
		s->wins = tc_xrealloc(s->wins, tc_st_mult(s->nwins + 1, sizeof(*s->wins)));
		w = &s->wins[s->nwins++];
	}
	memset(w, 0, sizeof(*w));
	w->id = id;
	w->w = MPI_WIN_NULL;
	return w;
}

static void win_drop(struct tc_rwin *w)
{
	free(w->mem);
	free(w->post);
	free(w->start);
	memset(w, 0, sizeof(*w));
	w->w = MPI_WIN_NULL;
}

/*
 * The groups of the window's general active target epochs, from the
 * events from its creation at i to its MPI_Win_free: mine, the ranks my
 * access epochs address; theirs (an exchange over c), the ranks whose
 * access epochs address me. Kept as lists of ranks of c: start the
 * first, post the second, and both extended with the other by
 * pscw_group when the recorded size asks for the union.
 */
static void pscw_groups(struct tc_replay_mpi *s, size_t i, const struct tc_rcomm *c,
			struct tc_rwin *w)
{
	const struct tc_revents *e = s->evs;
	int *mine = tc_xcalloc((size_t)c->size, sizeof(int));
	int *theirs = tc_xcalloc((size_t)c->size, sizeof(int));
	bool in_epoch = false;
	int r;

	for (size_t j = i + 1; j < e->n; j++) {
		const struct tc_event *ev = &e->ev[j];
		if (tc_op_kind(ev->op) != TC_K_RMA || !(ev->fields & TC_F_FILE) || ev->file != w->id)
			continue;
		if (ev->op == TC_OP_WIN_FREE)
			break;
		if (ev->op == TC_OP_WIN_START)
			in_epoch = true;
		else if (ev->op == TC_OP_WIN_COMPLETE)
			in_epoch = false;
		else if (in_epoch && (tc_op_flags(ev->op) & (TC_OPF_PUT | TC_OPF_GET)) &&
			 tc_rp_comm_rank(c, ev->peer, &r) && r >= 0)
			mine[r] = 1;
	}
	PMPI_Alltoall(mine, 1, MPI_INT, theirs, 1, MPI_INT, c->c);
	w->start = tc_xmalloc(tc_st_mult((size_t)c->size, sizeof(int)) * 2);
	w->post = tc_xmalloc(tc_st_mult((size_t)c->size, sizeof(int)) * 2);
	for (r = 0; r < c->size; r++) {
		if (mine[r])
			w->start[w->nstart++] = r;
		if (theirs[r])
			w->post[w->npost++] = r;
	}
	free(mine);
	free(theirs);
}

/* The group of a post (post) or start epoch of n ranks: the list, or its
 * union with the other one, whichever has n ranks. */
static bool pscw_group(const struct tc_rwin *w, bool post, uint64_t n, MPI_Comm c,
		       MPI_Group *g)
{
	const int *a = post ? w->post : w->start, *b = post ? w->start : w->post;
	int na = post ? w->npost : w->nstart, nb = post ? w->nstart : w->npost;
	int *u = tc_xmalloc(tc_st_mult((size_t)(na + nb) + 1, sizeof(int))), nu = 0;
	MPI_Group cg;
	bool ok = true;

	memcpy(u, a, (size_t)na * sizeof(int));
	nu = na;
	if ((uint64_t)na != n) {
		for (int j = 0; j < nb; j++) {
			bool seen = false;
			for (int k = 0; k < na && !seen; k++)
				seen = a[k] == b[j];
			if (!seen)
				u[nu++] = b[j];
		}
		ok = (uint64_t)nu == n;
	}
	if (ok) {
		PMPI_Comm_group(c, &cg);
		PMPI_Group_incl(cg, nu, u, g);
		PMPI_Group_free(&cg);
	}
	free(u);
	return ok;
}

/* The recorded group of a post or start epoch (its members' world ranks
 * in the event's scounts) as a group of c; false when the event has none
 * (a trace written before it was recorded) or a member is not one of c. */
static bool recorded_group(const struct tc_event *ev, const struct tc_rcomm *c, MPI_Group *g)
{
	int *u, n = 0;
	MPI_Group cg;
	bool ok = (ev->fields & TC_F_SCOUNTS) && ev->nscounts == ev->count &&
		  ev->nscounts <= (uint32_t)c->size;

	if (!ok)
		return false;
	u = tc_xmalloc(tc_st_mult(ev->nscounts ? ev->nscounts : 1, sizeof(*u)));
	for (uint32_t j = 0; j < ev->nscounts && ok; j++)
		ok = ev->scounts[j] < (uint64_t)INT32_MAX &&
		     tc_rp_comm_rank(c, (int32_t)ev->scounts[j], &u[n++]) && u[n - 1] >= 0;
	if (ok) {
		PMPI_Comm_group(c->c, &cg);
		PMPI_Group_incl(cg, n, u, g);
		PMPI_Group_free(&cg);
	}
	free(u);
	return ok;
}

/* A predefined type of the event's element size, for the atomic calls
 * that take no other. */
static MPI_Datatype atomic_type(const struct tc_event *ev, MPI_Datatype t, bool exact)
{
	if (exact)
		return t;
	switch (ev->dtype_size) {
	case 0:
	case 1: return MPI_UINT8_T;
	case 2: return MPI_UINT16_T;
	case 4: return MPI_UINT32_T;
	case 8: return MPI_UINT64_T;
	default: return MPI_DATATYPE_NULL;
	}
}

static bool win_make(struct tc_replay_mpi *s, size_t i, const struct tc_event *ev,
		     struct tc_rcomm *c)
{
	struct tc_rwin *w;
	MPI_Aint size = (MPI_Aint)s->rma_bytes;
	void *base = NULL;
	/* the recorded displacement unit (not recorded before: one byte) */
	int du = (ev->fields & TC_F_COUNT) && ev->count > 0 && tc_rp_fits_int(ev->count) ?
		 (int)ev->count : 1;

	if (c->inter)
		return false;
	w = win_add(s, ev->file);
	w->comm = ev->fields & TC_F_COMM ? ev->comm : TC_COMM_WORLD;
	switch (ev->op) {
	case TC_OP_WIN_CREATE:
		w->mem = tc_xcalloc(1, s->rma_bytes);
		MPI_Win_create(w->mem, size, du, MPI_INFO_NULL, c->c, &w->w);
		break;
	case TC_OP_WIN_ALLOCATE:
		MPI_Win_allocate(size, du, MPI_INFO_NULL, c->c, &base, &w->w);
		break;
	case TC_OP_WIN_ALLOCATE_SHARED:
		MPI_Win_allocate_shared(size, du, MPI_INFO_NULL, c->c, &base, &w->w);
		break;
	default:
		MPI_Win_create_dynamic(MPI_INFO_NULL, c->c, &w->w);
		break;
	}
	w->valid = true;
	pscw_groups(s, i, c, w);
	return true;
}

/* Put, get, accumulate and the atomic calls. */
static bool rma_access(struct tc_replay_mpi *s, const struct tc_event *ev, struct tc_rwin *w,
		   struct tc_rcomm *c)
{
	MPI_Request h = MPI_REQUEST_NULL;
	MPI_Datatype t;
	MPI_Op op;
	bool exact;
	int target, cnt = (int)ev->count;
	void *sb = s->sbuf, *rb = s->rbuf;

	if (!tc_rp_fits_int(ev->count) || !tc_rp_comm_rank(c, ev->peer, &target))
		return false;
	t = tc_rp_dtype(ev, &exact);
	/* a reduction on a type that is not the recorded one replaces */
	op = exact ? tc_rp_predef_op(ev->redop) : MPI_OP_NULL;
	if (op == MPI_OP_NULL)
		op = ev->redop == TC_RED_NO_OP ? MPI_NO_OP : MPI_REPLACE;
	switch (ev->op) {
	case TC_OP_PUT: MPI_Put(sb, cnt, t, target, 0, cnt, t, w->w); break;
	case TC_OP_RPUT: MPI_Rput(sb, cnt, t, target, 0, cnt, t, w->w, &h); break;
	case TC_OP_GET: MPI_Get(rb, cnt, t, target, 0, cnt, t, w->w); break;
	case TC_OP_RGET: MPI_Rget(rb, cnt, t, target, 0, cnt, t, w->w, &h); break;
	case TC_OP_ACCUMULATE:
		MPI_Accumulate(sb, cnt, t, target, 0, cnt, t, op, w->w);
		break;
	case TC_OP_RACCUMULATE:
		MPI_Raccumulate(sb, cnt, t, target, 0, cnt, t, op, w->w, &h);
		break;
	case TC_OP_GET_ACCUMULATE:
		MPI_Get_accumulate(sb, cnt, t, rb, cnt, t, target, 0, cnt, t, op, w->w);
		break;
	case TC_OP_RGET_ACCUMULATE:
		MPI_Rget_accumulate(sb, cnt, t, rb, cnt, t, target, 0, cnt, t, op, w->w, &h);
		break;
	case TC_OP_FETCH_AND_OP:
	case TC_OP_COMPARE_AND_SWAP:
		if ((t = atomic_type(ev, t, exact)) == MPI_DATATYPE_NULL)
			return false;
		if (ev->op == TC_OP_FETCH_AND_OP)
			MPI_Fetch_and_op(sb, rb, t, target, 0, op, w->w);
		else
			MPI_Compare_and_swap(sb, sb, rb, t, target, 0, w->w);
		break;
	default:
		return false;
	}
	if ((tc_op_flags(ev->op) & TC_OPF_NB) && (ev->fields & TC_F_REQUEST))
		tc_rp_req_add(s, ev->request)->h = h;
	return true;
}

static bool sync_op(const struct tc_event *ev, struct tc_rwin *w, struct tc_rcomm *c)
{
	MPI_Group g;
	int target = 0;

	if ((ev->op == TC_OP_WIN_LOCK || ev->op == TC_OP_WIN_UNLOCK || ev->op == TC_OP_WIN_FLUSH ||
	     ev->op == TC_OP_WIN_FLUSH_LOCAL) && !tc_rp_comm_rank(c, ev->peer, &target))
		return false;
	switch (ev->op) {
	case TC_OP_WIN_FENCE: MPI_Win_fence(0, w->w); break;
	case TC_OP_WIN_LOCK:
		/* not recorded (an older trace): shared, which never waits on others */
		MPI_Win_lock((ev->fields & TC_F_TAG) && ev->tag == TC_LOCK_EXCLUSIVE ?
			     MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, target, 0, w->w);
		break;
	case TC_OP_WIN_UNLOCK: MPI_Win_unlock(target, w->w); break;
	case TC_OP_WIN_LOCK_ALL: MPI_Win_lock_all(0, w->w); break;
	case TC_OP_WIN_UNLOCK_ALL: MPI_Win_unlock_all(w->w); break;
	case TC_OP_WIN_FLUSH: MPI_Win_flush(target, w->w); break;
	case TC_OP_WIN_FLUSH_ALL: MPI_Win_flush_all(w->w); break;
	case TC_OP_WIN_FLUSH_LOCAL: MPI_Win_flush_local(target, w->w); break;
	case TC_OP_WIN_FLUSH_LOCAL_ALL: MPI_Win_flush_local_all(w->w); break;
	case TC_OP_WIN_COMPLETE: MPI_Win_complete(w->w); break;
	case TC_OP_WIN_WAIT: MPI_Win_wait(w->w); break;
	case TC_OP_WIN_SYNC: MPI_Win_sync(w->w); break;
	case TC_OP_WIN_TEST:
		/* count 1: the test that found the epoch complete (a trace
		 * always has the count) */
		if (!(ev->fields & TC_F_COUNT) || ev->count) {
			int flag = 0;
			do
				MPI_Win_test(w->w, &flag);
			while (!flag);
		}
		break;
	case TC_OP_WIN_POST:
	case TC_OP_WIN_START:
		if (!recorded_group(ev, c, &g) &&
		    !pscw_group(w, ev->op == TC_OP_WIN_POST, ev->count, c->c, &g))
			return false;
		if (ev->op == TC_OP_WIN_POST)
			MPI_Win_post(g, 0, w->w);
		else
			MPI_Win_start(g, 0, w->w);
		PMPI_Group_free(&g);
		break;
	default:
		return false;
	}
	return true;
}

bool tc_rp_rma(struct tc_replay_mpi *s, size_t i, const struct tc_event *ev)
{
	struct tc_rcomm *c = tc_rp_comm_get(s, ev);
	struct tc_rwin *w;

	if (!c || !(ev->fields & TC_F_FILE))
		return false;
	switch (ev->op) {
	case TC_OP_WIN_CREATE:
	case TC_OP_WIN_ALLOCATE:
	case TC_OP_WIN_ALLOCATE_SHARED:
	case TC_OP_WIN_CREATE_DYNAMIC:
		return win_make(s, i, ev, c);
	default:
		break;
	}
	if (!(w = win_find(s, ev->file)))
		return false;
	if (ev->op == TC_OP_WIN_FREE) {
		MPI_Win_free(&w->w);
		win_drop(w);
		return true;
	}
	if (tc_op_flags(ev->op) & (TC_OPF_PUT | TC_OPF_GET))
		return rma_access(s, ev, w, c);
	return sync_op(ev, w, c);
}

void tc_rp_rma_release(struct tc_replay_mpi *s)
{
	/* windows the trace left open are not freed (freeing is collective),
	 * nor the memory MPI still has */
	for (size_t i = 0; i < s->nwins; i++) {
		free(s->wins[i].post);
		free(s->wins[i].start);
	}
	free(s->wins);
	s->wins = NULL;
	s->nwins = 0;
}
