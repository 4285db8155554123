/*
 * topology.c - tracecluster topology: the ranks on their process grid
 * coloured by cluster (ICS'14 Fig. 4), as a figure (PDF, SVG, PNG) or
 * CSV.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/analysis.h"
#include "cmd/figopt.h"
#include "cmd/modeopt.h"
#include "cluster/cluster.h"
#include "formats/tct.h"
#include "lib/error.h"
#include "lib/pool.h"
#include "lib/strbuf.h"
#include "lib/trace.h"
#include "lib/xalloc.h"
#include "viz/viz.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char topology_usage[] =
	"usage: tracecluster topology --mode M [MODE OPTIONS] [--dims CxR]\n"
	"                             [--format pdf|svg|png|csv] [--width L] [--height L]\n"
	"                             [--font-size PT] [--dpi N] [--title T] [--force]\n"
	"                             -o FILE DIR\n"
	"\n"
	"Cluster the ranks of the trace set in DIR with mode M and draw them on their\n"
	"process grid, each rank coloured by its cluster and the lead ranks outlined\n"
	"(as in Fig. 4 of the ICS'14 paper), as a figure (PDF, SVG or PNG) or CSV. The\n"
	"grid comes from --dims, else from a Cartesian communicator the trace records\n"
	"(its last dimension across), else it is the most nearly square one that holds\n"
	"the ranks; the figure says which. See tracecluster-topology(1).\n"
	"\n"
	"  -m, --mode M        the clustering mode (see tracecluster cluster --list-modes)\n"
	"      --dims CxR      C columns by R rows (C*R must cover the ranks)\n"
	"  -o, --output FILE   where to write ('-': standard output)\n"
	"  -f, --format F      pdf, svg, png or csv (rank,column,row,cluster,lead);\n"
	"                      default: from FILE's extension, else svg\n"
	TC_FIG_HELP_SIZE
	"                      (default 3.3in wide, height to fit)\n"
	TC_FIG_HELP_TEXT
	"      --title T       the figure's title ('': none)\n"
	"      --force         write PDF or PNG to a terminal\n"
	"  -j, --threads N     worker threads\n"
	"  -h, --help          this help\n"
	"\n"
	"MODE OPTIONS, as tracecluster cluster takes them:\n"
	TC_MODE_HELP;

enum { FMT_CSV = TC_FIG_NFORMATS };
static const char *const data_formats[] = { "csv" };

static int parse_dims(const char *s, uint32_t dims[2])
{
	char *end;
	unsigned long a, b;

	a = strtoul(s, &end, 10);
	if (end == s || (*end != 'x' && *end != 'X'))
		return -1;
	s = end + 1;
	b = strtoul(s, &end, 10);
	if (end == s || *end || !a || !b || a > 1u << 20 || b > 1u << 20)
		return -1;
	dims[0] = (uint32_t)a;
	dims[1] = (uint32_t)b;
	return 0;
}

/* The grid of a Cartesian communicator of the traces, as columns x rows. */
static bool grid_from_traces(const struct tc_anl *a, uint32_t dims[2])
{
	for (size_t i = 0; i < a->n; i++) {
		const struct tc_rank_trace *t = a->traces[i];
		for (size_t k = 0; k < t->ncomms; k++) {
			const struct tc_trace_comm *c = &t->comms[k];
			uint64_t cols, rows = 1;
			if (!c->ndims || c->dims[c->ndims - 1] <= 0)
				continue;
			cols = (uint64_t)c->dims[c->ndims - 1];
			for (uint32_t d = 0; d + 1 < c->ndims; d++)
				rows *= c->dims[d] > 0 ? (uint64_t)c->dims[d] : 1;
			if (cols * rows < (uint64_t)a->world || cols > UINT32_MAX || rows > UINT32_MAX)
				continue;
			dims[0] = (uint32_t)cols;
			dims[1] = (uint32_t)rows;
			return true;
		}
	}
	return false;
}

/*
 * The most nearly square grid for n ranks, columns x rows, columns >= rows:
 * the factor pair of n closest to square when it is at most twice as wide
 * as high (1024: 32 x 32; 2048: 64 x 32; 12: 4 x 3), else
 * ceil(sqrt(n)) columns and the rows they need, the last one short (7:
 * 3 x 3).
 */
