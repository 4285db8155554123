/*
 * dump.c - tracecluster dump: print the records of one raw trace file.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "formats/raw.h"
#include "formats/reader.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/json.h"
#include "lib/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char dump_usage[] =
	"usage: tracecluster dump [--json] [--header] [--callsites] [--comms]\n"
	"                         [--no-events] [--limit N] [--salvage] FILE\n"
	"       tracecluster dump [options] --rank R DIR\n"
	"\n"
	"Print the events of one raw trace file, one per line, in file order.\n"
	"\n"
	"  --json          one JSON object per line (every line has a \"record\" key:\n"
	"                  header, callsite, comm or event)\n"
	"  --header        print the file header first\n"
	"  --callsites     print the call-site table records\n"
	"  --comms         print the communicator table records\n"
	"  --no-events     do not print events\n"
	"  --limit N       stop after N events\n"
	"  --rank R        with a directory: dump the file of rank R\n"
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

static const char *peer_name(int32_t p)
{
	switch (p) {
	case TC_ANY_SOURCE:
		return "MPI_ANY_SOURCE";
	case TC_PROC_NULL:
		return "MPI_PROC_NULL";
	}
	return NULL;
}

static struct tc_json *json_peer(int32_t p)
{
	if (p >= 0)
		return tc_json_int(p);
	if (peer_name(p))
		return tc_json_str(peer_name(p));
	return tc_json_null();
}

static void text_peer(const char *key, int32_t p)
{
	if (p >= 0)
		printf(" %s=%d", key, p);
	else if (peer_name(p))
		printf(" %s=%s", key, peer_name(p));
}

static uint64_t site_sig(const struct dump_ctx *d, uint32_t id)
{
	return id < d->nsigs ? d->sigs[id] : 0;
}

static struct tc_json *u64_array(const uint64_t *v, uint32_t n)
{
	struct tc_json *a = tc_json_array();
	for (uint32_t i = 0; i < n; i++)
		tc_json_append(a, tc_json_uint(v[i]));
	return a;
}

static void event_json(struct dump_ctx *d, const struct tc_event *ev)
{
	struct tc_json *o = tc_json_object();
	uint32_t f = ev->fields;
	char sig[24];

	tc_json_set_str(o, "record", "event");
	tc_json_set_uint(o, "index", d->n);
	tc_json_set_int(o, "rank", d->rank);
	tc_json_set_str(o, "op", tc_op_name(ev->op));
	if (ev->callsite != TC_NO_CALLSITE && site_sig(d, ev->callsite)) {
		snprintf(sig, sizeof(sig), "0x%016" PRIx64, site_sig(d, ev->callsite));
		tc_json_set_str(o, "callsite", sig);
	} else {
		tc_json_set(o, "callsite", tc_json_null());
	}
	if (ev->callsite != TC_NO_CALLSITE)
		tc_json_set_uint(o, "callsite_id", ev->callsite);
	tc_json_set_uint(o, "t_start", ev->t_start);
	tc_json_set_uint(o, "t_end", ev->t_end);
	tc_json_set(o, "peer", (f & TC_F_PEER) ? json_peer(ev->peer) : tc_json_null());
	tc_json_set(o, "tag", (f & TC_F_TAG) ? tc_json_int(ev->tag) : tc_json_null());
	tc_json_set(o, "count", (f & TC_F_COUNT) ? tc_json_uint(ev->count) : tc_json_null());
	tc_json_set_uint(o, "bytes", tc_event_bytes(ev));
	tc_json_set_uint(o, "comm", ev->comm);
	if (f & TC_F_DTYPE) {
		const char *n = tc_dtype_name(ev->dtype);
		tc_json_set_str(o, "datatype", n ? n : "unknown");
		tc_json_set_uint(o, "datatype_id", ev->dtype);
		tc_json_set_uint(o, "datatype_size", ev->dtype_size);
	}
	if (f & TC_F_RPEER) {
		tc_json_set(o, "recv_peer", json_peer(ev->rpeer));
		tc_json_set_int(o, "recv_tag", ev->rtag);
	}
	if (f & TC_F_REDOP) {
		const char *n = tc_redop_name(ev->redop);
		tc_json_set_str(o, "redop", n ? n : "unknown");
	}
	if (f & TC_F_ROOT)
		tc_json_set(o, "root", json_peer(ev->root));
	if (f & TC_F_COLOR) {
		tc_json_set_int(o, "color", ev->color);
		tc_json_set_int(o, "key", ev->key);
	}
	if (f & TC_F_REQUEST)
		tc_json_set_uint(o, "request", ev->request);
	if (f & TC_F_NEWCOMM)
		tc_json_set_uint(o, "newcomm", ev->newcomm);
	if (f & TC_F_FILE) {
		tc_json_set_uint(o, "file", ev->file);
		tc_json_set_uint(o, "offset", ev->offset);
	}
	if (f & TC_F_RESULT)
		tc_json_set_int(o, "result", ev->result);
	if (f & TC_F_COMPL) {
		struct tc_json *a = tc_json_array();
		for (uint32_t i = 0; i < ev->ncompl; i++) {
			struct tc_json *c = tc_json_object();
			tc_json_set_uint(c, "request", ev->compl[i].request);
			tc_json_set(c, "source", json_peer(ev->compl[i].source));
			tc_json_set_int(c, "tag", ev->compl[i].tag);
			tc_json_set_uint(c, "bytes", ev->compl[i].bytes);
			tc_json_append(a, c);
		}
		tc_json_set(o, "completions", a);
	}
	if (f & TC_F_SCOUNTS)
		tc_json_set(o, "send_counts", u64_array(ev->scounts, ev->nscounts));
	if (f & TC_F_RCOUNTS)
		tc_json_set(o, "recv_counts", u64_array(ev->rcounts, ev->nrcounts));
	tc_json_write(o, stdout, TC_JSON_COMPACT);
	tc_json_free(o);
}

static void print_counts(const char *key, const uint64_t *v, uint32_t n)
{
	printf(" %s=[", key);
	for (uint32_t i = 0; i < n && i < 16; i++)
		printf("%s%" PRIu64, i ? "," : "", v[i]);
	if (n > 16)
		printf(",...%u", n);
	printf("]");
}

static void event_text(struct dump_ctx *d, const struct tc_event *ev)
{
	uint32_t f = ev->fields;

	printf("%8" PRIu64 " %14" PRIu64 " %+9" PRId64 " %-22s", d->n, ev->t_start,
	       (int64_t)(ev->t_end - ev->t_start), tc_op_name(ev->op));
	if (ev->callsite != TC_NO_CALLSITE)
		printf(" cs=%u", ev->callsite);
	if (ev->comm)
		printf(" comm=%u", ev->comm);
	if (f & TC_F_PEER)
		text_peer("peer", ev->peer);
	if (f & TC_F_TAG)
		printf(" tag=%d", ev->tag);
	if (f & TC_F_RPEER) {
		text_peer("rpeer", ev->rpeer);
		printf(" rtag=%d", ev->rtag);
	}
	if (f & TC_F_ROOT)
		text_peer("root", ev->root);
	if (f & TC_F_COUNT)
		printf(" count=%" PRIu64, ev->count);
	if (f & TC_F_DTYPE) {
		const char *n = tc_dtype_name(ev->dtype);
		printf(" %s", n ? n : "unknown-type");
	}
	if ((f & (TC_F_COUNT | TC_F_BYTES)) || tc_event_bytes(ev))
		printf(" bytes=%" PRIu64, tc_event_bytes(ev));
	if (f & TC_F_REDOP) {
		const char *n = tc_redop_name(ev->redop);
		printf(" %s", n ? n : "unknown-op");
	}
	if (f & TC_F_COLOR)
		printf(" color=%d key=%d", ev->color, ev->key);
	if (f & TC_F_REQUEST)
		printf(" req=%" PRIu64, ev->request);
	if (f & TC_F_NEWCOMM)
		printf(" newcomm=%u", ev->newcomm);
	if (f & TC_F_FILE)
		printf(" file=%u offset=%" PRIu64, ev->file, ev->offset);
	if (f & TC_F_RESULT)
		printf(" result=%d", ev->result);
	if (f & TC_F_COMPL) {
		printf(" done=[");
		for (uint32_t i = 0; i < ev->ncompl; i++) {
			const struct tc_completion *c = &ev->compl[i];
			printf("%s%" PRIu64, i ? "," : "", c->request);
			if (c->source >= 0)
				printf("<%d:%d:%" PRIu64 "B", c->source, c->tag, c->bytes);
		}
		printf("]");
	}
	if (f & TC_F_SCOUNTS)
		print_counts("scounts", ev->scounts, ev->nscounts);
	if (f & TC_F_RCOUNTS)
		print_counts("rcounts", ev->rcounts, ev->nrcounts);
	printf("\n");
}

static int on_event(void *p, const struct tc_event *ev)
{
	struct dump_ctx *d = p;

	if (d->limit && d->n >= d->limit)
		return 1;
	if (d->events) {
		if (d->json)
			event_json(d, ev);
		else
			event_text(d, ev);
	}
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
			tc_json_append(m, tc_json_int(c->members[i]));
		tc_json_set(o, "members", m);
		if (c->ndims) {
			struct tc_json *dims = tc_json_array();
			for (uint32_t i = 0; i < c->ndims; i++)
				tc_json_append(dims, tc_json_int(c->dims[i]));
			tc_json_set(o, "dims", dims);
			tc_json_set_uint(o, "periods", c->periods);
		}
		tc_json_write(o, stdout, TC_JSON_COMPACT);
		tc_json_free(o);
	} else {
		printf("comm %u size=%u parent=%u creator=%s members=", c->id, c->size,
		       c->parent, creator ? creator : "-");
		for (uint32_t i = 0; i < c->size && i < 32; i++)
			printf("%s%d", i ? "," : "", c->members[i]);
		if (c->size > 32)
			printf(",...");
		if (c->ndims) {
			printf(" dims=");
			for (uint32_t i = 0; i < c->ndims; i++)
				printf("%s%d", i ? "x" : "", c->dims[i]);
		}
		printf("\n");
	}
	return 0;
}

static void print_header(const struct dump_ctx *d, const struct tc_raw_header *h)
{
	if (d->json) {
		struct tc_json *o = tc_json_object();
		char ver[16];
		snprintf(ver, sizeof(ver), "%u.%u", h->version_major, h->version_minor);
		tc_json_set_str(o, "record", "header");
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
	printf("format:      tracecluster raw %u.%u\n", h->version_major, h->version_minor);
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

int cmd_dump(int argc, char **argv)
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
		{ NULL, 0, NULL, 0 },
	};
	struct dump_ctx d = { false, false, false, true, 0, 0, 0, NULL, 0 };
	static const struct tc_read_ops ops = { on_event, on_callsite, on_comm };
	struct tc_reader *r = NULL;
	struct tc_raw_stats rs;
	struct tc_error err;
	bool header = false;
	unsigned flags = 0;
	uint64_t rank = UINT64_MAX;
	char pathbuf[4096];
	const char *path;
	struct stat st;
	int c, rc, status = TC_EXIT_FAIL;

	while ((c = getopt_long(argc, argv, TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return tc_print_help(dump_usage);
		case 'J':
			d.json = true;
			break;
		case 'H':
			header = true;
			break;
		case 'C':
			d.callsites = true;
			break;
		case 'M':
			d.comms = true;
			break;
		case 'N':
			d.events = false;
			break;
		case 'L':
			if ((rc = tc_parse_u64("dump", "--limit", optarg, &d.limit)))
				return rc;
			break;
		case 'r':
			if ((rc = tc_parse_u64("dump", "--rank", optarg, &rank)))
				return rc;
			if (rank > INT32_MAX)
				return tc_usage_error("dump", "--rank: %s is out of range", optarg);
			break;
		case 'S':
			flags |= TC_RAW_SALVAGE;
			break;
		case '?':
			return tc_usage_error("dump", "unknown option '%s'", argv[optind - 1]);
		default:
			rc = tc_common_option("dump", c, optarg);
			if (rc < 0)
				return -rc;
			if (!rc)
				return tc_usage_error("dump", "unknown option");
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error("dump", optind >= argc ? "missing FILE" : "too many arguments");
	path = argv[optind];
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (rank == UINT64_MAX)
			return tc_usage_error("dump", "'%s' is a directory: give --rank R", path);
		tc_raw_rank_path(pathbuf, sizeof(pathbuf), path, (int32_t)rank);
		path = pathbuf;
	}

	tc_error_clear(&err);
	if (tc_reader_open(&r, path, TC_FMT_AUTO, 0, flags, &err)) {
		tc_report(&err);
		return TC_EXIT_FAIL;
	}
	d.rank = tc_reader_header(r)->rank;
	if (header)
		print_header(&d, tc_reader_header(r));
	rc = tc_reader_read(r, &ops, &d, &rs, &err);
	if (rc && rc != TC_ERR_STOP) {
		tc_report(&err);
		goto out;
	}
	if (rs.bad_blocks || (!rs.has_trailer && rc != TC_ERR_STOP))
		tc_warnf("'%s': salvaged %" PRIu64 " events%s%s", path, rs.events,
			 rs.first_error_msg[0] ? "; first damage: " : "; no trailer",
			 rs.first_error_msg);
	status = TC_EXIT_OK;
out:
	free(d.sigs);
	tc_reader_close(&r);
	return status;
}
