/*
 * remote.c - radix-tree reductions run in parts: the subtrees under one
 * depth of a forest go to other processes (tracecluster-mpi), each runs
 * the mode's own node function on them, and their roots' lists and the
 * head changes of their members come back, so that the levels above run
 * where the reduction started (the papers' radix tree of processes,
 * dissertation §3.1: "each node receives the call-path signatures of its
 * children ... and sends different signatures and corresponding ranklists
 * to its parent").
 *
 * The parts are the subtrees of the nodes at depth d, numbered in
 * position order. A node's result depends only on its inputs and its
 * children's lists, merged in a fixed order, so a node computed anywhere
 * gives the same list and the same head changes: the clustering does not
 * depend on where, or on how many processes.
 */
#include "lib/compat.h"
#include "cluster/internal.h"
#include "lib/pack.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const struct tc_reduce_remote *remote;

void tc_cluster_set_reduce_remote(const struct tc_reduce_remote *rr)
{
	remote = rr;
}

void tc_reduction_init(struct tc_reduction *r, int kind, const struct tc_forest *f,
		       struct tc_tlist *lists, uint32_t *head, struct tc_pool *pool)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->f = f;
	r->lists = lists;
	r->head = head;
	r->pool = pool;
}

unsigned tc_reduction_remote(struct tc_reduction *r)
{
	return remote && r->f->n ? remote->run(remote->self, r) : 0;
}

size_t tc_reduction_size(const struct tc_reduction *r)
{
	return r->f->n;
}

struct tc_pool *tc_reduction_pool(const struct tc_reduction *r)
{
	return r->pool;
}

bool tc_reduction_by_distance(const struct tc_reduction *r)
{
	return r->kind == TC_RED_K;
}

void tc_forest_run_above(const struct tc_forest *f, unsigned d, struct tc_pool *pool,
			 tc_forest_fn fn, void *ctx)
{
	struct tc_forest view = *f;
	unsigned first;

	/* level l holds depth nlevels - 1 - l: depths below d are the last d */
	if (d && d < f->nlevels) {
		first = f->nlevels - d;
		view.level = f->level + first;
		view.nlevels = d;
	}
	tc_forest_run(&view, pool, fn, ctx);
}

/* The depth of every position (f->order is by depth, deepest first). */
static uint8_t *depths(const struct tc_forest *f)
{
	uint8_t *dep = tc_xmalloc(f->n ? f->n : 1);

	for (unsigned l = 0; l < f->nlevels; l++)
		for (size_t k = f->level[l]; k < f->level[l + 1]; k++)
			dep[f->order[k]] = (uint8_t)(f->nlevels - 1 - l);
	return dep;
}

unsigned tc_reduction_plan(const struct tc_reduction *r, size_t want, size_t *nroots)
{
	const struct tc_forest *f = r->f;

	unsigned best = 0;

	*nroots = 0;
	for (unsigned d = 1; d < f->nlevels; d++) {
		size_t l = f->nlevels - 1 - d, m = f->level[l + 1] - f->level[l];
		if (m > *nroots) {
			*nroots = m;
			best = d;
		}
		if (m >= want)
			return d;
	}
	/* no depth that wide: the widest, when it can be cut at all */
	if (*nroots < 2) {
		*nroots = 0;
		return 0;
	}
	return best;
}

/* The part of each position at depth >= d: the number of its depth-d
 * ancestor (SIZE_MAX above d); roots[] gets the depth-d positions. */
static size_t *part_ids(const struct tc_forest *f, unsigned d, size_t **roots_out)
{
	uint8_t *dep = depths(f);
	size_t *rid = tc_xmalloc(tc_st_mult(f->n ? f->n : 1, sizeof(*rid)));
	size_t *roots, nroots = 0;
	unsigned ld = f->nlevels - 1 - d;

	roots = tc_xmalloc(tc_st_mult(f->level[ld + 1] - f->level[ld] + 1, sizeof(*roots)));
	for (size_t p = 0; p < f->n; p++)
		rid[p] = SIZE_MAX;
	/* shallow to deep, so a parent is numbered before its children; a
	 * level lists its positions in increasing order */
	for (unsigned l = f->nlevels; l-- > 0;) {
		for (size_t k = f->level[l]; k < f->level[l + 1]; k++) {
			size_t p = f->order[k], t = f->tree[p], j = p - f->off[t];
			if (dep[p] == d) {
				roots[nroots] = p;
				rid[p] = nroots++;
			} else if (dep[p] > d) {
				rid[p] = rid[f->off[t] + (j - 1) / f->radix];
			}
		}
	}
	free(dep);
	*roots_out = roots;
	return rid;
}

