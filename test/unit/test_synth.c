/*
 * Unit tests of the synthetic workload generator (lib/synth.c): every
 * pattern at several sizes is generated in memory through the sink and
 * checked against itself and against its ground truth.
 *
 *  (a) every message sent is received: per (src, dst, tag, bytes) the
 *      number of sends equals the number of receives; every request is
 *      completed once, with the right source and bytes; world collectives
 *      agree across ranks; Alltoallv send and receive counts agree;
 *  (b) ranks in one truth "callpath" group have identical (op, call-site
 *      signature) sequences, ranks in different groups differ, and every
 *      member's role label is its group's label;
 *  (c) the same for "callpath_param" with relative peers, datatype,
 *      reduction op, communicator and counts within 5%.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "formats/raw.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/json.h"
#include "lib/strbuf.h"
#include "lib/synth.h"
#include "lib/synth_internal.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a rank in memory ----------------------------------------------------- */

struct rec {
	uint32_t op;
	uint32_t fields;
	uint64_t sig;
	int32_t peer, tag, root;
	uint64_t count, bytes, req, t_start, t_end;
	uint32_t dtype, redop, comm;
	size_t coff, ncompl;   /* into rank.compl */
	size_t voff, nv;       /* into rank.v: scounts then rcounts */
};

struct rank {
	int32_t rank;
	struct rec *ev;
	size_t n, alloc;
	uint64_t *sig;          /* by call-site id */
	size_t nsig, asig;
	struct tc_completion *compl;
	size_t ncompl, acompl;
	uint64_t *v;
	size_t nv, av;
	int ncomms;
	bool comm_world_first;
	uint32_t comm_ids[8];
	int32_t comm_members0[8]; /* first member */
	uint32_t comm_size[8];
};

static int on_callsite(void *ctx, const struct tc_callsite *cs)
{
	struct rank *r = ctx;

	if (cs->id != r->nsig)
		return 1; /* ids must be 0..n-1 in order of first use */
	TC_ALLOC_GROW(r->sig, r->nsig + 1, r->asig);
	r->sig[r->nsig++] = cs->signature;
	if (cs->nframes < 2 || cs->nframes > 4 ||
	    cs->signature != tc_stack_signature(cs->frames, cs->nframes))
		return 1;
	return 0;
}

static int on_comm(void *ctx, const struct tc_comm *c)
{
	struct rank *r = ctx;

	if (r->ncomms == 0)
		r->comm_world_first = c->id == TC_COMM_WORLD;
	if (r->ncomms < 8) {
		r->comm_ids[r->ncomms] = c->id;
		r->comm_members0[r->ncomms] = !c->size ? -1 : c->members ? c->members[0] : 0;
		r->comm_size[r->ncomms] = c->size;
	}
	r->ncomms++;
	return 0;
}

static int on_event(void *ctx, const struct tc_event *ev)
{
	struct rank *r = ctx;
	struct rec *e;

	if (ev->callsite >= r->nsig)
		return 1; /* call site defined before use */
	TC_ALLOC_GROW(r->ev, r->n + 1, r->alloc);
	e = &r->ev[r->n++];
	memset(e, 0, sizeof(*e));
	e->op = ev->op;
	e->fields = ev->fields;
	e->sig = r->sig[ev->callsite];
	e->peer = ev->fields & TC_F_PEER ? ev->peer : TC_PEER_NONE;
	e->tag = ev->fields & TC_F_TAG ? ev->tag : TC_ANY_TAG;
	e->root = ev->fields & TC_F_ROOT ? ev->root : -1;
	e->count = ev->fields & TC_F_COUNT ? ev->count : 0;
	e->bytes = tc_event_bytes(ev);
	e->req = ev->fields & TC_F_REQUEST ? ev->request : 0;
	e->t_start = ev->t_start;
	e->t_end = ev->t_end;
	e->dtype = ev->fields & TC_F_DTYPE ? ev->dtype : 0;
	e->redop = ev->fields & TC_F_REDOP ? ev->redop : 0;
	e->comm = ev->fields & TC_F_COMM ? ev->comm : TC_COMM_WORLD;
	e->coff = r->ncompl;
	e->ncompl = ev->fields & TC_F_COMPL ? ev->ncompl : 0;
	TC_ALLOC_GROW(r->compl, r->ncompl + e->ncompl, r->acompl);
	for (size_t i = 0; i < e->ncompl; i++)
		r->compl[r->ncompl++] = ev->compl[i];
	e->voff = r->nv;
	if ((ev->fields & TC_F_SCOUNTS) && (ev->fields & TC_F_RCOUNTS) &&
	    ev->nscounts == ev->nrcounts) {
		e->nv = ev->nscounts;
		TC_ALLOC_GROW(r->v, r->nv + 2 * e->nv, r->av);
		memcpy(r->v + r->nv, ev->scounts, e->nv * sizeof(uint64_t));
		memcpy(r->v + r->nv + e->nv, ev->rcounts, e->nv * sizeof(uint64_t));
		r->nv += 2 * e->nv;
	}
	return 0;
}

