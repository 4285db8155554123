/*
 * topology.c - ranks on their process grid coloured by cluster (ICS'14
 * Fig. 4).
 */
#include "lib/compat.h"
#include "viz/viz.h"
#include "lib/strbuf.h"

#include <math.h>

/* A qualitative palette (Tableau 10, then Okabe-Ito's that differ most
 * from it), repeated. */
static const char *palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
	"#ff9da7", "#9c755f", "#bab0ac", "#56b4e9", "#009e73", "#f0e442", "#0072b2",
	"#d55e00", "#cc79a7", "#000000",
};
#define NPAL (sizeof(palette) / sizeof(palette[0]))

void tc_topology_svg(int32_t nranks, const int32_t *cluster_of, const bool *is_lead,
		     size_t nclusters, const uint32_t *dims, int ndims, const char *title,
		     struct tc_strbuf *out)
{
	uint32_t cols, rows;
	double cell, w, h, legend_x;

	if (ndims >= 2 && dims[0] && dims[1]) {
		cols = dims[0];
		rows = dims[1];
	} else {
		cols = nranks > 0 ? (uint32_t)nranks : 1;
		rows = 1;
	}
	cell = cols > 64 ? 8 : cols > 32 ? 14 : 32;
	legend_x = 20 + cols * cell + 24;
	w = legend_x + 180;
	h = 40 + rows * cell + 20;
	if (h < 60 + 18.0 * (double)(nclusters > 40 ? 41 : nclusters))
		h = 60 + 18.0 * (double)(nclusters > 40 ? 41 : nclusters);
	tc_strbuf_addf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		       "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
		       "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n", w, h, w, h);
	tc_strbuf_addstr(out, "<text x=\"20\" y=\"22\" font-size=\"15\" font-weight=\"bold\">");
	for (const char *s = title; s && *s; s++) {
		if (*s == '<')
			tc_strbuf_addstr(out, "&lt;");
		else if (*s == '&')
			tc_strbuf_addstr(out, "&amp;");
		else
			tc_strbuf_addch(out, *s);
	}
	tc_strbuf_addstr(out, "</text>\n");
	for (int32_t r = 0; r < nranks; r++) {
		uint32_t x = (uint32_t)r % cols, y = (uint32_t)r / cols;
		int32_t c = cluster_of[r];
		const char *fill = c >= 0 ? palette[(size_t)c % NPAL] : "#dddddd";
		bool lead = is_lead && is_lead[r];
		if (y >= rows)
			break;
		tc_strbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			       "fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"><title>rank %" PRId32
			       ", cluster %" PRId32 "%s</title></rect>\n",
			       20 + x * cell, 40 + y * cell, cell - 1, cell - 1, fill,
			       lead ? "#000000" : "#ffffff", lead ? "2" : "0.5", r, c,
			       lead ? " (lead)" : "");
		if (cell >= 32)
			tc_strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
				       "text-anchor=\"middle\">%" PRId32 "</text>\n",
				       20 + x * cell + cell / 2, 40 + y * cell + cell / 2 + 3, r);
	}
	for (size_t c = 0; c < nclusters && c < 40; c++) {
		double y = 40 + 18.0 * (double)c;
		tc_strbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n"
			       "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">cluster %zu</text>\n",
			       legend_x, y, palette[c % NPAL], legend_x + 18, y + 10, c);
	}
	if (nclusters > 40)
		tc_strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">and %zu more</text>\n",
			       legend_x, 40 + 18.0 * 40 + 10, nclusters - 40);
	tc_strbuf_addstr(out, "</svg>\n");
}
