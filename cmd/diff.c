/*
 * diff.c - tracecluster diff: compare two runs of the same program rank by
 * rank (or cluster lead by cluster lead): aligned events with their time
 * differences, where the runs diverge, and a summary (align/align.h).
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/modeopt.h"
#include "lib/progress.h"
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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char diff_usage[] =
	"usage: tracecluster diff [OPTIONS] [--leads MODE [MODE OPTIONS]] RUN_A RUN_B\n"
	"\n"
	"Compare two runs of the same program (two trace sets) rank by rank: each\n"
	"rank's events in run A are aligned with the same rank's events in run B,\n"
	"and matched events get their time difference (compute time before the call\n"
	"plus time in it, B minus A). Prints per rank where the runs first diverge,\n"
	"the largest time differences and a summary.\n"
	"\n"
	"  -r, --ranks LIST      compare these ranks only (default: every rank of both)\n"
	"      --leads MODE      compare cluster leads: cluster both runs with MODE\n"
	"                        (e.g. structural) and compare each lead of run A with\n"
	"                        the lead of run B's cluster that holds that rank\n"
	"      --max-clusters K, --steps S, --distance D, --threshold F,\n"
	"      --seed S, --marker OP[@CALLSITE], --call-frequency N, --noise F\n"
	"                        the options of the --leads mode, as tracecluster\n"
	"                        cluster takes them (-k there is K)\n"
	"  -k, --key K           events are equal by site (the default), function or op\n"
	"      --scores M,X,G    match, mismatch and gap scores (default 1,-2,-1)\n"
	"      --engine E        auto, lcs, nw or full (default auto)\n"
	"      --top N           largest time differences listed per rank (default 5)\n"
	"      --events          list the aligned events of every rank with their\n"
	"                        time differences\n"
	"  -C, --context N       with --events: only columns within N of a divergence\n"
	"      --max-events N    refuse ranks with more events (default 10000000)\n"
	"  -o, --output FILE     write to FILE (through a temporary name)\n"
	"      --json            one JSON document instead of text\n"
	"      --salvage         read damaged files up to their damage\n"
	"  -j, --threads N       worker threads\n"
	"  -h, --help            this help\n";

struct opts {
	const char *dir_a, *dir_b;
	const char *ranks;
	const char *leads;
	struct tc_mode_args margs; /* options of the --leads mode */
	int key;
	struct tc_diff_opts d;
	bool events;
	int64_t context;
	uint64_t max_events;
	const char *output;
	bool json;
	unsigned flags;
};

/* One comparison: file ia of run A against file ib of run B. */
struct job {
	size_t ia, ib;
	int rc;
	struct tc_error err;
	struct tc_diff_rank d;
	struct tc_aseq *a, *b;  /* until the job's results are printed */
	bool done;
};

struct batch {
	const struct opts *op;
	const struct tc_traceset *ta, *tb;
	struct job *jobs;
	atomic_uint_least64_t *progress;
};

static void run_job(size_t i, void *ctx)
{
	struct batch *bt = ctx;
	struct job *j = &bt->jobs[i];

	j->rc = tc_load_aseq(bt->ta, j->ia, bt->op->max_events, bt->op->key, &j->a, &j->err);
	if (!j->rc)
		j->rc = tc_load_aseq(bt->tb, j->ib, bt->op->max_events, bt->op->key, &j->b,
				     &j->err);
	if (!j->rc)
		j->rc = tc_diff_rank(j->a, j->b, &bt->op->d, &j->d, &j->err);
	j->done = !j->rc;
	if (j->rc) {
		tc_aseq_free(&j->a);
		tc_aseq_free(&j->b);
	}
	if (bt->progress)
		atomic_fetch_add(bt->progress, 1);
}

static const char *op_name(unsigned op)
{
	const char *n = tc_op_name(op);

	return n ? n : "MPI_?";
}

/* "MPI_Send where params", or "(nothing)" for SIZE_MAX. */
static void add_event_desc(struct tc_strbuf *sb, const struct tc_aseq *s, size_t i)
{
	struct tc_strbuf par = TC_STRBUF_INIT;

	if (i == SIZE_MAX) {
		tc_strbuf_addstr(sb, "(nothing)");
		return;
	}
	tc_aseq_format_params(s, i, &par);
	tc_strbuf_addf(sb, "%s %s%s%s", op_name(s->ev[i].op),
		       tc_aseq_where(s, i)[0] ? tc_aseq_where(s, i) : "-", par.len ? " " : "",
		       par.buf ? par.buf : "");
	tc_strbuf_release(&par);
}

static struct tc_json *event_json(const struct tc_aseq *s, size_t i)
{
	struct tc_json *e;
	struct tc_strbuf par = TC_STRBUF_INIT;

