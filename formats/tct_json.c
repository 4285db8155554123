/*
 * tct_json.c - the JSON form of the global compressed trace: its writer
 * and its reader. The format is specified in formats/tct.md.
 */
#include "lib/compat.h"
#include "formats/tct.h"
#include "formats/tct_internal.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/json.h"
#include "lib/merge.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/skew.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing: JSON ------------------------------------------------------ */

static struct tc_json *j_rl(const struct tc_ranklist *rl)
{
	struct tc_json *a = tc_json_array();
	struct rl_item *it;
	size_t n = tc_tct_rl_items(rl, &it);

	for (size_t i = 0; i < n; i++) {
		struct tc_json *x = tc_json_array();
		tc_json_append(x, tc_json_int(it[i].start));
		tc_json_append(x, tc_json_uint(it[i].len));
		tc_json_append(x, tc_json_int(it[i].stride));
		for (uint32_t k = 0; k < it[i].ndim; k++) {
			tc_json_append(x, tc_json_uint(it[i].n[k]));
			tc_json_append(x, tc_json_int(it[i].d[k]));
		}
		tc_json_append(a, x);
	}
	free(it);
	return a;
}

static struct tc_json *j_peer(int64_t rel)
{
	if (tc_rel_is_rank(rel))
		return tc_json_int(rel);
	switch (rel - TC_REL_SPECIAL) {
	case TC_PEER_NONE:
		return tc_json_str("none");
	case TC_ANY_SOURCE:
		return tc_json_str("any");
	case TC_PROC_NULL:
		return tc_json_str("null");
	}
	{
		char buf[32];
		snprintf(buf, sizeof(buf), "!%" PRId64, rel - TC_REL_SPECIAL);
		return tc_json_str(buf);
	}
}

static struct tc_json *j_req(int64_t rel)
{
	return rel == TC_RSD_NOREQ ? tc_json_str("none") : tc_json_int(rel);
}

static struct tc_json *j_word(enum tc_gparam_kind kind, int64_t w)
{
	switch (kind) {
	case TC_GPK_PEER:
		return j_peer(w);
	case TC_GPK_REQ:
		return j_req(w);
	default:
		return tc_json_int(w);
	}
}

static struct tc_json *j_val(enum tc_gparam_kind kind, const struct tc_gval *v)
{
	const int64_t *w;
	struct tc_json *a;

	if (v->n == TC_GVAL_ABSENT)
		return tc_json_null();
	w = tc_gval_words(v);
	if (kind == TC_GPK_COMPL) {
		a = tc_json_array();
		for (uint32_t i = 0; i + 3 < v->n; i += 4) {
			struct tc_json *c = tc_json_object();
			tc_json_set(c, "request", j_req(w[i]));
			tc_json_set(c, "source", j_peer(w[i + 1]));
			tc_json_set_int(c, "tag", w[i + 2]);
			tc_json_set_int(c, "bytes", w[i + 3]);
			tc_json_append(a, c);
		}
		return a;
	}
	if (kind == TC_GPK_UARRAY) {
		a = tc_json_array();
		for (uint32_t i = 0; i < v->n; i++)
			tc_json_append(a, tc_json_int(w[i]));
		return a;
	}
	return j_word(kind, v->n == 1 ? w[0] : 0);
}

static struct tc_json *j_seq(enum tc_gparam_kind kind, const struct tc_gseq *s)
{
	struct tc_json *a = tc_json_array();

	for (uint32_t i = 0; i < s->n; i++) {
		struct tc_json *o = tc_json_object();
		if (s->e[i].chunk)
			tc_json_set(o, "seq", j_seq(kind, s->e[i].chunk));
		else
			tc_json_set(o, "value", j_val(kind, &s->e[i].val));
		tc_json_set_uint(o, "reps", s->e[i].reps);
		tc_json_append(a, o);
	}
	return a;
}

static struct tc_json *j_stat(const struct tc_rsd_stat *s)
{
	struct tc_json *o = tc_json_object();

	tc_json_set_real(o, "mean", s->mean);
	tc_json_set_real(o, "sd", tc_rsd_stat_stddev(s));
	tc_json_set_int(o, "min", s->min);
	tc_json_set_int(o, "max", s->max);
	return o;
}

static struct tc_json *j_param(enum tc_gparam_kind kind, const struct tc_gparam *gp)
{
	struct tc_json *o = tc_json_object(), *vars = tc_json_array();

	for (uint32_t i = 0; i < gp->nvar; i++) {
		struct tc_json *v = tc_json_object();
		tc_json_set(v, "ranks", j_rl(&gp->var[i].ranks));
		if (gp->var[i].seq)
			tc_json_set(v, "seq", j_seq(kind, gp->var[i].seq));
		else
			tc_json_set(v, "value", j_val(kind, &gp->var[i].val));
		tc_json_append(vars, v);
	}
	tc_json_set(o, "variants", vars);
	if (gp->hist) {
		const struct tc_hist *h = gp->hist;
		struct tc_json *ho = tc_json_object(), *bins = tc_json_array();
		tc_json_set(ho, "ranks", j_rl(&h->ranks));
		tc_json_set_uint(ho, "n", h->n);
		tc_json_set(ho, "min", j_word(kind, h->min));
		tc_json_set_int(ho, "min_rank", h->min_rank);
		tc_json_set(ho, "max", j_word(kind, h->max));
		tc_json_set_int(ho, "max_rank", h->max_rank);
		for (uint32_t k = 0; k < h->nbins; k++) {
			struct tc_json *b = tc_json_object();
			tc_json_set(b, "lo", j_word(kind, h->bins[k].lo));
			tc_json_set(b, "hi", j_word(kind, h->bins[k].hi));
			tc_json_set_uint(b, "n", h->bins[k].n);
			tc_json_set_real(b, "mean", h->bins[k].mean);
			tc_json_set_real(b, "sd", tc_hbin_stddev(&h->bins[k]));
			tc_json_append(bins, b);
		}
		tc_json_set(ho, "bins", bins);
		tc_json_set(o, "hist", ho);
	}
	return o;
}

