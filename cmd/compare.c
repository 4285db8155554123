/*
 * compare.c - tracecluster compare: several clustering modes on one trace
 * set, loaded once, side by side in one table.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/analysis.h"
#include "cmd/modeopt.h"
#include "cluster/cluster.h"
#include "lib/accuracy.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/pool.h"
#include "lib/replay.h"
#include "lib/xalloc.h"
#include "viz/viz.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char compare_usage[] =
	"usage: tracecluster compare --modes M1[:OPT=V[,V...]...],M2,... [MODE OPTIONS]\n"
	"                            [--json | --csv] [--no-time]\n"
	"                            [--latency US] [--overhead US] [--gap US]\n"
	"                            [--per-byte NS] [--no-compute] DIR\n"
	"\n"
	"Read the trace set in DIR once and run each clustering mode on it; for each,\n"
	"build the global compressed trace and measure it as tracecluster accuracy\n"
	"does. One table: clusters (main clusters), leads, global trace bytes, average\n"
	"space per process, matching percentages (COUNT LOOP #EVENTS SRC DEST TAG\n"
	"COMM), replay accuracy ACC and the seconds clustering and merging took.\n"
	"A mode option given a comma-separated list (-k 2,4,8, or in the mode list\n"
	"kfarthest:k=2,4,8) sweeps: one row per value, one per combination when\n"
	"several are lists. A mode that fails gets a row with its error; the others\n"
	"are still shown and the exit status is 1. See tracecluster-compare(1).\n"
	"\n"
	"  -m, --modes LIST    comma-separated clustering modes (see tracecluster\n"
	"                      cluster --list-modes), each optionally with its own\n"
	"                      options: MODE:OPT=V[,V...][:OPT=V...], OPT one of k,\n"
	"                      steps, distance, threshold, seed, marker,\n"
	"                      call-frequency, noise\n"
	"      --json          one JSON document ({\"schema\":2,\"modes\":[...]})\n"
	"      --csv           CSV, one row per mode\n"
	"      --no-time       leave out the seconds (output then depends on nothing but\n"
	"                      the input)\n"
	TC_ANL_MODEL_HELP
	"  -j, --threads N     worker threads\n"
	"  -h, --help          this help\n"
	"\n"
	"MODE OPTIONS, as tracecluster cluster takes them; for every mode they apply\n"
	"to and do not set themselves, each a value or a comma-separated list:\n"
	TC_MODE_HELP;

/* Rows a sweep may make at most. */
#define MAX_ROWS 4096

/* One entry of --modes: a mode and the value lists of its own options. */
struct spec {
	const struct tc_cluster_mode *mode;
	char *vals[TC_NMOPTS];   /* comma-separated values, or NULL */
};

/* One row of the table: a mode with one value of each option. */
struct row {
	const struct tc_cluster_mode *mode;
	struct tc_cluster_opts opts;
	char label[256];         /* MODE[:OPT=V...], as --modes takes it */
	char *values[TC_NMOPTS]; /* the values of the options given (new) */
	struct tc_anl_eval e;
	char *error;             /* new, or NULL when it ran */
};

static void spec_release(struct spec *s)
{
	for (int i = 0; i < TC_NMOPTS; i++)
		free(s->vals[i]);
}

static void add_value(char **list, const char *v)
{
	size_t n = *list ? strlen(*list) : 0, m = strlen(v);
	char *p = tc_xrealloc(*list, n + m + 2);

	if (n)
		p[n++] = ',';
	memcpy(p + n, v, m + 1);
	*list = p;
}

/*
 * Parse --modes: "kfarthest:k=2,4,8,callpath,kmedoid:k=3:seed=1,2". A
 * comma ends a value; an item that names no mode and has no ':' is one
 * more value of the option before it. Returns 0 or the usage status.
 */