/* part_ids of r at depth d, kept in r for the next call (a process
 * packs every other process's share, then takes each one's results). */
static const size_t *parts_of(struct tc_reduction *r, unsigned d, const size_t **roots)
{
	if (!r->part_rid || r->part_depth != d) {
		free(r->part_rid);
		free(r->part_roots);
		r->part_rid = part_ids(r->f, d, &r->part_roots);
		r->part_depth = d;
	}
	*roots = r->part_roots;
	return r->part_rid;
}

void tc_reduction_release(struct tc_reduction *r)
{
	free(r->part_rid);
	free(r->part_roots);
	r->part_rid = r->part_roots = NULL;
}

static void run_kind(struct tc_reduction *r, const struct tc_forest *view, struct tc_pool *pool)
{
	if (r->kind == TC_RED_EXACT)
		tc_exact_run(r, view, pool);
	else
		tc_k_run(r, view, pool);
}

void tc_reduction_run_part(struct tc_reduction *r, unsigned d, size_t r0, size_t r1,
			   struct tc_pool *pool, struct tc_strbuf *out)
{
	const struct tc_forest *f = r->f;
	struct tc_forest view = *f;
	const size_t *roots, *rid = parts_of(r, d, &roots);
	size_t *order = tc_xmalloc(tc_st_mult(f->n ? f->n : 1, sizeof(*order)));
	size_t *level = tc_xcalloc(f->nlevels + 1, sizeof(*level));
	size_t m = 0, changes = 0;
	unsigned nl = f->nlevels - d;

	/* the part's positions, deepest level first, as tc_forest_run wants */
	for (unsigned l = 0; l < nl; l++) {
		level[l] = m;
		for (size_t k = f->level[l]; k < f->level[l + 1]; k++) {
			size_t p = f->order[k];
			if (rid[p] >= r0 && rid[p] < r1)
				order[m++] = p;
		}
	}
	level[nl] = m;
	view.order = order;
	view.level = level;
	view.nlevels = nl;
	run_kind(r, &view, pool);
	if (out) {
		tc_pack_u64(out, r1 - r0);
		for (size_t id = r0; id < r1; id++) {
			const struct tc_tlist *l = &r->lists[roots[id]];
			tc_pack_u64(out, l->n);
			for (size_t j = 0; j < l->n; j++) {
				tc_pack_u64(out, l->v[j].head);
				tc_pack_u64(out, l->v[j].size);
				tc_pack_u64(out, l->v[j].lo);
				tc_pack_u64(out, l->v[j].hi);
			}
		}
		for (size_t k = 0; k < m; k++)
			changes += r->head[f->idx[order[k]]] != f->idx[order[k]];
		tc_pack_u64(out, changes);
		for (size_t k = 0; k < m; k++) {
			uint32_t i = f->idx[order[k]];
			if (r->head[i] != i) {
				tc_pack_u64(out, i);
				tc_pack_u64(out, r->head[i]);
			}
		}
	}
	free(order);
	free(level);
}

bool tc_reduction_take_part(struct tc_reduction *r, unsigned d, size_t r0, size_t r1,
			    struct tc_unpack *u)
{
	const struct tc_forest *f = r->f;
	const size_t *roots;
	size_t changes;

	if (!d || d >= f->nlevels)
		return false;
	parts_of(r, d, &roots);
	if (tc_unpack_u64(u) != r1 - r0)
		u->bad = true;
	for (size_t id = r0; id < r1 && !u->bad; id++) {
		struct tc_tlist *l = &r->lists[roots[id]];
		size_t n = tc_unpack_count(u, 4);
		tc_tlist_release(l);
		l->v = tc_xcalloc(n ? n : 1, sizeof(*l->v));
		l->n = n;
		for (size_t j = 0; j < n; j++) {
			uint64_t h = tc_unpack_u64(u), sz = tc_unpack_u64(u);
			if (h >= f->n || sz > f->n)
				u->bad = true;
			l->v[j].head = (uint32_t)h;
			l->v[j].size = (uint32_t)sz;
			l->v[j].lo = tc_unpack_u64(u);
			l->v[j].hi = tc_unpack_u64(u);
		}
	}
	changes = tc_unpack_count(u, 2);
	for (size_t k = 0; k < changes && !u->bad; k++) {
		uint64_t i = tc_unpack_u64(u), h = tc_unpack_u64(u);
		if (i >= f->n || h >= f->n)
			u->bad = true;
		else
			r->head[i] = (uint32_t)h;
	}
	return !u->bad;
}