	if (!s || i == SIZE_MAX)
		return tc_json_null();
	e = tc_json_object();
	tc_json_set_uint(e, "index", i);
	tc_json_set_str(e, "op", op_name(s->ev[i].op));
	tc_json_set_str(e, "where", tc_aseq_where(s, i));
	tc_aseq_format_params(s, i, &par);
	tc_json_set_str(e, "params", par.buf ? par.buf : "");
	tc_json_set_uint(e, "t_start", s->ev[i].t_start);
	tc_json_set_uint(e, "comp_ns", tc_aseq_comp_ns(s, i));
	tc_json_set_uint(e, "call_ns", tc_aseq_call_ns(s, i));
	tc_strbuf_release(&par);
	return e;
}

/* Totals over every comparison. */
struct totals {
	size_t compared, identical;
	uint64_t events_a, events_b, matched, mismatched, only_a, only_b, param_diffs;
	int64_t delta, delta_call;
	int64_t span_delta_max;
	int32_t span_delta_rank;
	bool any;
};

static void add_totals(struct totals *t, const struct tc_diff_rank *d)
{
	int64_t sd = (int64_t)d->span_b - (int64_t)d->span_a;

	t->compared++;
	t->identical += d->first_div == SIZE_MAX;
	t->events_a += d->events_a;
	t->events_b += d->events_b;
	t->matched += d->al.matches;
	t->mismatched += d->al.mismatches;
	t->only_a += d->al.only_a;
	t->only_b += d->al.only_b;
	t->param_diffs += d->param_diffs;
	t->delta += d->delta_total;
	t->delta_call += d->delta_call;
	if (!t->any || (sd < 0 ? -sd : sd) > (t->span_delta_max < 0 ? -t->span_delta_max
								     : t->span_delta_max)) {
		t->span_delta_max = sd;
		t->span_delta_rank = d->rank_a;
		t->any = true;
	}
}

/* The events of one comparison, side by side with their time differences. */
static void events_text(const struct opts *op, const struct job *j, struct tc_strbuf *out)
{
	const struct tc_alignment *al = &j->d.al;
	size_t i = 0, k = 0, skipped = 0;
	bool *show = tc_xcalloc(al->ncols ? al->ncols : 1, sizeof(*show));

	for (size_t c = 0; c < al->ncols; c++) {
		if (op->context < 0) {
			show[c] = true;
			continue;
		}
		if (al->col[c] == TC_ACOL_MATCH)
			continue;
		size_t lo = c >= (size_t)op->context ? c - (size_t)op->context : 0;
		size_t hi = TC_MIN(al->ncols - 1, c + (size_t)op->context);
		for (size_t x = lo; x <= hi; x++)
			show[x] = true;
	}
	tc_strbuf_addf(out, "\nevents of rank %" PRId32 " (A) and rank %" PRId32 " (B):\n",
		       j->d.rank_a, j->d.rank_b);
	tc_strbuf_addf(out, "%7s   %7s %-15s %-30s %7s %-15s %12s %12s\n", "col", "#A", "op A",
		       "where", "#B", "op B", "delta", "call delta");
	for (size_t c = 0; c < al->ncols; c++) {
		unsigned char kind = al->col[c];
		size_t ia = kind == TC_ACOL_ONLY_B ? SIZE_MAX : i;
		size_t ib = kind == TC_ACOL_ONLY_A ? SIZE_MAX : k;
		char na[24] = "-", nb[24] = "-", dl[TC_DURATION_LEN] = "", dc[TC_DURATION_LEN] = "";
		const char *where;

		if (ia != SIZE_MAX)
			i++;
		if (ib != SIZE_MAX)
			k++;
		if (!show[c]) {
			skipped++;
			continue;
		}
		if (skipped) {
			tc_strbuf_addf(out, "%7s   ... %zu matching events\n", "", skipped);
			skipped = 0;
		}
		if (ia != SIZE_MAX)
			snprintf(na, sizeof(na), "%zu", ia);
		if (ib != SIZE_MAX)
			snprintf(nb, sizeof(nb), "%zu", ib);
		if (kind == TC_ACOL_MATCH) {
			uint64_t ta = tc_aseq_comp_ns(j->a, ia) + tc_aseq_call_ns(j->a, ia);
			uint64_t tb = tc_aseq_comp_ns(j->b, ib) + tc_aseq_call_ns(j->b, ib);
			tc_fmt_ns((int64_t)(tb - ta), true, dl);
			tc_fmt_ns((int64_t)(tc_aseq_call_ns(j->b, ib) - tc_aseq_call_ns(j->a, ia)), true,
				  dc);
		}
		where = ia != SIZE_MAX ? tc_aseq_where(j->a, ia) : tc_aseq_where(j->b, ib);
		tc_strbuf_addf(out, "%7zu %c %7s %-15.15s %-30.30s %7s %-15.15s %*s %*s", c,
			       kind, na, ia != SIZE_MAX ? op_name(j->a->ev[ia].op) : "-",
			       where[0] ? where : "-", nb,
			       ib != SIZE_MAX ? op_name(j->b->ev[ib].op) : "-", tc_fmt_width(dl, 12),
			       dl, tc_fmt_width(dc, 12), dc);
		while (out->len && out->buf[out->len - 1] == ' ')
			out->buf[--out->len] = '\0';
		tc_strbuf_addch(out, '\n');
	}
	if (skipped)
		tc_strbuf_addf(out, "%7s   ... %zu matching events\n", "", skipped);
	free(show);
}

