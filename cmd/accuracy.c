/*
 * accuracy.c - tracecluster accuracy: how well a mode's clustered global
 * trace, expanded to every rank, reproduces the original trace set.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/analysis.h"
#include "cmd/modeopt.h"
#include "cmd/mpireplay.h"
#include "formats/tct.h"
#include "lib/merge.h"
#include "cluster/cluster.h"
#include "lib/accuracy.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/pool.h"
#include "lib/replay.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "viz/viz.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char accuracy_usage[] =
	"usage: tracecluster accuracy --mode M [MODE OPTIONS] [--metric count|bytes|time]\n"
	"                             [--json] [--timing stats|rank|none]\n"
	"                             [--latency US] [--overhead US] [--gap US]\n"
	"                             [--per-byte NS] [--no-compute]\n"
	"                             [--lead-only] [--replay sim|mpi] [--replay-runs N]\n"
	"                             [--mpirun CMD] DIR\n"
	"\n"
	"Cluster the ranks of the trace set in DIR with mode M, build the global\n"
	"compressed trace as tracecluster compress does, expand it to every rank and\n"
	"compare with the original: matching percentages of COUNT, LOOP, #EVENTS,\n"
	"SRC, DEST and TAG (dissertation Table 4.2) and COMM (colour and key of\n"
	"communicator splits), the difference of the communication matrices (L1\n"
	"and largest cell), the replay-time accuracy\n"
	"ACC = 1 - |t - t'|/t of the simulated replay (tracecluster replay, default\n"
	"model), and the average space per process (ICS'14 Table 6, Table 4.8).\n"
	"See tracecluster-accuracy(1).\n"
	"\n"
	"  -m, --mode M        the clustering mode (see tracecluster cluster --list-modes)\n"
	"      --metric M      matrix of the heatmap difference: count (default), bytes,\n"
	"                      time\n"
	"      --timing T      times the global trace keeps, as compress --timing:\n"
	"                      stats (default), rank or none\n"
	"      --json          one JSON document\n"
	"      --lead-only     build the global trace as compress --lead-only does: a\n"
	"                      lead stands for its cluster's parameters too (the\n"
	"                      papers' merge, whose accuracy they report)\n"
	"      --replay R      sim: the simulated replay alone (default); mpi: also\n"
	"                      replay the trace set and the global trace on real MPI\n"
	"                      ranks (tracecluster-replay) and report ACC of their times\n"
	"      --replay-runs N\n"
	"                      with --replay mpi: replay each N times, in turns, and\n"
	"                      take the median times (default 1)\n"
	"      --mpirun CMD    the MPI launcher for --replay mpi (default mpirun)\n"
	"      --mpi M         the launcher's MPI, for the replay program built against\n"
	"                      it: auto (default: from the launcher's name, else from\n"
	"                      the libraries it links; Open MPI's when neither tells),\n"
	"                      openmpi or mpich (tracecluster-replay.mpich)\n"
	TC_ANL_MODEL_HELP
	"  -j, --threads N     worker threads\n"
	"  -h, --help          this help\n"
	"\n"
	"MODE OPTIONS, as tracecluster cluster takes them:\n"
	TC_MODE_HELP;

static void print_text(const char *path, const struct tc_anl *a, const struct tc_anl_eval *e,
		       const struct tc_cluster_mode *m, double space_none, int metric)
{
	char opts[256];

	printf("trace set:  %s (%zu %s)\n", path, a->n, tc_plural(a->n, "rank", "ranks"));
	printf("mode:       %s: %zu %s", e->mode, e->clusters,
	       tc_plural(e->clusters, "cluster", "clusters"));
	if (e->mains)
		printf(" (%zu main)", e->mains);
	printf(", %zu %s, global trace %" PRIu64 " bytes (timing %s%s)\n", e->leads,
	       tc_plural(e->leads, "lead", "leads"), e->bytes, tc_gtiming_name((unsigned)a->timing),
	       a->lead_only ? ", lead-only" : "");
	if (*tc_mode_opts_text(m, &e->opts, opts, sizeof(opts)))
		printf("options:    %s\n", opts);
	printf("matching:   ");
	tc_anl_match_print(stdout, &e->fid.match);
	printf("\n");
	printf("heatmap:    %s difference L1 %g (of %g), max %g\n", tc_hm_metric_name(metric), e->l1,
	       e->total, e->max);
	printf("replay:     ");
	tc_anl_fidelity_print(stdout, "            ", &e->fid, (unsigned)a->timing);
	printf("space:      %.1f bytes per process (without clustering %.1f)\n", e->space,
	       space_none);
}

/* The most runs --replay-runs takes. */
#define MAX_REPLAY_RUNS 1000

