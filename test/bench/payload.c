/*
 * payload - the baselines of the raw trace benchmarks, over exactly the
 * block payloads tracecluster reads:
 *
 *   payload inflate FILE...   read each file and inflate every block with
 *                             zlib (one thread, one stream reset per block,
 *                             output discarded): what zlib's own inflate
 *                             takes for the same bytes
 *   payload libdeflate FILE...  the same with libdeflate's whole-buffer
 *                             decompressor, the one tracecluster reads with
 *   payload raw OUT FILE...   write the blocks' decoded (uncompressed)
 *                             encoding to OUT, for gzip -9 and xz -9 to
 *                             compress from scratch
 *   payload deflate FILE...   compress the decoded event blocks again, each
 *                             on its own at level 1, with zlib (one stream
 *                             reset per block) and with libdeflate (the
 *                             capture shim's writer), in alternate rounds;
 *                             prints the median CPU time per input byte
 *                             of each and the bytes each gives
 *
 * Each prints "blocks=N stored=BYTES raw=BYTES" on stderr.
 */
#include "lib/compat.h"
#include "formats/raw.h"
#include "formats/raw_internal.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libdeflate.h>
#include <zlib.h>

struct totals {
	unsigned long blocks;
	unsigned long long stored, raw;
};

/* Read the whole of path into *buf (grown); its length, or -1. */
static long slurp(const char *path, uint8_t **buf, size_t *alloc)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, k;

	if (!f) {
		perror(path);
		return -1;
	}
	for (;;) {
		if (n == *alloc) {
			*alloc = *alloc ? 2 * *alloc : 1 << 20;
			*buf = realloc(*buf, *alloc);
			if (!*buf)
				abort();
		}
		k = fread(*buf + n, 1, *alloc - n, f);
		n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	return (long)n;
}

static z_stream zs;
static bool zs_init;
static struct libdeflate_decompressor *ld;

/* deflate: the decoded event blocks, kept */
struct kept {
	uint8_t **p;
	size_t *len, n, alloc;
};
static struct kept *keep;

/* One raw-deflate block into out (exactly outlen bytes), by zlib or, once
 * ld is set, libdeflate. */
static int inflate_block(const uint8_t *in, size_t len, uint8_t *out, size_t outlen)
{
	if (ld)
		return libdeflate_deflate_decompress(ld, in, len, out, outlen, NULL) !=
		       LIBDEFLATE_SUCCESS;
	if (!zs_init) {
		if (inflateInit2(&zs, -15) != Z_OK)
			return -1;
		zs_init = true;
	} else if (inflateReset(&zs) != Z_OK) {
		return -1;
	}
	zs.next_in = (uint8_t *)in;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)outlen;
	return inflate(&zs, Z_FINISH) == Z_STREAM_END && !zs.avail_out ? 0 : -1;
}

/* Inflate every deflate block of the file in buf; with out, write the
 * decoded bytes (stored blocks as they are). */
