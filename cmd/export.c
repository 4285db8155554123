/*
 * export.c - tracecluster export: write a trace set, or the expansion of
 * a global compressed trace, as an OTF2 archive or as Chrome/Perfetto
 * trace JSON (formats/export.h).
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "formats/export.h"
#include "formats/reader.h"
#include "formats/tct.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/merge.h"
#include "lib/pool.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char export_usage[] =
	"usage: tracecluster export --to otf2|chrome -o OUT [--format F] [--salvage] INPUT\n"
	"\n"
	"Write the events of every rank of INPUT in another tool's format. INPUT is\n"
	"a trace set in any format tracecluster reads (raw, DUMPI, ScalaTrace,\n"
	"OTF2) or a global compressed trace (.tct), which is expanded rank by rank.\n"
	"See tracecluster-export(1).\n"
	"\n"
	"  -t, --to F      otf2: an OTF2 archive OUT/traces.otf2 (OUT must not exist\n"
	"                  or be empty), for Vampir and other OTF2 tools;\n"
	"                  chrome: Trace Event Format JSON (OUT '-': standard\n"
	"                  output) for Perfetto and chrome://tracing\n"
	"  -o, --output OUT  where to write (required)\n"
	"      --format F  read INPUT as raw, scalatrace, dumpi or otf2 instead of\n"
	"                  detecting it\n"
	"      --salvage   read damaged raw files up to the damage\n"
	"  -h, --help      this help\n";

struct exp_ctx {
	struct tc_export *x;
	struct tc_error *err;
	uint64_t shift;          /* added to event times: this rank's start after the first */
	uint64_t events;
	int rc;
};

static int on_comm(void *p, const struct tc_comm *c)
{
	struct exp_ctx *e = p;
	tc_export_comm(e->x, c);
	return 0;
}

static int on_callsite(void *p, const struct tc_callsite *cs)
{
	struct exp_ctx *e = p;
	tc_export_callsite(e->x, cs);
	return 0;
}

static int on_event(void *p, const struct tc_event *ev)
{
	struct exp_ctx *e = p;
	struct tc_event t = *ev;

	t.t_start += e->shift;
	t.t_end += e->shift;
	e->events++;
	if ((e->rc = tc_export_event(e->x, &t, e->err)))
		return 1;
	return 0;
}


static int export_tct(const char *in, const char *out, int fmt, uint64_t *events,
		      struct tc_error *err)
{
	struct tc_gtrace *g = NULL;
	struct tc_export *x = NULL;
	struct tc_gtrace_iter it;
	struct tc_event ev;
	char creator[96];
	int rc;

	if ((rc = tc_tct_read(in, &g, err)))
		return rc;
	snprintf(creator, sizeof(creator), "tracecluster %s (expanded global trace)", TC_VERSION);
	if ((rc = tc_export_open(&x, fmt, out, g->world_size, creator, err)))
		goto out;
	for (int32_t r = 0; r < g->world_size && !rc; r++) {
		if ((rc = tc_export_rank_begin(x, r, err)))
			break;
		for (size_t i = 0; i < g->nsites; i++) {
			struct tc_callsite cs = { (uint32_t)i, g->sites[i].sig, 0, NULL };
			tc_export_callsite(x, &cs);
		}
		if (tc_gtrace_iter_init(&it, g, r) == 0) {
			while (!rc && tc_gtrace_iter_next(&it, &ev)) {
				rc = tc_export_event(x, &ev, err);
				(*events)++;
			}
			tc_gtrace_iter_release(&it);
		}
		if (!rc)
			rc = tc_export_rank_end(x, err);
	}
	if (rc)
		tc_export_abort(&x);
	else
		rc = tc_export_close(&x, err);
out:
	tc_gtrace_free(&g);
	return rc;
}

static int export_set(const char *in, const char *out, int fmt, enum tc_format infmt,
		      unsigned flags, uint64_t *events, struct tc_error *err)
{
	struct tc_traceset *ts = NULL;
	struct tc_export *x = NULL;
	struct tc_pool *pool = tc_cmd_pool();
	struct tc_read_ops ops = { on_event, on_callsite, on_comm };
	uint64_t t0 = UINT64_MAX;
	char creator[96];
	int rc;

	rc = tc_traceset_open_format(&ts, in, infmt, flags, pool, err);
	tc_pool_free(pool);
	if (rc)
		return rc;
	if ((rc = tc_traceset_check(ts, err)))
		goto out;
	for (size_t i = 0; i < ts->nfiles; i++)
		if (ts->files[i].hdr.start_time_ns < t0)
			t0 = ts->files[i].hdr.start_time_ns;
	snprintf(creator, sizeof(creator), "tracecluster %s", TC_VERSION);
	if ((rc = tc_export_open(&x, fmt, out, ts->world_size, creator, err)))
		goto out;
	for (size_t i = 0; i < ts->nfiles && !rc; i++) {
		struct tc_reader *r = NULL;
		struct exp_ctx e = { x, err, ts->files[i].hdr.start_time_ns - t0, 0, 0 };

		if ((rc = tc_traceset_open_file(ts, i, &r, err)))
			break;
		rc = tc_export_rank_begin(x, ts->files[i].hdr.rank, err);
		if (!rc) {
			rc = tc_reader_read(r, &ops, &e, NULL, err);
			if (rc == TC_ERR_STOP)
				rc = e.rc ? e.rc : 0;
		}
		tc_reader_close(&r);
		*events += e.events;
		if (!rc)
			rc = tc_export_rank_end(x, err);
	}
	if (rc)
		tc_export_abort(&x);
	else
		rc = tc_export_close(&x, err);
out:
	tc_traceset_free(&ts);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	static const char *cmd = "export";
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'F' },
		{ "salvage", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *in;
	int fmt = -1, infmt = TC_FMT_AUTO, c, rc;
	unsigned flags = 0;
	uint64_t events = 0;
	struct tc_error err;

	while ((c = getopt_long(argc, argv, "t:o:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return tc_print_help(export_usage);
		case 't':
			if ((fmt = tc_export_format_from_name(optarg)) < 0)
				return tc_usage_error(cmd, "--to: expected otf2 or chrome, got '%s'",
						      optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'F':
			if ((infmt = tc_format_from_name(optarg)) < 0)
				return tc_usage_error(cmd, "--format: expected raw, scalatrace, dumpi "
						      "or otf2, got '%s'", optarg);
			break;
		case 'S':
			flags |= TC_RAW_SALVAGE;
			break;
		default:
			if ((rc = tc_cmd_option(cmd, c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error(cmd, optind >= argc ? "missing INPUT" : "too many arguments");
	if (fmt < 0)
		return tc_usage_error(cmd, "--to otf2|chrome is required");
	if (!out)
		return tc_usage_error(cmd, "-o OUT is required");
	if (fmt == TC_EXPORT_OTF2 && !strcmp(out, "-"))
		return tc_usage_error(cmd, "an OTF2 archive is a directory: -o DIR");
	in = argv[optind];
	tc_error_clear(&err);
	if (infmt == TC_FMT_AUTO && tc_tct_file_probe(in))
		rc = export_tct(in, out, fmt, &events, &err);
	else
		rc = export_set(in, out, fmt, (enum tc_format)infmt, flags, &events, &err);
	if (rc) {
		tc_report(&err);
		return TC_EXIT_FAIL;
	}
	if (tc_g.verbosity > 0)
		fprintf(stderr, "tracecluster: exported %" PRIu64 " events to '%s'\n", events, out);
	return tc_finish_stdout(TC_EXIT_OK);
}
