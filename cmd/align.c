/*
 * align.c - tracecluster align: pairwise and multiple alignment of the
 * event sequences of ranks of a trace set, the merged call graph and the
 * structural similarity matrix (align/align.h; Weber 2016).
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "lib/progress.h"
#include "cmd/modeopt.h"
#include "analysis/seqload.h"
#include "align/align.h"
#include "cluster/cluster.h"
#include "formats/raw.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/file.h"
#include "lib/json.h"
#include "lib/pool.h"
#include "lib/ranklist.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char align_usage[] =
	"usage: tracecluster align [OPTIONS] --ranks A,B DIR\n"
	"       tracecluster align [OPTIONS] --ranks LIST|--cluster N\n"
	"                          [--mode M [MODE OPTIONS]] [--hierarchical] DIR\n"
	"       tracecluster align --graph dot|svg|json [--ranks LIST] [-o FILE] DIR\n"
	"       tracecluster align --similarity csv|json [--ranks LIST] [-o FILE] DIR\n"
	"\n"
	"Align the event sequences of ranks of a trace set (Weber): two ranks\n"
	"pairwise (Needleman-Wunsch in linear memory), several ranks progressively\n"
	"into one alignment block, or along their call trees (--hierarchical). An\n"
	"event is its MPI operation and call site; its parameters are shown. Also\n"
	"the merged call graph and the structural (function-pair) similarity.\n"
	"\n"
	"  -r, --ranks LIST      ranks, e.g. 3,5 or 0,3,5-7 (rows in the order given)\n"
	"  -c, --cluster N       the ranks of cluster N of a clustering (see --mode)\n"
	"  -m, --mode M          clustering mode for --cluster (default structural)\n"
	"      --max-clusters K, --steps S, --distance D, --count-threshold F,\n"
	"      --seed S, --marker OP[@CALLSITE], --call-frequency N, --noise F\n"
	"                        the options of --mode, as tracecluster cluster takes\n"
	"                        them (-k and --threshold there); with --cluster only\n"
	"      --hierarchical    multiple alignment split along the call tree\n"
	"  -k, --key K           events are equal by site (MPI operation and call\n"
	"                        site, the default), function (operation and the\n"
	"                        function names of the stack) or op\n"
	"      --scores M,X,G    match, mismatch and gap scores (default 1,-2,-1)\n"
	"      --engine E        auto, lcs, nw or full (default auto)\n"
	"  -C, --context N       text: only columns within N of a difference\n"
	"      --graph FMT       the merged call graph as dot, svg or json\n"
	"      --similarity FMT  the structural similarity matrix as csv or json\n"
	"      --threshold T     join structural groups at similarity T (default 1)\n"
	"      --max-events N    refuse ranks with more events (default 10000000)\n"
	"  -o, --output FILE     write to FILE (through a temporary name)\n"
	"      --json            one JSON document instead of text\n"
	"      --salvage         read damaged files up to their damage\n"
	"  -j, --threads N       worker threads\n"
	"  -h, --help            this help\n";

#define MAX_RANKS_DEFAULT ((uint64_t)10000000)

struct opts {
	const char *dir;
	const char *ranks;
	int64_t cluster;
	const char *mode;
	struct tc_mode_args margs; /* its options */
	bool hierarchical;
	int key;
	struct tc_ascore score;
	int engine;
	int64_t context;
	const char *graph;
	const char *similarity;
	double threshold;
	uint64_t max_events;
	const char *output;
	bool json;
	unsigned flags;
};

/* ---- text helpers -------------------------------------------------------- */

/* Append s cut or padded to exactly w columns (cut marked with ".."). */
static void add_fixed(struct tc_strbuf *sb, const char *s, size_t w)
{
	size_t n = strlen(s);

	if (n > w) {
		tc_strbuf_add(sb, s, w - 2);
		tc_strbuf_addstr(sb, "..");
		return;
	}
	tc_strbuf_add(sb, s, n);
	for (; n < w; n++)
		tc_strbuf_addch(sb, ' ');
}

static const char *op_name(unsigned op)
{
	const char *n = tc_op_name(op);

	return n ? n : "MPI_?";
}

/* One side of a pairwise column: index, op, where, parameters. */
enum { W_IDX = 7, W_OP = 15, W_WHERE = 34, W_PAR = 40 };
#define W_SIDE (W_IDX + 1 + W_OP + 1 + W_WHERE + 1 + W_PAR)

