/*
 * info.c - tracecluster info: summarise a trace set.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "lib/progress.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/json.h"
#include "lib/pool.h"
#include "lib/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char info_usage[] =
	"usage: tracecluster info [--json] [--salvage] [--format F] [-j N] DIR|FILE\n"
	"\n"
	"Summarise a trace set: ranks, events, bytes, per-op counts, call sites,\n"
	"time span, and missing or duplicate ranks. Exits 1 when the set is\n"
	"incomplete or inconsistent, after printing what it found.\n"
	"\n"
	"  --json          one JSON document instead of text\n"
	"  --salvage       read damaged files up to their damage; warn instead of fail\n"
	"  --format F      read as raw, scalatrace, dumpi or otf2 instead of detecting it\n"
	"  -j, --threads N worker threads\n"
	"  -h, --help      this help\n";

struct summary {
	uint64_t events, bytes, raw_bytes, msg_bytes, dropped;
	uint64_t tracer_ns;       /* mean over the calls of the files that measured it, 0: none */
	uint64_t ops[256];
	struct tc_tracer_op tracer_op[TC_OP_MAX]; /* the same per op (the files' weighted) */
	size_t ntracer_op;
	uint64_t abs_first, abs_last;
	size_t callsites;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void summarise(const struct tc_traceset *ts, const struct tc_file_stats *st,
		      struct summary *s)
{
	size_t total = 0, k = 0;
	uint64_t *all;
	struct tc_tracer_mean tracer = { 0, 0 };
	struct tc_tracer_ops *tops = tc_xcalloc(1, sizeof(*tops));

	memset(s, 0, sizeof(*s));
	s->abs_first = UINT64_MAX;
	for (size_t i = 0; i < ts->nfiles; i++) {
		s->events += st[i].events;
		s->bytes += st[i].file_bytes;
		s->raw_bytes += st[i].raw_bytes;
		s->msg_bytes += st[i].msg_bytes;
		s->dropped += st[i].dropped;
		tc_tracer_mean_add(&tracer, st[i].tracer_ns, st[i].events);
		tc_tracer_ops_add(tops, st[i].tracer_op, TC_MIN(st[i].ntracer_op, TC_TRACER_OPS));
		for (int op = 0; op < 256; op++)
			s->ops[op] += st[i].op_counts[op];
		if (st[i].events) {
			if (st[i].abs_first < s->abs_first)
				s->abs_first = st[i].abs_first;
			if (st[i].abs_last > s->abs_last)
				s->abs_last = st[i].abs_last;
		}
		total += st[i].nsigs;
	}
	if (s->abs_first == UINT64_MAX)
		s->abs_first = s->abs_last = 0;
	s->tracer_ns = tc_tracer_mean_get(&tracer);
	s->ntracer_op = tc_tracer_ops_get(tops, s->tracer_op);
	free(tops);
	all = tc_xmalloc(sizeof(uint64_t) * (total ? total : 1));
	for (size_t i = 0; i < ts->nfiles; i++) {
		if (st[i].nsigs)   /* sigs is NULL for a file without call sites */
			memcpy(all + k, st[i].sigs, st[i].nsigs * sizeof(uint64_t));
		k += st[i].nsigs;
	}
	qsort(all, total, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < total; i++)
		if (i == 0 || all[i] != all[i - 1])
			s->callsites++;
	free(all);
}

static struct tc_json *rank_array(const int32_t *v, size_t n)
{
	struct tc_json *a = tc_json_array();
	for (size_t i = 0; i < n; i++)
		tc_json_append(a, tc_json_int(v[i]));
	return a;
}

/* {"OP": ns, ...}: the tracer's mean time after each op's calls */
static struct tc_json *tracer_ops_json(const struct tc_tracer_op *t, size_t n)
{
	struct tc_json *o = tc_json_object();

	for (size_t i = 0; i < n; i++)
		tc_json_set_uint(o, tc_op_name(t[i].op) ? tc_op_name(t[i].op) : "unknown", t[i].ns);
	return o;
}