static const struct tc_synth_sink mem_sink = { on_callsite, on_comm, on_event };

static void rank_release(struct rank *r)
{
	free(r->ev);
	free(r->sig);
	free(r->compl);
	free(r->v);
}

struct set {
	struct tc_synth_opts o;
	struct rank *r;
	struct tc_json *truth;
};

static bool make_set(struct set *s, const char *pattern, int32_t ranks, int32_t iters,
		     const char *dims)
{
	struct tc_error err;
	struct tc_strbuf sb = TC_STRBUF_INIT;
	char path[512];
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->o.pattern = pattern;
	s->o.ranks = ranks;
	s->o.iters = iters;
	s->o.seed = 7;
	s->o.jitter = 0.2;
	s->o.count_jitter = 0.03;
	s->o.msg_bytes = 4000;
	if (!strcmp(pattern, "phases"))
		s->o.phases = 4;
	if (dims)
		sscanf(dims, "%dx%dx%d", &s->o.dims[0], &s->o.dims[1], &s->o.dims[2]);
	if (tc_synth_validate(&s->o, &err)) {
		unit_fail(__FILE__, __LINE__, "%s %d: %s", pattern, ranks, err.msg);
		return false;
	}
	s->r = tc_xcalloc((size_t)ranks, sizeof(*s->r));
	for (int32_t i = 0; i < ranks; i++) {
		s->r[i].rank = i;
		if (tc_synth_rank(&s->o, i, &mem_sink, &s->r[i], &err)) {
			unit_fail(__FILE__, __LINE__, "%s %d rank %d: %s", pattern, ranks, i, err.msg);
			return false;
		}
	}
	if (tc_synth_truth_json(&s->o, &sb, &err)) {
		unit_fail(__FILE__, __LINE__, "%s: truth: %s", pattern, err.msg);
		return false;
	}
	snprintf(path, sizeof(path), "%s/truth-%s-%d.json", unit_tmpdir(), pattern, ranks);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return false;
	fwrite(sb.buf, 1, sb.len, f);
	fclose(f);
	tc_strbuf_release(&sb);
	s->truth = tc_json_load_file(path, &err);
	CHECK(s->truth != NULL);
	return s->truth != NULL;
}

static void free_set(struct set *s)
{
	for (int32_t i = 0; s->r && i < s->o.ranks; i++)
		rank_release(&s->r[i]);
	free(s->r);
	tc_json_free(s->truth);
}

/* ---- (a) matching ---------------------------------------------------------- */

struct msg {
	int32_t src, dst, tag;
	uint64_t bytes;
};