static void add_side(struct tc_strbuf *sb, const struct tc_aseq *s, size_t i, bool last)
{
	struct tc_strbuf par = TC_STRBUF_INIT;
	char idx[24];

	if (i == SIZE_MAX) {
		if (!last)
			add_fixed(sb, "", W_SIDE);
		return;
	}
	snprintf(idx, sizeof(idx), "%*zu", W_IDX, i);
	tc_strbuf_addstr(sb, idx);
	tc_strbuf_addch(sb, ' ');
	add_fixed(sb, op_name(s->ev[i].op), W_OP);
	tc_strbuf_addch(sb, ' ');
	add_fixed(sb, tc_aseq_where(s, i)[0] ? tc_aseq_where(s, i) : "-", W_WHERE);
	tc_strbuf_addch(sb, ' ');
	tc_aseq_format_params(s, i, &par);
	if (last)
		tc_strbuf_addstr(sb, par.buf ? par.buf : "");
	else
		add_fixed(sb, par.buf ? par.buf : "", W_PAR);
	tc_strbuf_release(&par);
}

static void json_scores(struct tc_json *o, const struct opts *op, int engine)
{
	struct tc_json *sc = tc_json_object();

	tc_json_set_int(sc, "match", op->score.match);
	tc_json_set_int(sc, "mismatch", op->score.mismatch);
	tc_json_set_int(sc, "gap", op->score.gap);
	tc_json_set(o, "scores", sc);
	tc_json_set_str(o, "key", tc_akey_name(op->key));
	tc_json_set_str(o, "engine", tc_aengine_name(engine));
}

static struct tc_json *json_events(const struct tc_aseq *s)
{
	struct tc_json *a = tc_json_array();
	struct tc_strbuf par = TC_STRBUF_INIT;

	for (size_t i = 0; i < s->n; i++) {
		struct tc_json *e = tc_json_object();
		tc_json_set_uint(e, "index", i);
		tc_json_set_str(e, "op", op_name(s->ev[i].op));
		tc_json_set_str(e, "where", tc_aseq_where(s, i));
		tc_strbuf_reset(&par);
		tc_aseq_format_params(s, i, &par);
		tc_json_set_str(e, "params", par.buf ? par.buf : "");
		tc_json_set_uint(e, "t_start", s->ev[i].t_start);
		tc_json_set_uint(e, "t_end", s->ev[i].t_end);
		tc_json_append(a, e);
	}
	tc_strbuf_release(&par);
	return a;
}

static const char *col_kind(unsigned char c)
{
	switch (c) {
	case TC_ACOL_MATCH:
		return "match";
	case TC_ACOL_MISMATCH:
		return "mismatch";
	case TC_ACOL_ONLY_A:
		return "only_a";
	default:
		return "only_b";
	}
}

/* Columns worth showing: within context of a column that is not a match
 * (every column when context < 0). Returns new flags. */
static bool *shown_columns(size_t ncols, int64_t context, bool (*differs)(size_t, void *),
			   void *ctx)
{
	bool *show = tc_xcalloc(ncols ? ncols : 1, sizeof(*show));
	size_t last = SIZE_MAX;

	for (size_t c = 0; c < ncols; c++)
		show[c] = context < 0;
	if (context < 0)
		return show;
	for (size_t c = 0; c < ncols; c++) {
		if (!differs(c, ctx))
			continue;
		size_t lo = c >= (size_t)context ? c - (size_t)context : 0;
		size_t hi = TC_MIN(ncols - 1, c + (size_t)context);
		if (last != SIZE_MAX && lo <= last)
			lo = last + 1;
		for (size_t k = lo; k <= hi; k++)
			show[k] = true;
		last = hi;
	}
	return show;
}

static bool pair_differs(size_t c, void *ctx)
{
	return ((const struct tc_alignment *)ctx)->col[c] != TC_ACOL_MATCH;
}

/* ---- pairwise ------------------------------------------------------------ */

static int do_pair(const struct opts *op, const struct tc_traceset *ts, struct tc_aseq **s,
		   struct tc_strbuf *out)
{
	struct tc_alignment al;
	struct tc_error err;
	const struct tc_aseq *a = s[0], *b = s[1];
	size_t i = 0, j = 0, skipped = 0;
	bool *show;

