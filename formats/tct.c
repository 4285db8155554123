/*
 * tct.c - the global compressed trace format (.tct): text and JSON
 * writers and readers. The format is specified in formats/tct.md.
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
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool item_same_shape(const struct rl_item *a, const struct rl_item *b)
{
	if (a->len != b->len || a->stride != b->stride || a->ndim != b->ndim)
		return false;
	for (uint32_t k = 0; k < a->ndim; k++)
		if (a->n[k] != b->n[k] || a->d[k] != b->d[k])
			return false;
	return true;
}

/* Group runs of items with the same shape and a constant shift. */
static size_t items_compact(struct rl_item *it, size_t n)
{
	size_t i = 0, k = 0;

	while (i < n) {
		size_t j = i + 1;
		if (it[i].ndim < RL_DIMS && j < n && item_same_shape(&it[i], &it[j])) {
			int64_t delta = it[j].start - it[i].start;
			while (j + 1 < n && item_same_shape(&it[i], &it[j + 1]) &&
			       it[j + 1].start - it[j].start == delta)
				j++;
			it[k] = it[i];
			it[k].n[it[k].ndim] = j - i + 1;
			it[k].d[it[k].ndim] = delta;
			it[k].ndim++;
			k++;
			i = j + 1;
			continue;
		}
		it[k++] = it[i++];
	}
	return k;
}

size_t tc_tct_rl_items(const struct tc_ranklist *rl, struct rl_item **out)
{
	struct rl_item *it = tc_xcalloc(rl->nruns ? rl->nruns : 1, sizeof(*it));
	size_t n = rl->nruns;

	for (size_t i = 0; i < n; i++) {
		it[i].start = rl->runs[i].start;
		it[i].len = rl->runs[i].len;
		it[i].stride = rl->runs[i].len > 1 ? rl->runs[i].stride : 1;
	}
	for (int pass = 0; pass < RL_DIMS; pass++) {
		size_t m = items_compact(it, n);
		if (m == n)
			break;
		n = m;
	}
	*out = it;
	return n;
}

static bool rl_same(const struct tc_ranklist *a, const struct tc_ranklist *b)
{
	if (a->count != b->count || a->nruns != b->nruns)
		return false;
	for (size_t i = 0; i < a->nruns; i++)
		if (a->runs[i].start != b->runs[i].start || a->runs[i].len != b->runs[i].len ||
		    (a->runs[i].len > 1 && a->runs[i].stride != b->runs[i].stride))
			return false;
	return true;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* Add the ranks of an item; returns an error message or NULL. */
const char *tc_tct_rl_build_add(struct rl_build *b, const struct rl_item *it)
{
	uint64_t total = it->len;
	uint64_t idx[RL_DIMS] = { 0 };

	if (!it->len)
		return "empty ranklist item";
	for (uint32_t k = 0; k < it->ndim; k++) {
		if (!it->n[k] || total > (uint64_t)b->world / it->n[k])
			return "ranklist item larger than the world";
		total *= it->n[k];
	}
	if (total > (uint64_t)b->world || b->n + total > (uint64_t)b->world)
		return "ranklist larger than the world";
	for (;;) {
		int64_t base = it->start;
		for (uint32_t k = 0; k < it->ndim; k++)
			base += (int64_t)idx[k] * it->d[k];
		for (uint64_t j = 0; j < it->len; j++) {
			int64_t r = base + (int64_t)j * it->stride;
			if (r < 0 || r >= b->world)
				return "rank out of range";
			TC_ALLOC_GROW(b->v, b->n + 1, b->alloc);
			b->v[b->n++] = (int32_t)r;
		}
		{
			uint32_t k = 0;
			while (k < it->ndim && ++idx[k] == it->n[k])
				idx[k++] = 0;
			if (k == it->ndim)
				break;
		}
	}
	return NULL;
}

/* Sort, reject duplicates, make runs; returns an error message or NULL. */
const char *tc_tct_rl_build_finish(struct rl_build *b, struct tc_ranklist *rl)
{
	if (b->n)
		qsort(b->v, b->n, sizeof(*b->v), cmp_i32);
	for (size_t i = 1; i < b->n; i++)
		if (b->v[i] == b->v[i - 1]) {
			free(b->v);
			b->v = NULL;
			return "rank listed twice";
		}
	tc_ranklist_init(rl);
	tc_ranklist_from_array(rl, b->v, b->n);
	if (rl->nruns && rl->alloc > rl->nruns) {
		rl->runs = tc_xrealloc(rl->runs, rl->nruns * sizeof(*rl->runs));
		rl->alloc = rl->nruns;
	}
	free(b->v);
	b->v = NULL;
	return NULL;
}

/* ---- writing: text ------------------------------------------------------ */

static void w_rl(struct tc_strbuf *sb, const struct tc_ranklist *rl)
{
	struct rl_item *it;
	size_t n = tc_tct_rl_items(rl, &it);

	tc_strbuf_addch(sb, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			tc_strbuf_addch(sb, ',');
		tc_strbuf_addf(sb, "%" PRId64, it[i].start);
		if (it[i].len > 1) {
			tc_strbuf_addf(sb, "-%" PRId64,
				       it[i].start + it[i].stride * (int64_t)(it[i].len - 1));
			if (it[i].stride != 1)
				tc_strbuf_addf(sb, "/%" PRId64, it[i].stride);
		}
		for (uint32_t k = 0; k < it[i].ndim; k++)
			tc_strbuf_addf(sb, "x%" PRIu64 "+%" PRId64, it[i].n[k], it[i].d[k]);
	}
	tc_strbuf_addch(sb, ']');
	free(it);
}

static void w_quoted(struct tc_strbuf *sb, const char *s)
{
	tc_strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			tc_strbuf_addf(sb, "\\%c", c);
		else if (c == '\n')
			tc_strbuf_addstr(sb, "\\n");
		else if (c == '\t')
			tc_strbuf_addstr(sb, "\\t");
		else if (c < 0x20 || c == 0x7f)
			tc_strbuf_addf(sb, "\\x%02x", c);
		else
			tc_strbuf_addch(sb, (char)c);
	}
	tc_strbuf_addch(sb, '"');
}

static void w_peer(struct tc_strbuf *sb, int64_t rel)
{
	if (tc_rel_is_rank(rel)) {
		tc_strbuf_addf(sb, "%+" PRId64, rel);
		return;
	}
	switch (rel - TC_REL_SPECIAL) {
	case TC_PEER_NONE:
		tc_strbuf_addstr(sb, "none");
		return;
	case TC_ANY_SOURCE:
		tc_strbuf_addstr(sb, "any");
		return;
	case TC_PROC_NULL:
		tc_strbuf_addstr(sb, "null");
		return;
	}
	tc_strbuf_addf(sb, "!%" PRId64, rel - TC_REL_SPECIAL);
}

static void w_req(struct tc_strbuf *sb, int64_t rel)
{
	if (rel == TC_RSD_NOREQ)
		tc_strbuf_addstr(sb, "none");
	else
		tc_strbuf_addf(sb, "%+" PRId64, rel);
}

/* One word of a one-word kind. */
static void w_word(struct tc_strbuf *sb, enum tc_gparam_kind kind, int64_t w)
{
	const char *name;

	switch (kind) {
	case TC_GPK_UINT:
		tc_strbuf_addf(sb, "%" PRIu64, (uint64_t)w);
		return;
	case TC_GPK_PEER:
		w_peer(sb, w);
		return;
	case TC_GPK_REQ:
		w_req(sb, w);
		return;
	case TC_GPK_DTYPE:
		name = w > 0 && w < TC_DT_DERIVED ? tc_dtype_name((unsigned)w) : NULL;
		if (name)
			tc_strbuf_addstr(sb, name);
		else
			tc_strbuf_addf(sb, "%" PRIu64, (uint64_t)w);
		return;
	case TC_GPK_REDOP:
		name = w > 0 && w < TC_RED_USER ? tc_redop_name((unsigned)w) : NULL;
		if (name)
			tc_strbuf_addstr(sb, name);
		else
			tc_strbuf_addf(sb, "%" PRIu64, (uint64_t)w);
		return;
	default:
		tc_strbuf_addf(sb, "%" PRId64, w);
		return;
	}
}

static void w_val(struct tc_strbuf *sb, enum tc_gparam_kind kind, const struct tc_gval *v)
{
	const int64_t *w;

	if (v->n == TC_GVAL_ABSENT) {
		tc_strbuf_addch(sb, '-');
		return;
	}
	w = tc_gval_words(v);
	if (kind == TC_GPK_COMPL) {
		tc_strbuf_addch(sb, '[');
		for (uint32_t i = 0; i + 3 < v->n; i += 4) {
			if (i)
				tc_strbuf_addch(sb, ',');
			w_req(sb, w[i]);
			tc_strbuf_addch(sb, ':');
			w_peer(sb, w[i + 1]);
			tc_strbuf_addf(sb, ":%" PRId64 ":%" PRIu64, w[i + 2], (uint64_t)w[i + 3]);
		}
		tc_strbuf_addch(sb, ']');
		return;
	}
	if (kind == TC_GPK_UARRAY) {
		tc_strbuf_addch(sb, '[');
		for (uint32_t i = 0; i < v->n; i++)
			tc_strbuf_addf(sb, "%s%" PRIu64, i ? "," : "", (uint64_t)w[i]);
		tc_strbuf_addch(sb, ']');
		return;
	}
	w_word(sb, kind, v->n == 1 ? w[0] : 0);
}

static void w_seq_items(struct tc_strbuf *sb, enum tc_gparam_kind kind, const struct tc_gseq *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		const struct tc_gseq_ent *e = &s->e[i];
		if (i)
			tc_strbuf_addch(sb, ',');
		if (e->chunk) {
			tc_strbuf_addch(sb, '(');
			w_seq_items(sb, kind, e->chunk);
			tc_strbuf_addch(sb, ')');
		} else {
			w_val(sb, kind, &e->val);
		}
		if (e->reps != 1)
			tc_strbuf_addf(sb, "*%" PRIu64, e->reps);
	}
}

