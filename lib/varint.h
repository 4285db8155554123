/*
 * varint.h - LEB128 unsigned varints and zigzag signed varints.
 *
 * Encoders write into a buffer that the caller guarantees has at least
 * TC_VARINT_MAX bytes free. Decoders are bounds-checked: they never read
 * past end and return NULL on truncated or over-long input, so they are
 * safe on hostile files.
 */
#ifndef TC_VARINT_H
#define TC_VARINT_H

#include "compat.h"

#define TC_VARINT_MAX 10

static inline uint64_t tc_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t tc_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint8_t *tc_varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint8_t *tc_svarint_put(uint8_t *p, int64_t v)
{
	return tc_varint_put(p, tc_zigzag(v));
}

/* Slow path of tc_varint_get for values of two bytes or more. */
const uint8_t *tc_varint_get_slow(const uint8_t *p, const uint8_t *end,
				  uint64_t *out);

/* Decode one varint at p; returns the byte after it, or NULL. */
static inline const uint8_t *tc_varint_get(const uint8_t *p, const uint8_t *end,
					   uint64_t *out)
{
	if (TC_LIKELY(p < end && *p < 0x80)) {
		*out = *p;
		return p + 1;
	}
	/* two bytes: times and counts of a regular loop mostly are */
	if (TC_LIKELY(end - p >= 2 && p[1] < 0x80)) {
		*out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		return p + 2;
	}
	return tc_varint_get_slow(p, end, out);
}

/* tc_varint_get for a caller that knows at least TC_VARINT_MAX bytes
 * are readable at p (p + TC_VARINT_MAX <= end): the same result, without
 * a bounds check on the fast paths. */
static inline const uint8_t *tc_varint_get_roomy(const uint8_t *p, const uint8_t *end,
						 uint64_t *out)
{
	if (TC_LIKELY(p[0] < 0x80)) {
		*out = p[0];
		return p + 1;
	}
	if (TC_LIKELY(p[1] < 0x80)) {
		*out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		return p + 2;
	}
	if (p[2] < 0x80) {
		*out = (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 |
		       (uint64_t)p[2] << 14;
		return p + 3;
	}
	return tc_varint_get_slow(p, end, out);
}

static inline const uint8_t *tc_svarint_get(const uint8_t *p, const uint8_t *end,
					    int64_t *out)
{
	uint64_t u;
	p = tc_varint_get(p, end, &u);
	if (p)
		*out = tc_unzigzag(u);
	return p;
}

/* Number of bytes tc_varint_put would write for v. */
size_t tc_varint_len(uint64_t v);

#endif
