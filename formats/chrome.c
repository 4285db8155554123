/*
 * chrome.c - export as Trace Event Format JSON (Perfetto, chrome://tracing;
 * formats/otf2.md, "Chrome trace JSON").
 *
 * Streamed: one JSON object per line as the events arrive, nothing is
 * kept but a per-rank message counter per (peer, tag). Each rank is one
 * process track (pid = tid = rank, named "rank R"); each MPI call is a
 * complete event ("ph": "X", ts and dur in microseconds) with its
 * parameters in "args"; each message is a flow from the send call ("ph":
 * "s") to the call that received it ("ph": "f", "bp": "e"). The n-th
 * message from rank a to rank b with tag t (MPI's non-overtaking order)
 * gets the same flow id on both sides, so no rank has to be held.
 */
#include "lib/compat.h"
#include "formats/export_internal.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/file.h"
#include "lib/hash.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ch_slot {
	uint64_t key;            /* (peer + 1) << 32 | tag; 0 empty */
	uint64_t count;
};

struct chrome {
	FILE *f;
	int fd;                  /* of the temporary file, -1 for stdout */
	char *tmp;
	bool first;
	struct ch_slot *slots;
	size_t nslots, cap;
};

/* The next message number for (peer, tag) on the current rank. */
static uint64_t next_msg(struct chrome *c, int32_t peer, int32_t tag)
{
	uint64_t key = ((uint64_t)(uint32_t)(peer + 1) << 32) | (uint32_t)tag;
	size_t i;

	if (!key)
		key = 1ull << 63;
	if ((c->nslots + 1) * 2 > c->cap) {
		struct ch_slot *old = c->slots;
		size_t ocap = c->cap;
		c->cap = ocap ? ocap * 2 : 256;
		c->slots = tc_xcalloc(c->cap, sizeof(*c->slots));
		for (size_t k = 0; k < ocap; k++) {
			if (!old[k].key)
				continue;
			for (i = tc_hash_fmix(old[k].key) & (c->cap - 1); c->slots[i].key;
			     i = (i + 1) & (c->cap - 1))
				;
			c->slots[i] = old[k];
		}
		free(old);
	}
	for (i = tc_hash_fmix(key) & (c->cap - 1); c->slots[i].key; i = (i + 1) & (c->cap - 1))
		if (c->slots[i].key == key)
			return c->slots[i].count++;
	c->slots[i].key = key;
	c->slots[i].count = 1;
	c->nslots++;
	return 0;
}

static uint64_t flow_id(int32_t src, int32_t dst, int32_t tag, uint64_t n)
{
	uint64_t h = tc_hash_mix(0x63687266, (uint64_t)(uint32_t)src);
	h = tc_hash_mix(h, (uint64_t)(uint32_t)dst);
	h = tc_hash_mix(h, (uint64_t)(uint32_t)tag);
	return tc_hash_fmix(tc_hash_mix(h, n)) >> 11;  /* exact in a double */
}

/* Microseconds with the nanoseconds as decimals. */
static void put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

static void sep(struct chrome *c)
{
	fputs(c->first ? "\n" : ",\n", c->f);
	c->first = false;
}

static void flow(struct tc_export *x, char ph, uint64_t id, uint64_t t)
{
	struct chrome *c = x->impl;

	sep(c);
	fprintf(c->f, "{\"ph\":\"%c\",%s\"name\":\"message\",\"cat\":\"mpi.msg\",\"id\":%" PRIu64
		",\"pid\":%" PRId32 ",\"tid\":%" PRId32 ",\"ts\":", ph,
		ph == 'f' ? "\"bp\":\"e\"," : "", id, x->rank, x->rank);
	put_us(c->f, t);
	fputc('}', c->f);
}