static int cmp_msg(const void *a, const void *b)
{
	const struct msg *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

static void check_matching(const struct set *s, const char *what)
{
	struct msg *snd = NULL, *rcv = NULL;
	size_t ns = 0, as = 0, nr = 0, ar = 0;
	int bad = 0;

	for (int32_t i = 0; i < s->o.ranks; i++) {
		const struct rank *r = &s->r[i];
		/* request id -> index of its event, or -1 once completed */
		size_t nreq = 0;
		int64_t *reqev;

		for (size_t k = 0; k < r->n; k++)
			if (r->ev[k].req > nreq)
				nreq = r->ev[k].req;
		reqev = tc_xmalloc((nreq + 1) * sizeof(*reqev));
		for (size_t k = 0; k <= nreq; k++)
			reqev[k] = -2; /* never issued */
		for (size_t k = 0; k < r->n; k++) {
			const struct rec *e = &r->ev[k];
			unsigned kind = tc_op_kind(e->op);

			if (e->req) {
				if (reqev[e->req] != -2 && bad++ < 3)
					unit_fail(__FILE__, __LINE__, "%s: rank %d: request %" PRIu64
						  " issued twice", what, i, e->req);
				reqev[e->req] = (int64_t)k;
			}
			if (kind == TC_K_SEND) {
				TC_ALLOC_GROW(snd, ns + 1, as);
				snd[ns++] = (struct msg){ i, e->peer, e->tag, e->bytes };
			} else if (kind == TC_K_RECV) {
				int32_t src = e->peer;
				if (src == TC_ANY_SOURCE && e->ncompl == 1)
					src = r->compl[e->coff].source;
				if (e->op == TC_OP_RECV && (e->ncompl != 1 ||
				    r->compl[e->coff].source != src ||
				    r->compl[e->coff].bytes != e->bytes) && bad++ < 3)
					unit_fail(__FILE__, __LINE__, "%s: rank %d: bad status of recv %zu",
						  what, i, k);
				TC_ALLOC_GROW(rcv, nr + 1, ar);
				rcv[nr++] = (struct msg){ src, i, e->tag, e->bytes };
			} else if (kind == TC_K_WAIT) {
				for (size_t c = 0; c < e->ncompl; c++) {
					const struct tc_completion *cp = &r->compl[e->coff + c];
					const struct rec *x;

					if (cp->request > nreq || reqev[cp->request] < 0) {
						if (bad++ < 3)
							unit_fail(__FILE__, __LINE__,
								  "%s: rank %d: completion of unknown or "
								  "completed request %" PRIu64, what, i,
								  cp->request);
						continue;
					}
					x = &r->ev[reqev[cp->request]];
					if (tc_op_kind(x->op) == TC_K_RECV &&
					    (cp->source != x->peer || cp->bytes != x->bytes ||
					     cp->tag != x->tag) && bad++ < 3)
						unit_fail(__FILE__, __LINE__, "%s: rank %d: completion of "
							  "request %" PRIu64 " does not match its irecv",
							  what, i, cp->request);
					reqev[cp->request] = -1;
				}
			}
		}
		for (size_t k = 1; k <= nreq; k++)
			if (reqev[k] >= 0 && bad++ < 3)
				unit_fail(__FILE__, __LINE__, "%s: rank %d: request %zu never completed",
					  what, i, k);
		free(reqev);
	}
	if (ns != nr && bad++ < 3)
		unit_fail(__FILE__, __LINE__, "%s: %zu sends but %zu receives", what, ns, nr);
	if (ns)
		qsort(snd, ns, sizeof(*snd), cmp_msg);
	if (nr)
		qsort(rcv, nr, sizeof(*rcv), cmp_msg);
	for (size_t k = 0; k < ns && k < nr; k++) {
		if (cmp_msg(&snd[k], &rcv[k])) {
			if (bad++ < 3)
				unit_fail(__FILE__, __LINE__,
					  "%s: unmatched message %d->%d tag %d %" PRIu64 " bytes",
					  what, snd[k].src, snd[k].dst, snd[k].tag, snd[k].bytes);
			break;
		}
	}
	free(snd);
	free(rcv);
}

/* World collectives: the same sequence of (op, count, dtype, redop, root) on
 * every rank (count excluded for v-collectives); Alltoallv counts agree. */
static void check_collectives(const struct set *s, const char *what)
{
	const struct rank *r0 = &s->r[0];
	size_t *idx = tc_xcalloc((size_t)s->o.ranks, sizeof(*idx));
	int bad = 0;

	for (;;) {
		const struct rec *a = NULL;
		bool done = false;

		for (int32_t i = 0; i < s->o.ranks && !bad; i++) {
			const struct rank *r = &s->r[i];
			const struct rec *e = NULL;

			while (idx[i] < r->n) {
				e = &r->ev[idx[i]++];
				if (tc_op_kind(e->op) == TC_K_COLL && e->comm == TC_COMM_WORLD)
					break;
				e = NULL;
			}
			if (i == 0) {
				a = e;
				done = !e;
				continue;
			}
			if (!a != !e || (a && (a->op != e->op || a->dtype != e->dtype ||
					       a->redop != e->redop || a->root != e->root ||
					       (!(tc_op_flags(a->op) & TC_OPF_V) && a->count != e->count)))) {
				unit_fail(__FILE__, __LINE__, "%s: world collectives of ranks 0 and %d differ",
					  what, i);
				bad++;
			}
			if (a && e && a->op == TC_OP_ALLTOALLV && a->nv == (size_t)s->o.ranks &&
			    e->nv == a->nv) {
				/* rank 0 sends to i what i receives from 0, and back */
				const uint64_t *sa = r0->v + a->voff, *ra = sa + a->nv;
				const uint64_t *se = r->v + e->voff, *re = se + e->nv;
				if ((sa[i] != re[0] || se[0] != ra[i]) && bad++ < 1)
					unit_fail(__FILE__, __LINE__, "%s: alltoallv counts 0<->%d differ",
						  what, i);
			}
		}
		if (done || bad)
			break;
	}
	free(idx);
}

/* ---- (b), (c) truth -------------------------------------------------------- */

static bool same_callpath(const struct rank *a, const struct rank *b)
{
	if (a->n != b->n)
		return false;
	for (size_t k = 0; k < a->n; k++)
		if (a->ev[k].op != b->ev[k].op || a->ev[k].sig != b->ev[k].sig)
			return false;
	return true;
}

static int64_t rel(const struct rank *r, int32_t peer)
{
	return peer >= 0 ? (int64_t)peer - r->rank : (int64_t)peer - (1ll << 40);
}

static bool counts_close(uint64_t x, uint64_t y)
{
	uint64_t hi = x > y ? x : y, lo = x > y ? y : x;

	return (double)(hi - lo) <= 0.05 * (double)hi;
}

static bool same_param(const struct rank *a, const struct rank *b)
{
	if (!same_callpath(a, b))
		return false;
	for (size_t k = 0; k < a->n; k++) {
		const struct rec *x = &a->ev[k], *y = &b->ev[k];

		if (rel(a, x->peer) != rel(b, y->peer) || x->dtype != y->dtype ||
		    x->redop != y->redop || x->comm != y->comm || !counts_close(x->count, y->count))
			return false;
	}
	return true;
}

/* Events of phase k: after barrier k * iters, through barrier (k + 1) * iters. */
static bool same_phase(const struct rank *a, const struct rank *b, uint64_t marker,
		       int32_t first, int32_t last)
{
	size_t ka = 0, kb = 0;
	int32_t ba = 0, bb = 0;

	for (;;) {
		/* advance both to the next event inside [first, last) barriers */
		while (ka < a->n && !(ba >= first && ba < last)) {
			if (a->ev[ka].sig == marker)
				ba++;
			ka++;
		}
		while (kb < b->n && !(bb >= first && bb < last)) {
			if (b->ev[kb].sig == marker)
				bb++;
			kb++;
		}
		if (ba >= last || ka >= a->n || bb >= last || kb >= b->n)
			return (ba >= last || ka >= a->n) == (bb >= last || kb >= b->n);
		if (a->ev[ka].op != b->ev[kb].op || a->ev[ka].sig != b->ev[kb].sig)
			return false;
		if (a->ev[ka].sig == marker)
			ba++;
		if (b->ev[kb].sig == marker)
			bb++;
		ka++;
		kb++;
	}
}

struct grp {
	const char *label;
	int32_t *ranks;
	size_t n;
};

static struct grp *load_groups(const struct tc_json *section, size_t *ng, int32_t nranks)
{
	const struct tc_json *arr = tc_json_get(section, "groups");
	size_t n = tc_json_array_size(arr), total = 0;
	struct grp *g = tc_xcalloc(n ? n : 1, sizeof(*g));
	int32_t prev_first = -1;

	for (size_t i = 0; i < n; i++) {
		const struct tc_json *gj = tc_json_array_get(arr, i);
		const struct tc_json *rj = tc_json_get(gj, "ranks");

		g[i].label = tc_json_str_value(tc_json_get(gj, "label"));
		g[i].n = tc_json_array_size(rj);
		g[i].ranks = tc_xmalloc((g[i].n ? g[i].n : 1) * sizeof(int32_t));
		for (size_t k = 0; k < g[i].n; k++) {
			g[i].ranks[k] = (int32_t)tc_json_int_value(tc_json_array_get(rj, k));
			CHECK(k == 0 || g[i].ranks[k] > g[i].ranks[k - 1]);
		}
		CHECK(g[i].n > 0 && g[i].ranks[0] > prev_first);
		prev_first = g[i].n ? g[i].ranks[0] : prev_first;
		total += g[i].n;
	}
	CHECK_EQ_U64(total, nranks);
	*ng = n;
	return g;
}

static void free_groups(struct grp *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].ranks);
	free(g);
}

