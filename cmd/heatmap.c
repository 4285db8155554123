/*
 * heatmap.c - tracecluster heatmap: the sender x receiver communication
 * matrix of a trace set or of a global trace expanded, as SVG, PNG or CSV;
 * with --diff the original and the clustered global trace side by side
 * with their difference.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/analysis.h"
#include "cmd/modeopt.h"
#include "cluster/cluster.h"
#include "formats/tct.h"
#include "lib/error.h"
#include "lib/merge.h"
#include "lib/pool.h"
#include "lib/strbuf.h"
#include "viz/viz.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char heatmap_usage[] =
	"usage: tracecluster heatmap [--metric count|bytes|time] [--collectives]\n"
	"                            [--format svg|png|csv]\n"
	"                            [--diff --mode M [MODE OPTIONS]]\n"
	"                            [--max-cells N] [--title T] [--force]\n"
	"                            -o FILE DIR|TRACE.tct\n"
	"\n"
	"Write the sender x receiver communication matrix of the trace set in DIR, or\n"
	"of a global compressed trace expanded to every rank, as an SVG picture (axes,\n"
	"tick labels, colour bar, viridis colour map), a PNG image of the cells, or CSV\n"
	"in long form (src,dst,METRIC: one row per non-zero cell, sorted). Past N ranks\n"
	"per axis, runs of ranks are binned (SVG and PNG; CSV is never binned).\n"
	"See tracecluster-heatmap(1).\n"
	"\n"
	"  -m, --metric M      count (messages, default), bytes, or time (us in sends)\n"
	"      --collectives   add collectives as their point-to-point equivalents\n"
	"                      (on any communicator whose members were recorded)\n"
	"  -o, --output FILE   where to write ('-': standard output)\n"
	"  -f, --format F      svg, png or csv (default: from FILE's extension, else svg)\n"
	"      --diff          original, clustered and their difference side by side\n"
	"                      (needs DIR and --mode)\n"
	"      --mode M        the clustering mode of --diff\n"
	"      --max-cells N   at most N bins per axis (default 128 for SVG, 512 for PNG)\n"
	"      --title T       the picture's title\n"
	"      --force         write PNG to a terminal\n"
	"  -j, --threads N     worker threads\n"
	"  -h, --help          this help\n"
	"\n"
	"MODE OPTIONS, as tracecluster cluster takes them (with --diff):\n"
	TC_MODE_HELP;

enum { FMT_SVG = 0, FMT_PNG, FMT_CSV };

static int format_from_name(const char *s)
{
	if (!strcmp(s, "svg"))
		return FMT_SVG;
	if (!strcmp(s, "png"))
		return FMT_PNG;
	if (!strcmp(s, "csv"))
		return FMT_CSV;
	return -1;
}

/* The format FILE's extension names; -1 for an image format this command
 * does not write (never SVG under a .pdf name); SVG for any other. */
static int format_from_path(const char *path)
{
	static const char *const other[] = { "pdf", "eps", "ps", "jpg", "jpeg", "gif",
					     "tif", "tiff", "webp", "bmp" };
	const char *dot = strrchr(path, '.');

	if (dot && strchr(dot, '/') == NULL) {
		int f = format_from_name(dot + 1);
		if (f >= 0)
			return f;
		for (size_t i = 0; i < TC_ARRAY_SIZE(other); i++)
			if (!strcasecmp(dot + 1, other[i]))
				return -1;
	}
	return FMT_SVG;
}