	tc_alignment_init(&al);
	if (tc_align_pair(a->sym, a->n, b->sym, b->n, &op->score, op->engine, &al, &err)) {
		tc_report(&err);
		return TC_EXIT_USAGE;
	}
	if (op->json) {
		struct tc_json *o = tc_json_object(), *cols = tc_json_array(), *r = tc_json_array();
		struct tc_json *ev = tc_json_array(), *only = tc_json_array();
		char *txt;

		tc_json_set_int(o, "schema", 2);
		tc_json_set_str(o, "input", ts->dir);
		json_scores(o, op, al.engine);
		tc_json_append(r, tc_json_int(a->rank));
		tc_json_append(r, tc_json_int(b->rank));
		tc_json_set(o, "ranks", r);
		tc_json_append(ev, tc_json_uint(a->n));
		tc_json_append(ev, tc_json_uint(b->n));
		tc_json_set(o, "events", ev);
		tc_json_set_int(o, "score", al.score);
		tc_json_set_real(o, "similarity", tc_alignment_similarity(&al));
		tc_json_set_uint(o, "columns_total", al.ncols);
		tc_json_set_uint(o, "matches", al.matches);
		tc_json_set_uint(o, "mismatches", al.mismatches);
		tc_json_append(only, tc_json_uint(al.only_a));
		tc_json_append(only, tc_json_uint(al.only_b));
		tc_json_set(o, "only", only);
		for (size_t c = 0; c < al.ncols; c++) {
			struct tc_json *x = tc_json_object();
			unsigned char k = al.col[c];
			tc_json_set_str(x, "kind", col_kind(k));
			tc_json_set(x, "a", k == TC_ACOL_ONLY_B ? tc_json_null() : tc_json_uint(i++));
			tc_json_set(x, "b", k == TC_ACOL_ONLY_A ? tc_json_null() : tc_json_uint(j++));
			tc_json_append(cols, x);
		}
		tc_json_set(o, "columns", cols);
		tc_json_set(o, "events_a", json_events(a));
		tc_json_set(o, "events_b", json_events(b));
		txt = tc_json_dumps(o, TC_JSON_COMPACT);
		tc_strbuf_addstr(out, txt);
		tc_strbuf_addch(out, '\n');
		free(txt);
		tc_json_free(o);
		tc_alignment_release(&al);
		return TC_EXIT_OK;
	}
	tc_strbuf_addf(out, "alignment of ranks %" PRId32 " and %" PRId32 " of %s\n", a->rank,
		       b->rank, ts->dir);
	tc_strbuf_addf(out, "%-12s key %s, scores %d,%d,%d, engine %s\n", "method:",
		       tc_akey_name(op->key), op->score.match, op->score.mismatch, op->score.gap,
		       tc_aengine_name(al.engine));
	tc_strbuf_addf(out, "%-12s rank %" PRId32 ": %zu, rank %" PRId32 ": %zu\n", "events:",
		       a->rank, a->n, b->rank, b->n);
	tc_strbuf_addf(out, "%-12s %zu: %" PRIu64 " matched, %" PRIu64 " mismatched, %" PRIu64
		       " only in rank %" PRId32 ", %" PRIu64 " only in rank %" PRId32 "\n",
		       "columns:", al.ncols, al.matches, al.mismatches, al.only_a, a->rank,
		       al.only_b, b->rank);
	tc_strbuf_addf(out, "%-12s %" PRId64 "\n", "score:", al.score);
	tc_strbuf_addf(out, "%-12s %.4f (matched columns / columns)\n\n", "similarity:",
		       tc_alignment_similarity(&al));
	{
		char h[64];
		snprintf(h, sizeof(h), "%7s   %*s rank %" PRId32, "col", W_IDX, "#", a->rank);
		add_fixed(out, h, 10 + W_SIDE);
		snprintf(h, sizeof(h), "   %*s rank %" PRId32 "\n", W_IDX, "#", b->rank);
		tc_strbuf_addstr(out, h);
	}
	show = shown_columns(al.ncols, op->context, pair_differs, &al);
	for (size_t c = 0; c < al.ncols; c++) {
		unsigned char k = al.col[c];
		size_t ia = k == TC_ACOL_ONLY_B ? SIZE_MAX : i;
		size_t jb = k == TC_ACOL_ONLY_A ? SIZE_MAX : j;
		if (ia != SIZE_MAX)
			i++;
		if (jb != SIZE_MAX)
			j++;
		if (!show[c]) {
			skipped++;
			continue;
		}
		if (skipped) {
			tc_strbuf_addf(out, "%7s   ... %zu matching columns\n", "", skipped);
			skipped = 0;
		}
		tc_strbuf_addf(out, "%7zu %c ", c, k);
		add_side(out, a, ia, false);
		tc_strbuf_addf(out, " %c ", k);
		add_side(out, b, jb, true);
		while (out->len && out->buf[out->len - 1] == ' ')
			out->len--;
		out->buf[out->len] = '\0';
		tc_strbuf_addch(out, '\n');
	}
	if (skipped)
		tc_strbuf_addf(out, "%7s   ... %zu matching columns\n", "", skipped);
	free(show);
	tc_alignment_release(&al);
	return TC_EXIT_OK;
}

/* ---- multiple alignment ---------------------------------------------------- */

struct symtab {
	uint64_t *sym;       /* sorted */
	size_t *id;          /* symbol number in order of first appearance */
	size_t n;
	size_t *first_row, *first_ev; /* an occurrence of symbol number k */
};

