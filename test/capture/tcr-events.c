/*
 * tcr-events.c - print a raw trace file as one line per record, for the
 * capture tests (test/capture.bats) to check with grep and awk.
 *
 *   tcr-events [-s] FILE
 *
 *   H rank=R size=P depth=D clock=C writer=W job=J program=...
 *   C id=I sig=HEX n=N f0=MODULE+0xOFF:SYMBOL f1=...     (call-site record)
 *   M id=I parent=I creator=OP size=N members=a,b,c [dims=AxB periods=BITS]
 *   E op=OP cs=HEX [comm= peer= tag= count= dtype= dsize= bytes= redop= root=
 *     color= key= req= newcomm= file= off= rpeer= rtag= res=] [compl=id:src:tag:bytes,...]
 *     [sc=a,b,..] [rc=a,b,..] t=START d=DURATION
 *   S events=N blocks=N trailer=0|1 dropped=N bad_blocks=N
 *
 * Events name their call site by signature (cs=-: none). -s reads a
 * damaged or truncated file as far as it is whole. Exit status 1 on error.
 */
#include "lib/compat.h"
#include "formats/raw.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ctx {
	uint64_t *sig;   /* by call-site id */
	size_t nsig;
};

static const char *opname(unsigned op)
{
	const char *n = tc_op_name(op);
	return n ? n : "?";
}

static int on_callsite(void *vctx, const struct tc_callsite *cs)
{
	struct ctx *c = vctx;

	if (cs->id >= c->nsig) {
		size_t n = cs->id + 1;
		c->sig = tc_xrealloc(c->sig, n * sizeof(*c->sig));
		memset(c->sig + c->nsig, 0, (n - c->nsig) * sizeof(*c->sig));
		c->nsig = n;
	}
	c->sig[cs->id] = cs->signature;
	printf("C id=%u sig=%016" PRIx64 " n=%u", cs->id, cs->signature, cs->nframes);
	for (uint32_t i = 0; i < cs->nframes; i++) {
		const char *m = strrchr(cs->frames[i].module, '/');
		printf(" f%u=%s+0x%" PRIx64 ":%s", i, m ? m + 1 : cs->frames[i].module,
		       cs->frames[i].offset, cs->frames[i].symbol[0] ? cs->frames[i].symbol : "-");
	}
	putchar('\n');
	return 0;
}

static int on_comm(void *vctx, const struct tc_comm *cm)
{
	(void)vctx;
	printf("M id=%u parent=%u creator=%s size=%u members=", cm->id, cm->parent,
	       cm->creator ? opname(cm->creator) : "-", cm->size);
	for (uint32_t i = 0; i < cm->size; i++)
		printf("%s%d", i ? "," : "", tc_comm_member(cm, i));
	if (cm->ndims) {
		printf(" dims=");
		for (uint32_t i = 0; i < cm->ndims; i++)
			printf("%s%d", i ? "x" : "", cm->dims[i]);
		printf(" periods=%u", cm->periods);
	}
	putchar('\n');
	return 0;
}

static void counts(const char *key, const uint64_t *v, uint32_t n)
{
	printf(" %s=", key);
	for (uint32_t i = 0; i < n; i++)
		printf("%s%" PRIu64, i ? "," : "", v[i]);
}

