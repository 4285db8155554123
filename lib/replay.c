/*
 * replay.c - the simulated replay (see replay.h for the model).
 */
#include "compat.h"
#include "replay.h"
#include "event.h"
#include "xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct msg {
	int32_t src, tag;
	double arrive;
	bool matched;
};

struct mqueue {
	struct msg *m;
	size_t n, alloc, head;
};

enum { REQ_SEND = 0, REQ_RECV };

struct req {
	uint64_t id;
	int kind;
	int32_t peer, tag;
	double done;            /* sends: local completion */
	bool cancel;            /* MPI_Cancel was called on it */
};

struct cmap {
	uint32_t comm;
	uint32_t group;
	uint64_t seq;           /* collectives entered on it */
};

struct member {
	size_t idx;
	int32_t color, key;
	uint32_t newcomm;
	uint32_t group;         /* result; UINT32_MAX: none */
};

struct inst {
	size_t arrived, left;
	double tmax, tfinish;
	bool done;
	unsigned op;
	uint64_t k, total;
	struct member *mem;
	size_t nmem, amem;
};

struct group {
	size_t nmembers;
	struct inst **inst;     /* by sequence number */
	size_t ninst;
};

struct rstate {
	struct tc_event ev;
	struct tc_completion *compl;
	size_t acompl;
	bool have, done, first;
	uint64_t total;         /* v-variant collectives: bytes sent in all */
	double clock, last_send;
	uint64_t prev_end;
	struct req *reqs;
	size_t nreq, areq;
	struct cmap *cm;
	size_t ncm, acm;
	/* in progress */
	bool busy;
	size_t wait_i;
	double wait_t;
	uint32_t cgroup;
	uint64_t cseq;
};

struct sim {
	const struct tc_replay_params *p;
	size_t n;
	int32_t world;
	int32_t *idx_of;        /* world rank -> index, -1 */
	int32_t *ranks;         /* index -> world rank */
	struct rstate *r;
	struct mqueue *q;
	struct group *g;
	size_t ng, ag;
	tc_replay_next_fn next;
	void *ctx;
	size_t force;           /* index + 1 of the rank whose blocked
				 * operation completes unmatched; 0: none */
	struct tc_replay_result *res;
};

void tc_replay_params_init(struct tc_replay_params *p)
{
	p->L = TC_REPLAY_L_DEFAULT;
	p->o = TC_REPLAY_O_DEFAULT;
	p->g = TC_REPLAY_GAP_DEFAULT;
	p->G = TC_REPLAY_G_DEFAULT;
	p->gaps = true;
	p->lenient = false;
}

static uint64_t ceil_log2(uint64_t P)
{
	uint64_t l = 0;

	while (((uint64_t)1 << l) < P && l < 63)
		l++;
	return l;
}

double tc_replay_coll_cost(const struct tc_replay_params *p, unsigned op, uint64_t P, uint64_t k,
			   uint64_t total)
{
	double a = p->L + 2 * p->o, b = p->G, l = (double)ceil_log2(P);

	if (P <= 1)
		return 0;
	/* a persistent collective is replayed at its init, as the collective */
	switch (tc_op_base(op)) {
	case TC_OP_BARRIER:
	case TC_OP_IBARRIER:
		return l * a;
	case TC_OP_BCAST: case TC_OP_IBCAST:
	case TC_OP_REDUCE: case TC_OP_IREDUCE:
	case TC_OP_ALLREDUCE: case TC_OP_IALLREDUCE:
	case TC_OP_SCAN: case TC_OP_ISCAN:
	case TC_OP_EXSCAN: case TC_OP_IEXSCAN:
	case TC_OP_REDUCE_SCATTER: case TC_OP_IREDUCE_SCATTER:
	case TC_OP_REDUCE_SCATTER_BLOCK: case TC_OP_IREDUCE_SCATTER_BLOCK:
		return l * (a + (double)k * b);
	case TC_OP_GATHER: case TC_OP_IGATHER:
	case TC_OP_GATHERV: case TC_OP_IGATHERV:
	case TC_OP_SCATTER: case TC_OP_ISCATTER:
	case TC_OP_SCATTERV: case TC_OP_ISCATTERV:
	case TC_OP_ALLGATHER: case TC_OP_IALLGATHER:
	case TC_OP_ALLGATHERV: case TC_OP_IALLGATHERV:
		return l * a + (double)(P - 1) * (double)k * b;
	case TC_OP_ALLTOALL: case TC_OP_IALLTOALL:
		return (double)(P - 1) * (a + (double)k * b);
	case TC_OP_ALLTOALLV: case TC_OP_IALLTOALLV:
	case TC_OP_ALLTOALLW: case TC_OP_IALLTOALLW:
		return (double)(P - 1) * a + (double)(total ? total : k) * b;
	/* neighbourhood collectives: one round of concurrent messages with the
	 * topology neighbours, whose number the event does not tell */
	case TC_OP_NEIGHBOR_ALLGATHER: case TC_OP_INEIGHBOR_ALLGATHER:
	case TC_OP_NEIGHBOR_ALLTOALL: case TC_OP_INEIGHBOR_ALLTOALL:
	case TC_OP_NEIGHBOR_ALLGATHERV: case TC_OP_INEIGHBOR_ALLGATHERV:
	case TC_OP_NEIGHBOR_ALLTOALLV: case TC_OP_INEIGHBOR_ALLTOALLV:
	case TC_OP_NEIGHBOR_ALLTOALLW: case TC_OP_INEIGHBOR_ALLTOALLW:
		return a + (double)(total ? total : k) * b;
	default:
		return 0;
	}
}

