/*
 * compress.c - tracecluster compress: cluster the ranks of a trace set,
 * merge the lead ranks' compressed traces into one global compressed
 * trace (lib/merge.h) and write it as a .tct file (formats/tct.h).
 *
 * Dissertation §3.3 and §4.2: each lead's trace takes its cluster's
 * ranklist, then the lead traces are merged over a radix tree, first
 * within each main cluster (its sub-clusters), then across main clusters
 * (Table 3.2: "default"; "filtering": within a main cluster only the
 * parameters that differ are merged in). --mode none merges every rank's
 * trace, as ScalaTrace does without clustering.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/analysis.h"
#include "formats/load.h"
#include "lib/progress.h"
#include "cluster/cluster.h"
#include "cluster/signature.h"
#include "formats/raw.h"
#include "formats/reader.h"
#include "formats/tct.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/json.h"
#include "lib/merge.h"
#include "lib/pool.h"
#include "lib/ranklist.h"
#include "lib/replay.h"
#include "lib/rsd.h"
#include "lib/strbuf.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char compress_usage[] =
	"usage: tracecluster compress [--mode M] [-o FILE] [--text|--json] [--force]\n"
	"                             [--lead-only]\n"
	"                             [--timing stats|rank|none] [--precision PCT]\n"
	"                             [--variant default|filtering] [--bins N] [-k K]\n"
	"                             [--noise F] [--threshold F]\n"
	"                             [--match callsite|params]\n"
	"                             [--window N] [--report-json] [--salvage]\n"
	"                             [--format F] [--marker OP[@CALLSITE]|auto]\n"
	"                             [--call-frequency N] [--accuracy] [-j N] DIR|FILE\n"
	"\n"
	"Cluster the ranks of the trace set in DIR (or of the trace FILE), merge the\n"
	"compressed traces of the cluster leads into one global compressed trace and\n"
	"write it to the -o file (standard output when absent or '-'), in the compact\n"
	"binary form unless --text or --json asks for a readable one; then report its\n"
	"size beside the raw input's and the time taken (on standard error when the\n"
	"trace goes to standard output). See tracecluster-compress(1) and\n"
	"tracecluster-tct(5).\n"
	"\n"
	"  -m, --mode M        clustering mode (default callpath-param; see\n"
	"                      tracecluster cluster --list-modes), or none: merge\n"
	"                      every rank's trace (ScalaTrace without clustering)\n"
	"  -o, --output FILE   write the global trace to FILE\n"
	"      --text          write the trace in its readable text form\n"
	"      --json          write the trace in its JSON form\n"
	"      --force         write the binary form to a terminal\n"
	"      --timing T      stats (default): compute and call time statistics per\n"
	"                      event, merged over its ranks; rank: per set of ranks\n"
	"                      whose times agree; none: no times\n"
	"      --lead-only     a lead stands for its cluster's parameters too (the\n"
	"                      papers' merge); by default a member whose parameters\n"
	"                      differ from its lead's keeps its own, with the lead's\n"
	"                      times\n"
	"      --precision PCT merge precision, 0 to 100 (default 100: lossless);\n"
	"                      below 100, parameter values and loop counts that differ\n"
	"                      by at most 100-PCT percent go into histograms, at 0\n"
	"                      every mismatch does\n"
	"      --bins N        histogram bins (default 8, at most 256)\n"
	"      --variant V     default: merge the leads of the sub-clusters of a main\n"
	"                      cluster with the WLCS; filtering: merge only the\n"
	"                      parameters that differ where the loop structure is the\n"
	"                      same (chosen automatically when callpath-param's\n"
	"                      filtering fallback applied)\n"
	"  -k K                kfarthest, kmedoid: at most K clusters (default 9);\n"
	"                      chameleon: K / #call-paths leads per call-path cluster\n"
	"      --noise F       kfarthest, kmedoid: COMP and COMM times within F of the\n"
	"                      larger, or within 3 standard errors, are noise, not a\n"
	"                      difference (0 to 1; default 0.5; 0: exact)\n"
	"      --threshold F   callpath-param: COUNTs within F are alike (default 0.05)\n"
	"      --match M       loop compression: callsite (default) or params\n"
	"      --window N      loop compression looks back N nodes (default 256)\n"
	"      --report-json   print the report as one JSON document\n"
	"      --accuracy      measure the trace written as tracecluster accuracy does\n"
	"                      (matching per measure, simulated replay ACC) and report\n"
	"                      it in one line; reads the whole set into memory again\n"
	"      --salvage       read damaged files up to their damage; warn instead of fail\n"
	"      --format F      read as raw, scalatrace, dumpi or otf2 instead of detecting it\n"
	"      --marker OP[@CALLSITE]|auto\n"
	"                      chameleon: the marker call (default MPI_Barrier at its\n"
	"                      most frequent call site, else auto: found from the\n"
	"                      ranks' timestep loops)\n"
	"      --call-frequency N\n"
	"                      chameleon: run the transition graph every N marker calls\n"
	"                      (default 1)\n"
	"  -j, --threads N     worker threads\n"
	"  -h, --help          this help\n";

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Bytes of the trace set as read: the raw files (a file shared by several
 * rank streams counts once). */
