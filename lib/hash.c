#include "compat.h"
#include "hash.h"

#include <string.h>

uint64_t tc_hash64(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = tc_hash_fmix(seed ^ (uint64_t)len);

	while (len >= 8) {
		uint64_t w;
		memcpy(&w, p, 8); /* little-endian hosts only give stable values */
		h = tc_hash_mix(h, w);
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t w = 0;
		for (size_t i = 0; i < len; i++)
			w |= (uint64_t)p[i] << (8 * i);
		h = tc_hash_mix(h, w);
	}
	return h;
}
