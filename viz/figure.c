/*
 * figure.c - the one adapter to Cairo: a page in points drawn once and
 * written as PDF, SVG or PNG.
 *
 * Every format comes from the same drawing calls on a Cairo surface: PDF
 * and SVG are vector surfaces of the page's size in points, PNG an image
 * surface of the page at its dpi (the drawing scaled by dpi / 72). Text
 * is measured with hinted metrics off, so that a layout is the same in
 * every format. Output carries no date: a PDF has no creation date, so
 * the same figure is the same bytes on every run.
 */
#include "lib/compat.h"
#include "viz/viz.h"
#include "viz/internal.h"
#include "lib/error.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIG_FONT_FAMILY "sans-serif"
/* DejaVu Sans: capital letters and digits stand 0.73 em high */
#define FIG_CAP_HEIGHT 0.73
/* vector formats: small images are scaled up to at least this many
 * pixels across, so that viewers that smooth images anyway keep the
 * cells sharp */
#define FIG_IMAGE_MIN_PX 1024u

struct tc_fig {
	int format;
	double dpi, font;
	double w, h;
	cairo_surface_t *surf;
	cairo_t *cr;
	cairo_font_options_t *fopts;
	struct tc_strbuf data;   /* what a PDF or SVG surface writes */
};

static cairo_status_t write_data(void *closure, const unsigned char *data, unsigned int len)
{
	tc_strbuf_add(closure, data, len);
	return CAIRO_STATUS_SUCCESS;
}