static struct tc_json *j_node(const struct tc_gtrace *g, const struct tc_gnode *nd)
{
	struct tc_json *o = tc_json_object();

	tc_json_set(o, "ranks", j_rl(&nd->ranks));
	if (nd->nbody) {
		struct tc_json *body = tc_json_array();
		tc_json_set_str(o, "type", "loop");
		tc_json_set(o, "iters", j_param(TC_GPK_UINT, &nd->iters));
		for (uint32_t i = 0; i < nd->nbody; i++)
			tc_json_append(body, j_node(g, &nd->body[i]));
		tc_json_set(o, "body", body);
		return o;
	}
	{
		struct tc_json *ps = tc_json_object();
		char buf[32];
		tc_json_set_str(o, "type", "event");
		tc_json_set_str(o, "op", tc_tct_op_name(nd->op, buf, sizeof(buf)));
		tc_json_set_int(o, "site", tc_gtrace_site(g, nd->stack));
		tc_json_set_uint(o, "n", nd->comp.n);
		tc_json_set(o, "comp", j_stat(&nd->comp));
		tc_json_set(o, "comm", j_stat(&nd->comm));
		if (nd->ntimes > 1) {
			struct tc_json *ts = tc_json_array();
			for (uint32_t i = 0; i < nd->ntimes; i++) {
				struct tc_json *t = tc_json_object();
				tc_json_set(t, "ranks", j_rl(&nd->times[i].ranks));
				tc_json_set_uint(t, "n", nd->times[i].comp.n);
				tc_json_set(t, "comp", j_stat(&nd->times[i].comp));
				tc_json_set(t, "comm", j_stat(&nd->times[i].comm));
				tc_json_append(ts, t);
			}
			tc_json_set(o, "times", ts);
		}
		for (unsigned p = 0; p < TC_GP_N; p++)
			if (nd->p[p].nvar || nd->p[p].hist)
				tc_json_set(ps, tc_gparam_name(p),
					    j_param(tc_gparam_kind(p), &nd->p[p]));
		tc_json_set(o, "params", ps);
	}
	return o;
}

static struct tc_json *j_ints(const int32_t *v, uint32_t n)
{
	struct tc_json *a = tc_json_array();

	for (uint32_t i = 0; i < n; i++)
		tc_json_append(a, tc_json_int(v[i]));
	return a;
}

/* "comms": [{"id", "ranks", "parent", "creator", "size", ["members"],
 * ["dims", "periods"], ["graph"]}, ...]; creator an operation name (or
 * number), or null */
static struct tc_json *j_comms(const struct tc_gtrace *g)
{
	struct tc_json *a = tc_json_array();

	for (size_t i = 0; i < g->ncomms; i++) {
		const struct tc_gcomm *c = &g->comms[i];
		struct tc_json *o = tc_json_object();
		tc_json_set_uint(o, "id", c->id);
		tc_json_set(o, "ranks", j_rl(&c->ranks));
		tc_json_set_uint(o, "parent", c->parent);
		if (!c->creator)
			tc_json_set(o, "creator", tc_json_null());
		else if (tc_op_name(c->creator))
			tc_json_set_str(o, "creator", tc_op_name(c->creator));
		else
			tc_json_set_uint(o, "creator", c->creator);
		tc_json_set_uint(o, "size", c->size);
		if (c->members)
			tc_json_set(o, "members", j_ints(c->members, c->size));
		if (c->ndims) {
			tc_json_set(o, "dims", j_ints(c->dims, c->ndims));
			tc_json_set_uint(o, "periods", c->periods);
		}
		if (c->graph) {
			struct tc_json *gr = tc_json_object();
			const int32_t *w = c->edges + c->nin + c->nout;
			tc_json_set(gr, "sources", j_ints(c->edges, c->nin));
			tc_json_set(gr, "destinations", j_ints(c->edges + c->nin, c->nout));
			if (c->weighted) {
				tc_json_set(gr, "source_weights", j_ints(w, c->nin));
				tc_json_set(gr, "destination_weights", j_ints(w + c->nin, c->nout));
			}
			tc_json_set(o, "graph", gr);
		}
		tc_json_append(a, o);
	}
	return a;
}

void tc_tct_json_format(const struct tc_gtrace *g, struct tc_strbuf *sb)
{
	struct tc_json *o = tc_json_object(), *sites = tc_json_array(), *tr = tc_json_array();
	char *s;

	tc_json_set_int(o, "schema", 1);
	tc_json_set_str(o, "format", TC_TCT_MAGIC);
	tc_json_set_int(o, "version", TC_TCT_VERSION);
	tc_json_set_int(o, "world_size", g->world_size);
	tc_json_set(o, "ranks", j_rl(&g->ranks));
	tc_json_set_str(o, "mode", g->mode);
	tc_json_set_str(o, "variant", g->variant);
	if (g->timing != TC_GTIMING_RANK)
		tc_json_set_str(o, "timing", tc_gtiming_name(g->timing));
	tc_json_set_real(o, "precision", g->precision);
	tc_json_set_uint(o, "bins", g->bins);
	tc_json_set_uint(o, "leads", g->leads);
	tc_json_set_uint(o, "events", g->events);
	if (g->tracer_ns)
		tc_json_set_uint(o, "tracer_ns", g->tracer_ns);
	if (g->ntracer_ops) {
		struct tc_json *a = tc_json_array();
		for (size_t i = 0; i < g->ntracer_ops; i++) {
			struct tc_json *e = tc_json_object();
			char buf[32];
			tc_json_set_str(e, "op", tc_tct_op_name(g->tracer_ops[i].op, buf, sizeof(buf)));
			tc_json_set_uint(e, "ns", g->tracer_ops[i].ns);
			tc_json_set_uint(e, "calls", g->tracer_ops[i].calls);
			tc_json_append(a, e);
		}
		tc_json_set(o, "tracer_ops", a);
	}
	if (g->skew) {
		struct tc_json *a = tc_json_array();
		for (int32_t k = 0; k < g->world_size; k++)
			tc_json_append(a, tc_json_uint(g->skew[k]));
		tc_json_set(o, "skew", a);
	}
	if (g->skew && g->nconc) {
		struct tc_json *a = tc_json_array();
		for (size_t k = 0; k < g->nconc; k++)
			tc_json_append(a, tc_json_uint(g->conc[k]));
		tc_json_set(o, "concurrency", a);
	}
	for (size_t i = 0; i < g->nsites; i++) {
		struct tc_json *so = tc_json_object(), *fr = tc_json_array();
		char sig[24];
		snprintf(sig, sizeof(sig), "0x%016" PRIx64, g->sites[i].sig);
		tc_json_set_str(so, "signature", sig);
		for (uint32_t k = 0; k < g->sites[i].nframes; k++) {
			struct tc_json *f = tc_json_object();
			tc_json_set_str(f, "module", g->sites[i].frames[k].module);
			tc_json_set_uint(f, "offset", g->sites[i].frames[k].offset);
			tc_json_set_str(f, "symbol", g->sites[i].frames[k].symbol);
			tc_json_append(fr, f);
		}
		tc_json_set(so, "frames", fr);
		tc_json_append(sites, so);
	}
	tc_json_set(o, "sites", sites);
	if (g->ncomms)
		tc_json_set(o, "comms", j_comms(g));
	for (size_t i = 0; i < g->n; i++)
		tc_json_append(tr, j_node(g, &g->seq[i]));
	tc_json_set(o, "trace", tr);
	s = tc_json_dumps(o, TC_JSON_COMPACT);
	if (s) {
		tc_strbuf_addstr(sb, s);
		tc_strbuf_addch(sb, '\n');
		free(s);
	}
	tc_json_free(o);
}

