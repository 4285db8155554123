/*
 * structural.c - structural clustering of processes (Weber slides 8-12;
 * Weber et al., "Structural Clustering: A New Approach to Support
 * Performance Analysis at Scale", IPDPS 2016).
 *
 * Each process is described by its caller->callee function pairs (slide
 * 8), which do not depend on call counts, iterations, recursion depth or
 * timing. Processes are the objects and pairs the attributes of a formal
 * context (slide 9, Ganter and Wille); its concept lattice is built one
 * object at a time with AddIntent (slide 10; D. van der Merwe, S.
 * Obiedkov and D. Kourie, "AddIntent: A New Incremental Algorithm for
 * Constructing Concept Lattices", ICFCA 2004, Algorithm 1). Processes
 * whose object concept is the same have the same pair set: they form a
 * group, which the lattice finds while it is built. The function-pair
 * similarity of two processes is |pairs(P) n pairs(Q)| / |pairs(P) u
 * pairs(Q)|.
 */
#include "lib/compat.h"
#include "align/align.h"
#include "align/internal.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/json.h"
#include "lib/pool.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SITE_ID (1u << 22)
#define MAX_FRAMES 256u

/* ---- function pairs of one process ----------------------------------------- */

struct fp_site {
	char **fn;              /* innermost first */
	uint32_t nframes;
};

struct tc_fpairs {
	int32_t rank;
	struct fp_site *sites;
	size_t nsites, asites;
	uint32_t *site_of_id;
	size_t nids;
	uint64_t *used;         /* set of (site + 1) << 32 | op, open addressing */
	size_t nused, used_size;
	char **pairs;           /* sorted, unique */
	size_t npairs, apairs;
	bool dirty;
};

struct tc_fpairs *tc_fpairs_new(int32_t rank)
{
	struct tc_fpairs *p = tc_xcalloc(1, sizeof(*p));

	p->rank = rank;
	return p;
}

void tc_fpairs_free(struct tc_fpairs **pp)
{
	struct tc_fpairs *p = *pp;

	if (!p)
		return;
	*pp = NULL;
	for (size_t i = 0; i < p->nsites; i++) {
		for (uint32_t k = 0; k < p->sites[i].nframes; k++)
			free(p->sites[i].fn[k]);
		free(p->sites[i].fn);
	}
	free(p->sites);
	free(p->site_of_id);
	free(p->used);
	for (size_t i = 0; i < p->npairs; i++)
		free(p->pairs[i]);
	free(p->pairs);
	free(p);
}

int32_t tc_fpairs_rank(const struct tc_fpairs *p)
{
	return p->rank;
}

int tc_fpairs_on_callsite(void *ctx, const struct tc_callsite *cs)
{
	struct tc_fpairs *p = ctx;
	struct fp_site *s;

	if (cs->id >= MAX_SITE_ID)
		return 0;
	if (cs->id >= p->nids) {
		size_t n = p->nids ? p->nids : 16;
		while (n <= cs->id)
			n *= 2;
		p->site_of_id = tc_xrealloc(p->site_of_id, n * sizeof(*p->site_of_id));
		for (size_t i = p->nids; i < n; i++)
			p->site_of_id[i] = UINT32_MAX;
		p->nids = n;
	}
	TC_ALLOC_GROW(p->sites, p->nsites + 1, p->asites);
	s = &p->sites[p->nsites];
	s->nframes = TC_MIN(cs->nframes, MAX_FRAMES);
	s->fn = tc_xcalloc(s->nframes ? s->nframes : 1, sizeof(*s->fn));
	for (uint32_t k = 0; k < s->nframes; k++)
		s->fn[k] = tc_fn_name(cs->frames[k].symbol, cs->frames[k].module,
				      cs->frames[k].offset);
	p->site_of_id[cs->id] = (uint32_t)p->nsites++;
	return 0;
}

