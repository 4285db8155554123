/*
 * heatmap.c - tracecluster heatmap: the sender x receiver communication
 * matrix of a trace set or of a global trace expanded, as a figure (PDF,
 * SVG, PNG) or CSV; with --diff the original and the clustered global
 * trace side by side with their difference; with --comm, --window and
 * --phase the traffic of one communicator, time window or phase; with
 * --histogram the sizes of the messages instead.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/analysis.h"
#include "analysis/evsource.h"
#include "analysis/seqload.h"
#include "cmd/figopt.h"
#include "cmd/modeopt.h"
#include "cluster/cluster.h"
#include "formats/tct.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/json.h"
#include "lib/merge.h"
#include "lib/pool.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "viz/viz.h"

#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char heatmap_usage[] =
	"usage: tracecluster heatmap [--metric count|bytes|time] [--collectives]\n"
	"                            [--format pdf|svg|png|csv|json] [--scale linear|log]\n"
	"                            [--width L] [--height L] [--font-size PT] [--dpi N]\n"
	"                            [--comm ID] [--window T0:T1] [--phase K [--marker M]]\n"
	"                            [--histogram] [--diff --mode M [MODE OPTIONS]]\n"
	"                            [--max-cells N] [--title T] [--force]\n"
	"                            -o FILE DIR|TRACE.tct\n"
	"\n"
	"Draw the sender x receiver communication matrix of the trace set in DIR, or\n"
	"of a global compressed trace expanded to every rank, as a figure (PDF, SVG or\n"
	"PNG: axes with rank labels, axis titles, a colour bar with the unit, a title),\n"
	"or write it as CSV in long form (src,dst,METRIC: one row per non-zero cell,\n"
	"sorted). Past N ranks per axis, figures bin runs of ranks (CSV never does).\n"
	"With --histogram, the sizes of the messages in powers of two instead.\n"
	"See tracecluster-heatmap(1).\n"
	"\n"
	"  -m, --metric M      count (messages, default), bytes, or time (us in sends)\n"
	"      --collectives   add collectives as their point-to-point equivalents\n"
	"                      (on any communicator whose members were recorded)\n"
	"  -o, --output FILE   where to write ('-': standard output)\n"
	"  -f, --format F      pdf, svg, png, csv, or json (--histogram only); default:\n"
	"                      from FILE's extension, else svg\n"
	"      --scale S       linear (default) or log colour scale (value axis with\n"
	"                      --histogram)\n"
	TC_FIG_HELP_SIZE
	"                      (default 3.3in wide, 7in with --diff; height to fit)\n"
	TC_FIG_HELP_TEXT
	"      --comm ID       only the traffic on communicator ID (as tracecluster\n"
	"                      dump --comms lists them; 0: MPI_COMM_WORLD)\n"
	"      --window T0:T1  only calls that start from T0 to before T1, seconds\n"
	"                      from the start of the run (either may be left out)\n"
	"      --phase K       only phase K: the calls after the K-th marker call up to\n"
	"                      and including the next (0: up to the first), as\n"
	"                      chameleon cuts them; --marker OP[@CALLSITE] names the\n"
	"                      marker (default MPI_Barrier at its most frequent site)\n"
	"      --histogram     message sizes (bins of powers of two) instead of the\n"
	"                      matrix; --metric says what the bars measure\n"
	"      --diff          original, clustered and their difference side by side\n"
	"                      (needs DIR and --mode)\n"
	"      --mode M        the clustering mode of --diff\n"
	"      --max-cells N   at most N bins per axis (default 256)\n"
	"      --title T       the figure's title ('': none)\n"
	"      --force         write PDF or PNG to a terminal\n"
	"  -j, --threads N     worker threads\n"
	"  -h, --help          this help\n"
	"\n"
	"MODE OPTIONS, as tracecluster cluster takes them (with --diff):\n"
	TC_MODE_HELP;

enum { FMT_SVG = TC_FIG_SVG, FMT_PDF = TC_FIG_PDF, FMT_PNG = TC_FIG_PNG,
       FMT_CSV = TC_FIG_NFORMATS, FMT_JSON };

static const char *const data_formats[] = { "csv", "json" };

/* "T0:T1" in seconds, either side may be empty. */
static int parse_window(const char *cmd, const char *s, double *t0, double *t1)
{
	const char *colon = strchr(s, ':');
	char *end;

	*t0 = 0;
	*t1 = INFINITY;
	if (!colon)
		goto bad;
	if (colon > s) {
		*t0 = strtod(s, &end);
		if (end != colon || !isfinite(*t0) || *t0 < 0)
			goto bad;
	}
	if (colon[1]) {
		*t1 = strtod(colon + 1, &end);
		if (*end || isnan(*t1))
			goto bad;
	}
	if (!(*t1 > *t0))
		return tc_usage_error(cmd, "--window: %s is empty (T1 must be past T0)", s);
	return 0;
bad:
	return tc_usage_error(cmd, "--window: expected T0:T1 in seconds from the start of the "
			      "run (e.g. 0.5:1.5, 2:), got '%s'", s);
}