/* ---- reading: JSON ------------------------------------------------------ */

struct jpath {
	char buf[256];
};

static const char *jp(struct jpath *p, const char *parent, const char *fmt, ...) TC_PRINTF(3, 4);
static const char *jp(struct jpath *p, const char *parent, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	snprintf(p->buf, sizeof(p->buf), "%s", parent ? parent : "");
	n = strlen(p->buf);
	va_start(ap, fmt);
	vsnprintf(p->buf + n, sizeof(p->buf) - n, fmt, ap);
	va_end(ap);
	return p->buf;
}

static bool j_int(const struct tc_json *v, int64_t *out)
{
	if (!v || !tc_json_is_int(v))
		return false;
	*out = tc_json_int_value(v);
	return true;
}

static int j_rl_read(struct rd *r, const struct tc_json *a, struct tc_ranklist *out)
{
	struct rl_build b = { NULL, 0, 0, r->g->world_size };
	const char *msg;

	tc_ranklist_init(out);
	if (!a || !tc_json_is_array(a))
		return tc_tct_rd_fail(r, "expected a ranklist array");
	for (size_t i = 0; i < tc_json_array_size(a); i++) {
		const struct tc_json *x = tc_json_array_get(a, i);
		size_t n = tc_json_is_array(x) ? tc_json_array_size(x) : 0;
		struct rl_item it;
		int64_t v[3 + 2 * RL_DIMS];
		memset(&it, 0, sizeof(it));
		if (n < 3 || n > 3 + 2 * RL_DIMS || (n - 3) % 2) {
			tc_tct_rl_build_release(&b);
			return tc_tct_rd_fail(r, "malformed ranklist item");
		}
		for (size_t k = 0; k < n; k++)
			if (!j_int(tc_json_array_get(x, k), &v[k])) {
				tc_tct_rl_build_release(&b);
				return tc_tct_rd_fail(r, "malformed ranklist item");
			}
		if (v[1] < 1 || v[2] < 1) {
			tc_tct_rl_build_release(&b);
			return tc_tct_rd_fail(r, "malformed ranklist item");
		}
		it.start = v[0];
		it.len = (uint64_t)v[1];
		it.stride = v[2];
		for (size_t k = 3; k < n; k += 2) {
			if (v[k] < 1) {
				tc_tct_rl_build_release(&b);
				return tc_tct_rd_fail(r, "malformed ranklist item");
			}
			it.n[it.ndim] = (uint64_t)v[k];
			it.d[it.ndim] = v[k + 1];
			it.ndim++;
		}
		if ((msg = tc_tct_rl_build_add(&b, &it))) {
			tc_tct_rl_build_release(&b);
			return tc_tct_rd_fail(r, "%s", msg);
		}
	}
	if ((msg = tc_tct_rl_build_finish(&b, out)))
		return tc_tct_rd_fail(r, "%s", msg);
	return 0;
}

static bool j_peer_read(const struct tc_json *v, int64_t *out)
{
	const char *s = v ? tc_json_str_value(v) : NULL;

	if (s) {
		struct lx l = { s };
		return tc_tct_text_peer(&l, out) && !*l.p;
	}
	return j_int(v, out) && *out >= -(int64_t)INT32_MAX && *out <= INT32_MAX;
}

static bool j_req_read(const struct tc_json *v, int64_t *out)
{
	const char *s = v ? tc_json_str_value(v) : NULL;

	if (s) {
		if (strcmp(s, "none"))
			return false;
		*out = TC_RSD_NOREQ;
		return true;
	}
	return j_int(v, out) && *out != TC_RSD_NOREQ;
}

static bool j_word_read(const struct tc_json *v, enum tc_gparam_kind kind, int64_t *out)
{
	switch (kind) {
	case TC_GPK_PEER:
		return j_peer_read(v, out);
	case TC_GPK_REQ:
		return j_req_read(v, out);
	default:
		return j_int(v, out);
	}
}

