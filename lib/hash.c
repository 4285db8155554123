#include "compat.h"
#include "hash.h"

#include <string.h>

uint64_t tc_hash_fmix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t tc_hash_mix(uint64_t h, uint64_t v)
{
	return tc_hash_fmix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

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
