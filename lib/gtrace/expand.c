/*
 * expand.c - expansion of a global trace for one rank (struct
 * tc_gtrace_iter): the tree is walked for the rank and its events come
 * back in order, with the values of the variants holding the rank, or
 * drawn from a histogram where one stands for them (Scala-H-Trace §5.1),
 * and times advanced by the means of the rank's time entry.
 */
#include "lib/compat.h"
#include "lib/gtrace/internal.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- expansion --------------------------------------------------------- */

#define VAR_NONE (-1)
#define VAR_HIST (-2)

/* What the iterator knows of a node for its rank. */
struct node_cache {
	int8_t state;             /* 0 unknown, 1 member, 2 not */
	int32_t var[TC_GP_N + 1]; /* [TC_GP_N]: loop count */
	const struct tc_gtime *time; /* event: the rank's time entry */
};

static int32_t find_var(const struct tc_gparam *gp, int32_t rank)
{
	for (uint32_t i = 0; i < gp->nvar; i++)
		if (tc_ranklist_contains(&gp->var[i].ranks, rank))
			return (int32_t)i;
	if (gp->hist && tc_ranklist_contains(&gp->hist->ranks, rank))
		return VAR_HIST;
	return VAR_NONE;
}

static struct node_cache *cache_get(struct tc_gtrace_iter *it, const struct tc_gnode *nd)
{
	struct node_cache *c = it->cache;

	if (!c || nd->id >= it->g->nnodes)
		return NULL;
	c = &c[nd->id];
	if (c->state)
		return c;
	if (!tc_ranklist_contains(&nd->ranks, it->rank)) {
		c->state = 2;
		return c;
	}
	c->state = 1;
	if (nd->nbody) {
		c->var[TC_GP_N] = find_var(&nd->iters, it->rank);
	} else {
		for (unsigned p = 0; p < TC_GP_N; p++)
			c->var[p] = find_var(&nd->p[p], it->rank);
		c->time = tc_gnode_time(nd, it->rank);
	}
	return c;
}

int tc_gtrace_iter_init(struct tc_gtrace_iter *it, const struct tc_gtrace *g, int32_t rank)
{
	memset(it, 0, sizeof(*it));
	if (!tc_ranklist_contains(&g->ranks, rank))
		return -1;
	it->g = g;
	it->rank = rank;
	TC_ALLOC_GROW(it->stack, 1, it->alloc);
	memset(&it->stack[0], 0, sizeof(it->stack[0]));
	it->stack[0].seq = g->seq;
	it->stack[0].n = g->n;
	it->stack[0].iters = 1;
	it->stack[0].left = 1;
	it->depth = 1;
	if (g->nnodes)
		it->cache = tc_xcalloc((size_t)g->nnodes, sizeof(struct node_cache));
	return 0;
}

void tc_gtrace_iter_release(struct tc_gtrace_iter *it)
{
	free(it->stack);
	free(it->compl);
	free(it->counts);
	free(it->cache);
	memset(it, 0, sizeof(*it));
}

static uint64_t occurrence(const struct tc_gtrace_iter *it)
{
	uint64_t occ = 0;

	for (size_t k = 1; k < it->depth; k++)
		occ = occ * it->stack[k].iters + (it->stack[k].iters - it->stack[k].left);
	return occ;
}

static int64_t round_mean(double m)
{
	if (!(m > -9.0e18 && m < 9.0e18))
		return 0;
	return (int64_t)llround(m);
}

/* A value drawn from a histogram (see merge.h). */
static int64_t hist_draw(const struct tc_gtrace_iter *it, const struct tc_hist *h,
			 const struct tc_gnode *nd, unsigned p, uint64_t occ)
{
	uint64_t r, acc = 0;
	uint32_t k;
	int64_t v;

	if (!h->nbins || !h->n)
		return 0;
	r = tc_hash_mix(tc_hash_mix(tc_hash_mix(0x68697374ULL, (uint64_t)(uint32_t)it->rank),
				    ((uint64_t)nd->id << 8) | p), occ) % h->n;
	for (k = 0; k + 1 < h->nbins; k++) {
		acc += h->bins[k].n;
		if (r < acc)
			break;
	}
	v = h->bins[k].lo == h->bins[k].hi ? h->bins[k].lo : round_mean(h->bins[k].mean);
	if (v < h->bins[k].lo)
		v = h->bins[k].lo;
	if (v > h->bins[k].hi)
		v = h->bins[k].hi;
	return v;
}

/* The value of parameter p (TC_GP_N: loop count) for the rank; NULL when
 * absent. tmp holds a drawn value. */