int cmd_heatmap(int argc, char **argv)
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
		TC_MODE_LONGOPTS,
		TC_MODE_THRESHOLD_LONGOPT,
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *mode_name = NULL, *title = NULL;
	const struct tc_cluster_mode *mode = NULL;
	int metric = TC_HM_COUNT, fmt = -1, c, rc, status = TC_EXIT_FAIL;
	bool coll = false, diff = false, force = false;
	uint64_t u;
	uint32_t max_cells = 0;
	struct tc_anl a;
	struct tc_mode_args margs;
	struct tc_anl_built b;
	struct tc_matrix orig, clus, delta;
	struct tc_pool *pool = NULL;
	struct tc_strbuf sb = TC_STRBUF_INIT, tb = TC_STRBUF_INIT;
	struct tc_error err;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	tc_clustering_init(&b.cl);
	tc_matrix_init(&orig, 0);
	tc_matrix_init(&clus, 0);
	tc_matrix_init(&delta, 0);
	tc_mode_args_init(&margs, false);
	while ((c = getopt_long(argc, argv, "m:o:f:k:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (tc_mode_option(cmd, c, optarg, &margs, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return tc_print_help(heatmap_usage);
		case 'm':
			metric = tc_hm_metric_from_name(optarg);
			if (metric < 0)
				return tc_usage_error(cmd, "--metric: expected count, bytes or time, got '%s'",
						      optarg);
			break;
		case 'C':
			coll = true;
			break;
		case 'o':
			out = optarg;
			break;
		case 'f':
			fmt = format_from_name(optarg);
			if (fmt < 0)
				return tc_usage_error(cmd, "--format: expected svg, png or csv, got '%s'",
						      optarg);
			break;
		case 'D':
			diff = true;
			break;
		case 'M':
			mode_name = optarg;
			break;
		case 'N':
			if ((rc = tc_parse_u64(cmd, "--max-cells", optarg, &u)))
				return rc;
			if (u < 1 || u > 65536)
				return tc_usage_error(cmd, "--max-cells: %s is out of range (1 to 65536)",
						      optarg);
			max_cells = (uint32_t)u;
			break;
		case 'T':
			title = optarg;
			break;
		case 'F':
			force = true;
			break;
		default:
			if ((rc = tc_cmd_option(cmd, c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error(cmd, optind >= argc ? "missing DIR" : "too many arguments");
	if (!out)
		return tc_usage_error(cmd, "missing -o FILE");
	if (diff && !mode_name)
		return tc_usage_error(cmd, "--diff needs --mode");
	if (mode_name && !diff)
		return tc_usage_error(cmd, "--mode is only for --diff");
	if (!diff && tc_mode_args_first(&margs))
		return tc_usage_error(cmd, "%s is an option of --mode, for --diff only",
				      tc_mode_args_first(&margs));
	if (mode_name && !(mode = tc_cluster_mode_find(mode_name)))
		return tc_usage_error(cmd, "--mode: unknown mode '%s' (see tracecluster cluster "
				      "--list-modes)", mode_name);
	if (fmt < 0) {
		fmt = strcmp(out, "-") ? format_from_path(out) : FMT_SVG;
		if (fmt < 0)
			return tc_usage_error(cmd, "'%s': heatmap writes svg, png or csv, not %s "
					      "(name the file .svg or .png, or give --format)",
					      out, strrchr(out, '.') + 1);
	}
	if (fmt == FMT_PNG && !strcmp(out, "-") && isatty(STDOUT_FILENO) && !force) {
		tc_errorf("stdout is a terminal, not writing PNG to it (use -o FILE or --force)");
		return TC_EXIT_USAGE;
	}

	tc_error_clear(&err);
	pool = tc_cmd_pool();
	if (tc_anl_open(&a, argv[optind], diff ? TC_ANL_NEED_DIR : 0, pool, &err)) {
		tc_report(&err);
		goto out;
	}
	tc_anl_matrix(&a, NULL, metric, coll, pool, &orig);
	if (diff) {
		a.what = mode->name;
		if (tc_anl_build(&a, mode, &margs.o, pool, &b, &err)) {
			tc_report(&err);
			goto out;
		}
		tc_anl_matrix(&a, b.g, metric, coll, pool, &clus);
		tc_matrix_diff(&delta, &orig, &clus);
	}
	if (!title) {
		/* the set's own name, not the path as typed ("../runs/halo2d/") */
		const char *path = argv[optind], *name;
		size_t len = strlen(path);
		while (len > 1 && path[len - 1] == '/')
			len--;
		name = path + len;
		while (name > path && name[-1] != '/')
			name--;
		tc_strbuf_addf(&tb, "%.*s: %s%s", (int)(path + len - name), name,
			       tc_hm_metric_name(metric), coll ? " (with collectives)" : "");
		title = tb.buf;
	}
	if (fmt == FMT_CSV) {
		if (diff)
			tc_heatmap_csv_diff(&orig, &clus, tc_hm_metric_column(metric), &sb);
		else
			tc_heatmap_csv(&orig, tc_hm_metric_column(metric), &sb);
	} else {
		char ctitle[128];
		struct tc_heatmap_panel p[3];
		struct tc_heatmap_opts o = { title, tc_hm_metric_unit(metric), max_cells };
		size_t np = 1;
		/* a single panel needs no name of its own */
		p[0].title = a.g ? "global trace, expanded" : diff ? "original" : "";
		p[0].m = &orig;
		p[0].diverging = false;
		if (diff) {
			snprintf(ctitle, sizeof(ctitle), "clustered (%s)", mode->name);
			p[1].title = ctitle;
			p[1].m = &clus;
			p[1].diverging = false;
			p[2].title = "clustered - original";
			p[2].m = &delta;
			p[2].diverging = true;
			np = 3;
		}
		if (fmt == FMT_SVG)
			tc_heatmap_svg(p, np, &o, &sb);
		else
			tc_heatmap_png(p, np, &o, &sb);
	}
	if (tc_tct_write_file(out, sb.buf ? sb.buf : "", sb.len, &err)) {
		tc_report(&err);
		goto out;
	}
	status = TC_EXIT_OK;
out:
	tc_strbuf_release(&sb);
	tc_strbuf_release(&tb);
	tc_matrix_release(&orig);
	tc_matrix_release(&clus);
	tc_matrix_release(&delta);
	tc_anl_built_release(&b);
	tc_anl_release(&a);
	tc_pool_free(pool);
	return tc_finish_stdout(status);
}
