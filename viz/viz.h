/*
 * viz.h - pictures and tables of communication: sender x receiver
 * matrices (heatmaps), message sizes and cluster topology pictures, as
 * figures (PDF, SVG, PNG) and CSV.
 *
 * Everything here takes in-memory data (matrices, events, clusterings)
 * and renders into a struct tc_strbuf; nothing opens files or prints.
 */
#ifndef TC_VIZ_H
#define TC_VIZ_H

#include "lib/compat.h"

struct tc_error;
struct tc_event;
struct tc_strbuf;

/* ---- communication matrices ------------------------------------------- */

/* One non-zero cell: src sent to dst. */
struct tc_mcell {
	int32_t src, dst;
	double v;
};

/* A sparse n x n matrix; after tc_matrix_finish the cells are sorted by
 * (src, dst), one per pair, and none is zero. */
struct tc_matrix {
	int32_t n;
	struct tc_mcell *cells;
	size_t ncells, alloc;
	size_t compacted;        /* cells sorted and combined so far */
	/* collectives left out: on a communicator other than the world
	 * whose members the source does not say (tc_anl_matrix) */
	uint64_t unmapped;
};

void tc_matrix_init(struct tc_matrix *m, int32_t n);
void tc_matrix_release(struct tc_matrix *m);
/* Add v to cell (src, dst); out-of-range cells are ignored. */
void tc_matrix_add(struct tc_matrix *m, int32_t src, int32_t dst, double v);
/* Append every cell of o (o unchanged). */
void tc_matrix_append(struct tc_matrix *m, const struct tc_matrix *o);
/* Sort, combine equal cells, drop zeros. */
void tc_matrix_finish(struct tc_matrix *m);
/* Value of a cell of a finished matrix (binary search). */
double tc_matrix_get(const struct tc_matrix *m, int32_t src, int32_t dst);
/* d = b - a (finished matrices of one size); d is initialised. */
void tc_matrix_diff(struct tc_matrix *d, const struct tc_matrix *a, const struct tc_matrix *b);
/* Sum of |v| and the largest |v| over the cells. */
void tc_matrix_norms(const struct tc_matrix *m, double *l1, double *max);

enum tc_hm_metric { TC_HM_COUNT = 0, TC_HM_BYTES, TC_HM_TIME };
/* "count", "bytes", "time"; the unit of its values ("messages", "bytes",
 * "us"). */
const char *tc_hm_metric_name(int metric);
const char *tc_hm_metric_unit(int metric);
int tc_hm_metric_from_name(const char *name);

/* A communicator as the matrices see it: its size and the world rank of
 * each of its ranks (NULL: ranks 0 .. size-1 are world ranks), and its
 * Cartesian topology if it has one (ndims 0: none), or the rank's
 * out-neighbours in a graph topology. */
struct tc_matrix_comm {
	int32_t size;
	const int32_t *members; /* borrowed */
	uint32_t ndims;
	const int32_t *dims;    /* borrowed: ndims extents */
	uint32_t periods;       /* bit d set: dimension d periodic */
	bool graph;             /* a graph topology with its edges recorded */
	uint32_t nout;
	const int32_t *out;     /* borrowed: the rank's nout destinations, ranks
				 * of the communicator in MPI's order */
};

/*
 * Add what one event of `rank` sends to the matrix (row `rank`):
 * point-to-point sends and the send side of sendrecv, one message to the
 * peer; with collectives, the collectives on comm (the event's
 * communicator, resolved by the caller; NULL: the world communicator of
 * m->n ranks, taken for events on communicator 0 only) as their
 * point-to-point equivalents from this rank's side, between the world
 * ranks of the communicator's members (P = its size, ranks below are its
 * ranks, k = the rank's bytes, per peer for v-variants):
 *
 *   bcast, scatter(v)   the root sends k (scatterv: its count) to each other rank
 *   reduce, gather(v)   each other rank sends k to the root
 *   allgather(v)        each rank sends k to every other rank
 *   alltoall(v,w)       each rank sends k (its count for that peer) to every other
 *   reduce_scatter      each rank sends its block for every other rank
 *   allreduce, barrier  dissemination: ceil(log2 P) rounds, round i to rank
 *                       (r + 2^i) mod P, k bytes (barrier: 0 bytes)
 *   scan, exscan        rank r sends k to r + 1
 *   neighbor_*          on a Cartesian communicator, each rank sends k (its
 *                       count for that neighbour) to each of its 2 * ndims
 *                       neighbours, in MPI's order (dimension by dimension,
 *                       the -1 then the +1 one; none past a non-periodic
 *                       edge); on a graph topology, to each of the
 *                       rank's out-neighbours (MPI_Dist_graph_neighbors'
 *                       destinations, in order); nothing when its edges
 *                       were not recorded
 *
 * Values: count 1 per message, bytes its bytes, time the microseconds of
 * the call (split evenly over the messages of a collective). A collective
 * on another communicator with comm NULL, or whose communicator does not
 * hold rank, adds nothing.
 */
