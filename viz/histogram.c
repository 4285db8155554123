/*
 * histogram.c - message sizes in powers of two: the bins, their CSV and
 * their bar chart (through viz/figure.c).
 */
#include "lib/compat.h"
#include "viz/viz.h"
#include "viz/internal.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void tc_msghist_init(struct tc_msghist *h)
{
	memset(h, 0, sizeof(*h));
}

unsigned tc_msghist_bin(uint64_t bytes)
{
	unsigned k = 0;

	while (bytes) {
		bytes >>= 1;
		k++;
	}
	return k;
}

void tc_msghist_range(unsigned k, uint64_t *lo, uint64_t *hi)
{
	if (k == 0 || k >= TC_MSGHIST_BINS) {
		*lo = *hi = 0;
		return;
	}
	*lo = (uint64_t)1 << (k - 1);
	*hi = k == 64 ? UINT64_MAX : ((uint64_t)1 << k) - 1;
}

void tc_msghist_add(struct tc_msghist *h, uint64_t bytes, double us)
{
	unsigned k = tc_msghist_bin(bytes);

	h->messages[k]++;
	h->bytes[k] += bytes;
	h->us[k] += us;
}

void tc_msghist_merge(struct tc_msghist *h, const struct tc_msghist *o)
{
	for (unsigned k = 0; k < TC_MSGHIST_BINS; k++) {
		h->messages[k] += o->messages[k];
		h->bytes[k] += o->bytes[k];
		h->us[k] += o->us[k];
	}
}

void tc_msghist_span(const struct tc_msghist *h, unsigned *lo, unsigned *hi)
{
	*lo = 1;
	*hi = 0;
	for (unsigned k = 0; k < TC_MSGHIST_BINS; k++) {
		if (!h->messages[k])
			continue;
		if (*lo > *hi)
			*lo = k;
		*hi = k;
	}
}

void tc_msghist_csv(const struct tc_msghist *h, struct tc_strbuf *out)
{
	unsigned lo, hi;

	tc_strbuf_addstr(out, "size_min,size_max,messages,bytes,time_us\n");
	tc_msghist_span(h, &lo, &hi);
	for (unsigned k = lo; k <= hi; k++) {
		uint64_t a, b;
		tc_msghist_range(k, &a, &b);
		tc_strbuf_addf(out, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.17g\n", a, b,
			       h->messages[k], h->bytes[k], h->us[k]);
	}
}

static double bin_value(const struct tc_msghist *h, unsigned k, int metric)
{
	return metric == TC_HM_BYTES ? (double)h->bytes[k] : metric == TC_HM_TIME ? h->us[k]
										  : (double)h->messages[k];
}

/* The label of the edge below bin k: "0" below bin 0, else its least size. */
static void edge_label(unsigned k, char *buf, size_t len)
{
	uint64_t lo, hi;

	if (k == 0) {
		snprintf(buf, len, "0");
		return;
	}
	tc_msghist_range(k, &lo, &hi);
	tc_bytes_label(lo, buf, len);
}

int tc_msghist_draw(const struct tc_msghist *h, const struct tc_msghist_opts *o,
		    struct tc_strbuf *out, struct tc_error *err)
{
	static const unsigned every[] = { 1, 2, 5, 10, 20 };
	static const uint8_t bar_rgb[3] = { 0x3b, 0x52, 0x8b };
	struct tc_fig *f = tc_fig_new(&o->page);
	double F = tc_fig_font(f), pad = 0.5 * F, tick = 0.35 * F;
	double W = o->page.width, H = o->page.height, hi = 0, lo = 0, blo, bhi;
	double ticks[TC_TICKS_MAX], title_h, xaxis_h, yaxis_w, lab_w = 0, edge_w = 0;
	double px, py, pw, ph, bw;
	char labels[TC_TICKS_MAX][32], buf[32];
	unsigned k0, k1, nb, ev = every[TC_ARRAY_SIZE(every) - 1];
	struct tc_vunit unit;
	size_t nt;
	bool empty;

	tc_msghist_span(h, &k0, &k1);
	empty = k0 > k1;
	if (empty)
		k0 = k1 = 0;
	nb = k1 - k0 + 1;
	for (unsigned k = k0; k <= k1; k++) {
		double v = bin_value(h, k, o->metric);
		if (v > hi)
			hi = v;
		if (v > 0 && (lo == 0 || v < lo))
			lo = v;
	}
	tc_vunit_of(o->metric, hi, o->log, &unit);
	if (o->log) {
		double e0 = lo > 0 ? floor(log10(lo / unit.scale) + 1e-9) : 0;
		double e1 = hi > 0 ? ceil(log10(hi / unit.scale) - 1e-9) : 1;
		if (e1 <= e0)
			e1 = e0 + 1;
		blo = pow(10, e0);
		bhi = pow(10, e1);
	} else {
		blo = 0;
		bhi = hi > 0 ? hi / unit.scale : 1;
	}