static uint64_t input_bytes(const struct tc_traceset *ts)
{
	uint64_t n = 0;

	for (size_t i = 0; i < ts->nfiles; i++)
		n += ts->files[i].file_bytes;
	return n;
}

static const char *form_name(int form)
{
	return form == TC_TCT_JSON ? "json" : form == TC_TCT_TEXT ? "text" : "binary";
}

/* ---- loading ------------------------------------------------------------- */

struct load_ctx {
	bool none;                     /* --mode none: convert at once */
	const struct tc_merge_opts *mopts;
	struct tc_signatures *sigs;    /* clustering: per file */
	struct tc_rank_trace **traces; /* chameleon: kept */
	struct tc_gtrace **leaves;     /* none: per file */
	struct tc_rank_trace **tabs;   /* none: per file, its communicator table alone */
};

static int load_one(size_t i, struct tc_rank_trace *t, void *p, struct tc_error *err)
{
	struct load_ctx *c = p;

	(void)err;
	if (c->none) {
		c->leaves[i] = tc_anl_none_leaf(t, c->mopts, &c->tabs[i]);
		return 0;
	}
	tc_signatures_compute(t, &c->sigs[i]);
	if (c->traces)
		c->traces[i] = t;
	return 0;
}

static void free_leads(struct tc_rank_trace **tr, bool *fresh, size_t n)
{
	for (size_t i = 0; tr && i < n; i++)
		if (fresh[i])
			tc_rank_trace_free(&tr[i]);
	free(tr);
	free(fresh);
}

/*
 * The traces the leaves are made of: the shared ones, except where a
 * rank's own times can show. Those are each cluster's lead and the first
 * member of each class of equal traces in the cluster (the one that
 * stands for its group of equal members in tc_anl_make_leaves, keeping
 * its times where the lead's do not fit): their own traces, read again
 * when their class's trace is another file's. Returns a new array (free
 * with free_leads), or NULL with err filled.
 */
static struct tc_rank_trace **own_traces(const struct tc_traceset *ts,
					 const struct tc_rsd_opts *ropts,
					 const struct tc_load_shared *sh,
					 const struct tc_clustering *cl, bool **fresh_out,
					 struct tc_error *err)
{
	struct tc_rank_trace **tr = tc_xcalloc(sh->n + 1, sizeof(*tr));
	bool *fresh = tc_xcalloc(sh->n + 1, sizeof(*fresh));
	uint32_t *seen = tc_xcalloc(sh->n + 1, sizeof(*seen)); /* class: cluster + 1 */

	memcpy(tr, sh->traces, sh->n * sizeof(*tr));
	for (size_t k = 0; k < cl->nclusters; k++) {
		const struct tc_cluster *c = &cl->clusters[k];
		for (size_t m = 0; m <= c->nranks; m++) {
			size_t i = m == c->nranks ? c->lead_index : c->index[m];
			if (m < c->nranks && seen[sh->cls[i]] == k + 1)
				continue;
			seen[sh->cls[i]] = (uint32_t)k + 1;
			if (fresh[i] || sh->cls[i] == i)
				continue;
			if (tc_load_own(ts, ropts, sh, i, &tr[i], &fresh[i], err)) {
				free_leads(tr, fresh, sh->n);
				free(seen);
				return NULL;
			}
		}
	}
	free(seen);
	*fresh_out = fresh;
	return tr;
}


/* --accuracy: the trace set read again, whole (as accuracy reads it), and
 * g measured against it. */
static int measure(const char *path, const struct tc_gtrace *g, const struct tc_rsd_opts *ropts,
		   struct tc_pool *pool, struct tc_anl_fidelity *out, struct tc_error *err)
{
	struct tc_anl a;
	struct tc_replay_params p;

	tc_replay_params_init(&p);
	p.lenient = true;
	a.ropts = *ropts;
	if (tc_anl_open(&a, path, TC_ANL_NEED_DIR | TC_ANL_ROPTS, pool, err)) {
		tc_anl_release(&a);
		return -1;
	}
	tc_anl_fidelity(&a, g, pool, &p, NULL, out);
	tc_anl_release(&a);
	return 0;
}