static int parse_modes(const char *cmd, const char *text, struct spec **out, size_t *nout)
{
	char *copy = tc_xstrdup(text), *tok, *save = NULL;
	struct spec *specs = tc_xcalloc(strlen(text) + 1, sizeof(*specs));
	size_t n = 0;
	int last = -1, rc = 0;
	struct tc_cluster_opts scratch;

	tc_cluster_opts_init(&scratch);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *opt, *osave = NULL;
		const struct tc_cluster_mode *m;

		if (!colon && !tc_cluster_mode_find(tok) && n && last >= 0) {
			if ((rc = tc_mode_opt_set(cmd, last, tok, &scratch)))
				goto out;
			add_value(&specs[n - 1].vals[last], tok);
			continue;
		}
		if (colon)
			*colon = '\0';
		if (!(m = tc_cluster_mode_find(tok))) {
			rc = tc_usage_error(cmd, "--modes: unknown mode '%s' (see tracecluster cluster "
					    "--list-modes)", tok);
			goto out;
		}
		specs[n++].mode = m;
		last = -1;
		for (opt = colon ? strtok_r(colon + 1, ":", &osave) : NULL; opt;
		     opt = strtok_r(NULL, ":", &osave)) {
			char *eq = strchr(opt, '=');
			int id;
			if (!eq || eq == opt || !eq[1]) {
				rc = tc_usage_error(cmd, "--modes: expected OPT=VALUE after '%s:', got "
						    "'%s'", m->name, opt);
				goto out;
			}
			*eq = '\0';
			if ((id = tc_mode_opt_from_name(opt)) < 0) {
				rc = tc_usage_error(cmd, "--modes: unknown option '%s' of %s (k, steps, "
						    "distance, threshold, seed, marker, "
						    "call-frequency, noise)", opt, m->name);
				goto out;
			}
			if (!tc_mode_opt_applies(m, id)) {
				rc = tc_usage_error(cmd, "--modes: mode %s takes no %s", m->name,
						    tc_mode_opt_name(id));
				goto out;
			}
			if ((rc = tc_mode_opt_set(cmd, id, eq + 1, &scratch)))
				goto out;
			free(specs[n - 1].vals[id]);
			specs[n - 1].vals[id] = NULL;
			add_value(&specs[n - 1].vals[id], eq + 1);
			last = id;
		}
	}
	if (!n)
		rc = tc_usage_error(cmd, "--modes: no mode given");
out:
	free(copy);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			spec_release(&specs[i]);
		free(specs);
		return rc;
	}
	*out = specs;
	*nout = n;
	return 0;
}

/* The values of a comma-separated list: count, and the k-th (new). */
static size_t list_len(const char *s)
{
	size_t n = 1;

	for (; *s; s++)
		n += *s == ',';
	return n;
}

static char *list_item(const char *s, size_t k)
{
	const char *e;

	while (k--)
		s = strchr(s, ',') + 1;
	e = strchr(s, ',');
	return tc_xstrndup(s, e ? (size_t)(e - s) : strlen(s));
}

/* Every row of a spec: its own lists, else the command line's, for the
 * options the mode takes; the first option varies slowest. */
static int expand(const char *cmd, const struct spec *sp, const struct tc_mode_args *ma,
		  struct row **rows, size_t *nrows, size_t *alloc)
{
	const char *lists[TC_NMOPTS];
	size_t len[TC_NMOPTS], total = 1;

