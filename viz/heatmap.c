/*
 * heatmap.c - communication matrices as CSV, and as figures (PDF, SVG,
 * PNG through viz/figure.c).
 *
 * Large matrices are binned: with more ranks than bins per axis, runs of
 * `per` consecutive ranks (tc_heatmap_binning) form one bin holding the
 * sum of their cells, so that 4096 ranks stay readable as 256 x 256 bins.
 */
#include "lib/compat.h"
#include "viz/viz.h"
#include "viz/internal.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HM_DEFAULT_CELLS 256u

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


/* ---- the figure ------------------------------------------------------------ */

/* A colour scale shared by adjacent panels and its bar. */
struct hm_scale {
	bool diverging, log, empty;
	double hi;               /* largest value (diverging: largest |v|) */
	double lo;               /* smallest positive value (log) */
	double blo, bhi;         /* the bar's ends, in the unit's numbers */
	struct tc_vunit unit;
	double ticks[TC_TICKS_MAX];
	char labels[TC_TICKS_MAX][32];
	size_t nticks;
	double label_w;          /* widest tick label */
};

struct hm_panel {
	const struct tc_heatmap_panel *p;
	double *d;               /* nb x nb binned values */
	uint32_t nb, per;
	size_t scale;            /* index of its scale */
	bool bar;                /* the last panel of its scale: draws the bar */
};

static void scale_ticks(struct hm_scale *sc, int metric, int max, struct tc_fig *f, double fs)
{
	double t[TC_TICKS_MAX];
	bool whole = metric != TC_HM_TIME && sc->unit.scale == 1;

	if (sc->log && !sc->diverging)
		sc->nticks = tc_ticks_log(sc->blo, sc->bhi, max, t);
	else
		sc->nticks = tc_ticks_linear(sc->blo, sc->bhi, max, whole, t);
	sc->label_w = 0;
	for (size_t i = 0; i < sc->nticks; i++) {
		double w;
		sc->ticks[i] = t[i];
		tc_tick_label(t[i], sc->log && !sc->diverging, sc->labels[i], sizeof(sc->labels[i]));
		w = tc_fig_text_width(f, sc->labels[i], fs, 0);
		if (w > sc->label_w)
			sc->label_w = w;
	}
}

static void scale_range(struct hm_scale *sc, const struct hm_panel *hp, size_t np, size_t k,
			int metric)
{
	double hi = 0, lo = 0;

	for (size_t i = 0; i < np; i++) {
		size_t cells = (size_t)hp[i].nb * hp[i].nb;
		if (hp[i].scale != k)
			continue;
		for (size_t c = 0; c < cells; c++) {
			double v = sc->diverging ? fabs(hp[i].d[c]) : hp[i].d[c];
			if (v > hi)
				hi = v;
			if (v > 0 && (lo == 0 || v < lo))
				lo = v;
		}
	}
	sc->hi = hi;
	sc->lo = lo;
	sc->empty = !(hi > 0);
	tc_vunit_of(metric, hi, sc->log && !sc->diverging, &sc->unit);
	if (sc->diverging) {
		sc->bhi = hi / sc->unit.scale;
		sc->blo = -sc->bhi;
	} else if (sc->log) {
		double e0 = floor(log10(lo / sc->unit.scale) + 1e-9);
		double e1 = ceil(log10(hi / sc->unit.scale) - 1e-9);
		if (sc->empty)
			e0 = e1 = 0;
		if (e1 <= e0)
			e1 = e0 + 1;
		sc->blo = pow(10, e0);
		sc->bhi = pow(10, e1);
	} else {
		sc->blo = 0;
		sc->bhi = hi / sc->unit.scale;
	}
}

/* Where t in [0, 1] of the scale falls for value v (in the data's units);
 * false for a cell left white. */
static bool scale_colour(const struct hm_scale *sc, double v, uint8_t rgb[3])
{
	if (v == 0 || sc->empty)
		return false;
	if (sc->diverging) {
		tc_diverging(0.5 + v / (2 * sc->hi), rgb);
		return true;
	}
	if (v < 0)
		return false;
	if (sc->log) {
		double x = log10(v / sc->unit.scale), a = log10(sc->blo), b = log10(sc->bhi);
		tc_viridis((x - a) / (b - a), rgb);
	} else {
		tc_viridis(v / sc->hi, rgb);
	}
	return true;
}

/* The position along a bar of length len (0 at the bottom) of a tick. */
static double scale_pos(const struct hm_scale *sc, double v, double len)
{
	if (sc->log && !sc->diverging)
		return len * (log10(v) - log10(sc->blo)) / (log10(sc->bhi) - log10(sc->blo));
	return sc->bhi > sc->blo ? len * (v - sc->blo) / (sc->bhi - sc->blo) : 0;
}

/* The layout, in points, for a matrix side S. */
struct hm_layout {
	double F, pad, tick;
	double title_h, sub_h, top_extra, xaxis_h;
	double yaxis_w, gap;
	double bar_gap, bar_w;   /* from matrix to bar, the bar itself */
};

