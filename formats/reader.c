/*
 * reader.c - format detection and the raw backend of struct tc_reader.
 */
#include "lib/compat.h"
#include "formats/reader.h"
#include "formats/foreign.h"
#include "lib/error.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tc_reader *tc_reader_wrap(const struct tc_reader_vtab *vt, void *impl)
{
	struct tc_reader *r = tc_xmalloc(sizeof(*r));
	r->vt = vt;
	r->impl = impl;
	return r;
}

static const struct tc_raw_header *raw_header(void *impl)
{
	return tc_raw_get_header(impl);
}

static int raw_read(void *impl, const struct tc_read_ops *ops, void *ctx,
		    struct tc_raw_stats *stats, struct tc_error *err)
{
	return tc_raw_read(impl, ops, ctx, stats, err);
}

static void raw_close(void *impl)
{
	struct tc_raw_reader *r = impl;
	tc_raw_close(&r);
}

static const struct tc_reader_vtab raw_vtab = { "raw", raw_header, raw_read, raw_close };

int tc_format_detect(const char *path, struct tc_error *err)
{
	uint8_t buf[512];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tc_error_sys(err, path, "open");
		return -1;
	}
	do
		n = read(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		tc_error_sys(err, path, "read");
		close(fd);
		return -1;
	}
	close(fd);
	if (tc_raw_probe(buf, (size_t)n))
		return TC_FMT_RAW;
	if (tc_dumpi_probe(buf, (size_t)n) || tc_dumpi_meta_probe(buf, (size_t)n))
		return TC_FMT_DUMPI;
	if (tc_scalatrace_probe(buf, (size_t)n))
		return TC_FMT_SCALATRACE;
	if (tc_otf2_probe(buf, (size_t)n))
		return TC_FMT_OTF2;
	/* unknown: the raw reader's own error (bad magic) is what the user sees */
	return TC_FMT_RAW;
}

int tc_reader_open(struct tc_reader **out, const char *path, enum tc_format fmt,
		   uint32_t index, unsigned flags, struct tc_error *err)
{
	struct tc_raw_reader *rr;
	int rc;

	*out = NULL;
	if (fmt == TC_FMT_AUTO) {
		int f = tc_format_detect(path, err);
		if (f < 0)
			return TC_ERR_IO;
		fmt = (enum tc_format)f;
	}
	switch (fmt) {
	case TC_FMT_SCALATRACE:
		return tc_scalatrace_open(out, path, index, flags, err);
	case TC_FMT_DUMPI:
		return tc_dumpi_open(out, path, index, flags, err);
	case TC_FMT_OTF2:
		return tc_otf2_open(out, path, index, flags, err);
	case TC_FMT_AUTO:
	case TC_FMT_RAW:
	default:
		if (index != 0)
			return tc_error_set(err, TC_ERR_USAGE, path, -1,
					    "raw files hold one rank (stream %u asked)", index);
		rc = tc_raw_open(&rr, path, flags, err);
		if (rc)
			return rc;
		*out = tc_reader_wrap(&raw_vtab, rr);
		return 0;
	}
}

const struct tc_raw_header *tc_reader_header(const struct tc_reader *r)
{
	return r->vt->header(r->impl);
}

int tc_reader_read(struct tc_reader *r, const struct tc_read_ops *ops, void *ctx,
		   struct tc_raw_stats *stats, struct tc_error *err)
{
	return r->vt->read(r->impl, ops, ctx, stats, err);
}

void tc_reader_close(struct tc_reader **rp)
{
	struct tc_reader *r = *rp;

	if (!r)
		return;
	*rp = NULL;
	r->vt->close(r->impl);
	free(r);
}

const char *tc_reader_format_name(const struct tc_reader *r)
{
	return r->vt->name;
}

int tc_format_from_name(const char *name)
{
	if (!strcmp(name, "auto"))
		return TC_FMT_AUTO;
	if (!strcmp(name, "raw"))
		return TC_FMT_RAW;
	if (!strcmp(name, "scalatrace"))
		return TC_FMT_SCALATRACE;
	if (!strcmp(name, "dumpi"))
		return TC_FMT_DUMPI;
	if (!strcmp(name, "otf2"))
		return TC_FMT_OTF2;
	return -1;
}

const char *tc_format_name(enum tc_format fmt)
{
	switch (fmt) {
	case TC_FMT_RAW:
		return "raw";
	case TC_FMT_SCALATRACE:
		return "scalatrace";
	case TC_FMT_DUMPI:
		return "dumpi";
	case TC_FMT_OTF2:
		return "otf2";
	case TC_FMT_AUTO:
		break;
	}
	return "auto";
}