static void set_font(struct tc_fig *f, double size, unsigned flags)
{
	cairo_select_font_face(f->cr, FIG_FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL,
			       (flags & TC_TX_BOLD) ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(f->cr, size);
	cairo_set_font_options(f->cr, f->fopts);
}

struct tc_fig *tc_fig_new(const struct tc_fig_page *p)
{
	struct tc_fig *f = tc_xcalloc(1, sizeof(*f));

	f->format = p->format;
	f->dpi = p->dpi > 0 ? p->dpi : TC_FIG_DPI_DEFAULT;
	f->font = p->font > 0 ? p->font : TC_FIG_FONT_DEFAULT;
	f->fopts = cairo_font_options_create();
	cairo_font_options_set_hint_metrics(f->fopts, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(f->fopts, CAIRO_HINT_STYLE_NONE);
	/* until tc_fig_begin: a scratch surface to measure text on */
	f->surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	f->cr = cairo_create(f->surf);
	return f;
}

void tc_fig_free(struct tc_fig *f)
{
	if (!f)
		return;
	cairo_destroy(f->cr);
	cairo_surface_destroy(f->surf);
	cairo_font_options_destroy(f->fopts);
	tc_strbuf_release(&f->data);
	free(f);
}

static int png_px(double pt, double dpi)
{
	double px = ceil(pt * dpi / 72.0 - 1e-6);

	return px < 1 ? 1 : px > TC_FIG_PNG_MAX_PX ? TC_FIG_PNG_MAX_PX + 1 : (int)px;
}

void tc_fig_begin(struct tc_fig *f, double w, double h)
{
	cairo_destroy(f->cr);
	cairo_surface_destroy(f->surf);
	f->w = w;
	f->h = h;
	switch (f->format) {
	case TC_FIG_PDF:
		f->surf = cairo_pdf_surface_create_for_stream(write_data, &f->data, w, h);
		/* no creation date: the same figure is the same bytes */
		cairo_pdf_surface_set_metadata(f->surf, CAIRO_PDF_METADATA_CREATE_DATE, "");
		cairo_pdf_surface_set_metadata(f->surf, CAIRO_PDF_METADATA_CREATOR,
					       "tracecluster " TC_VERSION);
		break;
	case TC_FIG_SVG:
		f->surf = cairo_svg_surface_create_for_stream(write_data, &f->data, w, h);
		break;
	default:
		f->surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, png_px(w, f->dpi),
						     png_px(h, f->dpi));
		break;
	}
	f->cr = cairo_create(f->surf);
	if (f->format == TC_FIG_PNG)
		cairo_scale(f->cr, f->dpi / 72.0, f->dpi / 72.0);
	cairo_set_source_rgb(f->cr, 1, 1, 1);
	cairo_paint(f->cr);
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

/* The SVG as Cairo wrote it with a <title> first in the root element
 * (Cairo writes the drawing only; the title is what viewers and screen
 * readers show for it). */
static void svg_with_title(const struct tc_strbuf *svg, const char *title, struct tc_strbuf *out)
{
	const char *root = svg->buf ? strstr(svg->buf, "<svg") : NULL;
	const char *gt = root ? strchr(root, '>') : NULL;
	size_t head;

	if (!gt || !title || !*title) {
		tc_strbuf_add(out, svg->buf ? svg->buf : "", svg->len);
		return;
	}
	head = (size_t)(gt + 1 - svg->buf);
	tc_strbuf_add(out, svg->buf, head);
	tc_strbuf_addstr(out, "\n<title>");
	xml_text(out, title);
	tc_strbuf_addstr(out, "</title>");
	tc_strbuf_add(out, svg->buf + head, svg->len - head);
}

int tc_fig_finish(struct tc_fig *f, const char *title, struct tc_strbuf *out,
		  struct tc_error *err)
{
	cairo_status_t st;
	int rc = 0;

	if (f->format == TC_FIG_PDF && title && *title)
		cairo_pdf_surface_set_metadata(f->surf, CAIRO_PDF_METADATA_TITLE, title);
	cairo_destroy(f->cr);
	f->cr = NULL;
	if (f->format == TC_FIG_PNG) {
		cairo_surface_flush(f->surf);
		st = cairo_surface_status(f->surf);
		if (st == CAIRO_STATUS_SUCCESS)
			st = cairo_surface_write_to_png_stream(f->surf, write_data, &f->data);
		if (st == CAIRO_STATUS_SUCCESS)
			tc_png_set_dpi(&f->data, f->dpi);
	} else {
		cairo_surface_finish(f->surf);
		st = cairo_surface_status(f->surf);
	}
	if (st != CAIRO_STATUS_SUCCESS)
		rc = tc_error_set(err, TC_ERR, NULL, -1, "cannot draw the figure: %s",
				  cairo_status_to_string(st));
	else if (f->format == TC_FIG_SVG)
		svg_with_title(&f->data, title, out);
	else
		tc_strbuf_add(out, f->data.buf ? f->data.buf : "", f->data.len);
	tc_fig_free(f);
	return rc;
}

double tc_fig_font(const struct tc_fig *f)
{
	return f->font;
}

double tc_fig_text_width(struct tc_fig *f, const char *s, double size, unsigned flags)
{
	cairo_text_extents_t te;

	set_font(f, size, flags);
	cairo_text_extents(f->cr, s, &te);
	return te.x_advance;
}

double tc_fig_fit(struct tc_fig *f, const char *s, double size, unsigned flags, double maxw)
{
	double w = tc_fig_text_width(f, s, size, flags);

	if (w <= maxw || !(w > 0))
		return size;
	return fmax(size * maxw / w, 0.6 * size);
}

void tc_fig_text(struct tc_fig *f, double x, double y, const char *s, double size, unsigned flags)
{
	double w = tc_fig_text_width(f, s, size, flags), dx = 0, dy = 0;

	if ((flags & 3) == TC_TX_CENTER)
		dx = -w / 2;
	else if ((flags & 3) == TC_TX_RIGHT)
		dx = -w;
	if (flags & TC_TX_MIDDLE)
		dy = FIG_CAP_HEIGHT * size / 2;
	else if (flags & TC_TX_TOP)
		dy = FIG_CAP_HEIGHT * size;
	cairo_save(f->cr);
	cairo_translate(f->cr, x, y);
	if (flags & TC_TX_UP)
		cairo_rotate(f->cr, -M_PI / 2);
	cairo_set_source_rgb(f->cr, 0, 0, 0);
	cairo_move_to(f->cr, dx, dy);
	cairo_show_text(f->cr, s);
	cairo_restore(f->cr);
}

void tc_fig_fill(struct tc_fig *f, double x, double y, double w, double h, const uint8_t rgb[3])
{
	cairo_set_source_rgb(f->cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
	cairo_rectangle(f->cr, x, y, w, h);
	cairo_fill(f->cr);
}

void tc_fig_frame(struct tc_fig *f, double x, double y, double w, double h, double lw, uint8_t g)
{
	cairo_set_source_rgb(f->cr, g / 255.0, g / 255.0, g / 255.0);
	cairo_set_line_width(f->cr, lw);
	cairo_set_line_join(f->cr, CAIRO_LINE_JOIN_MITER);
	cairo_rectangle(f->cr, x, y, w, h);
	cairo_stroke(f->cr);
}

void tc_fig_line(struct tc_fig *f, double x0, double y0, double x1, double y1, double lw,
		 uint8_t g)
{
	cairo_set_source_rgb(f->cr, g / 255.0, g / 255.0, g / 255.0);
	cairo_set_line_width(f->cr, lw);
	cairo_set_line_cap(f->cr, CAIRO_LINE_CAP_BUTT);
	cairo_move_to(f->cr, x0, y0);
	cairo_line_to(f->cr, x1, y1);
	cairo_stroke(f->cr);
}

void tc_fig_image(struct tc_fig *f, double x, double y, double w, double h, const uint8_t *rgb,
		  uint32_t iw, uint32_t ih)
{
	uint32_t k = 1, sw, sh;
	cairo_surface_t *img;
	cairo_pattern_t *pat;
	unsigned char *px;
	int stride;

	if (!iw || !ih)
		return;
	if (f->format != TC_FIG_PNG && iw < FIG_IMAGE_MIN_PX && ih < FIG_IMAGE_MIN_PX)
		k = (FIG_IMAGE_MIN_PX + (iw > ih ? iw : ih) - 1) / (iw > ih ? iw : ih);
	sw = iw * k;
	sh = ih * k;
	img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)sw, (int)sh);
	if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(img);
		return;
	}
	cairo_surface_flush(img);
	px = cairo_image_surface_get_data(img);
	stride = cairo_image_surface_get_stride(img);
	for (uint32_t r = 0; r < sh; r++) {
		uint32_t *row = (uint32_t *)(void *)(px + (size_t)r * (size_t)stride);
		const uint8_t *src = rgb + (size_t)(r / k) * iw * 3;
		for (uint32_t c = 0; c < sw; c++) {
			const uint8_t *p = src + (size_t)(c / k) * 3;
			row[c] = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
		}
	}
	cairo_surface_mark_dirty(img);
	cairo_save(f->cr);
	cairo_translate(f->cr, x, y);
	cairo_scale(f->cr, w / sw, h / sh);
	cairo_set_source_surface(f->cr, img, 0, 0);
	pat = cairo_get_source(f->cr);
	cairo_pattern_set_filter(pat, CAIRO_FILTER_NEAREST);
	cairo_rectangle(f->cr, 0, 0, sw, sh);
	cairo_fill(f->cr);
	cairo_restore(f->cr);
	cairo_surface_destroy(img);
}
