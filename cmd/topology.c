/*
 * topology.c - tracecluster topology: the ranks on their process grid
 * coloured by cluster (ICS'14 Fig. 4).
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/analysis.h"
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char topology_usage[] =
	"usage: tracecluster topology --mode M [MODE OPTIONS] [--dims CxR] -o FILE DIR\n"
	"\n"
	"Cluster the ranks of the trace set in DIR with mode M and draw them as an SVG\n"
	"picture on their process grid, each rank coloured by its cluster and the lead\n"
	"ranks outlined (as in Fig. 4 of the ICS'14 paper). The grid comes from --dims,\n"
	"else from a Cartesian communicator the trace records (its last dimension\n"
	"across), else the ranks stand in a line. See tracecluster-topology(1).\n"
	"\n"
	"  -m, --mode M        the clustering mode (see tracecluster cluster --list-modes)\n"
	"      --dims CxR      C columns by R rows (C*R must cover the ranks)\n"
	"  -o, --output FILE   where to write ('-': standard output)\n"
	"      --title T       the picture's title\n"
	"  -j, --threads N     worker threads\n"
	"  -h, --help          this help\n"
	"\n"
	"MODE OPTIONS, as tracecluster cluster takes them:\n"
	TC_MODE_HELP;

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

int cmd_topology(int argc, char **argv)
{
	static const char *cmd = "topology";
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "mode", required_argument, NULL, 'm' },
		{ "dims", required_argument, NULL, 'D' },
		{ "output", required_argument, NULL, 'o' },
		{ "title", required_argument, NULL, 'T' },
		TC_MODE_LONGOPTS,
		TC_MODE_THRESHOLD_LONGOPT,
		{ NULL, 0, NULL, 0 },
	};
	const struct tc_cluster_mode *mode = NULL;
	const char *mode_name = NULL, *out = NULL, *title = NULL;
	uint32_t dims[2] = { 0, 0 };
	bool have_dims = false;
	struct tc_anl a;
	struct tc_clustering cl;
	struct tc_cluster_opts copts;
	struct tc_mode_args margs;
	struct tc_pool *pool = NULL;
	struct tc_strbuf sb = TC_STRBUF_INIT, tb = TC_STRBUF_INIT;
	struct tc_error err;
	int32_t *cluster_of = NULL;
	bool *lead = NULL;
	int c, rc, status = TC_EXIT_FAIL;

	memset(&a, 0, sizeof(a));
	tc_clustering_init(&cl);
	tc_mode_args_init(&margs, false);
	while ((c = getopt_long(argc, argv, "m:o:k:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (tc_mode_option(cmd, c, optarg, &margs, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return tc_print_help(topology_usage);
		case 'm':
			mode_name = optarg;
			break;
		case 'D':
			if (parse_dims(optarg, dims))
				return tc_usage_error(cmd, "--dims: expected CxR, e.g. 4x4, got '%s'", optarg);
			have_dims = true;
			break;
		case 'o':
			out = optarg;
			break;
		case 'T':
			title = optarg;
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
	if (!mode_name)
		return tc_usage_error(cmd, "missing --mode");
	if (!(mode = tc_cluster_mode_find(mode_name)))
		return tc_usage_error(cmd, "--mode: unknown mode '%s' (see tracecluster cluster "
				      "--list-modes)", mode_name);

	tc_error_clear(&err);
	pool = tc_cmd_pool();
	if (tc_anl_open(&a, argv[optind], TC_ANL_NEED_DIR, pool, &err)) {
		tc_report(&err);
		goto out;
	}
	{
		struct tc_cluster_input in = { a.sigs, a.n, a.traces };
		copts = margs.o;
		copts.pool = pool;
		if (tc_cluster_run(mode, &in, &copts, &cl, &err)) {
			tc_report(&err);
			goto out;
		}
	}
	if (have_dims && (uint64_t)dims[0] * dims[1] < (uint64_t)a.world) {
		tc_errorf("--dims %" PRIu32 "x%" PRIu32 " has fewer places than the %" PRId32 " ranks",
			  dims[0], dims[1], a.world);
		status = TC_EXIT_USAGE;
		goto out;
	}
	if (!have_dims)
		have_dims = grid_from_traces(&a, dims);
	cluster_of = tc_xmalloc(tc_st_mult((size_t)a.world + 1, sizeof(*cluster_of)));
	lead = tc_xcalloc((size_t)a.world + 1, sizeof(*lead));
	for (int32_t r = 0; r < a.world; r++)
		cluster_of[r] = -1;
	for (size_t k = 0; k < cl.nclusters; k++) {
		const struct tc_cluster *cc = &cl.clusters[k];
		for (size_t m = 0; m < cc->nranks; m++)
			if (cc->ranks[m] >= 0 && cc->ranks[m] < a.world)
				cluster_of[cc->ranks[m]] = (int32_t)k;
		if (cc->lead >= 0 && cc->lead < a.world)
			lead[cc->lead] = true;
	}
	if (!title) {
		tc_strbuf_addf(&tb, "%s: %s, %zu %s", argv[optind], mode->name, cl.nclusters,
			       tc_plural(cl.nclusters, "cluster", "clusters"));
		title = tb.buf;
	}
	tc_topology_svg(a.world, cluster_of, lead, cl.nclusters, dims, have_dims ? 2 : 1, title, &sb);
	if (tc_tct_write_file(out, sb.buf ? sb.buf : "", sb.len, &err)) {
		tc_report(&err);
		goto out;
	}
	status = TC_EXIT_OK;
out:
	free(cluster_of);
	free(lead);
	tc_strbuf_release(&sb);
	tc_strbuf_release(&tb);
	tc_clustering_release(&cl);
	tc_anl_release(&a);
	tc_pool_free(pool);
	return tc_finish_stdout(status);
}
