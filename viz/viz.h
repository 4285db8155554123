/*
 * viz.h - pictures and tables of communication: sender x receiver
 * matrices (heatmaps as SVG, PNG and CSV) and cluster topology pictures.
 *
 * Everything here takes in-memory data (matrices, events, clusterings)
 * and renders into a struct tc_strbuf; nothing opens files or prints.
 */
#ifndef TC_VIZ_H
#define TC_VIZ_H

#include "lib/compat.h"

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
 * each of its ranks (NULL: ranks 0 .. size-1 are world ranks). */
struct tc_matrix_comm {
	int32_t size;
	const int32_t *members; /* borrowed */
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
 *
 * Values: count 1 per message, bytes its bytes, time the microseconds of
 * the call (split evenly over the messages of a collective). A collective
 * on another communicator with comm NULL, or whose communicator does not
 * hold rank, adds nothing.
 */
void tc_matrix_add_event(struct tc_matrix *m, int32_t rank, const struct tc_event *ev, int metric,
			 bool collectives, const struct tc_matrix_comm *comm);

/* ---- heatmaps ----------------------------------------------------------- */

struct tc_heatmap_panel {
	const char *title;
	const struct tc_matrix *m;
	bool diverging;          /* signed values: blue - white - red */
};

struct tc_heatmap_opts {
	const char *title;
	const char *unit;        /* of the colour bar */
	uint32_t max_cells;      /* bins per axis at most (0: 128); ranks are
				  * grouped into equal runs past it and the bin
				  * holds their sum */
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
/* SVG: the panels side by side, each with axes (sender down, receiver
 * across), tick labels, a colour bar with the unit and a title; colour
 * map viridis (diverging panels: blue - white - red). */
void tc_heatmap_svg(const struct tc_heatmap_panel *p, size_t np, const struct tc_heatmap_opts *o,
		    struct tc_strbuf *out);
/* PNG (8-bit RGB, zlib): the panels' cells only, side by side. */
void tc_heatmap_png(const struct tc_heatmap_panel *p, size_t np, const struct tc_heatmap_opts *o,
		    struct tc_strbuf *out);

/* Colour maps: t in [0, 1] to RGB. */
void tc_viridis(double t, uint8_t rgb[3]);
void tc_diverging(double t, uint8_t rgb[3]);

/* PNG encoder: w x h RGB pixels (rows top down). */
void tc_png_encode(const uint8_t *rgb, uint32_t w, uint32_t h, struct tc_strbuf *out);

/* ---- cluster topology --------------------------------------------------- */

/*
 * SVG of nranks ranks laid out on a grid of dims[0] columns x dims[1]
 * rows (row-major rank order; ndims 1: a line), each square coloured by
 * its cluster (cluster_of[rank], -1: none) and labelled with its rank;
 * lead ranks outlined; a legend names each cluster (ICS'14 Fig. 4).
 */
void tc_topology_svg(int32_t nranks, const int32_t *cluster_of, const bool *is_lead,
		     size_t nclusters, const uint32_t *dims, int ndims, const char *title,
		     struct tc_strbuf *out);

#endif
