/*
 * figopt.c - the figure options of heatmap and topology (see figopt.h).
 */
#include "lib/compat.h"
#include "cmd/figopt.h"
#include "cmd/cmd.h"
#include "viz/viz.h"

#include <string.h>
#include <strings.h>
#include <unistd.h>

static int parse_length(const char *cmd, const char *opt, const char *s, double *pt, double *px)
{
	if (tc_fig_length(s, pt, px) || *pt > 72 * 200.0 || *px > 1e6)
		return tc_usage_error(cmd, "%s: expected a length such as 3.3in, 8.5cm, 85mm, "
				      "240pt or 600px, got '%s'", opt, s);
	return 0;
}

int tc_fig_option(const char *cmd, int c, const char *arg, struct tc_fig_args *fa, int *rc)
{
	*rc = 0;
	switch (c) {
	case TC_FIGOPT_WIDTH:
		*rc = parse_length(cmd, "--width", arg, &fa->w_pt, &fa->w_px);
		return 1;
	case TC_FIGOPT_HEIGHT:
		*rc = parse_length(cmd, "--height", arg, &fa->h_pt, &fa->h_px);
		return 1;
	case TC_FIGOPT_FONT:
		if ((*rc = tc_parse_double(cmd, "--font-size", arg, &fa->font)))
			return 1;
		if (!(fa->font >= 1 && fa->font <= 100))
			*rc = tc_usage_error(cmd, "--font-size: %s is out of range (1 to 100 points)",
					     arg);
		return 1;
	case TC_FIGOPT_DPI:
		if ((*rc = tc_parse_double(cmd, "--dpi", arg, &fa->dpi)))
			return 1;
		if (!(fa->dpi >= 10 && fa->dpi <= 2400))
			*rc = tc_usage_error(cmd, "--dpi: %s is out of range (10 to 2400)", arg);
		return 1;
	}
	return 0;
}

int tc_fig_format(const char *s, bool is_path, const char *const *data, size_t ndata)
{
	static const char *const figs[TC_FIG_NFORMATS] = { "svg", "pdf", "png" };
	static const char *const other[] = { "eps", "ps", "jpg", "jpeg", "gif",
					     "tif", "tiff", "webp", "bmp" };
	const char *name = s;

	if (is_path) {
		const char *dot = strrchr(s, '.');
		if (!dot || strchr(dot, '/'))
			return TC_FIG_SVG;
		name = dot + 1;
	}
	for (int i = 0; i < TC_FIG_NFORMATS; i++)
		if (!strcasecmp(name, figs[i]))
			return i;
	for (size_t i = 0; i < ndata; i++)
		if (!strcasecmp(name, data[i]))
			return TC_FIG_NFORMATS + (int)i;
	if (!is_path)
		return -1;
	for (size_t i = 0; i < TC_ARRAY_SIZE(other); i++)
		if (!strcasecmp(name, other[i]))
			return -1;
	return TC_FIG_SVG;
}

int tc_fig_args_page(const char *cmd, const struct tc_fig_args *fa, int format,
		     struct tc_fig_page *page)
{
	double dpi = fa->dpi;

	memset(page, 0, sizeof(*page));
	page->format = format < TC_FIG_NFORMATS ? format : TC_FIG_SVG;
	if (!(dpi > 0))
		dpi = (fa->w_px > 0 || fa->h_px > 0) && !(fa->w_pt > 0) && !(fa->h_pt > 0)
			      ? 96 : TC_FIG_DPI_DEFAULT;
	page->dpi = dpi;
	page->width = fa->w_px > 0 ? fa->w_px * 72 / dpi : fa->w_pt;
	page->height = fa->h_px > 0 ? fa->h_px * 72 / dpi : fa->h_pt;
	page->font = fa->font;
	if (format == TC_FIG_PNG && (page->width * dpi / 72 > TC_FIG_PNG_MAX_PX ||
				     page->height * dpi / 72 > TC_FIG_PNG_MAX_PX))
		return tc_usage_error(cmd, "--width, --height, --dpi: a PNG is at most %d pixels "
				      "across and down", TC_FIG_PNG_MAX_PX);
	return 0;
}

int tc_fig_out_format(const char *cmd, const char *out, const char *what,
		      const char *const *data, size_t ndata, int *format)
{
	*format = strcmp(out, "-") ? tc_fig_format(out, true, data, ndata) : TC_FIG_SVG;
	if (*format < 0)
		return tc_usage_error(cmd, "'%s': %s writes %s, not %s (name the file .pdf, .svg or "
				      ".png, or give --format)", out, cmd, what, strrchr(out, '.') + 1);
	return 0;
}

int tc_fig_check_tty(const char *out, int format, bool force)
{
	if ((format == TC_FIG_PNG || format == TC_FIG_PDF) && !strcmp(out, "-") &&
	    isatty(STDOUT_FILENO) && !force) {
		tc_errorf("stdout is a terminal, not writing %s to it (use -o FILE or --force)",
			  format == TC_FIG_PNG ? "PNG" : "PDF");
		return TC_EXIT_USAGE;
	}
	return 0;
}
