/*
 * accuracy.c - matching percentages and space per process (accuracy.h).
 */
#include "compat.h"
#include "accuracy.h"
#include "event.h"
#include "rsd.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[TC_MATCH_N] = { "count", "loop", "events", "src", "dest", "tag", "comm" };

const char *tc_match_name(int which)
{
	return which >= 0 && which < TC_MATCH_N ? names[which] : NULL;
}

struct loops {
	uint64_t *v;    /* pairs: iterations, body length */
	size_t n, alloc;
};

static void loops_walk(struct loops *l, const struct tc_rsd_node *nd, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!nd[i].nbody)
			continue;
		if (l->n + 2 > l->alloc) {
			l->alloc = l->alloc ? 2 * l->alloc : 16;
			l->v = tc_xrealloc(l->v, tc_st_mult(l->alloc, sizeof(*l->v)));
		}
		l->v[l->n++] = nd[i].iters;
		l->v[l->n++] = nd[i].nbody;
		loops_walk(l, nd[i].body, nd[i].nbody);
	}
}

static void loops_of(struct loops *l, const struct tc_rsd *r)
{
	size_t n;
	const struct tc_rsd_node *nd = tc_rsd_seq(r, &n);

	loops_walk(l, nd, n);
}

static int32_t recv_source(const struct tc_event *ev)
{
	if (ev->ncompl && ev->compl[0].source >= 0)
		return ev->compl[0].source;
	return tc_op_kind(ev->op) == TC_K_SENDRECV ? ev->rpeer : ev->peer;
}

static void count(struct tc_match *m, int which, bool has, bool same)
{
	if (!has)
		return;
	m->items[which]++;
	if (same)
		m->matched[which]++;
}

static void compare(struct tc_match *m, const struct tc_event *a, const struct tc_event *b)
{
	enum tc_op_kind ka = tc_op_kind(a->op);
	bool same_op = a->op == b->op;

	count(m, TC_MATCH_COUNT, a->fields & TC_F_COUNT,
	      same_op && (b->fields & TC_F_COUNT) && a->count == b->count);
	if (ka == TC_K_SEND || ka == TC_K_SENDRECV) {
		count(m, TC_MATCH_DEST, true, same_op && a->peer == b->peer);
		count(m, TC_MATCH_TAG, true, same_op && a->tag == b->tag);
	}
	if (ka == TC_K_RECV || ka == TC_K_SENDRECV) {
		count(m, TC_MATCH_SRC, true, same_op && recv_source(a) == recv_source(b));
		if (ka == TC_K_RECV)
			count(m, TC_MATCH_TAG, true, same_op && a->tag == b->tag);
	}
	if (a->fields & TC_F_COLOR)
		count(m, TC_MATCH_COMM, true,
		      same_op && (b->fields & TC_F_COLOR) && a->color == b->color &&
		      a->key == b->key);
	if (ka == TC_K_WAIT) {
		for (uint32_t i = 0; i < a->ncompl; i++) {
			if (a->compl[i].source < 0)
				continue;
			count(m, TC_MATCH_SRC, true,
			      same_op && i < b->ncompl && b->compl[i].source == a->compl[i].source);
		}
	}
}

static void set_sites(struct tc_rsd *r, const struct tc_evstream *s)
{
	for (size_t i = 0; i < s->nsigs; i++)
		tc_rsd_set_callsite(r, (uint32_t)i, s->sigs[i]);
}

void tc_match_rank(struct tc_match *m, int32_t rank, const struct tc_evstream *a,
		   const struct tc_evstream *b, const struct tc_rsd_opts *opts)
{
	struct tc_rsd *ra = tc_rsd_new(rank, opts), *rb = tc_rsd_new(rank, opts);
	struct loops la = { 0 }, lb = { 0 };
	struct tc_event ea, eb;
	struct tc_completion *ca = NULL;
	size_t aca = 0;
	uint64_t na = 0, nb = 0;
	bool more_a = true, more_b = true;

	set_sites(ra, a);
	set_sites(rb, b);
	for (;;) {
		if (more_a) {
			tc_event_init(&ea);
			more_a = a->next(a->it, &ea);
		}
		if (more_a) {
			tc_rsd_add(ra, &ea);
			na++;
			/* keep a's completions while b's next event is read */
			if (ea.ncompl) {
				if (aca < ea.ncompl) {
					aca = ea.ncompl;
					ca = tc_xrealloc(ca, tc_st_mult(aca, sizeof(*ca)));
				}
				memcpy(ca, ea.compl, ea.ncompl * sizeof(*ca));
				ea.compl = ca;
			}
		}
		if (more_b) {
			tc_event_init(&eb);
			more_b = b->next(b->it, &eb);
		}
		if (more_b) {
			tc_rsd_add(rb, &eb);
			nb++;
		}
		if (!more_a && !more_b)
			break;
		if (more_a && more_b) {
			compare(m, &ea, &eb);
		} else if (more_a) {
			struct tc_event none;
			tc_event_init(&none);
			none.op = TC_OP_NONE;
			compare(m, &ea, &none);
		}
	}
	m->items[TC_MATCH_EVENTS] += na > nb ? na : nb;
	m->matched[TC_MATCH_EVENTS] += na < nb ? na : nb;
	loops_of(&la, ra);
	loops_of(&lb, rb);
	{
		size_t n = la.n > lb.n ? la.n : lb.n;
		for (size_t i = 0; i + 1 < n; i += 2) {
			m->items[TC_MATCH_LOOP]++;
			if (i + 1 < la.n && i + 1 < lb.n && la.v[i] == lb.v[i] &&
			    la.v[i + 1] == lb.v[i + 1])
				m->matched[TC_MATCH_LOOP]++;
		}
	}
	free(la.v);
	free(lb.v);
	free(ca);
	tc_rsd_free(&ra);
	tc_rsd_free(&rb);
}

void tc_match_add(struct tc_match *m, const struct tc_match *o)
{
	for (int i = 0; i < TC_MATCH_N; i++) {
		m->items[i] += o->items[i];
		m->matched[i] += o->matched[i];
	}
}

double tc_match_pct(const struct tc_match *m, int which)
{
	if (!m->items[which])
		return 100.0;
	return 100.0 * (double)m->matched[which] / (double)m->items[which];
}

double tc_space_per_process(double T, double S, uint64_t P, uint64_t clusters, uint64_t mains,
			    bool none)
{
	double p = (double)P, c = (double)clusters, mc = (double)mains;

	if (!P)
		return 0;
	if (none)
		return T * (p - 1) / p;
	if (mains) {
		double sc = c; /* sub-clusters */
		return (p * S + T * (mc - 1) + S * (mc + sc) * (p - 1)) / p;
	}
	return (T * (c - 1) + p * S + S * c * (p - 1)) / p;
}