static void used_put(struct tc_fpairs *p, uint64_t key)
{
	size_t mask, h;

	if ((p->nused + 1) * 2 > p->used_size) {
		uint64_t *old = p->used;
		size_t on = p->used_size;
		p->used_size = on ? on * 2 : 64;
		p->used = tc_xcalloc(p->used_size, sizeof(*p->used));
		p->nused = 0;
		for (size_t i = 0; i < on; i++)
			if (old[i])
				used_put(p, old[i]);
		free(old);
	}
	mask = p->used_size - 1;
	h = (size_t)tc_hash_fmix(key) & mask;
	while (p->used[h]) {
		if (p->used[h] == key)
			return;
		h = (h + 1) & mask;
	}
	p->used[h] = key;
	p->nused++;
	p->dirty = true;
}

int tc_fpairs_on_event(void *ctx, const struct tc_event *ev)
{
	struct tc_fpairs *p = ctx;

	if (ev->callsite < p->nids && p->site_of_id[ev->callsite] != UINT32_MAX)
		used_put(p, ((uint64_t)p->site_of_id[ev->callsite] + 1) << 32 | ev->op);
	return 0;
}

static void add_pair(struct tc_fpairs *p, const char *caller, const char *callee)
{
	size_t lc = strlen(caller), le = strlen(callee);
	char *s = tc_xmalloc(lc + le + 2);

	memcpy(s, caller, lc);
	s[lc] = '\t';
	memcpy(s + lc + 1, callee, le + 1);
	TC_ALLOC_GROW(p->pairs, p->npairs + 1, p->apairs);
	p->pairs[p->npairs++] = s;
}

/* The pairs of one call site used by op: caller->callee up the stack and
 * the innermost function -> the MPI operation. */
static void add_site_pairs(struct tc_fpairs *p, char *const *fn, uint32_t nframes, uint32_t op)
{
	char buf[32];
	const char *opn = tc_op_name(op);

	if (!nframes)
		return;
	if (!opn) {
		snprintf(buf, sizeof(buf), "MPI_op_%u", op);
		opn = buf;
	}
	add_pair(p, fn[0], opn);
	for (uint32_t k = 0; k + 1 < nframes; k++)
		add_pair(p, fn[k + 1], fn[k]);
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static void pairs_unique(struct tc_fpairs *p)
{
	size_t k = 0;

	if (p->npairs)
		qsort(p->pairs, p->npairs, sizeof(*p->pairs), cmp_str);
	for (size_t i = 0; i < p->npairs; i++) {
		if (k && !strcmp(p->pairs[k - 1], p->pairs[i])) {
			free(p->pairs[i]);
			continue;
		}
		p->pairs[k++] = p->pairs[i];
	}
	p->npairs = k;
}

/* Add the pairs of the (site, op) combinations seen since the last call. */
static void finish(struct tc_fpairs *p)
{
	if (!p->dirty)
		return;
	for (size_t i = 0; i < p->used_size; i++) {
		uint64_t key = p->used[i];
		const struct fp_site *s;
		if (!key)
			continue;
		s = &p->sites[(key >> 32) - 1];
		add_site_pairs(p, s->fn, s->nframes, (uint32_t)key);
		p->used[i] = 0;
	}
	p->nused = 0;
	pairs_unique(p);
	p->dirty = false;
}

void tc_fpairs_add_site(struct tc_fpairs *p, const struct tc_frame *frames, uint32_t nframes,
			uint32_t op)
{
	uint32_t nf = TC_MIN(nframes, MAX_FRAMES);
	char **fn = tc_xmalloc((nf + 1) * sizeof(*fn));

	finish(p);
	for (uint32_t k = 0; k < nf; k++)
		fn[k] = tc_fn_name(frames[k].symbol, frames[k].module, frames[k].offset);
	add_site_pairs(p, fn, nf, op);
	for (uint32_t k = 0; k < nf; k++)
		free(fn[k]);
	free(fn);
	pairs_unique(p);
}

void tc_fpairs_from_aseq(struct tc_fpairs *p, const struct tc_aseq *s)
{
	char **fn = NULL;
	size_t afn = 0;

	finish(p);
	for (size_t i = 0; i < s->n; i++) {
		const struct tc_aseq_site *st = tc_aseq_site_of(s, i);
		uint32_t nf;
		if (!st)
			continue;
		nf = TC_MIN(st->nframes, MAX_FRAMES);
		TC_ALLOC_GROW(fn, nf + 1, afn);
		for (uint32_t k = 0; k < nf; k++)
			fn[k] = st->frames[k].fn;
		add_site_pairs(p, fn, nf, s->ev[i].op);
		if (p->npairs > 4096 + 4 * (size_t)nf)
			pairs_unique(p);
	}
	pairs_unique(p);
	free(fn);
}

size_t tc_fpairs_count(struct tc_fpairs *p)
{
	finish(p);
	return p->npairs;
}

const char *tc_fpairs_get(struct tc_fpairs *p, size_t i)
{
	finish(p);
	return i < p->npairs ? p->pairs[i] : NULL;
}

/* ---- sorted id sets ------------------------------------------------------------ */

struct idset {
	uint32_t *v;
	size_t n;
};

static bool set_subset(const struct idset *a, const struct idset *b)
{
	size_t i = 0, j = 0;

	if (a->n > b->n)
		return false;
	while (i < a->n && j < b->n) {
		if (a->v[i] == b->v[j]) {
			i++;
			j++;
		} else if (a->v[i] > b->v[j]) {
			j++;
		} else {
			return false;
		}
	}
	return i == a->n;
}

static bool set_equal(const struct idset *a, const struct idset *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->v, b->v, a->n * sizeof(*a->v)));
}