static struct tc_json *job_json(const struct opts *op, const struct job *j,
				const struct tc_aseq *a, const struct tc_aseq *b)
{
	const struct tc_diff_rank *d = &j->d;
	struct tc_json *o = tc_json_object(), *top = tc_json_array();

	tc_json_set_int(o, "rank_a", d->rank_a);
	tc_json_set_int(o, "rank_b", d->rank_b);
	tc_json_set_uint(o, "events_a", d->events_a);
	tc_json_set_uint(o, "events_b", d->events_b);
	tc_json_set_uint(o, "matched", d->al.matches);
	tc_json_set_uint(o, "mismatched", d->al.mismatches);
	tc_json_set_uint(o, "only_a", d->al.only_a);
	tc_json_set_uint(o, "only_b", d->al.only_b);
	tc_json_set_uint(o, "param_diffs", d->param_diffs);
	tc_json_set_real(o, "similarity", tc_alignment_similarity(&d->al));
	tc_json_set_int(o, "score", d->al.score);
	tc_json_set_uint(o, "span_a_ns", d->span_a);
	tc_json_set_uint(o, "span_b_ns", d->span_b);
	tc_json_set_int(o, "delta_ns", d->delta_total);
	tc_json_set_int(o, "delta_call_ns", d->delta_call);
	tc_json_set_uint(o, "unmatched_a_ns", d->unmatched_a_ns);
	tc_json_set_uint(o, "unmatched_b_ns", d->unmatched_b_ns);
	if (d->first_div == SIZE_MAX) {
		tc_json_set(o, "first_divergence", tc_json_null());
	} else {
		struct tc_json *fd = tc_json_object();
		tc_json_set_uint(fd, "column", d->first_div);
		tc_json_set(fd, "a", event_json(a, d->first_div_a));
		tc_json_set(fd, "b", event_json(b, d->first_div_b));
		if (a && b) {
			struct tc_strbuf why = TC_STRBUF_INIT;
			tc_aseq_explain(a, d->first_div_a, b, d->first_div_b, &why);
			tc_json_set_str(fd, "differs", why.buf ? why.buf : "");
			tc_strbuf_release(&why);
		}
		tc_json_set(o, "first_divergence", fd);
	}
	for (size_t t = 0; t < d->ntop; t++) {
		struct tc_json *x = tc_json_object();
		tc_json_set_uint(x, "column", d->top[t].col);
		tc_json_set_uint(x, "a", d->top[t].a);
		tc_json_set_uint(x, "b", d->top[t].b);
		if (a) {
			tc_json_set_str(x, "op", op_name(a->ev[d->top[t].a].op));
			tc_json_set_str(x, "where", tc_aseq_where(a, d->top[t].a));
		}
		tc_json_set_int(x, "delta_ns", d->top[t].delta);
		tc_json_set_int(x, "delta_call_ns", d->top[t].delta_call);
		tc_json_append(top, x);
	}
	tc_json_set(o, "top", top);
	if (op->events && a && b) {
		struct tc_json *cols = tc_json_array();
		size_t i = 0, k = 0;
		for (size_t c = 0; c < d->al.ncols; c++) {
			unsigned char kind = d->al.col[c];
			struct tc_json *x = tc_json_object();
			size_t ia = kind == TC_ACOL_ONLY_B ? SIZE_MAX : i++;
			size_t ib = kind == TC_ACOL_ONLY_A ? SIZE_MAX : k++;
			tc_json_set_str(x, "kind", kind == TC_ACOL_MATCH ? "match"
					: kind == TC_ACOL_MISMATCH ? "mismatch"
					: kind == TC_ACOL_ONLY_A ? "only_a" : "only_b");
			tc_json_set(x, "a", ia == SIZE_MAX ? tc_json_null() : tc_json_uint(ia));
			tc_json_set(x, "b", ib == SIZE_MAX ? tc_json_null() : tc_json_uint(ib));
			if (kind == TC_ACOL_MATCH)
				tc_json_set_int(x, "delta_ns",
						(int64_t)(tc_aseq_comp_ns(b, ib) + tc_aseq_call_ns(b, ib)) -
						(int64_t)(tc_aseq_comp_ns(a, ia) + tc_aseq_call_ns(a, ia)));
			tc_json_append(cols, x);
		}
		tc_json_set(o, "columns", cols);
	}
	return o;
}