static double bar_block(const struct hm_layout *L, const struct hm_scale *sc)
{
	if (sc->empty)
		return 0;
	return L->bar_gap + L->bar_w + L->tick + 0.3 * L->F + sc->label_w + 0.5 * L->F + 1.0 * L->F;
}

static double content_width(const struct hm_layout *L, const struct hm_panel *hp, size_t np,
			    const struct hm_scale *sc, double S)
{
	double w = L->yaxis_w + (double)np * S + (double)(np - 1) * L->gap;

	for (size_t i = 0; i < np; i++)
		if (hp[i].bar)
			w += bar_block(L, &sc[hp[i].scale]);
	return w;
}

static double content_height(const struct hm_layout *L, double S)
{
	return L->title_h + L->sub_h + L->top_extra + S + L->xaxis_h;
}

static void draw_bar(struct tc_fig *f, const struct hm_layout *L, const struct hm_scale *sc,
		     double x, double y, double S)
{
	uint8_t ramp[256 * 3];
	double fs = L->F, lx;

	for (int i = 0; i < 256; i++) {
		double t = (255 - i) / 255.0;
		if (sc->diverging)
			tc_diverging(t, ramp + 3 * i);
		else
			tc_viridis(t, ramp + 3 * i);
	}
	tc_fig_image(f, x, y, L->bar_w, S, ramp, 1, 256);
	tc_fig_frame(f, x, y, L->bar_w, S, 0.5, 64);
	for (size_t i = 0; i < sc->nticks; i++) {
		double ty = y + S - scale_pos(sc, sc->ticks[i], S);
		tc_fig_line(f, x + L->bar_w, ty, x + L->bar_w + L->tick, ty, 0.5, 0);
		tc_fig_text(f, x + L->bar_w + L->tick + 0.3 * fs, ty, sc->labels[i], fs,
			    TC_TX_LEFT | TC_TX_MIDDLE);
	}
	lx = x + L->bar_w + L->tick + 0.3 * fs + sc->label_w + 0.5 * fs;
	tc_fig_text(f, lx, y + S / 2, sc->unit.label, fs, TC_TX_UP | TC_TX_CENTER | TC_TX_TOP);
}

static void draw_panel(struct tc_fig *f, const struct hm_layout *L, const struct hm_panel *hp,
		       const struct hm_scale *sc, double x, double y, double S, int64_t step,
		       bool ylabels)
{
	uint32_t nb = hp->nb, per = hp->per;
	int32_t n = hp->p->m->n > 0 ? hp->p->m->n : 1;
	double slots = (double)nb * per, fs = L->F;
	uint8_t *img = tc_xmalloc(tc_st_mult(tc_st_mult(nb, nb), 3));
	char buf[64];

	memset(img, 0xff, (size_t)nb * nb * 3);
	for (size_t c = 0; c < (size_t)nb * nb; c++)
		scale_colour(sc, hp->d[c], img + 3 * c);
	if (hp->p->title && *hp->p->title)
		tc_fig_text(f, x + S / 2, y - L->top_extra - 0.45 * fs, hp->p->title, fs, TC_TX_CENTER);
	tc_fig_image(f, x, y, S, S, img, nb, nb);
	tc_fig_frame(f, x, y, S, S, 0.5, 64);
	free(img);
	if (sc->empty)
		tc_fig_text(f, x + S / 2, y + S / 2, sc->diverging ? "no difference" : "no messages",
			    fs, TC_TX_CENTER | TC_TX_MIDDLE);
	for (int64_t t = 0; t < n; t += step) {
		double pos = ((double)t + 0.5) / slots * S;
		snprintf(buf, sizeof(buf), "%" PRId64, t);
		tc_fig_line(f, x + pos, y + S, x + pos, y + S + L->tick, 0.5, 0);
		tc_fig_text(f, x + pos, y + S + L->tick + 0.3 * fs, buf, fs, TC_TX_CENTER | TC_TX_TOP);
		tc_fig_line(f, x - L->tick, y + pos, x, y + pos, 0.5, 0);
		if (ylabels)
			tc_fig_text(f, x - L->tick - 0.3 * fs, y + pos, buf, fs,
				    TC_TX_RIGHT | TC_TX_MIDDLE);
	}
	if (per > 1)
		snprintf(buf, sizeof(buf), "receiver rank (bins of %" PRIu32 ")", per);
	else
		snprintf(buf, sizeof(buf), "receiver rank");
	tc_fig_text(f, x + S / 2, y + S + L->xaxis_h - 0.3 * fs, buf, fs, TC_TX_CENTER);
	if (ylabels) {
		if (per > 1)
			snprintf(buf, sizeof(buf), "sender rank (bins of %" PRIu32 ")", per);
		else
			snprintf(buf, sizeof(buf), "sender rank");
		tc_fig_text(f, x - L->yaxis_w, y + S / 2, buf, fs, TC_TX_UP | TC_TX_CENTER | TC_TX_TOP);
	}
}