/* ---- the inputs as bytes ------------------------------------------------------ */

/* The positions of part [r0, r1) under depth d, in position order. */
static size_t *part_positions(struct tc_reduction *r, unsigned d, size_t r0, size_t r1,
			      size_t *m)
{
	const size_t *roots, *rid = parts_of(r, d, &roots);
	size_t *pos = tc_xmalloc(tc_st_mult(r->f->n ? r->f->n : 1, sizeof(*pos)));

	*m = 0;
	for (size_t p = 0; p < r->f->n; p++)
		if (rid[p] >= r0 && rid[p] < r1)
			pos[(*m)++] = p;
	return pos;
}

static bool idx_identity(const struct tc_forest *f)
{
	for (size_t p = 0; p < f->n; p++)
		if (f->idx[p] != p)
			return false;
	return true;
}

void tc_reduction_pack(struct tc_reduction *r, unsigned d, size_t r0, size_t r1,
		       struct tc_strbuf *out)
{
	const struct tc_forest *f = r->f;
	size_t m, *pos = part_positions(r, d, r0, r1, &m);
	bool ident;

	tc_pack_u64(out, (uint64_t)r->kind);
	tc_pack_u64(out, f->n);
	tc_pack_u64(out, f->radix);
	tc_pack_u64(out, f->ntrees);
	for (size_t t = 0; t <= f->ntrees; t++)
		tc_pack_u64(out, f->off[t]);
	/* the member of each position: in one word when position p holds
	 * rank p (one tree of every rank), else each */
	ident = idx_identity(f);
	tc_pack_u64(out, ident);
	for (size_t p = 0; !ident && p < f->n; p++)
		tc_pack_u64(out, f->idx[p]);
	if (r->kind == TC_RED_EXACT) {
		tc_pack_u64(out, r->exact->nk);
		tc_pack_f64(out, r->exact->threshold);
		tc_pack_u64(out, r->exact->count != NULL);
	} else {
		tc_pack_bytes(out, r->mt, sizeof(*r->mt));
		for (size_t t = 0; t < f->ntrees; t++)
			tc_pack_u64(out, r->k[t]);
		tc_pack_u64(out, r->pam);
		tc_pack_u64(out, r->seed);
	}
	/* what the part's nodes read: the data of its members alone */
	tc_pack_u64(out, m);
	for (size_t k = 0; k < m; k++) {
		uint32_t i = f->idx[pos[k]];
		tc_pack_u64(out, i);
		if (r->kind == TC_RED_EXACT) {
			for (unsigned j = 0; j < r->exact->nk; j++)
				tc_pack_u64(out, r->exact->keys[(size_t)i * r->exact->nk + j]);
			if (r->exact->count)
				tc_pack_u64(out, r->exact->count[i]);
		} else {
			tc_pack_bytes(out, &r->sigs[i], sizeof(r->sigs[i]));
		}
	}
	free(pos);
}

/* A copy of n bytes of the message, or NULL (bad) when its length differs. */
static void *unpack_blob(struct tc_unpack *u, size_t n)
{
	size_t len;
	const void *p = tc_unpack_bytes(u, &len);
	void *q;

	if (!p || len != n) {
		u->bad = true;
		return NULL;
	}
	q = tc_xmalloc(n ? n : 1);
	memcpy(q, p, n);
	return q;
}

static bool unpack_forest(struct tc_unpack *u, struct tc_reduction *r)
{
	size_t n = tc_unpack_count(u, 1);
	unsigned radix = (unsigned)tc_unpack_u32(u);
	size_t ntrees = tc_unpack_count(u, 1);
	bool ident;

	if (u->bad || n > UINT32_MAX || radix < 2)
		return false;
	r->own_off = tc_xcalloc(ntrees + 1, sizeof(*r->own_off));
	r->own_idx = tc_xcalloc(n ? n : 1, sizeof(*r->own_idx));
	for (size_t t = 0; t <= ntrees; t++) {
		r->own_off[t] = (size_t)tc_unpack_u64(u);
		if (r->own_off[t] > n || (t && r->own_off[t] < r->own_off[t - 1]))
			u->bad = true;
	}
	if (r->own_off[0] || r->own_off[ntrees] != n)
		u->bad = true;
	ident = tc_unpack_u64(u) != 0;
	for (size_t p = 0; p < n && !u->bad; p++) {
		r->own_idx[p] = ident ? (uint32_t)p : tc_unpack_u32(u);
		if (r->own_idx[p] >= n)
			u->bad = true;
	}
	if (u->bad)
		return false;
	tc_forest_init(&r->own_f, r->own_idx, n, r->own_off, ntrees, radix);
	r->f = &r->own_f;
	return true;
}