/* ---- what the events add up to, under the filters ----------------------- */

struct hm_slot {
	struct tc_matrix m;
	struct tc_msghist h;
	uint64_t markers;        /* marker calls so far */
	uint64_t *sites;         /* marker pre-pass: (signature, calls) pairs */
	size_t nsites, asites;
};

struct hm_job {
	int metric;
	bool coll, hist;
	int32_t world;
	bool by_comm, by_window, by_phase;
	uint32_t comm;
	uint64_t t0, t1;         /* ns from the start of the run */
	uint64_t phase;
	uint32_t marker_op;
	uint64_t marker_site;
	struct hm_slot *slots;
	size_t nslots;
};

static void hist_msg(void *p, int32_t src, int32_t dst, uint64_t bytes, double us)
{
	(void)src;
	(void)dst;
	tc_msghist_add(p, bytes, us);
}

static void hm_visit(void *p, size_t i, int32_t rank, const struct tc_event *ev, uint64_t site,
		     const struct tc_matrix_comm *comm, uint64_t t)
{
	struct hm_job *j = p;
	struct hm_slot *s = &j->slots[i];
	bool keep = true;

	if (j->by_phase) {
		/* the marker call ends its phase */
		keep = s->markers == j->phase;
		if (ev->op == j->marker_op && site == j->marker_site)
			s->markers++;
	}
	if (j->by_comm && ev->comm != j->comm)
		keep = false;
	if (j->by_window && (t < j->t0 || t >= j->t1))
		keep = false;
	if (!keep)
		return;
	if (j->hist)
		tc_event_messages(rank, ev, j->world, j->coll, comm, hist_msg, &s->h);
	else
		tc_matrix_add_event(&s->m, rank, ev, j->metric, j->coll, comm);
}

/* The marker pre-pass: how often each call site calls the marker's op. */
static void marker_visit(void *p, size_t i, int32_t rank, const struct tc_event *ev,
			 uint64_t site, const struct tc_matrix_comm *comm, uint64_t t)
{
	struct hm_job *j = p;
	struct hm_slot *s = &j->slots[i];
	size_t k;

	(void)rank;
	(void)comm;
	(void)t;
	if (ev->op != j->marker_op)
		return;
	for (k = 0; k < s->nsites; k += 2)
		if (s->sites[k] == site)
			break;
	if (k == s->nsites) {
		TC_ALLOC_GROW(s->sites, s->nsites + 2, s->asites);
		s->sites[k] = site;
		s->sites[k + 1] = 0;
		s->nsites += 2;
	}
	s->sites[k + 1]++;
}

static void job_init(struct hm_job *j, const struct tc_evsrc *src)
{
	j->world = tc_evsrc_world(src);
	j->nslots = tc_evsrc_slots(src);
	j->slots = tc_xcalloc(j->nslots + 1, sizeof(*j->slots));
	for (size_t i = 0; i < j->nslots; i++) {
		tc_matrix_init(&j->slots[i].m, j->world);
		tc_msghist_init(&j->slots[i].h);
	}
}

static void job_release(struct hm_job *j)
{
	for (size_t i = 0; i < j->nslots; i++) {
		tc_matrix_release(&j->slots[i].m);
		free(j->slots[i].sites);
	}
	free(j->slots);
	j->slots = NULL;
	j->nslots = 0;
}

/* The call site of the marker: the one given, else the one that calls
 * its op most often over every rank (ties: the smaller signature), as
 * chameleon takes it. */
static int find_marker(struct hm_job *j, const struct tc_evsrc *src, struct tc_pool *pool,
		       struct tc_error *err)
{
	uint64_t best = 0, calls = 0;
	bool found = false;

