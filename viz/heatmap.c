/*
 * heatmap.c - communication matrices as CSV, SVG and PNG.
 *
 * Large matrices are binned: with more ranks than bins per axis, runs of
 * `per` consecutive ranks (tc_heatmap_binning) form one bin holding the
 * sum of their cells, so that 4096 ranks stay readable as 128 x 128 bins.
 */
#include "lib/compat.h"
#include "viz/viz.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HM_DEFAULT_CELLS 128u
#define HM_SIDE 480.0      /* px of the matrix area */
#define HM_LEFT 78.0
#define HM_TOP 64.0
#define HM_BOTTOM 58.0
#define HM_BAR_GAP 24.0
#define HM_BAR_W 16.0
#define HM_RIGHT 96.0
#define HM_PNG_SIDE 512u

uint32_t tc_heatmap_binning(int32_t n, uint32_t max_cells)
{
	if (!max_cells)
		max_cells = HM_DEFAULT_CELLS;
	if (n <= 0 || (uint32_t)n <= max_cells)
		return 1;
	return (uint32_t)(((uint64_t)n + max_cells - 1) / max_cells);
}

/* Dense binned values of a matrix: nb x nb (returns new). */
static double *bin_matrix(const struct tc_matrix *m, uint32_t per, uint32_t *nb_out)
{
	uint32_t nb = (uint32_t)(((uint64_t)(m->n > 0 ? m->n : 1) + per - 1) / per);
	double *d = tc_xcalloc(tc_st_mult(nb, nb), sizeof(*d));

	for (size_t i = 0; i < m->ncells; i++) {
		const struct tc_mcell *c = &m->cells[i];
		d[(size_t)(c->src / per) * nb + (size_t)(c->dst / per)] += c->v;
	}
	*nb_out = nb;
	return d;
}

static void range_of(const double *d, size_t n, double *lo, double *hi)
{
	double a = 0, b = 0;

	for (size_t i = 0; i < n; i++) {
		if (d[i] < a)
			a = d[i];
		if (d[i] > b)
			b = d[i];
	}
	*lo = a;
	*hi = b;
}

/* The colour of v; false for an empty (zero) cell of a sequential map. */
static bool colour_of(double v, double lo, double hi, bool diverging, uint8_t rgb[3])
{
	if (diverging) {
		double M = fmax(fabs(lo), fabs(hi));
		tc_diverging(M > 0 ? 0.5 + v / (2 * M) : 0.5, rgb);
		return v != 0;
	}
	if (v == 0)
		return false;
	tc_viridis(hi > 0 ? v / hi : 0, rgb);
	return true;
}

void tc_heatmap_csv(const struct tc_matrix *m, const char *column, struct tc_strbuf *out)
{
	tc_strbuf_addf(out, "src,dst,%s\n", column);
	for (size_t i = 0; i < m->ncells; i++)
		tc_strbuf_addf(out, "%" PRId32 ",%" PRId32 ",%.17g\n", m->cells[i].src,
			       m->cells[i].dst, m->cells[i].v);
}

void tc_heatmap_csv_diff(const struct tc_matrix *a, const struct tc_matrix *b,
			 const char *column, struct tc_strbuf *out)
{
	size_t i = 0, k = 0;

	tc_strbuf_addf(out, "src,dst,original_%s,clustered_%s,difference_%s\n", column, column,
		       column);
	while (i < a->ncells || k < b->ncells) {
		const struct tc_mcell *x = i < a->ncells ? &a->cells[i] : NULL;
		const struct tc_mcell *y = k < b->ncells ? &b->cells[k] : NULL;
		int c;
		double va = 0, vb = 0;
		int32_t s, d;
		if (!x)
			c = 1;
		else if (!y)
			c = -1;
		else
			c = x->src != y->src ? (x->src < y->src ? -1 : 1)
					     : (x->dst < y->dst ? -1 : x->dst > y->dst);
		if (c <= 0) {
			va = x->v;
			s = x->src;
			d = x->dst;
			i++;
		}
		if (c >= 0) {
			vb = y->v;
			s = y->src;
			d = y->dst;
			k++;
		}
		tc_strbuf_addf(out, "%" PRId32 ",%" PRId32 ",%.17g,%.17g,%.17g\n", s, d, va, vb,
			       vb - va);
	}
}

static void xml_text(struct tc_strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': tc_strbuf_addstr(out, "&lt;"); break;
		case '>': tc_strbuf_addstr(out, "&gt;"); break;
		case '&': tc_strbuf_addstr(out, "&amp;"); break;
		case '"': tc_strbuf_addstr(out, "&quot;"); break;
		default: tc_strbuf_addch(out, *s);
		}
	}
}