static size_t sym_lookup(const struct symtab *t, uint64_t v)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->sym[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return t->id[lo];
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* Number the symbols of the block in the order of their first column. */
static void symtab_build(struct symtab *t, const struct tc_msa *m, struct tc_aseq *const *s)
{
	size_t total = 0, k = 0, next = 0;
	uint64_t *all;

	for (size_t r = 0; r < m->nrows; r++)
		total += s[r]->n;
	all = tc_xmalloc((total + 1) * sizeof(*all));
	for (size_t r = 0; r < m->nrows; r++)
		for (size_t e = 0; e < s[r]->n; e++)
			all[k++] = s[r]->sym[e];
	qsort(all, total, sizeof(*all), cmp_u64);
	t->n = 0;
	for (size_t i = 0; i < total; i++)
		if (!t->n || all[t->n - 1] != all[i])
			all[t->n++] = all[i];
	t->sym = all;
	t->id = tc_xmalloc((t->n + 1) * sizeof(*t->id));
	t->first_row = tc_xmalloc((t->n + 1) * sizeof(*t->first_row));
	t->first_ev = tc_xmalloc((t->n + 1) * sizeof(*t->first_ev));
	for (size_t i = 0; i < t->n; i++)
		t->id[i] = SIZE_MAX;
	for (size_t c = 0; c < m->ncols; c++)
		for (size_t r = 0; r < m->nrows; r++) {
			int64_t e = m->cell[r * m->ncols + c];
			size_t lo = 0, hi = t->n;
			if (e < 0)
				continue;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (t->sym[mid] < s[r]->sym[e])
					lo = mid + 1;
				else
					hi = mid;
			}
			if (t->id[lo] == SIZE_MAX) {
				t->id[lo] = next;
				t->first_row[next] = r;
				t->first_ev[next] = (size_t)e;
				next++;
			}
		}
}

static void symtab_release(struct symtab *t)
{
	free(t->sym);
	free(t->id);
	free(t->first_row);
	free(t->first_ev);
}

struct msa_view {
	const struct tc_msa *m;
	struct tc_aseq *const *s;
};

static bool msa_differs(size_t c, void *ctx)
{
	const struct msa_view *v = ctx;
	uint64_t sym = 0;

	for (size_t r = 0; r < v->m->nrows; r++) {
		int64_t e = v->m->cell[r * v->m->ncols + c];
		if (e < 0)
			return true;
		if (r && v->s[r]->sym[e] != sym)
			return true;
		sym = v->s[r]->sym[e];
	}
	return false;
}