static const struct tc_gval *resolve(const struct tc_gtrace_iter *it, const struct tc_gnode *nd,
				     const struct tc_gparam *gp, int32_t var, unsigned p,
				     uint64_t occ, struct tc_gval *tmp)
{
	const struct tc_gval *v;

	if (var == VAR_NONE)
		return NULL;
	if (var == VAR_HIST) {
		tmp->n = 1;
		tmp->v = NULL;
		/* a drawn peer that leaves the world wraps around it, as any
		 * relative peer does (decode) */
		tmp->w = hist_draw(it, gp->hist, nd, p, occ);
		return tmp;
	}
	if (gp->var[var].seq) {
		v = tc_gseq_at(gp->var[var].seq, occ);
		return v && v->n != TC_GVAL_ABSENT ? v : NULL;
	}
	v = &gp->var[var].val;
	return v->n != TC_GVAL_ABSENT ? v : NULL;
}

static uint64_t abs_req(int64_t rel, uint64_t last)
{
	return rel == TC_RSD_NOREQ ? 0 : last + (uint64_t)rel;
}

static void decode(struct tc_gtrace_iter *it, const struct tc_gnode *nd,
		   const struct node_cache *c, struct tc_event *ev)
{
	const struct tc_gval *v[TC_GP_N];
	struct tc_gval tmp[TC_GP_N];
	uint64_t occ = occurrence(it);
	ptrdiff_t site = tc_gtrace_site(it->g, nd->stack);
	int32_t r = it->rank;
	size_t ncounts = 0;
	const struct tc_gtime *tm;

	tc_event_init(ev);
	ev->op = nd->op;
	ev->callsite = site < 0 ? TC_NO_CALLSITE : (uint32_t)site;
	for (unsigned p = 0; p < TC_GP_N; p++) {
		v[p] = resolve(it, nd, &nd->p[p], c ? c->var[p] : find_var(&nd->p[p], r), p, occ,
			       &tmp[p]);
		if (v[p])
			ev->fields |= tc_gparam_field(p);
	}
#define W(p) (tc_gval_words(v[p])[0])
	if (v[TC_GP_COMM] && v[TC_GP_COMM]->n == 1)
		ev->comm = (uint32_t)W(TC_GP_COMM);
	if (v[TC_GP_PEER] && v[TC_GP_PEER]->n == 1)
		ev->peer = tc_abs_peer_in(W(TC_GP_PEER), r, it->g->world_size);
	if (v[TC_GP_TAG] && v[TC_GP_TAG]->n == 1)
		ev->tag = (int32_t)W(TC_GP_TAG);
	if (v[TC_GP_RPEER] && v[TC_GP_RPEER]->n == 1)
		ev->rpeer = tc_abs_peer_in(W(TC_GP_RPEER), r, it->g->world_size);
	if (v[TC_GP_RTAG] && v[TC_GP_RTAG]->n == 1)
		ev->rtag = (int32_t)W(TC_GP_RTAG);
	if (v[TC_GP_COUNT] && v[TC_GP_COUNT]->n == 1)
		ev->count = (uint64_t)W(TC_GP_COUNT);
	if (v[TC_GP_DTYPE] && v[TC_GP_DTYPE]->n == 1)
		ev->dtype = (uint32_t)W(TC_GP_DTYPE);
	if (v[TC_GP_DTYPE_SIZE] && v[TC_GP_DTYPE_SIZE]->n == 1)
		ev->dtype_size = (uint32_t)W(TC_GP_DTYPE_SIZE);
	if (v[TC_GP_BYTES] && v[TC_GP_BYTES]->n == 1)
		ev->bytes = (uint64_t)W(TC_GP_BYTES);
	if (v[TC_GP_REDOP] && v[TC_GP_REDOP]->n == 1)
		ev->redop = (uint32_t)W(TC_GP_REDOP);
	if (v[TC_GP_ROOT] && v[TC_GP_ROOT]->n == 1)
		ev->root = (int32_t)W(TC_GP_ROOT);
	if (v[TC_GP_COLOR] && v[TC_GP_COLOR]->n == 1)
		ev->color = (int32_t)W(TC_GP_COLOR);
	if (v[TC_GP_KEY] && v[TC_GP_KEY]->n == 1)
		ev->key = (int32_t)W(TC_GP_KEY);
	if (v[TC_GP_NEWCOMM] && v[TC_GP_NEWCOMM]->n == 1)
		ev->newcomm = (uint32_t)W(TC_GP_NEWCOMM);
	if (v[TC_GP_FILE] && v[TC_GP_FILE]->n == 1)
		ev->file = (uint32_t)W(TC_GP_FILE);
	if (v[TC_GP_OFFSET] && v[TC_GP_OFFSET]->n == 1)
		ev->offset = (uint64_t)W(TC_GP_OFFSET);
	if (v[TC_GP_RESULT] && v[TC_GP_RESULT]->n == 1)
		ev->result = (int32_t)W(TC_GP_RESULT);
#undef W
	/* completions are relative to the last request before this event */
	if (v[TC_GP_COMPL] && v[TC_GP_COMPL]->n != TC_GVAL_ABSENT && v[TC_GP_COMPL]->n / 4) {
		const int64_t *w = tc_gval_words(v[TC_GP_COMPL]);
		uint32_t n = v[TC_GP_COMPL]->n / 4;
		TC_ALLOC_GROW(it->compl, n, it->acompl);
		for (uint32_t i = 0; i < n; i++) {
			it->compl[i].request = abs_req(w[4 * i], it->last_req);
			it->compl[i].source = tc_abs_peer_in(w[4 * i + 1], r, it->g->world_size);
			it->compl[i].tag = (int32_t)w[4 * i + 2];
			it->compl[i].bytes = (uint64_t)w[4 * i + 3];
		}
		ev->ncompl = n;
		ev->compl = it->compl;
	}
	if (v[TC_GP_REQUEST] && v[TC_GP_REQUEST]->n == 1) {
		ev->request = abs_req(tc_gval_words(v[TC_GP_REQUEST])[0], it->last_req);
		if (ev->request)
			it->last_req = ev->request;
	}
	if (v[TC_GP_SCOUNTS] && v[TC_GP_SCOUNTS]->n != TC_GVAL_ABSENT)
		ncounts += v[TC_GP_SCOUNTS]->n;
	if (v[TC_GP_RCOUNTS] && v[TC_GP_RCOUNTS]->n != TC_GVAL_ABSENT)
		ncounts += v[TC_GP_RCOUNTS]->n;
	if (ncounts) {
		size_t k = 0;
		TC_ALLOC_GROW(it->counts, ncounts, it->acounts);
		if (v[TC_GP_SCOUNTS] && v[TC_GP_SCOUNTS]->n != TC_GVAL_ABSENT) {
			const int64_t *w = tc_gval_words(v[TC_GP_SCOUNTS]);
			ev->nscounts = v[TC_GP_SCOUNTS]->n;
			ev->scounts = it->counts;
			for (uint32_t i = 0; i < ev->nscounts; i++)
				it->counts[k++] = (uint64_t)w[i];
		}
		if (v[TC_GP_RCOUNTS] && v[TC_GP_RCOUNTS]->n != TC_GVAL_ABSENT) {
			const int64_t *w = tc_gval_words(v[TC_GP_RCOUNTS]);
			ev->nrcounts = v[TC_GP_RCOUNTS]->n;
			ev->rcounts = it->counts + k;
			for (uint32_t i = 0; i < ev->nrcounts; i++)
				it->counts[k++] = (uint64_t)w[i];
		}
	}
	tm = c ? c->time : tc_gnode_time(nd, it->rank);
	ev->t_start = it->prev_end + (uint64_t)round_mean(tm ? tm->comp.mean : nd->comp.mean);
	ev->t_end = ev->t_start + (uint64_t)round_mean(tm ? tm->comm.mean : nd->comm.mean);
	it->prev_end = ev->t_end;
	it->node = nd;
}

