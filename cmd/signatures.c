/*
 * signatures.c - tracecluster signatures: the per-rank signatures of a
 * trace set (cluster/signature.h), computed over each rank's compressed
 * event sequence (lib/rsd.h).
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "formats/load.h"
#include "lib/progress.h"
#include "cluster/signature.h"
#include "formats/raw.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char signatures_usage[] =
	"usage: tracecluster signatures [--json] [--match callsite|params] [--window N]\n"
	"                               [--salvage] [--format F] [-j N] DIR|FILE\n"
	"\n"
	"Compress each rank's events into loops and print its signatures: the\n"
	"call-path signature, the 64-bit parameter signature, the reference\n"
	"signature and ACURDION's eleven signatures, one row per rank, then the\n"
	"number of distinct signatures and the ACURDION format bitmap (the\n"
	"signatures that differ between ranks). See tracecluster-signatures(1).\n"
	"\n"
	"  --json          one JSON document instead of text\n"
	"  --match M       events fold into loops when equal in op and call site,\n"
	"                  keeping differing parameters per occurrence (callsite, the\n"
	"                  default), or only when every parameter is equal (params)\n"
	"  --window N      loop compression looks back N nodes (default 256)\n"
	"  --salvage       read damaged files up to their damage; warn instead of fail\n"
	"  --format F      read as raw, scalatrace, dumpi or otf2 instead of detecting it\n"
	"  -j, --threads N worker threads\n"
	"  -h, --help      this help\n";

/* What is kept of each rank after its trace is freed. */
struct rank_result {
	struct tc_signatures sig;
	struct tc_rsd_info info;
};

static int compute_one(size_t i, struct tc_rank_trace *t, void *ctx, struct tc_error *err)
{
	struct rank_result *res = &((struct rank_result *)ctx)[i];

	(void)err;
	tc_signatures_compute(t, &res->sig);
	tc_rsd_info(t->seq, &res->info);
	tc_rank_trace_free(&t);
	return 0;
}

struct pair {
	uint64_t a, b;
};

static int cmp_pair(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

/* Distinct values over n results of: the call-path signature (which 0),
 * the pair call-path + parameter signature (1), the reference (2). */
static size_t distinct(const struct rank_result *res, size_t n, int which)
{
	struct pair *v = tc_xmalloc(sizeof(*v) * (n ? n : 1));
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tc_signatures *s = &res[i].sig;
		v[i].a = which == 2 ? s->reference : s->callpath;
		v[i].b = which == 1 ? s->param : 0;
	}
	qsort(v, n, sizeof(*v), cmp_pair);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || cmp_pair(&v[i], &v[i - 1]))
			k++;
	free(v);
	return k;
}

static void hex(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "0x%016" PRIx64, v);
}

static struct tc_json *json_hex(uint64_t v)
{
	char buf[24];

	hex(buf, sizeof(buf), v);
	return tc_json_str(buf);
}

static struct tc_json *json_sig(unsigned s, uint64_t v)
{
	switch (tc_sig_info(s)->kind) {
	case TC_SIGK_SIGNED:
		return tc_json_int((int64_t)v);
	case TC_SIGK_UNSIGNED:
		return tc_json_uint(v);
	default:
		return json_hex(v);
	}
}

struct summary {
	int match;
	uint64_t events, leaves, loops;
	size_t callpaths, params, refs;
	uint32_t format;
};

static void print_json(const struct tc_traceset *ts, const struct rank_result *res,
		       const struct summary *sum, const struct tc_rsd_opts *ro)
{
	struct tc_json *o = tc_json_object(), *ranks = tc_json_array();
	struct tc_json *fmt = tc_json_object(), *names = tc_json_array();
	struct tc_json *dist = tc_json_object();

	tc_json_set_int(o, "schema", 2);
	tc_json_set_str(o, "input", ts->dir);
	tc_json_set_int(o, "world_size", ts->world_size);
	tc_json_set_uint(o, "window", ro->window);
	tc_json_set_str(o, "match", tc_rsd_match_name(ro->match));
	tc_json_set_uint(o, "events", sum->events);
	for (size_t i = 0; i < ts->nfiles; i++) {
		const struct tc_signatures *s = &res[i].sig;
		const struct tc_rsd_info *in = &res[i].info;
		struct tc_json *r = tc_json_object(), *ac = tc_json_object();
		struct tc_json *cz = tc_json_object();
		tc_json_set_int(r, "rank", s->rank);
		tc_json_set(r, "callpath", json_hex(s->callpath));
		tc_json_set(r, "param", json_hex(s->param));
		tc_json_set(r, "reference", json_hex(s->reference));
		tc_json_set_uint(r, "events", in->events);
		for (unsigned k = 0; k < TC_NSIGS; k++)
			tc_json_set(ac, tc_sig_info(k)->name, json_sig(k, s->v[k]));
		tc_json_set(r, "acurdion", ac);
		tc_json_set_uint(cz, "event_nodes", in->leaves);
		tc_json_set_uint(cz, "loops", in->loops);
		tc_json_set_uint(cz, "depth", in->depth);
		tc_json_set_uint(cz, "top", in->top);
		tc_json_set_uint(cz, "distinct_events", in->distinct);
		tc_json_set_uint(cz, "varying", in->varying);
		tc_json_set(r, "compressed", cz);
		tc_json_append(ranks, r);
	}
	tc_json_set(o, "ranks", ranks);
	tc_json_set_uint(dist, "callpath", sum->callpaths);
	tc_json_set_uint(dist, "callpath_param", sum->params);
	tc_json_set_uint(dist, "reference", sum->refs);
	tc_json_set(o, "distinct", dist);
	{
		char buf[16];
		snprintf(buf, sizeof(buf), "0x%03" PRIx32, sum->format);
		tc_json_set_str(fmt, "bitmap", buf);
	}
	for (unsigned k = 0; k < TC_NSIGS; k++)
		if (sum->format & (1u << k))
			tc_json_append(names, tc_json_str(tc_sig_info(k)->name));
	tc_json_set(fmt, "signatures", names);
	tc_json_set(o, "format", fmt);
	tc_json_write(o, stdout, TC_JSON_COMPACT);
	tc_json_free(o);
}

