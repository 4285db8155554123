/*
 * record.c - the recording side of every wrapped MPI function.
 *
 * Pattern of each function: if the call is not to be recorded (tracing
 * off, or nested in another wrapper), call PMPI_ and return. Otherwise
 * read the clock, call PMPI_, read the clock again (tc_cap_begin), fill
 * the event, commit. Work that needs a handle before MPI changes it
 * (requests completed by wait/test, a communicator being freed) is done
 * before the PMPI_ call, outside the timed interval.
 *
 * Field conventions (see libtracecluster-capture(3)): peers and roots are
 * world ranks; count/dtype describe this process's contribution (send
 * side; the receive side for Scatter(v)); v-variants add the per-peer
 * count vectors (per topology neighbour for neighbourhood collectives);
 * completions give request id, actual source, tag and received bytes.
 * One-sided calls put the window id and target displacement in the
 * file/offset fields; a matched probe's message shares its id with the
 * receive (and the Imrecv request) that takes it.
 *
 * Without memory for the per-thread scratch arrays recording has stopped
 * (tc_cap_nomem): the event goes without the arrays, or, where the arrays
 * are needed before the PMPI_ call (wait and test), the call is passed on
 * unrecorded.
 */
#include "lib/compat.h"
#include "lib/capture/record.h"
#include "lib/capture/calls.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- per-thread scratch ------------------------------------------------- */

static __thread struct tc_scratch *tls_scratch __attribute__((tls_model("initial-exec")));
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p)
{
	struct tc_scratch *s = p;

	if (!s)
		return;
	free(s->compl);
	free(s->scounts);
	free(s->rcounts);
	free(s->reqs);
	free(s->statuses);
	free(s->handles);
	free(s);
}

static void scratch_key_init(void)
{
	pthread_key_create(&scratch_key, scratch_free);
}

/* This thread's scratch arrays; NULL without memory. */
struct tc_scratch *tc_scratch_get(void)
{
	if (TC_UNLIKELY(!tls_scratch)) {
		pthread_once(&scratch_once, scratch_key_init);
		tls_scratch = tc_cap_calloc(1, sizeof(*tls_scratch));
		if (tls_scratch)
			pthread_setspecific(scratch_key, tls_scratch);
	}
	return tls_scratch;
}

/* ---- event helpers ------------------------------------------------------ */

static inline void set_rc(struct tc_event *ev, int rc)
{
	if (rc != MPI_SUCCESS) {
		ev->fields |= TC_F_RESULT;
		ev->result = rc;
	}
}

static inline void set_dtype(struct tc_event *ev, uint64_t count, MPI_Datatype dt)
{
	ev->fields |= TC_F_COUNT | TC_F_DTYPE;
	ev->count = count;
	tc_dtype(dt, &ev->dtype, &ev->dtype_size);
}

static inline void set_p2p(struct tc_event *ev, const struct tc_comm_info *ci, int peer,
			   int tag, MPI_Count count, MPI_Datatype dt)
{
	ev->fields |= TC_F_COMM | TC_F_PEER | TC_F_TAG;
	ev->comm = ci->id;
	ev->peer = tc_comm_peer(ci, peer);
	ev->tag = tag;
	set_dtype(ev, count < 0 ? 0 : (uint64_t)count, dt);
}

static inline void set_comm(struct tc_event *ev, const struct tc_comm_info *ci)
{
	ev->fields |= TC_F_COMM;
	ev->comm = ci->id;
}

static inline void set_root(struct tc_event *ev, const struct tc_comm_info *ci, int root)
{
	ev->fields |= TC_F_ROOT;
	ev->root = root == MPI_ROOT ? tc_cap.rank : tc_comm_peer(ci, root);
}

static inline void set_redop(struct tc_event *ev, MPI_Op op)
{
	ev->fields |= TC_F_REDOP;
	ev->redop = tc_redop(op);
}

static inline uint64_t status_bytes(const MPI_Status *st)
{
	int n = 0;

	if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
		return 0;
	return (uint64_t)n;
}

/* A receive's status as a completion record. */
static inline void set_status(struct tc_completion *c, const MPI_Status *st,
			      const struct tc_comm_info *ci, uint64_t id)
{
	c->request = id;
	c->source = tc_comm_peer(ci, st->MPI_SOURCE);
	c->tag = st->MPI_TAG;
	c->bytes = status_bytes(st);
}

static inline void one_completion(struct tc_event *ev, struct tc_completion *c)
{
	ev->fields |= TC_F_COMPL;
	ev->ncompl = 1;
	ev->compl = c;
}

static inline uint64_t ucount(MPI_Count n)
{
	return n > 0 ? (uint64_t)n : 0;
}

/* Count i of v: an int, or with large an MPI_Count (record.h). */
static inline uint64_t vec_count(union tc_vec v, bool large, int i)
{
	return large ? ucount(v.c[i]) : v.i[i] > 0 ? (uint64_t)v.i[i] : 0;
}

/* v[0..n) as 64-bit counts in *arr; NULL without memory. */
static uint64_t *counts64(uint64_t **arr, size_t *alloc, union tc_vec v, bool large, int n)
{
	if (!TC_CAP_GROW(*arr, (size_t)(n > 0 ? n : 1), *alloc))
		return NULL;
	for (int i = 0; i < n; i++)
		(*arr)[i] = vec_count(v, large, i);
	return *arr;
}

static void set_scounts(struct tc_event *ev, struct tc_scratch *sc, union tc_vec v, bool large,
			int n)
{
	const uint64_t *c;

	if (!v.i || n <= 0 || !sc ||
	    !(c = counts64(&sc->scounts, &sc->scounts_alloc, v, large, n)))
		return;
	ev->fields |= TC_F_SCOUNTS;
	ev->scounts = c;
	ev->nscounts = (uint32_t)n;
}

static void set_rcounts(struct tc_event *ev, struct tc_scratch *sc, union tc_vec v, bool large,
			int n)
{
	const uint64_t *c;

	if (!v.i || n <= 0 || !sc ||
	    !(c = counts64(&sc->rcounts, &sc->rcounts_alloc, v, large, n)))
		return;
	ev->fields |= TC_F_RCOUNTS;
	ev->rcounts = c;
	ev->nrcounts = (uint32_t)n;
}

static inline void set_request(struct tc_event *ev, int rc, MPI_Request *req, unsigned op,
			       enum tc_req_kind kind, bool persistent, struct tc_comm_info *ci)
{
	if (rc != MPI_SUCCESS || !req)
		return;
	ev->fields |= TC_F_REQUEST;
	ev->request = tc_req_new(*req, op, kind, persistent, ci, ev);
}

#define PASS_IF_OFF(call)                   \
	do {                                \
		if (!tc_cap_enter())        \
			return call;        \
	} while (0)

/* Inside a wrapper: make the call unrecorded after all. */
#define PASS_ON(call)                       \
	do {                                \
		int rc_ = call;             \
		tc_cap_leave();             \
		return rc_;                 \
	} while (0)

/* ---- environment -------------------------------------------------------- */

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int tcw_init(int *argc, char ***argv, void *ra)
{
	uint64_t rt = realtime_ns(), t0 = tc_cap_clock();
	int rc = PMPI_Init(argc, argv), provided = MPI_THREAD_SINGLE;

	if (rc == MPI_SUCCESS) {
		PMPI_Query_thread(&provided);
		tc_cap_setup(TC_OP_INIT, t0, rt, provided, ra);
	}
	return rc;
}

int tcw_init_thread(int *argc, char ***argv, int required, int *provided, void *ra)
{
	uint64_t rt = realtime_ns(), t0 = tc_cap_clock();
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	if (rc == MPI_SUCCESS)
		tc_cap_setup(TC_OP_INIT_THREAD, t0, rt, *provided, ra);
	return rc;
}

int tcw_finalize(void *ra)
{
	uint64_t t0 = tc_cap_clock(), t1;
	int rc;

	if (tc_cap_online_finalize(t0, ra))
		return PMPI_Finalize();
	rc = PMPI_Finalize();

	t1 = tc_cap_clock();
	tc_cap_finalize(t0, t1, rc, ra);
	return rc;
}

int tcw_abort(MPI_Comm comm, int code)
{
	tc_cap_shutdown();
	return PMPI_Abort(comm, code);
}

int tcw_pcontrol(int level, void *ra)
{
	uint64_t t0 = tc_cap_clock();

	/* resuming: record the call that resumes */
	if (level != 0)
		tc_cap_pcontrol(level);
	if (tc_cap_enter()) {
		struct tc_rec r;
		tc_cap_begin(&r, TC_OP_PCONTROL, t0, ra);
		r.ev.fields |= TC_F_COUNT;
		r.ev.count = (uint64_t)(int64_t)level;
		tc_cap_commit(&r);
		tc_cap_leave();
	}
	if (level == 0)
		tc_cap_pcontrol(level);
	return MPI_SUCCESS;
}

/* ---- point to point ----------------------------------------------------- */