static void job_text(const struct opts *op, const struct job *j, const struct tc_aseq *a,
		     const struct tc_aseq *b, struct tc_strbuf *rows, struct tc_strbuf *divs,
		     struct tc_strbuf *tops, struct tc_strbuf *evs)
{
	const struct tc_diff_rank *d = &j->d;
	char who[32], sa[TC_DURATION_LEN], sb[TC_DURATION_LEN], sd[TC_DURATION_LEN];

	tc_fmt_ns((int64_t)d->span_a, false, sa);
	tc_fmt_ns((int64_t)d->span_b, false, sb);
	tc_fmt_ns((int64_t)d->span_b - (int64_t)d->span_a, true, sd);
	if (d->rank_a == d->rank_b)
		snprintf(who, sizeof(who), "%" PRId32, d->rank_a);
	else
		snprintf(who, sizeof(who), "%" PRId32 ":%" PRId32, d->rank_a, d->rank_b);
	tc_strbuf_addf(rows, "%9s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %8" PRIu64 " %7" PRIu64
		       " %7" PRIu64 " %7" PRIu64 " %*s %*s %*s  %s\n", who, d->events_a,
		       d->events_b, d->al.matches, d->al.mismatches, d->al.only_a, d->al.only_b,
		       d->param_diffs, tc_fmt_width(sa, 13), sa, tc_fmt_width(sb, 13), sb,
		       tc_fmt_width(sd, 13), sd,
		       d->first_div == SIZE_MAX ? "-" : "yes");
	if (d->first_div != SIZE_MAX) {
		struct tc_strbuf ta = TC_STRBUF_INIT, tb = TC_STRBUF_INIT, why = TC_STRBUF_INIT;
		size_t ia = d->first_div_a, ib = d->first_div_b;
		add_event_desc(&ta, a, ia);
		add_event_desc(&tb, b, ib);
		tc_strbuf_addf(divs, "  rank %s, column %zu:\n", who, d->first_div);
		if (ia == SIZE_MAX)
			tc_strbuf_addf(divs, "    A: %s\n", ta.buf);
		else
			tc_strbuf_addf(divs, "    A #%zu %s\n", ia, ta.buf);
		if (ib == SIZE_MAX)
			tc_strbuf_addf(divs, "    B: %s\n", tb.buf);
		else
			tc_strbuf_addf(divs, "    B #%zu %s\n", ib, tb.buf);
		/* the same text on both sides: say what the key tells apart */
		if (!strcmp(ta.buf, tb.buf)) {
			tc_aseq_explain(a, ia, b, ib, &why);
			if (why.len)
				tc_strbuf_addf(divs, "    differ in %s\n", why.buf);
		}
		tc_strbuf_release(&ta);
		tc_strbuf_release(&tb);
		tc_strbuf_release(&why);
	}
	for (size_t t = 0; t < d->ntop; t++) {
		const struct tc_diff_delta *x = &d->top[t];
		const char *where = a ? tc_aseq_where(a, x->a) : "";
		tc_fmt_ns(x->delta, true, sa);
		tc_fmt_ns(x->delta_call, true, sb);
		tc_strbuf_addf(tops, "%9s %7zu %7zu %7zu  %-15.15s %-34.34s %*s %*s\n", who, x->col,
			       x->a, x->b, a ? op_name(a->ev[x->a].op) : "?", where[0] ? where : "-",
			       tc_fmt_width(sa, 13), sa, tc_fmt_width(sb, 13), sb);
	}
	if (op->events && a && b)
		events_text(op, j, evs);
}

static int parse_scores(const char *s, struct tc_ascore *sc)
{
	long m, x, g;
	char tail;

	if (sscanf(s, "%ld,%ld,%ld%c", &m, &x, &g, &tail) != 3 || m < -100000 || m > 100000 ||
	    x < -100000 || x > 100000 || g < -100000 || g > 100000)
		return tc_usage_error("diff", "--scores: expected M,X,G (integers), got '%s'", s);
	if (m <= x || g >= 0 || m <= 0)
		return tc_usage_error("diff", "--scores: need match > 0, match > mismatch and "
				      "gap < 0, got '%s'", s);
	sc->match = (int32_t)m;
	sc->mismatch = (int32_t)x;
	sc->gap = (int32_t)g;
	return 0;
}