/* ---- report -------------------------------------------------------------- */

struct report {
	const char *path;
	const char *mode;
	const char *variant;
	bool variant_auto;
	int form;
	const char *timing;
	double precision;
	uint32_t bins;
	size_t ranks;
	int32_t world;
	size_t clusters, mains;
	uint64_t events;
	struct tc_gtrace_info info;
	uint64_t bytes, input_bytes;
	double t_load, t_cluster, t_merge, t_write, t_total;
	const struct tc_chameleon *ch; /* chameleon: its numbers (Table 5.2) */
	const struct tc_anl_fidelity *acc; /* --accuracy: the trace measured */
	double t_accuracy;
};

static void report_text(FILE *f, const struct report *r)
{
	fprintf(f, "global trace: %s (%s, timing %s)\n", r->path, form_name(r->form), r->timing);
	fprintf(f, "mode:         %s, variant %s%s, precision %g%%\n", r->mode, r->variant,
		r->variant_auto ? " (automatic)" : "", r->precision);
	fprintf(f, "ranks:        %zu of %" PRId32 ", %zu lead trace%s merged", r->ranks, r->world,
		r->clusters, r->clusters == 1 ? "" : "s");
	if (r->mains)
		fprintf(f, " (%zu main cluster%s)", r->mains, r->mains == 1 ? "" : "s");
	fprintf(f, "\n");
	if (r->ch)
		fprintf(f, "chameleon:    %" PRIu64 " marker calls, %" PRIu64 " invocations: C %"
			PRIu64 ", L %" PRIu64 ", AT %" PRIu64 "; %" PRIu64 " merges\n",
			r->ch->marker_calls, r->ch->calls, r->ch->in_state[TC_CHAM_C],
			r->ch->in_state[TC_CHAM_L], r->ch->in_state[TC_CHAM_AT], r->ch->merges);
	fprintf(f, "events:       %" PRIu64 "\n", r->events);
	fprintf(f, "nodes:        %" PRIu64 " (%" PRIu64 " events, %" PRIu64 " loops, depth %" PRIu32
		"), %" PRIu64 " value variants (%" PRIu64 " per occurrence), %" PRIu64
		" histograms\n",
		r->info.nodes, r->info.events, r->info.loops, r->info.depth, r->info.variants,
		r->info.varying, r->info.hists);
	fprintf(f, "size:         %" PRIu64 " bytes from %" PRIu64 " bytes of input: ", r->bytes,
		r->input_bytes);
	if (r->bytes && r->input_bytes >= r->bytes)
		fprintf(f, "%.1fx smaller\n", (double)r->input_bytes / (double)r->bytes);
	else if (r->input_bytes)
		fprintf(f, "%.2fx LARGER than the input\n", (double)r->bytes / (double)r->input_bytes);
	else
		fprintf(f, "no input bytes\n");
	if (r->acc) {
		fprintf(f, "accuracy:     ");
		tc_anl_match_print(f, &r->acc->match);
		fprintf(f, ", replay ACC %.2f%% (communication only %.2f%%, own compute times "
			"%.2f%%)", 100 * r->acc->acc, 100 * r->acc->acc_comm, 100 * r->acc->acc_own);
		if (r->acc->deadlock)
			fprintf(f, " (a replay stalled)");
		fprintf(f, "\n");
	}
	fprintf(f, "time:         %.3f s (load %.3f, cluster %.3f, merge %.3f, write %.3f",
		r->t_total, r->t_load, r->t_cluster, r->t_merge, r->t_write);
	if (r->acc)
		fprintf(f, ", accuracy %.3f", r->t_accuracy);
	fprintf(f, ")\n");
}