/* ---- per-rank helpers ------------------------------------------------- */

static struct cmap *cmap_find(struct rstate *r, uint32_t comm)
{
	for (size_t i = 0; i < r->ncm; i++)
		if (r->cm[i].comm == comm)
			return &r->cm[i];
	return NULL;
}

static void cmap_set(struct rstate *r, uint32_t comm, uint32_t group)
{
	struct cmap *c = cmap_find(r, comm);

	if (!c) {
		if (r->ncm == r->acm) {
			r->acm = r->acm ? 2 * r->acm : 4;
			r->cm = tc_xrealloc(r->cm, tc_st_mult(r->acm, sizeof(*r->cm)));
		}
		c = &r->cm[r->ncm++];
	}
	c->comm = comm;
	c->group = group;
	c->seq = 0;
}

static void req_add(struct rstate *r, const struct req *q)
{
	if (r->nreq == r->areq) {
		r->areq = r->areq ? 2 * r->areq : 8;
		r->reqs = tc_xrealloc(r->reqs, tc_st_mult(r->areq, sizeof(*r->reqs)));
	}
	r->reqs[r->nreq++] = *q;
}

static struct req *req_find(struct rstate *r, uint64_t id)
{
	for (size_t i = r->nreq; i-- > 0;)
		if (r->reqs[i].id == id)
			return &r->reqs[i];
	return NULL;
}

static void req_remove(struct rstate *r, struct req *q)
{
	size_t i = (size_t)(q - r->reqs);

	memmove(&r->reqs[i], &r->reqs[i + 1], (r->nreq - i - 1) * sizeof(*r->reqs));
	r->nreq--;
}

/* ---- messages --------------------------------------------------------- */

static double inject(struct sim *s, struct rstate *r, uint64_t bytes)
{
	const struct tc_replay_params *p = s->p;
	double ts = r->clock, busy;

	if (r->last_send >= 0 && r->last_send + p->g > ts)
		ts = r->last_send + p->g;
	r->last_send = ts;
	busy = p->o + (bytes ? (double)(bytes - 1) * p->G : 0);
	r->clock = ts + busy;
	return ts + busy + p->L;
}

static void send_msg(struct sim *s, struct rstate *r, int32_t src, int32_t dst, int32_t tag,
		     uint64_t bytes)
{
	double arrive;
	int32_t di;
	struct mqueue *q;

	if (dst == TC_PROC_NULL || dst < 0)
		return;
	arrive = inject(s, r, bytes);
	s->res->messages++;
	di = dst < s->world ? s->idx_of[dst] : -1;
	if (di < 0) {
		s->res->unmatched_sends++;
		return;
	}
	q = &s->q[di];
	if (q->n == q->alloc) {
		if (q->head > q->n / 2) {
			memmove(q->m, q->m + q->head, (q->n - q->head) * sizeof(*q->m));
			q->n -= q->head;
			q->head = 0;
		} else {
			q->alloc = q->alloc ? 2 * q->alloc : 16;
			q->m = tc_xrealloc(q->m, tc_st_mult(q->alloc, sizeof(*q->m)));
		}
	}
	q->m[q->n].src = src;
	q->m[q->n].tag = tag;
	q->m[q->n].arrive = arrive;
	q->m[q->n].matched = false;
	q->n++;
}