static void print_json(const struct tc_traceset *ts, const struct tc_file_stats *st,
		       const struct summary *s)
{
	struct tc_json *o = tc_json_object(), *files = tc_json_array(), *ops = tc_json_object();
	struct tc_json *writers = tc_json_array();

	tc_json_set_int(o, "schema", 2);
	tc_json_set_str(o, "input", ts->dir);
	tc_json_set_int(o, "ranks", ts->ranks);
	tc_json_set_int(o, "world_size", ts->world_size);
	tc_json_set_uint(o, "events", s->events);
	tc_json_set_uint(o, "bytes", s->bytes);
	tc_json_set_uint(o, "decoded_bytes", s->raw_bytes);
	tc_json_set_uint(o, "message_bytes", s->msg_bytes);
	tc_json_set_uint(o, "dropped", s->dropped);
	tc_json_set_uint(o, "tracer_ns", s->tracer_ns);
	tc_json_set_uint(o, "callsites", s->callsites);
	tc_json_set_uint(o, "t_start_ns", s->abs_first);
	tc_json_set_uint(o, "time_span_ns", s->abs_last - s->abs_first);
	tc_json_set(o, "missing", rank_array(ts->missing, ts->nmissing));
	tc_json_set(o, "duplicates", rank_array(ts->duplicates, ts->nduplicates));
	for (int op = 0; op < 256; op++)
		if (s->ops[op])
			tc_json_set_uint(ops, tc_op_name((unsigned)op) ? tc_op_name((unsigned)op) : "unknown",
					 s->ops[op]);
	tc_json_set(o, "ops", ops);
	tc_json_set(o, "tracer_ops", tracer_ops_json(s->tracer_op, s->ntracer_op));
	for (size_t i = 0; i < ts->nfiles; i++) {
		struct tc_json *f = tc_json_object();
		const struct tc_traceset_file *tf = &ts->files[i];
		bool seen = false;
		tc_json_set_int(f, "rank", tf->hdr.rank);
		tc_json_set_str(f, "path", tf->path);
		tc_json_set_uint(f, "events", st[i].events);
		tc_json_set_uint(f, "bytes", st[i].file_bytes);
		tc_json_set_uint(f, "blocks", st[i].blocks);
		tc_json_set_uint(f, "callsites", st[i].nsigs);
		tc_json_set_uint(f, "t_first_ns", st[i].t_first);
		tc_json_set_uint(f, "t_last_ns", st[i].t_last);
		tc_json_set_bool(f, "complete", st[i].has_trailer && !st[i].bad_blocks);
		tc_json_set_uint(f, "tracer_ns", st[i].tracer_ns);
		tc_json_set(f, "tracer_ops", tracer_ops_json(st[i].tracer_op, st[i].ntracer_op));
		tc_json_set_str(f, "host", tf->hdr.host);
		tc_json_append(files, f);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ts->files[j].hdr.writer, tf->hdr.writer))
				seen = true;
		if (!seen)
			tc_json_append(writers, tc_json_str(tf->hdr.writer));
	}
	tc_json_set(o, "files", files);
	tc_json_set(o, "writers", writers);
	tc_json_write(o, stdout, TC_JSON_COMPACT);
	tc_json_free(o);
}

static void print_ranks(const char *label, const int32_t *v, size_t n)
{
	printf("%-12s ", label);
	if (!n) {
		printf("none\n");
		return;
	}
	for (size_t i = 0; i < n && i < 32; i++)
		printf("%s%d", i ? " " : "", v[i]);
	if (n > 32)
		printf(" ... (%zu in all)", n);
	printf("\n");
}