static int j_val_read(struct rd *r, const struct tc_json *v, unsigned p, struct tc_gval *out)
{
	enum tc_gparam_kind kind;
	const char *msg;

	tc_tct_kind_of(p, &kind);
	out->n = TC_GVAL_ABSENT;
	out->w = 0;
	out->v = NULL;
	if (!v)
		return tc_tct_rd_fail(r, "missing value");
	if (tc_json_is_null(v))
		goto check;
	if (kind == TC_GPK_COMPL || kind == TC_GPK_UARRAY) {
		size_t n = tc_json_is_array(v) ? tc_json_array_size(v) : 0;
		size_t k = kind == TC_GPK_COMPL ? 4 : 1;
		int64_t *w;
		if (!tc_json_is_array(v) || n > MAX_WORDS / k)
			return tc_tct_rd_fail(r, "expected an array value");
		w = tc_xmalloc(tc_st_mult(n ? n * k : 1, sizeof(int64_t)));
		for (size_t i = 0; i < n; i++) {
			const struct tc_json *x = tc_json_array_get(v, i);
			bool ok;
			if (kind == TC_GPK_COMPL)
				ok = j_req_read(tc_json_get(x, "request"), &w[4 * i]) &&
				     j_peer_read(tc_json_get(x, "source"), &w[4 * i + 1]) &&
				     j_int(tc_json_get(x, "tag"), &w[4 * i + 2]) &&
				     j_int(tc_json_get(x, "bytes"), &w[4 * i + 3]);
			else
				ok = j_int(x, &w[i]);
			if (!ok) {
				free(w);
				return tc_tct_rd_fail(r, "malformed array value");
			}
		}
		tc_gval_set(out, (uint32_t)(n * k), w);
		free(w);
		goto check;
	}
	{
		int64_t x;
		if (!j_word_read(v, kind, &x))
			return tc_tct_rd_fail(r, "malformed value");
		tc_gval_set(out, 1, &x);
	}
check:
	if ((msg = tc_tct_val_check(p, out))) {
		tc_gval_release(out);
		return tc_tct_rd_fail(r, "%s", msg);
	}
	return 0;
}

static int j_seq_read(struct rd *r, const struct tc_json *a, unsigned p, struct tc_gseq *s,
		      int depth)
{
	if (depth > MAX_SEQ_DEPTH)
		return tc_tct_rd_fail(r, "value sequence nested too deeply");
	if (!a || !tc_json_is_array(a) || !tc_json_array_size(a))
		return tc_tct_rd_fail(r, "expected a non-empty sequence array");
	for (size_t i = 0; i < tc_json_array_size(a); i++) {
		const struct tc_json *e = tc_json_array_get(a, i), *sub = tc_json_get(e, "seq");
		int64_t reps;
		if (!j_int(tc_json_get(e, "reps"), &reps) || reps < 1)
			return tc_tct_rd_fail(r, "sequence entry: bad reps");
		if (sub) {
			struct tc_gseq *c = tc_gseq_new();
			if (j_seq_read(r, sub, p, c, depth + 1)) {
				tc_gseq_free(c);
				return TC_ERR_FORMAT;
			}
			if (!tc_tct_occ_add_ok(s->len, c->len, (uint64_t)reps)) {
				tc_gseq_free(c);
				return tc_tct_rd_fail(r, "value sequence too long");
			}
			tc_gseq_add_chunk(s, c, (uint64_t)reps);
		} else {
			struct tc_gval v;
			if (j_val_read(r, tc_json_get(e, "value"), p, &v))
				return TC_ERR_FORMAT;
			if (!tc_tct_occ_add_ok(s->len, 1, (uint64_t)reps)) {
				tc_gval_release(&v);
				return tc_tct_rd_fail(r, "value sequence too long");
			}
			tc_gseq_add_val(s, &v, (uint64_t)reps);
			tc_gval_release(&v);
		}
	}
	return 0;
}

static int j_param_read(struct rd *r, const struct tc_json *o, unsigned p, struct tc_gparam *gp,
			const struct tc_ranklist *node_ranks)
{
	const struct tc_json *vars = tc_json_get(o, "variants"), *h = tc_json_get(o, "hist");
	enum tc_gparam_kind kind;
	const char *msg;

	tc_tct_kind_of(p, &kind);
	if (!vars || !tc_json_is_array(vars))
		return tc_tct_rd_fail(r, "expected \"variants\"");
	for (size_t i = 0; i < tc_json_array_size(vars); i++) {
		const struct tc_json *v = tc_json_array_get(vars, i);
		struct tc_gvar *gv = tc_tct_gp_push(gp);
		if (!gv)
			return tc_tct_rd_fail(r, "too many variants");
		if (j_rl_read(r, tc_json_get(v, "ranks"), &gv->ranks))
			return TC_ERR_FORMAT;
		if (tc_json_get(v, "seq")) {
			gv->seq = tc_gseq_new();
			if (j_seq_read(r, tc_json_get(v, "seq"), p, gv->seq, 0))
				return TC_ERR_FORMAT;
		} else if (j_val_read(r, tc_json_get(v, "value"), p, &gv->val)) {
			return TC_ERR_FORMAT;
		}
	}
	if (h) {
		const struct tc_json *bins = tc_json_get(h, "bins");
		struct tc_hist *hs = tc_xcalloc(1, sizeof(*hs));
		int64_t n, mr, xr;
		gp->hist = hs;
		if (j_rl_read(r, tc_json_get(h, "ranks"), &hs->ranks))
			return TC_ERR_FORMAT;
		if (!j_int(tc_json_get(h, "n"), &n) || n < 0 ||
		    !j_word_read(tc_json_get(h, "min"), kind, &hs->min) ||
		    !j_word_read(tc_json_get(h, "max"), kind, &hs->max) ||
		    !j_int(tc_json_get(h, "min_rank"), &mr) || !j_int(tc_json_get(h, "max_rank"), &xr) ||
		    mr < 0 || mr >= r->g->world_size || xr < 0 || xr >= r->g->world_size ||
		    !bins || !tc_json_is_array(bins) || tc_json_array_size(bins) > TC_HIST_BINS_MAX)
			return tc_tct_rd_fail(r, "malformed histogram");
		hs->n = (uint64_t)n;
		hs->min_rank = (int32_t)mr;
		hs->max_rank = (int32_t)xr;
		hs->bins = tc_xcalloc(tc_json_array_size(bins) + 1, sizeof(*hs->bins));
		for (size_t k = 0; k < tc_json_array_size(bins); k++) {
			const struct tc_json *b = tc_json_array_get(bins, k);
			struct tc_hbin *hb = &hs->bins[k];
			int64_t bn;
			double sd;
			if (!j_word_read(tc_json_get(b, "lo"), kind, &hb->lo) ||
			    !j_word_read(tc_json_get(b, "hi"), kind, &hb->hi) ||
			    !j_int(tc_json_get(b, "n"), &bn) || bn < 1 ||
			    !tc_json_is_number(tc_json_get(b, "mean")) ||
			    !tc_json_is_number(tc_json_get(b, "sd")))
				return tc_tct_rd_fail(r, "malformed histogram bin");
			hb->n = (uint64_t)bn;
			hb->mean = tc_json_number_value(tc_json_get(b, "mean"));
			sd = tc_json_number_value(tc_json_get(b, "sd"));
			if (!(sd >= 0) || !isfinite(sd))
				return tc_tct_rd_fail(r, "malformed histogram bin");
			hb->m2 = sd * sd * (double)hb->n;
			hs->nbins++;
		}
		if ((msg = tc_tct_hist_check(hs)))
			return tc_tct_rd_fail(r, "%s", msg);
		if (!tc_tct_rl_within(&hs->ranks, node_ranks))
			return tc_tct_rd_fail(r, "histogram ranks outside the node's ranks");
	}
	return 0;
}

