/*
 * png.c - a minimal PNG encoder (8-bit RGB, one IDAT, zlib via the
 * single compress2 call; chunk CRCs by zlib's crc32) and the colour maps.
 */
#include "lib/compat.h"
#include "viz/viz.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* matplotlib's viridis sampled at 9 evenly spaced points (viridis(9));
 * tc_viridis interpolates linearly between them. */
static const uint8_t viridis9[9][3] = {
	{ 0x44, 0x01, 0x54 }, { 0x47, 0x2d, 0x7b }, { 0x3b, 0x52, 0x8b },
	{ 0x2c, 0x72, 0x8e }, { 0x21, 0x91, 0x8c }, { 0x28, 0xae, 0x80 },
	{ 0x5e, 0xc9, 0x62 }, { 0xad, 0xdc, 0x30 }, { 0xfd, 0xe7, 0x25 },
};

/* blue - white - red (the ends of Moreland's cool-warm map) */
static const uint8_t diverge3[3][3] = {
	{ 0x3b, 0x4c, 0xc0 }, { 0xf7, 0xf7, 0xf7 }, { 0xb4, 0x04, 0x26 },
};

static void interp(const uint8_t (*tab)[3], int n, double t, uint8_t rgb[3])
{
	double x;
	int i;

	if (!(t >= 0))
		t = 0;
	if (t > 1)
		t = 1;
	x = t * (n - 1);
	i = (int)x;
	if (i >= n - 1)
		i = n - 2;
	x -= i;
	for (int c = 0; c < 3; c++)
		rgb[c] = (uint8_t)lround(tab[i][c] + x * (tab[i + 1][c] - tab[i][c]));
}

void tc_viridis(double t, uint8_t rgb[3])
{
	interp(viridis9, 9, t, rgb);
}

void tc_diverging(double t, uint8_t rgb[3])
{
	interp(diverge3, 3, t, rgb);
}

static void put32(struct tc_strbuf *out, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	tc_strbuf_add(out, b, 4);
}

static void chunk(struct tc_strbuf *out, const char *type, const uint8_t *data, size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	put32(out, (uint32_t)len);
	tc_strbuf_add(out, type, 4);
	if (len)
		tc_strbuf_add(out, data, len);
	crc = crc32(crc, (const Bytef *)type, 4);
	if (len)
		crc = crc32(crc, data, (uInt)len);
	put32(out, (uint32_t)crc);
}

void tc_png_encode(const uint8_t *rgb, uint32_t w, uint32_t h, struct tc_strbuf *out)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	uint8_t ihdr[13];
	size_t row = tc_st_add(tc_st_mult(w, 3), 1), raw_len = tc_st_mult(row, h);
	uint8_t *raw = tc_xmalloc(raw_len ? raw_len : 1);
	uLongf zlen = compressBound((uLong)raw_len);
	uint8_t *z = tc_xmalloc(zlen);

	for (uint32_t y = 0; y < h; y++) {
		raw[y * row] = 0; /* filter: none */
		memcpy(raw + y * row + 1, rgb + (size_t)y * w * 3, (size_t)w * 3);
	}
	if (compress2(z, &zlen, raw, (uLong)raw_len, 9) != Z_OK)
		zlen = 0;
	tc_strbuf_add(out, sig, sizeof(sig));
	ihdr[0] = (uint8_t)(w >> 24);
	ihdr[1] = (uint8_t)(w >> 16);
	ihdr[2] = (uint8_t)(w >> 8);
	ihdr[3] = (uint8_t)w;
	ihdr[4] = (uint8_t)(h >> 24);
	ihdr[5] = (uint8_t)(h >> 16);
	ihdr[6] = (uint8_t)(h >> 8);
	ihdr[7] = (uint8_t)h;
	ihdr[8] = 8;  /* bit depth */
	ihdr[9] = 2;  /* colour type: RGB */
	ihdr[10] = 0; /* deflate */
	ihdr[11] = 0; /* adaptive filtering */
	ihdr[12] = 0; /* no interlace */
	chunk(out, "IHDR", ihdr, sizeof(ihdr));
	chunk(out, "IDAT", z, zlen);
	chunk(out, "IEND", NULL, 0);
	free(raw);
	free(z);
}

void tc_png_set_dpi(struct tc_strbuf *png, double dpi)
{
	/* signature (8) and IHDR (4 + 4 + 13 + 4) come first */
	const size_t at = 8 + 25;
	uint32_t ppm = (uint32_t)lround(dpi / 0.0254);
	uint8_t phys[9] = { (uint8_t)(ppm >> 24), (uint8_t)(ppm >> 16), (uint8_t)(ppm >> 8),
			    (uint8_t)ppm, (uint8_t)(ppm >> 24), (uint8_t)(ppm >> 16),
			    (uint8_t)(ppm >> 8), (uint8_t)ppm, 1 /* unit: metre */ };
	struct tc_strbuf tail = TC_STRBUF_INIT;

	if (png->len < at || memcmp(png->buf + 12, "IHDR", 4) || !(dpi > 0))
		return;
	tc_strbuf_add(&tail, png->buf + at, png->len - at);
	png->len = at;
	chunk(png, "pHYs", phys, sizeof(phys));
	tc_strbuf_add(png, tail.buf, tail.len);
	tc_strbuf_release(&tail);
}