bool tc_gtrace_iter_next(struct tc_gtrace_iter *it, struct tc_event *ev)
{
	while (it->depth) {
		struct tc_gtrace_iter_frame *f = &it->stack[it->depth - 1];
		const struct tc_gnode *nd;
		const struct node_cache *c;
		struct tc_gval tmp;
		const struct tc_gval *cnt;
		uint64_t occ, iters;

		if (f->i >= f->n) {
			if (f->left > 1) {
				f->left--;
				f->i = 0;
				continue;
			}
			it->depth--;
			if (it->depth)
				it->stack[it->depth - 1].i++;
			continue;
		}
		nd = &f->seq[f->i];
		c = cache_get(it, nd);
		if (c ? c->state != 1 : !tc_ranklist_contains(&nd->ranks, it->rank)) {
			f->i++;
			continue;
		}
		if (!nd->nbody) {
			decode(it, nd, c, ev);
			f->i++;
			return true;
		}
		occ = occurrence(it);
		cnt = resolve(it, nd, &nd->iters, c ? c->var[TC_GP_N] : find_var(&nd->iters, it->rank),
			      TC_GP_N, occ, &tmp);
		iters = cnt && cnt->n == 1 && tc_gval_words(cnt)[0] > 0 ? (uint64_t)tc_gval_words(cnt)[0] : 0;
		if (!iters || !nd->nbody) {
			f->i++;
			continue;
		}
		TC_ALLOC_GROW(it->stack, it->depth + 1, it->alloc);
		f = &it->stack[it->depth++];
		f->seq = nd->body;
		f->n = nd->nbody;
		f->i = 0;
		f->iters = iters;
		f->left = iters;
		f->occ = occ;
	}
	return false;
}