	if (j->marker_site)
		return 0;
	if (tc_evsrc_each(src, pool, marker_visit, j, err))
		return -1;
	for (size_t i = 0; i < j->nslots; i++) {
		const struct hm_slot *s = &j->slots[i];
		for (size_t k = 0; k < s->nsites; k += 2) {
			uint64_t site = s->sites[k], n = 0;
			for (size_t q = 0; q < j->nslots; q++)
				for (size_t r = 0; r < j->slots[q].nsites; r += 2)
					if (j->slots[q].sites[r] == site)
						n += j->slots[q].sites[r + 1];
			if (!found || n > calls || (n == calls && site < best)) {
				best = site;
				calls = n;
				found = true;
			}
		}
	}
	if (!found)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "--phase: no %s call in the traces (choose the marker with "
				    "--marker OP[@CALLSITE])", tc_op_name(j->marker_op));
	j->marker_site = best;
	return 0;
}

/* Run the job over src: the matrix (or histogram) of what passes the
 * filters, reduced in slot order. */
static int run_job(struct hm_job *j, const struct tc_evsrc *src, struct tc_pool *pool,
		   struct tc_matrix *m, struct tc_msghist *h, struct tc_error *err)
{
	uint64_t most = 0;

	job_init(j, src);
	if (j->by_phase && find_marker(j, src, pool, err))
		return -1;
	if (tc_evsrc_each(src, pool, hm_visit, j, err))
		return -1;
	tc_matrix_init(m, j->world);
	tc_msghist_init(h);
	for (size_t i = 0; i < j->nslots; i++) {
		tc_matrix_append(m, &j->slots[i].m);
		tc_msghist_merge(h, &j->slots[i].h);
		if (j->slots[i].markers > most)
			most = j->slots[i].markers;
	}
	tc_matrix_finish(m);
	if (j->by_phase && j->phase > most)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "--phase %" PRIu64 ": the marker (%s at call site 0x%016" PRIx64
				    ") is called %" PRIu64 " times, so the phases are 0 to %" PRIu64,
				    j->phase, tc_op_name(j->marker_op), j->marker_site, most, most);
	return 0;
}

static void hist_json(const struct tc_msghist *h, struct tc_strbuf *out)
{
	struct tc_json *o = tc_json_object(), *bins = tc_json_array();
	uint64_t messages = 0, bytes = 0;
	unsigned lo, hi;
	char *txt;

	tc_msghist_span(h, &lo, &hi);
	for (unsigned k = lo; k <= hi; k++) {
		struct tc_json *b = tc_json_object();
		uint64_t a, z;
		tc_msghist_range(k, &a, &z);
		tc_json_set_uint(b, "size_min", a);
		tc_json_set_uint(b, "size_max", z);
		tc_json_set_uint(b, "messages", h->messages[k]);
		tc_json_set_uint(b, "bytes", h->bytes[k]);
		tc_json_set_real(b, "time_us", h->us[k]);
		tc_json_append(bins, b);
		messages += h->messages[k];
		bytes += h->bytes[k];
	}
	tc_json_set_int(o, "schema", 1);
	tc_json_set(o, "bins", bins);
	tc_json_set_uint(o, "messages", messages);
	tc_json_set_uint(o, "bytes", bytes);
	txt = tc_json_dumps(o, TC_JSON_COMPACT);
	tc_strbuf_addstr(out, txt);
	tc_strbuf_addch(out, '\n');
	free(txt);
	tc_json_free(o);
}

/* The default title: the set's own name, not the path as typed
 * ("../runs/halo2d/"), what is drawn and the filters. */
static void default_title(struct tc_strbuf *tb, const char *path, const struct hm_job *j,
			  bool hist, double w0, double w1)
{
	int len;
	const char *name = tc_path_name(path, &len);

	tc_strbuf_addf(tb, "%.*s: %s%s", len, name,
		       hist ? "message sizes" : tc_hm_metric_name(j->metric),
		       j->coll ? " (with collectives)" : "");
	if (j->by_comm)
		tc_strbuf_addf(tb, ", communicator %" PRIu32, j->comm);
	if (j->by_window) {
		if (isinf(w1))
			tc_strbuf_addf(tb, ", from %g s", w0);
		else
			tc_strbuf_addf(tb, ", %g s to %g s", w0, w1);
	}
	if (j->by_phase)
		tc_strbuf_addf(tb, ", phase %" PRIu64, j->phase);
}

