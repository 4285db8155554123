/*
 * topology.c - ranks on their process grid coloured by cluster (ICS'14
 * Fig. 4), drawn through viz/figure.c.
 */
#include "lib/compat.h"
#include "viz/viz.h"
#include "viz/internal.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A qualitative palette (Tableau 10, then Okabe-Ito's that differ most
 * from it), repeated. */
static const uint8_t palette[][3] = {
	{ 0x4e, 0x79, 0xa7 }, { 0xf2, 0x8e, 0x2b }, { 0xe1, 0x57, 0x59 }, { 0x76, 0xb7, 0xb2 },
	{ 0x59, 0xa1, 0x4f }, { 0xed, 0xc9, 0x48 }, { 0xb0, 0x7a, 0xa1 }, { 0xff, 0x9d, 0xa7 },
	{ 0x9c, 0x75, 0x5f }, { 0xba, 0xb0, 0xac }, { 0x56, 0xb4, 0xe9 }, { 0x00, 0x9e, 0x73 },
	{ 0xf0, 0xe4, 0x42 }, { 0x00, 0x72, 0xb2 }, { 0xd5, 0x5e, 0x00 }, { 0xcc, 0x79, 0xa7 },
	{ 0x00, 0x00, 0x00 },
};
#define NPAL TC_ARRAY_SIZE(palette)

/* Legend entries at most; the rest are counted in one line. */
#define TOPO_LEGEND_MAX 16