/* A step of 1, 2 or 5 times a power of ten giving at most 8 ticks. */
static int64_t tick_step(int64_t n)
{
	int64_t p = 1;

	for (;;) {
		if (n / p <= 8)
			return p;
		if (n / (2 * p) <= 8)
			return 2 * p;
		if (n / (5 * p) <= 8)
			return 5 * p;
		p *= 10;
	}
}

/*
 * The colour bar's tick step: 1, 2 or 5 times a power of ten, at most
 * max ticks over range, and never below 1 when every value is whole
 * (message counts and bytes have no 12.5).
 */
static double bar_step(double range, int max, bool whole)
{
	double raw = range / max, mag = pow(10, floor(log10(raw))), norm = raw / mag;
	double step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;

	return whole && step < 1 ? 1 : step;
}

static bool all_whole(const double *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (d[i] != floor(d[i]))
			return false;
	return true;
}

static void svg_panel(struct tc_strbuf *out, const struct tc_heatmap_panel *p, double ox,
		      uint32_t max_cells, const char *unit)
{
	int32_t n = p->m->n > 0 ? p->m->n : 1;
	uint32_t per = tc_heatmap_binning(n, max_cells), nb;
	double *d = bin_matrix(p->m, per, &nb), lo, hi, cs = HM_SIDE / nb;
	double x0 = ox + HM_LEFT, y0 = HM_TOP, bx = x0 + HM_SIDE + HM_BAR_GAP;
	int64_t step = tick_step(n);
	uint8_t rgb[3];

	range_of(d, (size_t)nb * nb, &lo, &hi);
	tc_strbuf_addf(out, "<g class=\"panel\">\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" "
		       "text-anchor=\"middle\">", x0 + HM_SIDE / 2, HM_TOP - 26);
	xml_text(out, p->title);
	if (per > 1)
		tc_strbuf_addf(out, " (%" PRIu32 " ranks per bin)", per);
	tc_strbuf_addstr(out, "</text>\n");
	tc_strbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		       "fill=\"#ffffff\" stroke=\"#333333\"/>\n", x0, y0, HM_SIDE, HM_SIDE);
	for (uint32_t r = 0; r < nb; r++) {
		for (uint32_t c = 0; c < nb; c++) {
			double v = d[(size_t)r * nb + c];
			if (!colour_of(v, lo, hi, p->diverging, rgb))
				continue;
			tc_strbuf_addf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
				       "fill=\"#%02x%02x%02x\"><title>%" PRIu64 ",%" PRIu64 ": %g</title></rect>\n",
				       x0 + c * cs, y0 + r * cs, cs, cs, rgb[0], rgb[1], rgb[2],
				       (uint64_t)r * per, (uint64_t)c * per, v);
		}
	}
	if (lo == 0 && hi == 0)
		tc_strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" fill=\"#666666\" "
			       "text-anchor=\"middle\">%s</text>\n", x0 + HM_SIDE / 2, y0 + HM_SIDE / 2,
			       p->diverging ? "no difference" : "no messages");
	/* ticks: sender down the left, receiver across the bottom */
	for (int64_t t = 0; t < n; t += step) {
		double pos = ((double)t + 0.5) / per * cs;
		if (per > 1)
			pos = (double)t / per * cs;
		tc_strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
			       x0 - 5, y0 + pos, x0, y0 + pos);
		tc_strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%" PRId64
			       "</text>\n", x0 - 8, y0 + pos + 4, t);
		tc_strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
			       x0 + pos, y0 + HM_SIDE, x0 + pos, y0 + HM_SIDE + 5);
		tc_strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%" PRId64
			       "</text>\n", x0 + pos, y0 + HM_SIDE + 18, t);
	}
	tc_strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">receiver rank</text>\n",
		       x0 + HM_SIDE / 2, y0 + HM_SIDE + 40);
	tc_strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
		       "transform=\"rotate(-90 %.1f %.1f)\">sender rank</text>\n",
		       x0 - 52, y0 + HM_SIDE / 2, x0 - 52, y0 + HM_SIDE / 2);
	/* colour bar, bottom = low; none for an empty or all-zero matrix */
	if (hi > lo || hi != 0) {
		double blo = p->diverging ? -fmax(fabs(lo), fabs(hi)) : 0;
		double bhi = p->diverging ? fmax(fabs(lo), fabs(hi)) : hi;
		double bstep = bar_step(bhi - blo, 5, all_whole(d, (size_t)nb * nb));
		int nsteps = 64;
		for (int i = 0; i < nsteps; i++) {
			double t = (i + 0.5) / nsteps;
			if (p->diverging)
				tc_diverging(t, rgb);
			else
				tc_viridis(t, rgb);
			tc_strbuf_addf(out, "<rect x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" height=\"%.2f\" "
				       "fill=\"#%02x%02x%02x\"/>\n", bx,
				       y0 + HM_SIDE - (i + 1) * HM_SIDE / nsteps, HM_BAR_W,
				       HM_SIDE / nsteps + 0.3, rgb[0], rgb[1], rgb[2]);
		}
		tc_strbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			       "fill=\"none\" stroke=\"#333333\"/>\n", bx, y0, HM_BAR_W, HM_SIDE);
		/* round values where they fall on the bar */
		for (double v = ceil(blo / bstep) * bstep; v <= bhi + bstep * 1e-9; v += bstep) {
			double y = y0 + HM_SIDE - HM_SIDE * (v - blo) / (bhi - blo);
			tc_strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				       "stroke=\"#333333\"/>\n", bx + HM_BAR_W, y, bx + HM_BAR_W + 3, y);
			tc_strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%.6g</text>\n",
				       bx + HM_BAR_W + 5, y + 4, fabs(v) < bstep * 1e-9 ? 0 : v);
		}
		tc_strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", bx, y0 - 8);
		xml_text(out, unit);
		tc_strbuf_addstr(out, "</text>\n");
	}
	tc_strbuf_addstr(out, "</g>\n");
	free(d);
}