typedef bool (*same_fn)(const struct rank *, const struct rank *, const void *ctx);

static bool same_cp_fn(const struct rank *a, const struct rank *b, const void *ctx)
{
	(void)ctx;
	return same_callpath(a, b);
}

static bool same_pa_fn(const struct rank *a, const struct rank *b, const void *ctx)
{
	(void)ctx;
	return same_param(a, b);
}

struct phase_ctx {
	uint64_t marker;
	int32_t first, last;
};

static bool same_ph_fn(const struct rank *a, const struct rank *b, const void *ctx)
{
	const struct phase_ctx *p = ctx;

	return same_phase(a, b, p->marker, p->first, p->last);
}

/* Members equal to their group's first rank, first ranks pairwise different. */
static size_t check_groups(const struct set *s, const struct tc_json *section,
			   same_fn same, const void *ctx, const char *what, int phase,
			   bool check_labels)
{
	const struct sg_pattern *pat = sg_find_pattern(s->o.pattern);
	size_t ng;
	struct grp *g = load_groups(section, &ng, s->o.ranks);
	int bad = 0;
	char buf[128];

	for (size_t i = 0; i < ng && bad < 3; i++) {
		const struct rank *lead = &s->r[g[i].ranks[0]];

		for (size_t k = 0; k < g[i].n && bad < 3; k++) {
			if (!same(lead, &s->r[g[i].ranks[k]], ctx)) {
				unit_fail(__FILE__, __LINE__, "%s: ranks %d and %d of group '%s' differ",
					  what, g[i].ranks[0], g[i].ranks[k], g[i].label);
				bad++;
			}
			if (check_labels) {
				pat->label(&s->o, g[i].ranks[k], phase, buf, sizeof(buf));
				if (strcmp(buf, g[i].label)) {
					unit_fail(__FILE__, __LINE__, "%s: rank %d has role '%s' in group '%s'",
						  what, g[i].ranks[k], buf, g[i].label);
					bad++;
				}
			}
		}
		for (size_t j = i + 1; j < ng && bad < 3; j++) {
			if (same(lead, &s->r[g[j].ranks[0]], ctx)) {
				unit_fail(__FILE__, __LINE__, "%s: groups '%s' and '%s' behave alike",
					  what, g[i].label, g[j].label);
				bad++;
			}
		}
	}
	free_groups(g, ng);
	return ng;
}