static int blocks(const char *path, const uint8_t *buf, size_t len, FILE *out,
		  uint8_t **raw, size_t *ralloc, struct totals *t)
{
	size_t at = TC_RAW_FILE_HEADER;

	while (len - at >= TC_RAW_BLOCK_HEADER) {
		struct tc_raw_block_header h;
		const uint8_t *payload = buf + at + TC_RAW_BLOCK_HEADER;
		if (!tc_raw_unpack_block_header(buf + at, &h) ||
		    h.stored_len > len - at - TC_RAW_BLOCK_HEADER) {
			fprintf(stderr, "payload: %s: malformed at byte %zu\n", path, at);
			return -1;
		}
		if (h.raw_len > *ralloc) {
			*ralloc = h.raw_len;
			*raw = realloc(*raw, *ralloc);
			if (!*raw)
				abort();
		}
		if (h.encoding == TC_ENC_DEFLATE) {
			if (inflate_block(payload, h.stored_len, *raw, h.raw_len)) {
				fprintf(stderr, "payload: %s: bad deflate block at byte %zu\n", path, at);
				return -1;
			}
			if (out)
				fwrite(*raw, 1, h.raw_len, out);
		} else if (out) {
			fwrite(payload, 1, h.stored_len, out);
		}
		if (keep && h.type == TC_BLK_EVENTS && h.raw_len) {
			uint8_t *c = malloc(h.raw_len);
			if (!c)
				abort();
			memcpy(c, h.encoding == TC_ENC_DEFLATE ? *raw : payload, h.raw_len);
			TC_ALLOC_GROW(keep->p, keep->n + 1, keep->alloc);
			keep->len = realloc(keep->len, keep->alloc * sizeof(*keep->len));
			if (!keep->len)
				abort();
			keep->p[keep->n] = c;
			keep->len[keep->n++] = h.raw_len;
		}
		t->blocks++;
		t->stored += h.stored_len;
		t->raw += h.raw_len;
		at += TC_RAW_BLOCK_HEADER + h.stored_len;
	}
	return 0;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define ROUNDS 9

/* The kept blocks compressed by zlib and by libdeflate at level 1, in
 * alternate rounds (zlib first in odd rounds); medians of the rounds. */
static int deflate_both(const struct kept *k)
{
	struct libdeflate_compressor *lc = libdeflate_alloc_compressor(1);
	z_stream z;
	size_t in = 0, max = 0, bz = 0, bl = 0, cap;
	double tz[ROUNDS], tl[ROUNDS];
	uint8_t *out;

	memset(&z, 0, sizeof(z));
	if (!lc || deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	for (size_t i = 0; i < k->n; i++) {
		in += k->len[i];
		max = k->len[i] > max ? k->len[i] : max;
	}
	cap = TC_MAX(deflateBound(&z, max), libdeflate_deflate_compress_bound(lc, max));
	out = malloc(cap);
	if (!out || !in)
		return -1;
	for (int r = 0; r < 2 * ROUNDS; r++) {
		bool zl = (r % 2 == 0) == (r / 2 % 2 == 0);
		double t0 = cpu_s();
		size_t b = 0;
		for (size_t i = 0; i < k->n; i++) {
			if (zl) {
				deflateReset(&z);
				z.next_in = k->p[i];
				z.avail_in = (uInt)k->len[i];
				z.next_out = out;
				z.avail_out = (uInt)cap;
				if (deflate(&z, Z_FINISH) != Z_STREAM_END)
					return -1;
				b += z.total_out;
			} else {
				b += libdeflate_deflate_compress(lc, k->p[i], k->len[i], out, cap);
			}
		}
		(zl ? tz : tl)[r / 2] = cpu_s() - t0;
		*(zl ? &bz : &bl) = b;
	}
	qsort(tz, ROUNDS, sizeof(double), cmp_d);
	qsort(tl, ROUNDS, sizeof(double), cmp_d);
	printf("deflate blocks=%zu bytes=%zu zlib1_ns_per_byte=%.2f zlib1_bytes=%zu "
	       "libdeflate1_ns_per_byte=%.2f libdeflate1_bytes=%zu\n", k->n, in,
	       tz[ROUNDS / 2] * 1e9 / (double)in, bz, tl[ROUNDS / 2] * 1e9 / (double)in, bl);
	deflateEnd(&z);
	libdeflate_free_compressor(lc);
	free(out);
	return 0;
}

int main(int argc, char **argv)
{
	struct totals t = { 0, 0, 0 };
	uint8_t *buf = NULL, *raw = NULL;
	size_t alloc = 0, ralloc = 0;
	FILE *out = NULL;
	int first;

	if (argc >= 3 && !strcmp(argv[1], "inflate")) {
		first = 2;
	} else if (argc >= 3 && !strcmp(argv[1], "libdeflate")) {
		first = 2;
		if (!(ld = libdeflate_alloc_decompressor()))
			return 1;
	} else if (argc >= 3 && !strcmp(argv[1], "deflate")) {
		first = 2;
		keep = calloc(1, sizeof(*keep));
		if (!keep)
			abort();
	} else if (argc >= 4 && !strcmp(argv[1], "raw")) {
		first = 3;
		if (!(out = fopen(argv[2], "wb"))) {
			perror(argv[2]);
			return 1;
		}
	} else {
		fprintf(stderr, "usage: payload inflate|libdeflate|deflate FILE...\n"
				"       payload raw OUT FILE...\n");
		return 2;
	}
	for (int i = first; i < argc; i++) {
		long n = slurp(argv[i], &buf, &alloc);
		if (n < 0 || blocks(argv[i], buf, (size_t)n, out, &raw, &ralloc, &t))
			return 1;
	}
	if (out && fclose(out)) {
		perror(argv[2]);
		return 1;
	}
	fprintf(stderr, "blocks=%lu stored=%llu raw=%llu\n", t.blocks, t.stored, t.raw);
	if (keep) {
		if (deflate_both(keep)) {
			fprintf(stderr, "payload: deflate failed\n");
			return 1;
		}
		for (size_t i = 0; i < keep->n; i++)
			free(keep->p[i]);
		free(keep->p);
		free(keep->len);
		free(keep);
	}
	free(buf);
	free(raw);
	if (zs_init)
		inflateEnd(&zs);
	if (ld)
		libdeflate_free_decompressor(ld);
	return 0;
}
