/*
 * internal.h - what the figures of viz/ share: a page drawn through
 * Cairo (viz/figure.c, the only file that includes cairo.h) in points
 * (1/72 in), origin top left, and the axis arithmetic every figure uses.
 */
#ifndef TC_VIZ_INTERNAL_H
#define TC_VIZ_INTERNAL_H

#include "lib/compat.h"

struct tc_error;
struct tc_fig_page;
struct tc_strbuf;

/* ---- the page ------------------------------------------------------------ */

struct tc_fig;

/* Text placement, or-ed: horizontal anchor, vertical anchor, style. */
enum {
	TC_TX_LEFT = 0,
	TC_TX_CENTER = 1,
	TC_TX_RIGHT = 2,
	TC_TX_BASELINE = 0,
	TC_TX_MIDDLE = 4,        /* the middle of a capital letter or digit */
	TC_TX_TOP = 8,           /* the top of a capital letter or digit */
	TC_TX_BOLD = 16,
	TC_TX_UP = 32,           /* turned a quarter left, reading upwards; the
				  * anchors apply along and across the text as
				  * they would to it unturned */
};

/* Returns new: a figure for page p (format, dpi, font size), text
 * measurable at once; nothing drawn until tc_fig_begin. */
struct tc_fig *tc_fig_new(const struct tc_fig_page *p);
/* Start the page, w x h points, white. */
void tc_fig_begin(struct tc_fig *f, double w, double h);
/* Write the page to out as the page's format (SVG and PDF with title as
 * their title) and free f. Returns 0, or -1 with err filled. */
int tc_fig_finish(struct tc_fig *f, const char *title, struct tc_strbuf *out,
		  struct tc_error *err);
/* Free an unfinished figure; NULL is fine. */
void tc_fig_free(struct tc_fig *f);

/* The page's font size (points). */
double tc_fig_font(const struct tc_fig *f);
double tc_fig_text_width(struct tc_fig *f, const char *s, double size, unsigned flags);
/* size, or less (down to 60% of it) where s would be wider than maxw. */
double tc_fig_fit(struct tc_fig *f, const char *s, double size, unsigned flags, double maxw);
void tc_fig_text(struct tc_fig *f, double x, double y, const char *s, double size,
		 unsigned flags);
void tc_fig_fill(struct tc_fig *f, double x, double y, double w, double h, const uint8_t rgb[3]);
/* An outline of width lw, grey level g (0 black, 255 white). */
void tc_fig_frame(struct tc_fig *f, double x, double y, double w, double h, double lw, uint8_t g);
void tc_fig_line(struct tc_fig *f, double x0, double y0, double x1, double y1, double lw,
		 uint8_t g);
/* iw x ih RGB pixels (rows top down) drawn into the rectangle, each
 * pixel a sharp square (no smoothing). */
void tc_fig_image(struct tc_fig *f, double x, double y, double w, double h, const uint8_t *rgb,
		  uint32_t iw, uint32_t ih);

/* ---- axes ------------------------------------------------------------------ */

/* At most this many ticks on a colour bar or value axis. */
#define TC_TICKS_MAX 64

/*
 * The unit a range of values is shown in: values / scale, named by label
 * (e.g. "bytes (KiB)", "messages", "time (ms)"). Counts past 10^5 go in
 * thousands or millions, bytes in B, KiB, MiB, GiB or TiB, the
 * microseconds of the time metric in us, ms or s, each by the largest
 * value hi. With log, counts and bytes stay as they are and time goes in
 * seconds; the label says "log scale".
 */
struct tc_vunit {
	double scale;
	char label[48];
};
void tc_vunit_of(int metric, double hi, bool log, struct tc_vunit *u);

/* Round ticks over [lo, hi] (in the unit's numbers): a step of 1, 2 or 5
 * times a power of ten, at most max ticks, never below 1 when whole (counts
 * and bytes in B). Returns the number of ticks written to t. */
size_t tc_ticks_linear(double lo, double hi, int max, bool whole, double *t);
/* Decades over [lo, hi] (lo > 0): every power of ten in it, or every
 * 2nd, 5th, 10th ... one when more than max would be. */
size_t tc_ticks_log(double lo, double hi, int max, double *t);
/* A tick label: "%g" with no "-0"; on a log axis, 1, 10, 100, then 10³
 * (superscript digits) from 1000 on and 10⁻³ below 0.01. */
void tc_tick_label(double v, bool log, char *buf, size_t len);
/* The step between labelled ranks: 1, 2 or 5 times a power of ten, the
 * least that keeps labels of width w (points) at least gap apart when n
 * ranks span len points. */
int64_t tc_rank_step(int64_t n, double len, double w, double gap);
/* A byte count as "512 B", "4 KiB", "1 MiB" (powers of two exact). */
void tc_bytes_label(uint64_t b, char *buf, size_t len);

#endif