struct counts {
	size_t cp, pa;
};

static struct counts check_set(const char *pattern, int32_t ranks, const char *dims)
{
	struct set s;
	struct counts c = { 0, 0 };
	char what[96];

	snprintf(what, sizeof(what), "%s P=%d%s%s", pattern, ranks, dims ? " " : "",
		 dims ? dims : "");
	if (!make_set(&s, pattern, ranks, 3, dims)) {
		free_set(&s);
		return c;
	}
	for (int32_t i = 0; i < ranks; i++) {
		const struct rank *r = &s.r[i];
		CHECK(r->comm_world_first && r->ncomms >= 2);
		CHECK(r->n >= 2 && r->ev[0].op == TC_OP_INIT && r->ev[r->n - 1].op == TC_OP_FINALIZE);
		for (size_t k = 1; k < r->n; k++)
			if (r->ev[k].t_start < r->ev[k - 1].t_end || r->ev[k].t_end <= r->ev[k].t_start) {
				unit_fail(__FILE__, __LINE__, "%s: rank %d: times not increasing", what, i);
				break;
			}
	}
	check_matching(&s, what);
	check_collectives(&s, what);
	c.cp = check_groups(&s, tc_json_get(s.truth, "callpath"), same_cp_fn, NULL, what, -1, true);
	c.pa = check_groups(&s, tc_json_get(s.truth, "callpath_param"), same_pa_fn, NULL, what, -1,
			    false);
	if (!strcmp(pattern, "phases")) {
		const struct tc_json *ph = tc_json_get(s.truth, "phases");
		const char *m = tc_json_str_value(tc_json_get(tc_json_get(s.truth, "marker"), "callsite"));
		struct phase_ctx pc;

		CHECK(m != NULL);
		pc.marker = m ? strtoull(m, NULL, 16) : 0;
		CHECK_EQ_U64(pc.marker, tc_synth_marker_signature(&s.o));
		CHECK_EQ_U64(tc_json_array_size(ph), s.o.phases);
		for (size_t k = 0; k < tc_json_array_size(ph); k++) {
			const struct tc_json *p = tc_json_array_get(ph, k);

			pc.first = (int32_t)tc_json_int_value(tc_json_get(p, "first_step"));
			pc.last = pc.first + (int32_t)tc_json_int_value(tc_json_get(p, "steps"));
			CHECK_EQ_I64(pc.first, (int64_t)k * s.o.iters);
			check_groups(&s, tc_json_get(p, "callpath"), same_ph_fn, &pc, what, (int)k, true);
		}
	}
	free_set(&s);
	return c;
}

/* ---- tests ----------------------------------------------------------------- */

TEST(stencils)
{
	struct counts c;

	c = check_set("stencil1d", 1, NULL);
	CHECK_EQ_U64(c.cp, 1);
	c = check_set("stencil1d", 2, NULL);
	CHECK_EQ_U64(c.cp, 2);
	c = check_set("stencil1d", 7, NULL);
	CHECK_EQ_U64(c.cp, 3);
	CHECK_EQ_U64(c.pa, 3);
	c = check_set("stencil2d", 16, NULL);
	CHECK_EQ_U64(c.cp, 9);
	CHECK_EQ_U64(c.pa, 9);
	c = check_set("stencil2d", 4, NULL);
	CHECK_EQ_U64(c.cp, 4);
	c = check_set("stencil2d", 12, "4x3");
	CHECK_EQ_U64(c.cp, 9);
	c = check_set("stencil2d", 5, "1x5");
	CHECK_EQ_U64(c.cp, 3);
	c = check_set("stencil3d", 27, NULL);
	CHECK_EQ_U64(c.cp, 27);
	c = check_set("stencil3d", 8, NULL);
	CHECK_EQ_U64(c.cp, 8);
	c = check_set("stencil3d", 64, NULL);
	CHECK_EQ_U64(c.cp, 27);
	c = check_set("stencil3d", 12, "3x2x2");
	CHECK_EQ_U64(c.cp, 12);
}

