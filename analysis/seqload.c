/*
 * seqload.c - loading event sequences and function pairs of selected
 * ranks in parallel, clustering a whole trace set.
 */
#include "lib/compat.h"
#include "analysis/seqload.h"
#include "align/align.h"
#include "cluster/cluster.h"
#include "cluster/signature.h"
#include "formats/load.h"
#include "formats/raw.h"
#include "formats/reader.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int tc_open_set(const char *path, unsigned flags, struct tc_pool *pool,
		struct tc_traceset **ts, struct tc_error *err)
{
	struct stat st;

	if (tc_traceset_open(ts, path, flags, pool, err))
		return TC_ERR;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && tc_traceset_check(*ts, err)) {
		tc_traceset_free(ts);
		return TC_ERR;
	}
	return 0;
}

size_t tc_set_index(const struct tc_traceset *ts, int32_t rank)
{
	size_t lo = 0, hi = ts->nfiles;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ts->files[mid].hdr.rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ts->nfiles && ts->files[lo].hdr.rank == rank ? lo : SIZE_MAX;
}

struct load_job {
	const struct tc_traceset *ts;
	const size_t *idx;
	uint64_t max_events;
	int key;
	struct tc_aseq **seqs;
	struct tc_fpairs **fp;
	int *rc;
	struct tc_error *errs;
};

int tc_load_aseq(const struct tc_traceset *ts, size_t f, uint64_t max_events, int key,
		 struct tc_aseq **seq, struct tc_error *err)
{
	static const struct tc_read_ops ops = { tc_aseq_on_event, tc_aseq_on_callsite, NULL };
	const struct tc_traceset_file *tf = &ts->files[f];
	struct tc_reader *r;
	struct tc_aseq *s;
	int rc;

	*seq = NULL;
	rc = tc_traceset_open_file(ts, f, &r, err);
	if (rc)
		return rc;
	s = tc_aseq_new(tf->hdr.rank, tf->hdr.world_size);
	s->max_events = max_events;
	s->key = key;
	rc = tc_reader_read(r, &ops, s, NULL, err);
	if (s->truncated)
		rc = tc_error_set(err, TC_ERR, tf->path, -1,
				  "rank %" PRId32 " has more than %" PRIu64
				  " events (see --max-events)", tf->hdr.rank, max_events);
	tc_reader_close(&r);
	if (rc)
		tc_aseq_free(&s);
	*seq = s;
	return rc;
}

static void load_one(size_t i, void *p)
{
	struct load_job *j = p;
	size_t f = j->idx ? j->idx[i] : i;
	const struct tc_traceset_file *tf = &j->ts->files[f];
	struct tc_reader *r;
	int rc;

	if (j->seqs) {
		j->rc[i] = tc_load_aseq(j->ts, f, j->max_events, j->key, &j->seqs[i], &j->errs[i]);
		if (j->ts->progress)
			atomic_fetch_add(j->ts->progress, 1);
		return;
	}
	rc = tc_traceset_open_file(j->ts, f, &r, &j->errs[i]);
	if (!rc) {
		static const struct tc_read_ops ops = { tc_fpairs_on_event, tc_fpairs_on_callsite,
							NULL };
		struct tc_fpairs *fp = tc_fpairs_new(tf->hdr.rank);
		rc = tc_reader_read(r, &ops, fp, NULL, &j->errs[i]);
		tc_fpairs_count(fp); /* sort them here, on the worker */
		j->fp[i] = fp;
		tc_reader_close(&r);
	}
	j->rc[i] = rc;
	if (j->ts->progress)
		atomic_fetch_add(j->ts->progress, 1);
}

static int run_load(struct load_job *j, struct tc_pool *pool, size_t n, struct tc_error *err)
{
	int rc = 0;

	j->rc = tc_xcalloc(n ? n : 1, sizeof(*j->rc));
	j->errs = tc_xcalloc(n ? n : 1, sizeof(*j->errs));
	tc_pool_for(pool, n, load_one, j);
	for (size_t i = 0; i < n; i++)
		if (j->rc[i]) {
			rc = j->rc[i];
			if (err)
				*err = j->errs[i];
			break;
		}
	free(j->rc);
	free(j->errs);
	return rc;
}

int tc_load_aseqs(const struct tc_traceset *ts, struct tc_pool *pool, const size_t *idx,
		  size_t n, uint64_t max_events, int key, struct tc_aseq **seqs,
		  struct tc_error *err)
{
	struct load_job j;
	int rc;

	memset(&j, 0, sizeof(j));
	j.ts = ts;
	j.idx = idx;
	j.max_events = max_events;
	j.key = key;
	j.seqs = seqs;
	memset(seqs, 0, n * sizeof(*seqs));
	rc = run_load(&j, pool, n, err);
	if (rc)
		for (size_t i = 0; i < n; i++)
			tc_aseq_free(&seqs[i]);
	return rc;
}

int tc_load_fpairs(const struct tc_traceset *ts, struct tc_pool *pool, const size_t *idx,
		   size_t n, struct tc_fpairs **fp, struct tc_error *err)
{
	struct load_job j;
	int rc;

	memset(&j, 0, sizeof(j));
	j.ts = ts;
	j.idx = idx;
	j.fp = fp;
	memset(fp, 0, n * sizeof(*fp));
	rc = run_load(&j, pool, n, err);
	if (rc)
		for (size_t i = 0; i < n; i++)
			tc_fpairs_free(&fp[i]);
	return rc;
}

struct sig_keep {
	struct tc_signatures *sigs;
	struct tc_rank_trace **traces;
};

static int keep_one(size_t i, struct tc_rank_trace *t, void *ctx, struct tc_error *err)
{
	struct sig_keep *k = ctx;

	(void)err;
	tc_signatures_compute(t, &k->sigs[i]);
	k->traces[i] = t;
	return 0;
}

int tc_cluster_set(const struct tc_traceset *ts, struct tc_pool *pool, const char *mode,
		   const struct tc_cluster_opts *copts, struct tc_clustering *cl,
		   struct tc_error *err)
{
	const struct tc_cluster_mode *m = tc_cluster_mode_find(mode);
	struct tc_rsd_opts ro = { TC_RSD_WINDOW_DEFAULT, TC_RSD_MATCH_CALLSITE };
	struct tc_cluster_input in;
	struct tc_cluster_opts co;
	struct sig_keep k;
	int rc;

	if (!m)
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1, "unknown clustering mode '%s'",
				    mode);
	k.sigs = tc_xcalloc(ts->nfiles ? ts->nfiles : 1, sizeof(*k.sigs));
	k.traces = tc_xcalloc(ts->nfiles ? ts->nfiles : 1, sizeof(*k.traces));
	rc = tc_load_each(ts, pool, &ro, keep_one, &k, NULL, err);
	if (!rc) {
		in.sigs = k.sigs;
		in.n = ts->nfiles;
		in.traces = k.traces;
		if (copts)
			co = *copts;
		else
			tc_cluster_opts_init(&co);
		co.pool = pool;
		rc = tc_cluster_run(m, &in, &co, cl, err);
	}
	for (size_t i = 0; i < ts->nfiles; i++)
		tc_rank_trace_free(&k.traces[i]);
	free(k.traces);
	free(k.sigs);
	return rc;
}