static size_t set_common(const struct idset *a, const struct idset *b)
{
	size_t i = 0, j = 0, c = 0;

	while (i < a->n && j < b->n) {
		if (a->v[i] == b->v[j]) {
			c++;
			i++;
			j++;
		} else if (a->v[i] < b->v[j]) {
			i++;
		} else {
			j++;
		}
	}
	return c;
}

static struct idset set_intersect(const struct idset *a, const struct idset *b)
{
	struct idset r;
	size_t i = 0, j = 0;

	r.v = tc_xmalloc((TC_MIN(a->n, b->n) + 1) * sizeof(*r.v));
	r.n = 0;
	while (i < a->n && j < b->n) {
		if (a->v[i] == b->v[j]) {
			r.v[r.n++] = a->v[i];
			i++;
			j++;
		} else if (a->v[i] < b->v[j]) {
			i++;
		} else {
			j++;
		}
	}
	return r;
}

static double set_sim(const struct idset *a, const struct idset *b)
{
	size_t c = set_common(a, b), u = a->n + b->n - c;

	return u ? (double)c / (double)u : 1.0;
}

/* ---- the concept lattice (AddIntent) --------------------------------------------- */

struct concept {
	struct idset intent;
	size_t *extent;         /* process indices, ascending */
	size_t next, aext;
	size_t *parents;        /* upper covers: smaller intents */
	size_t np, ap;
	size_t *children;       /* lower covers */
	size_t nc, ac;
	size_t stamp;
};

struct tc_structural {
	size_t nprocs;
	int32_t *rank;
	char **pair;            /* attribute names, sorted */
	size_t npair;
	struct idset *attr;     /* per process */
	struct concept *c;
	size_t nc, ac;
	size_t max_concepts;
	bool overflow;
	size_t *obj;            /* object concept of each process */
	/* classes: distinct pair sets (object concepts), by first process */
	size_t nclass;
	size_t *class_of;
	size_t *class_rep;      /* a process of each class */
	double *class_sim;      /* nclass^2, or NULL when too many */
	/* groups: classes joined at the threshold */
	double threshold;
	size_t ngroups;
	size_t *group_of;
	size_t **members;
	size_t *nmembers;
};