static void print_text(const struct tc_traceset *ts, const struct tc_file_stats *st,
		       const struct summary *s)
{
	uint64_t span = s->abs_last - s->abs_first;

	printf("%-12s %s\n", "trace set:", ts->dir);
	printf("%-12s %d present, world size %d\n", "ranks:", ts->ranks, ts->world_size);
	printf("%-12s %" PRIu64 "\n", "events:", s->events);
	printf("%-12s %" PRIu64 " on disk, %" PRIu64 " decoded", "bytes:", s->bytes, s->raw_bytes);
	if (s->events)
		printf(" (%.2f bytes/event on disk)", (double)s->bytes / (double)s->events);
	printf("\n");
	printf("%-12s %" PRIu64 "\n", "msg bytes:", s->msg_bytes);
	printf("%-12s %zu distinct\n", "call sites:", s->callsites);
	{
		char sp[TC_DURATION_LEN];
		printf("%-12s %s\n", "time span:", tc_fmt_ns((int64_t)span, false, sp));
	}
	printf("%-12s %s\n", "writer:", ts->nfiles ? ts->files[0].hdr.writer : "");
	if (s->dropped)
		printf("%-12s %" PRIu64 "\n", "dropped:", s->dropped);
	if (s->tracer_ns)
		printf("%-12s %" PRIu64 " ns per call in the compute gaps (mean over the calls)\n",
		       "tracer:", s->tracer_ns);
	print_ranks("missing:", ts->missing, ts->nmissing);
	print_ranks("duplicates:", ts->duplicates, ts->nduplicates);

	printf("\n%-28s %14s %7s%s\n", "op", "calls", "%", s->ntracer_op ? "  tracer ns" : "");
	for (int op = 0, k = 0; op < 256; op++) {
		if (!s->ops[op])
			continue;
		printf("%-28s %14" PRIu64 " %6.2f%%",
		       tc_op_name((unsigned)op) ? tc_op_name((unsigned)op) : "unknown",
		       s->ops[op], 100.0 * (double)s->ops[op] / (double)s->events);
		while ((size_t)k < s->ntracer_op && s->tracer_op[k].op < (unsigned)op)
			k++;
		if ((size_t)k < s->ntracer_op && s->tracer_op[k].op == (unsigned)op)
			printf(" %10" PRIu32, s->tracer_op[k].ns);
		printf("\n");
	}
	printf("\n%8s %12s %12s %7s %6s %12s  %s\n", "rank", "events", "bytes", "blocks",
	       "sites", "span", "file");
	for (size_t i = 0; i < ts->nfiles; i++) {
		const char *name = strrchr(ts->files[i].path, '/');
		char sp[TC_DURATION_LEN];
		tc_fmt_ns((int64_t)(st[i].t_last - st[i].t_first), false, sp);
		printf("%8d %12" PRIu64 " %12" PRIu64 " %7" PRIu64 " %6zu %*s  %s%s\n",
		       ts->files[i].hdr.rank, st[i].events, st[i].file_bytes, st[i].blocks,
		       st[i].nsigs, tc_fmt_width(sp, 12), sp,
		       name ? name + 1 : ts->files[i].path,
		       st[i].has_trailer && !st[i].bad_blocks ? "" : " (salvaged)");
	}
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "json", no_argument, NULL, 'J' },
		{ "salvage", no_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	enum tc_format fmt = TC_FMT_AUTO;
	unsigned flags = 0;
	struct tc_traceset *ts = NULL;
	struct tc_file_stats *st = NULL;
	struct tc_pool *pool = NULL;
	struct tc_error err;
	struct summary s;
	struct tc_progress *prog = NULL;
	int c, rc, status = TC_EXIT_FAIL;

	while ((c = getopt_long(argc, argv, TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return tc_print_help(info_usage);
		case 'J':
			json = true;
			break;
		case 'S':
			flags |= TC_RAW_SALVAGE;
			break;
		case 'F':
			rc = tc_format_from_name(optarg);
			if (rc < 0)
				return tc_usage_error("info",
						      "--format: expected raw, scalatrace, dumpi or otf2,"
						      " got '%s'", optarg);
			fmt = (enum tc_format)rc;
			break;
		default:
			if ((rc = tc_cmd_option("info", c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error("info", optind >= argc ? "missing DIR" : "too many arguments");

	tc_error_clear(&err);
	pool = tc_cmd_pool();
	if (tc_traceset_open_format(&ts, argv[optind], fmt, flags, pool, &err)) {
		tc_report(&err);
		goto out;
	}
	prog = tc_progress_start("reading", ts->nfiles);
	ts->progress = tc_progress_counter(prog);
	rc = tc_traceset_stats(ts, pool, &st, &err);
	tc_progress_stop(&prog);
	ts->progress = NULL;
	if (rc) {
		tc_report(&err);
		goto out;
	}
	for (size_t i = 0; i < ts->nfiles; i++)
		tc_warn_salvaged(ts->files[i].path, st[i].events, st[i].bad_blocks,
				 st[i].bad_bytes, st[i].has_trailer, st[i].salvage_msg);
	summarise(ts, st, &s);
	if (json)
		print_json(ts, st, &s);
	else
		print_text(ts, st, &s);
	status = TC_EXIT_OK;
	if (tc_traceset_check(ts, &err)) {
		tc_report(&err);
		status = TC_EXIT_FAIL;
	}
out:
	tc_file_stats_free(st, ts ? ts->nfiles : 0);
	tc_traceset_free(&ts);
	tc_pool_free(pool);
	return status;
}