int tc_heatmap_draw(const struct tc_heatmap_panel *p, size_t np, const struct tc_heatmap_opts *o,
		    struct tc_strbuf *out, struct tc_error *err)
{
	struct tc_fig *f = tc_fig_new(&o->page);
	struct hm_panel *hp = tc_xcalloc(np + 1, sizeof(*hp));
	struct hm_scale *sc = tc_xcalloc(np + 1, sizeof(*sc));
	struct hm_layout L;
	size_t nsc = 0;
	int32_t n = 1;
	int64_t step, maxlab;
	double W, H, S, x, y, wS, hS, ymax_w, lab_w;
	bool any_sub = false;
	char buf[32];
	int rc;

	/* bins and scales: a run of sequential panels shares one */
	for (size_t i = 0; i < np; i++) {
		hp[i].p = &p[i];
		hp[i].per = tc_heatmap_binning(p[i].m->n, o->max_cells ? o->max_cells : HM_DEFAULT_CELLS);
		hp[i].d = bin_matrix(p[i].m, hp[i].per, &hp[i].nb);
		if (p[i].m->n > n)
			n = p[i].m->n;
		if (i == 0 || p[i].diverging || p[i - 1].diverging) {
			sc[nsc].diverging = p[i].diverging;
			sc[nsc].log = o->log;
			nsc++;
		}
		hp[i].scale = nsc - 1;
		if (i > 0 && hp[i - 1].scale != hp[i].scale)
			hp[i - 1].bar = true;
		if (p[i].title && *p[i].title)
			any_sub = true;
	}
	if (np)
		hp[np - 1].bar = true;
	for (size_t k = 0; k < nsc; k++)
		scale_range(&sc[k], hp, np, k, o->metric);

	L.F = tc_fig_font(f);
	L.pad = 0.5 * L.F;
	L.tick = 0.35 * L.F;
	L.title_h = o->title && *o->title ? 2.0 * L.F : 0;
	L.sub_h = any_sub ? 1.5 * L.F : 0;
	L.top_extra = 0.5 * L.F;     /* room for the top tick label of a bar */
	L.xaxis_h = L.tick + 0.3 * L.F + 0.73 * L.F + 0.8 * L.F + 0.73 * L.F + 0.3 * L.F;
	L.gap = 1.2 * L.F;
	L.bar_gap = 0.8 * L.F;
	L.bar_w = 0.9 * L.F;
	/* the widest rank label, then the y axis */
	maxlab = n - 1;
	snprintf(buf, sizeof(buf), "%" PRId64, maxlab);
	lab_w = tc_fig_text_width(f, buf, L.F, 0);
	ymax_w = lab_w;
	L.yaxis_w = L.tick + 0.3 * L.F + ymax_w + 0.5 * L.F + 0.73 * L.F;

	/* the side of the matrices: from the width, the height or both;
	 * twice, the second time with as many bar ticks as the side holds */
	W = o->page.width;
	H = o->page.height;
	if (!(W > 0) && !(H > 0))
		W = np > 1 ? TC_FIG_TWO_COLUMNS : TC_FIG_ONE_COLUMN;
	S = 0;
	for (int pass = 0; pass < 2; pass++) {
		int max = pass ? (int)(S / (2.2 * L.F)) : 6;
		if (max < 2)
			max = 2;
		if (max > 8)
			max = 8;
		for (size_t k = 0; k < nsc; k++)
			scale_ticks(&sc[k], o->metric, max, f, L.F);
		wS = (W - 2 * L.pad - content_width(&L, hp, np, sc, 0)) / (double)(np ? np : 1);
		hS = H - 2 * L.pad - content_height(&L, 0);
		S = W > 0 && H > 0 ? fmin(wS, hS) : W > 0 ? wS : hS;
		if (S < 2 * L.F)
			S = 2 * L.F;
	}
	if (!(W > 0))
		W = content_width(&L, hp, np, sc, S) + 2 * L.pad;
	if (!(H > 0))
		H = content_height(&L, S) + 2 * L.pad;

	tc_fig_begin(f, W, H);
	x = (W - content_width(&L, hp, np, sc, S)) / 2;
	y = (H - content_height(&L, S)) / 2;
	if (L.title_h > 0)
		tc_fig_text(f, W / 2, y + 1.1 * L.F, o->title,
			    tc_fig_fit(f, o->title, 1.1 * L.F, TC_TX_BOLD, W - 2 * L.pad),
			    TC_TX_CENTER | TC_TX_BOLD);
	y += L.title_h + L.sub_h + L.top_extra;
	x += L.yaxis_w;
	step = tc_rank_step(n, S, lab_w, 0.8 * L.F);
	if (step < tc_rank_step(n, S, 0, 1.4 * L.F))
		step = tc_rank_step(n, S, 0, 1.4 * L.F);
	for (size_t i = 0; i < np; i++) {
		const struct hm_scale *s = &sc[hp[i].scale];
		draw_panel(f, &L, &hp[i], s, x, y, S, step, i == 0);
		x += S;
		if (hp[i].bar && !s->empty) {
			draw_bar(f, &L, s, x + L.bar_gap, y, S);
			x += bar_block(&L, s);
		}
		x += L.gap;
	}
	rc = tc_fig_finish(f, o->title, out, err);
	for (size_t i = 0; i < np; i++)
		free(hp[i].d);
	free(hp);
	free(sc);
	return rc;
}
