/*
 * load.c - read a trace set into per-rank compressed traces, in parallel.
 */
#include "lib/compat.h"
#include "formats/load.h"
#include "formats/raw.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/rsd.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct load_job {
	const struct tc_traceset *ts;
	const struct tc_rsd_opts *opts;
	tc_load_fn fn;
	void *ctx;
	struct tc_raw_stats *stats;
};

/* Read rank stream i of the set (opened as r) into a new trace. */
static int read_trace(struct tc_reader *r, const struct tc_rsd_opts *opts,
		      struct tc_rank_trace **out, struct tc_raw_stats *stats, struct tc_error *err)
{
	static const struct tc_read_ops ops = {
		tc_rank_trace_on_event, tc_rank_trace_on_callsite, tc_rank_trace_on_comm,
	};
	const struct tc_raw_header *h = tc_reader_header(r);
	struct tc_rank_trace *t = tc_rank_trace_new(h->rank, h->world_size, opts);
	struct tc_raw_stats rs;
	int rc;

	rc = tc_reader_read(r, &ops, t, &rs, err);
	tc_rsd_settle(t->seq);
	if (stats)
		*stats = rs;
	if (rc)
		tc_rank_trace_free(&t);
	*out = t;
	return rc;
}

static int load_one(size_t i, struct tc_reader *r, void *p, struct tc_error *err)
{
	struct load_job *job = p;
	struct tc_rank_trace *t;
	int rc = read_trace(r, job->opts, &t, job->stats ? &job->stats[i] : NULL, err);

	return rc ? rc : job->fn(i, t, job->ctx, err);
}

static const struct tc_load_remote *load_remote;

void tc_load_set_remote(const struct tc_load_remote *remote)
{
	load_remote = remote;
}

int tc_load_each_local(const struct tc_traceset *ts, struct tc_pool *pool,
		       const struct tc_rsd_opts *opts, tc_load_fn fn, void *ctx,
		       struct tc_raw_stats *stats, struct tc_error *err)
{
	struct load_job job = { ts, opts, fn, ctx, stats };

	if (stats)
		memset(stats, 0, ts->nfiles * sizeof(*stats));
	return tc_traceset_each(ts, pool, load_one, &job, err);
}

int tc_load_each(const struct tc_traceset *ts, struct tc_pool *pool,
		 const struct tc_rsd_opts *opts, tc_load_fn fn, void *ctx,
		 struct tc_raw_stats *stats, struct tc_error *err)
{
	if (load_remote)
		return load_remote->each(load_remote->self, ts, pool, opts, fn, ctx, stats, err);
	return tc_load_each_local(ts, pool, opts, fn, ctx, stats, err);
}

static int keep(size_t i, struct tc_rank_trace *t, void *ctx, struct tc_error *err)
{
	struct tc_rank_trace **all = ctx;

	(void)err;
	all[i] = t;
	return 0;
}

int tc_load_all(const struct tc_traceset *ts, struct tc_pool *pool,
		const struct tc_rsd_opts *opts, struct tc_rank_trace ***out,
		struct tc_raw_stats *stats, struct tc_error *err)
{
	struct tc_rank_trace **all = tc_xcalloc(ts->nfiles ? ts->nfiles : 1, sizeof(*all));
	int rc = tc_load_each(ts, pool, opts, keep, all, stats, err);

	if (rc) {
		tc_load_free_all(all, ts->nfiles);
		*out = NULL;
		return rc;
	}
	*out = all;
	return 0;
}

void tc_load_free_all(struct tc_rank_trace **traces, size_t n)
{
	if (!traces)
		return;
	for (size_t i = 0; i < n; i++)
		tc_rank_trace_free(&traces[i]);
	free(traces);
}

/* ---- ranks sharing their trace ------------------------------------------- */

/*
 * The classes of equal traces in an open-addressing table of 2n slots
 * (never rehashed, so a slot names its class for the whole load): a slot
 * holds the lowest file index of its class seen so far, plus one.
 */
struct shared_job {
	pthread_mutex_t lock;
	struct tc_load_shared *s;
	tc_load_fn peek;
	void *ctx;
	uint64_t *key;      /* per file: its digest (read at class heads) */
	uint32_t *slot;     /* per file: its class's slot */
	uint32_t *tab;
	size_t cap;
};

