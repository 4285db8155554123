/*
 * dump.c - tracecluster dump: print the records of one rank's trace.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/evprint.h"
#include "formats/raw.h"
#include "formats/reader.h"
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
#include <sys/stat.h>

static const char dump_usage[] =
	"usage: tracecluster dump [--json] [--header] [--callsites] [--comms]\n"
	"                         [--no-events] [--limit N] [--salvage]\n"
	"                         [--format F] [--rank R] FILE\n"
	"       tracecluster dump [options] --rank R DIR\n"
	"\n"
	"Print the events of one rank's trace, one per line, in file order.\n"
	"\n"
	"  --json          one JSON object per line (every line has a \"record\" key:\n"
	"                  header, callsite, comm or event)\n"
	"  --header        print the file header first\n"
	"  --callsites     print the call-site table records\n"
	"  --comms         print the communicator table records\n"
	"  --no-events     do not print events\n"
	"  --limit N       stop after N events\n"
	"  --rank R        with a directory, a ScalaTrace trace or a DUMPI .meta file:\n"
	"                  dump rank R (default 0 for a file)\n"
	"  --format F      read as raw, scalatrace, dumpi or otf2 instead of detecting it\n"
	"  --salvage       read a damaged file up to its damage; warn instead of fail\n"
	"  -h, --help      this help\n";

struct dump_ctx {
	bool json, callsites, comms, events;
	uint64_t limit, n;
	int32_t rank;
	uint64_t *sigs;     /* call-site id -> signature (0 unknown) */
	size_t nsigs;
};

#define MAX_SITE_ID (1u << 22)

static void print_event(const struct dump_ctx *d, const struct tc_event *ev)
{
	struct tc_evprint_ctx pc = { d->n, d->rank, d->sigs, d->nsigs };

	if (d->json)
		tc_evprint_json(&pc, ev);
	else
		tc_evprint_text(&pc, ev);
}

static int on_event(void *p, const struct tc_event *ev)
{
	struct dump_ctx *d = p;

	if (d->limit && d->n >= d->limit)
		return 1;
	if (d->events)
		print_event(d, ev);
	d->n++;
	return 0;
}

static int on_callsite(void *p, const struct tc_callsite *cs)
{
	struct dump_ctx *d = p;

	if (cs->id < MAX_SITE_ID) {
		if (cs->id >= d->nsigs) {
			size_t n = (size_t)cs->id + 1;
			d->sigs = tc_xrealloc(d->sigs, n * sizeof(*d->sigs));
			memset(d->sigs + d->nsigs, 0, (n - d->nsigs) * sizeof(*d->sigs));
			d->nsigs = n;
		}
		d->sigs[cs->id] = cs->signature;
	}
	if (!d->callsites)
		return 0;
	if (d->json) {
		struct tc_json *o = tc_json_object(), *fr = tc_json_array();
		char sig[24];
		snprintf(sig, sizeof(sig), "0x%016" PRIx64, cs->signature);
		tc_json_set_str(o, "record", "callsite");
		tc_json_set_uint(o, "id", cs->id);
		tc_json_set_str(o, "signature", sig);
		for (uint32_t i = 0; i < cs->nframes; i++) {
			struct tc_json *f = tc_json_object();
			tc_json_set_str(f, "module", cs->frames[i].module);
			tc_json_set_uint(f, "offset", cs->frames[i].offset);
			tc_json_set_str(f, "symbol", cs->frames[i].symbol);
			tc_json_append(fr, f);
		}
		tc_json_set(o, "frames", fr);
		tc_json_write(o, stdout, TC_JSON_COMPACT);
		tc_json_free(o);
	} else {
		printf("callsite %u 0x%016" PRIx64 "\n", cs->id, cs->signature);
		for (uint32_t i = 0; i < cs->nframes; i++)
			printf("    #%u %s+0x%" PRIx64 " %s\n", i, cs->frames[i].module,
			       cs->frames[i].offset, cs->frames[i].symbol);
	}
	return 0;
}

