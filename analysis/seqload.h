/*
 * seqload.h - shared by the align and diff commands: loading selected
 * ranks of a trace set as event sequences (align/align.h) or function
 * pairs in parallel, and clustering a whole trace set.
 */
#ifndef TC_ANALYSIS_SEQLOAD_H
#define TC_ANALYSIS_SEQLOAD_H

#include "lib/compat.h"

struct tc_aseq;
struct tc_clustering;
struct tc_cluster_opts;
struct tc_error;
struct tc_fpairs;
struct tc_pool;
struct tc_traceset;

/* Open DIR (or one FILE) as a trace set; a directory must be complete.
 * Returns 0 or fills err. */
int tc_open_set(const char *path, unsigned flags, struct tc_pool *pool,
		struct tc_traceset **ts, struct tc_error *err);

/* Index of rank's file in ts, or SIZE_MAX. */
size_t tc_set_index(const struct tc_traceset *ts, int32_t rank);

/*
 * Read the files idx[0..n) of ts as event sequences, in parallel; seqs
 * gets n new sequences (free each with tc_aseq_free). A rank with more
 * than max_events events (0: no limit) is an error. Returns 0, or the
 * error of the first file in idx order that failed.
 */
int tc_load_aseqs(const struct tc_traceset *ts, struct tc_pool *pool, const size_t *idx,
		  size_t n, uint64_t max_events, int key, struct tc_aseq **seqs,
		  struct tc_error *err);

/* Read file i of ts into *seq on the calling thread. */
int tc_load_aseq(const struct tc_traceset *ts, size_t i, uint64_t max_events, int key,
		 struct tc_aseq **seq, struct tc_error *err);

/*
 * Cluster every rank of ts with the clustering mode named mode
 * (cluster/cluster.h) and its options copts (NULL: the defaults), the
 * ranks' signatures and traces as input. cl
 * must be initialised (tc_clustering_init); release it either way.
 */
int tc_cluster_set(const struct tc_traceset *ts, struct tc_pool *pool, const char *mode,
		   const struct tc_cluster_opts *copts, struct tc_clustering *cl,
		   struct tc_error *err);

/* The function pairs of files idx[0..n) (of every file when idx is NULL
 * and n == ts->nfiles); fp gets n new sets. */
int tc_load_fpairs(const struct tc_traceset *ts, struct tc_pool *pool, const size_t *idx,
		   size_t n, struct tc_fpairs **fp, struct tc_error *err);

#endif