TEST(wavefront)
{
	struct counts c;

	c = check_set("wavefront", 16, NULL);
	CHECK_EQ_U64(c.cp, 9);
	CHECK_EQ_U64(c.pa, 9);
	c = check_set("wavefront", 6, NULL);
	CHECK_EQ_U64(c.cp, 6);
	c = check_set("wavefront", 1, NULL);
	CHECK_EQ_U64(c.cp, 1);
	c = check_set("wavefront", 20, "5x4");
	CHECK_EQ_U64(c.cp, 9);
}

TEST(cg)
{
	struct counts c;

	c = check_set("cg", 1, NULL);
	CHECK_EQ_U64(c.cp, 1);
	c = check_set("cg", 2, NULL);
	CHECK_EQ_U64(c.cp, 1);
	c = check_set("cg", 4, NULL);
	CHECK_EQ_U64(c.cp, 2);
	c = check_set("cg", 8, NULL);
	CHECK_EQ_U64(c.cp, 2);
	c = check_set("cg", 16, NULL);
	CHECK_EQ_U64(c.cp, 2);
	CHECK_EQ_U64(c.pa, 16);
	c = check_set("cg", 32, NULL);
	CHECK_EQ_U64(c.cp, 2);
}

TEST(ft)
{
	struct counts c;

	c = check_set("ft", 1, NULL);
	CHECK_EQ_U64(c.cp, 1);
	c = check_set("ft", 6, NULL);
	CHECK_EQ_U64(c.cp, 1);
	CHECK_EQ_U64(c.pa, 1);
	c = check_set("ft", 16, "8x2");
	CHECK_EQ_U64(c.cp, 1);
}

TEST(mg)
{
	static const int32_t sizes[] = { 1, 2, 3, 5, 6, 8, 12, 16, 17, 32 };
	struct counts c;

	for (size_t i = 0; i < TC_ARRAY_SIZE(sizes); i++)
		check_set("mg", sizes[i], NULL);
	c = check_set("mg", 16, NULL);
	CHECK(c.cp >= 4);
}

TEST(is)
{
	struct counts c;

	c = check_set("is", 1, NULL);
	CHECK_EQ_U64(c.cp, 1);
	c = check_set("is", 2, NULL);
	CHECK_EQ_U64(c.cp, 2);
	c = check_set("is", 3, NULL);
	CHECK_EQ_U64(c.cp, 3);
	c = check_set("is", 16, NULL);
	CHECK_EQ_U64(c.cp, 3);
	CHECK_EQ_U64(c.pa, 3);
}

TEST(master_worker)
{
	struct counts c;

	c = check_set("master-worker", 2, NULL);
	CHECK_EQ_U64(c.cp, 2);
	c = check_set("master-worker", 6, NULL);
	CHECK_EQ_U64(c.cp, 2);
	CHECK_EQ_U64(c.pa, 6);
}

TEST(phases)
{
	struct counts c;

	c = check_set("phases", 1, NULL);
	CHECK_EQ_U64(c.cp, 1);
	c = check_set("phases", 2, NULL);
	CHECK_EQ_U64(c.cp, 2);
	c = check_set("phases", 6, NULL);
	CHECK_EQ_U64(c.cp, 3);
}

/* Every call site of a pattern has its own signature. */
TEST(signatures_distinct)
{
	for (size_t p = 0; sg_patterns[p]; p++) {
		const struct sg_pattern *pat = sg_patterns[p];
		struct set s;
		int32_t n = pat->pow2 ? 16 : 27;

		if (!make_set(&s, pat->name, n, 1, NULL)) {
			free_set(&s);
			continue;
		}
		for (int32_t i = 0; i < n; i++) {
			const struct rank *r = &s.r[i];
			for (size_t a = 0; a < r->nsig; a++)
				for (size_t b = a + 1; b < r->nsig; b++)
					if (r->sig[a] == r->sig[b])
						unit_fail(__FILE__, __LINE__, "%s: rank %d: sites %zu and %zu "
							  "share a signature", pat->name, i, a, b);
		}
		free_set(&s);
	}
}

/* The same options give the same events; a rank does not depend on order. */
TEST(deterministic)
{
	struct tc_synth_opts o;
	struct rank a, b;
	struct tc_error err;

	memset(&o, 0, sizeof(o));
	o.pattern = "master-worker";
	o.ranks = 9;
	o.jitter = 0.3;
	o.count_jitter = 0.04;
	CHECK(tc_synth_validate(&o, &err) == 0);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.rank = b.rank = 4;
	CHECK(tc_synth_rank(&o, 4, &mem_sink, &a, &err) == 0);
	CHECK(tc_synth_rank(&o, 4, &mem_sink, &b, &err) == 0);
	CHECK_EQ_U64(a.n, b.n);
	for (size_t k = 0; k < a.n && k < b.n; k++) {
		CHECK_EQ_U64(a.ev[k].t_start, b.ev[k].t_start);
		CHECK_EQ_U64(a.ev[k].count, b.ev[k].count);
		CHECK_EQ_U64(a.ev[k].sig, b.ev[k].sig);
	}
	rank_release(&a);
	rank_release(&b);
}