/* Pairs of files to compare: the same ranks, or leads (--leads). */
static int plan(const struct opts *op, const struct tc_traceset *ta,
		const struct tc_traceset *tb, struct tc_pool *pool, struct job **jobs,
		size_t *njobs, struct tc_strbuf *notes)
{
	struct tc_error err;
	size_t n = 0, alloc = 0, missing = 0;
	int32_t first_missing = -1;

	*jobs = NULL;
	if (op->leads) {
		struct tc_clustering ca, cb;
		int status = TC_EXIT_FAIL;

		if (!tc_cluster_mode_find(op->leads))
			return tc_usage_error("diff", "--leads: unknown clustering mode '%s'",
					      op->leads);
		tc_clustering_init(&ca);
		tc_clustering_init(&cb);
		if (tc_cluster_set(ta, pool, op->leads, &op->margs.o, &ca, &err) ||
		    tc_cluster_set(tb, pool, op->leads, &op->margs.o, &cb, &err)) {
			tc_report(&err);
			goto leads_out;
		}
		tc_strbuf_addf(notes, "%-12s %s: %zu %s in A, %zu in B\n", "leads:", op->leads,
			       ca.nclusters, tc_plural(ca.nclusters, "cluster", "clusters"),
			       cb.nclusters);
		for (size_t c = 0; c < ca.nclusters; c++) {
			int32_t lead = ca.clusters[c].lead, other = -1;
			size_t ia = tc_set_index(ta, lead), ib;
			for (size_t k = 0; k < cb.nclusters && other < 0; k++)
				for (size_t r = 0; r < cb.clusters[k].nranks; r++)
					if (cb.clusters[k].ranks[r] == lead) {
						other = cb.clusters[k].lead;
						break;
					}
			ib = other >= 0 ? tc_set_index(tb, other) : SIZE_MAX;
			if (ia == SIZE_MAX || ib == SIZE_MAX) {
				tc_strbuf_addf(notes, "%-12s lead %" PRId32 " of A has no rank in B\n",
					       "note:", lead);
				continue;
			}
			TC_ALLOC_GROW(*jobs, n + 1, alloc);
			memset(&(*jobs)[n], 0, sizeof(**jobs));
			(*jobs)[n].ia = ia;
			(*jobs)[n].ib = ib;
			n++;
		}
		status = TC_EXIT_OK;
leads_out:
		tc_clustering_release(&ca);
		tc_clustering_release(&cb);
		*njobs = n;
		return status;
	}
	if (op->ranks) {
		int32_t *ranks;
		size_t nr;
		if (tc_parse_ranks(op->ranks, 1u << 24, &ranks, &nr, &err))
			return tc_usage_error("diff", "--ranks: %s", err.msg);
		for (size_t i = 0; i < nr; i++) {
			size_t ia = tc_set_index(ta, ranks[i]), ib = tc_set_index(tb, ranks[i]);
			if (ia == SIZE_MAX || ib == SIZE_MAX) {
				tc_errorf("rank %" PRId32 " is not in '%s'", ranks[i],
					  ia == SIZE_MAX ? ta->dir : tb->dir);
				free(ranks);
				free(*jobs);
				*jobs = NULL;
				return TC_EXIT_FAIL;
			}
			TC_ALLOC_GROW(*jobs, n + 1, alloc);
			memset(&(*jobs)[n], 0, sizeof(**jobs));
			(*jobs)[n].ia = ia;
			(*jobs)[n].ib = ib;
			n++;
		}
		free(ranks);
		*njobs = n;
		return TC_EXIT_OK;
	}
	for (size_t ia = 0; ia < ta->nfiles; ia++) {
		int32_t r = ta->files[ia].hdr.rank;
		size_t ib = tc_set_index(tb, r);
		if (ia && ta->files[ia - 1].hdr.rank == r)
			continue;
		if (ib == SIZE_MAX) {
			if (!missing++)
				first_missing = r;
			continue;
		}
		TC_ALLOC_GROW(*jobs, n + 1, alloc);
		memset(&(*jobs)[n], 0, sizeof(**jobs));
		(*jobs)[n].ia = ia;
		(*jobs)[n].ib = ib;
		n++;
	}
	if (missing)
		tc_strbuf_addf(notes, "%-12s %zu %s of A %s not in B (first %" PRId32 ")\n",
			       "note:", missing, tc_plural(missing, "rank", "ranks"),
			       tc_plural(missing, "is", "are"), first_missing);
	if (tb->nfiles > n)
		tc_strbuf_addf(notes, "%-12s %zu %s of B %s not in A\n", "note:", tb->nfiles - n,
			       tc_plural(tb->nfiles - n, "rank", "ranks"),
			       tc_plural(tb->nfiles - n, "is", "are"));
	*njobs = n;
	return TC_EXIT_OK;
}