int tc_topology_draw(int32_t nranks, const int32_t *cluster_of, const bool *is_lead,
		     size_t nclusters, uint32_t cols, uint32_t rows,
		     const struct tc_topology_opts *o, struct tc_strbuf *out, struct tc_error *err)
{
	static const uint8_t none_rgb[3] = { 0xdd, 0xdd, 0xdd };
	struct tc_fig *f = tc_fig_new(&o->page);
	double F = tc_fig_font(f), pad = 0.5 * F, tick = 0.35 * F, ls = 0.75 * F;
	double W = o->page.width, H = o->page.height, title_h, note_h, leg_w = 0, leg_h, lab_w;
	double yaxis_w, xaxis_h, cs, gw, gh, x0, y0, wfix, hfix;
	size_t nleg = nclusters < TOPO_LEGEND_MAX ? nclusters : TOPO_LEGEND_MAX;
	uint64_t *sizes = tc_xcalloc(nclusters + 1, sizeof(*sizes));
	bool inside;
	int64_t cstep = 1, rstep = 1;
	char buf[64];

	if (!cols)
		cols = 1;
	if (!rows)
		rows = 1;
	for (int32_t r = 0; r < nranks; r++)
		if (cluster_of[r] >= 0 && (size_t)cluster_of[r] < nclusters)
			sizes[cluster_of[r]]++;
	title_h = o->title && *o->title ? 2.0 * F : 0;
	note_h = o->note && *o->note ? 1.5 * F : 0;
	/* the legend: a swatch and "cluster K (N)" per line */
	for (size_t c = 0; c < nleg; c++) {
		double w;
		snprintf(buf, sizeof(buf), "cluster %zu (%" PRIu64 ")", c, sizes[c]);
		w = tc_fig_text_width(f, buf, F, 0);
		if (w > leg_w)
			leg_w = w;
	}
	if (nclusters > nleg) {
		double w;
		snprintf(buf, sizeof(buf), "and %zu more", nclusters - nleg);
		w = tc_fig_text_width(f, buf, F, 0);
		if (w > leg_w)
			leg_w = w;
	}
	leg_w += 1.2 * F + 1.4 * F;   /* gap from the grid, swatch and its gap */
	leg_h = 1.4 * F * (double)(nleg + (nclusters > nleg));
	/* the edges: rank numbers of the rows' first ranks and the columns */
	snprintf(buf, sizeof(buf), "%" PRId32, nranks > 0 ? nranks - 1 : 0);
	lab_w = tc_fig_text_width(f, buf, F, 0);
	yaxis_w = tick + 0.3 * F + lab_w;
	xaxis_h = tick + 0.3 * F + 0.73 * F + 0.3 * F;
	wfix = 2 * pad + yaxis_w + leg_w;
	hfix = 2 * pad + title_h + note_h + 0.3 * F + xaxis_h;
	if (!(W > 0) && !(H > 0))
		W = TC_FIG_ONE_COLUMN;
	if (W > 0 && H > 0)
		cs = fmin((W - wfix) / cols, (H - hfix) / rows);
	else if (W > 0)
		cs = (W - wfix) / cols;
	else
		cs = (H - hfix) / rows;
	if (cs > 4 * F)
		cs = 4 * F;
	if (cs < 0.5)
		cs = 0.5;
	/* the rank in its square where it fits: then no edge labels */
	inside = cs >= 1.6 * ls && cs >= tc_fig_text_width(f, buf, ls, 0) + 0.3 * F;
	if (inside) {
		yaxis_w = 0;
		xaxis_h = 0;
		wfix = 2 * pad + leg_w;
		hfix = 2 * pad + title_h + note_h + 0.3 * F;
	}
	gw = cs * cols;
	gh = cs * rows;
	if (!(W > 0))
		W = wfix + gw;
	if (!(H > 0))
		H = hfix + fmax(gh, leg_h);

	tc_fig_begin(f, W, H);
	x0 = (W - (wfix - 2 * pad) - gw) / 2 + yaxis_w;
	y0 = pad + title_h + note_h + 0.3 * F;
	if (title_h > 0)
		tc_fig_text(f, W / 2, pad + 1.1 * F, o->title,
			    tc_fig_fit(f, o->title, 1.1 * F, TC_TX_BOLD, W - 2 * pad),
			    TC_TX_CENTER | TC_TX_BOLD);
	if (note_h > 0)
		tc_fig_text(f, W / 2, pad + title_h + 0.9 * F, o->note,
			    tc_fig_fit(f, o->note, 0.9 * F, 0, W - 2 * pad), TC_TX_CENTER);
	for (int32_t r = 0; r < nranks; r++) {
		uint32_t x = (uint32_t)r % cols, y = (uint32_t)r / cols;
		int32_t c = cluster_of[r];
		const uint8_t *rgb = c >= 0 ? palette[(size_t)c % NPAL] : none_rgb;
		double gap = cs >= 4 ? fmin(0.1 * cs, 0.6) : 0, cx = x0 + x * cs, cy = y0 + y * cs;
		if (y >= rows)
			break;
		tc_fig_fill(f, cx + gap / 2, cy + gap / 2, cs - gap, cs - gap, rgb);
		if (is_lead && is_lead[r]) {
			double lw = fmin(fmax(0.12 * cs, 0.3), 1.2);
			tc_fig_frame(f, cx + gap / 2 + lw / 2, cy + gap / 2 + lw / 2, cs - gap - lw,
				     cs - gap - lw, lw, 0);
		}
		if (inside) {
			snprintf(buf, sizeof(buf), "%" PRId32, r);
			tc_fig_text(f, cx + cs / 2, cy + cs / 2, buf, ls, TC_TX_CENTER | TC_TX_MIDDLE);
		}
	}
	if (!inside) {
		cstep = tc_rank_step(cols, gw, lab_w, 0.8 * F);
		rstep = tc_rank_step(rows, gh, 0, 1.4 * F);
		for (uint32_t x = 0; x < cols; x += (uint32_t)cstep) {
			double cx = x0 + (x + 0.5) * cs;
			snprintf(buf, sizeof(buf), "%" PRIu32, x);
			tc_fig_line(f, cx, y0 + gh, cx, y0 + gh + tick, 0.5, 0);
			tc_fig_text(f, cx, y0 + gh + tick + 0.3 * F, buf, F, TC_TX_CENTER | TC_TX_TOP);
		}
		for (uint32_t y = 0; y < rows; y += (uint32_t)rstep) {
			double cy = y0 + (y + 0.5) * cs;
			snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)y * cols);
			tc_fig_line(f, x0 - tick, cy, x0, cy, 0.5, 0);
			tc_fig_text(f, x0 - tick - 0.3 * F, cy, buf, F, TC_TX_RIGHT | TC_TX_MIDDLE);
		}
	}
	for (size_t c = 0; c < nleg; c++) {
		double lx = x0 + gw + 1.2 * F, ly = y0 + 1.4 * F * (double)c;
		tc_fig_fill(f, lx, ly + 0.1 * F, 0.9 * F, 0.9 * F, palette[c % NPAL]);
		snprintf(buf, sizeof(buf), "cluster %zu (%" PRIu64 ")", c, sizes[c]);
		tc_fig_text(f, lx + 1.4 * F, ly + 0.55 * F, buf, F, TC_TX_LEFT | TC_TX_MIDDLE);
	}
	if (nclusters > nleg) {
		snprintf(buf, sizeof(buf), "and %zu more", nclusters - nleg);
		tc_fig_text(f, x0 + gw + 1.2 * F, y0 + 1.4 * F * (double)nleg + 0.55 * F, buf, F,
			    TC_TX_LEFT | TC_TX_MIDDLE);
	}
	free(sizes);
	return tc_fig_finish(f, o->title, out, err);
}
