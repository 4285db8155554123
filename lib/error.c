#include "compat.h"
#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tc_error_clear(struct tc_error *e)
{
	if (!e)
		return;
	e->code = 0;
	e->sys = 0;
	e->offset = -1;
	e->path[0] = '\0';
	e->msg[0] = '\0';
}

static void set_path(struct tc_error *e, const char *path)
{
	if (path)
		snprintf(e->path, sizeof(e->path), "%s", path);
	else
		e->path[0] = '\0';
}

int tc_error_set(struct tc_error *e, int code, const char *path, int64_t offset,
		 const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	e->code = code;
	e->sys = 0;
	e->offset = offset;
	set_path(e, path);
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int tc_error_sys(struct tc_error *e, const char *path, const char *what)
{
	int err = errno;

	if (!e)
		return TC_ERR_IO;
	e->code = TC_ERR_IO;
	e->sys = err;
	e->offset = -1;
	set_path(e, path);
	snprintf(e->msg, sizeof(e->msg), "%s", what ? what : "access");
	return TC_ERR_IO;
}

void tc_error_format(const struct tc_error *e, char *buf, size_t len)
{
	const char *msg = e->msg[0] ? e->msg : "unknown error";

	if (e->code == TC_ERR_IO && e->sys) {
		if (e->path[0])
			snprintf(buf, len, "cannot %s '%s': %s", msg, e->path,
				 strerror(e->sys));
		else
			snprintf(buf, len, "cannot %s: %s", msg, strerror(e->sys));
		return;
	}

	if (e->path[0] && e->offset >= 0)
		snprintf(buf, len, "'%s': byte %" PRId64 ": %s", e->path,
			 e->offset, msg);
	else if (e->path[0])
		snprintf(buf, len, "'%s': %s", e->path, msg);
	else
		snprintf(buf, len, "%s", msg);
}