static bool j_stat_read(const struct tc_json *o, struct tc_rsd_stat *s, uint64_t n)
{
	const struct tc_json *m = tc_json_get(o, "mean"), *sd = tc_json_get(o, "sd");
	double d;

	if (!m || !sd || !tc_json_is_number(m) || !tc_json_is_number(sd) ||
	    !j_int(tc_json_get(o, "min"), &s->min) || !j_int(tc_json_get(o, "max"), &s->max))
		return false;
	s->mean = tc_json_number_value(m);
	d = tc_json_number_value(sd);
	if (!isfinite(s->mean) || !isfinite(d) || d < 0)
		return false;
	s->n = n;
	s->m2 = d * d * (double)n;
	return true;
}

/* "times": [{"ranks", "n", "comp", "comm"}, ...] (optional); the node's
 * "comp" and "comm" stay as written. */
static int j_times_read(struct rd *r, const struct tc_json *a, struct tc_gnode *nd, uint64_t n)
{
	struct tc_rsd_stat comp = nd->comp, comm = nd->comm;
	const char *msg;

	if (!a)
		return 0;
	if (!tc_json_is_array(a) || tc_json_array_size(a) < 2)
		return tc_tct_rd_fail(r,
				      "event: \"times\" must be an array of two or more entries");
	for (size_t i = 0; i < tc_json_array_size(a); i++) {
		const struct tc_json *o = tc_json_array_get(a, i);
		struct tc_gtime *t = tc_tct_times_push(nd);
		int64_t tn;
		if (!t || !tc_json_is_object(o))
			return tc_tct_rd_fail(r, "event: bad time entry");
		if (j_rl_read(r, tc_json_get(o, "ranks"), &t->ranks))
			return TC_ERR_FORMAT;
		if (!j_int(tc_json_get(o, "n"), &tn) || tn < 0 ||
		    !j_stat_read(tc_json_get(o, "comp"), &t->comp, (uint64_t)tn) ||
		    !j_stat_read(tc_json_get(o, "comm"), &t->comm, (uint64_t)tn))
			return tc_tct_rd_fail(r,
					      "event: bad time entry \"n\", \"comp\" or \"comm\"");
	}
	if ((msg = tc_tct_times_check(nd, n)))
		return tc_tct_rd_fail(r, "event: %s", msg);
	nd->comp = comp;
	nd->comm = comm;
	return 0;
}

static int j_nodes_read(struct rd *r, const struct tc_json *a, const struct tc_ranklist *parent,
			const char *path, int depth, struct tc_gnode **out, size_t *nout);