static int ch_rank_begin(struct tc_export *x, struct tc_error *err)
{
	struct chrome *c = x->impl;
	(void)err;

	if (c->slots)
		memset(c->slots, 0, c->cap * sizeof(*c->slots));
	c->nslots = 0;
	sep(c);
	fprintf(c->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRId32 ",\"tid\":%" PRId32
		",\"args\":{\"name\":\"rank %" PRId32 "\"}},\n", x->rank, x->rank, x->rank);
	fprintf(c->f, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%" PRId32
		",\"tid\":%" PRId32 ",\"args\":{\"sort_index\":%" PRId32 "}},\n",
		x->rank, x->rank, x->rank);
	fprintf(c->f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRId32 ",\"tid\":%" PRId32
		",\"args\":{\"name\":\"MPI\"}}", x->rank, x->rank);
	return 0;
}

static int ch_event(struct tc_export *x, const struct tc_event *ev, struct tc_error *err)
{
	struct chrome *c = x->impl;
	FILE *f = c->f;
	const char *name = tc_op_name(ev->op);
	enum tc_op_kind kind = tc_op_kind(ev->op);
	uint64_t dur = ev->t_end > ev->t_start ? ev->t_end - ev->t_start : 0;
	uint64_t mid = ev->t_start + dur / 2;
	int32_t src = TC_PEER_NONE, rtag = TC_ANY_TAG;
	const struct tc_export_site *site;

	sep(c);
	fprintf(f, "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"mpi\",\"pid\":%" PRId32
		",\"tid\":%" PRId32 ",\"ts\":", name ? name : "MPI_unknown", x->rank, x->rank);
	put_us(f, ev->t_start);
	fputs(",\"dur\":", f);
	put_us(f, dur);
	fputs(",\"args\":{", f);
	site = tc_export_find_site(x, ev->callsite);
	if (site)
		fprintf(f, "\"callsite\":\"0x%016" PRIx64 "\"", site->signature);
	else
		fputs("\"callsite\":null", f);
	if (ev->fields & TC_F_COMM)
		fprintf(f, ",\"comm\":%" PRIu32, ev->comm);
	if (ev->fields & TC_F_PEER)
		fprintf(f, ",\"peer\":%" PRId32, ev->peer);
	if (ev->fields & TC_F_TAG)
		fprintf(f, ",\"tag\":%" PRId32, ev->tag);
	if (ev->fields & TC_F_COUNT)
		fprintf(f, ",\"count\":%" PRIu64, ev->count);
	if (ev->fields & TC_F_DTYPE && tc_dtype_name(ev->dtype))
		fprintf(f, ",\"datatype\":\"%s\"", tc_dtype_name(ev->dtype));
	if (ev->fields & (TC_F_COUNT | TC_F_BYTES))
		fprintf(f, ",\"bytes\":%" PRIu64, tc_event_bytes(ev));
	if (ev->fields & TC_F_ROOT)
		fprintf(f, ",\"root\":%" PRId32, ev->root);
	if (ev->fields & TC_F_REDOP && tc_redop_name(ev->redop))
		fprintf(f, ",\"op\":\"%s\"", tc_redop_name(ev->redop));
	if (ev->fields & TC_F_REQUEST)
		fprintf(f, ",\"request\":%" PRIu64, ev->request);
	if (ev->fields & TC_F_RPEER)
		fprintf(f, ",\"recv_peer\":%" PRId32 ",\"recv_tag\":%" PRId32, ev->rpeer, ev->rtag);
	if (ev->ncompl) {
		fputs(",\"completed\":[", f);
		for (uint32_t i = 0; i < ev->ncompl; i++)
			fprintf(f, "%s{\"request\":%" PRIu64 ",\"source\":%" PRId32 ",\"tag\":%" PRId32
				",\"bytes\":%" PRIu64 "}", i ? "," : "", ev->compl[i].request,
				ev->compl[i].source, ev->compl[i].tag, ev->compl[i].bytes);
		fputc(']', f);
	}
	fputs("}}", f);

	/* messages: sends start a flow, the call that receives ends it */
	if ((kind == TC_K_SEND || kind == TC_K_SENDRECV) && (ev->fields & TC_F_PEER) &&
	    ev->peer >= 0)
		flow(x, 's', flow_id(x->rank, ev->peer, ev->tag,
				     next_msg(c, ev->peer, ev->tag)), mid);
	if (kind == TC_K_RECV && !(tc_op_flags(ev->op) & TC_OPF_NB)) {
		src = ev->ncompl && ev->compl[0].source >= 0 ? ev->compl[0].source : ev->peer;
		rtag = ev->ncompl ? ev->compl[0].tag : ev->tag;
	} else if (kind == TC_K_SENDRECV) {
		src = ev->ncompl && ev->compl[0].source >= 0 ? ev->compl[0].source :
		      (ev->fields & TC_F_RPEER) ? ev->rpeer : ev->peer;
		rtag = ev->ncompl ? ev->compl[0].tag : (ev->fields & TC_F_RPEER) ? ev->rtag : ev->tag;
	}
	if (src >= 0)
		flow(x, 'f', flow_id(src, x->rank, rtag, next_msg(c, -2 - src, rtag)), mid);
	if (kind == TC_K_WAIT) {
		for (uint32_t i = 0; i < ev->ncompl; i++) {
			const struct tc_completion *cp = &ev->compl[i];
			if (cp->source >= 0 && cp->request)
				flow(x, 'f', flow_id(cp->source, x->rank, cp->tag,
						     next_msg(c, -2 - cp->source, cp->tag)), mid);
		}
	}
	if (ferror(f))
		return tc_error_sys(err, x->path, "write");
	return 0;
}