/* The data of the part's members into the (zeroed) full-size arrays. */
static void unpack_members(struct tc_unpack *u, struct tc_reduction *r)
{
	size_t n = r->f->n, m = tc_unpack_count(u, 2);

	for (size_t k = 0; k < m && !u->bad; k++) {
		uint64_t i = tc_unpack_u64(u);
		if (i >= n) {
			u->bad = true;
			break;
		}
		if (r->kind == TC_RED_EXACT) {
			for (unsigned j = 0; j < r->own_exact.nk; j++)
				r->own_keys[i * r->own_exact.nk + j] = tc_unpack_u64(u);
			if (r->own_count)
				r->own_count[i] = tc_unpack_u64(u);
		} else {
			size_t len;
			const void *p = tc_unpack_bytes(u, &len);
			if (!p || len != sizeof(r->own_sigs[i]))
				u->bad = true;
			else
				memcpy(&r->own_sigs[i], p, len);
		}
	}
}

struct tc_reduction *tc_reduction_unpack(struct tc_unpack *u)
{
	struct tc_reduction *r = tc_xcalloc(1, sizeof(*r));
	size_t n;

	r->kind = (int)tc_unpack_u64(u);
	if ((r->kind != TC_RED_EXACT && r->kind != TC_RED_K) || !unpack_forest(u, r)) {
		tc_reduction_free(&r);
		return NULL;
	}
	n = r->f->n;
	if (r->kind == TC_RED_EXACT) {
		struct tc_exact_spec *s = &r->own_exact;
		s->nk = tc_unpack_u32(u);
		s->threshold = tc_unpack_f64(u);
		if (s->nk > 64)
			u->bad = true;
		/* only the part's members are filled in (the rest stay zero pages) */
		r->own_keys = tc_xcalloc(n * s->nk + 1, sizeof(*r->own_keys));
		if (tc_unpack_u64(u))
			r->own_count = tc_xcalloc(n + 1, sizeof(*r->own_count));
		s->keys = r->own_keys;
		s->count = r->own_count;
		r->exact = s;
	} else {
		struct tc_cluster_metric *mt = unpack_blob(u, sizeof(*mt));
		if (mt) {
			r->own_mt = *mt;
			free(mt);
		}
		r->own_k = tc_xcalloc(r->f->ntrees + 1, sizeof(*r->own_k));
		for (size_t t = 0; t < r->f->ntrees; t++)
			r->own_k[t] = tc_unpack_u32(u);
		r->pam = tc_unpack_u64(u) != 0;
		r->seed = tc_unpack_u64(u);
		r->own_sigs = tc_xcalloc(n ? n : 1, sizeof(*r->own_sigs));
		r->mt = &r->own_mt;
		r->sigs = r->own_sigs;
		r->k = r->own_k;
	}
	unpack_members(u, r);
	if (u->bad) {
		tc_reduction_free(&r);
		return NULL;
	}
	r->lists = tc_xcalloc(n ? n : 1, sizeof(*r->lists));
	r->head = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*r->head)));
	for (size_t p = 0; p < n; p++)
		r->head[r->f->idx[p]] = r->f->idx[p];
	return r;
}

void tc_reduction_free(struct tc_reduction **rp)
{
	struct tc_reduction *r = *rp;

	if (!r)
		return;
	*rp = NULL;
	if (r->lists)
		for (size_t p = 0; p < r->f->n; p++)
			tc_tlist_release(&r->lists[p]);
	free(r->lists);
	free(r->head);
	if (r->f == &r->own_f)
		tc_forest_release(&r->own_f);
	tc_reduction_release(r);
	free(r->own_idx);
	free(r->own_off);
	free(r->own_keys);
	free(r->own_count);
	free(r->own_sigs);
	free(r->own_k);
	free(r);
}