	if (!(W > 0) && !(H > 0))
		W = TC_FIG_ONE_COLUMN;
	if (!(W > 0))
		W = H * 1.5;
	if (!(H > 0))
		H = W / 1.5;
	title_h = o->title && *o->title ? 2.0 * F : 0;
	xaxis_h = tick + 0.3 * F + 0.73 * F + 0.8 * F + 0.73 * F + 0.3 * F;
	ph = H - 2 * pad - title_h - 0.8 * F - xaxis_h;
	if (ph < 2 * F)
		ph = 2 * F;
	{
		int max = (int)(ph / (2.0 * F));
		bool whole = o->metric != TC_HM_TIME && unit.scale == 1;
		if (max < 2)
			max = 2;
		if (max > 8)
			max = 8;
		nt = o->log ? tc_ticks_log(blo, bhi, max, ticks)
			    : tc_ticks_linear(blo, bhi, max, whole, ticks);
		/* a linear axis ends at the tick past the tallest bar */
		if (!o->log && nt >= 2 && ticks[nt - 1] < bhi && nt < TC_TICKS_MAX) {
			ticks[nt] = ticks[nt - 1] + (ticks[1] - ticks[0]);
			bhi = ticks[nt++];
		}
	}
	for (size_t i = 0; i < nt; i++) {
		double w;
		tc_tick_label(ticks[i], o->log, labels[i], sizeof(labels[i]));
		w = tc_fig_text_width(f, labels[i], F, 0);
		if (w > lab_w)
			lab_w = w;
	}
	for (unsigned k = k0; k <= k1 + 1; k++) {
		double w;
		edge_label(k, buf, sizeof(buf));
		w = tc_fig_text_width(f, buf, F, 0);
		if (w > edge_w)
			edge_w = w;
	}
	yaxis_w = 0.73 * F + 0.5 * F + lab_w + 0.3 * F + tick;
	pw = W - 2 * pad - yaxis_w - edge_w / 2;
	if (pw < 2 * F)
		pw = 2 * F;
	bw = pw / nb;
	for (size_t i = 0; i < TC_ARRAY_SIZE(every); i++) {
		if (bw * every[i] >= edge_w + 0.6 * F) {
			ev = every[i];
			break;
		}
	}

	tc_fig_begin(f, W, H);
	px = pad + yaxis_w;
	py = pad + title_h + 0.8 * F;
	if (title_h > 0)
		tc_fig_text(f, W / 2, pad + 1.1 * F, o->title,
			    tc_fig_fit(f, o->title, 1.1 * F, TC_TX_BOLD, W - 2 * pad),
			    TC_TX_CENTER | TC_TX_BOLD);
	for (unsigned k = k0; k <= k1; k++) {
		double v = bin_value(h, k, o->metric) / unit.scale, top;
		if (!(v > 0))
			continue;
		if (o->log)
			top = ph * (log10(v) - log10(blo)) / (log10(bhi) - log10(blo));
		else
			top = ph * v / bhi;
		if (top > ph)
			top = ph;
		if (top > 0)
			tc_fig_fill(f, px + (k - k0) * bw + 0.08 * bw, py + ph - top, 0.84 * bw, top,
				    bar_rgb);
	}
	if (empty)
		tc_fig_text(f, px + pw / 2, py + ph / 2, "no messages", F, TC_TX_CENTER | TC_TX_MIDDLE);
	tc_fig_line(f, px, py + ph, px + pw, py + ph, 0.5, 0);
	tc_fig_line(f, px, py, px, py + ph, 0.5, 0);
	for (size_t i = 0; i < nt; i++) {
		double y = o->log ? py + ph - ph * (log10(ticks[i]) - log10(blo)) /
						   (log10(bhi) - log10(blo))
				  : py + ph - ph * (ticks[i] - blo) / (bhi - blo);
		tc_fig_line(f, px - tick, y, px, y, 0.5, 0);
		tc_fig_text(f, px - tick - 0.3 * F, y, labels[i], F, TC_TX_RIGHT | TC_TX_MIDDLE);
	}
	for (unsigned k = k0; k <= k1 + 1; k++) {
		double x = px + (k - k0) * bw;
		/* bin k's lower edge is 2^(k-1) bytes: label round powers */
		if (k == 0 ? ev != 1 : (k - 1) % ev != 0)
			continue;
		edge_label(k, buf, sizeof(buf));
		tc_fig_line(f, x, py + ph, x, py + ph + tick, 0.5, 0);
		tc_fig_text(f, x, py + ph + tick + 0.3 * F, buf, F, TC_TX_CENTER | TC_TX_TOP);
	}
	tc_fig_text(f, px + pw / 2, py + ph + xaxis_h - 0.3 * F, "message size", F, TC_TX_CENTER);
	tc_fig_text(f, pad, py + ph / 2, unit.label, F, TC_TX_UP | TC_TX_CENTER | TC_TX_TOP);
	return tc_fig_finish(f, o->title, out, err);
}