	for (int i = 0; i < TC_NMOPTS; i++) {
		lists[i] = sp->vals[i] ? sp->vals[i] :
			   tc_mode_opt_applies(sp->mode, i) ? ma->given[i] : NULL;
		len[i] = lists[i] ? list_len(lists[i]) : 1;
		total *= len[i];
		if (total > MAX_ROWS)
			return tc_usage_error(cmd, "--modes: more than %d rows to run", MAX_ROWS);
	}
	if (*nrows + total > MAX_ROWS)
		return tc_usage_error(cmd, "--modes: more than %d rows to run", MAX_ROWS);
	for (size_t r = 0; r < total; r++) {
		struct row *w;
		size_t rest = r, pos = 0;
		if (*nrows == *alloc) {
			*alloc = *alloc ? 2 * *alloc : 16;
			*rows = tc_xrealloc(*rows, *alloc * sizeof(**rows));
		}
		w = &(*rows)[(*nrows)++];
		memset(w, 0, sizeof(*w));
		w->mode = sp->mode;
		tc_cluster_opts_init(&w->opts);
		pos = (size_t)snprintf(w->label, sizeof(w->label), "%s", sp->mode->name);
		for (int i = TC_NMOPTS - 1; i >= 0; i--) {
			size_t k = rest % len[i];
			rest /= len[i];
			if (lists[i])
				w->values[i] = list_item(lists[i], k);
		}
		for (int i = 0; i < TC_NMOPTS; i++) {
			int rc;
			if (!w->values[i])
				continue;
			if ((rc = tc_mode_opt_set(cmd, i, w->values[i], &w->opts)))
				return rc;
			if (pos < sizeof(w->label))
				pos += (size_t)snprintf(w->label + pos, sizeof(w->label) - pos, ":%s=%s",
							tc_mode_opt_name(i), w->values[i]);
		}
	}
	return 0;
}

static void rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < TC_NMOPTS; k++)
			free(rows[i].values[k]);
		free(rows[i].error);
	}
	free(rows);
}

