#include "compat.h"
#include "strbuf.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char empty_buf[1];

void tc_strbuf_init(struct tc_strbuf *sb)
{
	sb->buf = empty_buf;
	sb->len = 0;
	sb->alloc = 0;
}

void tc_strbuf_release(struct tc_strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	tc_strbuf_init(sb);
}

void tc_strbuf_reset(struct tc_strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

void tc_strbuf_grow(struct tc_strbuf *sb, size_t extra)
{
	size_t need = tc_st_add(tc_st_add(sb->len, extra), 1);

	if (!sb->buf)
		tc_strbuf_init(sb);
	if (need <= sb->alloc)
		return;
	if (!sb->alloc)
		sb->buf = NULL;
	{
		size_t na = sb->alloc ? sb->alloc : 64;
		while (na < need)
			na = tc_st_mult(na, 2);
		sb->buf = tc_xrealloc(sb->buf, na);
		if (!sb->alloc)
			sb->buf[0] = '\0';
		sb->alloc = na;
	}
}

void tc_strbuf_add(struct tc_strbuf *sb, const void *data, size_t len)
{
	tc_strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void tc_strbuf_addstr(struct tc_strbuf *sb, const char *s)
{
	tc_strbuf_add(sb, s, strlen(s));
}

void tc_strbuf_addch(struct tc_strbuf *sb, int c)
{
	char ch = (char)c;
	tc_strbuf_add(sb, &ch, 1);
}

void tc_strbuf_addf(struct tc_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	tc_strbuf_grow(sb, 64);
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		tc_strbuf_grow(sb, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

char *tc_strbuf_detach(struct tc_strbuf *sb, size_t *len)
{
	char *r;

	if (len)
		*len = sb->len;
	if (!sb->alloc)
		r = tc_xstrdup("");
	else
		r = sb->buf;
	tc_strbuf_init(sb);
	return r;
}