/* The command line, parsed. */
struct hm_args {
	const char *path, *out, *mode_name, *title;
	const struct tc_cluster_mode *mode;
	int fmt;
	bool diff, force, log;
	double win0, win1;
	uint32_t max_cells;
	struct hm_job job;
	struct tc_mode_args margs;
	struct tc_fig_args fa;
	struct tc_fig_page page;
};

/* Fill ha from argv: -1 to go on, else the status to exit with. */
static int parse_args(int argc, char **argv, struct hm_args *ha)
{
	static const char *cmd = "heatmap";
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "metric", required_argument, NULL, 'm' },
		{ "collectives", no_argument, NULL, 'C' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "diff", no_argument, NULL, 'D' },
		{ "mode", required_argument, NULL, 'M' },
		{ "max-cells", required_argument, NULL, 'N' },
		{ "title", required_argument, NULL, 'T' },
		{ "force", no_argument, NULL, 'F' },
		{ "scale", required_argument, NULL, 0x100 },
		TC_FIG_LONGOPTS,
		{ "comm", required_argument, NULL, 0x101 },
		{ "window", required_argument, NULL, 0x102 },
		{ "phase", required_argument, NULL, 0x103 },
		{ "histogram", no_argument, NULL, 0x104 },
		TC_MODE_LONGOPTS,
		TC_MODE_THRESHOLD_LONGOPT,
		{ NULL, 0, NULL, 0 },
	};
	uint64_t u;
	int c, rc;

	memset(ha, 0, sizeof(*ha));
	ha->fmt = -1;
	ha->job.metric = TC_HM_COUNT;
	tc_mode_args_init(&ha->margs, false);
	while ((c = getopt_long(argc, argv, "m:o:f:k:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (tc_mode_option(cmd, c, optarg, &ha->margs, &rc) ||
		    tc_fig_option(cmd, c, optarg, &ha->fa, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return tc_print_help(heatmap_usage);
		case 'm':
			ha->job.metric = tc_hm_metric_from_name(optarg);
			if (ha->job.metric < 0)
				return tc_usage_error(cmd, "--metric: expected count, bytes or time, got '%s'",
						      optarg);
			break;
		case 'C':
			ha->job.coll = true;
			break;
		case 'o':
			ha->out = optarg;
			break;
		case 'f':
			ha->fmt = tc_fig_format(optarg, false, data_formats,
						TC_ARRAY_SIZE(data_formats));
			if (ha->fmt < 0)
				return tc_usage_error(cmd, "--format: expected pdf, svg, png, csv or json, "
						      "got '%s'", optarg);
			break;
		case 'D':
			ha->diff = true;
			break;
		case 'M':
			ha->mode_name = optarg;
			break;
		case 'N':
			if ((rc = tc_parse_u64(cmd, "--max-cells", optarg, &u)))
				return rc;
			if (u < 1 || u > 4096)
				return tc_usage_error(cmd, "--max-cells: %s is out of range (1 to 4096)",
						      optarg);
			ha->max_cells = (uint32_t)u;
			break;
		case 'T':
			ha->title = optarg;
			break;
		case 'F':
			ha->force = true;
			break;
		case 0x100:
			if (strcmp(optarg, "linear") && strcmp(optarg, "log"))
				return tc_usage_error(cmd, "--scale: expected linear or log, got '%s'",
						      optarg);
			ha->log = !strcmp(optarg, "log");
			break;
		case 0x101:
			if ((rc = tc_parse_u64(cmd, "--comm", optarg, &u)))
				return rc;
			if (u > UINT32_MAX)
				return tc_usage_error(cmd, "--comm: %s is out of range", optarg);
			ha->job.by_comm = true;
			ha->job.comm = (uint32_t)u;
			break;
		case 0x102:
			if ((rc = parse_window(cmd, optarg, &ha->win0, &ha->win1)))
				return rc;
			ha->job.by_window = true;
			break;
		case 0x103:
			if ((rc = tc_parse_u64(cmd, "--phase", optarg, &u)))
				return rc;
			ha->job.by_phase = true;
			ha->job.phase = u;
			break;
		case 0x104:
			ha->job.hist = true;
			break;
		default:
			if ((rc = tc_cmd_option(cmd, c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error(cmd, optind >= argc ? "missing DIR" : "too many arguments");
	if (!ha->out)
		return tc_usage_error(cmd, "missing -o FILE");
	if (ha->diff && !ha->mode_name)
		return tc_usage_error(cmd, "--diff needs --mode");
	if (ha->mode_name && !ha->diff)
		return tc_usage_error(cmd, "--mode is only for --diff");
	if (ha->diff && ha->job.hist)
		return tc_usage_error(cmd, "--histogram draws message sizes, not matrices to --diff");
	if (!ha->diff && tc_mode_args_first(&ha->margs)) {
		/* --marker also names the marker of --phase */
		bool marker_only = ha->job.by_phase;
		for (int i = 0; i < TC_NMOPTS; i++)
			if (ha->margs.given[i] && i != TC_MOPT_MARKER)
				marker_only = false;
		if (!marker_only)
			return tc_usage_error(cmd, "%s is an option of --mode, for --diff only",
					      tc_mode_args_first(&ha->margs));
	}
	if (ha->mode_name && (rc = tc_mode_lookup(cmd, ha->mode_name, &ha->mode)))
		return rc;
	if (ha->fmt < 0 && (rc = tc_fig_out_format(cmd, ha->out, "pdf, svg, png, csv or json",
						   data_formats, TC_ARRAY_SIZE(data_formats),
						   &ha->fmt)))
		return rc;
	if (ha->fmt == FMT_JSON && !ha->job.hist)
		return tc_usage_error(cmd, "JSON is the histogram's (--histogram); a matrix is CSV");
	if ((rc = tc_fig_check_tty(ha->out, ha->fmt, ha->force)) ||
	    (rc = tc_fig_args_page(cmd, &ha->fa, ha->fmt, &ha->page)))
		return rc;
	if (ha->job.by_phase && ha->margs.o.marker_op == TC_CHAM_MARKER_AUTO)
		return tc_usage_error(cmd, "--phase: --marker auto is chameleon's; name the marker "
				      "OP[@CALLSITE]");
	ha->job.marker_op = ha->margs.o.marker_op ? ha->margs.o.marker_op : TC_OP_BARRIER;
	ha->job.marker_site = ha->margs.o.marker_site;
	if (ha->job.by_window) {
		ha->job.t0 = (uint64_t)(ha->win0 * 1e9 + 0.5);
		ha->job.t1 = isinf(ha->win1) || ha->win1 * 1e9 >= 1.8e19
				     ? UINT64_MAX
				     : (uint64_t)(ha->win1 * 1e9 + 0.5);
	}
	ha->path = argv[optind];
	return -1;
}

/* What the figure shows: the original's matrix (or message sizes), and
 * with --diff the clustered trace's and the difference. */
struct hm_data {
	struct tc_anl a;
	struct tc_anl_built b;
	struct tc_matrix orig, clus, delta;
	struct tc_msghist hist;
	struct tc_traceset *ts;
	struct tc_gtrace *g;     /* a .tct file given, for the filtered figures */
};

static void hm_data_init(struct hm_data *d)
{
	memset(d, 0, sizeof(*d));
	tc_clustering_init(&d->b.cl);
	tc_matrix_init(&d->orig, 0);
	tc_matrix_init(&d->clus, 0);
	tc_matrix_init(&d->delta, 0);
	tc_msghist_init(&d->hist);
}

static void hm_data_release(struct hm_data *d)
{
	tc_matrix_release(&d->orig);
	tc_matrix_release(&d->clus);
	tc_matrix_release(&d->delta);
	tc_anl_built_release(&d->b);
	tc_anl_release(&d->a);
	tc_gtrace_free(&d->g);
	tc_traceset_free(&d->ts);
}

/* Fill d as ha says: 0, or the exit status after the message. */
static int compute(struct hm_args *ha, struct tc_pool *pool, struct hm_data *d)
{
	struct hm_job *job = &ha->job;
	bool filtered = job->by_comm || job->by_window || job->by_phase || job->hist;
	struct tc_error err;
	int rc;

	tc_error_clear(&err);
	if ((!filtered || ha->diff) &&
	    tc_anl_open(&d->a, ha->path, ha->diff ? TC_ANL_NEED_DIR : 0, pool, &err))
		goto fail;
	if (!filtered) {
		tc_anl_matrix(&d->a, NULL, job->metric, job->coll, pool, &d->orig);
	} else {
		/* the original as recorded: a trace set read again with its
		 * exact times, or the global trace given */
		struct tc_evsrc src = { NULL, NULL, NULL, 0 };
		if (tc_tct_file_probe(ha->path)) {
			if (tc_tct_read(ha->path, &d->g, &err))
				goto fail;
			src.g = d->g;
		} else {
			if (tc_open_set(ha->path, 0, pool, &d->ts, &err))
				goto fail;
			src.ts = d->ts;
		}
		rc = run_job(job, &src, pool, &d->orig, &d->hist, &err);
		job_release(job);
		if (rc) {
			tc_report(&err);
			return err.code == TC_ERR_USAGE ? TC_EXIT_USAGE : TC_EXIT_FAIL;
		}
	}
	if (d->orig.unmapped)
		tc_warnf("'%s': %" PRIu64 " collectives on communicators other than "
			 "MPI_COMM_WORLD left out: the trace does not say their members (a "
			 "--lead-only or in-job global trace has no communicator table)",
			 ha->path, d->orig.unmapped);
	if (!ha->diff)
		return 0;
	d->a.what = ha->mode->name;
	if (tc_anl_build(&d->a, ha->mode, &ha->margs.o, pool, &d->b, &err))
		goto fail;
	if (!filtered) {
		tc_anl_matrix(&d->a, d->b.g, job->metric, job->coll, pool, &d->clus);
	} else {
		struct tc_evsrc src = { NULL, d->b.g, d->a.traces, d->a.n };
		struct tc_msghist unused;
		rc = run_job(job, &src, pool, &d->clus, &unused, &err);
		job_release(job);
		if (rc)
			goto fail;
	}
	tc_matrix_diff(&d->delta, &d->orig, &d->clus);
	return 0;
fail:
	tc_report(&err);
	return TC_EXIT_FAIL;
}

/* The figure (or CSV, JSON) of d into sb. */
static int render(const struct hm_args *ha, struct hm_data *d, const char *title,
		  struct tc_strbuf *sb, struct tc_error *err)
{
	const struct hm_job *job = &ha->job;

	if (job->hist) {
		if (ha->fmt == FMT_CSV) {
			tc_msghist_csv(&d->hist, sb);
		} else if (ha->fmt == FMT_JSON) {
			hist_json(&d->hist, sb);
		} else {
			struct tc_msghist_opts ho = { title, job->metric, ha->log, ha->page };
			return tc_msghist_draw(&d->hist, &ho, sb, err);
		}
	} else if (ha->fmt == FMT_CSV) {
		if (ha->diff)
			tc_heatmap_csv_diff(&d->orig, &d->clus, tc_hm_metric_column(job->metric), sb);
		else
			tc_heatmap_csv(&d->orig, tc_hm_metric_column(job->metric), sb);
	} else {
		char ctitle[128];
		struct tc_heatmap_panel p[3];
		struct tc_heatmap_opts o = { title, job->metric, ha->max_cells, ha->log, ha->page };
		size_t np = 1;
		/* a single panel needs no name of its own */
		p[0].title = d->a.g || d->g ? "global trace, expanded" : ha->diff ? "original" : "";
		p[0].m = &d->orig;
		p[0].diverging = false;
		if (ha->diff) {
			snprintf(ctitle, sizeof(ctitle), "clustered (%s)", ha->mode->name);
			p[1].title = ctitle;
			p[1].m = &d->clus;
			p[1].diverging = false;
			p[2].title = "clustered \u2212 original";
			p[2].m = &d->delta;
			p[2].diverging = true;
			np = 3;
		}
		return tc_heatmap_draw(p, np, &o, sb, err);
	}
	return 0;
}

int cmd_heatmap(int argc, char **argv)
{
	struct hm_args ha;
	struct hm_data d;
	struct tc_pool *pool;
	struct tc_strbuf sb = TC_STRBUF_INIT, tb = TC_STRBUF_INIT;
	struct tc_error err;
	const char *title;
	int rc, status;

	if ((rc = parse_args(argc, argv, &ha)) >= 0)
		return rc;
	hm_data_init(&d);
	pool = tc_cmd_pool();
	status = compute(&ha, pool, &d);
	if (!status) {
		title = ha.title;
		if (!title) {
			default_title(&tb, ha.path, &ha.job, ha.job.hist, ha.win0, ha.win1);
			title = tb.buf;
		}
		tc_error_clear(&err);
		if (render(&ha, &d, title, &sb, &err) ||
		    tc_tct_write_file(ha.out, sb.buf ? sb.buf : "", sb.len, &err)) {
			tc_report(&err);
			status = TC_EXIT_FAIL;
		}
	}
	tc_strbuf_release(&sb);
	tc_strbuf_release(&tb);
	hm_data_release(&d);
	tc_pool_free(pool);
	return tc_finish_stdout(status);
}
