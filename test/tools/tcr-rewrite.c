/*
 * tcr-rewrite.c - copy a raw trace file with a new program name and a new
 * module path in the first frame of every call site, for tests of
 * strings that are not UTF-8 (test/json-bytes.bats).
 *
 *   tcr-rewrite IN OUT PROGRAM MODULE
 *
 * PROGRAM and MODULE are taken byte for byte. Signatures are kept, so
 * every rank rewritten the same way still agrees on its call sites.
 * Exit status 1 on error.
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
	struct tc_raw_writer *w;
	const char *module;
	struct tc_error *err;
};

static int on_event(void *vctx, const struct tc_event *ev)
{
	struct ctx *c = vctx;

	return tc_raw_writer_event(c->w, ev, c->err);
}

static int on_callsite(void *vctx, const struct tc_callsite *cs)
{
	struct ctx *c = vctx;
	struct tc_frame *fr = tc_xcalloc(cs->nframes ? cs->nframes : 1, sizeof(*fr));
	struct tc_callsite n = *cs;
	int rc;

	memcpy(fr, cs->frames, cs->nframes * sizeof(*fr));
	if (cs->nframes)
		fr[0].module = c->module;
	n.frames = fr;
	rc = tc_raw_writer_callsite(c->w, &n, c->err);
	free(fr);
	return rc;
}

static int on_comm(void *vctx, const struct tc_comm *cm)
{
	struct ctx *c = vctx;

	return tc_raw_writer_comm(c->w, cm, c->err);
}

int main(int argc, char **argv)
{
	static const struct tc_read_ops ops = { on_event, on_callsite, on_comm };
	struct tc_raw_writer_opts wo = { 0 };
	struct tc_raw_reader *r = NULL;
	struct tc_raw_header h;
	struct tc_error err;
	struct ctx c = { NULL, NULL, &err };
	char buf[512];
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: tcr-rewrite IN OUT PROGRAM MODULE\n");
		return 2;
	}
	tc_error_clear(&err);
	c.module = argv[4];
	if ((rc = tc_raw_open(&r, argv[1], 0, &err)))
		goto out;
	h = *tc_raw_get_header(r);
	snprintf(h.program, sizeof(h.program), "%s", argv[3]);
	if ((rc = tc_raw_writer_open(&c.w, argv[2], &h, &wo, &err)))
		goto out;
	if ((rc = tc_raw_read(r, &ops, &c, NULL, &err)))
		goto out;
	rc = tc_raw_writer_close(&c.w, &err);
out:
	if (c.w)
		tc_raw_writer_abort(&c.w);
	tc_raw_close(&r);
	if (rc) {
		tc_error_format(&err, buf, sizeof(buf));
		fprintf(stderr, "tcr-rewrite: %s\n", buf);
		return 1;
	}
	return 0;
}