/* The exact part of a parameter: VARIANT|VARIANT... */
static void w_spec(struct tc_strbuf *sb, enum tc_gparam_kind kind, const struct tc_gparam *gp,
		   const struct tc_ranklist *node_ranks)
{
	bool implicit = gp->nvar == 1 && !gp->hist && rl_same(&gp->var[0].ranks, node_ranks);

	if (!gp->nvar) {
		tc_strbuf_addch(sb, '-');
		return;
	}
	for (uint32_t i = 0; i < gp->nvar; i++) {
		const struct tc_gvar *v = &gp->var[i];
		if (i)
			tc_strbuf_addch(sb, '|');
		if (v->seq) {
			tc_strbuf_addch(sb, '<');
			w_seq_items(sb, kind, v->seq);
			tc_strbuf_addch(sb, '>');
		} else {
			w_val(sb, kind, &v->val);
		}
		if (!implicit) {
			tc_strbuf_addch(sb, '@');
			w_rl(sb, &v->ranks);
		}
	}
}

static void w_hist(struct tc_strbuf *sb, enum tc_gparam_kind kind, const struct tc_hist *h)
{
	tc_strbuf_addstr(sb, " hist ranks=");
	w_rl(sb, &h->ranks);
	tc_strbuf_addf(sb, " n=%" PRIu64 " min=", h->n);
	w_word(sb, kind, h->min);
	tc_strbuf_addf(sb, "@%" PRId32 " max=", h->min_rank);
	w_word(sb, kind, h->max);
	tc_strbuf_addf(sb, "@%" PRId32 " bins=", h->max_rank);
	for (uint32_t k = 0; k < h->nbins; k++) {
		const struct tc_hbin *b = &h->bins[k];
		if (k)
			tc_strbuf_addch(sb, ',');
		w_word(sb, kind, b->lo);
		tc_strbuf_addstr(sb, "..");
		w_word(sb, kind, b->hi);
		tc_strbuf_addf(sb, ":%" PRIu64 ":%.3f:%.3f", b->n, b->mean, tc_hbin_stddev(b));
	}
}

static void w_stat(struct tc_strbuf *sb, const struct tc_rsd_stat *s)
{
	tc_strbuf_addf(sb, "%.3f/%.3f/%" PRId64 "/%" PRId64, s->mean, tc_rsd_stat_stddev(s),
		       s->min, s->max);
}

/* n=N comp=STAT comm=STAT, or with several time entries
 * comp=STAT*N@RANKS|... comm=STAT|... (comm in the same order). */
static void w_times(struct tc_strbuf *sb, const struct tc_gnode *nd)
{
	tc_strbuf_addf(sb, " n=%" PRIu64 " comp=", nd->comp.n);
	if (nd->ntimes <= 1) {
		w_stat(sb, &nd->comp);
		tc_strbuf_addstr(sb, " comm=");
		w_stat(sb, &nd->comm);
		return;
	}
	for (uint32_t i = 0; i < nd->ntimes; i++) {
		if (i)
			tc_strbuf_addch(sb, '|');
		w_stat(sb, &nd->times[i].comp);
		tc_strbuf_addf(sb, "*%" PRIu64 "@", nd->times[i].comp.n);
		w_rl(sb, &nd->times[i].ranks);
	}
	tc_strbuf_addstr(sb, " comm=");
	for (uint32_t i = 0; i < nd->ntimes; i++) {
		if (i)
			tc_strbuf_addch(sb, '|');
		w_stat(sb, &nd->times[i].comm);
	}
}

static void w_indent(struct tc_strbuf *sb, unsigned depth)
{
	for (unsigned i = 0; i < depth; i++)
		tc_strbuf_addstr(sb, "  ");
}

static void w_node(struct tc_strbuf *sb, const struct tc_gtrace *g, const struct tc_gnode *nd,
		   const struct tc_ranklist *parent, unsigned depth)
{
	w_indent(sb, depth);
	if (nd->nbody) {
		tc_strbuf_addstr(sb, "loop ");
		w_spec(sb, TC_GPK_UINT, &nd->iters, &nd->ranks);
		if (!rl_same(&nd->ranks, parent)) {
			tc_strbuf_addstr(sb, " ranks=");
			w_rl(sb, &nd->ranks);
		}
		tc_strbuf_addstr(sb, " {\n");
		if (nd->iters.hist) {
			w_indent(sb, depth + 1);
			tc_strbuf_addstr(sb, "iters");
			w_hist(sb, TC_GPK_UINT, nd->iters.hist);
			tc_strbuf_addch(sb, '\n');
		}
		for (uint32_t i = 0; i < nd->nbody; i++)
			w_node(sb, g, &nd->body[i], &nd->ranks, depth + 1);
		w_indent(sb, depth);
		tc_strbuf_addstr(sb, "}\n");
		return;
	}
	if (tc_op_name(nd->op))
		tc_strbuf_addstr(sb, tc_op_name(nd->op));
	else
		tc_strbuf_addf(sb, "op%" PRIu32, nd->op);
	tc_strbuf_addf(sb, " site=%td", tc_gtrace_site(g, nd->stack));
	if (!rl_same(&nd->ranks, parent)) {
		tc_strbuf_addstr(sb, " ranks=");
		w_rl(sb, &nd->ranks);
	}
	w_times(sb, nd);
	tc_strbuf_addch(sb, '\n');
	for (unsigned p = 0; p < TC_GP_N; p++) {
		const struct tc_gparam *gp = &nd->p[p];
		enum tc_gparam_kind kind = tc_gparam_kind(p);
		if (gp->nvar) {
			w_indent(sb, depth + 2);
			tc_strbuf_addf(sb, "%s ", tc_gparam_name(p));
			w_spec(sb, kind, gp, &nd->ranks);
			tc_strbuf_addch(sb, '\n');
		}
		if (gp->hist) {
			w_indent(sb, depth + 2);
			tc_strbuf_addstr(sb, tc_gparam_name(p));
			w_hist(sb, kind, gp->hist);
			tc_strbuf_addch(sb, '\n');
		}
	}
}

static void w_text(const struct tc_gtrace *g, struct tc_strbuf *sb)
{
	tc_strbuf_addf(sb, "%s %d\n", TC_TCT_MAGIC, TC_TCT_VERSION);
	tc_strbuf_addf(sb, "world %" PRId32 "\n", g->world_size);
	tc_strbuf_addstr(sb, "ranks ");
	w_rl(sb, &g->ranks);
	tc_strbuf_addstr(sb, "\nmode ");
	w_quoted(sb, g->mode);
	tc_strbuf_addstr(sb, "\nvariant ");
	w_quoted(sb, g->variant);
	if (g->timing != TC_GTIMING_RANK)
		tc_strbuf_addf(sb, "\ntiming %s", tc_gtiming_name(g->timing));
	tc_strbuf_addf(sb, "\nprecision %g\n", g->precision);
	tc_strbuf_addf(sb, "bins %" PRIu32 "\n", g->bins);
	tc_strbuf_addf(sb, "leads %" PRIu32 "\n", g->leads);
	tc_strbuf_addf(sb, "events %" PRIu64 "\n", g->events);
	for (size_t i = 0; i < g->nsites; i++) {
		const struct tc_gsite *s = &g->sites[i];
		tc_strbuf_addf(sb, "site %zu 0x%016" PRIx64 "\n", i, s->sig);
		for (uint32_t k = 0; k < s->nframes; k++) {
			tc_strbuf_addstr(sb, "  frame ");
			w_quoted(sb, s->frames[k].module);
			tc_strbuf_addf(sb, " 0x%" PRIx64 " ", s->frames[k].offset);
			w_quoted(sb, s->frames[k].symbol);
			tc_strbuf_addch(sb, '\n');
		}
	}
	tc_strbuf_addstr(sb, "trace\n");
	for (size_t i = 0; i < g->n; i++)
		w_node(sb, g, &g->seq[i], &g->ranks, 0);
	tc_strbuf_addstr(sb, "end\n");
}

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
		const char *name = tc_op_name(nd->op);
		char buf[32];
		if (!name) {
			snprintf(buf, sizeof(buf), "op%" PRIu32, nd->op);
			name = buf;
		}
		tc_json_set_str(o, "type", "event");
		tc_json_set_str(o, "op", name);
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

static void w_json(const struct tc_gtrace *g, struct tc_strbuf *sb)
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

void tc_tct_format(const struct tc_gtrace *g, int form, struct tc_strbuf *out)
{
	if (form == TC_TCT_BINARY)
		tc_tct_bin_format(g, out);
	else if (form == TC_TCT_JSON)
		w_json(g, out);
	else
		w_text(g, out);
}

int tc_tct_write_file(const char *path, const char *data, size_t len, struct tc_error *err)
{
	struct tc_strbuf tmp = TC_STRBUF_INIT;
	struct stat st;
	FILE *f;
	int rc = 0;

	if (!strcmp(path, "-")) {
		if (len && fwrite(data, 1, len, stdout) != len)
			return tc_error_sys(err, "standard output", "write to");
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device or a pipe (/dev/null, /dev/stdout): never replace it */
		f = fopen(path, "wb");
		if (!f)
			return tc_error_sys(err, path, "open");
		if ((len && fwrite(data, 1, len, f) != len) || fflush(f) != 0) {
			rc = tc_error_sys(err, path, "write to");
			fclose(f);
			return rc;
		}
		if (fclose(f) != 0)
			return tc_error_sys(err, path, "close");
		return 0;
	}
	tc_strbuf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp.buf, "wb");
	if (!f) {
		rc = tc_error_sys(err, tmp.buf, "create");
		goto out;
	}
	if (len && fwrite(data, 1, len, f) != len) {
		rc = tc_error_sys(err, tmp.buf, "write to");
		fclose(f);
		unlink(tmp.buf);
		goto out;
	}
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		if (errno != EINVAL && errno != EROFS) {
			rc = tc_error_sys(err, tmp.buf, "write to");
			fclose(f);
			unlink(tmp.buf);
			goto out;
		}
	}
	if (fclose(f) != 0) {
		rc = tc_error_sys(err, tmp.buf, "close");
		unlink(tmp.buf);
		goto out;
	}
	if (rename(tmp.buf, path) < 0) {
		rc = tc_error_sys(err, path, "rename to");
		unlink(tmp.buf);
	}