static int do_msa(const struct opts *op, const struct tc_traceset *ts, struct tc_aseq **s,
		  size_t n, struct tc_strbuf *out)
{
	struct tc_msa m;
	struct tc_msa_stats st;
	struct tc_msa_opts mo;
	struct symtab tab;
	struct tc_error err;
	struct msa_view view;
	bool *show;
	size_t skipped = 0;
	int rc;

	mo.score = op->score;
	mo.engine = op->engine;
	tc_msa_init(&m);
	rc = op->hierarchical ? tc_msa_hierarchical(s, n, &mo, &m, &err)
			      : tc_msa_progressive(s, n, &mo, &m, &err);
	if (rc) {
		tc_report(&err);
		tc_msa_release(&m);
		return TC_EXIT_USAGE;
	}
	tc_msa_stats(&m, s, &st);
	symtab_build(&tab, &m, s);
	if (op->json) {
		struct tc_json *o = tc_json_object(), *syms = tc_json_array(), *rows = tc_json_array();
		struct tc_json *stj = tc_json_object();
		char *txt;

		tc_json_set_int(o, "schema", 2);
		tc_json_set_str(o, "input", ts->dir);
		tc_json_set_str(o, "method", op->hierarchical ? "hierarchical" : "progressive");
		json_scores(o, op, op->engine);
		tc_json_set_uint(o, "columns_total", m.ncols);
		tc_json_set_uint(o, "pairwise_alignments", m.pairs);
		tc_json_set_uint(o, "cells", m.cells);
		tc_json_set_uint(stj, "conserved", st.conserved);
		tc_json_set_uint(stj, "gapped", st.gapped);
		tc_json_set_uint(stj, "mixed", st.mixed);
		tc_json_set_real(stj, "identity", st.identity);
		tc_json_set(o, "stats", stj);
		for (size_t k = 0; k < tab.n; k++) {
			struct tc_json *y = tc_json_object();
			const struct tc_aseq *q = s[tab.first_row[k]];
			size_t e = tab.first_ev[k];
			tc_json_set_uint(y, "id", k);
			tc_json_set_str(y, "op", op_name(q->ev[e].op));
			tc_json_set_str(y, "where", tc_aseq_where(q, e));
			tc_json_append(syms, y);
		}
		tc_json_set(o, "symbols", syms);
		for (size_t r = 0; r < n; r++) {
			struct tc_json *row = tc_json_object(), *cells = tc_json_array();
			struct tc_json *sy = tc_json_array();
			tc_json_set_int(row, "rank", s[r]->rank);
			tc_json_set_uint(row, "events", s[r]->n);
			tc_json_set(row, "guide", m.guide[r] == SIZE_MAX ? tc_json_null()
						  : tc_json_int(s[m.guide[r]]->rank));
			for (size_t c = 0; c < m.ncols; c++) {
				int64_t e = m.cell[r * m.ncols + c];
				tc_json_append(cells, e < 0 ? tc_json_null() : tc_json_int(e));
				tc_json_append(sy, e < 0 ? tc_json_null()
						   : tc_json_uint(sym_lookup(&tab, s[r]->sym[e])));
			}
			tc_json_set(row, "cells", cells);
			tc_json_set(row, "symbols", sy);
			tc_json_append(rows, row);
		}
		tc_json_set(o, "rows", rows);
		txt = tc_json_dumps(o, TC_JSON_COMPACT);
		tc_strbuf_addstr(out, txt);
		tc_strbuf_addch(out, '\n');
		free(txt);
		tc_json_free(o);
		goto done;
	}
	tc_strbuf_addf(out, "multiple alignment of %zu %s of %s\n", n, tc_plural(n, "rank", "ranks"),
		       ts->dir);
	tc_strbuf_addf(out, "%-12s %s, key %s, scores %d,%d,%d\n", "method:",
		       op->hierarchical ? "hierarchical (along the call tree)" : "progressive",
		       tc_akey_name(op->key), op->score.match, op->score.mismatch, op->score.gap);
	tc_strbuf_addf(out, "%-12s %zu: %zu conserved, %zu with gaps, %zu mixed; identity "
		       "%.4f\n", "columns:", m.ncols, st.conserved, st.gapped, st.mixed,
		       st.identity);
	tc_strbuf_addf(out, "%-12s %" PRIu64 " pairwise alignments over %" PRIu64 " cells\n",
		       "work:", m.pairs, m.cells);
	tc_strbuf_addf(out, "\n%-8s %8s %8s  %s\n", "rank", "events", "gaps", "aligned against");
	for (size_t r = 0; r < n; r++) {
		tc_strbuf_addf(out, "%-8" PRId32 " %8zu %8zu  ", s[r]->rank, s[r]->n,
			       m.ncols - s[r]->n);
		if (m.guide[r] == SIZE_MAX)
			tc_strbuf_addstr(out, "-\n");
		else
			tc_strbuf_addf(out, "%" PRId32 "\n", s[m.guide[r]]->rank);
	}
	tc_strbuf_addstr(out, "\nsymbols:\n");
	for (size_t k = 0; k < tab.n; k++) {
		const struct tc_aseq *q = s[tab.first_row[k]];
		size_t e = tab.first_ev[k];
		tc_strbuf_addf(out, "  s%-5zu %-22s %s\n", k, op_name(q->ev[e].op),
			       tc_aseq_where(q, e)[0] ? tc_aseq_where(q, e) : "-");
	}
	tc_strbuf_addf(out, "\n%7s  ", "col");
	for (size_t r = 0; r < n; r++)
		tc_strbuf_addf(out, " %6" PRId32, s[r]->rank);
	tc_strbuf_addch(out, '\n');
	view.m = &m;
	view.s = s;
	show = shown_columns(m.ncols, op->context, msa_differs, &view);
	for (size_t c = 0; c < m.ncols; c++) {
		if (!show[c]) {
			skipped++;
			continue;
		}
		if (skipped) {
			tc_strbuf_addf(out, "%7s   ... %zu conserved columns\n", "", skipped);
			skipped = 0;
		}
		tc_strbuf_addf(out, "%7zu %c", c, msa_differs(c, &view) ? '!' : '=');
		for (size_t r = 0; r < n; r++) {
			int64_t e = m.cell[r * m.ncols + c];
			char cell[24];
			if (e < 0)
				snprintf(cell, sizeof(cell), "-");
			else
				snprintf(cell, sizeof(cell), "s%zu", sym_lookup(&tab, s[r]->sym[e]));
			tc_strbuf_addf(out, " %6s", cell);
		}
		tc_strbuf_addch(out, '\n');
	}
	if (skipped)
		tc_strbuf_addf(out, "%7s   ... %zu conserved columns\n", "", skipped);
	free(show);
done:
	symtab_release(&tab);
	tc_msa_release(&m);
	return TC_EXIT_OK;
}