void tc_heatmap_svg(const struct tc_heatmap_panel *p, size_t np, const struct tc_heatmap_opts *o,
		    struct tc_strbuf *out)
{
	double pw = HM_LEFT + HM_SIDE + HM_BAR_GAP + HM_BAR_W + HM_RIGHT;
	double w = pw * (double)(np ? np : 1), h = HM_TOP + HM_SIDE + HM_BOTTOM;

	tc_strbuf_addf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		       "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n", w, h, w, h);
	tc_strbuf_addstr(out, "<title>");
	xml_text(out, o->title);
	tc_strbuf_addstr(out, "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
	tc_strbuf_addf(out, "<text x=\"%.1f\" y=\"18\" font-size=\"15\" font-weight=\"bold\" "
		       "text-anchor=\"middle\">", w / 2);
	xml_text(out, o->title);
	tc_strbuf_addstr(out, "</text>\n");
	for (size_t i = 0; i < np; i++)
		svg_panel(out, &p[i], pw * (double)i, o->max_cells, o->unit);
	tc_strbuf_addstr(out, "</svg>\n");
}

void tc_heatmap_png(const struct tc_heatmap_panel *p, size_t np, const struct tc_heatmap_opts *o,
		    struct tc_strbuf *out)
{
	uint32_t gap = 8, side = 0, scale, w, h;
	uint32_t *nbs = tc_xcalloc(np + 1, sizeof(*nbs));
	double **d = tc_xcalloc(np + 1, sizeof(*d));
	uint8_t *img;

	for (size_t i = 0; i < np; i++) {
		uint32_t per = tc_heatmap_binning(p[i].m->n, o->max_cells ? o->max_cells : 512);
		d[i] = bin_matrix(p[i].m, per, &nbs[i]);
		if (nbs[i] > side)
			side = nbs[i];
	}
	if (!side)
		side = 1;
	scale = side >= HM_PNG_SIDE ? 1 : HM_PNG_SIDE / side;
	side *= scale;
	w = (uint32_t)(np ? np : 1) * side + (uint32_t)(np > 1 ? np - 1 : 0) * gap;
	h = side;
	img = tc_xmalloc(tc_st_mult(tc_st_mult(w, h), 3));
	memset(img, 0xff, (size_t)w * h * 3);
	for (size_t i = 0; i < np; i++) {
		double lo, hi;
		uint32_t nb = nbs[i], ox = (uint32_t)i * (side + gap);
		uint32_t sc = side / nb;
		range_of(d[i], (size_t)nb * nb, &lo, &hi);
		for (uint32_t r = 0; r < nb; r++) {
			for (uint32_t c = 0; c < nb; c++) {
				uint8_t rgb[3];
				if (!colour_of(d[i][(size_t)r * nb + c], lo, hi, p[i].diverging, rgb))
					continue;
				for (uint32_t y = r * sc; y < (r + 1) * sc; y++)
					for (uint32_t x = c * sc; x < (c + 1) * sc; x++)
						memcpy(img + ((size_t)y * w + ox + x) * 3, rgb, 3);
			}
		}
		free(d[i]);
	}
	tc_png_encode(img, w, h, out);
	free(img);
	free(d);
	free(nbs);
}
