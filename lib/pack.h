/*
 * pack.h - a plain byte encoding for handing in-memory structures from
 * one process to another (tracecluster-mpi): unsigned and zigzag varints,
 * doubles as their 8 bytes, byte strings with their length.
 *
 * The writer appends to a struct tc_strbuf. The reader never reads past
 * its end: the first value that does not fit (or a length beyond what is
 * left) marks it bad and every later read returns zeros, so a caller
 * checks tc_unpack_ok() once at the end. Not a file format: both ends
 * run the same build.
 */
#ifndef TC_PACK_H
#define TC_PACK_H

#include "compat.h"
#include "strbuf.h"
#include "varint.h"

/* Inline: a trace packs as many small values, one call each. */
static inline void tc_pack_u64(struct tc_strbuf *sb, uint64_t v)
{
	if (TC_UNLIKELY(sb->alloc < sb->len + 11))
		tc_strbuf_grow(sb, 10);
	sb->len = (size_t)((char *)tc_varint_put((uint8_t *)sb->buf + sb->len, v) - sb->buf);
	sb->buf[sb->len] = '\0';
}

static inline void tc_pack_s64(struct tc_strbuf *sb, int64_t v)
{
	tc_pack_u64(sb, tc_zigzag(v));
}

void tc_pack_f64(struct tc_strbuf *sb, double v);
void tc_pack_bytes(struct tc_strbuf *sb, const void *p, size_t n); /* length first */
void tc_pack_str(struct tc_strbuf *sb, const char *s);             /* NULL as "" */

struct tc_unpack {
	const uint8_t *p, *end;
	bool bad;
};

void tc_unpack_init(struct tc_unpack *u, const void *buf, size_t len);

static inline uint64_t tc_unpack_u64(struct tc_unpack *u)
{
	uint64_t v = 0;
	const uint8_t *q = u->bad ? NULL : tc_varint_get(u->p, u->end, &v);

	if (TC_UNLIKELY(!q)) {
		u->bad = true;
		return 0;
	}
	u->p = q;
	return v;
}

static inline int64_t tc_unpack_s64(struct tc_unpack *u)
{
	return tc_unzigzag(tc_unpack_u64(u));
}

double tc_unpack_f64(struct tc_unpack *u);
/* A 32-bit value: more than 32 bits marks the reader bad. */
uint32_t tc_unpack_u32(struct tc_unpack *u);
int32_t tc_unpack_s32(struct tc_unpack *u);
/* A count of items of at least min_size bytes each that must still fit in
 * what is left (so a corrupt count cannot ask for a huge allocation). */
size_t tc_unpack_count(struct tc_unpack *u, size_t min_size);
/* A new NUL-terminated copy of a packed string (malloc'd; "" when bad). */
char *tc_unpack_strdup(struct tc_unpack *u);
/* Byte string in place: *n gets its length (NULL, 0 when bad). */
const void *tc_unpack_bytes(struct tc_unpack *u, size_t *n);
/* True when every read fitted and the buffer is used up. */
bool tc_unpack_done(const struct tc_unpack *u);

#endif