/* Match the first message from src with tag; false when none yet. */
static bool match_msg(struct sim *s, size_t idx, int32_t src, int32_t tag, double *arrive)
{
	struct mqueue *q = &s->q[idx];

	for (size_t i = q->head; i < q->n; i++) {
		struct msg *m = &q->m[i];
		if (m->matched || (src != TC_ANY_SOURCE && m->src != src) ||
		    (tag != TC_ANY_TAG && m->tag != tag))
			continue;
		m->matched = true;
		*arrive = m->arrive;
		while (q->head < q->n && q->m[q->head].matched)
			q->head++;
		if (q->head == q->n)
			q->head = q->n = 0;
		return true;
	}
	return false;
}

/* A stalled rank's receive completes without its message (lenient mode). */
static bool forced(struct sim *s, size_t idx)
{
	if (s->force != idx + 1)
		return false;
	s->force = 0;
	s->res->forced++;
	return true;
}

/* ---- collectives ------------------------------------------------------ */

static uint32_t group_new(struct sim *s, size_t nmembers)
{
	if (s->ng == s->ag) {
		s->ag = s->ag ? 2 * s->ag : 8;
		s->g = tc_xrealloc(s->g, tc_st_mult(s->ag, sizeof(*s->g)));
	}
	memset(&s->g[s->ng], 0, sizeof(*s->g));
	s->g[s->ng].nmembers = nmembers;
	return (uint32_t)s->ng++;
}

static struct inst *inst_get(struct sim *s, uint32_t gi, uint64_t seq)
{
	struct group *g = &s->g[gi];

	if (seq >= g->ninst) {
		size_t n = g->ninst ? g->ninst : 8;
		while (n <= seq)
			n *= 2;
		g->inst = tc_xrealloc(g->inst, tc_st_mult(n, sizeof(*g->inst)));
		memset(g->inst + g->ninst, 0, (n - g->ninst) * sizeof(*g->inst));
		g->ninst = n;
	}
	if (!g->inst[seq]) {
		g->inst[seq] = tc_xcalloc(1, sizeof(struct inst));
		g->inst[seq]->left = g->nmembers;
	}
	return g->inst[seq];
}

static int member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->color != y->color)
		return x->color < y->color ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void inst_finish(struct sim *s, struct inst *in, size_t P)
{
	in->tfinish = in->tmax + tc_replay_coll_cost(s->p, in->op, P, in->k, in->total);
	in->done = true;
	s->res->collectives++;
	if (!in->nmem)
		return;
	if (in->op == TC_OP_COMM_SPLIT || in->op == TC_OP_COMM_SPLIT_TYPE) {
		qsort(in->mem, in->nmem, sizeof(*in->mem), member_cmp);
		for (size_t i = 0; i < in->nmem;) {
			size_t j = i;
			uint32_t gi = UINT32_MAX;
			while (j < in->nmem && in->mem[j].color == in->mem[i].color)
				j++;
			if (in->mem[i].color != TC_UNDEFINED)
				gi = group_new(s, j - i);
			for (size_t k = i; k < j; k++)
				in->mem[k].group = gi;
			i = j;
		}
	} else {
		uint32_t gi = group_new(s, in->nmem);
		for (size_t k = 0; k < in->nmem; k++)
			in->mem[k].group = gi;
	}
}

static bool is_coll_comm_op(unsigned op)
{
	return op == TC_OP_COMM_DUP || op == TC_OP_COMM_SPLIT || op == TC_OP_COMM_SPLIT_TYPE ||
	       op == TC_OP_CART_CREATE || op == TC_OP_COMM_IDUP || op == TC_OP_COMM_DUP_WITH_INFO;
}

/* ---- stepping --------------------------------------------------------- */

enum { ST_ADVANCED, ST_BLOCKED, ST_DONE };

static void copy_event(struct rstate *r, const struct tc_event *ev)
{
	r->ev = *ev;
	if (ev->ncompl) {
		if (r->acompl < ev->ncompl) {
			r->acompl = ev->ncompl;
			r->compl = tc_xrealloc(r->compl, tc_st_mult(r->acompl, sizeof(*r->compl)));
		}
		memcpy(r->compl, ev->compl, ev->ncompl * sizeof(*r->compl));
	}
	r->ev.compl = r->compl;
	r->ev.scounts = r->ev.rcounts = NULL;
	r->ev.nscounts = r->ev.nrcounts = 0;
}