out:
	tc_strbuf_release(&tmp);
	return rc;
}

/* ---- reading: shared ---------------------------------------------------- */

struct rd {
	const char *name;
	struct tc_error *err;
	size_t line;            /* text: current line; JSON: 0 */
	const char *where;      /* JSON: the element being read */
	struct tc_gtrace *g;
	bool have_world, have_ranks;
};

static int rd_fail(struct rd *r, const char *fmt, ...) TC_PRINTF(2, 3);
static int rd_fail(struct rd *r, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->line)
		return tc_error_set(r->err, TC_ERR_FORMAT, r->name, -1, "line %zu: %s", r->line, msg);
	return tc_error_set(r->err, TC_ERR_FORMAT, r->name, -1, "%s%s%s",
			    r->where ? r->where : "", r->where ? ": " : "", msg);
}

/* Range of a one-word parameter as tc_event holds it. */
static bool word_in_range(unsigned p, int64_t w)
{
	switch (p) {
	case TC_GP_COMM:
	case TC_GP_DTYPE:
	case TC_GP_DTYPE_SIZE:
	case TC_GP_REDOP:
	case TC_GP_NEWCOMM:
	case TC_GP_FILE:
		return w >= 0 && w <= UINT32_MAX;
	case TC_GP_TAG:
	case TC_GP_RTAG:
	case TC_GP_ROOT:
	case TC_GP_COLOR:
	case TC_GP_KEY:
	case TC_GP_RESULT:
		return w >= INT32_MIN && w <= INT32_MAX;
	case TC_GP_PEER:
	case TC_GP_RPEER:
		if (tc_rel_is_rank(w))
			return w >= -(int64_t)INT32_MAX && w <= INT32_MAX;
		return w - TC_REL_SPECIAL >= INT32_MIN && w - TC_REL_SPECIAL < 0;
	default:
		return true;
	}
}

/* Check every word of a value of parameter p (TC_GP_N: loop count). */
const char *tc_tct_val_check(unsigned p, const struct tc_gval *v)
{
	const int64_t *w;

	if (v->n == TC_GVAL_ABSENT)
		return p == TC_GP_N ? "loop count missing" : NULL;
	w = tc_gval_words(v);
	if (p == TC_GP_N)
		return v->n == 1 && w[0] > 0 ? NULL : "loop count must be a positive integer";
	switch (tc_gparam_kind(p)) {
	case TC_GPK_COMPL:
		if (v->n % 4)
			return "bad completion list";
		for (uint32_t i = 0; i < v->n; i += 4)
			if (!word_in_range(TC_GP_PEER, w[i + 1]) || w[i + 2] < INT32_MIN ||
			    w[i + 2] > INT32_MAX)
				return "completion out of range";
		return NULL;
	case TC_GPK_UARRAY:
		return NULL;
	default:
		if (v->n != 1)
			return "expected one value";
		return word_in_range(p, w[0]) ? NULL : "value out of range";
	}
}

bool tc_tct_occ_add_ok(uint64_t len, uint64_t add, uint64_t reps)
{
	if (reps && add > MAX_OCC / reps)
		return false;
	return len + add * reps <= MAX_OCC;
}

static int lookup_name(const char *s, bool dtype)
{
	unsigned lim = dtype ? TC_DT_DERIVED : TC_RED_USER;

	for (unsigned i = 1; i < lim; i++) {
		const char *n = dtype ? tc_dtype_name(i) : tc_redop_name(i);
		if (n && !strcmp(n, s))
			return (int)i;
	}
	return -1;
}

/* The parameter whose histogram or variants a line fills (TC_GP_N: a
 * loop count). */
static bool kind_of(unsigned p, enum tc_gparam_kind *kind)
{
	if (p == TC_GP_N) {
		*kind = TC_GPK_UINT;
		return true;
	}
	*kind = tc_gparam_kind(p);
	return p < TC_GP_N;
}

/* A histogram read from a file is checked for consistency. */
const char *tc_tct_hist_check(const struct tc_hist *h)
{
	uint64_t total = 0;

	if (!h->nbins || h->nbins > TC_HIST_BINS_MAX)
		return "bad number of histogram bins";
	for (uint32_t k = 0; k < h->nbins; k++) {
		const struct tc_hbin *b = &h->bins[k];
		if (b->lo > b->hi || !b->n || (k && h->bins[k - 1].hi >= b->lo))
			return "histogram bins out of order";
		if (!isfinite(b->mean) || !isfinite(b->m2) || b->m2 < 0)
			return "bad histogram bin statistics";
		if (b->n > UINT64_MAX - total)
			return "histogram count overflow";
		total += b->n;
	}
	if (total != h->n)
		return "histogram bin counts do not add up";
	if (h->min > h->max || h->min > h->bins[0].lo || h->max < h->bins[h->nbins - 1].hi)
		return "histogram min/max inconsistent";
	if (!h->ranks.count)
		return "histogram without ranks";
	return NULL;
}


/* ---- reading: text ------------------------------------------------------ */

struct lx {
	const char *p;
};

static bool is_delim(int c)
{
	return c == '\0' || c == ',' || c == '>' || c == ')' || c == '*' || c == '@' ||
	       c == '|' || c == ' ' || c == '\t' || c == ']' || c == ':' || c == '.';
}

static bool lx_eat(struct lx *l, char c)
{
	if (*l->p != c)
		return false;
	l->p++;
	return true;
}

static bool lx_lit(struct lx *l, const char *s)
{
	size_t n = strlen(s);

	if (strncmp(l->p, s, n))
		return false;
	l->p += n;
	return true;
}

static bool lx_uint(struct lx *l, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = l->p;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	l->p = p;
	*out = v;
	return true;
}

static bool lx_int(struct lx *l, int64_t *out)
{
	struct lx t = *l;
	bool neg = false;
	uint64_t u;

	if (*t.p == '-' || *t.p == '+')
		neg = *t.p++ == '-';
	if (!lx_uint(&t, &u))
		return false;
	if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	*l = t;
	return true;
}