static int share_one(size_t i, struct tc_rank_trace *t, void *p, struct tc_error *err)
{
	struct shared_job *j = p;
	struct tc_load_shared *s = j->s;
	struct tc_rank_trace *drop = NULL;
	uint64_t key;
	size_t q;
	int rc = j->peek ? j->peek(i, t, j->ctx, err) : 0;

	if (rc) {
		tc_rank_trace_free(&t);
		return rc;
	}
	key = tc_rank_trace_digest(t);
	pthread_mutex_lock(&j->lock);
	for (q = key & (j->cap - 1);; q = (q + 1) & (j->cap - 1)) {
		size_t h;
		if (!j->tab[q]) {
			j->tab[q] = (uint32_t)i + 1;
			j->key[i] = key;
			s->traces[i] = t;
			s->nclasses++;
			break;
		}
		h = j->tab[q] - 1;
		if (j->key[h] != key || !tc_rank_trace_same(s->traces[h], t))
			continue;
		if (i < h) {
			/* the lowest index stands for the class, whatever the
			 * order the workers finish in */
			j->tab[q] = (uint32_t)i + 1;
			j->key[i] = key;
			s->traces[i] = t;
			drop = s->traces[h];
			s->traces[h] = NULL;
		} else {
			drop = t;
		}
		break;
	}
	j->slot[i] = (uint32_t)q;
	pthread_mutex_unlock(&j->lock);
	tc_rank_trace_free(&drop);
	return 0;
}

static size_t pow2_at_least(size_t n)
{
	size_t c = 16;

	while (c < n)
		c <<= 1;
	return c;
}

int tc_load_shared(const struct tc_traceset *ts, struct tc_pool *pool,
		   const struct tc_rsd_opts *opts, tc_load_fn peek, void *ctx,
		   struct tc_raw_stats *stats, struct tc_load_shared *out, struct tc_error *err)
{
	size_t n = ts->nfiles;
	struct shared_job j;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&j, 0, sizeof(j));
	out->n = n;
	out->traces = tc_xcalloc(n ? n : 1, sizeof(*out->traces));
	out->cls = tc_xcalloc(n ? n : 1, sizeof(*out->cls));
	pthread_mutex_init(&j.lock, NULL);
	j.s = out;
	j.peek = peek;
	j.ctx = ctx;
	j.cap = pow2_at_least(2 * n);
	j.key = tc_xcalloc(n ? n : 1, sizeof(*j.key));
	j.slot = tc_xcalloc(n ? n : 1, sizeof(*j.slot));
	j.tab = tc_xcalloc(j.cap, sizeof(*j.tab));
	rc = tc_load_each(ts, pool, opts, share_one, &j, stats, err);
	if (!rc) {
		for (size_t i = 0; i < n; i++) {
			out->cls[i] = j.tab[j.slot[i]] - 1;
			out->traces[i] = out->traces[out->cls[i]];
		}
	}
	pthread_mutex_destroy(&j.lock);
	free(j.key);
	free(j.slot);
	free(j.tab);
	if (rc) {
		/* only class heads hold a trace until the load ends */
		for (size_t i = 0; i < n; i++)
			out->cls[i] = (uint32_t)i;
		tc_load_shared_release(out);
	}
	return rc;
}

int tc_load_own(const struct tc_traceset *ts, const struct tc_rsd_opts *opts,
		const struct tc_load_shared *s, size_t i, struct tc_rank_trace **out,
		bool *fresh, struct tc_error *err)
{
	struct tc_reader *r;
	int rc;

	*fresh = false;
	*out = s->traces[i];
	if (s->cls[i] == i)
		return 0;
	if ((rc = tc_traceset_open_file(ts, i, &r, err)))
		return rc;
	rc = read_trace(r, opts, out, NULL, err);
	tc_reader_close(&r);
	*fresh = rc == 0;
	return rc;
}

void tc_load_shared_release(struct tc_load_shared *s)
{
	for (size_t i = 0; s->traces && i < s->n; i++)
		if (s->cls[i] == i)
			tc_rank_trace_free(&s->traces[i]);
	free(s->traces);
	free(s->cls);
	memset(s, 0, sizeof(*s));
}
