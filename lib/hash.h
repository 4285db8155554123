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
/* Mix one 64-bit value into a running hash (order-dependent). */
uint64_t tc_hash_mix(uint64_t h, uint64_t v);
/* A good 64-bit finaliser (splitmix64). */
uint64_t tc_hash_fmix(uint64_t v);

#endif
