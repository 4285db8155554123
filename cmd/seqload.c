/*
 * seqload.c - rank lists, loading event sequences and function pairs of
 * selected ranks in parallel, atomic output files.
 */
#include "lib/compat.h"
#include "cmd/seqload.h"
#include "align/align.h"
#include "cluster/cluster.h"
#include "cluster/signature.h"
#include "formats/load.h"
#include "formats/raw.h"
#include "formats/reader.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/file.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/strbuf.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int parse_int(const char *s, const char *end, int32_t *v)
{
	int64_t x = 0;

	if (s == end)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (*s - '0');
		if (x > INT32_MAX)
			return -1;
	}
	*v = (int32_t)x;
	return 0;
}

static int cmp_i32(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;

	return (a > b) - (a < b);
}

int tc_parse_ranks(const char *s, size_t max, int32_t **out, size_t *n, struct tc_error *err)
{
	int32_t *v = NULL, *sorted;
	size_t nv = 0, av = 0;
	const char *p = s;

	*out = NULL;
	*n = 0;
	for (;;) {
		const char *end = strchr(p, ',');
		const char *dash;
		int32_t lo, hi;

		if (!end)
			end = p + strlen(p);
		dash = memchr(p, '-', (size_t)(end - p));
		if (parse_int(p, dash ? dash : end, &lo) ||
		    (dash && parse_int(dash + 1, end, &hi))) {
			free(v);
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "expected ranks like 0,3,5-7, got '%s'", s);
		}
		if (!dash)
			hi = lo;
		if (hi < lo) {
			free(v);
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "descending range '%.*s'", (int)(end - p), p);
		}
		if ((uint64_t)nv + (uint64_t)(hi - lo) + 1 > max) {
			free(v);
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "more than %zu ranks in '%s'", max, s);
		}
		for (int64_t r = lo; r <= hi; r++) {
			TC_ALLOC_GROW(v, nv + 1, av);
			v[nv++] = (int32_t)r;
		}
		if (!*end)
			break;
		p = end + 1;
	}
	sorted = tc_xmalloc(nv * sizeof(*sorted));
	memcpy(sorted, v, nv * sizeof(*sorted));
	qsort(sorted, nv, sizeof(*sorted), cmp_i32);
	for (size_t i = 1; i < nv; i++)
		if (sorted[i] == sorted[i - 1]) {
			int32_t d = sorted[i];
			free(sorted);
			free(v);
			return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
					    "rank %" PRId32 " given twice", d);
		}
	free(sorted);
	*out = v;
	*n = nv;
	return 0;
}

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

int tc_write_output(const char *path, const char *data, size_t len, struct tc_error *err)
{
	return tc_write_file(path, data, len, err);
}