/* n ints of v as a JSON array (returns new). */
static struct tc_json *int_array(const int32_t *v, uint32_t n)
{
	struct tc_json *a = tc_json_array();

	for (uint32_t i = 0; i < n; i++)
		tc_json_append(a, tc_json_int(v[i]));
	return a;
}

/* n ints of v as " name=a,b,c" (at most 32, then "...") */
static void print_ints(const char *name, const int32_t *v, uint32_t n)
{
	printf(" %s=", name);
	for (uint32_t i = 0; i < n && i < 32; i++)
		printf("%s%d", i ? "," : "", v[i]);
	if (n > 32)
		printf(",...");
}

static int on_comm(void *p, const struct tc_comm *c)
{
	struct dump_ctx *d = p;
	const char *creator = c->creator ? tc_op_name(c->creator) : NULL;

	if (!d->comms)
		return 0;
	if (d->json) {
		struct tc_json *o = tc_json_object(), *m = tc_json_array();
		tc_json_set_str(o, "record", "comm");
		tc_json_set_uint(o, "id", c->id);
		tc_json_set_uint(o, "parent", c->parent);
		tc_json_set_str(o, "creator", creator ? creator : "");
		tc_json_set_uint(o, "size", c->size);
		for (uint32_t i = 0; i < c->size; i++)
			tc_json_append(m, tc_json_int(tc_comm_member(c, i)));
		tc_json_set(o, "members", m);
		if (c->ndims) {
			struct tc_json *dims = tc_json_array();
			for (uint32_t i = 0; i < c->ndims; i++)
				tc_json_append(dims, tc_json_int(c->dims[i]));
			tc_json_set(o, "dims", dims);
			tc_json_set_uint(o, "periods", c->periods);
		}
		if (c->graph) {
			tc_json_set(o, "sources", int_array(c->edges, c->nin));
			tc_json_set(o, "destinations", int_array(c->edges + c->nin, c->nout));
			if (c->weighted) {
				const int32_t *w = c->edges + c->nin + c->nout;
				tc_json_set(o, "source_weights", int_array(w, c->nin));
				tc_json_set(o, "destination_weights",
					    int_array(w + c->nin, c->nout));
			}
		}
		tc_json_write(o, stdout, TC_JSON_COMPACT);
		tc_json_free(o);
	} else {
		printf("comm %u size=%u parent=%u creator=%s members=", c->id, c->size,
		       c->parent, creator ? creator : "-");
		for (uint32_t i = 0; i < c->size && i < 32; i++)
			printf("%s%d", i ? "," : "", tc_comm_member(c, i));
		if (c->size > 32)
			printf(",...");
		if (c->ndims) {
			printf(" dims=");
			for (uint32_t i = 0; i < c->ndims; i++)
				printf("%s%d", i ? "x" : "", c->dims[i]);
		}
		if (c->graph) {
			print_ints("sources", c->edges, c->nin);
			print_ints("destinations", c->edges + c->nin, c->nout);
			if (c->weighted) {
				print_ints("source_weights", c->edges + c->nin + c->nout, c->nin);
				print_ints("destination_weights",
					   c->edges + 2 * c->nin + c->nout, c->nout);
			}
		}
		printf("\n");
	}
	return 0;
}