static inline int pmpi_send(unsigned op, const void *buf, int count, MPI_Datatype dt, int dest,
			    int tag, MPI_Comm comm)
{
	switch (op) {
#define X(name, OP, lc)            \
	case TC_OP_##OP:        \
		return PMPI_##name(buf, count, dt, dest, tag, comm);
		TC_CALLS_SEND(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

int tcw_send(unsigned op, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
	     MPI_Comm comm, void *ra)
{
	struct tc_rec r;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_send(op, buf, count, dt, dest, tag, comm));
	t0 = tc_cap_clock();
	rc = pmpi_send(op, buf, count, dt, dest, tag, comm);
	tc_cap_begin(&r, op, t0, ra);
	set_p2p(&r.ev, tc_comm_get(comm), dest, tag, count, dt);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

static inline int pmpi_isend(unsigned op, const void *buf, int count, MPI_Datatype dt, int peer,
			     int tag, MPI_Comm comm, MPI_Request *req)
{
	switch (op) {
#define X(name, OP, lc)            \
	case TC_OP_##OP:        \
		return PMPI_##name(buf, count, dt, peer, tag, comm, req);
		TC_CALLS_ISEND(X)
#undef X
#define X(name, OP, lc)            \
	case TC_OP_##OP:        \
		return PMPI_##name((void *)buf, count, dt, peer, tag, comm, req);
		TC_CALLS_IRECV(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

int tcw_isend(unsigned op, const void *buf, int count, MPI_Datatype dt, int peer, int tag,
	      MPI_Comm comm, MPI_Request *req, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;
	bool recv = op == TC_OP_IRECV || op == TC_OP_RECV_INIT;
	bool persistent = tc_op_kind(op) == TC_K_PERSIST;

	PASS_IF_OFF(pmpi_isend(op, buf, count, dt, peer, tag, comm, req));
	t0 = tc_cap_clock();
	rc = pmpi_isend(op, buf, count, dt, peer, tag, comm, req);
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_p2p(&r.ev, ci, peer, tag, count, dt);
	set_request(&r.ev, rc, req, op, recv ? TC_REQ_RECV : TC_REQ_SEND, persistent, ci);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
	     MPI_Status *status, void *ra)
{
	struct tc_rec r;
	struct tc_completion c;
	struct tc_comm_info *ci;
	MPI_Status st;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Recv(buf, count, dt, src, tag, comm, status));
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	t0 = tc_cap_clock();
	rc = PMPI_Recv(buf, count, dt, src, tag, comm, status);
	tc_cap_begin(&r, TC_OP_RECV, t0, ra);
	ci = tc_comm_get(comm);
	set_p2p(&r.ev, ci, src, tag, count, dt);
	if (rc == MPI_SUCCESS) {
		set_status(&c, status, ci, 0);
		one_completion(&r.ev, &c);
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/*
 * LARGE_OR(callc, call): the MPI-4 large-count form callc when `large`
 * (the _c bindings, MPI_Count counts), else call (int counts, the values
 * of which came from ints); without MPI-4 only the latter exists.
 */
#if MPI_VERSION >= 4
#define LARGE_OR(callc, call) (large ? (callc) : (call))
#else
#define LARGE_OR(callc, call) ((void)large, (call))
#endif

int tcw_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
		 void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int src, int rtag,
		 MPI_Comm comm, MPI_Status *status, bool large, void *ra)
{
	struct tc_rec r;
	struct tc_completion c;
	struct tc_comm_info *ci;
	MPI_Status st;
	uint64_t t0;
	int rc;

#define CALL LARGE_OR(PMPI_Sendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,  \
				      src, rtag, comm, status),                         \
		      PMPI_Sendrecv(sbuf, (int)scount, stype, dest, stag, rbuf, (int)rcount,  \
				    rtype, src, rtag, comm, status))
	PASS_IF_OFF(CALL);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, TC_OP_SENDRECV, t0, ra);
	ci = tc_comm_get(comm);
	set_p2p(&r.ev, ci, dest, stag, scount, stype);
	r.ev.fields |= TC_F_RPEER;
	r.ev.rpeer = tc_comm_peer(ci, src);
	r.ev.rtag = rtag;
	if (rc == MPI_SUCCESS) {
		set_status(&c, status, ci, 0);
		one_completion(&r.ev, &c);
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
			 int src, int rtag, MPI_Comm comm, MPI_Status *status, bool large,
			 void *ra)
{
	struct tc_rec r;
	struct tc_completion c;
	struct tc_comm_info *ci;
	MPI_Status st;
	uint64_t t0;
	int rc;

#define CALL LARGE_OR(PMPI_Sendrecv_replace_c(buf, count, dt, dest, stag, src, rtag, comm,    \
					      status),                                    \
		      PMPI_Sendrecv_replace(buf, (int)count, dt, dest, stag, src, rtag, comm, \
					    status))
	PASS_IF_OFF(CALL);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, TC_OP_SENDRECV_REPLACE, t0, ra);
	ci = tc_comm_get(comm);
	set_p2p(&r.ev, ci, dest, stag, count, dt);
	r.ev.fields |= TC_F_RPEER;
	r.ev.rpeer = tc_comm_peer(ci, src);
	r.ev.rtag = rtag;
	if (rc == MPI_SUCCESS) {
		set_status(&c, status, ci, 0);
		one_completion(&r.ev, &c);
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* Probe (flag NULL) and Iprobe */
int tcw_probe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status, void *ra)
{
	struct tc_rec r;
	struct tc_completion c;
	struct tc_comm_info *ci;
	MPI_Status st;
	uint64_t t0;
	int rc;

#define CALL (flag ? PMPI_Iprobe(src, tag, comm, flag, status) : PMPI_Probe(src, tag, comm, status))
	PASS_IF_OFF(CALL);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, flag ? TC_OP_IPROBE : TC_OP_PROBE, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	r.ev.fields |= TC_F_PEER | TC_F_TAG;
	r.ev.peer = tc_comm_peer(ci, src);
	r.ev.tag = tag;
	if (rc == MPI_SUCCESS && (!flag || *flag)) {
		set_status(&c, status, ci, 0);
		one_completion(&r.ev, &c);
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* The parameters of a persistent request, copied into its Start event. */
static void start_params(struct tc_event *ev, const struct tc_req_info *ri)
{
	ev->fields |= TC_F_REQUEST | TC_F_COMM;
	ev->request = ri->id;
	ev->comm = ri->comm_id;
	/* a persistent collective has no peer, a barrier no data */
	if (ri->kind != TC_REQ_COLL) {
		ev->fields |= TC_F_PEER | TC_F_TAG;
		ev->peer = ri->peer;
		ev->tag = ri->tag;
	}
	if (ri->kind != TC_REQ_COLL || ri->dtype)
		ev->fields |= TC_F_COUNT | TC_F_DTYPE;
	ev->count = ri->count;
	ev->dtype = ri->dtype;
	ev->dtype_size = ri->dtype_size;
}

int tcw_start(MPI_Request *req, void *ra)
{
	struct tc_rec r;
	struct tc_req_info ri;
	MPI_Request h = *req;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Start(req));
	t0 = tc_cap_clock();
	rc = PMPI_Start(req);
	tc_cap_begin(&r, TC_OP_START, t0, ra);
	if (tc_req_peek(h, tc_req_stamp(), &ri)) {
		start_params(&r.ev, &ri);
		if (rc == MPI_SUCCESS)
			tc_req_start(h, ri.id);
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_startall(int n, MPI_Request reqs[], void *ra)
{
	struct tc_rec r;
	struct tc_scratch *sc;
	uint32_t stamp;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Startall(n, reqs));
	t0 = tc_cap_clock();
	rc = PMPI_Startall(n, reqs);
	sc = tc_scratch_get();
	if (sc && !TC_CAP_GROW(sc->compl, (size_t)(n > 0 ? n : 1), sc->compl_alloc))
		sc = NULL;
	tc_cap_begin(&r, TC_OP_STARTALL, t0, ra);
	stamp = tc_req_stamp();
	r.ev.fields |= TC_F_COUNT;
	r.ev.count = n > 0 ? (uint64_t)n : 0;
	if (sc) {
		r.ev.fields |= TC_F_COMPL;
		r.ev.compl = sc->compl;
	}
	for (int i = 0; i < n && sc; i++) {
		struct tc_req_info ri;
		struct tc_completion *c = &sc->compl[r.ev.ncompl];
		if (!tc_req_peek(reqs[i], stamp, &ri))
			continue;
		/* the started requests, in order: not completions, but the
		 * same (request, peer, tag) shape */
		c->request = ri.id;
		c->source = ri.peer;
		c->tag = ri.tag;
		c->bytes = ri.count * ri.dtype_size;
		r.ev.ncompl++;
		if (rc == MPI_SUCCESS)
			tc_req_start(reqs[i], ri.id);
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_request_free(MPI_Request *req, void *ra)
{
	struct tc_rec r;
	struct tc_req_info ri;
	MPI_Request h = *req;
	bool known;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Request_free(req));
	t0 = tc_cap_clock();
	rc = PMPI_Request_free(req);
	tc_cap_begin(&r, TC_OP_REQUEST_FREE, t0, ra);
	known = h != MPI_REQUEST_NULL && tc_req_peek(h, tc_req_stamp(), &ri);
	if (known) {
		r.ev.fields |= TC_F_REQUEST;
		r.ev.request = ri.id;
		if (rc == MPI_SUCCESS)
			tc_req_forget(h, ri.id);
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_cancel(MPI_Request *req, void *ra)
{
	struct tc_rec r;
	struct tc_req_info ri;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Cancel(req));
	t0 = tc_cap_clock();
	rc = PMPI_Cancel(req);
	tc_cap_begin(&r, TC_OP_CANCEL, t0, ra);
	if (*req != MPI_REQUEST_NULL && tc_req_peek(*req, tc_req_stamp(), &ri)) {
		r.ev.fields |= TC_F_REQUEST;
		r.ev.request = ri.id;
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* ---- completion --------------------------------------------------------- */

/*
 * Before a wait/test call: remember handle and request info of reqs[0..n)
 * (the call nulls the handles it completes). An element that cannot
 * complete (null handle, inactive persistent request) gets id 0 and
 * kind TC_REQ_OTHER with comm NULL and is marked by handles[i] = NULL.
 * NULL without memory.
 */
static struct tc_scratch *pre_wait(int n, const MPI_Request reqs[])
{
	struct tc_scratch *sc = tc_scratch_get();
	size_t m = (size_t)(n > 0 ? n : 1);
	uint32_t stamp;

	if (!sc || !TC_CAP_GROW(sc->reqs, m, sc->reqs_alloc) ||
	    !TC_CAP_GROW(sc->handles, m, sc->handles_alloc) ||
	    !TC_CAP_GROW(sc->compl, m, sc->compl_alloc))
		return NULL;
	tc_cap_lock();
	stamp = tc_req_stamp();
	for (int i = 0; i < n; i++) {
		struct tc_req_info *ri = &sc->reqs[i];
		sc->handles[i] = reqs[i];
		if (reqs[i] == MPI_REQUEST_NULL) {
			memset(ri, 0, sizeof(*ri));
			continue;
		}
		if (!tc_req_peek(reqs[i], stamp, ri)) {
			memset(ri, 0, sizeof(*ri)); /* created by a call we do not wrap */
			ri->active = 1;
			continue;
		}
		if (!ri->persistent)
			ri->active = 1;
	}
	tc_cap_unlock();
	return sc;
}

/* Where the statuses go: the caller's, else the scratch's (NULL without memory). */
static MPI_Status *statuses(struct tc_scratch *sc, MPI_Status *sts, int n)
{
	if (sts != MPI_STATUSES_IGNORE)
		return sts;
	if (!TC_CAP_GROW(sc->statuses, (size_t)(n > 0 ? n : 1), sc->statuses_alloc))
		return NULL;
	return sc->statuses;
}

/* Element i of the wait/test call completed with status st: add it. */
static void completed(struct tc_event *ev, struct tc_scratch *sc, int i, const MPI_Status *st)
{
	const struct tc_req_info *ri = &sc->reqs[i];
	struct tc_completion *c;

	if (sc->handles[i] == MPI_REQUEST_NULL || !ri->active)
		return;
	c = &sc->compl[ev->ncompl++];
	c->request = ri->id;
	c->source = TC_PEER_NONE;
	c->tag = TC_ANY_TAG;
	c->bytes = 0;
	/*
	 * A receive from MPI_PROC_NULL completes with source MPI_PROC_NULL,
	 * tag MPI_ANY_TAG and count 0; MPICH 4.0 fills the status of a
	 * non-blocking one with source 0 and tag 0 instead, so take it from
	 * the request.
	 */
	if (ri->kind == TC_REQ_RECV && st && ri->peer == TC_PROC_NULL) {
		c->source = TC_PROC_NULL;
	} else if (ri->kind == TC_REQ_RECV && st) {
		c->source = tc_comm_peer(ri->comm ? ri->comm : tc_comm_get(MPI_COMM_WORLD),
					 st->MPI_SOURCE);
		c->tag = st->MPI_TAG;
		c->bytes = status_bytes(st);
	}
	if (ri->id)
		tc_req_done(sc->handles[i], ri->id);
}

static inline void start_compl(struct tc_event *ev, struct tc_scratch *sc)
{
	ev->fields |= TC_F_COMPL;
	ev->ncompl = 0;
	ev->compl = sc->compl;
}

/* Wait (flag NULL) and Test */
int tcw_wait(MPI_Request *req, int *flag, MPI_Status *status, void *ra)
{
	struct tc_rec r;
	struct tc_scratch *sc;
	MPI_Status st;
	uint64_t t0;
	int rc;

#define CALL (flag ? PMPI_Test(req, flag, status) : PMPI_Wait(req, status))
	PASS_IF_OFF(CALL);
	sc = pre_wait(1, req);
	if (!sc)
		PASS_ON(CALL);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, flag ? TC_OP_TEST : TC_OP_WAIT, t0, ra);
	start_compl(&r.ev, sc);
	if (rc == MPI_SUCCESS && (!flag || *flag))
		completed(&r.ev, sc, 0, status);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* Waitall (flag NULL) and Testall */
int tcw_waitall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[], void *ra)
{
	struct tc_rec r;
	struct tc_scratch *sc;
	MPI_Status *st;
	uint64_t t0;
	int rc;

#define CALL (flag ? PMPI_Testall(n, reqs, flag, sts) : PMPI_Waitall(n, reqs, sts))
	PASS_IF_OFF(CALL);
	sc = pre_wait(n, reqs);
	if (!sc || !(st = statuses(sc, sts, n)))
		PASS_ON(CALL);
	sts = st;
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, flag ? TC_OP_TESTALL : TC_OP_WAITALL, t0, ra);
	r.ev.fields |= TC_F_COUNT;
	r.ev.count = n > 0 ? (uint64_t)n : 0;
	start_compl(&r.ev, sc);
	if (rc == MPI_SUCCESS && (!flag || *flag)) {
		for (int i = 0; i < n; i++)
			completed(&r.ev, sc, i, &sts[i]);
	} else if (rc == MPI_ERR_IN_STATUS) {
		for (int i = 0; i < n; i++)
			if (sts[i].MPI_ERROR != MPI_ERR_PENDING)
				completed(&r.ev, sc, i, &sts[i]);
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* Waitany (flag NULL) and Testany */
int tcw_waitany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status, void *ra)
{
	struct tc_rec r;
	struct tc_scratch *sc;
	MPI_Status st;
	uint64_t t0;
	int rc;

#define CALL (flag ? PMPI_Testany(n, reqs, index, flag, status) \
		   : PMPI_Waitany(n, reqs, index, status))
	PASS_IF_OFF(CALL);
	sc = pre_wait(n, reqs);
	if (!sc)
		PASS_ON(CALL);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, flag ? TC_OP_TESTANY : TC_OP_WAITANY, t0, ra);
	r.ev.fields |= TC_F_COUNT;
	r.ev.count = n > 0 ? (uint64_t)n : 0;
	start_compl(&r.ev, sc);
	if (rc == MPI_SUCCESS && (!flag || *flag) && *index != MPI_UNDEFINED && *index >= 0 &&
	    *index < n)
		completed(&r.ev, sc, *index, status);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* Waitsome and Testsome */
int tcw_waitsome(unsigned op, int n, MPI_Request reqs[], int *outcount, int indices[],
		 MPI_Status sts[], void *ra)
{
	struct tc_rec r;
	struct tc_scratch *sc;
	MPI_Status *st;
	uint64_t t0;
	int rc;

#define CALL (op == TC_OP_TESTSOME ? PMPI_Testsome(n, reqs, outcount, indices, sts) \
				   : PMPI_Waitsome(n, reqs, outcount, indices, sts))
	PASS_IF_OFF(CALL);
	sc = pre_wait(n, reqs);
	if (!sc || !(st = statuses(sc, sts, n)))
		PASS_ON(CALL);
	sts = st;
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	r.ev.fields |= TC_F_COUNT;
	r.ev.count = n > 0 ? (uint64_t)n : 0;
	start_compl(&r.ev, sc);
	if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED) {
		for (int k = 0; k < *outcount; k++)
			if (indices[k] >= 0 && indices[k] < n)
				completed(&r.ev, sc, indices[k], &sts[k]);
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* ---- collectives -------------------------------------------------------- */

/*
 * The persistent collectives (MPI_<Name>_init, MPI-4) share the wrapper of
 * their blocking and nonblocking forms: init points to their MPI_Info
 * argument, NULL for the other forms; INIT_OR(call) puts call first in a
 * wrapper's choice of PMPI function where the MPI has it.
 */
#if MPI_VERSION >= 4
#define INIT_OR(call) init ? (call) :
#else
#define INIT_OR(call) (void)init,
#endif

#define COLL_END(req, op, ci)                                                   \
	do {                                                                    \
		set_request(&r.ev, rc, req, op, TC_REQ_COLL,                    \
			    (tc_op_flags(op) & TC_OPF_PERSIST) != 0, ci);       \
		set_rc(&r.ev, rc);                                              \
		tc_cap_commit(&r);                                              \
		tc_cap_leave();                                                 \
	} while (0)

int tcw_barrier(MPI_Comm comm, MPI_Request *req, const MPI_Info *init, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	unsigned op = init ? TC_OP_BARRIER_INIT : req ? TC_OP_IBARRIER : TC_OP_BARRIER;
	uint64_t t0;
	int rc;

#define CALL (INIT_OR(PMPI_Barrier_init(comm, *init, req)) \
	      req ? PMPI_Ibarrier(comm, req) : PMPI_Barrier(comm))
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	COLL_END(req, op, ci);
	return rc;
}

int tcw_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
	      MPI_Request *req, const MPI_Info *init, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	unsigned op = init ? TC_OP_BCAST_INIT : req ? TC_OP_IBCAST : TC_OP_BCAST;
	uint64_t t0;
	int rc;

#define CALL (INIT_OR(PMPI_Bcast_init(buf, count, dt, root, comm, *init, req)) \
	      req ? PMPI_Ibcast(buf, count, dt, root, comm, req) \
		  : PMPI_Bcast(buf, count, dt, root, comm))
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	set_dtype(&r.ev, count > 0 ? (uint64_t)count : 0, dt);
	set_root(&r.ev, ci, root);
	COLL_END(req, op, ci);
	return rc;
}

static int pmpi_reduce(unsigned op, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
		       MPI_Op redop, int root, MPI_Comm comm, MPI_Request *req,
			const MPI_Info *init)
{
	(void)init; /* the persistent forms' info, MPI-4 only */
	switch (op) {
#define X(name, iname, OP, lc)                                                    \
	case TC_OP_##OP:                                                            \
		return PMPI_##name(sbuf, rbuf, count, dt, redop, root, comm);       \
	case TC_OP_I##OP:                                                           \
		return PMPI_##iname(sbuf, rbuf, count, dt, redop, root, comm, req);
		TC_CALLS_REDUCE_ROOT(X)
#undef X
#define X(name, iname, OP, lc)                                                    \
	case TC_OP_##OP:                                                            \
		return PMPI_##name(sbuf, rbuf, count, dt, redop, comm);             \
	case TC_OP_I##OP:                                                           \
		return PMPI_##iname(sbuf, rbuf, count, dt, redop, comm, req);
		TC_CALLS_REDUCE(X)
#undef X
#if MPI_VERSION >= 4
#define X(name, iname, OP, lc)                                                    \
	case TC_OP_##OP##_INIT:                                                     \
		return PMPI_##name##_init(sbuf, rbuf, count, dt, redop, root, comm, *init, req);
		TC_CALLS_REDUCE_ROOT(X)
#undef X
#define X(name, iname, OP, lc)                                                    \
	case TC_OP_##OP##_INIT:                                                     \
		return PMPI_##name##_init(sbuf, rbuf, count, dt, redop, comm, *init, req);
		TC_CALLS_REDUCE(X)
#undef X
#endif
	default:
		return MPI_ERR_INTERN;
	}
}

int tcw_reduce(unsigned op, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
	       MPI_Op redop, int root, MPI_Comm comm, MPI_Request *req, const MPI_Info *init, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_reduce(op, sbuf, rbuf, count, dt, redop, root, comm, req, init));
	t0 = tc_cap_clock();
	rc = pmpi_reduce(op, sbuf, rbuf, count, dt, redop, root, comm, req, init);
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	set_dtype(&r.ev, count > 0 ? (uint64_t)count : 0, dt);
	set_redop(&r.ev, redop);
	if (tc_op_flags(op) & TC_OPF_ROOT)
		set_root(&r.ev, ci, root);
	COLL_END(req, op, ci);
	return rc;
}

/*
 * The PMPI function of a v- or w-collective's op: its arguments before
 * the communicator are args, or args_c for the large-count form (which
 * LARGE_OR picks).
 */
#define VCASES(name, iname, OP, args, args_c)                                               \
	case TC_OP_##OP:                                                                     \
		return LARGE_OR(PMPI_##name##_c(TC_UNPAREN args_c, comm),                    \
				PMPI_##name(TC_UNPAREN args, comm));                         \
	case TC_OP_I##OP:                                                                    \
		return LARGE_OR(PMPI_##iname##_c(TC_UNPAREN args_c, comm, req),              \
				PMPI_##iname(TC_UNPAREN args, comm, req));
#define VCASES_INIT(name, OP, args, args_c)                                                 \
	case TC_OP_##OP##_INIT:                                                              \
		return LARGE_OR(PMPI_##name##_init_c(TC_UNPAREN args_c, comm, *init, req),   \
				PMPI_##name##_init(TC_UNPAREN args, comm, *init, req));
/*
 * VSWITCH(TABLE): the switch over the ops of TABLE's lines, returning
 * what their PMPI function returns called with VARGS(cols) (VARGS_C(cols)
 * for the large-count form), cols the line's columns after the fourth.
 */
#define VX(name, iname, OP, lc, ...) \
	VCASES(name, iname, OP, VARGS(__VA_ARGS__), VARGS_C(__VA_ARGS__))
#if MPI_VERSION >= 4
#define VX_INIT(name, iname, OP, lc, ...) \
	VCASES_INIT(name, OP, VARGS(__VA_ARGS__), VARGS_C(__VA_ARGS__))
#define VX_INITS(TABLE) TABLE(VX_INIT)
#else
#define VX_INITS(TABLE)
#endif
#define VSWITCH(TABLE)                     \
	switch (op) {                      \
		TABLE(VX)                  \
		VX_INITS(TABLE)            \
	default:                           \
		return MPI_ERR_INTERN;     \
	}

/* Reduce_scatter and its I- and _init forms */
static int pmpi_reduce_scatter(unsigned op, const void *sbuf, void *rbuf, union tc_vec rcounts,
			       MPI_Datatype dt, MPI_Op redop, MPI_Comm comm, MPI_Request *req,
			       const MPI_Info *init, bool large)
{
	(void)init; /* the persistent forms' info, MPI-4 only */
#define VARGS(fn) (sbuf, rbuf, rcounts.i, dt, redop)
#define VARGS_C(fn) (sbuf, rbuf, rcounts.c, dt, redop)
	VSWITCH(TC_CALLS_REDUCE_SCATTER)
#undef VARGS
#undef VARGS_C
}

int tcw_reduce_scatter(unsigned op, const void *sbuf, void *rbuf, union tc_vec rcounts,
		       MPI_Datatype dt, MPI_Op redop, MPI_Comm comm, MPI_Request *req,
		       const MPI_Info *init, bool large, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	struct tc_scratch *sc;
	uint64_t t0, sum = 0;
	int rc;

#define CALL pmpi_reduce_scatter(op, sbuf, rbuf, rcounts, dt, redop, comm, req, init, large)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	sc = tc_scratch_get();
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	set_rcounts(&r.ev, sc, rcounts, large, ci->size);
	for (uint32_t i = 0; i < r.ev.nrcounts; i++)
		sum += r.ev.rcounts[i];
	set_dtype(&r.ev, sum, dt);
	set_redop(&r.ev, redop);
	COLL_END(req, op, ci);
	return rc;
}

/* the one-count-a-side collectives, the neighbourhood ones too (root unused) */
static int pmpi_gather(unsigned op, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		       int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req,
			const MPI_Info *init)
{
	(void)init; /* the persistent forms' info, MPI-4 only */
	switch (op) {
#define X(name, iname, OP, lc)                                                             \
	case TC_OP_##OP:                                                                     \
		return PMPI_##name(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);    \
	case TC_OP_I##OP:                                                                    \
		return PMPI_##iname(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
		TC_CALLS_GATHER_ROOT(X)
#undef X
#define X(name, iname, OP, lc)                                                             \
	case TC_OP_##OP:                                                                     \
		return PMPI_##name(sbuf, scount, stype, rbuf, rcount, rtype, comm);          \
	case TC_OP_I##OP:                                                                    \
		return PMPI_##iname(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
		TC_CALLS_ALLGATHER(X)
		TC_CALLS_NEIGHBOR(X)
#undef X
#if MPI_VERSION >= 4
#define X(name, iname, OP, lc)                                                             \
	case TC_OP_##OP##_INIT:                                                              \
		return PMPI_##name##_init(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, \
					  *init, req);
		TC_CALLS_GATHER_ROOT(X)
#undef X
#define X(name, iname, OP, lc)                                                             \
	case TC_OP_##OP##_INIT:                                                              \
		return PMPI_##name##_init(sbuf, scount, stype, rbuf, rcount, rtype, comm, *init, \
					  req);
		TC_CALLS_ALLGATHER(X)
		TC_CALLS_NEIGHBOR(X)
#undef X
#endif
	default:
		return MPI_ERR_INTERN;
	}
}

int tcw_gather(unsigned op, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
	       int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req,
	       const MPI_Info *init, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	bool scatter = op == TC_OP_SCATTER || op == TC_OP_ISCATTER || op == TC_OP_SCATTER_INIT;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_gather(op, sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req, init));
	t0 = tc_cap_clock();
	rc = pmpi_gather(op, sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req, init);
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	/* this process's contribution; MPI_IN_PLACE makes the other side
	 * the one that counts */
	if (scatter ? rbuf != MPI_IN_PLACE : sbuf == MPI_IN_PLACE)
		set_dtype(&r.ev, rcount > 0 ? (uint64_t)rcount : 0, rtype);
	else
		set_dtype(&r.ev, scount > 0 ? (uint64_t)scount : 0, stype);
	if (tc_op_flags(op) & TC_OPF_ROOT)
		set_root(&r.ev, ci, root);
	COLL_END(req, op, ci);
	return rc;
}

static inline bool is_root(const struct tc_comm_info *ci, int root)
{
	return root == MPI_ROOT || (root >= 0 && root == ci->myrank && ci->size == ci->rsize);
}

/* Gatherv, Allgatherv, Neighbor_allgatherv and their I- and _init forms */
static int pmpi_gatherv(unsigned op, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
			void *rbuf, union tc_vec rcounts, union tc_vec displs, MPI_Datatype rtype,
			int root, MPI_Comm comm, MPI_Request *req, const MPI_Info *init,
			bool large)
{
	(void)init; /* the persistent forms' info, MPI-4 only */
#define VARGS(fn, rt) (sbuf, (int)scount, stype, rbuf, rcounts.i, displs.i, rtype rt(, root))
#define VARGS_C(fn, rt) (sbuf, scount, stype, rbuf, rcounts.c, displs.a, rtype rt(, root))
	VSWITCH(TC_CALLS_GATHERV)
#undef VARGS
#undef VARGS_C
}

int tcw_gatherv(unsigned op, const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
		union tc_vec rcounts, union tc_vec displs, MPI_Datatype rtype, int root,
		MPI_Comm comm, MPI_Request *req, const MPI_Info *init, bool large, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	struct tc_scratch *sc;
	bool all = op == TC_OP_ALLGATHERV || op == TC_OP_IALLGATHERV || op == TC_OP_ALLGATHERV_INIT;
	uint64_t t0;
	int rc;

#define CALL pmpi_gatherv(op, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, \
			  req, init, large)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	sc = tc_scratch_get();
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	if (all || is_root(ci, root))
		set_rcounts(&r.ev, sc, rcounts, large, ci->rsize);
	if (sbuf == MPI_IN_PLACE && r.ev.nrcounts && ci->myrank >= 0 &&
	    (uint32_t)ci->myrank < r.ev.nrcounts)
		set_dtype(&r.ev, r.ev.rcounts[ci->myrank], rtype);
	else
		set_dtype(&r.ev, ucount(scount), stype);
	if (!all)
		set_root(&r.ev, ci, root);
	COLL_END(req, op, ci);
	return rc;
}

/* Scatterv and its I- and _init forms */
static int pmpi_scatterv(unsigned op, const void *sbuf, union tc_vec scounts, union tc_vec displs,
			 MPI_Datatype stype, void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
			 int root, MPI_Comm comm, MPI_Request *req, const MPI_Info *init,
			 bool large)
{
	(void)init; /* the persistent forms' info, MPI-4 only */
#define VARGS(fn) (sbuf, scounts.i, displs.i, stype, rbuf, (int)rcount, rtype, root)
#define VARGS_C(fn) (sbuf, scounts.c, displs.a, stype, rbuf, rcount, rtype, root)
	VSWITCH(TC_CALLS_SCATTERV)
#undef VARGS
#undef VARGS_C
}

int tcw_scatterv(unsigned op, const void *sbuf, union tc_vec scounts, union tc_vec displs,
		 MPI_Datatype stype, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
		 MPI_Comm comm, MPI_Request *req, const MPI_Info *init, bool large, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	struct tc_scratch *sc;
	uint64_t t0;
	int rc;

#define CALL pmpi_scatterv(op, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, \
			   req, init, large)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	sc = tc_scratch_get();
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	if (is_root(ci, root))
		set_scounts(&r.ev, sc, scounts, large, ci->rsize);
	if (rbuf == MPI_IN_PLACE && r.ev.nscounts && ci->myrank >= 0 &&
	    (uint32_t)ci->myrank < r.ev.nscounts)
		set_dtype(&r.ev, r.ev.scounts[ci->myrank], stype);
	else
		set_dtype(&r.ev, ucount(rcount), rtype);
	set_root(&r.ev, ci, root);
	COLL_END(req, op, ci);
	return rc;
}

