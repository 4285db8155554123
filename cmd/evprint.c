/*
 * evprint.c - print one event as tracecluster dump does (text or JSON).
 */
#include "lib/compat.h"
#include "cmd/evprint.h"
#include "lib/event.h"
#include "lib/json.h"

#include <stdio.h>

static struct tc_json *json_peer(int32_t p)
{
	if (p >= 0)
		return tc_json_int(p);
	if (tc_peer_name(p))
		return tc_json_str(tc_peer_name(p));
	return tc_json_null();
}

static void text_peer(const char *key, int32_t p)
{
	if (p >= 0)
		printf(" %s=%d", key, p);
	else if (tc_peer_name(p))
		printf(" %s=%s", key, tc_peer_name(p));
}

static uint64_t site_sig(const struct tc_evprint_ctx *d, uint32_t id)
{
	return d->sigs && id < d->nsigs ? d->sigs[id] : 0;
}

static struct tc_json *u64_array(const uint64_t *v, uint32_t n)
{
	struct tc_json *a = tc_json_array();
	for (uint32_t i = 0; i < n; i++)
		tc_json_append(a, tc_json_uint(v[i]));
	return a;
}

void tc_evprint_json(const struct tc_evprint_ctx *d, const struct tc_event *ev)
{
	struct tc_json *o = tc_json_object();
	uint32_t f = ev->fields;
	char sig[24];

	tc_json_set_str(o, "record", "event");
	tc_json_set_uint(o, "index", d->index);
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

void tc_evprint_text(const struct tc_evprint_ctx *d, const struct tc_event *ev)
{
	uint32_t f = ev->fields;

	printf("%8" PRIu64 " %14" PRIu64 " %+9" PRId64 " %-22s", d->index, ev->t_start,
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