static char *truth_section(const struct tc_synth_opts *o0, uint64_t seed)
{
	struct tc_synth_opts o = *o0;
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_error err;
	char *p, *q;

	o.seed = seed;
	CHECK(tc_synth_validate(&o, &err) == 0);
	CHECK(tc_synth_truth_json(&o, &sb, &err) == 0);
	p = strstr(sb.buf, "\"callpath\"");
	q = strstr(sb.buf, "\"count_threshold\"");
	p = tc_xstrndup(p ? p : "", p && q && q > p ? (size_t)(q - p) : 0);
	tc_strbuf_release(&sb);
	return p;
}

/* The seed changes times and counts, not the truth. */
TEST(seed_keeps_truth)
{
	struct tc_synth_opts o;
	char *a, *b;
	struct rank ra, rb;
	struct tc_error err;
	bool times_differ = false;

	memset(&o, 0, sizeof(o));
	o.pattern = "is";
	o.ranks = 5;
	o.jitter = 0.1;
	o.count_jitter = 0.03;
	a = truth_section(&o, 1);
	b = truth_section(&o, 99);
	CHECK(a[0] != '\0');
	CHECK_STR(a, b);
	free(a);
	free(b);

	CHECK(tc_synth_validate(&o, &err) == 0);
	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	CHECK(tc_synth_rank(&o, 2, &mem_sink, &ra, &err) == 0);
	o.seed = 99;
	CHECK(tc_synth_rank(&o, 2, &mem_sink, &rb, &err) == 0);
	CHECK_EQ_U64(ra.n, rb.n);
	for (size_t k = 0; k < ra.n && k < rb.n; k++)
		times_differ |= ra.ev[k].t_end != rb.ev[k].t_end;
	CHECK(times_differ);
	rank_release(&ra);
	rank_release(&rb);
}

TEST(count_jitter_bounds)
{
	struct set s;

	if (make_set(&s, "stencil2d", 9, 5, NULL)) {
		bool varied = false;
		for (int32_t i = 0; i < 9; i++)
			for (size_t k = 0; k < s.r[i].n; k++) {
				const struct rec *e = &s.r[i].ev[k];
				if (e->op != TC_OP_ISEND)
					continue;
				/* base 500 doubles; one-sided jitter below 3% */
				CHECK(e->count >= 500 && e->count < 515);
				varied |= e->count != 500;
			}
		CHECK(varied);
	}
	free_set(&s);
}

static int validate_msg(const char *pattern, int32_t ranks, const char *dims, int32_t phases,
			char *msg, size_t len)
{
	struct tc_synth_opts o;
	struct tc_error err;
	int rc;

	memset(&o, 0, sizeof(o));
	o.pattern = pattern;
	o.ranks = ranks;
	o.phases = phases;
	if (dims)
		sscanf(dims, "%dx%dx%d", &o.dims[0], &o.dims[1], &o.dims[2]);
	tc_error_clear(&err);
	rc = tc_synth_validate(&o, &err);
	snprintf(msg, len, "%s", err.msg);
	return rc;
}