static int j_node_read(struct rd *r, const struct tc_json *o, const struct tc_ranklist *parent,
		       const char *path, int depth, struct tc_gnode *nd)
{
	const char *type = tc_json_str_value(tc_json_get(o, "type"));
	struct jpath pb;

	r->where = path;
	tc_tct_rd_node_path(r, path);
	if (!tc_json_is_object(o) || !type)
		return tc_tct_rd_fail(r, "expected a node object with a \"type\"");
	if (j_rl_read(r, tc_json_get(o, "ranks"), &nd->ranks))
		return TC_ERR_FORMAT;
	if (!nd->ranks.count || !tc_tct_rl_within(&nd->ranks, parent))
		return tc_tct_rd_fail(r, "node ranks empty or outside the enclosing ranks");
	if (!strcmp(type, "loop")) {
		struct tc_gnode *body;
		size_t n;
		const struct tc_json *it = tc_json_get(o, "iters");
		if (!it || j_param_read(r, it, TC_GP_N, &nd->iters, &nd->ranks))
			return r->err->code ? r->err->code
					     : tc_tct_rd_fail(r, "loop without \"iters\"");
		if (!nd->iters.nvar && !nd->iters.hist)
			return tc_tct_rd_fail(r, "loop without an iteration count");
		if (depth + 1 >= MAX_DEPTH)
			return tc_tct_rd_fail(r, "loops nested too deeply");
		if (j_nodes_read(r, tc_json_get(o, "body"), &nd->ranks, jp(&pb, path, ".body"),
				 depth + 1, &body, &n))
			return TC_ERR_FORMAT;
		r->where = path;
		if (!n || n > UINT32_MAX) {
			free(body);
			return tc_tct_rd_fail(r, "empty loop body");
		}
		nd->body = body;
		nd->nbody = (uint32_t)n;
		return 0;
	}
	if (!strcmp(type, "event")) {
		const char *op = tc_json_str_value(tc_json_get(o, "op"));
		const struct tc_json *ps = tc_json_get(o, "params");
		int64_t site, n;
		unsigned opn = tc_tct_op_of_word(op);
		if (!opn)
			return tc_tct_rd_fail(r, "event: unknown \"op\"");
		nd->op = opn;
		nd->p = tc_xcalloc(TC_GP_N, sizeof(*nd->p));
		if (!j_int(tc_json_get(o, "site"), &site) || site < 0 || (uint64_t)site >= r->g->nsites)
			return tc_tct_rd_fail(r, "event: bad \"site\"");
		nd->stack = r->g->sites[site].sig;
		if (!j_int(tc_json_get(o, "n"), &n) || n < 0 ||
		    !j_stat_read(tc_json_get(o, "comp"), &nd->comp, (uint64_t)n) ||
		    !j_stat_read(tc_json_get(o, "comm"), &nd->comm, (uint64_t)n))
			return tc_tct_rd_fail(r, "event: bad \"n\", \"comp\" or \"comm\"");
		if (j_times_read(r, tc_json_get(o, "times"), nd, (uint64_t)n))
			return TC_ERR_FORMAT;
		if (ps && !tc_json_is_object(ps))
			return tc_tct_rd_fail(r, "event: \"params\" must be an object");
		for (unsigned p = 0; ps && p < TC_GP_N; p++) {
			const struct tc_json *po = tc_json_get(ps, tc_gparam_name(p));
			if (!po)
				continue;
			if (j_param_read(r, po, p, &nd->p[p], &nd->ranks))
				return TC_ERR_FORMAT;
		}
		if (ps) {
			for (size_t i = 0; i < tc_json_object_size(ps); i++)
				if (tc_gparam_from_name(tc_json_object_key_at(ps, i)) < 0)
					return tc_tct_rd_fail(r, "event: unknown parameter \"%s\"",
							      tc_json_object_key_at(ps, i));
		}
		return 0;
	}
	return tc_tct_rd_fail(r, "unknown node type \"%s\"", type);
}

static int j_nodes_read(struct rd *r, const struct tc_json *a, const struct tc_ranklist *parent,
			const char *path, int depth, struct tc_gnode **out, size_t *nout)
{
	size_t n;
	struct tc_gnode *nodes;
	char pathcopy[256];

	*out = NULL;
	*nout = 0;
	r->where = path;
	if (!a || !tc_json_is_array(a))
		return tc_tct_rd_fail(r, "expected an array of nodes");
	snprintf(pathcopy, sizeof(pathcopy), "%s", path);
	n = tc_json_array_size(a);
	nodes = tc_xcalloc(n ? n : 1, sizeof(*nodes));
	for (size_t i = 0; i < n; i++) {
		struct jpath pb;
		if (j_node_read(r, tc_json_array_get(a, i), parent, jp(&pb, pathcopy, "[%zu]", i),
				depth, &nodes[i])) {
			for (size_t k = 0; k <= i; k++)
				tc_tct_node_free_parts(&nodes[k]);
			free(nodes);
			return TC_ERR_FORMAT;
		}
	}
	*out = nodes;
	*nout = n;
	return 0;
}

/* n integers of a (n: its length, at most max, when *n is 0 on entry) */
static bool j_ints_read(const struct tc_json *a, int32_t *v, uint32_t *n, uint32_t max)
{
	int64_t x;

	if (!a || !tc_json_is_array(a) || tc_json_array_size(a) > max ||
	    (*n && tc_json_array_size(a) != *n))
		return false;
	*n = (uint32_t)tc_json_array_size(a);
	for (uint32_t i = 0; i < *n; i++) {
		if (!j_int(tc_json_array_get(a, i), &x) || x < INT32_MIN || x > INT32_MAX)
			return false;
		v[i] = (int32_t)x;
	}
	return true;
}

/* A communicator's "graph": {"sources", "destinations", ["source_weights",
 * "destination_weights"]}; false when malformed. */
static bool j_graph_read(const struct tc_json *o, struct tc_gcomm *c)
{
	const struct tc_json *src = tc_json_get(o, "sources"), *dst = tc_json_get(o, "destinations");
	const struct tc_json *sw = tc_json_get(o, "source_weights");
	const struct tc_json *dw = tc_json_get(o, "destination_weights");
	uint32_t n;
	int32_t *w;

	if (!tc_json_is_object(o) || !src || !dst || !tc_json_is_array(src) ||
	    !tc_json_is_array(dst) || tc_json_array_size(src) > MAX_DEGREE ||
	    tc_json_array_size(dst) > MAX_DEGREE || !sw != !dw)
		return false;
	c->graph = true;
	c->weighted = sw != NULL;
	c->nin = (uint32_t)tc_json_array_size(src);
	c->nout = (uint32_t)tc_json_array_size(dst);
	c->edges = tc_xmalloc(tc_st_mult(tc_gcomm_edge_words(c) + 1, sizeof(*c->edges)));
	w = c->edges + c->nin + c->nout;
	n = 0;
	if (!j_ints_read(src, c->edges, &n, c->nin))
		return false;
	n = 0;
	if (!j_ints_read(dst, c->edges + c->nin, &n, c->nout))
		return false;
	if (!c->weighted)
		return true;
	n = 0;
	if (!j_ints_read(sw, w, &n, c->nin) || n != c->nin)
		return false;
	n = 0;
	return j_ints_read(dw, w + c->nin, &n, c->nout) && n == c->nout;
}