static int ch_rank_end(struct tc_export *x, struct tc_error *err)
{
	struct chrome *c = x->impl;

	if (ferror(c->f))
		return tc_error_sys(err, x->path, "write");
	return 0;
}

static void ch_free(struct chrome *c)
{
	free(c->slots);
	free(c->tmp);
	free(c);
}

static void ch_abort(struct tc_export *x)
{
	struct chrome *c = x->impl;

	if (c->fd >= 0) {
		fclose(c->f);      /* closes fd */
		unlink(c->tmp);
	}
	ch_free(c);
}

static int ch_close(struct tc_export *x, struct tc_error *err)
{
	struct chrome *c = x->impl;
	int fd, rc = 0;

	fputs("\n]}\n", c->f);
	if (c->fd < 0) {
		if (fflush(c->f) || ferror(c->f))
			rc = tc_error_sys(err, "-", "write");
		ch_free(c);
		return rc;
	}
	if (fflush(c->f) || ferror(c->f) || (fd = dup(c->fd)) < 0) {
		rc = tc_error_sys(err, x->path, "write");
		ch_abort(x);
		return rc;
	}
	fclose(c->f);
	rc = tc_tmp_commit(fd, &c->tmp, x->path, err);
	ch_free(c);
	return rc;
}

static const struct tc_export_vtab ch_vtab = {
	ch_rank_begin, ch_event, ch_rank_end, ch_close, ch_abort,
};

int tc_export_chrome_open(struct tc_export *x, const char *creator, struct tc_error *err)
{
	struct chrome *c = tc_xcalloc(1, sizeof(*c));

	c->fd = -1;
	c->first = true;
	if (!strcmp(x->path, "-")) {
		c->f = stdout;
	} else {
		c->fd = tc_tmp_create(x->path, &c->tmp, err);
		if (c->fd < 0) {
			ch_free(c);
			return TC_ERR_IO;
		}
		c->f = fdopen(c->fd, "w");
		if (!c->f) {
			int rc = tc_error_sys(err, x->path, "open");
			tc_tmp_abort(c->fd, &c->tmp);
			ch_free(c);
			return rc;
		}
	}
	x->impl = c;
	x->vt = &ch_vtab;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"creator\":\"", c->f);
	for (const char *s = creator ? creator : "tracecluster"; *s; s++)
		if (*s != '"' && *s != '\\' && (unsigned char)*s >= 0x20)
			fputc(*s, c->f);
	fputs("\"},\"traceEvents\":[", c->f);
	return 0;
}
