/*
 * gzpayload - copy the compressed block payloads of raw trace files into
 * one multi-member gzip file, so that zcat can be timed over exactly the
 * bytes tracecluster inflates (the baseline of the read benchmark).
 *
 * usage: gzpayload OUT.gz FILE...
 */
#include "lib/compat.h"
#include "formats/raw.h"
#include "formats/raw_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int copy_file(const char *path, FILE *out, unsigned long *members)
{
	FILE *f = fopen(path, "rb");
	uint8_t hb[TC_RAW_BLOCK_HEADER];
	uint8_t *buf = NULL, *raw = NULL;
	size_t alloc = 0, ralloc = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fseek(f, TC_RAW_FILE_HEADER, SEEK_SET))
		goto bad;
	while (fread(hb, 1, sizeof(hb), f) == sizeof(hb)) {
		struct tc_raw_block_header h;
		static const uint8_t gzhdr[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
		uint8_t trl[8];
		z_stream zs;
		uLong crc;

		if (!tc_raw_unpack_block_header(hb, &h))
			goto bad;
		if (h.stored_len > alloc) {
			alloc = h.stored_len;
			buf = realloc(buf, alloc);
		}
		if (h.raw_len > ralloc) {
			ralloc = h.raw_len;
			raw = realloc(raw, ralloc);
		}
		if (!buf || !raw || fread(buf, 1, h.stored_len, f) != h.stored_len)
			goto bad;
		if (h.encoding != TC_ENC_DEFLATE)
			continue;
		/* the gzip trailer needs the CRC of the decoded bytes */
		memset(&zs, 0, sizeof(zs));
		inflateInit2(&zs, -15);
		zs.next_in = buf;
		zs.avail_in = h.stored_len;
		zs.next_out = raw;
		zs.avail_out = h.raw_len;
		if (inflate(&zs, Z_FINISH) != Z_STREAM_END) {
			inflateEnd(&zs);
			goto bad;
		}
		inflateEnd(&zs);
		crc = crc32(0L, raw, h.raw_len);
		for (int i = 0; i < 4; i++) {
			trl[i] = (uint8_t)(crc >> (8 * i));
			trl[4 + i] = (uint8_t)(h.raw_len >> (8 * i));
		}
		fwrite(gzhdr, 1, sizeof(gzhdr), out);
		fwrite(buf, 1, h.stored_len, out);
		fwrite(trl, 1, sizeof(trl), out);
		(*members)++;
	}
	free(buf);
	free(raw);
	fclose(f);
	return 0;
bad:
	fprintf(stderr, "gzpayload: %s: malformed\n", path);
	free(buf);
	free(raw);
	fclose(f);
	return -1;
}

int main(int argc, char **argv)
{
	FILE *out;
	unsigned long members = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: gzpayload OUT.gz FILE...\n");
		return 2;
	}
	out = fopen(argv[1], "wb");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	for (int i = 2; i < argc; i++)
		if (copy_file(argv[i], out, &members))
			return 1;
	if (fclose(out)) {
		perror(argv[1]);
		return 1;
	}
	fprintf(stderr, "gzpayload: %lu members\n", members);
	return 0;
}