/* ---- graph and similarity -------------------------------------------------- */

static int do_graph(const struct opts *op, struct tc_aseq **s, size_t n, struct tc_strbuf *out)
{
	struct tc_cgraph *g = tc_cgraph_new(n);

	for (size_t i = 0; i < n; i++) {
		tc_cgraph_set_rank(g, i, s[i]->rank);
		tc_cgraph_add(g, i, s[i]);
	}
	if (!strcmp(op->graph, "dot"))
		tc_cgraph_dot(g, out);
	else if (!strcmp(op->graph, "svg"))
		tc_cgraph_svg(g, out);
	else
		tc_cgraph_json(g, out);
	tc_cgraph_free(&g);
	return TC_EXIT_OK;
}

static int do_similarity(const struct opts *op, const struct tc_traceset *ts,
			 struct tc_pool *pool, const size_t *idx, size_t n, struct tc_strbuf *out)
{
	struct tc_fpairs **fp = tc_xcalloc(n ? n : 1, sizeof(*fp));
	struct tc_structural *st = NULL;
	struct tc_structural_opts so = { op->threshold, 0 };
	struct tc_error err;
	int status = TC_EXIT_FAIL;

	if (tc_load_fpairs(ts, pool, idx, n, fp, &err)) {
		tc_report(&err);
		goto out;
	}
	if (tc_structural_build(&st, fp, n, &so, pool, &err)) {
		tc_report(&err);
		goto out;
	}
	if (!strcmp(op->similarity, "csv"))
		tc_structural_csv(st, out);
	else
		tc_structural_json(st, out);
	status = TC_EXIT_OK;
out:
	tc_structural_free(&st);
	for (size_t i = 0; i < n; i++)
		tc_fpairs_free(&fp[i]);
	free(fp);
	return status;
}

/* ---- --cluster: the ranks of one cluster ------------------------------------ */

static int cluster_ranks(const struct opts *op, const struct tc_traceset *ts,
			 struct tc_pool *pool, int32_t **ranks, size_t *nranks)
{
	struct tc_clustering cl;
	struct tc_error err;
	int status = TC_EXIT_FAIL;

	if (!tc_cluster_mode_find(op->mode))
		return tc_usage_error("align", "--mode: unknown clustering mode '%s'", op->mode);
	tc_clustering_init(&cl);
	if (tc_cluster_set(ts, pool, op->mode, &op->margs.o, &cl, &err)) {
		tc_report(&err);
		goto out;
	}
	if (op->cluster < 0 || (uint64_t)op->cluster >= cl.nclusters) {
		tc_errorf("--cluster %" PRId64 ": mode %s made %zu %s (0 to %zu)", op->cluster,
			  op->mode, cl.nclusters, tc_plural(cl.nclusters, "cluster", "clusters"),
			  cl.nclusters ? cl.nclusters - 1 : 0);
		status = TC_EXIT_USAGE;
		goto out;
	}
	{
		const struct tc_cluster *c = &cl.clusters[op->cluster];
		*nranks = c->nranks;
		*ranks = tc_xmalloc((c->nranks + 1) * sizeof(**ranks));
		/* the lead first: it opens the block */
		(*ranks)[0] = c->lead;
		for (size_t i = 0, j = 1; i < c->nranks; i++)
			if (c->ranks[i] != c->lead)
				(*ranks)[j++] = c->ranks[i];
	}
	status = TC_EXIT_OK;
out:
	tc_clustering_release(&cl);
	return status;
}

/* ---- main ------------------------------------------------------------------- */

static int parse_scores(const char *s, struct tc_ascore *sc)
{
	long m, x, g;
	char tail;

	if (sscanf(s, "%ld,%ld,%ld%c", &m, &x, &g, &tail) != 3 || m < -100000 || m > 100000 ||
	    x < -100000 || x > 100000 || g < -100000 || g > 100000)
		return tc_usage_error("align", "--scores: expected M,X,G (integers), got '%s'", s);
	if (m <= x || g >= 0 || m <= 0)
		return tc_usage_error("align", "--scores: need match > 0, match > mismatch and "
				      "gap < 0, got '%s'", s);
	sc->match = (int32_t)m;
	sc->mismatch = (int32_t)x;
	sc->gap = (int32_t)g;
	return 0;
}

enum {
	O_HIER = 0x100, O_SCORES, O_ENGINE, O_GRAPH, O_SIM, O_THRESHOLD, O_MAXEV, O_JSON,
	O_SALVAGE,
};