TEST(validation)
{
	char msg[512];
	struct tc_synth_opts o;
	struct tc_error err;

	CHECK(validate_msg("nope", 4, NULL, 0, msg, sizeof(msg)) == TC_ERR_USAGE);
	CHECK(strstr(msg, "unknown pattern 'nope'") != NULL);
	CHECK(validate_msg("stencil1d", 0, NULL, 0, msg, sizeof(msg)) == TC_ERR_USAGE);
	CHECK(validate_msg("stencil1d", (1 << 20) + 1, NULL, 0, msg, sizeof(msg)) == TC_ERR_USAGE);
	CHECK(validate_msg("stencil1d", 1 << 20, NULL, 0, msg, sizeof(msg)) == 0);
	CHECK(validate_msg("cg", 6, NULL, 0, msg, sizeof(msg)) == TC_ERR_USAGE);
	CHECK(strstr(msg, "power-of-two") != NULL);
	CHECK(validate_msg("cg", 8, "2x4", 0, msg, sizeof(msg)) == TC_ERR_USAGE);
	CHECK(validate_msg("cg", 8, "4x2", 0, msg, sizeof(msg)) == 0);
	CHECK(validate_msg("stencil2d", 12, "5x3", 0, msg, sizeof(msg)) == TC_ERR_USAGE);
	CHECK(strstr(msg, "product") != NULL);
	CHECK(validate_msg("stencil2d", 12, "12", 0, msg, sizeof(msg)) == TC_ERR_USAGE);
	CHECK(validate_msg("stencil1d", 12, "4x3", 0, msg, sizeof(msg)) == TC_ERR_USAGE);
	CHECK(validate_msg("master-worker", 1, NULL, 0, msg, sizeof(msg)) == TC_ERR_USAGE);
	CHECK(validate_msg("stencil1d", 4, NULL, 2, msg, sizeof(msg)) == TC_ERR_USAGE);
	CHECK(validate_msg("phases", 4, NULL, 65, msg, sizeof(msg)) == TC_ERR_USAGE);

	/* defaults: the most square grid, largest dimension first */
	memset(&o, 0, sizeof(o));
	o.pattern = "stencil3d";
	o.ranks = 12;
	CHECK(tc_synth_validate(&o, &err) == 0);
	CHECK(o.dims[0] == 3 && o.dims[1] == 2 && o.dims[2] == 2);
	CHECK(o.iters > 0 && o.msg_bytes > 0 && o.compute_ns > 0);
	/* validating twice keeps the result */
	CHECK(tc_synth_validate(&o, &err) == 0);
	CHECK(o.dims[0] == 3 && o.dims[1] == 2 && o.dims[2] == 2);
	memset(&o, 0, sizeof(o));
	o.pattern = "wavefront";
	o.ranks = 12;
	CHECK(tc_synth_validate(&o, &err) == 0);
	CHECK(o.dims[0] == 4 && o.dims[1] == 3 && o.dims[2] == 1);
	memset(&o, 0, sizeof(o));
	o.pattern = "cg";
	o.ranks = 32;
	CHECK(tc_synth_validate(&o, &err) == 0);
	CHECK(o.dims[0] == 8 && o.dims[1] == 4);
}

TEST(pattern_list)
{
	const struct tc_synth_pattern_info *p = tc_synth_patterns();
	size_t n = 0;

	for (; p->name; p++, n++)
		CHECK(p->summary && p->summary[0]);
	CHECK_EQ_U64(n, 10);
}

/* Through the raw writer and reader: what is read back is what was made. */
struct rt {
	struct tc_raw_writer *w;
	struct tc_error *err;
	uint64_t events;
};

static int rt_cs(void *ctx, const struct tc_callsite *cs)
{
	struct rt *t = ctx;
	return tc_raw_writer_callsite(t->w, cs, t->err) ? 1 : 0;
}

static int rt_comm(void *ctx, const struct tc_comm *c)
{
	struct rt *t = ctx;
	return tc_raw_writer_comm(t->w, c, t->err) ? 1 : 0;
}

static int rt_ev(void *ctx, const struct tc_event *ev)
{
	struct rt *t = ctx;
	t->events++;
	return tc_raw_writer_event(t->w, ev, t->err) ? 1 : 0;
}

TEST(raw_roundtrip)
{
	static const struct tc_synth_sink sink = { rt_cs, rt_comm, rt_ev };
	struct tc_synth_opts o;
	struct tc_raw_header h;
	struct tc_raw_writer_opts wo = { 0, 0, true };
	struct tc_raw_reader *rd = NULL;
	struct tc_read_ops ops = { on_event, on_callsite, on_comm };
	struct tc_raw_stats st;
	struct tc_error err;
	struct rank back;
	struct rt t;
	char path[512];

	memset(&o, 0, sizeof(o));
	o.pattern = "ft";
	o.ranks = 4;
	o.count_jitter = 0.02;
	CHECK(tc_synth_validate(&o, &err) == 0);
	memset(&h, 0, sizeof(h));
	h.rank = 1;
	h.world_size = 4;
	h.start_time_ns = tc_synth_start_time(&o);
	snprintf(path, sizeof(path), "%s/rank-00001.tcr", unit_tmpdir());
	memset(&t, 0, sizeof(t));
	t.err = &err;
	CHECK(tc_raw_writer_open(&t.w, path, &h, &wo, &err) == 0);
	CHECK(tc_synth_rank(&o, 1, &sink, &t, &err) == 0);
	CHECK(tc_raw_writer_close(&t.w, &err) == 0);

	memset(&back, 0, sizeof(back));
	back.rank = 1;
	CHECK(tc_raw_open(&rd, path, 0, &err) == 0);
	if (rd) {
		CHECK(tc_raw_read(rd, &ops, &back, &st, &err) == 0);
		tc_raw_close(&rd);
	}
	CHECK_EQ_U64(back.n, t.events);
	CHECK(back.ncomms == 4); /* world, self, row, column */
	CHECK(back.n > 0 && back.ev[0].op == TC_OP_INIT);
	rank_release(&back);
}