/* "comms" (optional: a trace written before it had a table has none) */
static int j_comms_read(struct rd *r, const struct tc_json *a)
{
	struct tc_gtrace *g = r->g;
	struct jpath pb;

	if (!a)
		return 0;
	r->where = "comms";
	if (!tc_json_is_array(a) || tc_json_array_size(a) > MAX_COMMS)
		return tc_tct_rd_fail(r, "bad \"comms\"");
	for (size_t i = 0; i < tc_json_array_size(a); i++) {
		const struct tc_json *o = tc_json_array_get(a, i), *x;
		struct tc_gcomm *c = tc_gtrace_push_comm(g);
		int64_t v;
		const char *why;
		r->where = jp(&pb, "comms", "[%zu]", i);
		if (!j_int(tc_json_get(o, "id"), &v) || v < 0 || v > UINT32_MAX)
			return tc_tct_rd_fail(r, "bad \"id\"");
		c->id = (uint32_t)v;
		if (j_rl_read(r, tc_json_get(o, "ranks"), &c->ranks))
			return TC_ERR_FORMAT;
		if (!j_int(tc_json_get(o, "parent"), &v) || v < 0 || v > UINT32_MAX)
			return tc_tct_rd_fail(r, "bad \"parent\"");
		c->parent = (uint32_t)v;
		x = tc_json_get(o, "creator");
		if (x && tc_json_str_value(x))
			c->creator = tc_op_from_name(tc_json_str_value(x));
		else if (x && j_int(x, &v) && v > 0 && v < TC_OP_MAX)
			c->creator = (uint32_t)v;
		else if (!x || !tc_json_is_null(x))
			return tc_tct_rd_fail(r, "bad \"creator\"");
		if (x && tc_json_str_value(x) && !c->creator)
			return tc_tct_rd_fail(r, "bad \"creator\"");
		if (!j_int(tc_json_get(o, "size"), &v) || v < 0 || v > g->world_size)
			return tc_tct_rd_fail(r, "bad \"size\"");
		c->size = (uint32_t)v;
		if ((x = tc_json_get(o, "members"))) {
			uint32_t n = c->size;
			c->members = tc_xmalloc(tc_st_mult(c->size, sizeof(*c->members)));
			if (!j_ints_read(x, c->members, &n, c->size))
				return tc_tct_rd_fail(r, "bad \"members\"");
		}
		if ((x = tc_json_get(o, "dims"))) {
			if (!j_ints_read(x, c->dims, &c->ndims, 8) || !c->ndims ||
			    !j_int(tc_json_get(o, "periods"), &v) || v < 0 || v > UINT32_MAX)
				return tc_tct_rd_fail(r, "bad \"dims\" or \"periods\"");
			c->periods = (uint32_t)v;
		}
		if ((x = tc_json_get(o, "graph")) && !j_graph_read(x, c))
			return tc_tct_rd_fail(r, "bad \"graph\"");
		if ((why = tc_tct_comm_check(c, g->world_size)))
			return tc_tct_rd_fail(r, "%s", why);
	}
	return 0;
}