enum { O_LEADS = 0x100, O_SCORES, O_ENGINE, O_TOP, O_EVENTS, O_MAXEV, O_JSON, O_SALVAGE };

/* Fill op from argv: -1 to go on, else the status to exit with. */
static int parse_args(int argc, char **argv, struct opts *op)
{
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "ranks", required_argument, NULL, 'r' },
		{ "leads", required_argument, NULL, O_LEADS },
		{ "key", required_argument, NULL, 'k' },
		{ "scores", required_argument, NULL, O_SCORES },
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "top", required_argument, NULL, O_TOP },
		{ "events", no_argument, NULL, O_EVENTS },
		{ "context", required_argument, NULL, 'C' },
		{ "max-events", required_argument, NULL, O_MAXEV },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, O_JSON },
		{ "salvage", no_argument, NULL, O_SALVAGE },
		TC_MODE_LONGOPTS,
		TC_MODE_THRESHOLD_LONGOPT,
		{ NULL, 0, NULL, 0 },
	};
	static const struct tc_ascore defscore = TC_ASCORE_DEFAULT;
	uint64_t v;
	int c, rc;

	memset(op, 0, sizeof(*op));
	tc_mode_args_init(&op->margs, false);
	op->key = TC_AKEY_SITE;
	op->d.score = defscore;
	op->d.engine = TC_AENGINE_AUTO;
	op->d.top = 5;
	op->context = -1;
	op->max_events = 10000000;
	while ((c = getopt_long(argc, argv, ":" TC_COMMON_SHORTOPTS "r:k:C:o:", longopts,
				NULL)) != -1) {
		if (c != 'k' && tc_mode_option("diff", c, optarg, &op->margs, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return tc_print_help(diff_usage);
		case 'r':
			op->ranks = optarg;
			break;
		case O_LEADS:
			op->leads = optarg;
			break;
		case 'k':
			op->key = tc_akey_from_name(optarg);
			if (op->key < 0)
				return tc_usage_error("diff", "--key: expected site, function or op, "
						      "got '%s'", optarg);
			break;
		case O_SCORES:
			rc = parse_scores(optarg, &op->d.score);
			if (rc)
				return rc;
			break;
		case O_ENGINE:
			op->d.engine = tc_aengine_from_name(optarg);
			if (op->d.engine < 0)
				return tc_usage_error("diff", "--engine: expected auto, lcs, nw or "
						      "full, got '%s'", optarg);
			break;
		case O_TOP:
			rc = tc_parse_u64("diff", "--top", optarg, &v);
			if (rc)
				return rc;
			op->d.top = (size_t)TC_MIN(v, (uint64_t)1 << 30);
			break;
		case O_EVENTS:
			op->events = true;
			break;
		case 'C':
			rc = tc_parse_u64("diff", "--context", optarg, &v);
			if (rc)
				return rc;
			op->context = (int64_t)TC_MIN(v, (uint64_t)1 << 40);
			break;
		case O_MAXEV:
			rc = tc_parse_u64("diff", "--max-events", optarg, &op->max_events);
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
			if ((rc = tc_cmd_option("diff", c, optarg, argv)))
				return rc;
		}
	}
	if (argc - optind != 2)
		return tc_usage_error("diff", argc - optind < 2 ? "need two runs, RUN_A and RUN_B"
				      : "too many arguments");
	if (op->ranks && op->leads)
		return tc_usage_error("diff", "--ranks and --leads exclude each other");
	if (!op->leads && tc_mode_args_first(&op->margs))
		return tc_usage_error("diff", "%s is an option of the --leads mode, for --leads "
				      "only", tc_mode_args_first(&op->margs));
	if (op->d.engine == TC_AENGINE_LCS && !tc_ascore_lcs_ok(&op->d.score))
		return tc_usage_error("diff", "--engine lcs needs mismatch <= 2 gap; use nw");
	op->dir_a = argv[optind];
	op->dir_b = argv[optind + 1];

	return -1;
}

/* What the comparison of every job gives: the totals, and the per-rank
 * parts of the output (JSON, or the sections of the text). */
struct diff_out {
	struct totals tot;
	struct tc_json *jranks;
	struct tc_strbuf notes, rows, divs, tops, evs;
};