static bool lx_hex(struct lx *l, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = l->p;
	int nd = 0;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return false;
	for (p += 2; nd < 17; p++, nd++) {
		int c = *p, d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		if (nd == 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!nd)
		return false;
	l->p = p;
	*out = v;
	return true;
}

static bool lx_double(struct lx *l, double *out)
{
	char *end;
	double v;

	if (!*l->p || *l->p == ' ' || *l->p == '\t')
		return false;
	errno = 0;
	v = strtod(l->p, &end);
	if (end == l->p || errno || !isfinite(v))
		return false;
	l->p = end;
	*out = v;
	return true;
}

/* A word of letters, digits and '_' into buf (bounded). */
static bool lx_word(struct lx *l, char *buf, size_t cap)
{
	size_t n = 0;

	while ((*l->p >= 'a' && *l->p <= 'z') || (*l->p >= 'A' && *l->p <= 'Z') ||
	       (*l->p >= '0' && *l->p <= '9') || *l->p == '_') {
		if (n + 1 >= cap)
			return false;
		buf[n++] = *l->p++;
	}
	buf[n] = '\0';
	return n > 0;
}

static void lx_ws(struct lx *l)
{
	while (*l->p == ' ' || *l->p == '\t')
		l->p++;
}

static bool lx_end(struct lx *l)
{
	lx_ws(l);
	return !*l->p;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A quoted string (returns new) or NULL. */
static char *lx_quoted(struct lx *l)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	const char *p = l->p;

	if (*p++ != '"')
		return NULL;
	tc_strbuf_addstr(&sb, "");
	for (;;) {
		int c = (unsigned char)*p++;
		if (!c) {
			tc_strbuf_release(&sb);
			return NULL;
		}
		if (c == '"')
			break;
		if (c == '\\') {
			int e = *p++;
			if (e == 'n') {
				c = '\n';
			} else if (e == 't') {
				c = '\t';
			} else if (e == '"' || e == '\\') {
				c = e;
			} else if (e == 'x' && hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
				c = hexval(p[0]) * 16 + hexval(p[1]);
				p += 2;
				if (!c) {
					tc_strbuf_release(&sb);
					return NULL;
				}
			} else {
				tc_strbuf_release(&sb);
				return NULL;
			}
		}
		tc_strbuf_addch(&sb, c);
	}
	l->p = p;
	return tc_strbuf_detach(&sb, NULL);
}

/* A ranklist "[...]". */
static int t_rl(struct rd *r, struct lx *l, struct tc_ranklist *out)
{
	struct rl_build b = { NULL, 0, 0, r->g->world_size };
	const char *msg;

	tc_ranklist_init(out);
	if (!lx_eat(l, '['))
		return rd_fail(r, "expected a ranklist '[...]'");
	if (!lx_eat(l, ']')) {
		for (;;) {
			struct rl_item it;
			int64_t last;
			memset(&it, 0, sizeof(it));
			if (!lx_int(l, &it.start))
				goto bad;
			it.len = 1;
			it.stride = 1;
			if (lx_eat(l, '-')) {
				if (!lx_int(l, &last) || last < it.start)
					goto bad;
				if (lx_eat(l, '/') && (!lx_int(l, &it.stride) || it.stride < 1))
					goto bad;
				if ((last - it.start) % it.stride)
					goto bad;
				it.len = (uint64_t)((last - it.start) / it.stride) + 1;
			}
			while (lx_eat(l, 'x')) {
				if (it.ndim == RL_DIMS || !lx_uint(l, &it.n[it.ndim]) ||
				    !lx_eat(l, '+') || !lx_int(l, &it.d[it.ndim]))
					goto bad;
				it.ndim++;
			}
			if ((msg = tc_tct_rl_build_add(&b, &it))) {
				free(b.v);
				return rd_fail(r, "%s", msg);
			}
			if (lx_eat(l, ']'))
				break;
			if (!lx_eat(l, ','))
				goto bad;
		}
	}
	if ((msg = tc_tct_rl_build_finish(&b, out)))
		return rd_fail(r, "%s", msg);
	return 0;
bad:
	free(b.v);
	return rd_fail(r, "malformed ranklist");
}

static bool t_peer(struct lx *l, int64_t *out)
{
	char w[16];
	struct lx t = *l;

	if (lx_eat(&t, '!')) {
		int64_t v;
		if (!lx_int(&t, &v) || v >= 0 || v < INT32_MIN)
			return false;
		*out = TC_REL_SPECIAL + v;
		*l = t;
		return true;
	}
	if (lx_word(&t, w, sizeof(w)) && (w[0] < '0' || w[0] > '9')) {
		if (!strcmp(w, "none"))
			*out = TC_REL_SPECIAL + TC_PEER_NONE;
		else if (!strcmp(w, "any"))
			*out = TC_REL_SPECIAL + TC_ANY_SOURCE;
		else if (!strcmp(w, "null"))
			*out = TC_REL_SPECIAL + TC_PROC_NULL;
		else
			return false;
		*l = t;
		return true;
	}
	if (!lx_int(l, out) || *out < -(int64_t)INT32_MAX || *out > INT32_MAX)
		return false;
	return true;
}

static bool t_req(struct lx *l, int64_t *out)
{
	if (lx_lit(l, "none")) {
		*out = TC_RSD_NOREQ;
		return true;
	}
	return lx_int(l, out) && *out != TC_RSD_NOREQ;
}

/* One word of a one-word kind. */
static bool t_word(struct lx *l, enum tc_gparam_kind kind, int64_t *out)
{
	uint64_t u;
	char w[64];

	switch (kind) {
	case TC_GPK_UINT:
		if (!lx_uint(l, &u))
			return false;
		*out = (int64_t)u;
		return true;
	case TC_GPK_PEER:
		return t_peer(l, out);
	case TC_GPK_REQ:
		return t_req(l, out);
	case TC_GPK_DTYPE:
	case TC_GPK_REDOP:
		if (*l->p >= '0' && *l->p <= '9') {
			if (!lx_uint(l, &u) || u > UINT32_MAX)
				return false;
			*out = (int64_t)u;
			return true;
		}
		{
			int v;
			if (!lx_word(l, w, sizeof(w)))
				return false;
			v = lookup_name(w, kind == TC_GPK_DTYPE);
			if (v < 0)
				return false;
			*out = v;
			return true;
		}
	default:
		return lx_int(l, out);
	}
}

/* A value of kind into out. */
static int t_val(struct rd *r, struct lx *l, enum tc_gparam_kind kind, struct tc_gval *out)
{
	int64_t *w = NULL;
	size_t n = 0, alloc = 0;

	out->n = TC_GVAL_ABSENT;
	out->w = 0;
	out->v = NULL;
	if (l->p[0] == '-' && is_delim((unsigned char)l->p[1])) {
		l->p++;
		return 0;
	}
	if (kind == TC_GPK_COMPL || kind == TC_GPK_UARRAY) {
		if (!lx_eat(l, '['))
			return rd_fail(r, "expected '[' for an array value");
		if (!lx_eat(l, ']')) {
			for (;;) {
				int64_t x[4];
				size_t k = kind == TC_GPK_COMPL ? 4 : 1;
				uint64_t u;
				if (kind == TC_GPK_COMPL) {
					if (!t_req(l, &x[0]) || !lx_eat(l, ':') || !t_peer(l, &x[1]) ||
					    !lx_eat(l, ':') || !lx_int(l, &x[2]) || !lx_eat(l, ':') ||
					    !lx_uint(l, &u))
						goto bad;
					x[3] = (int64_t)u;
				} else {
					if (!lx_uint(l, &u))
						goto bad;
					x[0] = (int64_t)u;
				}
				if (n + k > MAX_WORDS)
					goto bad;
				TC_ALLOC_GROW(w, n + k, alloc);
				memcpy(w + n, x, k * sizeof(int64_t));
				n += k;
				if (lx_eat(l, ']'))
					break;
				if (!lx_eat(l, ','))
					goto bad;
			}
		}
		tc_gval_set(out, (uint32_t)n, w);
		free(w);
		return 0;
	}
	{
		int64_t x;
		if (!t_word(l, kind, &x))
			return rd_fail(r, "malformed value");
		tc_gval_set(out, 1, &x);
	}
	return 0;
bad:
	free(w);
	return rd_fail(r, "malformed array value");
}

static int t_reps(struct rd *r, struct lx *l, uint64_t *reps)
{
	*reps = 1;
	if (lx_eat(l, '*') && (!lx_uint(l, reps) || !*reps))
		return rd_fail(r, "bad repetition count");
	return 0;
}

/* Items of a value sequence, up to the closing '>' or ')'. */
static int t_seq(struct rd *r, struct lx *l, unsigned p, struct tc_gseq *s, int depth)
{
	enum tc_gparam_kind kind;

	kind_of(p, &kind);
	if (depth > MAX_SEQ_DEPTH)
		return rd_fail(r, "value sequence nested too deeply");
	for (;;) {
		uint64_t reps;
		const char *msg;
		if (lx_eat(l, '(')) {
			struct tc_gseq *c = tc_gseq_new();
			if (t_seq(r, l, p, c, depth + 1) || !lx_eat(l, ')') || t_reps(r, l, &reps)) {
				tc_gseq_free(c);
				return r->err && r->err->code ? r->err->code : rd_fail(r, "expected ')'");
			}
			if (!c->len || !tc_tct_occ_add_ok(s->len, c->len, reps)) {
				tc_gseq_free(c);
				return rd_fail(r, "value sequence too long");
			}
			tc_gseq_add_chunk(s, c, reps);
		} else {
			struct tc_gval v;
			if (t_val(r, l, kind, &v))
				return TC_ERR_FORMAT;
			if ((msg = tc_tct_val_check(p, &v)) || t_reps(r, l, &reps) ||
			    !tc_tct_occ_add_ok(s->len, 1, reps)) {
				tc_gval_release(&v);
				return r->err && r->err->code ? r->err->code
							      : rd_fail(r, "%s", msg ? msg : "value sequence too long");
			}
			tc_gseq_add_val(s, &v, reps);
			tc_gval_release(&v);
		}
		if (!lx_eat(l, ','))
			return 0;
	}
}

static struct tc_gvar *gp_push(struct tc_gparam *gp)
{
	struct tc_gvar *v;

	if (gp->nvar == UINT32_MAX)
		return NULL;
	gp->var = tc_xrealloc(gp->var, tc_st_mult(gp->nvar + 1, sizeof(*gp->var)));
	v = &gp->var[gp->nvar++];
	memset(v, 0, sizeof(*v));
	v->val.n = TC_GVAL_ABSENT;
	return v;
}

/* VARIANT|VARIANT... of parameter p (TC_GP_N: loop count). */
static int t_spec(struct rd *r, struct lx *l, unsigned p, struct tc_gparam *gp,
		  const struct tc_ranklist *node_ranks)
{
	enum tc_gparam_kind kind;

	kind_of(p, &kind);
	if (p == TC_GP_N && l->p[0] == '-' && is_delim((unsigned char)l->p[1])) {
		l->p++;
		return 0;
	}
	for (;;) {
		struct tc_gvar *v = gp_push(gp);
		const char *msg;
		if (lx_eat(l, '<')) {
			v->seq = tc_gseq_new();
			if (t_seq(r, l, p, v->seq, 0))
				return TC_ERR_FORMAT;
			if (!lx_eat(l, '>'))
				return rd_fail(r, "expected '>' after a value sequence");
			if (!v->seq->len)
				return rd_fail(r, "empty value sequence");
		} else {
			if (t_val(r, l, kind, &v->val))
				return TC_ERR_FORMAT;
			if ((msg = tc_tct_val_check(p, &v->val)))
				return rd_fail(r, "%s", msg);
		}
		if (lx_eat(l, '@')) {
			if (t_rl(r, l, &v->ranks))
				return TC_ERR_FORMAT;
		} else {
			tc_granks_copy(&v->ranks, node_ranks);
		}
		if (!lx_eat(l, '|'))
			return 0;
	}
}

/* key=value attributes: returns the value part after "key=" or NULL. */
static bool t_attr(struct lx *l, const char *key)
{
	size_t n = strlen(key);

	lx_ws(l);
	if (strncmp(l->p, key, n) || l->p[n] != '=')
		return false;
	l->p += n + 1;
	return true;
}

/* " hist ranks=RL n=N min=V@R max=V@R bins=..." */
static int t_hist(struct rd *r, struct lx *l, unsigned p, struct tc_hist **out)
{
	struct tc_hist *h = tc_xcalloc(1, sizeof(*h));
	enum tc_gparam_kind kind;
	const char *msg;
	int64_t x;

	kind_of(p, &kind);
	*out = h;
	if (!t_attr(l, "ranks") || t_rl(r, l, &h->ranks))
		return r->err && r->err->code ? r->err->code : rd_fail(r, "histogram: expected ranks=");
	if (!t_attr(l, "n") || !lx_uint(l, &h->n))
		return rd_fail(r, "histogram: expected n=");
	if (!t_attr(l, "min") || !t_word(l, kind, &h->min) || !lx_eat(l, '@') || !lx_int(l, &x) ||
	    x < 0 || x >= r->g->world_size)
		return rd_fail(r, "histogram: expected min=VALUE@RANK");
	h->min_rank = (int32_t)x;
	if (!t_attr(l, "max") || !t_word(l, kind, &h->max) || !lx_eat(l, '@') || !lx_int(l, &x) ||
	    x < 0 || x >= r->g->world_size)
		return rd_fail(r, "histogram: expected max=VALUE@RANK");
	h->max_rank = (int32_t)x;
	if (!t_attr(l, "bins"))
		return rd_fail(r, "histogram: expected bins=");
	for (;;) {
		struct tc_hbin b;
		double sd;
		if (h->nbins >= TC_HIST_BINS_MAX)
			return rd_fail(r, "histogram: too many bins");
		if (!t_word(l, kind, &b.lo) || !lx_lit(l, "..") || !t_word(l, kind, &b.hi) ||
		    !lx_eat(l, ':') || !lx_uint(l, &b.n) || !lx_eat(l, ':') ||
		    !lx_double(l, &b.mean) || !lx_eat(l, ':') || !lx_double(l, &sd) || sd < 0)
			return rd_fail(r, "histogram: malformed bin");
		b.m2 = sd * sd * (double)b.n;
		h->bins = tc_xrealloc(h->bins, tc_st_mult(h->nbins + 1, sizeof(*h->bins)));
		h->bins[h->nbins++] = b;
		if (!lx_eat(l, ','))
			break;
	}
	if (!lx_end(l))
		return rd_fail(r, "histogram: unexpected text at the end of the line");
	if ((msg = tc_tct_hist_check(h)))
		return rd_fail(r, "%s", msg);
	return 0;
}

/* A frame of the node stack: the nodes of one body. */
struct pframe {
	struct tc_gnode *nodes;
	size_t n, alloc;
	struct tc_gnode loop;   /* frames > 0: the loop whose body this is */
	bool spec_seen[TC_GP_N];
	bool hist_seen[TC_GP_N + 1];
};

static void pframe_release(struct pframe *f)
{
	for (size_t i = 0; i < f->n; i++)
		tc_tct_node_free_parts(&f->nodes[i]);
	free(f->nodes);
	tc_tct_node_free_parts(&f->loop);
}

static struct tc_gnode *pframe_push(struct pframe *f)
{
	struct tc_gnode *nd;

	TC_ALLOC_GROW(f->nodes, f->n + 1, f->alloc);
	nd = &f->nodes[f->n++];
	memset(nd, 0, sizeof(*nd));
	memset(f->spec_seen, 0, sizeof(f->spec_seen));
	memset(f->hist_seen + 0, 0, TC_GP_N * sizeof(bool));
	return nd;
}

static bool t_stat_sd(struct lx *l, struct tc_rsd_stat *s, double *sd)
{
	return lx_double(l, &s->mean) && lx_eat(l, '/') && lx_double(l, sd) && *sd >= 0 &&
	       lx_eat(l, '/') && lx_int(l, &s->min) && lx_eat(l, '/') && lx_int(l, &s->max);
}

static void stat_count(struct tc_rsd_stat *s, double sd, uint64_t n)
{
	s->n = n;
	s->m2 = sd * sd * (double)n;
}

static bool t_stat(struct lx *l, struct tc_rsd_stat *s, uint64_t n)
{
	double sd;

	if (!t_stat_sd(l, s, &sd))
		return false;
	stat_count(s, sd, n);
	return true;
}

/* Whether child's ranks lie within parent's. */
bool tc_tct_rl_within(const struct tc_ranklist *child, const struct tc_ranklist *parent)
{
	struct tc_ranklist u;
	bool ok;

	tc_ranklist_init(&u);
	tc_granks_union(&u, parent, child);
	ok = u.count == parent->count;
	tc_ranklist_release(&u);
	return ok;
}

static struct tc_gtime *times_push(struct tc_gnode *nd)
{
	struct tc_gtime *t;

	if (nd->ntimes == UINT32_MAX)
		return NULL;
	nd->times = tc_xrealloc(nd->times, tc_st_mult((size_t)nd->ntimes + 1, sizeof(*nd->times)));
	t = &nd->times[nd->ntimes++];
	memset(t, 0, sizeof(*t));
	tc_ranklist_init(&t->ranks);
	return t;
}

/* Time entries of an event node (read after its ranks and n): non-empty,
 * disjoint, covering the node's ranks, their counts adding up to n; the
 * node's comp and comm become their merge. */
const char *tc_tct_times_check(struct tc_gnode *nd, uint64_t n)
{
	struct tc_ranklist u;
	uint64_t sum = 0;
	const char *msg = NULL;

	tc_ranklist_init(&u);
	for (uint32_t i = 0; i < nd->ntimes && !msg; i++) {
		uint64_t before = u.count;
		if (!nd->times[i].ranks.count)
			msg = "time entry without ranks";
		else if (!tc_tct_rl_within(&nd->times[i].ranks, &nd->ranks))
			msg = "time entry ranks outside the node's ranks";
		tc_granks_union(&u, &u, &nd->times[i].ranks);
		if (!msg && u.count != before + nd->times[i].ranks.count)
			msg = "time entries share ranks";
		if (!msg && sum + nd->times[i].comp.n < sum)
			msg = "time entry counts overflow";
		sum += nd->times[i].comp.n;
	}
	if (!msg && u.count != nd->ranks.count)
		msg = "time entries do not cover the node's ranks";
	if (!msg && sum != n)
		msg = "time entry counts do not add up to n";
	tc_ranklist_release(&u);
	if (!msg)
		tc_gnode_times_total(nd);
	return msg;
}

/* comp=STAT comm=STAT, or comp=STAT*N@RANKS|... comm=STAT|... */
static int t_times(struct rd *r, struct lx *l, struct tc_gnode *nd, uint64_t n)
{
	const char *msg;
	double sd;

	if (!t_attr(l, "comp") || !t_stat_sd(l, &nd->comp, &sd))
		return rd_fail(r, "event: expected comp=MEAN/SD/MIN/MAX");
	if (!lx_eat(l, '*')) {
		stat_count(&nd->comp, sd, n);
		if (!t_attr(l, "comm") || !t_stat(l, &nd->comm, n))
			return rd_fail(r, "event: expected comm=MEAN/SD/MIN/MAX");
		return 0;
	}
	for (;;) {
		struct tc_gtime *t = times_push(nd);
		uint64_t tn;
		if (!t)
			return rd_fail(r, "event: too many time entries");
		t->comp = nd->comp;
		if (!lx_uint(l, &tn) || !lx_eat(l, '@'))
			return rd_fail(r, "event: expected comp=MEAN/SD/MIN/MAX*N@RANKS");
		stat_count(&t->comp, sd, tn);
		if (t_rl(r, l, &t->ranks))
			return TC_ERR_FORMAT;
		if (!lx_eat(l, '|'))
			break;
		if (!t_stat_sd(l, &nd->comp, &sd) || !lx_eat(l, '*'))
			return rd_fail(r, "event: expected comp=MEAN/SD/MIN/MAX*N@RANKS");
	}
	if (nd->ntimes < 2)
		return rd_fail(r, "event: a single time entry is written without ranks");
	if (!t_attr(l, "comm"))
		return rd_fail(r, "event: expected comm=MEAN/SD/MIN/MAX|...");
	for (uint32_t i = 0; i < nd->ntimes; i++) {
		if ((i && !lx_eat(l, '|')) || !t_stat(l, &nd->times[i].comm, nd->times[i].comp.n))
			return rd_fail(r, "event: expected one comm=MEAN/SD/MIN/MAX per time entry");
	}
	if ((msg = tc_tct_times_check(nd, n)))
		return rd_fail(r, "event: %s", msg);
	return 0;
}

static int t_node_ranks(struct rd *r, struct lx *l, struct tc_gnode *nd,
			const struct tc_ranklist *parent)
{
	if (t_attr(l, "ranks")) {
		if (t_rl(r, l, &nd->ranks))
			return TC_ERR_FORMAT;
		if (!nd->ranks.count)
			return rd_fail(r, "node without ranks");
		if (!tc_tct_rl_within(&nd->ranks, parent))
			return rd_fail(r, "node ranks outside the enclosing ranks");
		return 0;
	}
	tc_granks_copy(&nd->ranks, parent);
	return 0;
}

struct tparse {
	struct rd *r;
	struct pframe *fr;
	size_t depth, afr;       /* frames in use: depth + 1 */
};

static const struct tc_ranklist *frame_ranks(struct tparse *t)
{
	return t->depth ? &t->fr[t->depth].loop.ranks : &t->r->g->ranks;
}

static int t_event_line(struct tparse *t, struct lx *l, unsigned op)
{
	struct rd *r = t->r;
	struct pframe *f = &t->fr[t->depth];
	struct tc_gnode *nd = pframe_push(f);
	uint64_t site, n;

	nd->op = op;
	nd->p = tc_xcalloc(TC_GP_N, sizeof(*nd->p));
	if (!t_attr(l, "site") || !lx_uint(l, &site))
		return rd_fail(r, "event: expected site=N");
	if (site >= r->g->nsites)
		return rd_fail(r, "event: site %" PRIu64 " is not in the site table", site);
	nd->stack = r->g->sites[site].sig;
	if (t_node_ranks(r, l, nd, frame_ranks(t)))
		return TC_ERR_FORMAT;
	if (!t_attr(l, "n") || !lx_uint(l, &n))
		return rd_fail(r, "event: expected n=N");
	if (t_times(r, l, nd, n))
		return TC_ERR_FORMAT;
	if (!lx_end(l))
		return rd_fail(r, "event: unexpected text at the end of the line");
	return 0;
}

static int t_loop_line(struct tparse *t, struct lx *l)
{
	struct rd *r = t->r;
	struct tc_gnode *nd;
	struct tc_ranklist tmp;
	struct lx save;

	if (t->depth + 1 >= MAX_DEPTH)
		return rd_fail(r, "loops nested too deeply");
	TC_ALLOC_GROW(t->fr, t->depth + 2, t->afr);
	memset(&t->fr[t->depth + 1], 0, sizeof(t->fr[0]));
	t->depth++;
	nd = &t->fr[t->depth].loop;
	/* the spec may omit ranklists that equal the loop's own ranks, which
	 * come after it: read the ranks first */
	lx_ws(l);
	save = *l;
	while (*l->p && *l->p != ' ' && *l->p != '\t')
		l->p++;
	if (t_node_ranks(r, l, nd, t->depth > 1 ? &t->fr[t->depth - 1].loop.ranks : &r->g->ranks))
		return TC_ERR_FORMAT;
	lx_ws(l);
	if (!lx_eat(l, '{'))
		return rd_fail(r, "loop: expected '{'");
	if (!lx_end(l))
		return rd_fail(r, "loop: unexpected text after '{'");
	tmp = nd->ranks;
	if (t_spec(r, &save, TC_GP_N, &nd->iters, &tmp))
		return TC_ERR_FORMAT;
	if (*save.p && *save.p != ' ' && *save.p != '\t')
		return rd_fail(r, "loop: malformed iteration count");
	return 0;
}

static int t_close(struct tparse *t)
{
	struct rd *r = t->r;
	struct pframe *f, *parent;
	struct tc_gnode *nd;

	if (!t->depth)
		return rd_fail(r, "'}' without a loop");
	f = &t->fr[t->depth];
	if (!f->n)
		return rd_fail(r, "empty loop body");
	if (!f->loop.iters.nvar && !f->loop.iters.hist)
		return rd_fail(r, "loop without an iteration count");
	if (f->n > UINT32_MAX)
		return rd_fail(r, "loop body too long");
	parent = &t->fr[t->depth - 1];
	nd = pframe_push(parent);
	*nd = f->loop;
	nd->body = f->nodes;
	nd->nbody = (uint32_t)f->n;
	memset(f, 0, sizeof(*f));
	t->depth--;
	return 0;
}

/* A parameter line "NAME SPEC" or "NAME hist ..." (NAME "iters" for the
 * loop of the current frame). */
static int t_param_line(struct tparse *t, struct lx *l, const char *name)
{
	struct rd *r = t->r;
	struct pframe *f = &t->fr[t->depth];
	struct tc_gnode *nd;
	struct tc_gparam *gp;
	unsigned p;
	int pi;

	if (!strcmp(name, "iters")) {
		if (!t->depth)
			return rd_fail(r, "'iters' outside a loop");
		nd = &f->loop;
		gp = &nd->iters;
		p = TC_GP_N;
	} else {
		pi = tc_gparam_from_name(name);
		if (pi < 0)
			return rd_fail(r, "unknown keyword '%s'", name);
		if (!f->n || f->nodes[f->n - 1].nbody || !f->nodes[f->n - 1].p)
			return rd_fail(r, "parameter '%s' not after an event", name);
		nd = &f->nodes[f->n - 1];
		p = (unsigned)pi;
		gp = &nd->p[p];
	}
	lx_ws(l);
	if (lx_lit(l, "hist") && (*l->p == ' ' || *l->p == '\t')) {
		if (f->hist_seen[p])
			return rd_fail(r, "histogram of '%s' given twice", name);
		f->hist_seen[p] = true;
		if (t_hist(r, l, p, &gp->hist))
			return TC_ERR_FORMAT;
		if (!tc_tct_rl_within(&gp->hist->ranks, &nd->ranks))
			return rd_fail(r, "histogram ranks outside the node's ranks");
		return 0;
	}
	if (p == TC_GP_N)
		return rd_fail(r, "'iters' line must be a histogram");
	if (f->spec_seen[p])
		return rd_fail(r, "parameter '%s' given twice", name);
	f->spec_seen[p] = true;
	if (t_spec(r, l, p, gp, &nd->ranks))
		return TC_ERR_FORMAT;
	if (!lx_end(l))
		return rd_fail(r, "unexpected text after the value of '%s'", name);
	return 0;
}

static int t_header_line(struct rd *r, struct lx *l, const char *key, struct tc_gsite **cur)
{
	struct tc_gtrace *g = r->g;
	int64_t x;
	uint64_t u;
	char *s;

	lx_ws(l);
	if (!strcmp(key, "world")) {
		if (r->have_world || !lx_int(l, &x) || x < 1 || x > MAX_WORLD)
			return rd_fail(r, "bad world size");
		g->world_size = (int32_t)x;
		r->have_world = true;
	} else if (!strcmp(key, "ranks")) {
		if (!r->have_world || r->have_ranks)
			return rd_fail(r, "'ranks' must follow 'world' once");
		if (t_rl(r, l, &g->ranks))
			return TC_ERR_FORMAT;
		if (!g->ranks.count)
			return rd_fail(r, "the trace covers no rank");
		r->have_ranks = true;
	} else if (!strcmp(key, "mode") || !strcmp(key, "variant")) {
		if (!(s = lx_quoted(l)))
			return rd_fail(r, "'%s': expected a quoted string", key);
		if (!strcmp(key, "mode"))
			snprintf(g->mode, sizeof(g->mode), "%s", s);
		else
			snprintf(g->variant, sizeof(g->variant), "%s", s);
		free(s);
	} else if (!strcmp(key, "timing")) {
		char w[16];
		int t;
		if (!lx_word(l, w, sizeof(w)) || (t = tc_gtiming_from_name(w)) < 0)
			return rd_fail(r, "timing: expected rank, stats or none");
		g->timing = (enum tc_gtiming)t;
	} else if (!strcmp(key, "precision")) {
		if (!lx_double(l, &g->precision) || g->precision < 0 || g->precision > 100)
			return rd_fail(r, "bad precision");
	} else if (!strcmp(key, "bins")) {
		if (!lx_uint(l, &u) || !u || u > TC_HIST_BINS_MAX)
			return rd_fail(r, "bad bin count");
		g->bins = (uint32_t)u;
	} else if (!strcmp(key, "leads")) {
		if (!lx_uint(l, &u) || u > UINT32_MAX)
			return rd_fail(r, "bad lead count");
		g->leads = (uint32_t)u;
	} else if (!strcmp(key, "events")) {
		if (!lx_uint(l, &g->events))
			return rd_fail(r, "bad event count");
	} else if (!strcmp(key, "site")) {
		uint64_t sig;
		if (!lx_uint(l, &u) || u != g->nsites)
			return rd_fail(r, "site numbers must count up from 0");
		lx_ws(l);
		if (!lx_hex(l, &sig))
			return rd_fail(r, "site: expected a 0x signature");
		if (g->nsites && g->sites[g->nsites - 1].sig >= sig)
			return rd_fail(r, "sites must be sorted by signature");
		if (g->nsites >= MAX_SITES)
			return rd_fail(r, "too many sites");
		tc_gtrace_set_site(g, sig, NULL, 0);
		*cur = &g->sites[g->nsites - 1];
	} else if (!strcmp(key, "frame")) {
		struct tc_gframe fr;
		struct tc_gsite *st = *cur;
		if (!st)
			return rd_fail(r, "'frame' before any 'site'");
		if (st->nframes >= MAX_FRAMES)
			return rd_fail(r, "too many frames");
		memset(&fr, 0, sizeof(fr));
		if (!(fr.module = lx_quoted(l)))
			return rd_fail(r, "frame: expected a quoted module");
		lx_ws(l);
		if (!lx_hex(l, &fr.offset)) {
			free(fr.module);
			return rd_fail(r, "frame: expected a 0x offset");
		}
		lx_ws(l);
		if (!(fr.symbol = lx_quoted(l))) {
			free(fr.module);
			return rd_fail(r, "frame: expected a quoted symbol");
		}
		st->frames = tc_xrealloc(st->frames, tc_st_mult(st->nframes + 1, sizeof(*st->frames)));
		st->frames[st->nframes++] = fr;
	} else {
		return rd_fail(r, "unknown header keyword '%s'", key);
	}
	if (!lx_end(l))
		return rd_fail(r, "unexpected text at the end of the line");
	return 0;
}

static int parse_text(struct rd *r, const char *buf, size_t len)
{
	struct tparse t = { r, NULL, 0, 0 };
	struct tc_gsite *cur = NULL;
	enum { HEAD, BODY, DONE } state = HEAD;
	char *line = NULL;
	size_t aline = 0, pos = 0;
	bool magic = false;
	int rc = 0;

	TC_ALLOC_GROW(t.fr, 1, t.afr);
	memset(&t.fr[0], 0, sizeof(t.fr[0]));
	while (pos < len && !rc) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		struct lx l;
		char word[64];

		r->line++;
		if (n > MAX_LINE) {
			rc = rd_fail(r, "line too long");
			break;
		}
		if (memchr(buf + pos, '\0', n)) {
			rc = rd_fail(r, "NUL byte in the text");
			break;
		}
		TC_ALLOC_GROW(line, n + 1, aline);
		memcpy(line, buf + pos, n);
		line[n] = '\0';
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		pos += n + (nl ? 1 : 0);
		l.p = line;
		lx_ws(&l);
		if (!*l.p || *l.p == '#')
			continue;
		if (state == DONE) {
			rc = rd_fail(r, "text after 'end'");
			break;
		}
		if (!magic) {
			uint64_t v;
			if (!lx_lit(&l, TC_TCT_MAGIC) || !(lx_ws(&l), lx_uint(&l, &v))) {
				rc = rd_fail(r, "not a tracecluster global trace (expected '%s 1')",
					     TC_TCT_MAGIC);
				break;
			}
			if (v != TC_TCT_VERSION) {
				rc = tc_error_set(r->err, TC_ERR_VERSION, r->name, -1,
						  "line %zu: format version %" PRIu64
						  " is not supported (this is version %d)",
						  r->line, v, TC_TCT_VERSION);
				break;
			}
			if (!lx_end(&l))
				rc = rd_fail(r, "unexpected text after the version");
			magic = true;
			continue;
		}
		if (*l.p == '}') {
			l.p++;
			rc = state != BODY ? rd_fail(r, "'}' outside the trace") : t_close(&t);
			if (!rc && !lx_end(&l))
				rc = rd_fail(r, "unexpected text after '}'");
			continue;
		}
		if (!lx_word(&l, word, sizeof(word))) {
			rc = rd_fail(r, "expected a keyword");
			break;
		}
		if (state == HEAD) {
			if (!strcmp(word, "trace")) {
				if (!r->have_world || !r->have_ranks)
					rc = rd_fail(r, "'world' and 'ranks' must come before 'trace'");
				else if (!lx_end(&l))
					rc = rd_fail(r, "unexpected text after 'trace'");
				state = BODY;
				continue;
			}
			rc = t_header_line(r, &l, word, &cur);
			continue;
		}
		if (!strcmp(word, "end")) {
			if (t.depth)
				rc = rd_fail(r, "'end' inside a loop");
			else if (!lx_end(&l))
				rc = rd_fail(r, "unexpected text after 'end'");
			state = DONE;
			continue;
		}
		if (!strcmp(word, "loop")) {
			rc = t_loop_line(&t, &l);
			continue;
		}
		{
			unsigned op = tc_op_from_name(word);
			uint64_t num;
			if (!op && word[0] == 'o' && word[1] == 'p') {
				struct lx d = { word + 2 };
				if (lx_uint(&d, &num) && !*d.p && num && num < TC_OP_MAX)
					op = (unsigned)num;
			}
			if (op && (!strncmp(word, "MPI_", 4) || !strncmp(word, "op", 2))) {
				rc = t_event_line(&t, &l, op);
				continue;
			}
		}
		rc = t_param_line(&t, &l, word);
	}
	if (!rc && state != DONE) {
		r->line++;
		rc = rd_fail(r, magic ? "truncated: missing 'end'" : "empty file");
	}
	if (!rc) {
		r->g->seq = t.fr[0].nodes;
		r->g->n = r->g->alloc = t.fr[0].n;
		t.fr[0].nodes = NULL;
		t.fr[0].n = 0;
	}
	for (size_t k = 0; k <= t.depth; k++)
		pframe_release(&t.fr[k]);
	free(t.fr);
	free(line);
	return rc;
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
		return rd_fail(r, "expected a ranklist array");
	for (size_t i = 0; i < tc_json_array_size(a); i++) {
		const struct tc_json *x = tc_json_array_get(a, i);
		size_t n = tc_json_is_array(x) ? tc_json_array_size(x) : 0;
		struct rl_item it;
		int64_t v[3 + 2 * RL_DIMS];
		memset(&it, 0, sizeof(it));
		if (n < 3 || n > 3 + 2 * RL_DIMS || (n - 3) % 2) {
			free(b.v);
			return rd_fail(r, "malformed ranklist item");
		}
		for (size_t k = 0; k < n; k++)
			if (!j_int(tc_json_array_get(x, k), &v[k])) {
				free(b.v);
				return rd_fail(r, "malformed ranklist item");
			}
		if (v[1] < 1 || v[2] < 1) {
			free(b.v);
			return rd_fail(r, "malformed ranklist item");
		}
		it.start = v[0];
		it.len = (uint64_t)v[1];
		it.stride = v[2];
		for (size_t k = 3; k < n; k += 2) {
			if (v[k] < 1) {
				free(b.v);
				return rd_fail(r, "malformed ranklist item");
			}
			it.n[it.ndim] = (uint64_t)v[k];
			it.d[it.ndim] = v[k + 1];
			it.ndim++;
		}
		if ((msg = tc_tct_rl_build_add(&b, &it))) {
			free(b.v);
			return rd_fail(r, "%s", msg);
		}
	}
	if ((msg = tc_tct_rl_build_finish(&b, out)))
		return rd_fail(r, "%s", msg);
	return 0;
}