/* The replay on real MPI ranks of the original and of the mode's global
 * trace g (written to a temporary file), runs times each, in pairs whose
 * first alternates (ABBA...): the times of every run, their medians, and
 * ACC of the medians. */
struct real_acc {
	unsigned runs;
	double *ts, *ts_clustered;       /* [runs] */
	double t, t_clustered, acc;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n), n > 0 (the mean of the middle two when n is
 * even); v is left as it was. */
static double median(const double *v, unsigned n)
{
	double *s = tc_xmalloc(tc_st_mult(n, sizeof(*s))), m;

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

static int real_replay(const struct tc_anl *a, const struct tc_gtrace *g,
		       const struct tc_mpireplay *mr, struct real_acc *out, struct tc_error *err)
{
	struct tc_mpireplay cmr = *mr;
	struct tc_strbuf sb;
	char path[4096], what[128];
	const char *tmp = getenv("TMPDIR");
	int fd, rc = -1;

	snprintf(path, sizeof(path), "%s/tracecluster-accuracy-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		return tc_error_sys(err, path, "create");
	close(fd);
	/* the temporary file's name means nothing to the user */
	snprintf(what, sizeof(what), "the %s global trace", a->what);
	cmr.what = what;
	cmr.what_path = a->path;
	tc_strbuf_init(&sb);
	tc_tct_format(g, TC_TCT_BINARY, &sb);
	if (tc_tct_write_file(path, sb.buf, sb.len, err))
		goto out;
	/* in turns, each first as often, so that both meet the machine's
	 * changes alike; the trace set's goes first */
	for (unsigned i = 0; i < 2 * out->runs; i++) {
		bool set = (i % 2 == 0) == (i / 2 % 2 == 0);
		if (set && tc_mpireplay_run(mr, a->path, &out->ts[i / 2], err))
			goto out;
		/* a clustered trace whose ranks took their leads' parameters
		 * can block for good (a lead's order of tags given to a member
		 * whose neighbours keep theirs): the watchdog waits twenty
		 * times the trace set's replay, 10 s at least, not its default */
		if (set && i == 0)
			cmr.timeout_s = (unsigned)TC_MIN(3600.0, TC_MAX(10.0, ceil(20 * out->ts[0])));
		if (!set && tc_mpireplay_run(&cmr, path, &out->ts_clustered[i / 2], err))
			goto out;
	}
	out->t = median(out->ts, out->runs);
	out->t_clustered = median(out->ts_clustered, out->runs);
	out->acc = tc_anl_acc(out->t, out->t_clustered);
	rc = 0;
out:
	unlink(path);
	tc_strbuf_release(&sb);
	return rc;
}

/* The real replays' line for runs > 1: the medians and their ACC, then
 * the range of each's times. */
static void print_runs(const struct real_acc *r, int32_t np, const char *compute)
{
	double lo = r->ts[0], hi = lo, clo = r->ts_clustered[0], chi = clo;

	for (unsigned i = 1; i < r->runs; i++) {
		lo = r->ts[i] < lo ? r->ts[i] : lo;
		hi = r->ts[i] > hi ? r->ts[i] : hi;
		clo = r->ts_clustered[i] < clo ? r->ts_clustered[i] : clo;
		chi = r->ts_clustered[i] > chi ? r->ts_clustered[i] : chi;
	}
	printf("real replay: t %.6f s, t' %.6f s, ACC %.4f (medians of %u runs each, in turns; %"
	       PRId32 " MPI ranks, compute %s)\n", r->t, r->t_clustered, r->acc, r->runs, np,
	       compute ? compute : "none");
	printf("             t %.6f to %.6f s, t' %.6f to %.6f s\n", lo, hi, clo, chi);
}

int cmd_accuracy(int argc, char **argv)
{
	static const char *cmd = "accuracy";
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "mode", required_argument, NULL, 'm' },
		{ "metric", required_argument, NULL, 'M' },
		{ "json", no_argument, NULL, 'J' },
		{ "timing", required_argument, NULL, 'G' },
		{ "replay", required_argument, NULL, 'R' },
		{ "mpirun", required_argument, NULL, 'X' },
		{ "mpi", required_argument, NULL, 'P' },
		{ "replay-runs", required_argument, NULL, 'N' },
		{ "lead-only", no_argument, NULL, 'L' },
		TC_ANL_MODEL_LONGOPTS,
		TC_MODE_LONGOPTS,
		TC_MODE_THRESHOLD_LONGOPT,
		{ NULL, 0, NULL, 0 },
	};
	const struct tc_cluster_mode *mode = NULL;
	const char *mode_name = NULL;
	struct tc_replay_params p;
	struct tc_mode_args margs;
	struct tc_anl a;
	struct tc_anl_eval e;
	struct tc_anl_built b;
	struct tc_pool *pool = NULL;
	struct tc_error err;
	struct tc_mpireplay mr = { .launcher = "mpirun", .compute = "cpu" };
	struct real_acc ra = { .runs = 1 };
	bool runs_given = false;
	uint64_t u;
	bool json = false, real = false, built = false, lead_only = false, real_failed = false;
	int metric = TC_HM_COUNT, timing = TC_GTIMING_STATS, c, rc, status = TC_EXIT_FAIL;
	double space_none;

	tc_replay_params_init(&p);
	p.lenient = true;
	memset(&a, 0, sizeof(a));
	tc_mode_args_init(&margs, false);
	while ((c = getopt_long(argc, argv, "m:k:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (tc_anl_model_option(cmd, c, optarg, &p, &rc) ||
		    tc_mode_option(cmd, c, optarg, &margs, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return tc_print_help(accuracy_usage);
		case 'm':
			mode_name = optarg;
			break;
		case 'M':
			metric = tc_hm_metric_from_name(optarg);
			if (metric < 0)
				return tc_usage_error(cmd, "--metric: expected count, bytes or time, got '%s'",
						      optarg);
			break;
		case 'J':
			json = true;
			break;
		case 'G':
			if ((rc = tc_parse_timing(cmd, optarg, &timing)))
				return rc;
			break;
		case 'R':
			if (strcmp(optarg, "sim") && strcmp(optarg, "mpi"))
				return tc_usage_error(cmd, "--replay: expected sim or mpi, got '%s'",
						      optarg);
			real = !strcmp(optarg, "mpi");
			break;
		case 'X':
			mr.launcher = optarg;
			break;
		case 'P':
			if (!tc_mpi_parse(optarg, &mr.mpi))
				return tc_usage_error(cmd, "--mpi: expected auto, openmpi or mpich, "
						      "got '%s'", optarg);
			break;
		case 'N':
			if ((rc = tc_parse_u64(cmd, "--replay-runs", optarg, &u)))
				return rc;
			if (u < 1 || u > MAX_REPLAY_RUNS)
				return tc_usage_error(cmd, "--replay-runs: expected 1 to %d, got '%s'",
						      MAX_REPLAY_RUNS, optarg);
			ra.runs = (unsigned)u;
			runs_given = true;
			break;
		case 'L':
			lead_only = true;
			break;
		default:
			if ((rc = tc_cmd_option(cmd, c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error(cmd, optind >= argc ? "missing DIR" : "too many arguments");
	if (runs_given && !real)
		return tc_usage_error(cmd, "--replay-runs: only with --replay mpi");
	if ((rc = tc_mode_lookup(cmd, mode_name, &mode)))
		return rc;
	tc_error_clear(&err);
	pool = tc_cmd_pool();
	/* the global trace is built once: measured, then (--replay mpi)
	 * replayed on MPI ranks */
	if (tc_anl_open(&a, argv[optind], TC_ANL_SIZES | TC_ANL_NEED_DIR, pool, &err) ||
	    (a.timing = timing, a.what = mode->name, a.lead_only = lead_only, built = true,
	     false) ||
	    tc_anl_build(&a, mode, &margs.o, pool, &b, &err)) {
		tc_report(&err);
		goto out;
	}
	tc_anl_evaluate_built(&a, mode, &margs.o, &b, pool, &p, NULL, NULL, metric, &e);
	space_none = tc_anl_space(&a, NULL);
	if (!p.gaps)
		mr.compute = NULL;
	mr.np = a.world;
	/* a replay that fails (a trace set or a clustered trace the replay
	 * refuses, the launcher) is reported with the rest (err kept for
	 * the end), and the status */
	ra.ts = tc_xcalloc(ra.runs, sizeof(*ra.ts));
	ra.ts_clustered = tc_xcalloc(ra.runs, sizeof(*ra.ts_clustered));
	real_failed = real && real_replay(&a, b.g, &mr, &ra, &err);
	if (json) {
		struct tc_json *o = tc_json_object(), *h = tc_json_object();
		tc_json_set_int(o, "schema", 2);
		tc_json_set_str(o, "input", argv[optind]);
		tc_json_set_str(o, "mode", e.mode);
		tc_json_set(o, "options", tc_mode_opts_json(mode, &e.opts));
		tc_json_set_uint(o, "ranks", a.n);
		tc_json_set_uint(o, "clusters", e.clusters);
		tc_json_set_uint(o, "main_clusters", e.mains);
		tc_json_set_uint(o, "leads", e.leads);
		tc_json_set_uint(o, "bytes", e.bytes);
		tc_json_set_str(o, "timing", tc_gtiming_name((unsigned)timing));
		tc_json_set_bool(o, "lead_only", lead_only);
		tc_json_set(o, "match", tc_anl_match_json(&e.fid.match));
		tc_anl_fidelity_json(o, &e.fid);
		tc_json_set_str(h, "metric", tc_hm_metric_name(metric));
		tc_json_set_real(h, "l1", e.l1);
		tc_json_set_real(h, "max", e.max);
		tc_json_set_real(h, "total", e.total);
		tc_json_set(o, "heatmap_diff", h);
		tc_json_set_real(o, "space_per_process", e.space);
		tc_json_set_real(o, "space_per_process_unclustered", space_none);
		if (real) {
			struct tc_json *r = tc_json_object();
			if (real_failed) {
				char msg[1024];
				tc_error_format(&err, msg, sizeof(msg));
				tc_json_set_str(r, "error", msg);
			} else {
				struct tc_json *t = tc_json_array(), *tc = tc_json_array();
				tc_json_set_real(r, "t_s", ra.t);
				tc_json_set_real(r, "t_clustered_s", ra.t_clustered);
				tc_json_set_real(r, "acc", ra.acc);
				for (unsigned i = 0; i < ra.runs; i++) {
					tc_json_append(t, tc_json_real(ra.ts[i]));
					tc_json_append(tc, tc_json_real(ra.ts_clustered[i]));
				}
				tc_json_set(r, "runs_t_s", t);
				tc_json_set(r, "runs_t_clustered_s", tc);
			}
			tc_json_set_uint(r, "runs", ra.runs);
			tc_json_set_str(r, "compute", mr.compute ? mr.compute : "none");
			tc_json_set(o, "replay_mpi", r);
		}
		tc_json_write(o, stdout, TC_JSON_COMPACT);
		tc_json_free(o);
	} else {
		print_text(argv[optind], &a, &e, mode, space_none, metric);
		if (real && real_failed)
			printf("real replay: failed (%" PRId32 " MPI ranks, compute %s)\n", mr.np,
			       mr.compute ? mr.compute : "none");
		else if (real && ra.runs == 1)
			printf("real replay: t %.6f s, t' %.6f s, ACC %.4f (%" PRId32
			       " MPI ranks, compute %s)\n", ra.t, ra.t_clustered, ra.acc, mr.np,
			       mr.compute ? mr.compute : "none");
		else if (real)
			print_runs(&ra, mr.np, mr.compute);
	}
	status = TC_EXIT_OK;
	if (real_failed) {
		fflush(stdout);
		tc_report(&err);
		status = TC_EXIT_FAIL;
	}
out:
	free(ra.ts);
	free(ra.ts_clustered);
	if (built)
		tc_anl_built_release(&b);
	tc_anl_release(&a);
	tc_pool_free(pool);
	return tc_finish_stdout(status);
}