void tc_matrix_add_event(struct tc_matrix *m, int32_t rank, const struct tc_event *ev, int metric,
			 bool collectives, const struct tc_matrix_comm *comm);

/* One message of an event: src sent bytes to dst, with its share of the
 * call's time in microseconds. */
typedef void (*tc_msg_fn)(void *ctx, int32_t src, int32_t dst, uint64_t bytes, double us);
/* Each message tc_matrix_add_event counts for ev of rank, among world
 * ranks (messages to or from ranks outside 0 .. world-1 left out), to fn
 * (metric aside: a message of 0 bytes is one too). */
void tc_event_messages(int32_t rank, const struct tc_event *ev, int32_t world, bool collectives,
		       const struct tc_matrix_comm *comm, tc_msg_fn fn, void *ctx);

/* ---- figures ----------------------------------------------------------- */

/*
 * Figures are drawn once through Cairo (viz/figure.c) and written as PDF,
 * SVG or PNG from the same drawing. Sizes are in points (1/72 in); text
 * keeps its size in points whatever the figure's size, as a figure
 * placed at 100% in a paper needs.
 */
enum tc_fig_format { TC_FIG_SVG = 0, TC_FIG_PDF, TC_FIG_PNG };

#define TC_FIG_FONT_DEFAULT 8.0   /* points */
#define TC_FIG_DPI_DEFAULT 300.0  /* PNG pixels per inch */
#define TC_FIG_PNG_MAX_PX 10000   /* pixels per side at most */
#define TC_FIG_ONE_COLUMN 237.6   /* 3.3 in: a figure one column wide */
#define TC_FIG_TWO_COLUMNS 504.0  /* 7 in: across both columns */

struct tc_fig_page {
	int format;              /* enum tc_fig_format */
	double width, height;    /* points; 0: the figure's default */
	double font;             /* points; 0: TC_FIG_FONT_DEFAULT */
	double dpi;              /* PNG; 0: TC_FIG_DPI_DEFAULT */
};

/* A length as papers give it: "3.3in", "8.5cm", "85mm", "240pt" into
 * *pt, or "600px" into *px (the caller knows the dpi). Returns 0, or -1
 * when s is not a positive number with one of those units. */
int tc_fig_length(const char *s, double *pt, double *px);

/* ---- heatmaps ----------------------------------------------------------- */

struct tc_heatmap_panel {
	const char *title;       /* "" or NULL: none */
	const struct tc_matrix *m;
	bool diverging;          /* signed values: blue - white - red */
};

struct tc_heatmap_opts {
	const char *title;       /* of the figure; "" or NULL: none */
	int metric;              /* enum tc_hm_metric: the values' unit */
	uint32_t max_cells;      /* bins per axis at most (0: 256); ranks are
				  * grouped into equal runs past it and the bin
				  * holds their sum */
	bool log;                /* log colour scale (sequential panels) */
	struct tc_fig_page page; /* width default: one column for one panel,
				  * two columns for more; height default: what
				  * square matrices need */
};

/* The ranks per bin for n ranks and at most max_cells bins per axis. */
uint32_t tc_heatmap_binning(int32_t n, uint32_t max_cells);

/* CSV, long form: "src,dst,COLUMN" (COLUMN names the metric and its
 * unit, e.g. "bytes", "time_us"), one row per non-zero cell, sorted. */
void tc_heatmap_csv(const struct tc_matrix *m, const char *column, struct tc_strbuf *out);
/* CSV of the diff: "src,dst,original_COLUMN,clustered_COLUMN,
 * difference_COLUMN", one row per cell non-zero in either. */
void tc_heatmap_csv_diff(const struct tc_matrix *a, const struct tc_matrix *b,
			 const char *column, struct tc_strbuf *out);