static void report_json(FILE *f, const struct report *r)
{
	struct tc_json *o = tc_json_object(), *t = tc_json_object(), *n = tc_json_object();

	tc_json_set_int(o, "schema", 2);
	tc_json_set_str(o, "output", r->path);
	tc_json_set_str(o, "form", form_name(r->form));
	tc_json_set_str(o, "timing", r->timing);
	tc_json_set_str(o, "mode", r->mode);
	tc_json_set_str(o, "variant", r->variant);
	tc_json_set_bool(o, "variant_automatic", r->variant_auto);
	tc_json_set_real(o, "precision", r->precision);
	tc_json_set_uint(o, "bins", r->bins);
	tc_json_set_uint(o, "ranks", r->ranks);
	tc_json_set_int(o, "world_size", r->world);
	tc_json_set_uint(o, "leads", r->clusters);
	tc_json_set_uint(o, "main_clusters", r->mains);
	tc_json_set_uint(o, "events", r->events);
	if (r->ch) {
		struct tc_json *c = tc_json_object(), *st = tc_json_object();
		tc_json_set_uint(c, "marker_calls", r->ch->marker_calls);
		tc_json_set_uint(c, "calls", r->ch->calls);
		for (int k = 0; k < TC_NCHAM_STATES; k++)
			tc_json_set_uint(st, tc_cham_state_name(k), r->ch->in_state[k]);
		tc_json_set(c, "in_state", st);
		tc_json_set_uint(c, "reclusterings", r->ch->reclusterings);
		tc_json_set_uint(c, "merges", r->ch->merges);
		tc_json_set_uint(c, "ranks_needed", r->ch->needed);
		tc_json_set(o, "chameleon", c);
	}
	tc_json_set_uint(n, "nodes", r->info.nodes);
	tc_json_set_uint(n, "events", r->info.events);
	tc_json_set_uint(n, "loops", r->info.loops);
	tc_json_set_uint(n, "depth", r->info.depth);
	tc_json_set_uint(n, "variants", r->info.variants);
	tc_json_set_uint(n, "varying", r->info.varying);
	tc_json_set_uint(n, "histograms", r->info.hists);
	tc_json_set(o, "nodes", n);
	tc_json_set_uint(o, "bytes", r->bytes);
	tc_json_set_uint(o, "input_bytes", r->input_bytes);
	/* input bytes per output byte: above 1 the trace is smaller */
	tc_json_set_real(o, "ratio", r->bytes ? (double)r->input_bytes / (double)r->bytes : 0);
	tc_json_set_real(t, "total", r->t_total);
	tc_json_set_real(t, "load", r->t_load);
	tc_json_set_real(t, "cluster", r->t_cluster);
	tc_json_set_real(t, "merge", r->t_merge);
	tc_json_set_real(t, "write", r->t_write);
	if (r->acc) {
		struct tc_json *a = tc_json_object();
		tc_json_set(a, "match", tc_anl_match_json(&r->acc->match));
		tc_anl_fidelity_json(a, r->acc);
		tc_json_set(o, "accuracy", a);
		tc_json_set_real(t, "accuracy", r->t_accuracy);
	}
	tc_json_set(o, "seconds", t);
	tc_json_write(o, f, TC_JSON_COMPACT);
	tc_json_free(o);
}

/* ---- the command ---------------------------------------------------------- */

/* The command line, parsed. */
struct compress_args {
	const char *path, *mode_name, *out, *variant;
	const struct tc_cluster_mode *mode; /* NULL: --mode none */
	struct tc_rsd_opts ropts;
	struct tc_merge_opts mopts;
	struct tc_cluster_opts copts;
	bool rjson, none, force, lead_only, accuracy;
	int form;                /* TC_TCT_* */
	int timing;              /* enum tc_gtiming */
	enum tc_format fmt;
	unsigned flags;          /* TC_RAW_* */
};