static uint64_t event_total(const struct tc_event *ev)
{
	uint64_t t = 0;

	for (uint32_t i = 0; i < ev->nscounts; i++)
		t += ev->scounts[i] * ev->dtype_size;
	return t;
}

/* Returns true when the collective completed (r->clock updated). */
static bool do_coll(struct sim *s, size_t idx, struct rstate *r, uint64_t total)
{
	const struct tc_event *ev = &r->ev;
	struct inst *in;
	struct cmap *c;

	if (!r->busy) {
		if (ev->comm == TC_COMM_SELF)
			return true;
		c = cmap_find(r, ev->comm);
		if (!c) {
			/* unknown communicator: cost without synchronisation */
			r->clock += tc_replay_coll_cost(s->p, ev->op, s->n, tc_event_bytes(ev), total);
			return true;
		}
		r->cgroup = c->group;
		r->cseq = c->seq++;
		in = inst_get(s, r->cgroup, r->cseq);
		if (in->done) {
			r->busy = true;
			goto wait;
		}
		in->arrived++;
		if (in->arrived == 1 || r->clock > in->tmax)
			in->tmax = r->clock;
		in->op = ev->op;
		if (tc_event_bytes(ev) > in->k)
			in->k = tc_event_bytes(ev);
		if (total > in->total)
			in->total = total;
		if (is_coll_comm_op(ev->op) && (ev->fields & TC_F_NEWCOMM)) {
			if (in->nmem == in->amem) {
				in->amem = in->amem ? 2 * in->amem : 8;
				in->mem = tc_xrealloc(in->mem, tc_st_mult(in->amem, sizeof(*in->mem)));
			}
			in->mem[in->nmem].idx = idx;
			in->mem[in->nmem].color = (ev->fields & TC_F_COLOR) ? ev->color : 0;
			in->mem[in->nmem].key = (ev->fields & TC_F_COLOR) ? ev->key : 0;
			in->mem[in->nmem].newcomm = ev->newcomm;
			in->mem[in->nmem].group = UINT32_MAX;
			in->nmem++;
		}
		if (in->arrived == s->g[r->cgroup].nmembers)
			inst_finish(s, in, s->g[r->cgroup].nmembers);
		r->busy = true;
	}
wait:
	in = s->g[r->cgroup].inst[r->cseq];
	if (!in->done) {
		if (!forced(s, idx))
			return false;
		/* the members that never come find it done */
		inst_finish(s, in, s->g[r->cgroup].nmembers);
	}
	if (in->tfinish > r->clock)
		r->clock = in->tfinish;
	for (size_t k = 0; k < in->nmem; k++)
		if (in->mem[k].idx == idx && in->mem[k].group != UINT32_MAX)
			cmap_set(r, in->mem[k].newcomm, in->mem[k].group);
	if (--in->left == 0) {
		free(in->mem);
		free(in);
		s->g[r->cgroup].inst[r->cseq] = NULL;
	}
	r->busy = false;
	return true;
}

/* Completions of a wait/test: returns false while a receive is unmatched. */
static bool do_wait(struct sim *s, size_t idx, struct rstate *r)
{
	const struct tc_event *ev = &r->ev;

	if (!r->busy) {
		r->busy = true;
		r->wait_i = 0;
		r->wait_t = r->clock;
	}
	for (; r->wait_i < ev->ncompl; r->wait_i++) {
		const struct tc_completion *cp = &ev->compl[r->wait_i];
		struct req *q = req_find(r, cp->request);
		double arrive;
		if (!q)
			continue;
		if (q->kind == REQ_SEND) {
			if (q->done > r->wait_t)
				r->wait_t = q->done;
		} else {
			int32_t src = cp->source >= 0 ? cp->source : q->peer;
			int32_t tag = cp->source >= 0 ? cp->tag : q->tag;
			/* cancelled: completes without a message unless its
			 * status names the message it got (the cancel failed) */
			if (src == TC_PROC_NULL || (q->cancel && cp->source < 0)) {
				req_remove(r, q);
				continue;
			}
			if (!match_msg(s, idx, src, tag, &arrive)) {
				if (!forced(s, idx))
					return false;
				arrive = r->wait_t;
			}
			r->wait_t = (arrive > r->wait_t ? arrive : r->wait_t) + s->p->o;
		}
		req_remove(r, q);
	}
	r->clock = r->wait_t;
	r->busy = false;
	return true;
}