static void link_add(size_t **v, size_t *n, size_t *a, size_t x)
{
	TC_ALLOC_GROW(*v, *n + 1, *a);
	(*v)[(*n)++] = x;
}

static void link_del(size_t *v, size_t *n, size_t x)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i] == x) {
			memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof(*v));
			(*n)--;
			return;
		}
}

static void set_link(struct tc_structural *s, size_t parent, size_t child)
{
	link_add(&s->c[parent].children, &s->c[parent].nc, &s->c[parent].ac, child);
	link_add(&s->c[child].parents, &s->c[child].np, &s->c[child].ap, parent);
}

static void remove_link(struct tc_structural *s, size_t parent, size_t child)
{
	link_del(s->c[parent].children, &s->c[parent].nc, child);
	link_del(s->c[child].parents, &s->c[child].np, parent);
}

/* Steals intent. */
static size_t new_concept(struct tc_structural *s, struct idset intent, size_t extent_of)
{
	struct concept *c;
	size_t id = s->nc;

	TC_ALLOC_GROW(s->c, s->nc + 1, s->ac);
	c = &s->c[s->nc++];
	memset(c, 0, sizeof(*c));
	c->intent = intent;
	if (extent_of != SIZE_MAX && s->c[extent_of].next) {
		const struct concept *src = &s->c[extent_of];
		c->extent = tc_xmalloc(src->next * sizeof(*c->extent));
		memcpy(c->extent, src->extent, src->next * sizeof(*c->extent));
		c->next = c->aext = src->next;
	}
	if (s->nc > s->max_concepts)
		s->overflow = true;
	return id;
}

static size_t maximal_concept(struct tc_structural *s, const struct idset *intent, size_t gen)
{
	bool up = true;

	while (up) {
		up = false;
		for (size_t i = 0; i < s->c[gen].np; i++) {
			size_t p = s->c[gen].parents[i];
			if (set_subset(intent, &s->c[p].intent)) {
				gen = p;
				up = true;
				break;
			}
		}
	}
	return gen;
}

/* AddIntent (van der Merwe et al. 2004, Algorithm 1); copies intent. */
static size_t add_intent(struct tc_structural *s, const struct idset *intent, size_t gen)
{
	size_t *gparents, ngp, *newp = NULL, nnew = 0, anew = 0, id;
	struct idset copy;

	gen = maximal_concept(s, intent, gen);
	if (set_equal(&s->c[gen].intent, intent) || s->overflow)
		return gen;
	ngp = s->c[gen].np;
	gparents = tc_xmalloc((ngp + 1) * sizeof(*gparents));
	if (ngp)
		memcpy(gparents, s->c[gen].parents, ngp * sizeof(*gparents));
	for (size_t i = 0; i < ngp; i++) {
		size_t cand = gparents[i];
		bool add = true;

		if (!set_subset(&s->c[cand].intent, intent)) {
			struct idset meet = set_intersect(&s->c[cand].intent, intent);
			cand = add_intent(s, &meet, cand);
			free(meet.v);
		}
		for (size_t k = 0; k < nnew;) {
			if (set_subset(&s->c[cand].intent, &s->c[newp[k]].intent)) {
				add = false;
				break;
			}
			if (set_subset(&s->c[newp[k]].intent, &s->c[cand].intent)) {
				memmove(&newp[k], &newp[k + 1], (nnew - k - 1) * sizeof(*newp));
				nnew--;
				continue;
			}
			k++;
		}
		if (add)
			link_add(&newp, &nnew, &anew, cand);
	}
	copy.n = intent->n;
	copy.v = tc_xmalloc((intent->n + 1) * sizeof(*copy.v));
	if (intent->n)
		memcpy(copy.v, intent->v, intent->n * sizeof(*copy.v));
	id = new_concept(s, copy, gen);
	for (size_t k = 0; k < nnew; k++) {
		remove_link(s, newp[k], gen);
		set_link(s, newp[k], id);
	}
	set_link(s, id, gen);
	free(gparents);
	free(newp);
	return id;
}