static void print_text(const struct tc_traceset *ts, const struct rank_result *res,
		       const struct summary *sum)
{
	char a[24], b[24], c[24], d[24], e[24];

	printf("%-12s %s\n", "trace set:", ts->dir);
	printf("%-12s %zu (world size %d)\n", "ranks:", ts->nfiles, ts->world_size);
	printf("%-12s %" PRIu64 " in, %" PRIu64 " event nodes and %" PRIu64
	       " loops after compression (match %s)\n", "events:", sum->events, sum->leaves,
	       sum->loops, tc_rsd_match_name(sum->match));
	printf("%-12s %zu call-path, %zu call-path+parameter, %zu reference\n", "distinct:",
	       sum->callpaths, sum->params, sum->refs);
	printf("%-12s 0x%03" PRIx32, "format:", sum->format);
	if (!sum->format)
		printf(" (all ranks alike)");
	for (unsigned k = 0; k < TC_NSIGS; k++)
		if (sum->format & (1u << k))
			printf(" %s", tc_sig_info(k)->name);
	printf("\n\n");

	printf("%6s %18s %18s %18s %10s %6s %10s %6s %6s %6s %6s %6s %10s %10s %18s %18s\n",
	       "rank", "callpath", "param", "reference", "events", "nodes", "count", "src",
	       "dest", "key", "color", "tag", "comp_ns", "comm_ns", "loop", "types");
	for (size_t i = 0; i < ts->nfiles; i++) {
		const struct tc_signatures *s = &res[i].sig;
		hex(a, sizeof(a), s->callpath);
		hex(b, sizeof(b), s->param);
		hex(c, sizeof(c), s->reference);
		hex(d, sizeof(d), s->v[TC_SIG_LOOP]);
		hex(e, sizeof(e), s->v[TC_SIG_TYPES]);
		printf("%6d %18s %18s %18s %10" PRIu64 " %6" PRIu64 " %10" PRIu64 " %6" PRId64
		       " %6" PRId64 " %6" PRId64 " %6" PRId64 " %6" PRId64 " %10" PRIu64
		       " %10" PRIu64 " %18s %18s\n",
		       s->rank, a, b, c, s->events, s->nodes, s->v[TC_SIG_COUNT],
		       (int64_t)s->v[TC_SIG_SRC], (int64_t)s->v[TC_SIG_DEST],
		       (int64_t)s->v[TC_SIG_KEY], (int64_t)s->v[TC_SIG_COLOR],
		       (int64_t)s->v[TC_SIG_TAG], s->v[TC_SIG_COMP], s->v[TC_SIG_COMM], d, e);
	}
}

struct sig_args {
	const char *input;
	bool json;
	enum tc_format fmt;
	unsigned flags;
	struct tc_rsd_opts ropts;
};

/* The options and the DIR into sa; -1 to go on, else the status to exit
 * with (after --help, or a usage error). */
