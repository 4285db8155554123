/*
 * Unit tests of the figures' arithmetic (viz/axis.c, viz/histogram.c) and
 * of their three formats from one drawing (viz/figure.c): round ticks,
 * decades, units, thinned rank labels, lengths, message-size bins, and
 * the magic and size of a PDF, SVG and PNG.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "viz/internal.h"
#include "viz/viz.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CHECK_NEAR(a, b) CHECK(fabs((double)(a) - (double)(b)) < 1e-9 * (1 + fabs((double)(b))))

TEST(linear_ticks_are_round)
{
	double t[TC_TICKS_MAX];
	size_t n;

	/* 32 KiB of bytes in KiB: 0, 5, ... 30 */
	n = tc_ticks_linear(0, 32, 8, false, t);
	CHECK_EQ_U64(n, 7);
	CHECK_NEAR(t[6], 30);
	/* counts never step below 1 */
	n = tc_ticks_linear(0, 4, 8, true, t);
	CHECK_EQ_U64(n, 5);
	CHECK_NEAR(t[1], 1);
	n = tc_ticks_linear(0, 2, 8, true, t);
	CHECK_EQ_U64(n, 3);
	/* symmetric, through 0, no "-0" */
	n = tc_ticks_linear(-3, 3, 8, true, t);
	CHECK_EQ_U64(n, 7);
	CHECK(t[3] == 0 && !signbit(t[3]));
	n = tc_ticks_linear(0, 0.037, 5, false, t);
	CHECK_NEAR(t[1], 0.01);
	CHECK_EQ_U64(n, 4);
	/* every tick a multiple of 1, 2 or 5 times a power of ten */
	for (double hi = 1.7; hi < 1e7; hi *= 3.3) {
		n = tc_ticks_linear(0, hi, 6, false, t);
		CHECK(n >= 2 && n <= 7);
		for (size_t i = 1; i < n; i++) {
			double step = t[1] - t[0], m = step / pow(10, floor(log10(step) + 1e-9));
			CHECK(fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6);
			CHECK(t[i] <= hi * (1 + 1e-9));
		}
	}
}

TEST(log_ticks_are_decades)
{
	double t[TC_TICKS_MAX];
	size_t n = tc_ticks_log(10, 1e5, 8, t);
	char buf[32];

	CHECK_EQ_U64(n, 5);
	CHECK_NEAR(t[0], 10);
	CHECK_NEAR(t[4], 1e5);
	/* too many decades: every 2nd, 5th ... on round exponents */
	n = tc_ticks_log(1, 1e12, 5, t);
	CHECK_EQ_U64(n, 3);
	CHECK_NEAR(t[1], 1e5);
	tc_tick_label(1000, true, buf, sizeof(buf));
	CHECK_STR(buf, "10\u00b3");
	tc_tick_label(1e-6, true, buf, sizeof(buf));
	CHECK_STR(buf, "10\u207b\u2076");
	tc_tick_label(100, true, buf, sizeof(buf));
	CHECK_STR(buf, "100");
	tc_tick_label(0.01, true, buf, sizeof(buf));
	CHECK_STR(buf, "0.01");
	tc_tick_label(-2, false, buf, sizeof(buf));
	CHECK_STR(buf, "\u22122");
	tc_tick_label(2.5, false, buf, sizeof(buf));
	CHECK_STR(buf, "2.5");
}

TEST(units_of_values)
{
	struct tc_vunit u;

	tc_vunit_of(TC_HM_BYTES, 32768, false, &u);
	CHECK_STR(u.label, "bytes (KiB)");
	CHECK_NEAR(u.scale, 1024);
	tc_vunit_of(TC_HM_BYTES, 3 << 20, false, &u);
	CHECK_STR(u.label, "bytes (MiB)");
	tc_vunit_of(TC_HM_BYTES, 1000, false, &u);
	CHECK_STR(u.label, "bytes");
	tc_vunit_of(TC_HM_BYTES, 1e9, true, &u);
	CHECK_STR(u.label, "bytes (log scale)");
	CHECK_NEAR(u.scale, 1);
	tc_vunit_of(TC_HM_TIME, 2500, false, &u);
	CHECK_STR(u.label, "time (ms)");
	CHECK_NEAR(u.scale, 1e3);
	tc_vunit_of(TC_HM_TIME, 2e7, false, &u);
	CHECK_STR(u.label, "time (s)");
	tc_vunit_of(TC_HM_TIME, 20, true, &u);
	CHECK_STR(u.label, "time (s, log scale)");
	CHECK_NEAR(u.scale, 1e6);
	tc_vunit_of(TC_HM_COUNT, 4, false, &u);
	CHECK_STR(u.label, "messages");
	tc_vunit_of(TC_HM_COUNT, 250000, false, &u);
	CHECK_STR(u.label, "messages (thousands)");
}

TEST(rank_labels_thin_to_round_steps_that_never_touch)
{
	static const int64_t ns[] = { 4, 9, 64, 100, 1000, 1024, 4096, 65536 };
	static const double sides[] = { 60, 120, 175, 400 };

	CHECK_EQ_I64(tc_rank_step(9, 175, 5, 6.4), 1);
	CHECK_EQ_I64(tc_rank_step(1024, 175, 20.4, 6.4), 200);
	CHECK_EQ_I64(tc_rank_step(4096, 175, 20.4, 6.4), 1000);
	for (size_t i = 0; i < TC_ARRAY_SIZE(ns); i++) {
		for (size_t k = 0; k < TC_ARRAY_SIZE(sides); k++) {
			/* labels of 0.64 em a digit at 8 pt */
			double w = 0.64 * 8 * (floor(log10((double)ns[i] - 1)) + 1);
			int64_t s = tc_rank_step(ns[i], sides[k], w, 6.4), m = s;
			while (m % 10 == 0)
				m /= 10;
			CHECK(m == 1 || m == 2 || m == 5);
			CHECK(s >= ns[i] || sides[k] * (double)s / (double)ns[i] >= w + 6.4);
		}
	}
}

