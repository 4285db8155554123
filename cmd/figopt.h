/*
 * figopt.h - the options of the commands that draw figures (heatmap,
 * topology): the format, from --format or the output's extension, and
 * the page, --width, --height, --font-size and --dpi.
 */
#ifndef TC_CMD_FIGOPT_H
#define TC_CMD_FIGOPT_H

#include "lib/compat.h"

#include <getopt.h>

struct tc_fig_page;

#define TC_FIGOPT_WIDTH 0x4001
#define TC_FIGOPT_HEIGHT 0x4002
#define TC_FIGOPT_FONT 0x4003
#define TC_FIGOPT_DPI 0x4004

#define TC_FIG_LONGOPTS                                               \
	{ "width", required_argument, NULL, TC_FIGOPT_WIDTH },        \
	{ "height", required_argument, NULL, TC_FIGOPT_HEIGHT },      \
	{ "font-size", required_argument, NULL, TC_FIGOPT_FONT },     \
	{ "dpi", required_argument, NULL, TC_FIGOPT_DPI }

/* --width and --height; the command's defaults follow on a line of its own */
#define TC_FIG_HELP_SIZE                                                              \
	"      --width L, --height L\n"                                                 \
	"                      figure size, e.g. 3.3in, 8.5cm, 85mm, 240pt, 600px\n"
#define TC_FIG_HELP_TEXT                                                              \
	"      --font-size PT  text size in points (default 8)\n"                      \
	"      --dpi N         PNG pixels per inch (default 300; 96 for sizes in px)\n"

/* The page options as given. */
struct tc_fig_args {
	double w_pt, w_px, h_pt, h_px;
	double font, dpi;
};

/* Returns 1 when c was a page option (*rc: 0, or the usage status after
 * the message), else 0. */
int tc_fig_option(const char *cmd, int c, const char *arg, struct tc_fig_args *fa, int *rc);

/*
 * The format of a --format value (is_path false) or of a file's
 * extension (is_path true): TC_FIG_SVG, TC_FIG_PDF, TC_FIG_PNG, or for
 * one of data (the command's data formats, e.g. "csv") TC_FIG_NFORMATS +
 * its index. -1 for a --format value none of those, or a file named for
 * an image format no command writes (.jpg, .eps ...); any other file
 * name: TC_FIG_SVG.
 */
#define TC_FIG_NFORMATS 3
int tc_fig_format(const char *s, bool is_path, const char *const *data, size_t ndata);

/* Fill page for format (a TC_FIG_* format; data formats: ignored) from
 * fa: lengths in px are pixels at the dpi, which is 96 when every length
 * given is in px and --dpi is not. Returns 0, or the usage status after
 * the message (a PNG too large). */
int tc_fig_args_page(const char *cmd, const struct tc_fig_args *fa, int format,
		     struct tc_fig_page *page);

/* The format of output out without --format: its extension's
 * (tc_fig_format), SVG for stdout ("-"). Returns 0 with *format set, or
 * the usage status after "'OUT': CMD writes WHAT, not EXT ...". */
int tc_fig_out_format(const char *cmd, const char *out, const char *what,
		      const char *const *data, size_t ndata, int *format);

/* 0, or the usage status after the message, when a PDF or PNG would go
 * to a terminal without --force. */
int tc_fig_check_tty(const char *out, int format, bool force);

#endif