/* Add process p to the extent of c and of every concept above it. */
static void add_extent(struct tc_structural *s, size_t c, size_t p)
{
	size_t *stack = tc_xmalloc(s->nc * sizeof(*stack)), n = 0;

	stack[n++] = c;
	s->c[c].stamp = p + 1;
	while (n) {
		struct concept *x = &s->c[stack[--n]];
		TC_ALLOC_GROW(x->extent, x->next + 1, x->aext);
		x->extent[x->next++] = p;
		for (size_t i = 0; i < x->np; i++) {
			size_t q = x->parents[i];
			if (s->c[q].stamp != p + 1) {
				s->c[q].stamp = p + 1;
				stack[n++] = q;
			}
		}
	}
	free(stack);
}

static size_t find_pair(char *const *dict, size_t n, const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(dict[mid], key);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t uf_find(size_t *up, size_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

struct sim_job {
	struct tc_structural *s;
};

static void class_sim_row(size_t i, void *ctx)
{
	struct tc_structural *s = ((struct sim_job *)ctx)->s;

	for (size_t j = 0; j < s->nclass; j++)
		s->class_sim[i * s->nclass + j] =
			set_sim(&s->attr[s->class_rep[i]], &s->attr[s->class_rep[j]]);
}

int tc_structural_build(struct tc_structural **out, struct tc_fpairs *const *procs,
			size_t n, const struct tc_structural_opts *o,
			struct tc_pool *pool, struct tc_error *err)
{
	struct tc_structural *s = tc_xcalloc(1, sizeof(*s));
	char **all = NULL;
	size_t nall = 0, aall = 0, bottom, *class_first, *up;
	struct idset every;

	*out = NULL;
	s->nprocs = n;
	s->threshold = o && o->threshold > 0 && o->threshold < 1 ? o->threshold : 1.0;
	s->max_concepts = o && o->max_concepts ? o->max_concepts : 1000000;
	s->rank = tc_xmalloc((n ? n : 1) * sizeof(*s->rank));
	s->attr = tc_xcalloc(n ? n : 1, sizeof(*s->attr));
	s->obj = tc_xmalloc((n ? n : 1) * sizeof(*s->obj));
	/* the attributes: every pair of every process, sorted */
	for (size_t i = 0; i < n; i++) {
		size_t k = tc_fpairs_count(procs[i]);
		s->rank[i] = tc_fpairs_rank(procs[i]);
		for (size_t j = 0; j < k; j++) {
			TC_ALLOC_GROW(all, nall + 1, aall);
			all[nall++] = (char *)tc_fpairs_get(procs[i], j);
		}
	}
	if (nall)
		qsort(all, nall, sizeof(*all), cmp_str);
	s->pair = tc_xmalloc((nall + 1) * sizeof(*s->pair));
	for (size_t i = 0; i < nall; i++)
		if (!s->npair || strcmp(s->pair[s->npair - 1], all[i]))
			s->pair[s->npair++] = all[i];
	for (size_t i = 0; i < s->npair; i++)
		s->pair[i] = tc_xstrdup(s->pair[i]);
	free(all);
	for (size_t i = 0; i < n; i++) {
		size_t k = tc_fpairs_count(procs[i]);
		s->attr[i].v = tc_xmalloc((k + 1) * sizeof(*s->attr[i].v));
		s->attr[i].n = k;
		/* the process's pairs are sorted, so their ids are too */
		for (size_t j = 0; j < k; j++)
			s->attr[i].v[j] = (uint32_t)find_pair(s->pair, s->npair,
							     tc_fpairs_get(procs[i], j));
	}

	/* the lattice: bottom concept (no process, every attribute), then
	 * one process at a time */
	every.n = s->npair;
	every.v = tc_xmalloc((s->npair + 1) * sizeof(*every.v));
	for (size_t i = 0; i < s->npair; i++)
		every.v[i] = (uint32_t)i;
	bottom = new_concept(s, every, SIZE_MAX);
	for (size_t i = 0; i < n; i++) {
		s->obj[i] = add_intent(s, &s->attr[i], bottom);
		if (s->overflow) {
			tc_error_set(err, TC_ERR, NULL, -1,
				     "the concept lattice grew past %zu concepts at process %zu "
				     "(rank %" PRId32 ")", s->max_concepts, i, s->rank[i]);
			tc_structural_free(&s);
			return TC_ERR;
		}
		add_extent(s, s->obj[i], i);
	}

	/* classes: processes that share their object concept */
	s->class_of = tc_xmalloc((n ? n : 1) * sizeof(*s->class_of));
	s->class_rep = tc_xmalloc((n ? n : 1) * sizeof(*s->class_rep));
	class_first = tc_xmalloc(s->nc * sizeof(*class_first));
	for (size_t c = 0; c < s->nc; c++)
		class_first[c] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		size_t c = s->obj[i];
		if (class_first[c] == SIZE_MAX) {
			class_first[c] = s->nclass;
			s->class_rep[s->nclass++] = i;
		}
		s->class_of[i] = class_first[c];
	}
	free(class_first);
	if (s->nclass <= 2048) {
		struct sim_job job = { s };
		s->class_sim = tc_xmalloc((s->nclass * s->nclass + 1) * sizeof(*s->class_sim));
		if (pool)
			tc_pool_for(pool, s->nclass, class_sim_row, &job);
		else
			for (size_t i = 0; i < s->nclass; i++)
				class_sim_row(i, &job);
	}

	/* groups: classes joined where their similarity reaches the
	 * threshold (single linkage), numbered by their first process */
	up = tc_xmalloc((s->nclass + 1) * sizeof(*up));
	for (size_t c = 0; c < s->nclass; c++)
		up[c] = c;
	if (s->threshold < 1.0)
		for (size_t a = 0; a < s->nclass; a++)
			for (size_t b = a + 1; b < s->nclass; b++)
				if (tc_structural_sim(s, s->class_rep[a], s->class_rep[b]) >=
				    s->threshold - 1e-12) {
					size_t x = uf_find(up, a), y = uf_find(up, b);
					if (x != y)
						up[TC_MAX(x, y)] = TC_MIN(x, y);
				}
	{
		size_t *gid = tc_xmalloc((s->nclass + 1) * sizeof(*gid));
		for (size_t c = 0; c < s->nclass; c++)
			gid[c] = SIZE_MAX;
		s->group_of = tc_xmalloc((n ? n : 1) * sizeof(*s->group_of));
		for (size_t i = 0; i < n; i++) {
			size_t root = uf_find(up, s->class_of[i]);
			if (gid[root] == SIZE_MAX)
				gid[root] = s->ngroups++;
			s->group_of[i] = gid[root];
		}
		free(gid);
	}
	free(up);
	s->members = tc_xcalloc(s->ngroups ? s->ngroups : 1, sizeof(*s->members));
	s->nmembers = tc_xcalloc(s->ngroups ? s->ngroups : 1, sizeof(*s->nmembers));
	for (size_t i = 0; i < n; i++)
		s->nmembers[s->group_of[i]]++;
	for (size_t g = 0; g < s->ngroups; g++) {
		s->members[g] = tc_xmalloc(s->nmembers[g] * sizeof(**s->members));
		s->nmembers[g] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		size_t g = s->group_of[i];
		s->members[g][s->nmembers[g]++] = i;
	}
	*out = s;
	return 0;
}

void tc_structural_free(struct tc_structural **sp)
{
	struct tc_structural *s = *sp;

	if (!s)
		return;
	*sp = NULL;
	for (size_t i = 0; i < s->nc; i++) {
		free(s->c[i].intent.v);
		free(s->c[i].extent);
		free(s->c[i].parents);
		free(s->c[i].children);
	}
	free(s->c);
	for (size_t i = 0; i < s->npair; i++)
		free(s->pair[i]);
	free(s->pair);
	for (size_t i = 0; i < s->nprocs; i++)
		free(s->attr[i].v);
	free(s->attr);
	free(s->rank);
	free(s->obj);
	free(s->class_of);
	free(s->class_rep);
	free(s->class_sim);
	free(s->group_of);
	for (size_t g = 0; g < s->ngroups; g++)
		free(s->members[g]);
	free(s->members);
	free(s->nmembers);
	free(s);
}

size_t tc_structural_nprocs(const struct tc_structural *s)
{
	return s->nprocs;
}

int32_t tc_structural_rank(const struct tc_structural *s, size_t proc)
{
	return s->rank[proc];
}

double tc_structural_sim(const struct tc_structural *s, size_t i, size_t j)
{
	if (s->class_sim && s->class_of)
		return s->class_sim[s->class_of[i] * s->nclass + s->class_of[j]];
	return set_sim(&s->attr[i], &s->attr[j]);
}

size_t tc_structural_npairs(const struct tc_structural *s)
{
	return s->npair;
}

const char *tc_structural_pair(const struct tc_structural *s, size_t k)
{
	return k < s->npair ? s->pair[k] : NULL;
}

size_t tc_structural_ngroups(const struct tc_structural *s)
{
	return s->ngroups;
}

const size_t *tc_structural_group(const struct tc_structural *s, size_t g, size_t *nmembers)
{
	*nmembers = g < s->ngroups ? s->nmembers[g] : 0;
	return g < s->ngroups ? s->members[g] : NULL;
}

size_t tc_structural_group_of(const struct tc_structural *s, size_t proc)
{
	return s->group_of[proc];
}

size_t tc_structural_nconcepts(const struct tc_structural *s)
{
	return s->nc;
}

size_t tc_structural_nedges(const struct tc_structural *s)
{
	size_t e = 0;

	for (size_t i = 0; i < s->nc; i++)
		e += s->c[i].np;
	return e;
}

/* ---- output ------------------------------------------------------------------ */

void tc_structural_csv(const struct tc_structural *s, struct tc_strbuf *out)
{
	tc_strbuf_addstr(out, "rank");
	for (size_t j = 0; j < s->nprocs; j++)
		tc_strbuf_addf(out, ",%" PRId32, s->rank[j]);
	tc_strbuf_addch(out, '\n');
	for (size_t i = 0; i < s->nprocs; i++) {
		tc_strbuf_addf(out, "%" PRId32, s->rank[i]);
		for (size_t j = 0; j < s->nprocs; j++)
			tc_strbuf_addf(out, ",%.6f", tc_structural_sim(s, i, j));
		tc_strbuf_addch(out, '\n');
	}
}

static struct tc_json *rank_array(const struct tc_structural *s, const size_t *procs, size_t n)
{
	struct tc_json *a = tc_json_array();

	for (size_t i = 0; i < n; i++)
		tc_json_append(a, tc_json_int(s->rank[procs[i]]));
	return a;
}

static struct tc_json *id_array(const struct idset *v)
{
	struct tc_json *a = tc_json_array();

	for (size_t i = 0; i < v->n; i++)
		tc_json_append(a, tc_json_uint(v->v[i]));
	return a;
}

static double round6(double v)
{
	return (double)(int64_t)(v * 1e6 + 0.5) / 1e6;
}

void tc_structural_json(const struct tc_structural *s, struct tc_strbuf *out)
{
	struct tc_json *o = tc_json_object(), *a, *lat, *cs;
	size_t *tmp = tc_xmalloc((s->nprocs + 1) * sizeof(*tmp));
	char *txt;

	tc_json_set_int(o, "schema", 1);
	tc_json_set_str(o, "similarity", "jaccard of caller->callee function pairs");
	tc_json_set_uint(o, "processes", s->nprocs);
	tc_json_set_real(o, "threshold", s->threshold);
	for (size_t i = 0; i < s->nprocs; i++)
		tmp[i] = i;
	tc_json_set(o, "ranks", rank_array(s, tmp, s->nprocs));
	a = tc_json_array();
	for (size_t k = 0; k < s->npair; k++) {
		struct tc_json *p = tc_json_array();
		const char *tab = strchr(s->pair[k], '\t');
		char *caller = tc_xstrndup(s->pair[k], tab ? (size_t)(tab - s->pair[k]) : 0);
		tc_json_append(p, tc_json_str(caller));
		tc_json_append(p, tc_json_str(tab ? tab + 1 : s->pair[k]));
		free(caller);
		tc_json_append(a, p);
	}
	tc_json_set(o, "pairs", a);
	/* classes (identical pair sets) and their similarity matrix */
	a = tc_json_array();
	for (size_t c = 0; c < s->nclass; c++) {
		struct tc_json *j = tc_json_object();
		size_t n = 0;
		for (size_t i = 0; i < s->nprocs; i++)
			if (s->class_of[i] == c)
				tmp[n++] = i;
		tc_json_set_uint(j, "id", c);
		tc_json_set(j, "ranks", rank_array(s, tmp, n));
		tc_json_set(j, "pairs", id_array(&s->attr[s->class_rep[c]]));
		tc_json_append(a, j);
	}
	tc_json_set(o, "classes", a);
	a = tc_json_array();
	for (size_t i = 0; i < s->nprocs; i++)
		tc_json_append(a, tc_json_uint(s->class_of[i]));
	tc_json_set(o, "class_of", a);
	a = tc_json_array();
	for (size_t x = 0; x < s->nclass; x++) {
		struct tc_json *row = tc_json_array();
		for (size_t y = 0; y < s->nclass; y++)
			tc_json_append(row, tc_json_real(round6(tc_structural_sim(
						    s, s->class_rep[x], s->class_rep[y]))));
		tc_json_append(a, row);
	}
	tc_json_set(o, "matrix", a);
	/* groups */
	a = tc_json_array();
	for (size_t g = 0; g < s->ngroups; g++) {
		struct tc_json *j = tc_json_object(), *cl = tc_json_array();
		tc_json_set_uint(j, "id", g);
		tc_json_set_int(j, "lead", s->rank[s->members[g][0]]);
		tc_json_set(j, "ranks", rank_array(s, s->members[g], s->nmembers[g]));
		for (size_t c = 0; c < s->nclass; c++)
			if (s->group_of[s->class_rep[c]] == g)
				tc_json_append(cl, tc_json_uint(c));
		tc_json_set(j, "classes", cl);
		tc_json_append(a, j);
	}
	tc_json_set(o, "groups", a);
	/* the lattice */
	lat = tc_json_object();
	cs = tc_json_array();
	for (size_t c = 0; c < s->nc; c++) {
		const struct concept *x = &s->c[c];
		struct tc_json *j = tc_json_object(), *par = tc_json_array();
		size_t n = 0;
		tc_json_set_uint(j, "id", c);
		tc_json_set(j, "intent", id_array(&x->intent));
		tc_json_set(j, "extent", rank_array(s, x->extent, x->next));
		for (size_t i = 0; i < s->nprocs; i++)
			if (s->obj[i] == c)
				tmp[n++] = i;
		tc_json_set(j, "objects", rank_array(s, tmp, n));
		for (size_t i = 0; i < x->np; i++)
			tc_json_append(par, tc_json_uint(x->parents[i]));
		tc_json_set(j, "parents", par);
		tc_json_append(cs, j);
	}
	tc_json_set(lat, "concepts", cs);
	tc_json_set_uint(lat, "edges", tc_structural_nedges(s));
	tc_json_set(o, "lattice", lat);
	txt = tc_json_dumps(o, TC_JSON_COMPACT);
	tc_strbuf_addstr(out, txt);
	tc_strbuf_addch(out, '\n');
	free(txt);
	free(tmp);
	tc_json_free(o);
}