static bool do_recv(struct sim *s, size_t idx, struct rstate *r, int32_t src, int32_t tag)
{
	double arrive;

	if (src == TC_PROC_NULL)
		return true;
	if (!match_msg(s, idx, src, tag, &arrive)) {
		if (!forced(s, idx))
			return false;
		arrive = r->clock;
	}
	r->clock = (arrive > r->clock ? arrive : r->clock) + s->p->o;
	return true;
}

/* Run the current event of rank idx; false when it blocks. */
static bool run_event(struct sim *s, size_t idx, struct rstate *r, int32_t rank)
{
	const struct tc_event *ev = &r->ev;
	enum tc_op_kind kind = tc_op_kind(ev->op);
	struct req q;

	switch (kind) {
	case TC_K_SEND:
		send_msg(s, r, rank, ev->peer, ev->tag, tc_event_bytes(ev));
		if (tc_op_flags(ev->op) & TC_OPF_NB) {
			q.id = ev->request;
			q.kind = REQ_SEND;
			q.peer = ev->peer;
			q.tag = ev->tag;
			q.done = r->clock;
			q.cancel = false;
			req_add(r, &q);
		}
		return true;
	case TC_K_RECV:
		if (tc_op_flags(ev->op) & TC_OPF_NB) {
			q.id = ev->request;
			q.kind = REQ_RECV;
			q.peer = ev->peer;
			q.tag = ev->tag;
			q.done = 0;
			q.cancel = false;
			req_add(r, &q);
			return true;
		}
		if (ev->ncompl && ev->compl[0].source >= 0)
			return do_recv(s, idx, r, ev->compl[0].source, ev->compl[0].tag);
		return do_recv(s, idx, r, ev->peer, ev->tag);
	case TC_K_SENDRECV:
		if (!r->busy) {
			send_msg(s, r, rank, ev->peer, ev->tag, tc_event_bytes(ev));
			r->busy = true;
		}
		if (ev->ncompl && ev->compl[0].source >= 0) {
			if (!do_recv(s, idx, r, ev->compl[0].source, ev->compl[0].tag))
				return false;
		} else if (!do_recv(s, idx, r, ev->rpeer, ev->rtag)) {
			return false;
		}
		r->busy = false;
		return true;
	case TC_K_WAIT:
		if (ev->op == TC_OP_CANCEL) {
			struct req *c = (ev->fields & TC_F_REQUEST) ? req_find(r, ev->request) : NULL;
			if (c)
				c->cancel = true;
			return true;
		}
		return do_wait(s, idx, r);
	case TC_K_COLL:
		return do_coll(s, idx, r, r->total);
	case TC_K_COMM:
		if (is_coll_comm_op(ev->op))
			return do_coll(s, idx, r, 0);
		return true;
	case TC_K_RMA:
		/* window creation, fence and free synchronise the window's
		 * communicator; RMA operations themselves are not modelled */
		if ((tc_op_flags(ev->op) & TC_OPF_WSYNC) && (ev->fields & TC_F_COMM))
			return do_coll(s, idx, r, 0);
		return true;
	default:
		return true;
	}
}

static int step(struct sim *s, size_t idx)
{
	struct rstate *r = &s->r[idx];
	bool moved = false;

	if (r->done)
		return ST_DONE;
	for (;;) {
		if (!r->have) {
			struct tc_event ev;
			tc_event_init(&ev);
			if (!s->next(s->ctx, idx, &ev)) {
				r->done = true;
				return ST_DONE;
			}
			r->total = event_total(&ev);
			copy_event(r, &ev);
			r->have = true;
			s->res->events++;
			if (s->p->gaps && !r->first && ev.t_start > r->prev_end)
				r->clock += (double)(ev.t_start - r->prev_end) * 1e-9;
			r->first = false;
			r->prev_end = ev.t_end > ev.t_start ? ev.t_end : ev.t_start;
		}
		if (!run_event(s, idx, r, s->ranks[idx]))
			return moved ? ST_ADVANCED : ST_BLOCKED;
		r->have = false;
		moved = true;
	}
}

int tc_replay_run(size_t nranks, const int32_t *ranks, int32_t world_size,
		  const struct tc_replay_params *p, tc_replay_next_fn next, void *ctx,
		  struct tc_replay_result *res)
{
	struct sim s;
	uint32_t world;