static void print_header(const struct dump_ctx *d, const struct tc_raw_header *h,
			 const char *format)
{
	if (d->json) {
		struct tc_json *o = tc_json_object();
		char ver[16];
		snprintf(ver, sizeof(ver), "%u.%u", h->version_major, h->version_minor);
		tc_json_set_str(o, "record", "header");
		tc_json_set_str(o, "format", format);
		tc_json_set_str(o, "version", ver);
		tc_json_set_int(o, "rank", h->rank);
		tc_json_set_int(o, "world_size", h->world_size);
		tc_json_set_str(o, "job_id", h->job_id);
		tc_json_set_str(o, "host", h->host);
		tc_json_set_str(o, "clock", h->clock);
		tc_json_set_uint(o, "start_time_ns", h->start_time_ns);
		tc_json_set_uint(o, "pid", h->pid);
		tc_json_set_uint(o, "stack_depth", h->stack_depth);
		tc_json_set_str(o, "program", h->program);
		tc_json_set_str(o, "writer", h->writer);
		tc_json_write(o, stdout, TC_JSON_COMPACT);
		tc_json_free(o);
		return;
	}
	if (!strcmp(format, "raw"))
		printf("format:      tracecluster raw %u.%u\n", h->version_major, h->version_minor);
	else
		printf("format:      %s\n", format);
	printf("rank:        %d of %d\n", h->rank, h->world_size);
	printf("job id:      %s\n", h->job_id);
	printf("host:        %s (pid %u)\n", h->host, h->pid);
	printf("clock:       %s\n", h->clock);
	printf("start time:  %" PRIu64 ".%09" PRIu64 "\n", h->start_time_ns / 1000000000u,
	       h->start_time_ns % 1000000000u);
	printf("stack depth: %u\n", h->stack_depth);
	printf("program:     %s\n", h->program);
	printf("writer:      %s\n", h->writer);
}

/*
 * Which file and rank stream to dump: a directory needs --rank (raw sets
 * by file name, other formats through the trace set); a file holding
 * every rank (ScalaTrace, OTF2, a DUMPI .meta file) takes --rank as the stream.
 * Returns 0, TC_EXIT_USAGE, or a negative code with err filled.
 */