static int parse_args(int argc, char **argv, struct sig_args *sa)
{
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "json", no_argument, NULL, 'J' },
		{ "salvage", no_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'F' },
		{ "window", required_argument, NULL, 'W' },
		{ "match", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t w;
	int c, rc;

	sa->json = false;
	sa->fmt = TC_FMT_AUTO;
	sa->flags = 0;
	sa->ropts = (struct tc_rsd_opts){ TC_RSD_WINDOW_DEFAULT, TC_RSD_MATCH_CALLSITE };
	while ((c = getopt_long(argc, argv, ":" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return tc_print_help(signatures_usage);
		case 'J':
			sa->json = true;
			break;
		case 'S':
			sa->flags |= TC_RAW_SALVAGE;
			break;
		case 'F':
			rc = tc_format_from_name(optarg);
			if (rc < 0)
				return tc_usage_error("signatures",
						      "--format: expected raw, scalatrace, dumpi or otf2,"
						      " got '%s'", optarg);
			sa->fmt = (enum tc_format)rc;
			break;
		case 'W':
			rc = tc_parse_u64("signatures", "--window", optarg, &w);
			if (rc)
				return rc;
			if (w < 1 || w > TC_RSD_WINDOW_MAX)
				return tc_usage_error("signatures", "--window: %s is out of range (1 to %u)",
						      optarg, TC_RSD_WINDOW_MAX);
			sa->ropts.window = (uint32_t)w;
			break;
		case 'M':
			rc = tc_rsd_match_from_name(optarg);
			if (rc < 0)
				return tc_usage_error("signatures",
						      "--match: expected params or callsite, got '%s'",
						      optarg);
			sa->ropts.match = rc;
			break;
		case ':':
			return tc_usage_error("signatures", "option '%s' needs a value",
					      argv[optind - 1]);
		default:
			if ((rc = tc_cmd_option("signatures", c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error("signatures",
				      optind >= argc ? "missing DIR" : "too many arguments");
	sa->input = argv[optind];
	return -1;
}

/* Opens sa->input into *ts and computes every rank's signatures into
 * *res (ts->nfiles of them); 0, or -1 after reporting the error. */
static int compute_all(const struct sig_args *sa, struct tc_pool *pool, struct tc_traceset **ts,
		       struct rank_result **res)
{
	struct tc_raw_stats *rstats;
	struct tc_progress *prog;
	struct tc_error err;
	struct stat st;
	int rc;

	tc_error_clear(&err);
	if (tc_traceset_open_format(ts, sa->input, sa->fmt, sa->flags, pool, &err)) {
		tc_report(&err);
		return -1;
	}
	/* a directory (or a file naming several rank streams: a DUMPI .meta
	 * file, a ScalaTrace trace) must hold the whole set; a single rank
	 * file is a set of one */
	if (((stat(sa->input, &st) == 0 && S_ISDIR(st.st_mode)) || (*ts)->nfiles > 1) &&
	    tc_traceset_check(*ts, &err)) {
		tc_report(&err);
		return -1;
	}
	*res = tc_xcalloc((*ts)->nfiles, sizeof(**res));
	rstats = tc_xcalloc((*ts)->nfiles, sizeof(*rstats));
	prog = tc_progress_start("reading", (*ts)->nfiles);
	(*ts)->progress = tc_progress_counter(prog);
	rc = tc_load_each(*ts, pool, &sa->ropts, compute_one, *res, rstats, &err);
	tc_progress_stop(&prog);
	(*ts)->progress = NULL;
	if (rc) {
		tc_report(&err);
		free(rstats);
		return -1;
	}
	for (size_t i = 0; i < (*ts)->nfiles; i++)
		tc_warn_salvaged((*ts)->files[i].path, rstats[i].events, rstats[i].bad_blocks,
				 rstats[i].bad_bytes, rstats[i].has_trailer,
				 rstats[i].first_error_msg);
	free(rstats);
	return 0;
}

/* The totals over the ranks, the ACURDION format and the distinct
 * signatures of each kind. */
static void summarise(const struct tc_traceset *ts, const struct rank_result *res,
		      const struct tc_rsd_opts *ropts, struct tc_pool *pool, struct summary *sum)
{
	struct tc_signatures *sigs = tc_xcalloc(ts->nfiles, sizeof(*sigs));

	memset(sum, 0, sizeof(*sum));
	sum->match = ropts->match;
	for (size_t i = 0; i < ts->nfiles; i++) {
		sigs[i] = res[i].sig;
		sum->events += res[i].info.events;
		sum->leaves += res[i].info.leaves;
		sum->loops += res[i].info.loops;
	}
	sum->format = tc_acurdion_format(sigs, ts->nfiles, pool);
	sum->callpaths = distinct(res, ts->nfiles, 0);
	sum->params = distinct(res, ts->nfiles, 1);
	sum->refs = distinct(res, ts->nfiles, 2);
	free(sigs);
}

int cmd_signatures(int argc, char **argv)
{
	struct sig_args sa;
	struct tc_traceset *ts = NULL;
	struct tc_pool *pool;
	struct rank_result *res = NULL;
	struct summary sum;
	int rc, status = TC_EXIT_FAIL;

	if ((rc = parse_args(argc, argv, &sa)) >= 0)
		return rc;
	pool = tc_cmd_pool();
	if (compute_all(&sa, pool, &ts, &res) == 0) {
		summarise(ts, res, &sa.ropts, pool, &sum);
		if (sa.json)
			print_json(ts, res, &sum, &sa.ropts);
		else
			print_text(ts, res, &sum);
		status = TC_EXIT_OK;
	}
	free(res);
	tc_traceset_free(&ts);
	tc_pool_free(pool);
	return status;
}
