/*
 * expand.c - tracecluster expand: give back one rank's event sequence
 * from a global compressed trace (.tct), printed as tracecluster dump
 * prints the events of a raw file (cmd/evprint.h).
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/evprint.h"
#include "formats/tct.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/merge.h"
#include "lib/ranklist.h"
#include "lib/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char expand_usage[] =
	"usage: tracecluster expand [--json] [--limit N] --rank R TRACE\n"
	"\n"
	"Give back the event sequence of rank R from the global compressed trace\n"
	"TRACE (a .tct file in text or JSON form; '-' reads standard input), one\n"
	"event per line in the shapes of tracecluster dump: the same columns, and\n"
	"with --json the same keys. Call-site ids are the trace's site numbers;\n"
	"times are rebuilt from the mean compute and call times the trace keeps.\n"
	"See tracecluster-expand(1) and tracecluster-tct(5).\n"
	"\n"
	"  -r, --rank R    the rank to expand (required)\n"
	"      --json      one JSON object per line (\"record\": \"event\")\n"
	"      --limit N   stop after N events\n"
	"  -h, --help      this help\n";

int cmd_expand(int argc, char **argv)
{
	static const char *cmd = "expand";
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "rank", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'J' },
		{ "limit", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct tc_gtrace *g = NULL;
	struct tc_gtrace_iter it;
	struct tc_event ev;
	struct tc_evprint_ctx pc;
	struct tc_error err;
	uint64_t rank = UINT64_MAX, limit = 0, *sigs = NULL;
	bool json = false;
	int c, rc, status = TC_EXIT_FAIL;

	while ((c = getopt_long(argc, argv, "r:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return tc_print_help(expand_usage);
		case 'r':
			if ((rc = tc_parse_u64(cmd, "--rank", optarg, &rank)))
				return rc;
			if (rank > INT32_MAX)
				return tc_usage_error(cmd, "--rank: %s is out of range", optarg);
			break;
		case 'J':
			json = true;
			break;
		case 'L':
			if ((rc = tc_parse_u64(cmd, "--limit", optarg, &limit)))
				return rc;
			break;
		default:
			if ((rc = tc_cmd_option(cmd, c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error(cmd, optind >= argc ? "missing TRACE" : "too many arguments");
	if (rank == UINT64_MAX)
		return tc_usage_error(cmd, "--rank R is required");

	tc_error_clear(&err);
	if (tc_tct_read(argv[optind], &g, &err)) {
		tc_report(&err);
		return TC_EXIT_FAIL;
	}
	if (tc_gtrace_iter_init(&it, g, (int32_t)rank)) {
		tc_errorf("'%s': rank %" PRIu64 " is not in the trace (world size %" PRId32 ")",
			  argv[optind], rank, g->world_size);
		goto out;
	}
	sigs = tc_xcalloc(g->nsites + 1, sizeof(*sigs));
	for (size_t i = 0; i < g->nsites; i++)
		sigs[i] = g->sites[i].sig;
	memset(&pc, 0, sizeof(pc));
	pc.rank = (int32_t)rank;
	pc.sigs = sigs;
	pc.nsigs = g->nsites;
	while ((!limit || pc.index < limit) && tc_gtrace_iter_next(&it, &ev)) {
		if (json)
			tc_evprint_json(&pc, &ev);
		else
			tc_evprint_text(&pc, &ev);
		pc.index++;
		if (ferror(stdout))
			break;
	}
	tc_gtrace_iter_release(&it);
	status = TC_EXIT_OK;
out:
	free(sigs);
	tc_gtrace_free(&g);
	return status;
}
