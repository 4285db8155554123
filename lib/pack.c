/*
 * pack.c - the byte encoding of pack.h.
 */
#include "lib/compat.h"
#include "lib/pack.h"
#include "lib/strbuf.h"
#include "lib/varint.h"
#include "lib/xalloc.h"

#include <string.h>

void tc_pack_f64(struct tc_strbuf *sb, double v)
{
	uint64_t x;
	uint8_t b[8];

	memcpy(&x, &v, sizeof(x));
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(x >> (8 * i));
	tc_strbuf_add(sb, b, sizeof(b));
}

void tc_pack_bytes(struct tc_strbuf *sb, const void *p, size_t n)
{
	tc_pack_u64(sb, n);
	if (n)
		tc_strbuf_add(sb, p, n);
}

void tc_pack_str(struct tc_strbuf *sb, const char *s)
{
	tc_pack_bytes(sb, s ? s : "", s ? strlen(s) : 0);
}

void tc_unpack_init(struct tc_unpack *u, const void *buf, size_t len)
{
	u->p = buf;
	u->end = u->p + len;
	u->bad = !buf && len;
}

double tc_unpack_f64(struct tc_unpack *u)
{
	uint64_t x = 0;
	double v;

	if (u->bad || u->end - u->p < 8) {
		u->bad = true;
		return 0;
	}
	for (int i = 0; i < 8; i++)
		x |= (uint64_t)u->p[i] << (8 * i);
	u->p += 8;
	memcpy(&v, &x, sizeof(v));
	return v;
}

uint32_t tc_unpack_u32(struct tc_unpack *u)
{
	uint64_t v = tc_unpack_u64(u);

	if (v > UINT32_MAX) {
		u->bad = true;
		return 0;
	}
	return (uint32_t)v;
}

int32_t tc_unpack_s32(struct tc_unpack *u)
{
	int64_t v = tc_unpack_s64(u);

	if (v < INT32_MIN || v > INT32_MAX) {
		u->bad = true;
		return 0;
	}
	return (int32_t)v;
}

size_t tc_unpack_count(struct tc_unpack *u, size_t min_size)
{
	uint64_t n = tc_unpack_u64(u);

	if (u->bad || n > (uint64_t)(u->end - u->p) / (min_size ? min_size : 1)) {
		u->bad = true;
		return 0;
	}
	return (size_t)n;
}

const void *tc_unpack_bytes(struct tc_unpack *u, size_t *n)
{
	size_t len = tc_unpack_count(u, 1);
	const void *p = u->p;

	*n = 0;
	if (u->bad)
		return NULL;
	u->p += len;
	*n = len;
	return p;
}

char *tc_unpack_strdup(struct tc_unpack *u)
{
	size_t n;
	const void *p = tc_unpack_bytes(u, &n);
	char *s = tc_xmalloc(n + 1);

	if (n)
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

bool tc_unpack_done(const struct tc_unpack *u)
{
	return !u->bad && u->p == u->end;
}