/* Alltoallv, Neighbor_alltoallv and their I- and _init forms */
static int pmpi_alltoallv(unsigned op, const void *sbuf, union tc_vec scounts,
			  union tc_vec sdispls, MPI_Datatype stype, void *rbuf,
			  union tc_vec rcounts, union tc_vec rdispls, MPI_Datatype rtype,
			  MPI_Comm comm, MPI_Request *req, const MPI_Info *init, bool large)
{
	(void)init; /* the persistent forms' info, MPI-4 only */
#define VARGS(fn) (sbuf, scounts.i, sdispls.i, stype, rbuf, rcounts.i, rdispls.i, rtype)
#define VARGS_C(fn) (sbuf, scounts.c, sdispls.a, stype, rbuf, rcounts.c, rdispls.a, rtype)
	VSWITCH(TC_CALLS_ALLTOALLV)
#undef VARGS
#undef VARGS_C
}

int tcw_alltoallv(unsigned op, const void *sbuf, union tc_vec scounts, union tc_vec sdispls,
		  MPI_Datatype stype, void *rbuf, union tc_vec rcounts, union tc_vec rdispls,
		  MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req, const MPI_Info *init,
		  bool large, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	struct tc_scratch *sc;
	bool inplace = sbuf == MPI_IN_PLACE;
	uint64_t t0, sum = 0;
	int rc;

#define CALL pmpi_alltoallv(op, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, \
			    comm, req, init, large)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	sc = tc_scratch_get();
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	set_scounts(&r.ev, sc, inplace ? rcounts : scounts, large, ci->rsize);
	set_rcounts(&r.ev, sc, rcounts, large, ci->rsize);
	for (uint32_t i = 0; i < r.ev.nscounts; i++)
		sum += r.ev.scounts[i];
	set_dtype(&r.ev, sum, inplace ? rtype : stype);
	COLL_END(req, op, ci);
	return rc;
}

