/*
 * compare.c - tracecluster compare: several clustering modes on one trace
 * set, loaded once, side by side in one table.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/analysis.h"
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
	"usage: tracecluster compare --modes M1,M2,... [--json | --csv] [--no-time]\n"
	"                            [--latency US] [--overhead US] [--gap US]\n"
	"                            [--per-byte NS] [--no-compute] DIR\n"
	"\n"
	"Read the trace set in DIR once and run each clustering mode on it; for each,\n"
	"build the global compressed trace and measure it as tracecluster accuracy\n"
	"does. One table: clusters (main clusters), leads, global trace bytes, average\n"
	"space per process, matching percentages (COUNT LOOP #EVENTS SRC DEST TAG\n"
	"COMM),\n"
	"replay accuracy ACC and the seconds clustering and merging took.\n"
	"See tracecluster-compare(1).\n"
	"\n"
	"  -m, --modes LIST    comma-separated clustering modes (see tracecluster\n"
	"                      cluster --list-modes)\n"
	"      --json          one JSON document ({\"schema\":1,\"modes\":[...]})\n"
	"      --csv           CSV, one row per mode\n"
	"      --no-time       leave out the seconds (output then depends on nothing but\n"
	"                      the input)\n"
	TC_ANL_MODEL_HELP
	"  -j, --threads N     worker threads\n"
	"  -h, --help          this help\n";

int cmd_compare(int argc, char **argv)
{
	static const char *cmd = "compare";
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "modes", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'J' },
		TC_ANL_MODEL_LONGOPTS,
		{ "csv", no_argument, NULL, 'C' },
		{ "no-time", no_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	const struct tc_cluster_mode **modes = NULL;
	char *list = NULL, *tok, *save = NULL;
	size_t nmodes = 0;
	struct tc_replay_params p;
	struct tc_replay_result r;
	struct tc_anl a;
	struct tc_anl_eval *ev = NULL;
	struct tc_matrix orig;
	struct tc_pool *pool = NULL;
	struct tc_error err;
	bool json = false, csv = false, notime = false;
	int c, rc, status = TC_EXIT_FAIL;
	double space_none;

	tc_replay_params_init(&p);
	p.lenient = true;
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	tc_matrix_init(&orig, 0);
	while ((c = getopt_long(argc, argv, "m:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (tc_anl_model_option(cmd, c, optarg, &p, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return tc_print_help(compare_usage);
		case 'm':
			free(list);
			list = tc_xstrdup(optarg);
			break;
		case 'J':
			json = true;
			break;
		case 'C':
			csv = true;
			break;
		case 'T':
			notime = true;
			break;
		case ':':
			free(list);
			return tc_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		case '?':
			free(list);
			return tc_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		default:
			rc = tc_common_option(cmd, c, optarg);
			if (rc <= 0) {
				free(list);
				return rc < 0 ? -rc : tc_usage_error(cmd, "unknown option");
			}
		}
	}
	if (optind + 1 != argc || !list || (json && csv)) {
		rc = tc_usage_error(cmd, optind >= argc ? "missing DIR" : optind + 1 < argc ?
				    "too many arguments" : !list ? "missing --modes" :
				    "--json and --csv exclude each other");
		free(list);
		return rc;
	}
	modes = tc_xcalloc(strlen(list) + 1, sizeof(*modes));
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!(modes[nmodes++] = tc_cluster_mode_find(tok))) {
			rc = tc_usage_error(cmd, "--modes: unknown mode '%s' (see tracecluster cluster "
					    "--list-modes)", tok);
			free(list);
			free(modes);
			return rc;
		}
	}
	if (!nmodes) {
		free(list);
		free(modes);
		return tc_usage_error(cmd, "--modes: no mode given");
	}

	tc_error_clear(&err);
	pool = tc_cmd_pool();
	if (tc_anl_open(&a, argv[optind], TC_ANL_SIZES | TC_ANL_NEED_DIR, pool, &err)) {
		tc_report(&err);
		goto out;
	}
	/* the original's replay and matrix once for every mode */
	tc_anl_replay(&a, NULL, &p, &r);
	tc_anl_matrix(&a, NULL, TC_HM_COUNT, false, pool, &orig);
	ev = tc_xcalloc(nmodes, sizeof(*ev));
	for (size_t i = 0; i < nmodes; i++) {
		if (tc_anl_evaluate(&a, modes[i], pool, &p, r.makespan, r.deadlock, &orig,
				    TC_HM_COUNT, &ev[i], &err)) {
			tc_report(&err);
			goto out;
		}
	}
	space_none = tc_anl_space(&a, NULL);
	if (json) {
		struct tc_json *o = tc_json_object(), *arr = tc_json_array();
		tc_json_set_int(o, "schema", 1);
		tc_json_set_str(o, "input", argv[optind]);
		tc_json_set_uint(o, "ranks", a.n);
		tc_json_set_real(o, "replay_t", r.makespan);
		tc_json_set_real(o, "space_per_process_unclustered", space_none);
		for (size_t i = 0; i < nmodes; i++) {
			struct tc_json *m = tc_json_object(), *mm = tc_json_object();
			const struct tc_anl_eval *e = &ev[i];
			tc_json_set_str(m, "mode", e->mode);
			tc_json_set_uint(m, "clusters", e->clusters);
			tc_json_set_uint(m, "main_clusters", e->mains);
			tc_json_set_uint(m, "leads", e->leads);
			tc_json_set_uint(m, "bytes", e->bytes);
			tc_json_set_real(m, "space_per_process", e->space);
			for (int k = 0; k < TC_MATCH_N; k++)
				tc_json_set_real(mm, tc_match_name(k), tc_match_pct(&e->match, k));
			tc_json_set(m, "match", mm);
			tc_json_set_real(m, "acc", e->acc);
			tc_json_set_real(m, "replay_t_clustered", e->t_clustered);
			tc_json_set_uint(m, "replay_forced", e->forced);
			tc_json_set_real(m, "heatmap_l1", e->l1);
			tc_json_set_real(m, "heatmap_max", e->max);
			if (!notime)
				tc_json_set_real(m, "seconds", e->seconds);
			tc_json_append(arr, m);
		}
		tc_json_set(o, "modes", arr);
		tc_json_write(o, stdout, TC_JSON_COMPACT);
		tc_json_free(o);
	} else if (csv) {
		printf("mode,clusters,main_clusters,leads,bytes,space_per_process,count,loop,events,"
		       "src,dest,tag,comm,acc,heatmap_l1%s\n", notime ? "" : ",seconds");
		for (size_t i = 0; i < nmodes; i++) {
			const struct tc_anl_eval *e = &ev[i];
			printf("%s,%zu,%zu,%zu,%" PRIu64 ",%.1f", e->mode, e->clusters, e->mains,
			       e->leads, e->bytes, e->space);
			for (int k = 0; k < TC_MATCH_N; k++)
				printf(",%.2f", tc_match_pct(&e->match, k));
			printf(",%.4f,%g", 100 * e->acc, e->l1);
			if (!notime)
				printf(",%.3f", e->seconds);
			printf("\n");
		}
	} else {
		printf("trace set %s: %zu ranks, replay t %.9f s, space per process without "
		       "clustering %.1f bytes\n\n", argv[optind], a.n, r.makespan, space_none);
		printf("%-16s %8s %6s %6s %10s %11s %7s %7s %7s %7s %7s %7s %7s %8s%s\n", "mode",
		       "clusters", "main", "leads", "bytes", "space/proc", "COUNT", "LOOP", "EVENTS",
		       "SRC", "DEST", "TAG", "COMM", "ACC", notime ? "" : "  seconds");
		for (size_t i = 0; i < nmodes; i++) {
			const struct tc_anl_eval *e = &ev[i];
			printf("%-16s %8zu %6zu %6zu %10" PRIu64 " %11.1f", e->mode, e->clusters,
			       e->mains, e->leads, e->bytes, e->space);
			for (int k = 0; k < TC_MATCH_N; k++)
				printf(" %6.2f%%", tc_match_pct(&e->match, k));
			printf(" %7.2f%%", 100 * e->acc);
			if (!notime)
				printf(" %8.3f", e->seconds);
			printf("\n");
		}
	}
	status = TC_EXIT_OK;
out:
	free(ev);
	free(list);
	free(modes);
	tc_matrix_release(&orig);
	tc_replay_result_release(&r);
	tc_anl_release(&a);
	tc_pool_free(pool);
	return tc_finish_stdout(status);
}