static void diff_out_release(struct diff_out *o)
{
	tc_json_free(o->jranks);
	tc_strbuf_release(&o->notes);
	tc_strbuf_release(&o->rows);
	tc_strbuf_release(&o->divs);
	tc_strbuf_release(&o->tops);
	tc_strbuf_release(&o->evs);
}

/* Run the jobs (each freed as it is taken): 0, or the exit status after
 * the message. */
static int compare(const struct opts *op, const struct tc_traceset *ta,
		   const struct tc_traceset *tb, struct tc_pool *pool, struct job *jobs,
		   size_t njobs, struct diff_out *o)
{
	struct tc_progress *prog = tc_progress_start("comparing", njobs);

	if (op->json)
		o->jranks = tc_json_array();
	/* in chunks, so that only a chunk's sequences are in memory at once;
	 * results are taken in job order, whatever the thread count */
	for (size_t lo = 0; lo < njobs;) {
		size_t chunk = TC_MAX((size_t)tc_pool_threads(pool) * 4, (size_t)16);
		size_t hi = TC_MIN(njobs, lo + chunk);
		struct batch bt = { op, ta, tb, jobs + lo, tc_progress_counter(prog) };

		tc_pool_for(pool, hi - lo, run_job, &bt);
		for (size_t i = lo; i < hi; i++) {
			struct job *j = &jobs[i];
			if (j->rc) {
				tc_progress_stop(&prog);
				tc_report(&j->err);
				return j->rc == TC_ERR_USAGE ? TC_EXIT_USAGE : TC_EXIT_FAIL;
			}
			add_totals(&o->tot, &j->d);
			if (op->json)
				tc_json_append(o->jranks, job_json(op, j, j->a, j->b));
			else
				job_text(op, j, j->a, j->b, &o->rows, &o->divs, &o->tops, &o->evs);
			tc_aseq_free(&j->a);
			tc_aseq_free(&j->b);
			tc_diff_rank_release(&j->d);
		}
		lo = hi;
	}
	tc_progress_stop(&prog);
	return 0;
}

/* The comparison as one JSON document (takes o->jranks). */
static void format_json(const struct opts *op, const struct tc_traceset *ta,
			const struct tc_traceset *tb, struct diff_out *o, struct tc_strbuf *out)
{
	struct tc_json *doc = tc_json_object(), *sc = tc_json_object(), *sum = tc_json_object();
	char *txt;

	tc_json_set_int(doc, "schema", 1);
	tc_json_set_str(doc, "a", ta->dir);
	tc_json_set_str(doc, "b", tb->dir);
	tc_json_set_str(doc, "key", tc_akey_name(op->key));
	tc_json_set_int(sc, "match", op->d.score.match);
	tc_json_set_int(sc, "mismatch", op->d.score.mismatch);
	tc_json_set_int(sc, "gap", op->d.score.gap);
	tc_json_set(doc, "scores", sc);
	tc_json_set(doc, "leads", op->leads ? tc_json_str(op->leads) : tc_json_null());
	tc_json_set(doc, "ranks", o->jranks);
	o->jranks = NULL;
	tc_json_set_uint(sum, "compared", o->tot.compared);
	tc_json_set_uint(sum, "identical", o->tot.identical);
	tc_json_set_uint(sum, "diverging", o->tot.compared - o->tot.identical);
	tc_json_set_uint(sum, "events_a", o->tot.events_a);
	tc_json_set_uint(sum, "events_b", o->tot.events_b);
	tc_json_set_uint(sum, "matched", o->tot.matched);
	tc_json_set_uint(sum, "mismatched", o->tot.mismatched);
	tc_json_set_uint(sum, "only_a", o->tot.only_a);
	tc_json_set_uint(sum, "only_b", o->tot.only_b);
	tc_json_set_uint(sum, "param_diffs", o->tot.param_diffs);
	tc_json_set_int(sum, "delta_ns", o->tot.delta);
	tc_json_set_int(sum, "delta_call_ns", o->tot.delta_call);
	if (o->tot.any) {
		tc_json_set_int(sum, "largest_span_delta_rank", o->tot.span_delta_rank);
		tc_json_set_int(sum, "largest_span_delta_ns", o->tot.span_delta_max);
	}
	tc_json_set(doc, "summary", sum);
	txt = tc_json_dumps(doc, TC_JSON_COMPACT);
	tc_strbuf_addstr(out, txt);
	tc_strbuf_addch(out, '\n');
	free(txt);
	tc_json_free(doc);
}

/* The comparison as text. */
static void format_text(const struct opts *op, const struct tc_traceset *ta,
			const struct tc_traceset *tb, const struct diff_out *o,
			struct tc_strbuf *out)
{
	char d1[TC_DURATION_LEN], d2[TC_DURATION_LEN];