static void near_square(int32_t n, uint32_t dims[2])
{
	uint32_t c, r = (uint32_t)sqrt((double)(n > 0 ? n : 1));

	while (r > 1 && (uint32_t)n % r)
		r--;
	c = n > 0 ? (uint32_t)n / r : 1;
	if (c > 2 * r) {
		c = (uint32_t)ceil(sqrt((double)n));
		r = ((uint32_t)n + c - 1) / c;
	}
	dims[0] = c;
	dims[1] = r;
}

/* The command line, parsed. */
struct topo_args {
	const char *path, *mode_name, *out, *title;
	const struct tc_cluster_mode *mode;
	uint32_t dims[2];
	bool have_dims, force;
	int fmt;
	struct tc_fig_args fa;
	struct tc_fig_page page;
	struct tc_mode_args margs;
};

/* Fill ta from argv: -1 to go on, else the status to exit with. */
static int parse_args(int argc, char **argv, struct topo_args *ta)
{
	static const char *cmd = "topology";
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "mode", required_argument, NULL, 'm' },
		{ "dims", required_argument, NULL, 'D' },
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 'T' },
		{ "format", required_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'F' },
		TC_FIG_LONGOPTS,
		TC_MODE_LONGOPTS,
		TC_MODE_THRESHOLD_LONGOPT,
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	memset(ta, 0, sizeof(*ta));
	ta->fmt = -1;
	tc_mode_args_init(&ta->margs, false);
	while ((c = getopt_long(argc, argv, "m:o:f:k:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (tc_mode_option(cmd, c, optarg, &ta->margs, &rc) ||
		    tc_fig_option(cmd, c, optarg, &ta->fa, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return tc_print_help(topology_usage);
		case 'm':
			ta->mode_name = optarg;
			break;
		case 'D':
			if (parse_dims(optarg, ta->dims))
				return tc_usage_error(cmd, "--dims: expected CxR, e.g. 4x4, got '%s'", optarg);
			ta->have_dims = true;
			break;
		case 'o':
			ta->out = optarg;
			break;
		case 'T':
			ta->title = optarg;
			break;
		case 'f':
			ta->fmt = tc_fig_format(optarg, false, data_formats,
						TC_ARRAY_SIZE(data_formats));
			if (ta->fmt < 0)
				return tc_usage_error(cmd, "--format: expected pdf, svg, png or csv, got '%s'",
						      optarg);
			break;
		case 'F':
			ta->force = true;
			break;
		default:
			if ((rc = tc_cmd_option(cmd, c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error(cmd, optind >= argc ? "missing DIR" : "too many arguments");
	if (!ta->out)
		return tc_usage_error(cmd, "missing -o FILE");
	if ((rc = tc_mode_lookup(cmd, ta->mode_name, &ta->mode)))
		return rc;
	if (ta->fmt < 0 && (rc = tc_fig_out_format(cmd, ta->out, "pdf, svg, png or csv",
						   data_formats, TC_ARRAY_SIZE(data_formats),
						   &ta->fmt)))
		return rc;
	if ((rc = tc_fig_check_tty(ta->out, ta->fmt, ta->force)) ||
	    (rc = tc_fig_args_page(cmd, &ta->fa, ta->fmt, &ta->page)))
		return rc;
	ta->path = argv[optind];
	return -1;
}

/* The grid the ranks go on (dims) and why: 0, or the exit status after
 * the message when --dims has too few places. */
static int place(const struct topo_args *ta, const struct tc_anl *a, uint32_t dims[2],
		 const char **why)
{
	dims[0] = ta->dims[0];
	dims[1] = ta->dims[1];
	if (ta->have_dims && (uint64_t)dims[0] * dims[1] < (uint64_t)a->world) {
		tc_errorf("--dims %" PRIu32 "x%" PRIu32 " has fewer places than the %" PRId32 " ranks",
			  dims[0], dims[1], a->world);
		return TC_EXIT_USAGE;
	}
	if (ta->have_dims) {
		*why = "--dims";
	} else if (grid_from_traces(a, dims)) {
		*why = "the Cartesian communicator of the trace";
	} else {
		near_square(a->world, dims);
		*why = "near square; no Cartesian communicator recorded";
	}
	return 0;
}

/* Each rank's cluster (-1: none) and whether it leads one, new arrays of
 * world + 1. */
static void membership(const struct tc_clustering *cl, int32_t world, int32_t **cluster_of,
		       bool **lead)
{
	*cluster_of = tc_xmalloc(tc_st_mult((size_t)world + 1, sizeof(**cluster_of)));
	*lead = tc_xcalloc((size_t)world + 1, sizeof(**lead));
	for (int32_t r = 0; r < world; r++)
		(*cluster_of)[r] = -1;
	for (size_t k = 0; k < cl->nclusters; k++) {
		const struct tc_cluster *cc = &cl->clusters[k];
		for (size_t m = 0; m < cc->nranks; m++)
			if (cc->ranks[m] >= 0 && cc->ranks[m] < world)
				(*cluster_of)[cc->ranks[m]] = (int32_t)k;
		if (cc->lead >= 0 && cc->lead < world)
			(*lead)[cc->lead] = true;
	}
}

int cmd_topology(int argc, char **argv)
{
	struct topo_args ta;
	const char *why, *title;
	uint32_t dims[2];
	struct tc_anl a;
	struct tc_clustering cl;
	struct tc_cluster_opts copts;
	struct tc_pool *pool = NULL;
	struct tc_strbuf sb = TC_STRBUF_INIT, tb = TC_STRBUF_INIT, nb = TC_STRBUF_INIT;
	struct tc_error err;
	int32_t *cluster_of = NULL;
	bool *lead = NULL;
	int rc, status = TC_EXIT_FAIL;

	if ((rc = parse_args(argc, argv, &ta)) >= 0)
		return rc;
	memset(&a, 0, sizeof(a));
	tc_clustering_init(&cl);
	tc_error_clear(&err);
	pool = tc_cmd_pool();
	if (tc_anl_open(&a, ta.path, TC_ANL_NEED_DIR, pool, &err)) {
		tc_report(&err);
		goto out;
	}
	{
		struct tc_cluster_input in = { a.sigs, a.n, a.traces };
		copts = ta.margs.o;
		copts.pool = pool;
		if (tc_cluster_run(ta.mode, &in, &copts, &cl, &err)) {
			tc_report(&err);
			goto out;
		}
	}
	if ((rc = place(&ta, &a, dims, &why))) {
		status = rc;
		goto out;
	}
	membership(&cl, a.world, &cluster_of, &lead);
	title = ta.title;
	if (!title) {
		/* the set's own name, not the path as typed */
		int len;
		const char *name = tc_path_name(ta.path, &len);
		tc_strbuf_addf(&tb, "%.*s: %s, %zu %s", len, name, ta.mode->name,
			       cl.nclusters, tc_plural(cl.nclusters, "cluster", "clusters"));
		title = tb.buf;
	}
	tc_strbuf_addf(&nb, "%" PRId32 " ranks on a %" PRIu32 " \u00d7 %" PRIu32 " grid (%s)",
		       a.world, dims[0], dims[1], why);
	if (tc_g.verbosity > 0)
		fprintf(stderr, "tracecluster: topology: %" PRId32 " ranks on a %" PRIu32 " x %" PRIu32
			" grid (%s)\n", a.world, dims[0], dims[1], why);
	if (ta.fmt == FMT_CSV) {
		tc_strbuf_addstr(&sb, "rank,column,row,cluster,lead\n");
		for (int32_t r = 0; r < a.world; r++)
			tc_strbuf_addf(&sb, "%" PRId32 ",%" PRIu32 ",%" PRIu32 ",%" PRId32 ",%d\n", r,
				       (uint32_t)r % dims[0], (uint32_t)r / dims[0], cluster_of[r],
				       lead[r] ? 1 : 0);
	} else {
		struct tc_topology_opts o = { title, nb.buf, ta.page };
		if (tc_topology_draw(a.world, cluster_of, lead, cl.nclusters, dims[0], dims[1], &o,
				     &sb, &err)) {
			tc_report(&err);
			goto out;
		}
	}
	if (tc_tct_write_file(ta.out, sb.buf ? sb.buf : "", sb.len, &err)) {
		tc_report(&err);
		goto out;
	}
	status = TC_EXIT_OK;
out:
	free(cluster_of);
	free(lead);
	tc_strbuf_release(&sb);
	tc_strbuf_release(&tb);
	tc_strbuf_release(&nb);
	tc_clustering_release(&cl);
	tc_anl_release(&a);
	tc_pool_free(pool);
	return tc_finish_stdout(status);
}