static int on_event(void *vctx, const struct tc_event *ev)
{
	struct ctx *c = vctx;
	uint32_t f = ev->fields;

	printf("E op=%s", opname(ev->op));
	if (ev->callsite != TC_NO_CALLSITE && ev->callsite < c->nsig)
		printf(" cs=%016" PRIx64, c->sig[ev->callsite]);
	else
		printf(" cs=-");
	if (f & TC_F_COMM)
		printf(" comm=%u", ev->comm);
	if (f & TC_F_PEER)
		printf(" peer=%d", ev->peer);
	if (f & TC_F_TAG)
		printf(" tag=%d", ev->tag);
	if (f & TC_F_RPEER)
		printf(" rpeer=%d rtag=%d", ev->rpeer, ev->rtag);
	if (f & TC_F_COUNT)
		printf(" count=%" PRIu64, ev->count);
	if (f & TC_F_DTYPE) {
		const char *d = tc_dtype_name(ev->dtype);
		printf(" dtype=%s dsize=%u", d ? d : "?", ev->dtype_size);
	}
	if (f & (TC_F_BYTES | TC_F_DTYPE))
		printf(" bytes=%" PRIu64, tc_event_bytes(ev));
	if (f & TC_F_REDOP) {
		const char *r = tc_redop_name(ev->redop);
		printf(" redop=%s", r ? r : "?");
	}
	if (f & TC_F_ROOT)
		printf(" root=%d", ev->root);
	if (f & TC_F_COLOR)
		printf(" color=%d key=%d", ev->color, ev->key);
	if (f & TC_F_REQUEST)
		printf(" req=%" PRIu64, ev->request);
	if (f & TC_F_NEWCOMM)
		printf(" newcomm=%u", ev->newcomm);
	if (f & TC_F_FILE)
		printf(" file=%u off=%" PRIu64, ev->file, ev->offset);
	if (f & TC_F_RESULT)
		printf(" res=%d", ev->result);
	if (f & TC_F_COMPL) {
		printf(" compl=");
		for (uint32_t i = 0; i < ev->ncompl; i++)
			printf("%s%" PRIu64 ":%d:%d:%" PRIu64, i ? "," : "", ev->compl[i].request,
			       ev->compl[i].source, ev->compl[i].tag, ev->compl[i].bytes);
	}
	if (f & TC_F_SCOUNTS)
		counts("sc", ev->scounts, ev->nscounts);
	if (f & TC_F_RCOUNTS)
		counts("rc", ev->rcounts, ev->nrcounts);
	printf(" t=%" PRIu64 " d=%" PRIu64 "\n", ev->t_start, ev->t_end - ev->t_start);
	return 0;
}

int main(int argc, char **argv)
{
	struct tc_raw_reader *r = NULL;
	struct tc_error err;
	struct tc_raw_stats st;
	struct tc_read_ops ops = { on_event, on_callsite, on_comm };
	struct ctx c = { NULL, 0 };
	const struct tc_raw_header *h;
	unsigned flags = 0;
	int rc, i = 1;

	if (argc > 1 && !strcmp(argv[1], "-s")) {
		flags |= TC_RAW_SALVAGE;
		i++;
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: tcr-events [-s] FILE\n");
		return 2;
	}
	tc_error_clear(&err);
	if (tc_raw_open(&r, argv[i], flags, &err)) {
		char buf[1200];
		tc_error_format(&err, buf, sizeof(buf));
		fprintf(stderr, "tcr-events: %s\n", buf);
		return 1;
	}
	h = tc_raw_get_header(r);
	printf("H rank=%d size=%d depth=%u clock=%s writer=%s job=%s host=%s pid=%u start=%" PRIu64
	       " program=%s\n",
	       h->rank, h->world_size, h->stack_depth, h->clock, h->writer,
	       h->job_id[0] ? h->job_id : "-", h->host, h->pid, h->start_time_ns, h->program);
	rc = tc_raw_read(r, &ops, &c, &st, &err);
	if (rc) {
		char buf[1200];
		tc_error_format(&err, buf, sizeof(buf));
		fprintf(stderr, "tcr-events: %s\n", buf);
	}
	printf("S events=%" PRIu64 " blocks=%" PRIu64 " trailer=%d dropped=%" PRIu64
	       " bad_blocks=%" PRIu64 " file_bytes=%" PRIu64 " tracer_ns=%" PRIu64 "\n",
	       st.events, st.blocks, st.has_trailer, st.trailer.dropped, st.bad_blocks,
	       st.file_bytes, st.trailer.tracer_ns);
	tc_raw_close(&r);
	free(c.sig);
	return rc ? 1 : 0;
}
