/*
 * internal.h - shared by the files of the global trace (lib/gtrace/); not
 * public. The public interface is lib/merge.h.
 */
#ifndef TC_GTRACE_INTERNAL_H
#define TC_GTRACE_INTERNAL_H

#include "lib/compat.h"
#include "lib/merge.h"

/* ---- saturating arithmetic (weights, occurrence counts) ---------------- */

static inline uint64_t tc_gt_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static inline uint64_t tc_gt_sat_mul(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

/* ---- value sequences (seq.c) ------------------------------------------- */

/* Call fn for every value with how many occurrences it stands for. */
typedef void (*tc_gt_seq_visit_fn)(void *ctx, const struct tc_gval *v, uint64_t n);
void tc_gt_seq_visit(const struct tc_gseq *s, uint64_t mult, tc_gt_seq_visit_fn fn, void *ctx);

/* ---- histograms (hist.c) ----------------------------------------------- */

/* tc_hist_release and free; h may be NULL. */
void tc_gt_hist_free(struct tc_hist *h);

/* ---- parameters of a node (param.c) ------------------------------------ */

void tc_gt_param_release(struct tc_gparam *gp);
/* A new empty variant at the end of gp->var (value absent). */
struct tc_gvar *tc_gt_param_push(struct tc_gparam *gp);
/* Move src's variants and histogram into dst (src is left empty). */
void tc_gt_param_merge(struct tc_gparam *dst, struct tc_gparam *src);
/* Below 100% precision, values that differ within the precision go into
 * the histogram (Scala-H-Trace §4.4). */
void tc_gt_param_consolidate(struct tc_gparam *gp, enum tc_gparam_kind kind,
			     const struct tc_merge_opts *o);
/* The smallest value of a one-word parameter (loop counts), at least 1. */
uint64_t tc_gt_param_min(const struct tc_gparam *gp);

/* ---- nodes (node.c) ---------------------------------------------------- */

void tc_gt_node_release(struct tc_gnode *nd);
/* Shape hash and WLCS weight from op/site or the body. */
void tc_gt_node_update(struct tc_gnode *nd);
/* Same op and call site / same loop nesting, counts and values aside. */
bool tc_gt_shape_equal(const struct tc_gnode *a, const struct tc_gnode *b);
/* o = *in (NULL: defaults) with precision and bins made valid. */
void tc_gt_merge_opts_fix(struct tc_merge_opts *o, const struct tc_merge_opts *in);

#endif
