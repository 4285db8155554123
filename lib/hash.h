/*
 * hash.h - 64-bit hashing used for stack signatures and dictionaries.
 *
 * tc_hash64 is a fixed, portable function (the same bytes give the same
 * value on every machine and every run): stack signatures computed by the
 * capture shim and by synth must be comparable across ranks and runs.
 */
#ifndef TC_HASH_H
#define TC_HASH_H

#include "compat.h"

uint64_t tc_hash64(const void *data, size_t len, uint64_t seed);
/* A good 64-bit finaliser (splitmix64). Inline: once or more per event
 * read. */
static inline uint64_t tc_hash_fmix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Mix one 64-bit value into a running hash (order-dependent). */
static inline uint64_t tc_hash_mix(uint64_t h, uint64_t v)
{
	return tc_hash_fmix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

#endif
