/*
 * tct_text.c - the text form of the global compressed trace: its writer
 * and its reader (with the lexer, which the JSON reader borrows for the
 * values it writes as text). The format is specified in formats/tct.md.
 */
#include "lib/compat.h"
#include "formats/tct.h"
#include "formats/tct_internal.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/merge.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/skew.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	bool implicit = gp->nvar == 1 && !gp->hist && tc_tct_rl_same(&gp->var[0].ranks, node_ranks);

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

const char *tc_tct_op_name(unsigned op, char *buf, size_t len)
{
	const char *name = tc_op_name(op);

	if (name)
		return name;
	snprintf(buf, len, "op%u", op);
	return buf;
}

static void w_op(struct tc_strbuf *sb, unsigned op)
{
	char buf[32];

	tc_strbuf_addstr(sb, tc_tct_op_name(op, buf, sizeof(buf)));
}

static void w_node(struct tc_strbuf *sb, const struct tc_gtrace *g, const struct tc_gnode *nd,
		   const struct tc_ranklist *parent, unsigned depth)
{
	w_indent(sb, depth);
	if (nd->nbody) {
		tc_strbuf_addstr(sb, "loop ");
		w_spec(sb, TC_GPK_UINT, &nd->iters, &nd->ranks);
		if (!tc_tct_rl_same(&nd->ranks, parent)) {
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
	w_op(sb, nd->op);
	tc_strbuf_addf(sb, " site=%td", tc_gtrace_site(g, nd->stack));
	if (!tc_tct_rl_same(&nd->ranks, parent)) {
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

static void w_ints(struct tc_strbuf *sb, const char *key, const int32_t *v, uint32_t n)
{
	tc_strbuf_addf(sb, " %s=", key);
	for (uint32_t i = 0; i < n; i++)
		tc_strbuf_addf(sb, "%s%" PRId32, i ? "," : "", v[i]);
}

/* "comm ID ranks=RL parent=P creator=OP|- size=N [members=..] [dims=.. periods=M]
 * [graph=1|3 in=N out=N [edges=..] [weights=..]]" */
static void w_comm(struct tc_strbuf *sb, const struct tc_gcomm *c)
{
	tc_strbuf_addf(sb, "comm %" PRIu32 " ranks=", c->id);
	w_rl(sb, &c->ranks);
	tc_strbuf_addf(sb, " parent=%" PRIu32 " creator=", c->parent);
	if (c->creator)
		w_op(sb, c->creator);
	else
		tc_strbuf_addch(sb, '-');
	tc_strbuf_addf(sb, " size=%" PRIu32, c->size);
	if (c->members)
		w_ints(sb, "members", c->members, c->size);
	if (c->ndims) {
		w_ints(sb, "dims", c->dims, c->ndims);
		tc_strbuf_addf(sb, " periods=%" PRIu32, c->periods);
	}
	if (c->graph) {
		uint32_t n = c->nin + c->nout;
		tc_strbuf_addf(sb, " graph=%u in=%" PRIu32 " out=%" PRIu32, c->weighted ? 3u : 1u,
			       c->nin, c->nout);
		if (n)
			w_ints(sb, "edges", c->edges, n);
		if (n && c->weighted)
			w_ints(sb, "weights", c->edges + n, n);
	}
	tc_strbuf_addch(sb, '\n');
}

void tc_tct_text_format(const struct tc_gtrace *g, struct tc_strbuf *sb)
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
	if (g->tracer_ns)
		tc_strbuf_addf(sb, "tracer_ns %" PRIu64 "\n", g->tracer_ns);
	for (size_t i = 0; i < g->ntracer_ops; i++) {
		tc_strbuf_addstr(sb, "tracer_op ");
		w_op(sb, g->tracer_ops[i].op);
		tc_strbuf_addf(sb, " %" PRIu32 " %" PRIu64 "\n", g->tracer_ops[i].ns,
			       g->tracer_ops[i].calls);
	}
	if (g->skew) {
		tc_strbuf_addstr(sb, "skew");
		for (int32_t r = 0; r < g->world_size; r++)
			tc_strbuf_addf(sb, " %" PRIu64, g->skew[r]);
		tc_strbuf_addch(sb, '\n');
	}
	if (g->skew && g->nconc) {
		tc_strbuf_addstr(sb, "concurrency");
		for (size_t k = 0; k < g->nconc; k++)
			tc_strbuf_addf(sb, " %" PRIu64, g->conc[k]);
		tc_strbuf_addch(sb, '\n');
	}
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
	for (size_t i = 0; i < g->ncomms; i++)
		w_comm(sb, &g->comms[i]);
	tc_strbuf_addstr(sb, "trace\n");
	for (size_t i = 0; i < g->n; i++)
		w_node(sb, g, &g->seq[i], &g->ranks, 0);
	tc_strbuf_addstr(sb, "end\n");
}

/* ---- reading: text ------------------------------------------------------ */

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

bool tc_tct_lx_uint(struct lx *l, uint64_t *out)
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
	if (!tc_tct_lx_uint(&t, &u))
		return false;
	if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	*l = t;
	return true;
}

bool tc_tct_lx_hex(struct lx *l, uint64_t *out)
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
		return tc_tct_rd_fail(r, "expected a ranklist '[...]'");
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
				if (it.ndim == RL_DIMS || !tc_tct_lx_uint(l, &it.n[it.ndim]) ||
				    !lx_eat(l, '+') || !lx_int(l, &it.d[it.ndim]))
					goto bad;
				it.ndim++;
			}
			if ((msg = tc_tct_rl_build_add(&b, &it))) {
				tc_tct_rl_build_release(&b);
				return tc_tct_rd_fail(r, "%s", msg);
			}
			if (lx_eat(l, ']'))
				break;
			if (!lx_eat(l, ','))
				goto bad;
		}
	}
	if ((msg = tc_tct_rl_build_finish(&b, out)))
		return tc_tct_rd_fail(r, "%s", msg);
	return 0;
