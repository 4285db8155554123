#include "compat.h"
#include "varint.h"

const uint8_t *tc_varint_get_slow(const uint8_t *p, const uint8_t *end,
				  uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (p < end) {
		uint8_t b = *p++;
		if (shift == 63 && b > 1)
			return NULL; /* would overflow 64 bits */
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return p;
		}
		shift += 7;
		if (shift > 63)
			return NULL;
	}
	return NULL; /* truncated */
}

size_t tc_varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}