/* Fill op from argv: -1 to go on, else the status to exit with. */
static int parse_args(int argc, char **argv, struct opts *op)
{
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "ranks", required_argument, NULL, 'r' },
		{ "cluster", required_argument, NULL, 'c' },
		{ "mode", required_argument, NULL, 'm' },
		{ "hierarchical", no_argument, NULL, O_HIER },
		{ "key", required_argument, NULL, 'k' },
		{ "scores", required_argument, NULL, O_SCORES },
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "context", required_argument, NULL, 'C' },
		{ "graph", required_argument, NULL, O_GRAPH },
		{ "similarity", required_argument, NULL, O_SIM },
		{ "threshold", required_argument, NULL, O_THRESHOLD },
		{ "max-events", required_argument, NULL, O_MAXEV },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, O_JSON },
		{ "salvage", no_argument, NULL, O_SALVAGE },
		TC_MODE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	static const struct tc_ascore defscore = TC_ASCORE_DEFAULT;
	uint64_t v;
	int c, rc;

	memset(op, 0, sizeof(*op));
	op->cluster = -1;
	op->mode = "structural";
	tc_mode_args_init(&op->margs, false);
	op->key = TC_AKEY_SITE;
	op->score = defscore;
	op->engine = TC_AENGINE_AUTO;
	op->context = -1;
	op->threshold = 1.0;
	op->max_events = MAX_RANKS_DEFAULT;
	while ((c = getopt_long(argc, argv, ":" TC_COMMON_SHORTOPTS "r:c:m:k:C:o:", longopts,
				NULL)) != -1) {
		if (c != 'k' && tc_mode_option("align", c, optarg, &op->margs, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return tc_print_help(align_usage);
		case 'r':
			op->ranks = optarg;
			break;
		case 'c':
			rc = tc_parse_u64("align", "--cluster", optarg, &v);
			if (rc)
				return rc;
			op->cluster = (int64_t)TC_MIN(v, (uint64_t)INT64_MAX);
			break;
		case 'm':
			op->mode = optarg;
			break;
		case O_HIER:
			op->hierarchical = true;
			break;
		case 'k':
			op->key = tc_akey_from_name(optarg);
			if (op->key < 0)
				return tc_usage_error("align", "--key: expected site, function or op, "
						      "got '%s'", optarg);
			break;
		case O_SCORES:
			rc = parse_scores(optarg, &op->score);
			if (rc)
				return rc;
			break;
		case O_ENGINE:
			op->engine = tc_aengine_from_name(optarg);
			if (op->engine < 0)
				return tc_usage_error("align", "--engine: expected auto, lcs, nw or "
						      "full, got '%s'", optarg);
			break;
		case 'C':
			rc = tc_parse_u64("align", "--context", optarg, &v);
			if (rc)
				return rc;
			op->context = (int64_t)TC_MIN(v, (uint64_t)1 << 40);
			break;
		case O_GRAPH:
			if (strcmp(optarg, "dot") && strcmp(optarg, "svg") && strcmp(optarg, "json"))
				return tc_usage_error("align", "--graph: expected dot, svg or json, "
						      "got '%s'", optarg);
			op->graph = optarg;
			break;
		case O_SIM:
			if (strcmp(optarg, "csv") && strcmp(optarg, "json"))
				return tc_usage_error("align", "--similarity: expected csv or json, "
						      "got '%s'", optarg);
			op->similarity = optarg;
			break;
		case O_THRESHOLD:
			rc = tc_parse_double("align", "--threshold", optarg, &op->threshold);
			if (rc)
				return rc;
			if (!(op->threshold > 0 && op->threshold <= 1))
				return tc_usage_error("align", "--threshold: expected a number in "
						      "(0, 1], got '%s'", optarg);
			break;
		case O_MAXEV:
			rc = tc_parse_u64("align", "--max-events", optarg, &op->max_events);
			if (rc)
				return rc;
			break;
		case 'o':
			op->output = optarg;
			break;
		case O_JSON:
			op->json = true;
			break;
		case O_SALVAGE:
			op->flags |= TC_RAW_SALVAGE;
			break;
		default:
			if ((rc = tc_cmd_option("align", c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error("align", optind >= argc ? "missing DIR" : "too many arguments");
	op->dir = argv[optind];
	if (op->ranks && op->cluster >= 0)
		return tc_usage_error("align", "--ranks and --cluster exclude each other");
	if (op->cluster < 0 && tc_mode_args_first(&op->margs))
		return tc_usage_error("align", "%s is an option of --mode, for --cluster only",
				      tc_mode_args_first(&op->margs));
	if (op->graph && op->similarity)
		return tc_usage_error("align", "--graph and --similarity exclude each other");
	if ((op->graph || op->similarity) && op->json)
		return tc_usage_error("align", "--json goes with alignments; --graph and "
				      "--similarity name their own format");
	if (!op->graph && !op->similarity && !op->ranks && op->cluster < 0)
		return tc_usage_error("align", "which ranks? give --ranks or --cluster");
	if (op->engine == TC_AENGINE_LCS && !tc_ascore_lcs_ok(&op->score))
		return tc_usage_error("align", "--engine lcs needs mismatch <= 2 gap (scores "
				      "%d,%d,%d); use nw", op->score.match, op->score.mismatch,
				      op->score.gap);

	return -1;
}

/* The ranks to align (--ranks, --cluster, or every file) and their files'
 * indices in ts: 0, or the exit status after the message. */
static int pick_ranks(const struct opts *op, const struct tc_traceset *ts, struct tc_pool *pool,
		      int32_t **ranks, size_t *nranks, size_t **idx)
{
	struct tc_error err;
	int status;

	if (op->ranks) {
		if (tc_parse_ranks(op->ranks, 1u << 24, ranks, nranks, &err))
			return tc_usage_error("align", "--ranks: %s", err.msg);
	} else if (op->cluster >= 0) {
		status = cluster_ranks(op, ts, pool, ranks, nranks);
		if (status)
			return status;
	} else {
		*nranks = ts->nfiles;
		*ranks = tc_xmalloc((*nranks + 1) * sizeof(**ranks));
		for (size_t i = 0; i < *nranks; i++)
			(*ranks)[i] = ts->files[i].hdr.rank;
	}
	if (!op->graph && !op->similarity && *nranks < 2)
		return tc_usage_error("align", "need at least two ranks to align, got %zu", *nranks);
	*idx = tc_xmalloc((*nranks + 1) * sizeof(**idx));
	for (size_t i = 0; i < *nranks; i++) {
		(*idx)[i] = tc_set_index(ts, (*ranks)[i]);
		if ((*idx)[i] == SIZE_MAX) {
			tc_errorf("'%s': no file for rank %" PRId32, ts->dir, (*ranks)[i]);
			return TC_EXIT_FAIL;
		}
	}
	return 0;
}

/* Read the ranks' files idx[0..n) and align them (or draw the graph, or
 * the similarity table) into out: 0, or the exit status after the
 * message. */
static int run(const struct opts *op, struct tc_traceset *ts, struct tc_pool *pool,
	       const size_t *idx, size_t nranks, struct tc_strbuf *out)
{
	struct tc_progress *prog;
	struct tc_aseq **seqs;
	struct tc_error err;
	int rc;

	prog = tc_progress_start("reading", nranks);
	ts->progress = tc_progress_counter(prog);
	if (op->similarity) {
		rc = do_similarity(op, ts, pool, idx, nranks, out);
		tc_progress_stop(&prog);
		ts->progress = NULL;
		return rc;
	}
	seqs = tc_xcalloc(nranks, sizeof(*seqs));
	rc = tc_load_aseqs(ts, pool, idx, nranks, op->max_events, op->key, seqs, &err);
	tc_progress_stop(&prog);
	ts->progress = NULL;
	if (rc) {
		tc_report(&err);
		rc = TC_EXIT_FAIL;
	} else if (op->graph) {
		rc = do_graph(op, seqs, nranks, out);
	} else if (nranks == 2 && !op->hierarchical) {
		rc = do_pair(op, ts, seqs, out);
	} else {
		rc = do_msa(op, ts, seqs, nranks, out);
	}
	for (size_t i = 0; i < nranks; i++)
		tc_aseq_free(&seqs[i]);
	free(seqs);
	return rc;
}

int cmd_align(int argc, char **argv)
{
	struct opts op;
	struct tc_traceset *ts = NULL;
	struct tc_pool *pool = NULL;
	struct tc_strbuf out = TC_STRBUF_INIT;
	struct tc_error err;
	int32_t *ranks = NULL;
	size_t nranks = 0, *idx = NULL;
	int status;

	if ((status = parse_args(argc, argv, &op)) >= 0)
		return status;
	tc_error_clear(&err);
	pool = tc_cmd_pool();
	if (tc_open_set(op.dir, op.flags, pool, &ts, &err)) {
		tc_report(&err);
		status = TC_EXIT_FAIL;
	} else if (!(status = pick_ranks(&op, ts, pool, &ranks, &nranks, &idx)) &&
		   !(status = run(&op, ts, pool, idx, nranks, &out)) &&
		   tc_write_file(op.output, out.buf ? out.buf : "", out.len, &err)) {
		tc_report(&err);
		status = TC_EXIT_FAIL;
	}
	free(idx);
	free(ranks);
	tc_strbuf_release(&out);
	tc_traceset_free(&ts);
	tc_pool_free(pool);
	return status;
}