bad:
	tc_tct_rl_build_release(&b);
	return tc_tct_rd_fail(r, "malformed ranklist");
}

bool tc_tct_text_peer(struct lx *l, int64_t *out)
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
		if (!tc_tct_lx_uint(l, &u))
			return false;
		*out = (int64_t)u;
		return true;
	case TC_GPK_PEER:
		return tc_tct_text_peer(l, out);
	case TC_GPK_REQ:
		return t_req(l, out);
	case TC_GPK_DTYPE:
	case TC_GPK_REDOP:
		if (*l->p >= '0' && *l->p <= '9') {
			if (!tc_tct_lx_uint(l, &u) || u > UINT32_MAX)
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
			return tc_tct_rd_fail(r, "expected '[' for an array value");
		if (!lx_eat(l, ']')) {
			for (;;) {
				int64_t x[4];
				size_t k = kind == TC_GPK_COMPL ? 4 : 1;
				uint64_t u;
				if (kind == TC_GPK_COMPL) {
					if (!t_req(l, &x[0]) || !lx_eat(l, ':') ||
					    !tc_tct_text_peer(l, &x[1]) || !lx_eat(l, ':') ||
					    !lx_int(l, &x[2]) || !lx_eat(l, ':') ||
					    !tc_tct_lx_uint(l, &u))
						goto bad;
					x[3] = (int64_t)u;
				} else {
					if (!tc_tct_lx_uint(l, &u))
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
			return tc_tct_rd_fail(r, "malformed value");
		tc_gval_set(out, 1, &x);
	}
	return 0;
bad:
	free(w);
	return tc_tct_rd_fail(r, "malformed array value");
}

static int t_reps(struct rd *r, struct lx *l, uint64_t *reps)
{
	*reps = 1;
	if (lx_eat(l, '*') && (!tc_tct_lx_uint(l, reps) || !*reps))
		return tc_tct_rd_fail(r, "bad repetition count");
	return 0;
}

/* Items of a value sequence, up to the closing '>' or ')'. */
static int t_seq(struct rd *r, struct lx *l, unsigned p, struct tc_gseq *s, int depth)
{
	enum tc_gparam_kind kind;

	tc_tct_kind_of(p, &kind);
	if (depth > MAX_SEQ_DEPTH)
		return tc_tct_rd_fail(r, "value sequence nested too deeply");
	for (;;) {
		uint64_t reps;
		const char *msg;
		if (lx_eat(l, '(')) {
			struct tc_gseq *c = tc_gseq_new();
			if (t_seq(r, l, p, c, depth + 1) || !lx_eat(l, ')') || t_reps(r, l, &reps)) {
				tc_gseq_free(c);
				return r->err && r->err->code ? r->err->code
							      : tc_tct_rd_fail(r, "expected ')'");
			}
			if (!c->len || !tc_tct_occ_add_ok(s->len, c->len, reps)) {
				tc_gseq_free(c);
				return tc_tct_rd_fail(r, "value sequence too long");
			}
			tc_gseq_add_chunk(s, c, reps);
		} else {
			struct tc_gval v;
			if (t_val(r, l, kind, &v))
				return TC_ERR_FORMAT;
			if ((msg = tc_tct_val_check(p, &v)) || t_reps(r, l, &reps) ||
			    !tc_tct_occ_add_ok(s->len, 1, reps)) {
				tc_gval_release(&v);
				return r->err && r->err->code
					       ? r->err->code
					       : tc_tct_rd_fail(r, "%s",
							msg ? msg : "value sequence too long");
			}
			tc_gseq_add_val(s, &v, reps);
			tc_gval_release(&v);
		}
		if (!lx_eat(l, ','))
			return 0;
	}
}

/* VARIANT|VARIANT... of parameter p (TC_GP_N: loop count). */
static int t_spec(struct rd *r, struct lx *l, unsigned p, struct tc_gparam *gp,
		  const struct tc_ranklist *node_ranks)
{
	enum tc_gparam_kind kind;

	tc_tct_kind_of(p, &kind);
	if (p == TC_GP_N && l->p[0] == '-' && is_delim((unsigned char)l->p[1])) {
		l->p++;
		return 0;
	}
	for (;;) {
		struct tc_gvar *v = tc_tct_gp_push(gp);
		const char *msg;
		if (lx_eat(l, '<')) {
			v->seq = tc_gseq_new();
			if (t_seq(r, l, p, v->seq, 0))
				return TC_ERR_FORMAT;
			if (!lx_eat(l, '>'))
				return tc_tct_rd_fail(r, "expected '>' after a value sequence");
			if (!v->seq->len)
				return tc_tct_rd_fail(r, "empty value sequence");
		} else {
			if (t_val(r, l, kind, &v->val))
				return TC_ERR_FORMAT;
			if ((msg = tc_tct_val_check(p, &v->val)))
				return tc_tct_rd_fail(r, "%s", msg);
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

	tc_tct_kind_of(p, &kind);
	*out = h;
	if (!t_attr(l, "ranks") || t_rl(r, l, &h->ranks))
		return r->err && r->err->code ? r->err->code
					      : tc_tct_rd_fail(r, "histogram: expected ranks=");
	if (!t_attr(l, "n") || !tc_tct_lx_uint(l, &h->n))
		return tc_tct_rd_fail(r, "histogram: expected n=");
	if (!t_attr(l, "min") || !t_word(l, kind, &h->min) || !lx_eat(l, '@') || !lx_int(l, &x) ||
	    x < 0 || x >= r->g->world_size)
		return tc_tct_rd_fail(r, "histogram: expected min=VALUE@RANK");
	h->min_rank = (int32_t)x;
	if (!t_attr(l, "max") || !t_word(l, kind, &h->max) || !lx_eat(l, '@') || !lx_int(l, &x) ||
	    x < 0 || x >= r->g->world_size)
		return tc_tct_rd_fail(r, "histogram: expected max=VALUE@RANK");
	h->max_rank = (int32_t)x;
	if (!t_attr(l, "bins"))
		return tc_tct_rd_fail(r, "histogram: expected bins=");
	for (;;) {
		struct tc_hbin b;
		double sd;
		if (h->nbins >= TC_HIST_BINS_MAX)
			return tc_tct_rd_fail(r, "histogram: too many bins");
		if (!t_word(l, kind, &b.lo) || !lx_lit(l, "..") || !t_word(l, kind, &b.hi) ||
		    !lx_eat(l, ':') || !tc_tct_lx_uint(l, &b.n) || !lx_eat(l, ':') ||
		    !lx_double(l, &b.mean) || !lx_eat(l, ':') || !lx_double(l, &sd) || sd < 0)
			return tc_tct_rd_fail(r, "histogram: malformed bin");
		b.m2 = sd * sd * (double)b.n;
		h->bins = tc_xrealloc(h->bins, tc_st_mult(h->nbins + 1, sizeof(*h->bins)));
		h->bins[h->nbins++] = b;
		if (!lx_eat(l, ','))
			break;
	}
	if (!lx_end(l))
		return tc_tct_rd_fail(r, "histogram: unexpected text at the end of the line");
	if ((msg = tc_tct_hist_check(h)))
		return tc_tct_rd_fail(r, "%s", msg);
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

/* comp=STAT comm=STAT, or comp=STAT*N@RANKS|... comm=STAT|... */
static int t_times(struct rd *r, struct lx *l, struct tc_gnode *nd, uint64_t n)
{
	const char *msg;
	double sd;

	if (!t_attr(l, "comp") || !t_stat_sd(l, &nd->comp, &sd))
		return tc_tct_rd_fail(r, "event: expected comp=MEAN/SD/MIN/MAX");
	if (!lx_eat(l, '*')) {
		stat_count(&nd->comp, sd, n);
		if (!t_attr(l, "comm") || !t_stat(l, &nd->comm, n))
			return tc_tct_rd_fail(r, "event: expected comm=MEAN/SD/MIN/MAX");
		return 0;
	}
	for (;;) {
		struct tc_gtime *t = tc_tct_times_push(nd);
		uint64_t tn;
		if (!t)
			return tc_tct_rd_fail(r, "event: too many time entries");
		t->comp = nd->comp;
		if (!tc_tct_lx_uint(l, &tn) || !lx_eat(l, '@'))
			return tc_tct_rd_fail(r, "event: expected comp=MEAN/SD/MIN/MAX*N@RANKS");
		stat_count(&t->comp, sd, tn);
		if (t_rl(r, l, &t->ranks))
			return TC_ERR_FORMAT;
		if (!lx_eat(l, '|'))
			break;
		if (!t_stat_sd(l, &nd->comp, &sd) || !lx_eat(l, '*'))
			return tc_tct_rd_fail(r, "event: expected comp=MEAN/SD/MIN/MAX*N@RANKS");
	}
	if (nd->ntimes < 2)
		return tc_tct_rd_fail(r, "event: a single time entry is written without ranks");
	if (!t_attr(l, "comm"))
		return tc_tct_rd_fail(r, "event: expected comm=MEAN/SD/MIN/MAX|...");
	for (uint32_t i = 0; i < nd->ntimes; i++) {
		if ((i && !lx_eat(l, '|')) || !t_stat(l, &nd->times[i].comm, nd->times[i].comp.n))
			return tc_tct_rd_fail(
				r, "event: expected one comm=MEAN/SD/MIN/MAX per time entry");
	}
	if ((msg = tc_tct_times_check(nd, n)))
		return tc_tct_rd_fail(r, "event: %s", msg);
	return 0;
}

static int t_node_ranks(struct rd *r, struct lx *l, struct tc_gnode *nd,
			const struct tc_ranklist *parent)
{
	if (t_attr(l, "ranks")) {
		if (t_rl(r, l, &nd->ranks))
			return TC_ERR_FORMAT;
		if (!nd->ranks.count)
			return tc_tct_rd_fail(r, "node without ranks");
		if (!tc_tct_rl_within(&nd->ranks, parent))
			return tc_tct_rd_fail(r, "node ranks outside the enclosing ranks");
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
	if (!t_attr(l, "site") || !tc_tct_lx_uint(l, &site))
		return tc_tct_rd_fail(r, "event: expected site=N");
	if (site >= r->g->nsites)
		return tc_tct_rd_fail(r, "event: site %" PRIu64 " is not in the site table", site);
	nd->stack = r->g->sites[site].sig;
	if (t_node_ranks(r, l, nd, frame_ranks(t)))
		return TC_ERR_FORMAT;
	if (!t_attr(l, "n") || !tc_tct_lx_uint(l, &n))
		return tc_tct_rd_fail(r, "event: expected n=N");
	if (t_times(r, l, nd, n))
		return TC_ERR_FORMAT;
	if (!lx_end(l))
		return tc_tct_rd_fail(r, "event: unexpected text at the end of the line");
	return 0;
}

static int t_loop_line(struct tparse *t, struct lx *l)
{
	struct rd *r = t->r;
	struct tc_gnode *nd;
	struct tc_ranklist tmp;
	struct lx save;

	if (t->depth + 1 >= MAX_DEPTH)
		return tc_tct_rd_fail(r, "loops nested too deeply");
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
		return tc_tct_rd_fail(r, "loop: expected '{'");
	if (!lx_end(l))
		return tc_tct_rd_fail(r, "loop: unexpected text after '{'");
	tmp = nd->ranks;
	if (t_spec(r, &save, TC_GP_N, &nd->iters, &tmp))
		return TC_ERR_FORMAT;
	if (*save.p && *save.p != ' ' && *save.p != '\t')
		return tc_tct_rd_fail(r, "loop: malformed iteration count");
	return 0;
}

static int t_close(struct tparse *t)
{
	struct rd *r = t->r;
	struct pframe *f, *parent;
	struct tc_gnode *nd;

	if (!t->depth)
		return tc_tct_rd_fail(r, "'}' without a loop");
	f = &t->fr[t->depth];
	if (!f->n)
		return tc_tct_rd_fail(r, "empty loop body");
	if (!f->loop.iters.nvar && !f->loop.iters.hist)
		return tc_tct_rd_fail(r, "loop without an iteration count");
	if (f->n > UINT32_MAX)
		return tc_tct_rd_fail(r, "loop body too long");
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
			return tc_tct_rd_fail(r, "'iters' outside a loop");
		nd = &f->loop;
		gp = &nd->iters;
		p = TC_GP_N;
	} else {
		pi = tc_gparam_from_name(name);
		if (pi < 0)
			return tc_tct_rd_fail(r, "unknown keyword '%s'", name);
		if (!f->n || f->nodes[f->n - 1].nbody || !f->nodes[f->n - 1].p)
			return tc_tct_rd_fail(r, "parameter '%s' not after an event", name);
		nd = &f->nodes[f->n - 1];
		p = (unsigned)pi;
		gp = &nd->p[p];
	}
	lx_ws(l);
	if (lx_lit(l, "hist") && (*l->p == ' ' || *l->p == '\t')) {
		if (f->hist_seen[p])
			return tc_tct_rd_fail(r, "histogram of '%s' given twice", name);
		f->hist_seen[p] = true;
		if (t_hist(r, l, p, &gp->hist))
			return TC_ERR_FORMAT;
		if (!tc_tct_rl_within(&gp->hist->ranks, &nd->ranks))
			return tc_tct_rd_fail(r, "histogram ranks outside the node's ranks");
		return 0;
	}
	if (p == TC_GP_N)
		return tc_tct_rd_fail(r, "'iters' line must be a histogram");
	if (f->spec_seen[p])
		return tc_tct_rd_fail(r, "parameter '%s' given twice", name);
	f->spec_seen[p] = true;
	if (t_spec(r, l, p, gp, &nd->ranks))
		return TC_ERR_FORMAT;
	if (!lx_end(l))
		return tc_tct_rd_fail(r, "unexpected text after the value of '%s'", name);
	return 0;
}

unsigned tc_tct_op_of_word(const char *word)
{
	unsigned op;
	uint64_t num;

	if (!word)
		return 0;
	op = tc_op_from_name(word);
	if (!op && word[0] == 'o' && word[1] == 'p') {
		struct lx d = { word + 2 };
		if (tc_tct_lx_uint(&d, &num) && !*d.p && num && num < TC_OP_MAX)
			op = (unsigned)num;
	}
	return op && (!strncmp(word, "MPI_", 4) || !strncmp(word, "op", 2)) ? op : 0;
}

/* "N,N,..." into v (at most max); the count, or -1. */
static int t_ints(struct lx *l, int32_t *v, uint32_t max)
{
	uint32_t n = 0;
	int64_t x;

	do {
		if (n == max || !lx_int(l, &x) || x < INT32_MIN || x > INT32_MAX)
			return -1;
		v[n++] = (int32_t)x;
	} while (lx_eat(l, ','));
	return (int)n;
}

/* "graph=1|3 in=N out=N [edges=..] [weights=..]" after "graph=" */
static int t_graph(struct rd *r, struct lx *l, struct tc_gcomm *c)
{
	uint64_t f, nin, nout;
	uint32_t n;

	if (!tc_tct_lx_uint(l, &f) || (f != 1 && f != 3) || !t_attr(l, "in") ||
	    !tc_tct_lx_uint(l, &nin) || nin > MAX_DEGREE || !t_attr(l, "out") ||
	    !tc_tct_lx_uint(l, &nout) || nout > MAX_DEGREE)
		return tc_tct_rd_fail(r, "comm: expected graph=1|3 in=N out=N");
	c->graph = true;
	c->weighted = f == 3;
	c->nin = (uint32_t)nin;
	c->nout = (uint32_t)nout;
	n = c->nin + c->nout;
	c->edges = tc_xmalloc(tc_st_mult(tc_gcomm_edge_words(c) + 1, sizeof(*c->edges)));
	if (n && (!t_attr(l, "edges") || t_ints(l, c->edges, n) != (int)n))
		return tc_tct_rd_fail(r, "comm: expected edges= of in + out ranks");
	if (n && c->weighted && (!t_attr(l, "weights") || t_ints(l, c->edges + n, n) != (int)n))
		return tc_tct_rd_fail(r, "comm: expected weights= of in + out numbers");
	return 0;
}

/* "comm ID ranks=RL parent=P creator=OP size=N [members=..] [dims=.. periods=M]
 * [graph=..]" */
static int t_comm(struct rd *r, struct lx *l)
{
	struct tc_gtrace *g = r->g;
	struct tc_gcomm *c;
	uint64_t u;
	char w[64];
	const char *why;

	if (!r->have_world)
		return tc_tct_rd_fail(r, "'comm' must follow 'world'");
	if (g->ncomms >= MAX_COMMS)
		return tc_tct_rd_fail(r, "too many communicators");
	c = tc_gtrace_push_comm(g);
	if (!tc_tct_lx_uint(l, &u) || u > UINT32_MAX)
		return tc_tct_rd_fail(r, "comm: expected an id");
	c->id = (uint32_t)u;
	if (!t_attr(l, "ranks"))
		return tc_tct_rd_fail(r, "comm: expected ranks=");
	if (t_rl(r, l, &c->ranks))
		return TC_ERR_FORMAT;
	if (!t_attr(l, "parent") || !tc_tct_lx_uint(l, &u) || u > UINT32_MAX)
		return tc_tct_rd_fail(r, "comm: expected parent=ID");
	c->parent = (uint32_t)u;
	if (!t_attr(l, "creator") ||
	    !(lx_eat(l, '-') || (lx_word(l, w, sizeof(w)) && (c->creator = tc_tct_op_of_word(w)))))
		return tc_tct_rd_fail(r, "comm: expected creator=OPERATION or -");
	if (!t_attr(l, "size") || !tc_tct_lx_uint(l, &u) || u > (uint64_t)g->world_size)
		return tc_tct_rd_fail(r, "comm: expected size=N, at most the world size");
	c->size = (uint32_t)u;
	if (t_attr(l, "members")) {
		c->members = tc_xmalloc(tc_st_mult(c->size, sizeof(*c->members)));
		if (t_ints(l, c->members, c->size) != (int)c->size)
			return tc_tct_rd_fail(r, "comm: expected members= of its size");
	}
	if (t_attr(l, "dims")) {
		int nd = t_ints(l, c->dims, 8);
		if (nd < 1)
			return tc_tct_rd_fail(r, "comm: expected dims= of 1 to 8 numbers");
		c->ndims = (uint32_t)nd;
		if (!t_attr(l, "periods") || !tc_tct_lx_uint(l, &u) || u > UINT32_MAX)
			return tc_tct_rd_fail(r, "comm: expected periods=MASK after dims=");
		c->periods = (uint32_t)u;
	}
	if (t_attr(l, "graph") && t_graph(r, l, c))
		return TC_ERR_FORMAT;
	if ((why = tc_tct_comm_check(c, g->world_size)))
		return tc_tct_rd_fail(r, "%s", why);
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
			return tc_tct_rd_fail(r, "bad world size");
		g->world_size = (int32_t)x;
		r->have_world = true;
	} else if (!strcmp(key, "ranks")) {
		if (!r->have_world || r->have_ranks)
			return tc_tct_rd_fail(r, "'ranks' must follow 'world' once");
		if (t_rl(r, l, &g->ranks))
			return TC_ERR_FORMAT;
		if (!g->ranks.count)
			return tc_tct_rd_fail(r, "the trace covers no rank");
		r->have_ranks = true;
	} else if (!strcmp(key, "mode") || !strcmp(key, "variant")) {
		if (!(s = lx_quoted(l)))
			return tc_tct_rd_fail(r, "'%s': expected a quoted string", key);
		if (!strcmp(key, "mode"))
			snprintf(g->mode, sizeof(g->mode), "%s", s);
		else
			snprintf(g->variant, sizeof(g->variant), "%s", s);
		free(s);
	} else if (!strcmp(key, "timing")) {
		char w[16];
		int t;
		if (!lx_word(l, w, sizeof(w)) || (t = tc_gtiming_from_name(w)) < 0)
			return tc_tct_rd_fail(r, "timing: expected rank, stats or none");
		g->timing = (enum tc_gtiming)t;
	} else if (!strcmp(key, "precision")) {
		if (!lx_double(l, &g->precision) || g->precision < 0 || g->precision > 100)
			return tc_tct_rd_fail(r, "bad precision");
	} else if (!strcmp(key, "bins")) {
		if (!tc_tct_lx_uint(l, &u) || !u || u > TC_HIST_BINS_MAX)
			return tc_tct_rd_fail(r, "bad bin count");
		g->bins = (uint32_t)u;
	} else if (!strcmp(key, "leads")) {
		if (!tc_tct_lx_uint(l, &u) || u > UINT32_MAX)
			return tc_tct_rd_fail(r, "bad lead count");
		g->leads = (uint32_t)u;
	} else if (!strcmp(key, "events")) {
		if (!tc_tct_lx_uint(l, &g->events))
			return tc_tct_rd_fail(r, "bad event count");
	} else if (!strcmp(key, "tracer_ns")) {
		if (!tc_tct_lx_uint(l, &g->tracer_ns) || g->tracer_ns > TC_TRACER_NS_MAX)
			return tc_tct_rd_fail(r, "bad tracer_ns");
	} else if (!strcmp(key, "tracer_op")) {
		/* OP NS CALLS, the ops ascending */
		char w[64];
		unsigned op;
		uint64_t ns, calls;
		if (!lx_word(l, w, sizeof(w)) || !(op = tc_tct_op_of_word(w)) ||
		    (g->ntracer_ops && op <= g->tracer_ops[g->ntracer_ops - 1].op))
			return tc_tct_rd_fail(r, "tracer_op: expected an operation after the last");
		lx_ws(l);
		if (!tc_tct_lx_uint(l, &ns) || ns > TC_TRACER_NS_MAX)
			return tc_tct_rd_fail(r, "bad tracer_op time");
		lx_ws(l);
		if (!tc_tct_lx_uint(l, &calls) || !calls || calls > TC_TRACER_CALLS_MAX)
			return tc_tct_rd_fail(r, "bad tracer_op calls");
		g->tracer_ops = tc_xrealloc(g->tracer_ops, tc_st_mult(g->ntracer_ops + 1,
								    sizeof(*g->tracer_ops)));
		g->tracer_ops[g->ntracer_ops++] = (struct tc_tracer_op){ op, (uint32_t)ns, calls };
	} else if (!strcmp(key, "skew")) {
		/* one per world rank, after the ranks, which cover the world */
		const char *why;
		if (!r->have_ranks || g->skew || g->ranks.count != (uint64_t)g->world_size)
			return tc_tct_rd_fail(r, "'skew' must follow 'ranks' of the whole world, once");
		if (strlen(l->p) < 2 * (size_t)g->world_size - 1)
			return tc_tct_rd_fail(r, "skew: expected %" PRId32 " numbers", g->world_size);
		g->skew = tc_xmalloc(tc_st_mult((size_t)g->world_size, sizeof(*g->skew)));
		for (int32_t k = 0; k < g->world_size; k++) {
			lx_ws(l);
			if (!tc_tct_lx_uint(l, &g->skew[k]))
				return tc_tct_rd_fail(r, "skew: expected %" PRId32 " numbers",
						      g->world_size);
		}
		if (!lx_end(l))
			return tc_tct_rd_fail(r, "skew: expected %" PRId32 " numbers", g->world_size);
		if ((why = tc_skew_check(g->skew, (size_t)g->world_size)))
			return tc_tct_rd_fail(r, "skew: %s", why);
	} else if (!strcmp(key, "concurrency")) {
		/* after the skews, at most one per world rank */
		const char *why;
		if (!g->skew || g->conc)
			return tc_tct_rd_fail(r, "'concurrency' must follow 'skew', once");
		g->conc = tc_xmalloc(tc_st_mult((size_t)g->world_size, sizeof(*g->conc)));
		while (!lx_end(l)) {
			if (g->nconc == (size_t)g->world_size || !tc_tct_lx_uint(l, &g->conc[g->nconc]))
				return tc_tct_rd_fail(r, "concurrency: expected 1 to %" PRId32 " numbers",
						      g->world_size);
			g->nconc++;
		}
		if ((why = tc_conc_check(g->conc, g->nconc, g->world_size)))
			return tc_tct_rd_fail(r, "concurrency: %s", why);
	} else if (!strcmp(key, "site")) {
		uint64_t sig;
		if (!tc_tct_lx_uint(l, &u) || u != g->nsites)
			return tc_tct_rd_fail(r, "site numbers must count up from 0");
		lx_ws(l);
		if (!tc_tct_lx_hex(l, &sig))
			return tc_tct_rd_fail(r, "site: expected a 0x signature");
		if (g->nsites && g->sites[g->nsites - 1].sig >= sig)
			return tc_tct_rd_fail(r, "sites must be sorted by signature");
		if (g->nsites >= MAX_SITES)
			return tc_tct_rd_fail(r, "too many sites");
		tc_gtrace_set_site(g, sig, NULL, 0);
		*cur = &g->sites[g->nsites - 1];
	} else if (!strcmp(key, "frame")) {
		struct tc_gframe fr;
		struct tc_gsite *st = *cur;
		if (!st)
			return tc_tct_rd_fail(r, "'frame' before any 'site'");
		if (st->nframes >= MAX_FRAMES)
			return tc_tct_rd_fail(r, "too many frames");
		memset(&fr, 0, sizeof(fr));
		if (!(fr.module = lx_quoted(l)))
			return tc_tct_rd_fail(r, "frame: expected a quoted module");
		lx_ws(l);
		if (!tc_tct_lx_hex(l, &fr.offset)) {
			free(fr.module);
			return tc_tct_rd_fail(r, "frame: expected a 0x offset");
		}
		lx_ws(l);
		if (!(fr.symbol = lx_quoted(l))) {
			free(fr.module);
			return tc_tct_rd_fail(r, "frame: expected a quoted symbol");
		}
		st->frames = tc_xrealloc(st->frames, tc_st_mult(st->nframes + 1, sizeof(*st->frames)));
		st->frames[st->nframes++] = fr;
	} else if (!strcmp(key, "comm")) {
		int rc = t_comm(r, l);
		if (rc)
			return rc;
	} else {
		return tc_tct_rd_fail(r, "unknown header keyword '%s'", key);
	}
	if (!lx_end(l))
		return tc_tct_rd_fail(r, "unexpected text at the end of the line");
	return 0;
}

int tc_tct_text_parse(struct rd *r, const char *buf, size_t len)
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
			rc = tc_tct_rd_fail(r, "line too long");
			break;
		}
		if (memchr(buf + pos, '\0', n)) {
			rc = tc_tct_rd_fail(r, "NUL byte in the text");
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
			rc = tc_tct_rd_fail(r, "text after 'end'");
			break;
		}
		if (!magic) {
			uint64_t v;
			if (!lx_lit(&l, TC_TCT_MAGIC) || !(lx_ws(&l), tc_tct_lx_uint(&l, &v))) {
				rc = tc_tct_rd_fail(
					r, "not a tracecluster global trace (expected '%s 1')",
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
				rc = tc_tct_rd_fail(r, "unexpected text after the version");
			magic = true;
			continue;
		}
		if (*l.p == '}') {
			l.p++;
			rc = state != BODY ? tc_tct_rd_fail(r, "'}' outside the trace")
					    : t_close(&t);
			if (!rc && !lx_end(&l))
				rc = tc_tct_rd_fail(r, "unexpected text after '}'");
			continue;
		}
		if (!lx_word(&l, word, sizeof(word))) {
			rc = tc_tct_rd_fail(r, "expected a keyword");
			break;
		}
		if (state == HEAD) {
			if (!strcmp(word, "trace")) {
				if (!r->have_world || !r->have_ranks)
					rc = tc_tct_rd_fail(
						r, "'world' and 'ranks' must come before 'trace'");
				else if (!lx_end(&l))
					rc = tc_tct_rd_fail(r, "unexpected text after 'trace'");
				state = BODY;
				continue;
			}
			rc = t_header_line(r, &l, word, &cur);
			continue;
		}
		if (!strcmp(word, "end")) {
			if (t.depth)
				rc = tc_tct_rd_fail(r, "'end' inside a loop");
			else if (!lx_end(&l))
				rc = tc_tct_rd_fail(r, "unexpected text after 'end'");
			state = DONE;
			continue;
		}
		if (!strcmp(word, "loop")) {
			tc_tct_rd_node_at(r, r->line);
			rc = t_loop_line(&t, &l);
			continue;
		}
		{
			unsigned op = tc_tct_op_of_word(word);
			if (op) {
				tc_tct_rd_node_at(r, r->line);
				rc = t_event_line(&t, &l, op);
				continue;
			}
		}
		rc = t_param_line(&t, &l, word);
	}
	if (!rc && state != DONE) {
		r->line++;
		rc = tc_tct_rd_fail(r, magic ? "truncated: missing 'end'" : "empty file");
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