/* Alltoallw, Neighbor_alltoallw and their I- and _init forms */
static int pmpi_alltoallw(unsigned op, const void *sbuf, union tc_vec scounts,
			  union tc_vec sdispls, const MPI_Datatype stypes[], void *rbuf,
			  union tc_vec rcounts, union tc_vec rdispls, const MPI_Datatype rtypes[],
			  MPI_Comm comm, MPI_Request *req, const MPI_Info *init, bool large)
{
	(void)init; /* the persistent forms' info, MPI-4 only */
#define VARGS(fn, DT, dm) \
	(sbuf, scounts.i, sdispls.dm, stypes, rbuf, rcounts.i, rdispls.dm, rtypes)
#define VARGS_C(fn, DT, dm) \
	(sbuf, scounts.c, sdispls.a, stypes, rbuf, rcounts.c, rdispls.a, rtypes)
	VSWITCH(TC_CALLS_ALLTOALLW)
#undef VARGS
#undef VARGS_C
}

/*
 * The per-peer bytes of Alltoallw's vectors (per-peer types, so the
 * vectors are in bytes, dtype MPI_BYTE) in *arr; false without memory.
 */
static bool bytes_vector(uint64_t **arr, size_t *alloc, union tc_vec counts, bool large,
			 const MPI_Datatype *types, int n)
{
	if (!TC_CAP_GROW(*arr, (size_t)(n > 0 ? n : 1), *alloc))
		return false;
	for (int i = 0; i < n; i++) {
		uint32_t num, size;
		tc_dtype(types[i], &num, &size);
		(*arr)[i] = vec_count(counts, large, i) * size;
	}
	return true;
}

int tcw_alltoallw(unsigned op, const void *sbuf, union tc_vec scounts, union tc_vec sdispls,
		  const MPI_Datatype stypes[], void *rbuf, union tc_vec rcounts,
		  union tc_vec rdispls, const MPI_Datatype rtypes[], MPI_Comm comm,
		  MPI_Request *req, const MPI_Info *init, bool large, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	struct tc_scratch *sc;
	bool inplace = sbuf == MPI_IN_PLACE;
	uint64_t t0, sum = 0;
	int rc, n;

#define CALL pmpi_alltoallw(op, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, \
			    comm, req, init, large)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	sc = tc_scratch_get();
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	n = ci->rsize;
	set_comm(&r.ev, ci);
	if (n > 0 && sc &&
	    bytes_vector(&sc->scounts, &sc->scounts_alloc, inplace ? rcounts : scounts, large,
			 inplace ? rtypes : stypes, n) &&
	    bytes_vector(&sc->rcounts, &sc->rcounts_alloc, rcounts, large, rtypes, n)) {
		r.ev.fields |= TC_F_SCOUNTS | TC_F_RCOUNTS;
		r.ev.scounts = sc->scounts;
		r.ev.rcounts = sc->rcounts;
		r.ev.nscounts = r.ev.nrcounts = (uint32_t)n;
		for (int i = 0; i < n; i++)
			sum += sc->scounts[i];
	}
	set_dtype(&r.ev, sum, MPI_BYTE);
	COLL_END(req, op, ci);
	return rc;
}

/* ---- communicators ------------------------------------------------------ */

static inline void set_newcomm(struct tc_event *ev, uint32_t id)
{
	if (id != UINT32_MAX) {
		ev->fields |= TC_F_NEWCOMM;
		ev->newcomm = id;
	}
}

/* Comm_dup (req NULL) and Comm_idup */
#if MPI_VERSION >= 4
#define PMPI_COMM_IDUP_WITH_INFO(comm, info, newcomm, req) \
	PMPI_Comm_idup_with_info(comm, info, newcomm, req)
#else
#define PMPI_COMM_IDUP_WITH_INFO(comm, info, newcomm, req) MPI_ERR_INTERN
#endif

/* Comm_dup, Comm_idup, Comm_dup_with_info, Comm_idup_with_info (MPI-4) */
int tcw_comm_dup(MPI_Comm comm, const MPI_Info *info, MPI_Comm *newcomm, MPI_Request *req,
		 void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	unsigned op = info ? (req ? TC_OP_COMM_IDUP_WITH_INFO : TC_OP_COMM_DUP_WITH_INFO)
			   : (req ? TC_OP_COMM_IDUP : TC_OP_COMM_DUP);
	uint64_t t0;
	int rc;

#define CALL                                                                     \
	(info ? (req ? PMPI_COMM_IDUP_WITH_INFO(comm, *info, newcomm, req)       \
		     : PMPI_Comm_dup_with_info(comm, *info, newcomm))            \
	      : req ? PMPI_Comm_idup(comm, newcomm, req) : PMPI_Comm_dup(comm, newcomm))
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	/* an idup'ed communicator is not usable before completion: it is
	 * learnt at its first use */
	if (rc == MPI_SUCCESS && !req)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, op, 0, NULL, NULL));
	set_request(&r.ev, rc, req, op, TC_REQ_OTHER, false, ci);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Comm_split(comm, color, key, newcomm));
	t0 = tc_cap_clock();
	rc = PMPI_Comm_split(comm, color, key, newcomm);
	tc_cap_begin(&r, TC_OP_COMM_SPLIT, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	r.ev.fields |= TC_F_COLOR;
	r.ev.color = color == MPI_UNDEFINED ? TC_UNDEFINED : color;
	r.ev.key = key;
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, TC_OP_COMM_SPLIT, 0, NULL, NULL));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm,
			void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Comm_split_type(comm, type, key, info, newcomm));
	t0 = tc_cap_clock();
	rc = PMPI_Comm_split_type(comm, type, key, info, newcomm);
	tc_cap_begin(&r, TC_OP_COMM_SPLIT_TYPE, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	r.ev.fields |= TC_F_COLOR;
	r.ev.color = type == MPI_UNDEFINED ? TC_UNDEFINED : type;
	r.ev.key = key;
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, TC_OP_COMM_SPLIT_TYPE, 0, NULL,
					       NULL));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* Comm_create (tag < 0 and create_group false) and Comm_create_group */
static int comm_create(bool group_form, MPI_Comm comm, MPI_Group group, int tag,
		       MPI_Comm *newcomm, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	unsigned op = group_form ? TC_OP_COMM_CREATE_GROUP : TC_OP_COMM_CREATE;
	uint64_t t0;
	int rc;

#define CALL (group_form ? PMPI_Comm_create_group(comm, group, tag, newcomm) \
			 : PMPI_Comm_create(comm, group, newcomm))
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	if (group_form) {
		r.ev.fields |= TC_F_TAG;
		r.ev.tag = tag;
	}
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, op, 0, NULL, NULL));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm, void *ra)
{
	return comm_create(false, comm, group, 0, newcomm, ra);
}

int tcw_comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm,
			  void *ra)
{
	return comm_create(true, comm, group, tag, newcomm, ra);
}

/* Comm_free (disconnect false) and Comm_disconnect */
static int comm_free(bool disconnect, MPI_Comm *comm, void *ra)
{
	struct tc_rec r;
	MPI_Comm old = *comm;
	uint32_t id;
	uint64_t t0;
	int rc;

#define CALL (disconnect ? PMPI_Comm_disconnect(comm) : PMPI_Comm_free(comm))
	PASS_IF_OFF(CALL);
	tc_cap_lock();
	id = tc_comm_get(old)->id;
	tc_cap_unlock();
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, disconnect ? TC_OP_COMM_DISCONNECT : TC_OP_COMM_FREE, t0, ra);
	r.ev.fields |= TC_F_COMM;
	r.ev.comm = id;
	if (rc == MPI_SUCCESS && old != MPI_COMM_WORLD && old != MPI_COMM_SELF)
		tc_comm_forget(old);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_comm_free(MPI_Comm *comm, void *ra)
{
	return comm_free(false, comm, ra);
}

int tcw_comm_disconnect(MPI_Comm *comm, void *ra)
{
	return comm_free(true, comm, ra);
}

int tcw_cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
		    int reorder, MPI_Comm *newcomm, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm));
	t0 = tc_cap_clock();
	rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
	tc_cap_begin(&r, TC_OP_CART_CREATE, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	r.ev.fields |= TC_F_COUNT;
	r.ev.count = ndims > 0 ? (uint64_t)ndims : 0;
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, TC_OP_CART_CREATE, ndims, dims,
					       periods));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *newcomm, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	int dims[8], periods[8], coords[8], nd = 0;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Cart_sub(comm, remain, newcomm));
	t0 = tc_cap_clock();
	rc = PMPI_Cart_sub(comm, remain, newcomm);
	tc_cap_begin(&r, TC_OP_CART_SUB, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	if (rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL &&
	    PMPI_Cartdim_get(*newcomm, &nd) == MPI_SUCCESS && nd > 0 && nd <= 8 &&
	    PMPI_Cart_get(*newcomm, nd, dims, periods, coords) != MPI_SUCCESS)
		nd = 0;
	if (nd > 8)
		nd = 0;
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, TC_OP_CART_SUB, nd, dims, periods));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
		     int reorder, MPI_Comm *newcomm, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm));
	t0 = tc_cap_clock();
	rc = PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm);
	tc_cap_begin(&r, TC_OP_GRAPH_CREATE, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, TC_OP_GRAPH_CREATE, 0, NULL, NULL));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_dist_graph_create_adjacent(MPI_Comm comm, int indeg, const int srcs[],
				   const int sw[], int outdeg, const int dsts[], const int dw[],
				   MPI_Info info, int reorder, MPI_Comm *newcomm, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

#define CALL PMPI_Dist_graph_create_adjacent(comm, indeg, srcs, sw, outdeg, dsts, dw, info, \
					     reorder, newcomm)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, TC_OP_DIST_GRAPH_CREATE_ADJACENT, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, TC_OP_DIST_GRAPH_CREATE_ADJACENT,
					       0, NULL, NULL));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* ---- MPI-IO ------------------------------------------------------------- */