static int find_stream(const char **path, char **pathbuf, enum tc_format *fmt,
		       uint32_t *index, uint64_t rank, struct tc_error *err)
{
	struct tc_traceset *ts = NULL;
	struct tc_pool *pool;
	struct stat st;
	size_t len;
	int rc;

	if (stat(*path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		int f = *fmt;
		if (rank == UINT64_MAX)
			return 0;
		if (f == TC_FMT_AUTO && (f = tc_format_detect(*path, err)) < 0)
			return TC_ERR_IO;
		len = strlen(*path);
		if (f == TC_FMT_SCALATRACE || f == TC_FMT_OTF2 ||
		    (f == TC_FMT_DUMPI && len > 5 && !strcmp(*path + len - 5, ".meta")))
			*index = (uint32_t)rank;
		*fmt = (enum tc_format)f;
		return 0;
	}
	if (rank == UINT64_MAX)
		return TC_EXIT_USAGE;
	len = strlen(*path) + 32;
	*pathbuf = tc_xmalloc(len);
	tc_raw_rank_path(*pathbuf, len, *path, (int32_t)rank);
	if ((*fmt == TC_FMT_AUTO || *fmt == TC_FMT_RAW) && stat(*pathbuf, &st) == 0) {
		*path = *pathbuf;
		*fmt = TC_FMT_RAW;
		return 0;
	}
	pool = tc_cmd_pool();
	rc = tc_traceset_open_format(&ts, *path, *fmt, 0, pool, err);
	tc_pool_free(pool);
	if (rc)
		return rc;
	rc = tc_error_set(err, TC_ERR_FORMAT, *path, -1, "no rank %" PRIu64 " in this trace",
			  rank);
	for (size_t i = 0; i < ts->nfiles; i++) {
		if (ts->files[i].hdr.rank != (int32_t)rank)
			continue;
		free(*pathbuf);
		*pathbuf = tc_xstrdup(ts->files[i].path);
		*path = *pathbuf;
		*fmt = ts->files[i].format;
		*index = ts->files[i].index;
		rc = 0;
		break;
	}
	tc_traceset_free(&ts);
	return rc;
}

struct dump_args {
	struct dump_ctx d;
	bool header;
	unsigned flags;
	uint64_t rank;
	enum tc_format fmt;
	const char *path;
};

/* The options and the FILE into da; -1 to go on, else the status to exit
 * with (after --help, or a usage error). */
static int parse_args(int argc, char **argv, struct dump_args *da)
{
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "json", no_argument, NULL, 'J' },
		{ "header", no_argument, NULL, 'H' },
		{ "callsites", no_argument, NULL, 'C' },
		{ "comms", no_argument, NULL, 'M' },
		{ "no-events", no_argument, NULL, 'N' },
		{ "limit", required_argument, NULL, 'L' },
		{ "rank", required_argument, NULL, 'r' },
		{ "salvage", no_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	da->d = (struct dump_ctx){ false, false, false, true, 0, 0, 0, NULL, 0 };
	da->header = false;
	da->flags = 0;
	da->rank = UINT64_MAX;
	da->fmt = TC_FMT_AUTO;
	while ((c = getopt_long(argc, argv, TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return tc_print_help(dump_usage);
		case 'J':
			da->d.json = true;
			break;
		case 'H':
			da->header = true;
			break;
		case 'C':
			da->d.callsites = true;
			break;
		case 'M':
			da->d.comms = true;
			break;
		case 'N':
			da->d.events = false;
			break;
		case 'L':
			if ((rc = tc_parse_u64("dump", "--limit", optarg, &da->d.limit)))
				return rc;
			break;
		case 'r':
			if ((rc = tc_parse_u64("dump", "--rank", optarg, &da->rank)))
				return rc;
			if (da->rank > INT32_MAX)
				return tc_usage_error("dump", "--rank: %s is out of range", optarg);
			break;
		case 'S':
			da->flags |= TC_RAW_SALVAGE;
			break;
		case 'F':
			if ((rc = tc_format_from_name(optarg)) < 0)
				return tc_usage_error("dump",
						      "--format: expected raw, scalatrace, dumpi or otf2,"
						      " got '%s'", optarg);
			da->fmt = (enum tc_format)rc;
			break;
		default:
			if ((rc = tc_cmd_option("dump", c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error("dump", optind >= argc ? "missing FILE" : "too many arguments");
	da->path = argv[optind];
	return -1;
}

/* Prints the stream da names (a rank of a directory with --rank); the
 * exit status. */
static int dump_stream(struct dump_args *da)
{
	static const struct tc_read_ops ops = { on_event, on_callsite, on_comm };
	struct dump_ctx *d = &da->d;
	struct tc_reader *r = NULL;
	struct tc_raw_stats rs;
	struct tc_error err;
	enum tc_format fmt = da->fmt;
	uint32_t index = 0;
	char *pathbuf = NULL;
	const char *path = da->path;
	int rc, status = TC_EXIT_FAIL;

	tc_error_clear(&err);
	rc = find_stream(&path, &pathbuf, &fmt, &index, da->rank, &err);
	if (rc == TC_EXIT_USAGE)
		return tc_usage_error("dump", "'%s' is a directory: give --rank R", path);
	if (rc || tc_reader_open(&r, path, fmt, index, da->flags, &err)) {
		tc_report(&err);
		free(pathbuf);
		return TC_EXIT_FAIL;
	}
	d->rank = tc_reader_header(r)->rank;
	if (da->header)
		print_header(d, tc_reader_header(r), tc_reader_format_name(r));
	rc = tc_reader_read(r, &ops, d, &rs, &err);
	if (rc && rc != TC_ERR_STOP) {
		tc_report(&err);
		goto out;
	}
	/* a read stopped by --limit has not reached the trailer: not damage */
	if (rc != TC_ERR_STOP || rs.bad_blocks)
		tc_warn_salvaged(path, rs.events, rs.bad_blocks, rs.bad_bytes,
				 rs.has_trailer || rc == TC_ERR_STOP, rs.first_error_msg);
	status = TC_EXIT_OK;
out:
	free(d->sigs);
	free(pathbuf);
	tc_reader_close(&r);
	return status;
}

int cmd_dump(int argc, char **argv)
{
	struct dump_args da;
	int rc;

	if ((rc = parse_args(argc, argv, &da)) >= 0)
		return rc;
	return dump_stream(&da);
}