TEST(lengths_as_papers_give_them)
{
	double pt, px;

	CHECK(tc_fig_length("3.3in", &pt, &px) == 0);
	CHECK_NEAR(pt, 237.6);
	CHECK(tc_fig_length("8.5cm", &pt, &px) == 0);
	CHECK_NEAR(pt, 8.5 * 72 / 2.54);
	CHECK(tc_fig_length("85mm", &pt, &px) == 0);
	CHECK_NEAR(pt, 85 * 72 / 25.4);
	CHECK(tc_fig_length("240pt", &pt, &px) == 0);
	CHECK_NEAR(pt, 240);
	CHECK(tc_fig_length("600px", &pt, &px) == 0);
	CHECK_NEAR(px, 600);
	CHECK_NEAR(pt, 0);
	CHECK(tc_fig_length("3.3", &pt, &px) < 0);
	CHECK(tc_fig_length("-1in", &pt, &px) < 0);
	CHECK(tc_fig_length("in", &pt, &px) < 0);
	CHECK(tc_fig_length("2 in", &pt, &px) < 0);
}

TEST(message_size_bins)
{
	struct tc_msghist h;
	struct tc_strbuf sb = TC_STRBUF_INIT;
	uint64_t lo, hi;
	char buf[32];

	CHECK_EQ_U64(tc_msghist_bin(0), 0);
	CHECK_EQ_U64(tc_msghist_bin(1), 1);
	CHECK_EQ_U64(tc_msghist_bin(7), 3);
	CHECK_EQ_U64(tc_msghist_bin(8), 4);
	CHECK_EQ_U64(tc_msghist_bin(UINT64_MAX), 64);
	tc_msghist_range(4, &lo, &hi);
	CHECK_EQ_U64(lo, 8);
	CHECK_EQ_U64(hi, 15);
	tc_msghist_init(&h);
	tc_msghist_add(&h, 8192, 1.5);
	tc_msghist_add(&h, 8200, 0.5);
	tc_msghist_add(&h, 3, 0);
	tc_msghist_csv(&h, &sb);
	CHECK_STR(sb.buf, "size_min,size_max,messages,bytes,time_us\n"
			  "2,3,1,3,0\n4,7,0,0,0\n8,15,0,0,0\n16,31,0,0,0\n32,63,0,0,0\n"
			  "64,127,0,0,0\n128,255,0,0,0\n256,511,0,0,0\n512,1023,0,0,0\n"
			  "1024,2047,0,0,0\n2048,4095,0,0,0\n4096,8191,0,0,0\n8192,16383,2,16392,2\n");
	tc_bytes_label(8192, buf, sizeof(buf));
	CHECK_STR(buf, "8 KiB");
	tc_bytes_label(1, buf, sizeof(buf));
	CHECK_STR(buf, "1 B");
	tc_strbuf_release(&sb);
}

/* A 9-rank ring drawn as each format at a given size. */
static void draw(int format, double w, double h, double dpi, struct tc_strbuf *out)
{
	struct tc_matrix m;
	struct tc_heatmap_panel p = { "", &m, false };
	struct tc_heatmap_opts o;
	struct tc_error err;

	tc_matrix_init(&m, 9);
	for (int32_t r = 0; r < 9; r++)
		tc_matrix_add(&m, r, (r + 1) % 9, r + 1);
	tc_matrix_finish(&m);
	memset(&o, 0, sizeof(o));
	o.title = "ring";
	o.metric = TC_HM_COUNT;
	o.page.format = format;
	o.page.width = w;
	o.page.height = h;
	o.page.dpi = dpi;
	CHECK(tc_heatmap_draw(&p, 1, &o, out, &err) == 0);
	tc_matrix_release(&m);
}

static uint32_t be32(const char *p)
{
	const uint8_t *u = (const uint8_t *)p;

	return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

TEST(one_drawing_three_formats)
{
	struct tc_strbuf a = TC_STRBUF_INIT, b = TC_STRBUF_INIT;

	draw(TC_FIG_PDF, 144, 108, 0, &a);
	CHECK(a.len > 100 && !memcmp(a.buf, "%PDF-", 5));
	CHECK(memmem(a.buf, a.len, "/MediaBox [ 0 0 144 108 ]", 25) != NULL);
	CHECK(memmem(a.buf, a.len, "/CreationDate", 13) == NULL);
	/* the same bytes every time */
	draw(TC_FIG_PDF, 144, 108, 0, &b);
	CHECK(a.len == b.len && !memcmp(a.buf, b.buf, a.len));
	tc_strbuf_reset(&a);
	draw(TC_FIG_SVG, 144, 0, 0, &a);
	CHECK(strstr(a.buf, "<svg") && strstr(a.buf, "width=\"144pt\""));
	CHECK(strstr(a.buf, "<title>ring</title>") != NULL);
	tc_strbuf_reset(&a);
	draw(TC_FIG_PNG, 144, 108, 150, &a);
	CHECK(a.len > 33 && !memcmp(a.buf, "\x89PNG\r\n\x1a\n", 8));
	CHECK_EQ_U64(be32(a.buf + 16), 300);
	CHECK_EQ_U64(be32(a.buf + 20), 225);
	/* pHYs after IHDR: 150 dpi is 5906 pixels a metre */
	CHECK(!memcmp(a.buf + 37, "pHYs", 4));
	CHECK_EQ_U64(be32(a.buf + 41), 5906);
	tc_strbuf_release(&a);
	tc_strbuf_release(&b);
}