int tcw_file_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh,
		  void *ra)
{
	struct tc_rec r;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_File_open(comm, name, amode, info, fh));
	t0 = tc_cap_clock();
	rc = PMPI_File_open(comm, name, amode, info, fh);
	tc_cap_begin(&r, TC_OP_FILE_OPEN, t0, ra);
	set_comm(&r.ev, tc_comm_get(comm));
	if (rc == MPI_SUCCESS) {
		r.ev.fields |= TC_F_FILE;
		r.ev.file = tc_file_new(*fh);
		r.ev.offset = 0;
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_file_close(MPI_File *fh, void *ra)
{
	struct tc_rec r;
	MPI_File old = *fh;
	uint32_t id;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_File_close(fh));
	tc_cap_lock();
	id = tc_file_id(old);
	tc_cap_unlock();
	t0 = tc_cap_clock();
	rc = PMPI_File_close(fh);
	tc_cap_begin(&r, TC_OP_FILE_CLOSE, t0, ra);
	r.ev.fields |= TC_F_FILE;
	r.ev.file = id;
	r.ev.offset = 0;
	if (rc == MPI_SUCCESS)
		tc_file_forget(old);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

static int pmpi_file_rw(unsigned op, MPI_File fh, MPI_Offset off, void *buf, MPI_Count count,
			MPI_Datatype dt, MPI_Status *st, bool large)
{
	switch (op) {
#define X(name, OP, lc, cq)               \
	case TC_OP_##OP:                    \
		return LARGE_OR(PMPI_##name##_c(fh, buf, count, dt, st), \
				PMPI_##name(fh, buf, (int)count, dt, st));
		TC_CALLS_FILE(X)
#undef X
#define X(name, OP, lc, cq)               \
	case TC_OP_##OP:                    \
		return LARGE_OR(PMPI_##name##_c(fh, off, buf, count, dt, st), \
				PMPI_##name(fh, off, buf, (int)count, dt, st));
		TC_CALLS_FILE_AT(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

static inline bool file_at(unsigned op)
{
	return op == TC_OP_FILE_READ_AT || op == TC_OP_FILE_READ_AT_ALL ||
	       op == TC_OP_FILE_WRITE_AT || op == TC_OP_FILE_WRITE_AT_ALL ||
	       op == TC_OP_FILE_IREAD_AT || op == TC_OP_FILE_IREAD_AT_ALL ||
	       op == TC_OP_FILE_IWRITE_AT || op == TC_OP_FILE_IWRITE_AT_ALL;
}

/*
 * The offset an access starts at, in etype units, before the call: the
 * explicit one, the individual file pointer, or the shared file pointer
 * for the _shared forms. The _ordered forms take their place from the
 * shared pointer in rank order, which no rank knows alone: 0.
 */
static inline MPI_Offset file_offset(unsigned op, MPI_File fh, MPI_Offset offset)
{
	int rc;

	if (file_at(op))
		return offset;
	switch (op) {
	case TC_OP_FILE_READ_ORDERED:
	case TC_OP_FILE_WRITE_ORDERED:
		return 0;
	case TC_OP_FILE_READ_SHARED:
	case TC_OP_FILE_WRITE_SHARED:
	case TC_OP_FILE_IREAD_SHARED:
	case TC_OP_FILE_IWRITE_SHARED:
		rc = PMPI_File_get_position_shared(fh, &offset);
		break;
	default:
		rc = PMPI_File_get_position(fh, &offset);
		break;
	}
	return rc == MPI_SUCCESS ? offset : 0;
}

int tcw_file_rw(unsigned op, MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
		MPI_Datatype dt, MPI_Status *status, bool large, void *ra)
{
	struct tc_rec r;
	MPI_Status st;
	uint64_t t0, bytes;
	int rc;

	PASS_IF_OFF(pmpi_file_rw(op, fh, offset, buf, count, dt, status, large));
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	offset = file_offset(op, fh, offset);
	t0 = tc_cap_clock();
	rc = pmpi_file_rw(op, fh, offset, buf, count, dt, status, large);
	tc_cap_begin(&r, op, t0, ra);
	r.ev.fields |= TC_F_FILE;
	r.ev.file = tc_file_id(fh);
	r.ev.offset = offset > 0 ? (uint64_t)offset : 0;
	set_dtype(&r.ev, count > 0 ? (uint64_t)count : 0, dt);
	if (rc == MPI_SUCCESS) {
		bytes = status_bytes(status);
		if (bytes != r.ev.count * r.ev.dtype_size) {
			r.ev.fields |= TC_F_BYTES;
			r.ev.bytes = bytes;
		}
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

static int pmpi_file_irw(unsigned op, MPI_File fh, MPI_Offset off, void *buf, MPI_Count count,
			 MPI_Datatype dt, MPI_Request *req, bool large)
{
	switch (op) {
#define X(name, OP, lc, cq)               \
	case TC_OP_##OP:                    \
		return LARGE_OR(PMPI_##name##_c(fh, buf, count, dt, req), \
				PMPI_##name(fh, buf, (int)count, dt, req));
		TC_CALLS_FILE_I(X)
#undef X
#define X(name, OP, lc, cq)               \
	case TC_OP_##OP:                    \
		return LARGE_OR(PMPI_##name##_c(fh, off, buf, count, dt, req), \
				PMPI_##name(fh, off, buf, (int)count, dt, req));
		TC_CALLS_FILE_I_AT(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

/* File_iread/iwrite(_at)(_all), File_iread/iwrite_shared: the bytes moved
 * are known at completion only, so count and dtype tell the request */
int tcw_file_irw(unsigned op, MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
		 MPI_Datatype dt, MPI_Request *req, bool large, void *ra)
{
	struct tc_rec r;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_file_irw(op, fh, offset, buf, count, dt, req, large));
	offset = file_offset(op, fh, offset);
	t0 = tc_cap_clock();
	rc = pmpi_file_irw(op, fh, offset, buf, count, dt, req, large);
	tc_cap_begin(&r, op, t0, ra);
	r.ev.fields |= TC_F_FILE;
	r.ev.file = tc_file_id(fh);
	r.ev.offset = offset > 0 ? (uint64_t)offset : 0;
	set_dtype(&r.ev, count > 0 ? (uint64_t)count : 0, dt);
	set_request(&r.ev, rc, req, op, TC_REQ_OTHER, false, NULL);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* ---- matched probe and receive ------------------------------------------ */

/*
 * Mprobe (flag NULL) and Improbe: recorded like Probe, plus the message
 * they take, as a request id (req=) that the Mrecv/Imrecv of the message
 * records too.
 */
int tcw_mprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
	       MPI_Status *status, void *ra)
{
	struct tc_rec r;
	struct tc_completion c;
	struct tc_comm_info *ci;
	MPI_Status st;
	unsigned op = flag ? TC_OP_IMPROBE : TC_OP_MPROBE;
	uint64_t t0;
	int rc;

#define CALL (flag ? PMPI_Improbe(src, tag, comm, flag, msg, status) \
		   : PMPI_Mprobe(src, tag, comm, msg, status))
	PASS_IF_OFF(CALL);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	r.ev.fields |= TC_F_PEER | TC_F_TAG;
	r.ev.peer = tc_comm_peer(ci, src);
	r.ev.tag = tag;
	if (rc == MPI_SUCCESS && (!flag || *flag)) {
		struct tc_event m;
		set_status(&c, status, ci, 0);
		one_completion(&r.ev, &c);
		/* the message: actual source and tag, its size in count */
		m.fields = TC_F_COMM | TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE;
		m.comm = ci->id;
		m.peer = c.source;
		m.tag = c.tag;
		m.count = c.bytes;
		m.dtype = TC_DT_BYTE;
		m.dtype_size = 1;
		r.ev.fields |= TC_F_REQUEST;
		r.ev.request = tc_msg_new(*msg, op, ci, &m);
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/*
 * Mrecv (req NULL) and Imrecv: peer and tag are the actual source and tag
 * of the message (known from its Mprobe), req= the message's id; Imrecv's
 * request keeps that id, so the wait that completes it names it too.
 */
int tcw_mrecv(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg,
	      MPI_Status *status, MPI_Request *req, bool large, void *ra)
{
	struct tc_rec r;
	struct tc_completion c;
	struct tc_req_info mi;
	struct tc_comm_info *ci;
	MPI_Message m = *msg;
	MPI_Status st;
	unsigned op = req ? TC_OP_IMRECV : TC_OP_MRECV;
	bool known;
	uint64_t t0;
	int rc;

#define CALL (req ? LARGE_OR(PMPI_Imrecv_c(buf, count, dt, msg, req),            \
			   PMPI_Imrecv(buf, (int)count, dt, msg, req))                \
		  : LARGE_OR(PMPI_Mrecv_c(buf, count, dt, msg, status),             \
			     PMPI_Mrecv(buf, (int)count, dt, msg, status)))
	PASS_IF_OFF(CALL);
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	tc_cap_lock();
	known = tc_msg_peek(m, &mi);
	tc_cap_unlock();
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	ci = known && mi.comm ? mi.comm : tc_comm_get(MPI_COMM_WORLD);
	r.ev.fields |= TC_F_PEER | TC_F_TAG;
	if (known) {
		r.ev.fields |= TC_F_COMM;
		r.ev.comm = mi.comm_id;
		r.ev.peer = mi.peer;
		r.ev.tag = mi.tag;
	} else {
		r.ev.peer = m == MPI_MESSAGE_NO_PROC ? TC_PROC_NULL : TC_PEER_NONE;
		r.ev.tag = TC_ANY_TAG;
	}
	set_dtype(&r.ev, count > 0 ? (uint64_t)count : 0, dt);
	if (req) {
		if (rc == MPI_SUCCESS) {
			r.ev.fields |= TC_F_REQUEST;
			r.ev.request = known ? tc_req_new_id(*req, mi.id, op, TC_REQ_RECV, false, ci,
							     &r.ev)
					     : tc_req_new(*req, op, TC_REQ_RECV, false, ci, &r.ev);
		}
	} else {
		if (known) {
			r.ev.fields |= TC_F_REQUEST;
			r.ev.request = mi.id;
		}
		if (rc == MPI_SUCCESS) {
			set_status(&c, status, ci, 0);
			one_completion(&r.ev, &c);
		}
	}
	if (known && rc == MPI_SUCCESS)
		tc_msg_done(m, mi.id);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* ---- neighbourhood collectives ------------------------------------------ */

/* In- and out-degree of comm's topology, learnt at its first use. */
static void neighbours(struct tc_comm_info *ci, MPI_Comm comm)
{
	int topo = MPI_UNDEFINED, in = 0, out = 0, weighted = 0, nd = 0, me = 0;

	if (TC_LIKELY(ci->degs))
		return;
	PMPI_Topo_test(comm, &topo);
	if (topo == MPI_CART) {
		PMPI_Cartdim_get(comm, &nd);
		in = out = 2 * nd;
	} else if (topo == MPI_GRAPH) {
		PMPI_Comm_rank(comm, &me);
		PMPI_Graph_neighbors_count(comm, me, &in);
		out = in;
	} else if (topo == MPI_DIST_GRAPH) {
		PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
	}
	ci->indeg = in > 0 ? in : 0;
	ci->outdeg = out > 0 ? out : 0;
	ci->degs = true;
}

/* Neighbor_allgather, Neighbor_alltoall and I-forms: count is per neighbour */
int tcw_neighbor(unsigned op, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		 int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req, const MPI_Info *init, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_gather(op, sbuf, scount, stype, rbuf, rcount, rtype, 0, comm, req, init));
	t0 = tc_cap_clock();
	rc = pmpi_gather(op, sbuf, scount, stype, rbuf, rcount, rtype, 0, comm, req, init);
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	set_dtype(&r.ev, scount > 0 ? (uint64_t)scount : 0, stype);
	COLL_END(req, op, ci);
	return rc;
}

int tcw_neighbor_allgatherv(unsigned op, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
			    void *rbuf, union tc_vec rcounts, union tc_vec displs,
			    MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req,
			    const MPI_Info *init, bool large, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	struct tc_scratch *sc;
	uint64_t t0;
	int rc;

#define CALL pmpi_gatherv(op, sbuf, scount, stype, rbuf, rcounts, displs, rtype, 0, comm, req, \
			  init, large)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	sc = tc_scratch_get();
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	neighbours(ci, comm);
	set_comm(&r.ev, ci);
	set_rcounts(&r.ev, sc, rcounts, large, ci->indeg);
	set_dtype(&r.ev, ucount(scount), stype);
	COLL_END(req, op, ci);
	return rc;
}

int tcw_neighbor_alltoallv(unsigned op, const void *sbuf, union tc_vec scounts,
			   union tc_vec sdispls, MPI_Datatype stype, void *rbuf,
			   union tc_vec rcounts, union tc_vec rdispls, MPI_Datatype rtype,
			   MPI_Comm comm, MPI_Request *req, const MPI_Info *init, bool large,
			   void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	struct tc_scratch *sc;
	uint64_t t0, sum = 0;
	int rc;

#define CALL pmpi_alltoallv(op, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, \
			    comm, req, init, large)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	sc = tc_scratch_get();
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	neighbours(ci, comm);
	set_comm(&r.ev, ci);
	set_scounts(&r.ev, sc, scounts, large, ci->outdeg);
	set_rcounts(&r.ev, sc, rcounts, large, ci->indeg);
	for (uint32_t i = 0; i < r.ev.nscounts; i++)
		sum += r.ev.scounts[i];
	set_dtype(&r.ev, sum, stype);
	COLL_END(req, op, ci);
	return rc;
}

/* Neighbor_alltoallw: per-neighbour types, so the vectors are in bytes. */
int tcw_neighbor_alltoallw(unsigned op, const void *sbuf, union tc_vec scounts,
			   union tc_vec sdispls, const MPI_Datatype stypes[], void *rbuf,
			   union tc_vec rcounts, union tc_vec rdispls,
			   const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request *req,
			   const MPI_Info *init, bool large, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	struct tc_scratch *sc;
	uint64_t t0, sum = 0;
	int rc;

#define CALL pmpi_alltoallw(op, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, \
			    comm, req, init, large)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	sc = tc_scratch_get();
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	neighbours(ci, comm);
	set_comm(&r.ev, ci);
	if (ci->outdeg > 0 && sc &&
	    bytes_vector(&sc->scounts, &sc->scounts_alloc, scounts, large, stypes, ci->outdeg)) {
		r.ev.fields |= TC_F_SCOUNTS;
		r.ev.scounts = sc->scounts;
		r.ev.nscounts = (uint32_t)ci->outdeg;
		for (int i = 0; i < ci->outdeg; i++)
			sum += sc->scounts[i];
	}
	if (ci->indeg > 0 && sc &&
	    bytes_vector(&sc->rcounts, &sc->rcounts_alloc, rcounts, large, rtypes, ci->indeg)) {
		r.ev.fields |= TC_F_RCOUNTS;
		r.ev.rcounts = sc->rcounts;
		r.ev.nrcounts = (uint32_t)ci->indeg;
	}
	set_dtype(&r.ev, sum, MPI_BYTE);
	COLL_END(req, op, ci);
	return rc;
}

/* ---- one-sided communication -------------------------------------------- */

/* The window fields of an RMA event: window id in file, its communicator. */
static inline const struct tc_win_info *set_win(struct tc_event *ev, MPI_Win win)
{
	const struct tc_win_info *wi = tc_win_get(win);

	ev->fields |= TC_F_FILE;
	ev->file = wi->id;
	ev->offset = 0;
	if (wi->comm_id != UINT32_MAX) {
		ev->fields |= TC_F_COMM;
		ev->comm = wi->comm_id;
	}
	return wi;
}

static int pmpi_win_create(unsigned op, void *base, MPI_Aint size, MPI_Aint disp_unit,
			   MPI_Info info, MPI_Comm comm, MPI_Win *win, bool large)
{
	int du = (int)disp_unit;

	switch (op) {
	case TC_OP_WIN_ALLOCATE:
		return LARGE_OR(PMPI_Win_allocate_c(size, disp_unit, info, comm, base, win),
				PMPI_Win_allocate(size, du, info, comm, base, win));
	case TC_OP_WIN_ALLOCATE_SHARED:
		return LARGE_OR(PMPI_Win_allocate_shared_c(size, disp_unit, info, comm, base, win),
				PMPI_Win_allocate_shared(size, du, info, comm, base, win));
	case TC_OP_WIN_CREATE_DYNAMIC:
		return PMPI_Win_create_dynamic(info, comm, win);
	default:
		return LARGE_OR(PMPI_Win_create_c(base, size, disp_unit, info, comm, win),
				PMPI_Win_create(base, size, du, info, comm, win));
	}
}

/* Win_create, Win_allocate(_shared) (base is baseptr), Win_create_dynamic */
int tcw_win_create(unsigned op, void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
		   MPI_Comm comm, MPI_Win *win, bool large, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_win_create(op, base, size, disp_unit, info, comm, win, large));
	t0 = tc_cap_clock();
	rc = pmpi_win_create(op, base, size, disp_unit, info, comm, win, large);
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	if (op != TC_OP_WIN_CREATE_DYNAMIC) {
		r.ev.fields |= TC_F_BYTES | TC_F_COUNT;
		r.ev.bytes = size > 0 ? (uint64_t)size : 0;
		r.ev.count = disp_unit > 0 ? (uint64_t)disp_unit : 0; /* displacement unit */
	}
	if (rc == MPI_SUCCESS) {
		r.ev.fields |= TC_F_FILE;
		r.ev.file = tc_win_new(*win, ci->id)->id;
		r.ev.offset = 0;
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_win_free(MPI_Win *win, void *ra)
{
	struct tc_rec r;
	const struct tc_win_info *wi;
	MPI_Win old = *win;
	uint32_t id, comm_id;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Win_free(win));
	tc_cap_lock();
	wi = tc_win_get(old);
	id = wi->id;
	comm_id = wi->comm_id;
	tc_cap_unlock();
	t0 = tc_cap_clock();
	rc = PMPI_Win_free(win);
	tc_cap_begin(&r, TC_OP_WIN_FREE, t0, ra);
	r.ev.fields |= TC_F_FILE;
	r.ev.file = id;
	r.ev.offset = 0;
	if (comm_id != UINT32_MAX) {
		r.ev.fields |= TC_F_COMM;
		r.ev.comm = comm_id;
	}
	if (rc == MPI_SUCCESS)
		tc_win_forget(old);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* Target, displacement, window and origin count of an RMA operation. */
static inline void set_rma(struct tc_event *ev, MPI_Win win, int target, MPI_Aint disp,
			   MPI_Count count, MPI_Datatype dt)
{
	const struct tc_win_info *wi = set_win(ev, win);

	ev->fields |= TC_F_PEER;
	ev->peer = tc_win_peer(wi, target);
	ev->offset = disp > 0 ? (uint64_t)disp : 0;
	set_dtype(ev, ucount(count), dt);
}

static int pmpi_put(unsigned op, void *addr, int ocount, MPI_Datatype otype, int target,
		    MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
	switch (op) {
#define X(name, rname, OP, lc, cq)                                                         \
	case TC_OP_##OP:                                                                     \
		return PMPI_##name(addr, ocount, otype, target, disp, tcount, ttype, win);   \
	case TC_OP_R##OP:                                                                    \
		return PMPI_##rname(addr, ocount, otype, target, disp, tcount, ttype, win, req);
		TC_CALLS_PUT(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

/* Put, Get, Rput, Rget */
int tcw_put(unsigned op, void *addr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
	    int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req, void *ra)
{
	struct tc_rec r;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_put(op, addr, ocount, otype, target, disp, tcount, ttype, win, req));
	t0 = tc_cap_clock();
	rc = pmpi_put(op, addr, ocount, otype, target, disp, tcount, ttype, win, req);
	tc_cap_begin(&r, op, t0, ra);
	set_rma(&r.ev, win, target, disp, ocount, otype);
	set_request(&r.ev, rc, req, op, TC_REQ_OTHER, false, NULL);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/*
 * The PMPI function of a one-sided op and of its request form: its
 * arguments before the window are args, or args_c for the large-count
 * form (which LARGE_OR picks).
 */
#define RCASES(name, rname, OP, args, args_c)                                               \
	case TC_OP_##OP:                                                                     \
		return LARGE_OR(PMPI_##name##_c(TC_UNPAREN args_c, win),                     \
				PMPI_##name(TC_UNPAREN args, win));                          \
	case TC_OP_R##OP:                                                                    \
		return LARGE_OR(PMPI_##rname##_c(TC_UNPAREN args_c, win, req),               \
				PMPI_##rname(TC_UNPAREN args, win, req));

static int pmpi_accumulate(unsigned op, const void *addr, MPI_Count ocount, MPI_Datatype otype,
			   int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype,
			   MPI_Op redop, MPI_Win win, MPI_Request *req, bool large)
{
	switch (op) {
#define X(name, rname, OP, lc)                                                             \
	RCASES(name, rname, OP,                                                              \
	       (addr, (int)ocount, otype, target, disp, (int)tcount, ttype, redop),          \
	       (addr, ocount, otype, target, disp, tcount, ttype, redop))
		TC_CALLS_ACCUMULATE(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

/* Accumulate, Raccumulate */
int tcw_accumulate(unsigned op, const void *addr, MPI_Count ocount, MPI_Datatype otype,
		   int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op redop,
		   MPI_Win win, MPI_Request *req, bool large, void *ra)
{
	struct tc_rec r;
	uint64_t t0;
	int rc;

#define CALL pmpi_accumulate(op, addr, ocount, otype, target, disp, tcount, ttype, redop, win, \
			     req, large)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	set_rma(&r.ev, win, target, disp, ocount, otype);
	set_redop(&r.ev, redop);
	set_request(&r.ev, rc, req, op, TC_REQ_OTHER, false, NULL);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

static int pmpi_get_accumulate(unsigned op, const void *oaddr, MPI_Count ocount,
			       MPI_Datatype otype, void *raddr, MPI_Count rcount,
			       MPI_Datatype rtype, int target, MPI_Aint disp, MPI_Count tcount,
			       MPI_Datatype ttype, MPI_Op redop, MPI_Win win, MPI_Request *req,
			       bool large)
{
	switch (op) {
#define X(name, rname, OP, lc)                                                             \
	RCASES(name, rname, OP,                                                              \
	       (oaddr, (int)ocount, otype, raddr, (int)rcount, rtype, target, disp,          \
		(int)tcount, ttype, redop),                                                  \
	       (oaddr, ocount, otype, raddr, rcount, rtype, target, disp, tcount, ttype,     \
		redop))
		TC_CALLS_GET_ACCUMULATE(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

/* Get_accumulate, Rget_accumulate: count is the origin's (the result's
 * with MPI_NO_OP, which sends nothing) */
int tcw_get_accumulate(unsigned op, const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
		       void *raddr, MPI_Count rcount, MPI_Datatype rtype, int target,
		       MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op redop,
		       MPI_Win win, MPI_Request *req, bool large, void *ra)
{
	struct tc_rec r;
	uint64_t t0;
	int rc;

#define CALL pmpi_get_accumulate(op, oaddr, ocount, otype, raddr, rcount, rtype, target, disp, \
				 tcount, ttype, redop, win, req, large)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	if (redop == MPI_NO_OP)
		set_rma(&r.ev, win, target, disp, rcount, rtype);
	else
		set_rma(&r.ev, win, target, disp, ocount, otype);
	set_redop(&r.ev, redop);
	set_request(&r.ev, rc, req, op, TC_REQ_OTHER, false, NULL);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype dt, int target, MPI_Aint disp,
		     MPI_Op redop, MPI_Win win, void *ra)
{
	struct tc_rec r;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Fetch_and_op(oaddr, raddr, dt, target, disp, redop, win));
	t0 = tc_cap_clock();
	rc = PMPI_Fetch_and_op(oaddr, raddr, dt, target, disp, redop, win);
	tc_cap_begin(&r, TC_OP_FETCH_AND_OP, t0, ra);
	set_rma(&r.ev, win, target, disp, 1, dt);
	set_redop(&r.ev, redop);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_compare_and_swap(const void *oaddr, const void *caddr, void *raddr, MPI_Datatype dt,
			 int target, MPI_Aint disp, MPI_Win win, void *ra)
{
	struct tc_rec r;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Compare_and_swap(oaddr, caddr, raddr, dt, target, disp, win));
	t0 = tc_cap_clock();
	rc = PMPI_Compare_and_swap(oaddr, caddr, raddr, dt, target, disp, win);
	tc_cap_begin(&r, TC_OP_COMPARE_AND_SWAP, t0, ra);
	set_rma(&r.ev, win, target, disp, 1, dt);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

static int pmpi_win_sync(unsigned op, int lock_type, int rank, int assert, MPI_Group group,
			 MPI_Win win, int *flag)
{
	switch (op) {
	case TC_OP_WIN_LOCK:
		return PMPI_Win_lock(lock_type, rank, assert, win);
	case TC_OP_WIN_TEST:
		return PMPI_Win_test(win, flag);
#define X(name, OP, lc)         \
	case TC_OP_##OP:          \
		return PMPI_##name(win);
		TC_CALLS_WIN(X)
#undef X
#define X(name, OP, lc)         \
	case TC_OP_##OP:          \
		return PMPI_##name(rank, win);
		TC_CALLS_WIN_RANK(X)
#undef X
#define X(name, OP, lc)         \
	case TC_OP_##OP:          \
		return PMPI_##name(assert, win);
		TC_CALLS_WIN_ASSERT(X)
#undef X
#define X(name, OP, lc)         \
	case TC_OP_##OP:          \
		return PMPI_##name(group, assert, win);
		TC_CALLS_WIN_GROUP(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

/*
 * Window synchronisation: fence, lock/unlock(_all), flush(_local)(_all),
 * post/start/complete/wait/test, sync. rank is the target of lock, unlock,
 * flush and flush_local (peer=); group that of post and start (its size
 * in count=); the other arguments are ignored where the call has none.
 */
/* The world ranks of group's n members as the event's scounts (the
 * groups of MPI_Win_post and MPI_Win_start). */
static void set_group(struct tc_event *ev, MPI_Group group, int n)
{
	struct tc_scratch *sc = tc_scratch_get();
	MPI_Group wg;
	int w;

	if (n <= 0 || !sc || !TC_CAP_GROW(sc->scounts, (size_t)n, sc->scounts_alloc) ||
	    PMPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS)
		return;
	for (int i = 0; i < n; i++) {
		if (PMPI_Group_translate_ranks(group, 1, &i, wg, &w) != MPI_SUCCESS || w < 0) {
			PMPI_Group_free(&wg);
			return;
		}
		sc->scounts[i] = (uint64_t)w;
	}
	PMPI_Group_free(&wg);
	ev->fields |= TC_F_SCOUNTS;
	ev->scounts = sc->scounts;
	ev->nscounts = (uint32_t)n;
}

int tcw_win_sync(unsigned op, int lock_type, int rank, int assert, MPI_Group group, MPI_Win win,
		 int *flag, void *ra)
{
	struct tc_rec r;
	const struct tc_win_info *wi;
	uint64_t t0;
	int rc, n = 0;

	PASS_IF_OFF(pmpi_win_sync(op, lock_type, rank, assert, group, win, flag));
	t0 = tc_cap_clock();
	rc = pmpi_win_sync(op, lock_type, rank, assert, group, win, flag);
	tc_cap_begin(&r, op, t0, ra);
	wi = set_win(&r.ev, win);
	switch (op) {
	case TC_OP_WIN_LOCK:
	case TC_OP_WIN_UNLOCK:
	case TC_OP_WIN_FLUSH:
	case TC_OP_WIN_FLUSH_LOCAL:
		r.ev.fields |= TC_F_PEER;
		r.ev.peer = tc_win_peer(wi, rank);
		if (op == TC_OP_WIN_LOCK) {
			r.ev.fields |= TC_F_TAG;
			r.ev.tag = lock_type == MPI_LOCK_EXCLUSIVE ? TC_LOCK_EXCLUSIVE : TC_LOCK_SHARED;
		}
		break;
	case TC_OP_WIN_POST:
	case TC_OP_WIN_START:
		if (group != MPI_GROUP_NULL)
			PMPI_Group_size(group, &n);
		r.ev.fields |= TC_F_COUNT;
		r.ev.count = n > 0 ? (uint64_t)n : 0;
		if (group != MPI_GROUP_NULL)
			set_group(&r.ev, group, n);
		break;
	case TC_OP_WIN_TEST:
		r.ev.fields |= TC_F_COUNT;
		r.ev.count = rc == MPI_SUCCESS && *flag ? 1 : 0;
		break;
	default:
		break;
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* ---- more communicator creation ----------------------------------------- */

/* root= the local leader, peer= the remote leader (world ranks) */
int tcw_intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer_comm, int remote_leader,
			 int tag, MPI_Comm *newcomm, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

#define CALL PMPI_Intercomm_create(local, local_leader, peer_comm, remote_leader, tag, newcomm)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, TC_OP_INTERCOMM_CREATE, t0, ra);
	ci = tc_comm_get(local);
	set_comm(&r.ev, ci);
	set_root(&r.ev, ci, local_leader);
	r.ev.fields |= TC_F_TAG;
	r.ev.tag = tag;
	/* the remote leader is significant at the local leader only */
	if (ci->myrank == local_leader && peer_comm != MPI_COMM_NULL) {
		r.ev.fields |= TC_F_PEER;
		r.ev.peer = tc_comm_peer(tc_comm_get(peer_comm), remote_leader);
	}
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, TC_OP_INTERCOMM_CREATE, 0, NULL,
					       NULL));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* key= high */
int tcw_intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newcomm, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Intercomm_merge(intercomm, high, newcomm));
	t0 = tc_cap_clock();
	rc = PMPI_Intercomm_merge(intercomm, high, newcomm);
	tc_cap_begin(&r, TC_OP_INTERCOMM_MERGE, t0, ra);
	ci = tc_comm_get(intercomm);
	set_comm(&r.ev, ci);
	r.ev.fields |= TC_F_COLOR;
	r.ev.color = 0;
	r.ev.key = high != 0;
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, TC_OP_INTERCOMM_MERGE, 0, NULL,
					       NULL));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_dist_graph_create(MPI_Comm comm, int n, const int srcs[], const int degrees[],
			  const int dsts[], const int weights[], MPI_Info info, int reorder,
			  MPI_Comm *newcomm, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

#define CALL PMPI_Dist_graph_create(comm, n, srcs, degrees, dsts, weights, info, reorder, newcomm)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, TC_OP_DIST_GRAPH_CREATE, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, TC_OP_DIST_GRAPH_CREATE, 0, NULL,
					       NULL));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/*
 * Comm_spawn (count= maxprocs), Comm_connect, Comm_accept: root= the
 * root of comm, newcomm= the intercommunicator. Its remote processes are
 * outside MPI_COMM_WORLD: they have no world rank (peer -1 when used).
 */
int tcw_comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
		   MPI_Comm comm, MPI_Comm *intercomm, int errcodes[], void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

#define CALL PMPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, errcodes)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, TC_OP_COMM_SPAWN, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	set_root(&r.ev, ci, root);
	if (ci->myrank == root) {
		r.ev.fields |= TC_F_COUNT;
		r.ev.count = maxprocs > 0 ? (uint64_t)maxprocs : 0;
	}
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*intercomm, ci->id, TC_OP_COMM_SPAWN, 0, NULL, NULL));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* Comm_connect (accept false) and Comm_accept */
int tcw_comm_connect(bool accept, const char *port, MPI_Info info, int root, MPI_Comm comm,
		     MPI_Comm *newcomm, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	unsigned op = accept ? TC_OP_COMM_ACCEPT : TC_OP_COMM_CONNECT;
	uint64_t t0;
	int rc;

#define CALL (accept ? PMPI_Comm_accept(port, info, root, comm, newcomm) \
		     : PMPI_Comm_connect(port, info, root, comm, newcomm))
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	set_root(&r.ev, ci, root);
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, ci->id, op, 0, NULL, NULL));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* ---- MPI-4 large-count variants ----------------------------------------- */

#if MPI_VERSION >= 4
/*
 * The _c functions take MPI_Count counts; each is recorded as the op of
 * its base function (the event's count is 64-bit either way).
 */
static inline int pmpi_send_c(unsigned op, const void *buf, MPI_Count count, MPI_Datatype dt,
			      int dest, int tag, MPI_Comm comm)
{
	switch (op) {
#define X(name, OP, lc)            \
	case TC_OP_##OP:             \
		return PMPI_##name##_c(buf, count, dt, dest, tag, comm);
		TC_CALLS_SEND(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

int tcw_send_c(unsigned op, const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
	       MPI_Comm comm, void *ra)
{
	struct tc_rec r;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_send_c(op, buf, count, dt, dest, tag, comm));
	t0 = tc_cap_clock();
	rc = pmpi_send_c(op, buf, count, dt, dest, tag, comm);
	tc_cap_begin(&r, op, t0, ra);
	set_p2p(&r.ev, tc_comm_get(comm), dest, tag, count, dt);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

static inline int pmpi_isend_c(unsigned op, const void *buf, MPI_Count count, MPI_Datatype dt,
			       int peer, int tag, MPI_Comm comm, MPI_Request *req)
{
	switch (op) {
#define X(name, OP, lc)            \
	case TC_OP_##OP:             \
		return PMPI_##name##_c(buf, count, dt, peer, tag, comm, req);
		TC_CALLS_ISEND(X)
#undef X
#define X(name, OP, lc)            \
	case TC_OP_##OP:             \
		return PMPI_##name##_c((void *)buf, count, dt, peer, tag, comm, req);
		TC_CALLS_IRECV(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

int tcw_isend_c(unsigned op, const void *buf, MPI_Count count, MPI_Datatype dt, int peer,
		int tag, MPI_Comm comm, MPI_Request *req, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;
	bool recv = op == TC_OP_IRECV || op == TC_OP_RECV_INIT;
	bool persistent = tc_op_kind(op) == TC_K_PERSIST;

	PASS_IF_OFF(pmpi_isend_c(op, buf, count, dt, peer, tag, comm, req));
	t0 = tc_cap_clock();
	rc = pmpi_isend_c(op, buf, count, dt, peer, tag, comm, req);
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_p2p(&r.ev, ci, peer, tag, count, dt);
	set_request(&r.ev, rc, req, op, recv ? TC_REQ_RECV : TC_REQ_SEND, persistent, ci);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
	       MPI_Status *status, void *ra)
{
	struct tc_rec r;
	struct tc_completion c;
	struct tc_comm_info *ci;
	MPI_Status st;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Recv_c(buf, count, dt, src, tag, comm, status));
	if (status == MPI_STATUS_IGNORE)
		status = &st;
	t0 = tc_cap_clock();
	rc = PMPI_Recv_c(buf, count, dt, src, tag, comm, status);
	tc_cap_begin(&r, TC_OP_RECV, t0, ra);
	ci = tc_comm_get(comm);
	set_p2p(&r.ev, ci, src, tag, count, dt);
	if (rc == MPI_SUCCESS) {
		set_status(&c, status, ci, 0);
		one_completion(&r.ev, &c);
	}
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_bcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm,
		MPI_Request *req, const MPI_Info *init, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	unsigned op = init ? TC_OP_BCAST_INIT : req ? TC_OP_IBCAST : TC_OP_BCAST;
	uint64_t t0;
	int rc;

#define CALL (INIT_OR(PMPI_Bcast_init_c(buf, count, dt, root, comm, *init, req)) \
	      req ? PMPI_Ibcast_c(buf, count, dt, root, comm, req) \
		  : PMPI_Bcast_c(buf, count, dt, root, comm))
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	set_dtype(&r.ev, ucount(count), dt);
	set_root(&r.ev, ci, root);
	COLL_END(req, op, ci);
	return rc;
}

static int pmpi_reduce_c(unsigned op, const void *sbuf, void *rbuf, MPI_Count count,
			 MPI_Datatype dt, MPI_Op redop, int root, MPI_Comm comm, MPI_Request *req,
			 const MPI_Info *init)
{
	switch (op) {
#define X(name, iname, OP, lc)                                                    \
	case TC_OP_##OP##_INIT:                                                     \
		return PMPI_##name##_init_c(sbuf, rbuf, count, dt, redop, root, comm, *init, \
					    req);
		TC_CALLS_REDUCE_ROOT(X)
#undef X
#define X(name, iname, OP, lc)                                                    \
	case TC_OP_##OP##_INIT:                                                     \
		return PMPI_##name##_init_c(sbuf, rbuf, count, dt, redop, comm, *init, req);
		TC_CALLS_REDUCE(X)
#undef X
#define X(name, iname, OP, lc)                                                    \
	case TC_OP_##OP:                                                            \
		return PMPI_##name##_c(sbuf, rbuf, count, dt, redop, root, comm);   \
	case TC_OP_I##OP:                                                           \
		return PMPI_##iname##_c(sbuf, rbuf, count, dt, redop, root, comm, req);
		TC_CALLS_REDUCE_ROOT(X)
#undef X
#define X(name, iname, OP, lc)                                                    \
	case TC_OP_##OP:                                                            \
		return PMPI_##name##_c(sbuf, rbuf, count, dt, redop, comm);         \
	case TC_OP_I##OP:                                                           \
		return PMPI_##iname##_c(sbuf, rbuf, count, dt, redop, comm, req);
		TC_CALLS_REDUCE(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

int tcw_reduce_c(unsigned op, const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
		 MPI_Op redop, int root, MPI_Comm comm, MPI_Request *req, const MPI_Info *init,
		 void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_reduce_c(op, sbuf, rbuf, count, dt, redop, root, comm, req, init));
	t0 = tc_cap_clock();
	rc = pmpi_reduce_c(op, sbuf, rbuf, count, dt, redop, root, comm, req, init);
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	set_dtype(&r.ev, ucount(count), dt);
	set_redop(&r.ev, redop);
	if (tc_op_flags(op) & TC_OPF_ROOT)
		set_root(&r.ev, ci, root);
	COLL_END(req, op, ci);
	return rc;
}

static int pmpi_gather_c(unsigned op, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
			 void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
			 MPI_Request *req, const MPI_Info *init)
{
	switch (op) {
#define X(name, iname, OP, lc)                                                             \
	case TC_OP_##OP##_INIT:                                                              \
		return PMPI_##name##_init_c(sbuf, scount, stype, rbuf, rcount, rtype, root,  \
					    comm, *init, req);
		TC_CALLS_GATHER_ROOT(X)
#undef X
#define X(name, iname, OP, lc)                                                             \
	case TC_OP_##OP##_INIT:                                                              \
		return PMPI_##name##_init_c(sbuf, scount, stype, rbuf, rcount, rtype, comm,  \
					    *init, req);
		TC_CALLS_ALLGATHER(X)
		TC_CALLS_NEIGHBOR(X)
#undef X
#define X(name, iname, OP, lc)                                                             \
	case TC_OP_##OP:                                                                     \
		return PMPI_##name##_c(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);\
	case TC_OP_I##OP:                                                                    \
		return PMPI_##iname##_c(sbuf, scount, stype, rbuf, rcount, rtype, root, comm,\
					req);
		TC_CALLS_GATHER_ROOT(X)
#undef X
#define X(name, iname, OP, lc)                                                             \
	case TC_OP_##OP:                                                                     \
		return PMPI_##name##_c(sbuf, scount, stype, rbuf, rcount, rtype, comm);      \
	case TC_OP_I##OP:                                                                    \
		return PMPI_##iname##_c(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
		TC_CALLS_ALLGATHER(X)
		TC_CALLS_NEIGHBOR(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

/* Gather, Scatter, Allgather, Alltoall, Neighbor_allgather/alltoall, I-forms,
 * persistent forms */
int tcw_gather_c(unsigned op, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
		 void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
		 MPI_Request *req, const MPI_Info *init, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	bool scatter = op == TC_OP_SCATTER || op == TC_OP_ISCATTER || op == TC_OP_SCATTER_INIT;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_gather_c(op, sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req,
				  init));
	t0 = tc_cap_clock();
	rc = pmpi_gather_c(op, sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req, init);
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_comm(&r.ev, ci);
	if (scatter ? rbuf != MPI_IN_PLACE : sbuf == MPI_IN_PLACE)
		set_dtype(&r.ev, ucount(rcount), rtype);
	else
		set_dtype(&r.ev, ucount(scount), stype);
	if (tc_op_flags(op) & TC_OPF_ROOT)
		set_root(&r.ev, ci, root);
	COLL_END(req, op, ci);
	return rc;
}

static int pmpi_put_c(unsigned op, void *addr, MPI_Count ocount, MPI_Datatype otype, int target,
		      MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,
		      MPI_Request *req)
{
	switch (op) {
#define X(name, rname, OP, lc, cq)                                                         \
	case TC_OP_##OP:                                                                     \
		return PMPI_##name##_c(addr, ocount, otype, target, disp, tcount, ttype, win);\
	case TC_OP_R##OP:                                                                    \
		return PMPI_##rname##_c(addr, ocount, otype, target, disp, tcount, ttype, win,\
					req);
		TC_CALLS_PUT(X)
#undef X
	default:
		return MPI_ERR_INTERN;
	}
}

/* Put, Get, Rput, Rget */
int tcw_put_c(unsigned op, void *addr, MPI_Count ocount, MPI_Datatype otype, int target,
	      MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req,
	      void *ra)
{
	struct tc_rec r;
	const struct tc_win_info *wi;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_put_c(op, addr, ocount, otype, target, disp, tcount, ttype, win, req));
	t0 = tc_cap_clock();
	rc = pmpi_put_c(op, addr, ocount, otype, target, disp, tcount, ttype, win, req);
	tc_cap_begin(&r, op, t0, ra);
	wi = set_win(&r.ev, win);
	r.ev.fields |= TC_F_PEER;
	r.ev.peer = tc_win_peer(wi, target);
	r.ev.offset = disp > 0 ? (uint64_t)disp : 0;
	set_dtype(&r.ev, ucount(ocount), otype);
	set_request(&r.ev, rc, req, op, TC_REQ_OTHER, false, NULL);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* ---- MPI-4: partitioned communication ---------------------------------- */

/*
 * Psend_init, Precv_init: a persistent request like Send_init/Recv_init,
 * count the elements of all partitions, the number of partitions in
 * offset (with file 0).
 */
int tcw_pinit(unsigned op, void *buf, int partitions, MPI_Count count, MPI_Datatype dt,
	      int peer, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *req, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	bool recv = op == TC_OP_PRECV_INIT;
	uint64_t t0;
	int rc;

#define CALL (recv ? PMPI_Precv_init(buf, partitions, count, dt, peer, tag, comm, info, req) \
		   : PMPI_Psend_init(buf, partitions, count, dt, peer, tag, comm, info, req))
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_p2p(&r.ev, ci, peer, tag, partitions > 0 ? count * partitions : 0, dt);
	r.ev.fields |= TC_F_FILE;
	r.ev.file = 0;
	r.ev.offset = partitions > 0 ? (uint64_t)partitions : 0;
	set_request(&r.ev, rc, req, op, recv ? TC_REQ_RECV : TC_REQ_SEND, true, ci);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

static int pmpi_pready(unsigned op, int lo, int hi, int n, const int list[], MPI_Request req,
		       int *flag)
{
	switch (op) {
	case TC_OP_PREADY:
		return PMPI_Pready(lo, req);
	case TC_OP_PREADY_RANGE:
		return PMPI_Pready_range(lo, hi, req);
	case TC_OP_PREADY_LIST:
		return PMPI_Pready_list(n, (int *)list, req);
	case TC_OP_PARRIVED:
		return PMPI_Parrived(req, lo, flag);
	default:
		return MPI_ERR_INTERN;
	}
}

/*
 * Pready (partition lo), Pready_range (lo..hi), Pready_list (n of list),
 * Parrived (partition lo): the request id of the partitioned request with
 * its communicator, peer and tag; offset the first partition, count the
 * number of partitions.
 */
int tcw_pready(unsigned op, int lo, int hi, int n, const int list[], MPI_Request req, int *flag,
	       void *ra)
{
	struct tc_rec r;
	struct tc_req_info ri;
	uint64_t t0;
	int rc;

	PASS_IF_OFF(pmpi_pready(op, lo, hi, n, list, req, flag));
	t0 = tc_cap_clock();
	rc = pmpi_pready(op, lo, hi, n, list, req, flag);
	tc_cap_begin(&r, op, t0, ra);
	if (tc_req_peek(req, tc_req_stamp(), &ri)) {
		r.ev.fields |= TC_F_REQUEST | TC_F_COMM | TC_F_PEER | TC_F_TAG;
		r.ev.request = ri.id;
		r.ev.comm = ri.comm_id;
		r.ev.peer = ri.peer;
		r.ev.tag = ri.tag;
	}
	if (op == TC_OP_PREADY_LIST) {
		lo = n > 0 && list ? list[0] : 0;
		hi = lo + (n > 0 ? n : 0) - 1;
	}
	r.ev.fields |= TC_F_COUNT | TC_F_FILE;
	r.ev.file = 0;
	r.ev.count = hi >= lo ? (uint64_t)hi - (uint64_t)lo + 1 : 0;
	r.ev.offset = lo > 0 ? (uint64_t)lo : 0;
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/* ---- MPI-4: nonblocking sendrecv, communicators ------------------------ */

/*
 * Isendrecv, Isendrecv_replace (rbuf, rcount and rtype ignored): recorded
 * like Sendrecv, with a request whose completion carries no status (MPICH
 * 4.0.2 leaves the status of these requests empty).
 */
int tcw_isendrecv(unsigned op, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
		  int dest, int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int src,
		  int rtag, MPI_Comm comm, MPI_Request *req, bool large, void *ra)
{
	struct tc_rec r;
	struct tc_comm_info *ci;
	uint64_t t0;
	int rc;

#define CALL                                                                               \
	(op == TC_OP_ISENDRECV_REPLACE                                                     \
		 ? (large ? PMPI_Isendrecv_replace_c((void *)sbuf, scount, stype, dest, stag, \
						     src, rtag, comm, req)                  \
			  : PMPI_Isendrecv_replace((void *)sbuf, (int)scount, stype, dest,    \
						   stag, src, rtag, comm, req))             \
		 : (large ? PMPI_Isendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount,   \
					     rtype, src, rtag, comm, req)                   \
			  : PMPI_Isendrecv(sbuf, (int)scount, stype, dest, stag, rbuf,        \
					   (int)rcount, rtype, src, rtag, comm, req)))
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	ci = tc_comm_get(comm);
	set_p2p(&r.ev, ci, dest, stag, scount, stype);
	r.ev.fields |= TC_F_RPEER;
	r.ev.rpeer = tc_comm_peer(ci, src);
	r.ev.rtag = rtag;
	set_request(&r.ev, rc, req, op, TC_REQ_OTHER, false, ci);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

/*
 * Comm_create_from_group, Intercomm_create_from_groups: no parent
 * communicator (the group may come from a session); the new one is
 * recorded with its members as a child of MPI_COMM_WORLD, the leaders of
 * the intercommunicator form as root (local) and peer (remote), in the
 * ranks of their groups.
 */
static void from_group(unsigned op, int rc, MPI_Comm *newcomm, uint64_t t0, void *ra,
		       int local_leader, int remote_leader)
{
	struct tc_rec r;

	tc_cap_begin(&r, op, t0, ra);
	if (op == TC_OP_INTERCOMM_CREATE_FROM_GROUPS) {
		r.ev.fields |= TC_F_ROOT | TC_F_PEER;
		r.ev.root = local_leader;
		r.ev.peer = remote_leader;
	}
	if (rc == MPI_SUCCESS)
		set_newcomm(&r.ev, tc_comm_new(*newcomm, TC_COMM_WORLD, op, 0, NULL, NULL));
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
}

/*
 * Session_init (eh and session given) and Session_finalize (session
 * only): events of their own, without parameters. Recorded while tracing,
 * that is after MPI_Init: a process that only uses sessions is not traced.
 */
int tcw_session(unsigned op, MPI_Info info, MPI_Errhandler eh, MPI_Session *session, void *ra)
{
	struct tc_rec r;
	uint64_t t0;
	int rc;

#define CALL (op == TC_OP_SESSION_INIT ? PMPI_Session_init(info, eh, session) \
				       : PMPI_Session_finalize(session))
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	tc_cap_begin(&r, op, t0, ra);
	set_rc(&r.ev, rc);
	tc_cap_commit(&r);
	tc_cap_leave();
	return rc;
}

int tcw_comm_create_from_group(MPI_Group group, const char *tag, MPI_Info info,
			       MPI_Errhandler eh, MPI_Comm *newcomm, void *ra)
{
	uint64_t t0;
	int rc;

	PASS_IF_OFF(PMPI_Comm_create_from_group(group, tag, info, eh, newcomm));
	t0 = tc_cap_clock();
	rc = PMPI_Comm_create_from_group(group, tag, info, eh, newcomm);
	from_group(TC_OP_COMM_CREATE_FROM_GROUP, rc, newcomm, t0, ra, 0, 0);
	return rc;
}

int tcw_intercomm_create_from_groups(MPI_Group local, int local_leader, MPI_Group remote,
				     int remote_leader, const char *tag, MPI_Info info,
				     MPI_Errhandler eh, MPI_Comm *newcomm, void *ra)
{
	uint64_t t0;
	int rc;

#define CALL PMPI_Intercomm_create_from_groups(local, local_leader, remote, remote_leader, tag, \
					       info, eh, newcomm)
	PASS_IF_OFF(CALL);
	t0 = tc_cap_clock();
	rc = CALL;
#undef CALL
	from_group(TC_OP_INTERCOMM_CREATE_FROM_GROUPS, rc, newcomm, t0, ra, local_leader,
		   remote_leader);
	return rc;
}
#endif