/* Quote a CSV field when it needs it. */
static void csv_field(const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_json(const char *input, const struct tc_anl *a, double t, double space_none,
		       const struct row *rows, size_t n, bool notime)
{
	struct tc_json *o = tc_json_object(), *arr = tc_json_array();

	tc_json_set_int(o, "schema", 2);
	tc_json_set_str(o, "input", input);
	tc_json_set_uint(o, "ranks", a->n);
	tc_json_set_real(o, "replay_t", t);
	tc_json_set_real(o, "space_per_process_unclustered", space_none);
	for (size_t i = 0; i < n; i++) {
		struct tc_json *m = tc_json_object();
		const struct tc_anl_eval *e = &rows[i].e;
		tc_json_set_str(m, "mode", rows[i].mode->name);
		tc_json_set_str(m, "label", rows[i].label);
		tc_json_set(m, "options", tc_mode_opts_json(rows[i].mode, &rows[i].opts));
		if (rows[i].error) {
			tc_json_set_str(m, "error", rows[i].error);
			tc_json_append(arr, m);
			continue;
		}
		tc_json_set_uint(m, "clusters", e->clusters);
		tc_json_set_uint(m, "main_clusters", e->mains);
		tc_json_set_uint(m, "leads", e->leads);
		tc_json_set_uint(m, "bytes", e->bytes);
		tc_json_set_real(m, "space_per_process", e->space);
		tc_json_set(m, "match", tc_anl_match_json(&e->fid.match));
		tc_json_set_real(m, "acc", e->fid.acc);
		tc_json_set_real(m, "acc_comm", e->fid.acc_comm);
		tc_json_set_real(m, "acc_own_times", e->fid.acc_own);
		tc_json_set_real(m, "replay_t_clustered", e->fid.t_clustered);
		tc_json_set_uint(m, "replay_forced", e->fid.forced);
		tc_json_set_real(m, "heatmap_l1", e->l1);
		tc_json_set_real(m, "heatmap_max", e->max);
		if (!notime)
			tc_json_set_real(m, "seconds", e->seconds);
		tc_json_append(arr, m);
	}
	tc_json_set(o, "modes", arr);
	tc_json_write(o, stdout, TC_JSON_COMPACT);
	tc_json_free(o);
}

static void print_csv(const struct row *rows, size_t n, bool notime)
{
	printf("label,mode,clusters,main_clusters,leads,bytes,space_per_process");
	for (int k = 0; k < TC_MATCH_N; k++)
		printf(",%s_pct", tc_match_name(k));
	printf(",acc,acc_comm,acc_own_times,replay_t_clustered,heatmap_l1,heatmap_max%s,error\n",
	       notime ? "" : ",seconds");
	for (size_t i = 0; i < n; i++) {
		const struct tc_anl_eval *e = &rows[i].e;
		csv_field(rows[i].label);
		printf(",%s", rows[i].mode->name);
		if (rows[i].error) {
			printf(",,,,,");
			for (int k = 0; k < TC_MATCH_N; k++)
				printf(",");
			printf(",,,,,,%s,", notime ? "" : ",");
			csv_field(rows[i].error);
			printf("\n");
			continue;
		}
		printf(",%zu,%zu,%zu,%" PRIu64 ",%.1f", e->clusters, e->mains, e->leads, e->bytes,
		       e->space);
		for (int k = 0; k < TC_MATCH_N; k++)
			printf(",%.2f", tc_match_pct(&e->fid.match, k));
		printf(",%.6f,%.6f,%.6f,%.9g,%g,%g", e->fid.acc, e->fid.acc_comm, e->fid.acc_own,
		       e->fid.t_clustered, e->l1, e->max);
		if (!notime)
			printf(",%.3f", e->seconds);
		printf(",\n");
	}
}

static void print_text(const char *input, const struct tc_anl *a, double t, double space_none,
		       const struct row *rows, size_t n, bool notime)
{
	char tb[TC_DURATION_LEN];
	int w = 16;

	for (size_t i = 0; i < n; i++)
		if ((int)strlen(rows[i].label) > w)
			w = (int)strlen(rows[i].label);
	printf("trace set %s: %zu %s, replay t %s, space per process without clustering %.1f "
	       "bytes\n\n", input, a->n, tc_plural(a->n, "rank", "ranks"),
	       tc_fmt_seconds(t, false, tb), space_none);
	printf("%-*s %8s %6s %6s %10s %11s %7s %7s %7s %7s %7s %7s %7s %8s %8s %8s%s\n", w,
	       "mode", "clusters", "main", "leads", "bytes", "space/proc", "COUNT", "LOOP", "EVENTS",
	       "SRC", "DEST", "TAG", "COMM", "ACC", "ACCcomm", "ACCown", notime ? "" : "  seconds");
	for (size_t i = 0; i < n; i++) {
		const struct tc_anl_eval *e = &rows[i].e;
		if (rows[i].error) {
			printf("%-*s error: %s\n", w, rows[i].label, rows[i].error);
			continue;
		}
		printf("%-*s %8zu %6zu %6zu %10" PRIu64 " %11.1f", w, rows[i].label, e->clusters,
		       e->mains, e->leads, e->bytes, e->space);
		for (int k = 0; k < TC_MATCH_N; k++)
			printf(" %6.2f%%", tc_match_pct(&e->fid.match, k));
		printf(" %7.2f%% %7.2f%% %7.2f%%", 100 * e->fid.acc, 100 * e->fid.acc_comm,
		       100 * e->fid.acc_own);
		if (!notime)
			printf(" %8.3f", e->seconds);
		printf("\n");
	}
}

/* The command line, parsed, and the rows of the table it asks for. */
struct compare_args {
	const char *path;
	struct tc_mode_args margs;
	struct tc_replay_params p;
	bool json, csv, notime;
	struct spec *specs;
	size_t nspecs;
	struct row *rows;
	size_t nrows, arows;
};

static void args_release(struct compare_args *ca)
{
	rows_free(ca->rows, ca->nrows);
	for (size_t i = 0; i < ca->nspecs; i++)
		spec_release(&ca->specs[i]);
	free(ca->specs);
}

/* Fill ca from argv: -1 to go on, else the status to exit with (ca then
 * released). */
static int parse_args(int argc, char **argv, struct compare_args *ca)
{
	static const char *cmd = "compare";
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "modes", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'J' },
		TC_ANL_MODEL_LONGOPTS,
		TC_MODE_LONGOPTS,
		TC_MODE_THRESHOLD_LONGOPT,
		{ "csv", no_argument, NULL, 'C' },
		{ "no-time", no_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	const char *list = NULL;
	int c, rc;

	memset(ca, 0, sizeof(*ca));
	tc_replay_params_init(&ca->p);
	ca->p.lenient = true;
	tc_mode_args_init(&ca->margs, true);
	while ((c = getopt_long(argc, argv, "m:k:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (tc_anl_model_option(cmd, c, optarg, &ca->p, &rc) ||
		    tc_mode_option(cmd, c, optarg, &ca->margs, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return tc_print_help(compare_usage);
		case 'm':
			list = optarg;
			break;
		case 'J':
			ca->json = true;
			break;
		case 'C':
			ca->csv = true;
			break;
		case 'T':
			ca->notime = true;
			break;
		default:
			if ((rc = tc_cmd_option(cmd, c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc || !list || (ca->json && ca->csv))
		return tc_usage_error(cmd, optind >= argc ? "missing DIR" : optind + 1 < argc ?
				      "too many arguments" : !list ? "missing --modes" :
				      "--json and --csv exclude each other");
	if ((rc = parse_modes(cmd, list, &ca->specs, &ca->nspecs)))
		return rc;
	for (size_t i = 0; i < ca->nspecs; i++)
		if ((rc = expand(cmd, &ca->specs[i], &ca->margs, &ca->rows, &ca->nrows, &ca->arows))) {
			args_release(ca);
			return rc;
		}
	ca->path = argv[optind];
	return -1;
}

/* Evaluate every row against the original in a (its replay in base):
 * the rows that failed (each with its error). */
static size_t evaluate(struct compare_args *ca, struct tc_anl *a, struct tc_pool *pool,
		       struct tc_anl_base *base)
{
	struct tc_matrix orig;
	struct tc_error err;
	size_t failed = 0;

	/* the original's replay and matrix once for every mode */
	a->what = "original";
	tc_anl_base_replay(a, &ca->p, base);
	tc_matrix_init(&orig, 0);
	tc_anl_matrix(a, NULL, TC_HM_COUNT, false, pool, &orig);
	for (size_t i = 0; i < ca->nrows; i++) {
		struct row *row = &ca->rows[i];
		char what[sizeof(row->label) + 48];
		snprintf(what, sizeof(what), "%s (%zu of %zu)", row->label, i + 1, ca->nrows);
		a->what = what;
		tc_error_clear(&err);
		if (tc_anl_evaluate(a, row->mode, &row->opts, pool, &ca->p, base, &orig, TC_HM_COUNT,
				    &row->e, &err)) {
			char buf[1200];
			tc_error_format(&err, buf, sizeof(buf));
			row->error = tc_xstrdup(buf);
			failed++;
		}
	}
	a->what = NULL;
	tc_matrix_release(&orig);
	return failed;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args ca;
	struct tc_anl_base r;
	struct tc_anl a;
	struct tc_pool *pool;
	struct tc_error err;
	size_t failed;
	double space_none;
	int rc, status = TC_EXIT_FAIL;

	if ((rc = parse_args(argc, argv, &ca)) >= 0)
		return rc;
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	tc_error_clear(&err);
	pool = tc_cmd_pool();
	if (tc_anl_open(&a, ca.path, TC_ANL_SIZES | TC_ANL_NEED_DIR, pool, &err)) {
		tc_report(&err);
		goto out;
	}
	failed = evaluate(&ca, &a, pool, &r);
	space_none = tc_anl_space(&a, NULL);
	if (ca.json)
		print_json(ca.path, &a, r.t, space_none, ca.rows, ca.nrows, ca.notime);
	else if (ca.csv)
		print_csv(ca.rows, ca.nrows, ca.notime);
	else
		print_text(ca.path, &a, r.t, space_none, ca.rows, ca.nrows, ca.notime);
	for (size_t i = 0; i < ca.nrows; i++)
		if (ca.rows[i].error)
			tc_errorf("compare: %s failed: %s", ca.rows[i].label, ca.rows[i].error);
	if (failed)
		tc_errorf("compare: %zu of %zu %s failed", failed, ca.nrows,
			  tc_plural(ca.nrows, "mode", "modes"));
	status = failed ? TC_EXIT_FAIL : TC_EXIT_OK;
out:
	tc_anl_release(&a);
	tc_pool_free(pool);
	args_release(&ca);
	return tc_finish_stdout(status);
}