static bool j_peer_read(const struct tc_json *v, int64_t *out)
{
	const char *s = v ? tc_json_str_value(v) : NULL;

	if (s) {
		struct lx l = { s };
		return t_peer(&l, out) && !*l.p;
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

	kind_of(p, &kind);
	out->n = TC_GVAL_ABSENT;
	out->w = 0;
	out->v = NULL;
	if (!v)
		return rd_fail(r, "missing value");
	if (tc_json_is_null(v))
		goto check;
	if (kind == TC_GPK_COMPL || kind == TC_GPK_UARRAY) {
		size_t n = tc_json_is_array(v) ? tc_json_array_size(v) : 0;
		size_t k = kind == TC_GPK_COMPL ? 4 : 1;
		int64_t *w;
		if (!tc_json_is_array(v) || n > MAX_WORDS / k)
			return rd_fail(r, "expected an array value");
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
				return rd_fail(r, "malformed array value");
			}
		}
		tc_gval_set(out, (uint32_t)(n * k), w);
		free(w);
		goto check;
	}
	{
		int64_t x;
		if (!j_word_read(v, kind, &x))
			return rd_fail(r, "malformed value");
		tc_gval_set(out, 1, &x);
	}
check:
	if ((msg = tc_tct_val_check(p, out))) {
		tc_gval_release(out);
		return rd_fail(r, "%s", msg);
	}
	return 0;
}

