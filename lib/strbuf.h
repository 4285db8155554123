/*
 * strbuf.h - a growable byte buffer, always NUL-terminated.
 */
#ifndef TC_STRBUF_H
#define TC_STRBUF_H

#include "compat.h"

struct tc_strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

#define TC_STRBUF_INIT { NULL, 0, 0 }

void tc_strbuf_init(struct tc_strbuf *sb);
void tc_strbuf_release(struct tc_strbuf *sb);
void tc_strbuf_reset(struct tc_strbuf *sb);
void tc_strbuf_grow(struct tc_strbuf *sb, size_t extra);
void tc_strbuf_add(struct tc_strbuf *sb, const void *data, size_t len);
void tc_strbuf_addstr(struct tc_strbuf *sb, const char *s);
void tc_strbuf_addch(struct tc_strbuf *sb, int c);
void tc_strbuf_addf(struct tc_strbuf *sb, const char *fmt, ...) TC_PRINTF(2, 3);
/* Returns the buffer (caller frees) and resets sb. */
char *tc_strbuf_detach(struct tc_strbuf *sb, size_t *len);

#endif