/* Fill ca from argv: -1 to go on, else the status to exit with. */
static int parse_args(int argc, char **argv, struct compress_args *ca)
{
	static const char *cmd = "compress";
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "mode", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'J' },
		{ "text", no_argument, NULL, 'X' },
		{ "force", no_argument, NULL, 'f' },
		{ "timing", required_argument, NULL, 'G' },
		{ "lead-only", no_argument, NULL, 'L' },
		{ "precision", required_argument, NULL, 'P' },
		{ "bins", required_argument, NULL, 'B' },
		{ "variant", required_argument, NULL, 'V' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "match", required_argument, NULL, 'M' },
		{ "window", required_argument, NULL, 'W' },
		{ "report-json", no_argument, NULL, 'R' },
		{ "salvage", no_argument, NULL, 'A' },
		{ "format", required_argument, NULL, 'F' },
		{ "marker", required_argument, NULL, 'K' },
		{ "call-frequency", required_argument, NULL, 'C' },
		{ "noise", required_argument, NULL, 'N' },
		{ "accuracy", no_argument, NULL, 'Y' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t u;
	int c, rc;

	memset(ca, 0, sizeof(*ca));
	ca->ropts.window = TC_RSD_WINDOW_DEFAULT;
	ca->ropts.match = TC_RSD_MATCH_CALLSITE;
	ca->mopts.precision = 100;
	ca->mopts.bins = TC_HIST_BINS_DEFAULT;
	ca->mode_name = "callpath-param";
	ca->out = "-";
	ca->variant = "default";
	ca->form = TC_TCT_BINARY;
	ca->timing = TC_GTIMING_STATS;
	ca->fmt = TC_FMT_AUTO;
	tc_cluster_opts_init(&ca->copts);
	while ((c = getopt_long(argc, argv, "m:o:k:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return tc_print_help(compress_usage);
		case 'm':
			ca->mode_name = optarg;
			break;
		case 'o':
			ca->out = optarg;
			break;
		case 'J':
			ca->form = TC_TCT_JSON;
			break;
		case 'X':
			ca->form = TC_TCT_TEXT;
			break;
		case 'f':
			ca->force = true;
			break;
		case 'L':
			ca->lead_only = true;
			break;
		case 'Y':
			ca->accuracy = true;
			break;
		case 'G':
			if ((rc = tc_parse_timing(cmd, optarg, &ca->timing)))
				return rc;
			break;
		case 'P':
			if ((rc = tc_parse_double(cmd, "--precision", optarg, &ca->mopts.precision)))
				return rc;
			if (!(ca->mopts.precision >= 0 && ca->mopts.precision <= 100))
				return tc_usage_error(cmd, "--precision: %s is out of range (0 to 100)",
						      optarg);
			break;
		case 'B':
			if ((rc = tc_parse_u64(cmd, "--bins", optarg, &u)))
				return rc;
			if (u < 1 || u > TC_HIST_BINS_MAX)
				return tc_usage_error(cmd, "--bins: %s is out of range (1 to %u)", optarg,
						      TC_HIST_BINS_MAX);
			ca->mopts.bins = (uint32_t)u;
			break;
		case 'V':
			if (strcmp(optarg, "default") && strcmp(optarg, "filtering"))
				return tc_usage_error(cmd, "--variant: expected default or filtering, got '%s'",
						      optarg);
			ca->variant = optarg;
			break;
		case 'k':
			if ((rc = tc_parse_u64(cmd, "-k", optarg, &u)))
				return rc;
			if (u < 1 || u > UINT32_MAX)
				return tc_usage_error(cmd, "-k: %s is out of range", optarg);
			ca->copts.k = (uint32_t)u;
			break;
		case 'N':
			if ((rc = tc_parse_double(cmd, "--noise", optarg, &ca->copts.noise)))
				return rc;
			if (!(ca->copts.noise >= 0 && ca->copts.noise <= 1))
				return tc_usage_error(cmd, "--noise: %s is out of range (0 to 1)", optarg);
			break;
		case 'T':
			if ((rc = tc_parse_double(cmd, "--threshold", optarg, &ca->copts.threshold)))
				return rc;
			if (!(ca->copts.threshold >= 0 && ca->copts.threshold <= 1))
				return tc_usage_error(cmd, "--threshold: %s is out of range (0 to 1)",
						      optarg);
			break;
		case 'M':
			rc = tc_rsd_match_from_name(optarg);
			if (rc < 0)
				return tc_usage_error(cmd, "--match: expected params or callsite, got '%s'",
						      optarg);
			ca->ropts.match = rc;
			break;
		case 'W':
			if ((rc = tc_parse_u64(cmd, "--window", optarg, &u)))
				return rc;
			if (u < 1 || u > TC_RSD_WINDOW_MAX)
				return tc_usage_error(cmd, "--window: %s is out of range (1 to %u)", optarg,
						      TC_RSD_WINDOW_MAX);
			ca->ropts.window = (uint32_t)u;
			break;
		case 'R':
			ca->rjson = true;
			break;
		case 'A':
			ca->flags |= TC_RAW_SALVAGE;
			break;
		case 'F':
			rc = tc_format_from_name(optarg);
			if (rc < 0)
				return tc_usage_error(cmd, "--format: expected raw, scalatrace, dumpi or otf2, got '%s'",
						      optarg);
			ca->fmt = (enum tc_format)rc;
			break;
		case 'K':
			if (tc_chameleon_parse_marker(optarg, &ca->copts.marker_op, &ca->copts.marker_site))
				return tc_usage_error(cmd, "--marker: expected OP[@CALLSITE] or auto, e.g. "
						      "MPI_Barrier@0x1234, got '%s'", optarg);
			break;
		case 'C':
			if ((rc = tc_parse_u64(cmd, "--call-frequency", optarg, &u)))
				return rc;
			if (u < 1 || u > UINT32_MAX)
				return tc_usage_error(cmd, "--call-frequency: %s is out of range "
						      "(1 to %" PRIu32 ")", optarg, UINT32_MAX);
			ca->copts.call_frequency = (uint32_t)u;
			break;
		default:
			if ((rc = tc_cmd_option(cmd, c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error(cmd, optind >= argc ? "missing DIR" : "too many arguments");
	ca->path = argv[optind];
	ca->none = !strcmp(ca->mode_name, "none");
	if (!ca->none && !(ca->mode = tc_cluster_mode_find(ca->mode_name)))
		return tc_usage_error(cmd, "--mode: unknown mode '%s' (see tracecluster cluster "
				      "--list-modes, or none)", ca->mode_name);
	ca->mopts.filtering = !strcmp(ca->variant, "filtering");
	if (ca->form == TC_TCT_BINARY && !strcmp(ca->out, "-") && isatty(STDOUT_FILENO) &&
	    !ca->force) {
		tc_errorf("stdout is a terminal, not writing the binary trace to it "
			  "(use -o FILE, --text or --force)");
		return TC_EXIT_FAIL;
	}
	return -1;
}

/* One run of the command: the set read, clustered, merged, written. */
struct compress_run {
	struct tc_traceset *ts;
	struct tc_pool *pool;
	struct load_ctx lc;
	struct tc_load_shared shared;
	struct tc_clustering result;
	struct tc_gtrace *g, **leaves;
	double t_merge_remote;      /* none: merged while read (tracecluster-mpi) */
	uint64_t tracer_ns;         /* the files' trailers' (tc_traceset_tracer_ns) */
	struct tc_tracer_op *tracer_ops; /* and per op (tc_tracer_ops_get) */
	size_t ntracer_ops;
	uint64_t *skew;             /* the ranks' (tc_traceset_skews) or NULL */
	uint64_t *conc;             /* with them, tc_traceset_concurrency's */
	size_t nconc;
	struct tc_strbuf sb;
	struct report rep;
	struct tc_anl_fidelity fid;
};

static void run_release(const struct compress_args *ca, struct compress_run *r)
{
	struct tc_traceset *ts = r->ts;

	tc_strbuf_release(&r->sb);
	free(r->tracer_ops);
	free(r->skew);
	free(r->conc);
	tc_gtrace_free(&r->g);
	if (r->leaves) {
		size_t n = ca->none ? (ts ? ts->nfiles : 0) : r->result.nclusters;
		for (size_t i = 0; i < n; i++)
			tc_gtrace_free(&r->leaves[i]);
		free(r->leaves);
	}
	if (r->lc.leaves) {
		for (size_t i = 0; ts && i < ts->nfiles; i++)
			tc_gtrace_free(&r->lc.leaves[i]);
		free(r->lc.leaves);
	}
	if (r->lc.traces)
		tc_load_free_all(r->lc.traces, ts ? ts->nfiles : 0);
	if (r->lc.tabs)
		tc_load_free_all(r->lc.tabs, ts ? ts->nfiles : 0);
	tc_load_shared_release(&r->shared);
	free(r->lc.sigs);
	tc_clustering_release(&r->result);
	tc_traceset_free(&r->ts);
}

/* Read every rank's trace compressed into loops; errors reported. */
static int load_set(const struct compress_args *ca, struct compress_run *r)
{
	struct tc_raw_stats *rstats;
	struct tc_progress *prog;
	struct tc_traceset *ts;
	struct tc_error err;
	struct stat st;
	int rc;

	tc_error_clear(&err);
	if (tc_traceset_open_format(&r->ts, ca->path, ca->fmt, ca->flags, r->pool, &err)) {
		tc_report(&err);
		return -1;
	}
	ts = r->ts;
	if (stat(ca->path, &st) == 0 && S_ISDIR(st.st_mode) && tc_traceset_check(ts, &err)) {
		tc_report(&err);
		return -1;
	}
	r->lc.none = ca->none;
	r->lc.mopts = &ca->mopts;
	if (ca->none) {
		r->lc.leaves = tc_xcalloc(ts->nfiles + 1, sizeof(*r->lc.leaves));
		r->lc.tabs = tc_xcalloc(ts->nfiles + 1, sizeof(*r->lc.tabs));
	} else {
		r->lc.sigs = tc_xcalloc(ts->nfiles + 1, sizeof(*r->lc.sigs));
		if (ca->mode->flags & TC_CMF_OWN)
			r->lc.traces = tc_xcalloc(ts->nfiles + 1, sizeof(*r->lc.traces));
	}
	rstats = tc_xcalloc(ts->nfiles + 1, sizeof(*rstats));
	prog = tc_progress_start("reading", ts->nfiles);
	ts->progress = tc_progress_counter(prog);
	if (ca->none && tc_anl_none_remote()) {
		/* read and merged by the processes that read the files */
		const struct tc_none_remote *nr = tc_anl_none_remote();
		rc = nr->run(nr->self, ts, r->pool, &ca->ropts, &ca->mopts, r->lc.tabs, rstats,
			     &r->g, &r->t_merge_remote, &err);
	} else if (ca->none || r->lc.traces)
		rc = tc_load_each(ts, r->pool, &ca->ropts, load_one, &r->lc, rstats, &err);
	else
		rc = tc_load_shared(ts, r->pool, &ca->ropts, load_one, &r->lc, rstats, &r->shared,
				    &err);
	tc_progress_stop(&prog);
	ts->progress = NULL;
	if (rc)
		tc_report(&err);
	for (size_t i = 0; !rc && i < ts->nfiles; i++)
		tc_warn_salvaged(ts->files[i].path, rstats[i].events, rstats[i].bad_blocks,
				 rstats[i].bad_bytes, rstats[i].has_trailer,
				 rstats[i].first_error_msg);
	if (!rc) {
		r->tracer_ns = tc_tracer_of_stats(rstats, ts->nfiles, &r->tracer_ops, &r->ntracer_ops);
		r->skew = ca->lead_only ? NULL : tc_traceset_skews(ts, rstats);
		if (r->skew && tc_traceset_concurrency(ts, r->pool, &r->conc, &r->nconc, &err)) {
			tc_report(&err);
			rc = -1;
		}
	}
	free(rstats);
	return rc ? -1 : 0;
}

/* Cluster the ranks and merge the leads' traces into r->g (with --mode
 * none, every rank's); errors reported. */
static int build(struct compress_args *ca, struct compress_run *r)
{
	struct tc_traceset *ts = r->ts;
	struct tc_error err;
	double t0;

	tc_error_clear(&err);
	if (ca->none) {
		r->rep.clusters = ts->nfiles;
		r->leaves = r->lc.leaves;
		r->lc.leaves = NULL;
		r->rep.t_cluster = 0;
		t0 = now_s();
		if (!r->g)
			r->g = tc_gtrace_merge_tree(r->leaves, ts->nfiles, r->pool, &ca->mopts);
		r->rep.t_merge = r->t_merge_remote + now_s() - t0;
	} else {
		struct tc_cluster_input in = { r->lc.sigs, ts->nfiles,
					       r->lc.traces ? r->lc.traces : r->shared.traces };
		t0 = now_s();
		/* chameleon builds the online global trace as it goes (§5.1, Alg. 8) */
		ca->copts.online = true;
		ca->copts.merge = &ca->mopts;
		ca->copts.exact_members = !ca->lead_only;
		if (tc_cluster_run(ca->mode, &in, &ca->copts, &r->result, &err)) {
			tc_report(&err);
			return -1;
		}
		r->rep.t_cluster = now_s() - t0;
		r->rep.clusters = r->result.nclusters;
		r->rep.mains = r->result.nmains;
		if (r->result.filter.applied && !ca->mopts.filtering) {
			/* §3.6: past P/2 sub-clusters, only differing parameters */
			ca->mopts.filtering = true;
			ca->variant = "filtering";
			r->rep.variant_auto = true;
		}
		t0 = now_s();
		if (r->result.chameleon) {
			r->g = r->result.chameleon->online;
			r->result.chameleon->online = NULL;
			/* the distinct leads whose traces went into it */
			r->rep.clusters = r->result.chameleon->needed;
			r->rep.ch = r->result.chameleon;
			for (size_t i = 0; r->g && i < ts->nfiles; i++)
				tc_anl_copy_sites(r->g, r->lc.traces[i]);
		} else {
			struct tc_rank_trace **tr;
			bool *fresh = NULL;
			tr = own_traces(ts, &ca->ropts, &r->shared, &r->result, &fresh, &err);
			if (!tr) {
				tc_report(&err);
				return -1;
			}
			r->leaves = tc_anl_make_leaves(&r->result, tr, ts->world_size, &ca->mopts,
						       !ca->lead_only, r->pool);
			free_leads(tr, fresh, ts->nfiles);
			r->g = tc_anl_merge_clusters(&r->result, r->leaves, r->pool, &ca->mopts);
		}
		r->rep.t_merge = now_s() - t0;
	}
	if (!r->g) {
		tc_errorf("'%s': no rank to merge", ca->path);
		return -1;
	}
	r->g->tracer_ns = r->tracer_ns;
	if (r->ntracer_ops) {
		free(r->g->tracer_ops);
		r->g->tracer_ops = r->tracer_ops;
		r->g->ntracer_ops = r->ntracer_ops;
		r->tracer_ops = NULL;
	}
	/* the ranks' skews, of a trace of every rank; none with --lead-only,
	 * as the in-job clustering, which reads no file back, keeps none */
	if (r->skew && !ca->lead_only && r->g->ranks.count == (uint64_t)r->g->world_size) {
		free(r->g->skew);
		r->g->skew = r->skew;
		r->skew = NULL;
		r->g->conc = r->conc;
		r->g->nconc = r->nconc;
		r->conc = NULL;
	}
	/* every rank's communicators, from its own table (a cluster's
	 * members share the lead's events, not its communicators); none with
	 * --lead-only, whose trace is the one the in-job clustering writes */
	for (size_t i = 0; !ca->lead_only && i < ts->nfiles; i++) {
		const struct tc_rank_trace *t = ca->none ? r->lc.tabs[i] :
						r->lc.traces ? r->lc.traces[i] : r->shared.traces[i];
		if (t)
			tc_gtrace_add_comms(r->g, ts->files[i].hdr.rank, t->comms, t->ncomms);
	}
	return 0;
}

/* Finish r->g, write it and fill the report; errors reported. */
static int write_trace(const struct compress_args *ca, struct compress_run *r)
{
	struct tc_gtrace *g = r->g;
	struct report *rep = &r->rep;
	struct tc_error err;
	double t0;

	tc_error_clear(&err);
	snprintf(g->mode, sizeof(g->mode), "%s", ca->none ? "none" : ca->mode->name);
	snprintf(g->variant, sizeof(g->variant), "%s", ca->variant);
	g->precision = ca->mopts.precision;
	g->bins = ca->mopts.bins;
	if (g->world_size < r->ts->world_size)
		g->world_size = r->ts->world_size;
	tc_gtrace_set_timing(g, (enum tc_gtiming)ca->timing);
	tc_gtrace_finish(g);

	t0 = now_s();
	tc_tct_format(g, ca->form, &r->sb);
	if (tc_tct_write_file(ca->out, r->sb.buf ? r->sb.buf : "", r->sb.len, &err)) {
		tc_report(&err);
		return -1;
	}
	rep->t_write = now_s() - t0;

	rep->path = strcmp(ca->out, "-") ? ca->out : "standard output";
	rep->mode = g->mode;
	rep->variant = g->variant;
	rep->form = ca->form;
	rep->precision = g->precision;
	rep->timing = tc_gtiming_name(g->timing);
	rep->bins = g->bins;
	rep->ranks = (size_t)g->ranks.count;
	rep->world = g->world_size;
	rep->events = g->events;
	tc_gtrace_info(g, &rep->info);
	rep->bytes = r->sb.len;
	rep->input_bytes = input_bytes(r->ts);
	if (ca->accuracy) {
		t0 = now_s();
		if (measure(ca->path, g, &ca->ropts, r->pool, &r->fid, &err)) {
			tc_report(&err);
			return -1;
		}
		rep->acc = &r->fid;
		rep->t_accuracy = now_s() - t0;
	}
	return 0;
}

/* The report, to stdout, or to stderr when the trace went to stdout. */
static void print_report(const struct compress_args *ca, struct report *rep)
{
	FILE *rf;

	rep->t_total = rep->t_load + rep->t_cluster + rep->t_merge + rep->t_write +
		       rep->t_accuracy;
	rf = strcmp(ca->out, "-") ? stdout : stderr;
	if (rf == stderr)
		fflush(stdout);
	if (tc_g.verbosity >= 0 || ca->rjson) {
		if (ca->rjson)
			report_json(rf, rep);
		else
			report_text(rf, rep);
	}
}

int cmd_compress(int argc, char **argv)
{
	struct compress_args ca;
	struct compress_run r;
	double t0 = now_s();
	int rc;

	if ((rc = parse_args(argc, argv, &ca)) >= 0)
		return rc;
	memset(&r, 0, sizeof(r));
	tc_strbuf_init(&r.sb);
	tc_clustering_init(&r.result);
	r.pool = tc_cmd_pool();
	ca.copts.pool = r.pool;
	rc = TC_EXIT_FAIL;
	if (!load_set(&ca, &r)) {
		r.rep.t_load = now_s() - t0 - r.t_merge_remote;
		if (!build(&ca, &r) && !write_trace(&ca, &r)) {
			print_report(&ca, &r.rep);
			rc = TC_EXIT_OK;
		}
	}
	run_release(&ca, &r);
	tc_pool_free(r.pool);
	return rc;
}