static int j_seq_read(struct rd *r, const struct tc_json *a, unsigned p, struct tc_gseq *s,
		      int depth)
{
	if (depth > MAX_SEQ_DEPTH)
		return rd_fail(r, "value sequence nested too deeply");
	if (!a || !tc_json_is_array(a) || !tc_json_array_size(a))
		return rd_fail(r, "expected a non-empty sequence array");
	for (size_t i = 0; i < tc_json_array_size(a); i++) {
		const struct tc_json *e = tc_json_array_get(a, i), *sub = tc_json_get(e, "seq");
		int64_t reps;
		if (!j_int(tc_json_get(e, "reps"), &reps) || reps < 1)
			return rd_fail(r, "sequence entry: bad reps");
		if (sub) {
			struct tc_gseq *c = tc_gseq_new();
			if (j_seq_read(r, sub, p, c, depth + 1)) {
				tc_gseq_free(c);
				return TC_ERR_FORMAT;
			}
			if (!tc_tct_occ_add_ok(s->len, c->len, (uint64_t)reps)) {
				tc_gseq_free(c);
				return rd_fail(r, "value sequence too long");
			}
			tc_gseq_add_chunk(s, c, (uint64_t)reps);
		} else {
			struct tc_gval v;
			if (j_val_read(r, tc_json_get(e, "value"), p, &v))
				return TC_ERR_FORMAT;
			if (!tc_tct_occ_add_ok(s->len, 1, (uint64_t)reps)) {
				tc_gval_release(&v);
				return rd_fail(r, "value sequence too long");
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

	kind_of(p, &kind);
	if (!vars || !tc_json_is_array(vars))
		return rd_fail(r, "expected \"variants\"");
	for (size_t i = 0; i < tc_json_array_size(vars); i++) {
		const struct tc_json *v = tc_json_array_get(vars, i);
		struct tc_gvar *gv = gp_push(gp);
		if (!gv)
			return rd_fail(r, "too many variants");
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
			return rd_fail(r, "malformed histogram");
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
				return rd_fail(r, "malformed histogram bin");
			hb->n = (uint64_t)bn;
			hb->mean = tc_json_number_value(tc_json_get(b, "mean"));
			sd = tc_json_number_value(tc_json_get(b, "sd"));
			if (!(sd >= 0) || !isfinite(sd))
				return rd_fail(r, "malformed histogram bin");
			hb->m2 = sd * sd * (double)hb->n;
			hs->nbins++;
		}
		if ((msg = tc_tct_hist_check(hs)))
			return rd_fail(r, "%s", msg);
		if (!tc_tct_rl_within(&hs->ranks, node_ranks))
			return rd_fail(r, "histogram ranks outside the node's ranks");
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
		return rd_fail(r, "event: \"times\" must be an array of two or more entries");
	for (size_t i = 0; i < tc_json_array_size(a); i++) {
		const struct tc_json *o = tc_json_array_get(a, i);
		struct tc_gtime *t = times_push(nd);
		int64_t tn;
		if (!t || !tc_json_is_object(o))
			return rd_fail(r, "event: bad time entry");
		if (j_rl_read(r, tc_json_get(o, "ranks"), &t->ranks))
			return TC_ERR_FORMAT;
		if (!j_int(tc_json_get(o, "n"), &tn) || tn < 0 ||
		    !j_stat_read(tc_json_get(o, "comp"), &t->comp, (uint64_t)tn) ||
		    !j_stat_read(tc_json_get(o, "comm"), &t->comm, (uint64_t)tn))
			return rd_fail(r, "event: bad time entry \"n\", \"comp\" or \"comm\"");
	}
	if ((msg = tc_tct_times_check(nd, n)))
		return rd_fail(r, "event: %s", msg);
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
	if (!tc_json_is_object(o) || !type)
		return rd_fail(r, "expected a node object with a \"type\"");
	if (j_rl_read(r, tc_json_get(o, "ranks"), &nd->ranks))
		return TC_ERR_FORMAT;
	if (!nd->ranks.count || !tc_tct_rl_within(&nd->ranks, parent))
		return rd_fail(r, "node ranks empty or outside the enclosing ranks");
	if (!strcmp(type, "loop")) {
		struct tc_gnode *body;
		size_t n;
		const struct tc_json *it = tc_json_get(o, "iters");
		if (!it || j_param_read(r, it, TC_GP_N, &nd->iters, &nd->ranks))
			return r->err->code ? r->err->code : rd_fail(r, "loop without \"iters\"");
		if (!nd->iters.nvar && !nd->iters.hist)
			return rd_fail(r, "loop without an iteration count");
		if (depth + 1 >= MAX_DEPTH)
			return rd_fail(r, "loops nested too deeply");
		if (j_nodes_read(r, tc_json_get(o, "body"), &nd->ranks, jp(&pb, path, ".body"),
				 depth + 1, &body, &n))
			return TC_ERR_FORMAT;
		r->where = path;
		if (!n || n > UINT32_MAX) {
			free(body);
			return rd_fail(r, "empty loop body");
		}
		nd->body = body;
		nd->nbody = (uint32_t)n;
		return 0;
	}
	if (!strcmp(type, "event")) {
		const char *op = tc_json_str_value(tc_json_get(o, "op"));
		const struct tc_json *ps = tc_json_get(o, "params");
		int64_t site, n;
		unsigned opn = op ? tc_op_from_name(op) : 0;
		if (op && !opn && op[0] == 'o' && op[1] == 'p') {
			struct lx d = { op + 2 };
			uint64_t num;
			if (lx_uint(&d, &num) && !*d.p && num && num < TC_OP_MAX)
				opn = (unsigned)num;
		}
		if (!opn)
			return rd_fail(r, "event: unknown \"op\"");
		nd->op = opn;
		nd->p = tc_xcalloc(TC_GP_N, sizeof(*nd->p));
		if (!j_int(tc_json_get(o, "site"), &site) || site < 0 || (uint64_t)site >= r->g->nsites)
			return rd_fail(r, "event: bad \"site\"");
		nd->stack = r->g->sites[site].sig;
		if (!j_int(tc_json_get(o, "n"), &n) || n < 0 ||
		    !j_stat_read(tc_json_get(o, "comp"), &nd->comp, (uint64_t)n) ||
		    !j_stat_read(tc_json_get(o, "comm"), &nd->comm, (uint64_t)n))
			return rd_fail(r, "event: bad \"n\", \"comp\" or \"comm\"");
		if (j_times_read(r, tc_json_get(o, "times"), nd, (uint64_t)n))
			return TC_ERR_FORMAT;
		if (ps && !tc_json_is_object(ps))
			return rd_fail(r, "event: \"params\" must be an object");
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
					return rd_fail(r, "event: unknown parameter \"%s\"",
						       tc_json_object_key_at(ps, i));
		}
		return 0;
	}
	return rd_fail(r, "unknown node type \"%s\"", type);
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
		return rd_fail(r, "expected an array of nodes");
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

static int parse_json(struct rd *r, const char *buf, size_t len)
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
		rd_fail(r, "not a tracecluster global trace (\"format\" is not \"%s\")", TC_TCT_MAGIC);
		goto out;
	}
	if (!j_int(tc_json_get(doc, "version"), &v)) {
		rd_fail(r, "missing \"version\"");
		goto out;
	}
	if (v != TC_TCT_VERSION) {
		rc = tc_error_set(r->err, TC_ERR_VERSION, r->name, -1,
				  "format version %" PRId64 " is not supported (this is version %d)",
				  v, TC_TCT_VERSION);
		goto out;
	}
	if (!j_int(tc_json_get(doc, "world_size"), &v) || v < 1 || v > MAX_WORLD) {
		rd_fail(r, "bad \"world_size\"");
		goto out;
	}
	g->world_size = (int32_t)v;
	r->where = "ranks";
	if (j_rl_read(r, tc_json_get(doc, "ranks"), &g->ranks))
		goto out;
	if (!g->ranks.count) {
		rd_fail(r, "the trace covers no rank");
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
			rd_fail(r, "bad \"timing\"");
			goto out;
		}
		g->timing = (enum tc_gtiming)t;
	}
	if ((x = tc_json_get(doc, "precision"))) {
		if (!tc_json_is_number(x) || !(tc_json_number_value(x) >= 0) ||
		    tc_json_number_value(x) > 100) {
			rd_fail(r, "bad \"precision\"");
			goto out;
		}
		g->precision = tc_json_number_value(x);
	}
	if ((x = tc_json_get(doc, "bins"))) {
		if (!j_int(x, &v) || v < 1 || v > TC_HIST_BINS_MAX) {
			rd_fail(r, "bad \"bins\"");
			goto out;
		}
		g->bins = (uint32_t)v;
	}
	if ((x = tc_json_get(doc, "leads")) && j_int(x, &v) && v >= 0 && v <= UINT32_MAX)
		g->leads = (uint32_t)v;
	if ((x = tc_json_get(doc, "events")) && j_int(x, &v) && v >= 0)
		g->events = (uint64_t)v;
	sites = tc_json_get(doc, "sites");
	if (!sites || !tc_json_is_array(sites) || tc_json_array_size(sites) > MAX_SITES) {
		rd_fail(r, "expected \"sites\"");
		goto out;
	}
	for (size_t i = 0; i < tc_json_array_size(sites); i++) {
		const struct tc_json *s = tc_json_array_get(sites, i), *fr = tc_json_get(s, "frames");
		const char *sig = tc_json_str_value(tc_json_get(s, "signature"));
		struct lx l = { sig ? sig : "" };
		uint64_t sg;
		struct jpath pb;
		r->where = jp(&pb, "sites", "[%zu]", i);
		if (!sig || !lx_hex(&l, &sg) || *l.p) {
			rd_fail(r, "bad \"signature\"");
			goto out;
		}
		if (g->nsites && g->sites[g->nsites - 1].sig >= sg) {
			rd_fail(r, "sites must be sorted by signature");
			goto out;
		}
		tc_gtrace_set_site(g, sg, NULL, 0);
		if (fr) {
			struct tc_gsite *st = &g->sites[g->nsites - 1];
			size_t nf = tc_json_is_array(fr) ? tc_json_array_size(fr) : 0;
			if (!tc_json_is_array(fr) || nf > MAX_FRAMES) {
				rd_fail(r, "bad \"frames\"");
				goto out;
			}
			st->frames = tc_xcalloc(nf ? nf : 1, sizeof(*st->frames));
			for (size_t k = 0; k < nf; k++) {
				const struct tc_json *f = tc_json_array_get(fr, k);
				const char *m = tc_json_str_value(tc_json_get(f, "module"));
				const char *sy = tc_json_str_value(tc_json_get(f, "symbol"));
				int64_t off;
				if (!m || !sy || !j_int(tc_json_get(f, "offset"), &off)) {
					rd_fail(r, "bad frame");
					goto out;
				}
				st->frames[k].module = tc_xstrdup(m);
				st->frames[k].symbol = tc_xstrdup(sy);
				st->frames[k].offset = (uint64_t)off;
				st->nframes++;
			}
		}
	}
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

/* ---- reading: entry points ---------------------------------------------- */

/* Release what a node owns without the struct itself (it may be in an
 * array). Mirrors lib/merge.c's node release, for partly built nodes. */
void tc_tct_param_free_parts(struct tc_gparam *gp)
{
	for (uint32_t i = 0; i < gp->nvar; i++) {
		tc_ranklist_release(&gp->var[i].ranks);
		tc_gval_release(&gp->var[i].val);
		tc_gseq_free(gp->var[i].seq);
	}
	free(gp->var);
	if (gp->hist) {
		tc_hist_release(gp->hist);
		free(gp->hist);
	}
	memset(gp, 0, sizeof(*gp));
}

void tc_tct_node_free_parts(struct tc_gnode *nd)
{
	tc_ranklist_release(&nd->ranks);
	for (uint32_t i = 0; i < nd->ntimes; i++)
		tc_gtime_release(&nd->times[i]);
	free(nd->times);
	for (uint32_t i = 0; i < nd->nbody; i++)
		tc_tct_node_free_parts(&nd->body[i]);
	free(nd->body);
	tc_tct_param_free_parts(&nd->iters);
	if (nd->p) {
		for (unsigned p = 0; p < TC_GP_N; p++)
			tc_tct_param_free_parts(&nd->p[p]);
		free(nd->p);
	}
	memset(nd, 0, sizeof(*nd));
}

bool tc_tct_probe(const void *buf, size_t len)
{
	const char *s = buf;
	size_t i = 0;

	if (tc_tct_bin_probe(buf, len))
		return true;
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	if (i < len && s[i] == '{')
		return true;
	return len - i >= strlen(TC_TCT_MAGIC) && !memcmp(s + i, TC_TCT_MAGIC, strlen(TC_TCT_MAGIC));
}

int tc_tct_parse(const char *buf, size_t len, const char *name, struct tc_gtrace **out,
		 struct tc_error *err)
{
	struct tc_error local;
	struct rd r;
	size_t i = 0;
	int rc;

	*out = NULL;
	if (!err)
		err = &local;
	tc_error_clear(err);
	memset(&r, 0, sizeof(r));
	r.name = name;
	r.err = err;
	r.g = tc_gtrace_new(0);
	if (tc_tct_bin_probe(buf, len)) {
		rc = tc_tct_bin_parse(buf, len, name, r.g, err);
		goto parsed;
	}
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if (i < len && buf[i] == '{')
		rc = parse_json(&r, buf, len);
	else
		rc = parse_text(&r, buf, len);
parsed:
	if (rc) {
		if (!err->code)
			tc_error_set(err, TC_ERR_FORMAT, name, -1, "malformed global trace");
		tc_gtrace_free(&r.g);
		return rc;
	}
	tc_gtrace_finish(r.g);
	*out = r.g;
	return 0;
}

int tc_tct_read(const char *path, struct tc_gtrace **out, struct tc_error *err)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "rb");
	char chunk[65536];
	size_t n;
	int rc;

	*out = NULL;
	if (!f)
		return tc_error_sys(err, path, "open");
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (sb.len + n > MAX_FILE) {
			if (!std)
				fclose(f);
			tc_strbuf_release(&sb);
			return tc_error_set(err, TC_ERR_FORMAT, path, -1, "file too large");
		}
		tc_strbuf_add(&sb, chunk, n);
	}
	if (ferror(f)) {
		rc = tc_error_sys(err, path, "read");
		if (!std)
			fclose(f);
		tc_strbuf_release(&sb);
		return rc;
	}
	if (!std)
		fclose(f);
	rc = tc_tct_parse(sb.buf ? sb.buf : "", sb.len, std ? "standard input" : path, out, err);
	tc_strbuf_release(&sb);
	return rc;
}