	tc_strbuf_addf(out, "comparison of A = %s and B = %s\n", ta->dir, tb->dir);
	tc_strbuf_addf(out, "%-12s key %s, scores %d,%d,%d\n", "method:",
		       tc_akey_name(op->key), op->d.score.match, op->d.score.mismatch,
		       op->d.score.gap);
	tc_strbuf_addstr(out, o->notes.buf ? o->notes.buf : "");
	tc_strbuf_addf(out, "%-12s %zu compared, %zu identical in structure, %zu diverge\n",
		       op->leads ? "leads:" : "ranks:", o->tot.compared, o->tot.identical,
		       o->tot.compared - o->tot.identical);
	tc_strbuf_addf(out, "%-12s A %" PRIu64 ", B %" PRIu64 "; %" PRIu64 " matched, %"
		       PRIu64 " mismatched, %" PRIu64 " only in A, %" PRIu64
		       " only in B; parameters differ in %" PRIu64 "\n", "events:",
		       o->tot.events_a, o->tot.events_b, o->tot.matched, o->tot.mismatched, o->tot.only_a,
		       o->tot.only_b, o->tot.param_diffs);
	tc_strbuf_addf(out, "%-12s %s over matched events (%s in calls)", "time B-A:",
		       tc_fmt_ns(o->tot.delta, true, d1), tc_fmt_ns(o->tot.delta_call, true, d2));
	if (o->tot.any)
		tc_strbuf_addf(out, "; largest span change %s at rank %" PRId32,
			       tc_fmt_ns(o->tot.span_delta_max, true, d1), o->tot.span_delta_rank);
	tc_strbuf_addstr(out, "\n\nper rank:\n");
	tc_strbuf_addf(out, "%9s %9s %9s %9s %8s %7s %7s %7s %13s %13s %13s  %s\n", "rank",
		       "events A", "events B", "matched", "mismatch", "only A", "only B",
		       "params", "span A", "span B", "span B-A", "diverge");
	tc_strbuf_addstr(out, o->rows.buf ? o->rows.buf : "");
	tc_strbuf_addstr(out, "\nfirst divergence:\n");
	tc_strbuf_addstr(out, o->divs.len ? o->divs.buf : "  none: every rank makes the same "
			 "calls in the same order in both runs\n");
	if (op->d.top) {
		tc_strbuf_addf(out, "\nlargest time differences (B-A, %zu per rank):\n",
			       op->d.top);
		tc_strbuf_addf(out, "%9s %7s %7s %7s  %-15s %-34s %13s %13s\n", "rank",
			       "col", "#A", "#B", "op", "where", "delta", "call delta");
		tc_strbuf_addstr(out, o->tops.buf ? o->tops.buf : "");
	}
	tc_strbuf_addstr(out, o->evs.buf ? o->evs.buf : "");
}

int cmd_diff(int argc, char **argv)
{
	struct opts op;
	struct tc_traceset *ta = NULL, *tb = NULL;
	struct tc_pool *pool = NULL;
	struct job *jobs = NULL;
	size_t njobs = 0;
	struct tc_strbuf out = TC_STRBUF_INIT;
	struct diff_out o;
	struct tc_error err;
	int rc, status = TC_EXIT_FAIL;

	if ((rc = parse_args(argc, argv, &op)) >= 0)
		return rc;
	memset(&o, 0, sizeof(o));
	tc_error_clear(&err);
	pool = tc_cmd_pool();
	if (tc_open_set(op.dir_a, op.flags, pool, &ta, &err) ||
	    tc_open_set(op.dir_b, op.flags, pool, &tb, &err)) {
		tc_report(&err);
		goto out;
	}
	rc = plan(&op, ta, tb, pool, &jobs, &njobs, &o.notes);
	if (!rc)
		rc = compare(&op, ta, tb, pool, jobs, njobs, &o);
	if (rc) {
		status = rc;
		goto out;
	}
	if (op.json)
		format_json(&op, ta, tb, &o, &out);
	else
		format_text(&op, ta, tb, &o, &out);
	if (tc_write_file(op.output, out.buf ? out.buf : "", out.len, &err)) {
		tc_report(&err);
		goto out;
	}
	status = TC_EXIT_OK;
out:
	for (size_t i = 0; i < njobs; i++) {
		tc_aseq_free(&jobs[i].a);
		tc_aseq_free(&jobs[i].b);
		tc_diff_rank_release(&jobs[i].d);
	}
	free(jobs);
	diff_out_release(&o);
	tc_strbuf_release(&out);
	tc_traceset_free(&ta);
	tc_traceset_free(&tb);
	tc_pool_free(pool);
	return status;
}