/* The CSV column of a metric: "messages", "bytes", "time_us". */
const char *tc_hm_metric_column(int metric);
/*
 * The panels side by side on one page: sender ranks down, receiver ranks
 * across, tick labels at round rank numbers (thinned so that they never
 * touch), axis titles, the figure's title over them and each panel's
 * own. Adjacent sequential panels share one colour scale and one colour
 * bar after the last of them (viridis; empty cells white; on a log scale
 * ticks at powers of ten); a diverging panel has its own (blue - white -
 * red, symmetric about 0, always linear). The bars carry the metric's
 * unit. An all-zero scale draws "no messages" or "no difference" and no
 * bar. Returns 0, or -1 with err filled when Cairo fails.
 */
int tc_heatmap_draw(const struct tc_heatmap_panel *p, size_t np, const struct tc_heatmap_opts *o,
		    struct tc_strbuf *out, struct tc_error *err);

/* Colour maps: t in [0, 1] to RGB. */
void tc_viridis(double t, uint8_t rgb[3]);
void tc_diverging(double t, uint8_t rgb[3]);

/* PNG encoder: w x h RGB pixels (rows top down). */
void tc_png_encode(const uint8_t *rgb, uint32_t w, uint32_t h, struct tc_strbuf *out);
/* Record dpi in a PNG (a pHYs chunk after IHDR), so that it prints at
 * the size it was drawn for. */
void tc_png_set_dpi(struct tc_strbuf *png, double dpi);

/* ---- message sizes ------------------------------------------------------ */

/* Bin 0: messages of 0 bytes; bin k >= 1: 2^(k-1) to 2^k - 1 bytes. */
#define TC_MSGHIST_BINS 65

struct tc_msghist {
	uint64_t messages[TC_MSGHIST_BINS];
	uint64_t bytes[TC_MSGHIST_BINS];
	double us[TC_MSGHIST_BINS];   /* time, as the time metric counts it */
};

void tc_msghist_init(struct tc_msghist *h);
unsigned tc_msghist_bin(uint64_t bytes);
/* The sizes bin k holds, lo to hi bytes. */
void tc_msghist_range(unsigned k, uint64_t *lo, uint64_t *hi);
void tc_msghist_add(struct tc_msghist *h, uint64_t bytes, double us);
void tc_msghist_merge(struct tc_msghist *h, const struct tc_msghist *o);
/* The bins from the first to the last non-empty one (*lo > *hi: none). */
void tc_msghist_span(const struct tc_msghist *h, unsigned *lo, unsigned *hi);
/* CSV: "size_min,size_max,messages,bytes,time_us", one row per bin of
 * the span. */
void tc_msghist_csv(const struct tc_msghist *h, struct tc_strbuf *out);

struct tc_msghist_opts {
	const char *title;       /* "" or NULL: none */
	int metric;              /* what the bars measure: count, bytes, time */
	bool log;                /* log value axis */
	struct tc_fig_page page; /* defaults: one column, 2/3 as high */
};
/* Bars over the bins of the span, sizes across (powers of two, B, KiB,
 * MiB ...), the metric up, with axis titles and round ticks. Returns 0,
 * or -1 with err filled when Cairo fails. */
int tc_msghist_draw(const struct tc_msghist *h, const struct tc_msghist_opts *o,
		    struct tc_strbuf *out, struct tc_error *err);

/* ---- cluster topology --------------------------------------------------- */

struct tc_topology_opts {
	const char *title;       /* "" or NULL: none */
	const char *note;        /* a line under the title (e.g. which grid and
				  * why); "" or NULL: none */
	struct tc_fig_page page; /* width default: one column; height: to fit */
};

/*
 * nranks ranks on a grid of cols x rows (row-major rank order), each a
 * square coloured by its cluster (cluster_of[rank], -1: none; a
 * qualitative palette, repeated past 17 clusters), lead ranks outlined,
 * the rank written in each square where it fits, else the first rank of
 * rows and the columns thinned along the edges; a legend names the
 * clusters with their sizes (ICS'14 Fig. 4). Returns 0, or -1 with err
 * filled when Cairo fails.
 */
int tc_topology_draw(int32_t nranks, const int32_t *cluster_of, const bool *is_lead,
		     size_t nclusters, uint32_t cols, uint32_t rows,
		     const struct tc_topology_opts *o, struct tc_strbuf *out, struct tc_error *err);

#endif