	memset(res, 0, sizeof(*res));
	memset(&s, 0, sizeof(s));
	res->nranks = nranks;
	res->time = tc_xcalloc(nranks + 1, sizeof(*res->time));
	s.p = p;
	s.n = nranks;
	s.next = next;
	s.ctx = ctx;
	s.res = res;
	s.ranks = tc_xcalloc(nranks + 1, sizeof(*s.ranks));
	for (size_t i = 0; i < nranks; i++) {
		s.ranks[i] = ranks ? ranks[i] : (int32_t)i;
		if (s.ranks[i] >= world_size)
			world_size = s.ranks[i] + 1;
	}
	s.world = world_size > 0 ? world_size : 1;
	s.idx_of = tc_xmalloc(tc_st_mult((size_t)s.world, sizeof(*s.idx_of)));
	for (int32_t i = 0; i < s.world; i++)
		s.idx_of[i] = -1;
	for (size_t i = 0; i < nranks; i++)
		s.idx_of[s.ranks[i]] = (int32_t)i;
	s.r = tc_xcalloc(nranks + 1, sizeof(*s.r));
	s.q = tc_xcalloc(nranks + 1, sizeof(*s.q));
	world = group_new(&s, nranks);
	for (size_t i = 0; i < nranks; i++) {
		s.r[i].first = true;
		s.r[i].last_send = -1;
		cmap_set(&s.r[i], TC_COMM_WORLD, world);
	}
	for (;;) {
		bool progress = false, all = true;
		for (size_t i = 0; i < nranks; i++) {
			int st;
			while ((st = step(&s, i)) == ST_ADVANCED)
				progress = true;
			if (st != ST_DONE)
				all = false;
		}
		if (all)
			break;
		if (!progress) {
			bool first = !res->deadlock;
			res->deadlock = true;
			if (p->lenient) {
				/* complete the blocked operation of the rank that
				 * blocked earliest (lowest clock, then index) */
				size_t best = SIZE_MAX;
				for (size_t i = 0; i < nranks; i++)
					if (!s.r[i].done && (best == SIZE_MAX ||
							     s.r[i].clock < s.r[best].clock))
						best = i;
				s.force = best + 1;
				if (!first)
					continue;
			}
			res->blocked = tc_xcalloc(nranks + 1, sizeof(*res->blocked));
			for (size_t i = 0; i < nranks; i++) {
				struct rstate *r = &s.r[i];
				struct tc_replay_block *b;
				if (r->done)
					continue;
				b = &res->blocked[res->nblocked++];
				b->rank = s.ranks[i];
				b->op = r->ev.op;
				b->peer = tc_op_kind(r->ev.op) == TC_K_SENDRECV ? r->ev.rpeer : r->ev.peer;
				b->tag = tc_op_kind(r->ev.op) == TC_K_SENDRECV ? r->ev.rtag : r->ev.tag;
				if (r->ev.ncompl && r->ev.compl[0].source >= 0 &&
				    tc_op_kind(r->ev.op) != TC_K_WAIT) {
					b->peer = r->ev.compl[0].source;
					b->tag = r->ev.compl[0].tag;
				}
			}
			if (p->lenient)
				continue;
			break;
		}
	}
	for (size_t i = 0; i < nranks; i++) {
		struct mqueue *q = &s.q[i];
		for (size_t k = q->head; k < q->n; k++)
			if (!q->m[k].matched)
				res->unmatched_sends++;
		res->time[i] = s.r[i].clock;
		if (s.r[i].clock > res->makespan)
			res->makespan = s.r[i].clock;
		free(q->m);
		free(s.r[i].compl);
		free(s.r[i].reqs);
		free(s.r[i].cm);
	}
	for (size_t i = 0; i < s.ng; i++) {
		for (size_t k = 0; k < s.g[i].ninst; k++) {
			if (s.g[i].inst[k]) {
				free(s.g[i].inst[k]->mem);
				free(s.g[i].inst[k]);
			}
		}
		free(s.g[i].inst);
	}
	free(s.g);
	free(s.q);
	free(s.r);
	free(s.idx_of);
	res->rank = s.ranks;
	return 0;
}

void tc_replay_result_release(struct tc_replay_result *res)
{
	free(res->time);
	free(res->rank);
	free(res->blocked);
	memset(res, 0, sizeof(*res));
}