int tc_tct_json_parse(struct rd *r, const char *buf, size_t len)
{
	struct tc_json *doc = tc_json_load_buf(buf, len, r->name, r->err);
	struct tc_gtrace *g = r->g;
	const struct tc_json *sites, *x;
	int64_t v;
	int rc = TC_ERR_FORMAT;

	if (!doc)
		return TC_ERR_FORMAT;
	r->where = "document";
	x = tc_json_get(doc, "format");
	if (!x || !tc_json_str_value(x) || strcmp(tc_json_str_value(x), TC_TCT_MAGIC)) {
		tc_tct_rd_fail(r, "not a tracecluster global trace (\"format\" is not \"%s\")",
			       TC_TCT_MAGIC);
		goto out;
	}
	if (!j_int(tc_json_get(doc, "version"), &v)) {
		tc_tct_rd_fail(r, "missing \"version\"");
		goto out;
	}
	if (v != TC_TCT_VERSION) {
		rc = tc_error_set(r->err, TC_ERR_VERSION, r->name, -1,
				  "format version %" PRId64 " is not supported (this is version %d)",
				  v, TC_TCT_VERSION);
		goto out;
	}
	if (!j_int(tc_json_get(doc, "world_size"), &v) || v < 1 || v > MAX_WORLD) {
		tc_tct_rd_fail(r, "bad \"world_size\"");
		goto out;
	}
	g->world_size = (int32_t)v;
	r->where = "ranks";
	if (j_rl_read(r, tc_json_get(doc, "ranks"), &g->ranks))
		goto out;
	if (!g->ranks.count) {
		tc_tct_rd_fail(r, "the trace covers no rank");
		goto out;
	}
	r->where = "document";
	if ((x = tc_json_get(doc, "mode")) && tc_json_str_value(x))
		snprintf(g->mode, sizeof(g->mode), "%s", tc_json_str_value(x));
	if ((x = tc_json_get(doc, "variant")) && tc_json_str_value(x))
		snprintf(g->variant, sizeof(g->variant), "%s", tc_json_str_value(x));
	if ((x = tc_json_get(doc, "timing"))) {
		int t = tc_json_str_value(x) ? tc_gtiming_from_name(tc_json_str_value(x)) : -1;
		if (t < 0) {
			tc_tct_rd_fail(r, "bad \"timing\"");
			goto out;
		}
		g->timing = (enum tc_gtiming)t;
	}
	if ((x = tc_json_get(doc, "precision"))) {
		if (!tc_json_is_number(x) || !(tc_json_number_value(x) >= 0) ||
		    tc_json_number_value(x) > 100) {
			tc_tct_rd_fail(r, "bad \"precision\"");
			goto out;
		}
		g->precision = tc_json_number_value(x);
	}
	if ((x = tc_json_get(doc, "bins"))) {
		if (!j_int(x, &v) || v < 1 || v > TC_HIST_BINS_MAX) {
			tc_tct_rd_fail(r, "bad \"bins\"");
			goto out;
		}
		g->bins = (uint32_t)v;
	}
	if ((x = tc_json_get(doc, "leads")) && j_int(x, &v) && v >= 0 && v <= UINT32_MAX)
		g->leads = (uint32_t)v;
	if ((x = tc_json_get(doc, "events")) && j_int(x, &v) && v >= 0)
		g->events = (uint64_t)v;
	if ((x = tc_json_get(doc, "tracer_ns"))) {
		if (!j_int(x, &v) || v < 0 || (uint64_t)v > TC_TRACER_NS_MAX) {
			tc_tct_rd_fail(r, "bad \"tracer_ns\"");
			goto out;
		}
		g->tracer_ns = (uint64_t)v;
	}
	if ((x = tc_json_get(doc, "tracer_ops"))) {
		size_t n = tc_json_is_array(x) ? tc_json_array_size(x) : SIZE_MAX;
		if (n > TC_OP_MAX) {
			tc_tct_rd_fail(r, "bad \"tracer_ops\"");
			goto out;
		}
		g->tracer_ops = n ? tc_xcalloc(n, sizeof(*g->tracer_ops)) : NULL;
		for (size_t i = 0; i < n; i++) {
			const struct tc_json *e = tc_json_array_get(x, i);
			unsigned op = tc_tct_op_of_word(tc_json_str_value(tc_json_get(e, "op")));
			int64_t ns, calls;
			if (!op || (i && op <= g->tracer_ops[i - 1].op) ||
			    !j_int(tc_json_get(e, "ns"), &ns) || ns < 0 ||
			    (uint64_t)ns > TC_TRACER_NS_MAX || !j_int(tc_json_get(e, "calls"), &calls) ||
			    calls <= 0 || (uint64_t)calls > TC_TRACER_CALLS_MAX) {
				tc_tct_rd_fail(r, "bad \"tracer_ops\" entry %zu", i);
				goto out;
			}
			g->tracer_ops[i] = (struct tc_tracer_op){ op, (uint32_t)ns, (uint64_t)calls };
			g->ntracer_ops = i + 1;
		}
	}
	if ((x = tc_json_get(doc, "skew"))) {
		/* one per world rank, of a trace that covers the world */
		const char *why = NULL;
		if (!tc_json_is_array(x) || tc_json_array_size(x) != (size_t)g->world_size ||
		    g->ranks.count != (uint64_t)g->world_size) {
			tc_tct_rd_fail(r, "bad \"skew\": expected one per rank of the whole world");
			goto out;
		}
		g->skew = tc_xmalloc(tc_st_mult((size_t)g->world_size, sizeof(*g->skew)));
		for (int32_t k = 0; k < g->world_size && !why; k++) {
			if (!j_int(tc_json_array_get(x, (size_t)k), &v) || v < 0)
				why = "expected numbers";
			else
				g->skew[k] = (uint64_t)v;
		}
		if (why || (why = tc_skew_check(g->skew, (size_t)g->world_size))) {
			tc_tct_rd_fail(r, "bad \"skew\": %s", why);
			goto out;
		}
	}
	if ((x = tc_json_get(doc, "concurrency"))) {
		/* with the skews, at most one per world rank */
		size_t n = tc_json_is_array(x) ? tc_json_array_size(x) : 0;
		const char *why = g->skew ? NULL : "without \"skew\"";
		if (!why && (n < 1 || n > (size_t)g->world_size))
			why = "expected 1 to world-size numbers";
		g->conc = why ? NULL : tc_xmalloc(tc_st_mult(n, sizeof(*g->conc)));
		for (size_t k = 0; k < n && !why; k++) {
			if (!j_int(tc_json_array_get(x, k), &v) || v < 0)
				why = "expected numbers";
			else
				g->conc[g->nconc++] = (uint64_t)v;
		}
		if (why || (why = tc_conc_check(g->conc, g->nconc, g->world_size))) {
			tc_tct_rd_fail(r, "bad \"concurrency\": %s", why);
			goto out;
		}
	}
	sites = tc_json_get(doc, "sites");
	if (!sites || !tc_json_is_array(sites) || tc_json_array_size(sites) > MAX_SITES) {
		tc_tct_rd_fail(r, "expected \"sites\"");
		goto out;
	}
	for (size_t i = 0; i < tc_json_array_size(sites); i++) {
		const struct tc_json *s = tc_json_array_get(sites, i), *fr = tc_json_get(s, "frames");
		const char *sig = tc_json_str_value(tc_json_get(s, "signature"));
		struct lx l = { sig ? sig : "" };
		uint64_t sg;
		struct jpath pb;
		r->where = jp(&pb, "sites", "[%zu]", i);
		if (!sig || !tc_tct_lx_hex(&l, &sg) || *l.p) {
			tc_tct_rd_fail(r, "bad \"signature\"");
			goto out;
		}
		if (g->nsites && g->sites[g->nsites - 1].sig >= sg) {
			tc_tct_rd_fail(r, "sites must be sorted by signature");
			goto out;
		}
		tc_gtrace_set_site(g, sg, NULL, 0);
		if (fr) {
			struct tc_gsite *st = &g->sites[g->nsites - 1];
			size_t nf = tc_json_is_array(fr) ? tc_json_array_size(fr) : 0;
			if (!tc_json_is_array(fr) || nf > MAX_FRAMES) {
				tc_tct_rd_fail(r, "bad \"frames\"");
				goto out;
			}
			st->frames = tc_xcalloc(nf ? nf : 1, sizeof(*st->frames));
			for (size_t k = 0; k < nf; k++) {
				const struct tc_json *f = tc_json_array_get(fr, k);
				const char *m = tc_json_str_value(tc_json_get(f, "module"));
				const char *sy = tc_json_str_value(tc_json_get(f, "symbol"));
				int64_t off;
				if (!m || !sy || !j_int(tc_json_get(f, "offset"), &off)) {
					tc_tct_rd_fail(r, "bad frame");
					goto out;
				}
				st->frames[k].module = tc_xstrdup(m);
				st->frames[k].symbol = tc_xstrdup(sy);
				st->frames[k].offset = (uint64_t)off;
				st->nframes++;
			}
		}
	}
	if (j_comms_read(r, tc_json_get(doc, "comms")))
		goto out;
	{
		struct tc_gnode *seq;
		size_t n;
		if (j_nodes_read(r, tc_json_get(doc, "trace"), &g->ranks, "trace", 0, &seq, &n))
			goto out;
		g->seq = seq;
		g->n = g->alloc = n;
	}
	rc = 0;
out:
	tc_json_free(doc);
	return rc;
}
