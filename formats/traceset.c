/*
 * traceset.c - scanning, checking and parallel reading of a trace set.
 */
#include "lib/compat.h"
#include "formats/traceset.h"
#include "formats/foreign.h"
#include "lib/error.h"
#include "lib/hash.h"
#include "lib/event.h"
#include "lib/pool.h"
#include "lib/skew.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void tc_raw_rank_path(char *buf, size_t len, const char *dir, int32_t rank)
{
	snprintf(buf, len, "%s/rank-%05d.tcr", dir, (int)rank);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_file(const void *a, const void *b)
{
	const struct tc_traceset_file *x = a, *y = b;
	if (x->hdr.rank != y->hdr.rank)
		return x->hdr.rank < y->hdr.rank ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* ---- interned strings ---------------------------------------------------- */

/* Open addressing over the set's distinct strings, behind a lock (files
 * are opened on the pool). */
struct tc_strtab {
	pthread_mutex_t lock;
	char **slot;
	size_t cap, n;
};

static struct tc_strtab *strtab_new(void)
{
	struct tc_strtab *t = tc_xcalloc(1, sizeof(*t));

	pthread_mutex_init(&t->lock, NULL);
	t->cap = 16;
	t->slot = tc_xcalloc(t->cap, sizeof(*t->slot));
	return t;
}

static void strtab_free(struct tc_strtab **tp)
{
	struct tc_strtab *t = *tp;

	if (!t)
		return;
	for (size_t i = 0; i < t->cap; i++)
		free(t->slot[i]);
	free(t->slot);
	pthread_mutex_destroy(&t->lock);
	free(t);
	*tp = NULL;
}

static char **strtab_find(char **slot, size_t cap, const char *s)
{
	size_t i = (size_t)tc_hash64(s, strlen(s), 0) & (cap - 1);

	while (slot[i] && strcmp(slot[i], s))
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

/* The table's copy of s (s may be unterminated within len bytes). */
static const char *strtab_intern(struct tc_strtab *t, const char *s, size_t len)
{
	char *key = tc_xstrndup(s, strnlen(s, len)), **at;

	pthread_mutex_lock(&t->lock);
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap * 2;
		char **slot = tc_xcalloc(cap, sizeof(*slot));
		for (size_t i = 0; i < t->cap; i++)
			if (t->slot[i])
				*strtab_find(slot, cap, t->slot[i]) = t->slot[i];
		free(t->slot);
		t->slot = slot;
		t->cap = cap;
	}
	at = strtab_find(t->slot, t->cap, key);
	if (*at) {
		free(key);
	} else {
		*at = key;
		t->n++;
	}
	key = *at;
	pthread_mutex_unlock(&t->lock);
	return key;
}

/* ---- the first failure of a parallel loop --------------------------------- */

/* The error of the lowest-indexed item that failed, whatever the order the
 * workers run in, without an error record per item. */
struct first_err {
	pthread_mutex_t lock;
	size_t index;           /* SIZE_MAX: none */
	int rc;
	struct tc_error err;
};

static void first_err_init(struct first_err *f)
{
	pthread_mutex_init(&f->lock, NULL);
	f->index = SIZE_MAX;
	f->rc = 0;
	tc_error_clear(&f->err);
}

static void first_err_note(struct first_err *f, size_t i, int rc, const struct tc_error *e)
{
	pthread_mutex_lock(&f->lock);
	if (i < f->index) {
		f->index = i;
		f->rc = rc;
		f->err = *e;
	}
	pthread_mutex_unlock(&f->lock);
}

/* Returns the first failure's code (0: none) with *err filled. */
static int first_err_done(struct first_err *f, struct tc_error *err)
{
	pthread_mutex_destroy(&f->lock);
	if (f->rc && err)
		*err = f->err;
	return f->rc;
}

/* ---- opening ---------------------------------------------------------------- */

struct open_job {
	struct tc_traceset *ts;
	size_t first;
	unsigned flags;
	struct first_err fail;
};

static void keep_header(struct tc_traceset *ts, struct tc_traceset_file *f,
			const struct tc_raw_header *h)
{
	f->hdr.rank = h->rank;
	f->hdr.world_size = h->world_size;
	f->hdr.start_time_ns = h->start_time_ns;
	f->hdr.pid = h->pid;
	f->hdr.stack_depth = h->stack_depth;
	f->hdr.flags = h->flags;
	f->hdr.host = strtab_intern(ts->strings, h->host, sizeof(h->host));
	f->hdr.writer = strtab_intern(ts->strings, h->writer, sizeof(h->writer));
	f->hdr.clock = strtab_intern(ts->strings, h->clock, sizeof(h->clock));
}

static void open_one(size_t i, void *p)
{
	struct open_job *j = p;
	struct tc_traceset_file *f = &j->ts->files[j->first + i];
	struct tc_reader *r;
	struct tc_error e;
	struct stat st;
	int rc = tc_reader_open(&r, f->path, f->format, f->index, j->flags, &e);

	if (rc) {
		first_err_note(&j->fail, i, rc, &e);
		return;
	}
	keep_header(j->ts, f, tc_reader_header(r));
	tc_reader_close(&r);
	if (stat(f->path, &st) == 0)
		f->file_bytes = (uint64_t)st.st_size;
	/* a file holding every rank: each stream gets its share */
	if (f->format == TC_FMT_OTF2)
		f->file_bytes = tc_otf2_stream_bytes(f->path, f->index);
	else if (f->format == TC_FMT_SCALATRACE && f->hdr.world_size > 0) {
		uint64_t w = (uint64_t)f->hdr.world_size;
		f->file_bytes = f->file_bytes / w + (f->index == 0 ? f->file_bytes % w : 0);
	}
}

/* A file and rank stream the set will hold, before its header is read. */
struct cand {
	char *path;
	enum tc_format format;
	uint32_t index;
};

struct cands {
	struct cand *v;
	size_t n, alloc;
};

static void cand_add(struct cands *c, const char *path, enum tc_format fmt, uint32_t index)
{
	TC_ALLOC_GROW(c->v, c->n + 1, c->alloc);
	c->v[c->n].path = tc_xstrdup(path);
	c->v[c->n].format = fmt;
	c->v[c->n].index = index;
	c->n++;
}

static void cands_release(struct cands *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static char *join(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = tc_xmalloc(len);

	snprintf(p, len, "%s/%s", dir, name);
	return p;
}

/* Sorted names of the visible entries of dir. */
static int list_dir(const char *dir, char ***names, size_t *n, struct tc_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t alloc = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return tc_error_sys(err, dir, "open directory");
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		TC_ALLOC_GROW(*names, *n + 1, alloc);
		(*names)[(*n)++] = tc_xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_str);
	return 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The rank files PREFIX-NNNN.bin of a DUMPI .meta file. */
static int add_dumpi_set(struct cands *c, const char *meta, struct tc_error *err)
{
	struct tc_dumpi_meta m;
	char *dir, *slash;
	char **names;
	size_t n, plen, before = c->n;
	int rc;

	if ((rc = tc_dumpi_read_meta(meta, &m, err)))
		return rc;
	dir = tc_xstrdup(meta);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	rc = list_dir(dir, &names, &n, err);
	if (rc) {
		free(dir);
		return rc;
	}
	plen = strlen(m.prefix);
	for (size_t i = 0; i < n; i++) {
		char *p;
		if (strncmp(names[i], m.prefix, plen) || names[i][plen] != '-' ||
		    tc_dumpi_file_rank(names[i]) < 0)
			continue;
		p = join(dir, names[i]);
		cand_add(c, p, TC_FMT_DUMPI, 0);
		free(p);
	}
	free_names(names, n);
	free(dir);
	if (c->n == before)
		return tc_error_set(err, TC_ERR_FORMAT, meta, -1,
				    "no DUMPI files %s-NNNN.bin beside the .meta file", m.prefix);
	return 0;
}

/* Every rank stream of a ScalaTrace global trace. */
static int add_scalatrace(struct cands *c, const char *path, unsigned flags,
			  struct tc_error *err)
{
	int32_t world;
	int rc = tc_scalatrace_world(path, flags, &world, err);

	if (rc)
		return rc;
	for (int32_t r = 0; r < world; r++)
		cand_add(c, path, TC_FMT_SCALATRACE, (uint32_t)r);
	return 0;
}

/* Every rank stream of an OTF2 archive (path: its anchor file). */
static int add_otf2(struct cands *c, const char *path, struct tc_error *err)
{
	int32_t world;
	int rc = tc_otf2_world(path, &world, err);

	if (rc)
		return rc;
	for (int32_t r = 0; r < world; r++)
		cand_add(c, path, TC_FMT_OTF2, (uint32_t)r);
	return 0;
}

/* What one file holds (fmt forced or detected). */
static int scan_file(struct cands *c, const char *path, enum tc_format fmt, unsigned flags,
		     struct tc_error *err)
{
	if (fmt == TC_FMT_AUTO) {
		int f = tc_format_detect(path, err);
		if (f < 0)
			return TC_ERR_IO;
		fmt = (enum tc_format)f;
	}
	if (fmt == TC_FMT_SCALATRACE)
		return add_scalatrace(c, path, flags, err);
	if (fmt == TC_FMT_OTF2)
		return add_otf2(c, path, err);
	if (fmt == TC_FMT_DUMPI && has_suffix(path, ".meta"))
		return add_dumpi_set(c, path, err);
	cand_add(c, path, fmt, 0);
	return 0;
}

/*
 * What a directory holds: raw files (*.tcr); else a DUMPI trace (its
 * .meta file names the rank files); else an OTF2 archive (one anchor
 * file *.otf2 beside its traces/ directory); else ScalaTrace global
 * traces (every regular file whose first line is "RANKS:"). --format
 * picks one kind.
 */
static int scan_dir(struct cands *c, const char *dir, enum tc_format fmt, unsigned flags,
		    struct tc_error *err)
{
	char **names;
	size_t n, ntcr = 0, nmeta = 0, notf2 = 0;
	const char *meta = NULL, *anchor = NULL;
	int rc;

	if ((rc = list_dir(dir, &names, &n, err)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (has_suffix(names[i], ".tcr"))
			ntcr++;
		if (has_suffix(names[i], ".meta")) {
			nmeta++;
			meta = names[i];
		}
		if (has_suffix(names[i], ".otf2")) {
			char *p = join(dir, names[i]);
			if (is_regular(p)) {
				notf2++;
				anchor = names[i];
			}
			free(p);
		}
	}
	if (fmt == TC_FMT_RAW || (fmt == TC_FMT_AUTO && ntcr)) {
		for (size_t i = 0; i < n; i++) {
			char *p;
			if (!has_suffix(names[i], ".tcr"))
				continue;
			p = join(dir, names[i]);
			cand_add(c, p, TC_FMT_RAW, 0);
			free(p);
		}
		if (!c->n)
			rc = tc_error_set(err, TC_ERR_FORMAT, dir, -1,
					  "no trace files (*.tcr) in directory");
	} else if (nmeta && (fmt == TC_FMT_DUMPI || fmt == TC_FMT_AUTO)) {
		if (nmeta > 1) {
			rc = tc_error_set(err, TC_ERR_FORMAT, dir, -1,
					  "%zu DUMPI .meta files in directory: give one of them",
					  nmeta);
		} else {
			char *p = join(dir, meta);
			rc = add_dumpi_set(c, p, err);
			free(p);
		}
	} else if (fmt == TC_FMT_DUMPI) {
		rc = tc_error_set(err, TC_ERR_FORMAT, dir, -1, "no DUMPI .meta file in directory");
	} else if (notf2 && (fmt == TC_FMT_OTF2 || fmt == TC_FMT_AUTO)) {
		if (notf2 > 1) {
			rc = tc_error_set(err, TC_ERR_FORMAT, dir, -1,
					  "%zu OTF2 anchor files (*.otf2) in directory: give one of them",
					  notf2);
		} else {
			char *p = join(dir, anchor);
			rc = add_otf2(c, p, err);
			free(p);
		}
	} else if (fmt == TC_FMT_OTF2) {
		rc = tc_error_set(err, TC_ERR_FORMAT, dir, -1,
				  "no OTF2 anchor file (*.otf2) in directory");
	} else {
		for (size_t i = 0; i < n && !rc; i++) {
			char *p = join(dir, names[i]);
			if (is_regular(p)) {
				int f = tc_format_detect(p, err);
				if (f < 0)
					rc = TC_ERR_IO;
				else if (f == TC_FMT_SCALATRACE)
					rc = add_scalatrace(c, p, flags, err);
			}
			free(p);
		}
		if (!rc && !c->n)
			rc = tc_error_set(err, TC_ERR_FORMAT, dir, -1,
					  fmt == TC_FMT_SCALATRACE ?
					  "no ScalaTrace trace (first line 'RANKS:') in directory" :
					  "no trace files (*.tcr) in directory");
	}
	free_names(names, n);
	return rc;
}

static const struct tc_headers_remote *headers_remote;

void tc_traceset_set_headers_remote(const struct tc_headers_remote *remote)
{
	headers_remote = remote;
}

int tc_traceset_headers_local(struct tc_traceset *ts, size_t first, size_t n,
			      struct tc_pool *pool, size_t *bad, struct tc_error *err)
{
	struct open_job job;
	int rc;

	if (!ts->strings)
		ts->strings = strtab_new();
	job.ts = ts;
	job.first = first;
	job.flags = ts->flags;
	first_err_init(&job.fail);
	tc_pool_for(pool, n, open_one, &job);
	if (bad)
		*bad = job.fail.index;
	rc = first_err_done(&job.fail, err);
	return rc;
}

void tc_traceset_set_header(struct tc_traceset *ts, size_t i, const struct tc_traceset_hdr *h,
			    uint64_t file_bytes)
{
	struct tc_traceset_file *f = &ts->files[i];

	if (!ts->strings)
		ts->strings = strtab_new();
	f->hdr = *h;
	f->hdr.host = strtab_intern(ts->strings, h->host, strlen(h->host) + 1);
	f->hdr.writer = strtab_intern(ts->strings, h->writer, strlen(h->writer) + 1);
	f->hdr.clock = strtab_intern(ts->strings, h->clock ? h->clock : "",
				     strlen(h->clock ? h->clock : "") + 1);
	f->file_bytes = file_bytes;
}

void tc_traceset_release_strings(struct tc_traceset *ts)
{
	strtab_free(&ts->strings);
}

int tc_traceset_open(struct tc_traceset **out, const char *path, unsigned flags,
		     struct tc_pool *pool, struct tc_error *err)
{
	return tc_traceset_open_format(out, path, TC_FMT_AUTO, flags, pool, err);
}

int tc_traceset_open_file(const struct tc_traceset *ts, size_t i, struct tc_reader **r,
			  struct tc_error *err)
{
	const struct tc_traceset_file *f = &ts->files[i];
	return tc_reader_open(r, f->path, f->format, f->index, ts->flags, err);
}

int tc_traceset_open_format(struct tc_traceset **out, const char *path,
			    enum tc_format fmt, unsigned flags, struct tc_pool *pool,
			    struct tc_error *err)
{
	struct tc_traceset *ts;
	struct stat st;
	struct cands c = { NULL, 0, 0 };
	size_t n, alloc_m = 0, alloc_d = 0;
	int rc = 0;
	size_t i;

	*out = NULL;
	if (stat(path, &st) < 0)
		return tc_error_sys(err, path, "open");
	if (S_ISDIR(st.st_mode))
		rc = scan_dir(&c, path, fmt, flags, err);
	else
		rc = scan_file(&c, path, fmt, flags, err);
	if (rc) {
		cands_release(&c);
		return rc;
	}
	n = c.n;
	ts = tc_xcalloc(1, sizeof(*ts));
	ts->dir = tc_xstrdup(path);
	ts->flags = flags;
	ts->format = fmt;
	ts->nfiles = n;
	ts->files = tc_xcalloc(n, sizeof(*ts->files));
	ts->strings = strtab_new();
	for (i = 0; i < n; i++) {
		ts->files[i].path = c.v[i].path;
		ts->files[i].format = c.v[i].format;
		ts->files[i].index = c.v[i].index;
	}
	free(c.v);
	if (headers_remote)
		rc = headers_remote->headers(headers_remote->self, ts, pool, err);
	else
		rc = tc_traceset_headers_local(ts, 0, n, pool, NULL, err);
	if (rc) {
		tc_traceset_free(&ts);
		return rc;
	}

	qsort(ts->files, n, sizeof(*ts->files), cmp_file);
	ts->world_size = ts->files[0].hdr.world_size;
	for (i = 0; i < n; i++)
		if (ts->files[i].hdr.world_size != ts->world_size)
			ts->nworld_mismatch++;
	{
		int32_t next = 0;
		for (i = 0; i < n; i++) {
			int32_t r = ts->files[i].hdr.rank;
			if (i && r == ts->files[i - 1].hdr.rank) {
				if (ts->nduplicates == 0 ||
				    ts->duplicates[ts->nduplicates - 1] != r) {
					TC_ALLOC_GROW(ts->duplicates, ts->nduplicates + 1, alloc_d);
					ts->duplicates[ts->nduplicates++] = r;
				}
				continue;
			}
			ts->ranks++;
			for (; next < r && next < ts->world_size; next++) {
				TC_ALLOC_GROW(ts->missing, ts->nmissing + 1, alloc_m);
				ts->missing[ts->nmissing++] = next;
			}
			next = r + 1;
		}
		for (; next < ts->world_size; next++) {
			TC_ALLOC_GROW(ts->missing, ts->nmissing + 1, alloc_m);
			ts->missing[ts->nmissing++] = next;
		}
	}
	if (ts->nmissing)
		qsort(ts->missing, ts->nmissing, sizeof(int32_t), cmp_i32);
	*out = ts;
	return 0;
}

void tc_traceset_free(struct tc_traceset **tsp)
{
	struct tc_traceset *ts = *tsp;

	if (!ts)
		return;
	*tsp = NULL;
	for (size_t i = 0; i < ts->nfiles; i++)
		free(ts->files[i].path);
	free(ts->files);
	strtab_free(&ts->strings);
	free(ts->missing);
	free(ts->duplicates);
	free(ts->dir);
	free(ts);
}

int tc_traceset_check(const struct tc_traceset *ts, struct tc_error *err)
{
	if (ts->nworld_mismatch) {
		for (size_t i = 0; i < ts->nfiles; i++)
			if (ts->files[i].hdr.world_size != ts->world_size)
				return tc_error_set(err, TC_ERR_FORMAT, ts->files[i].path, -1,
						    "world size %d differs from %d of '%s'",
						    ts->files[i].hdr.world_size, ts->world_size,
						    ts->files[0].path);
	}
	if (ts->nduplicates) {
		int32_t r = ts->duplicates[0];
		const char *a = NULL, *b = NULL;
		for (size_t i = 0; i < ts->nfiles; i++) {
			if (ts->files[i].hdr.rank != r)
				continue;
			if (!a)
				a = ts->files[i].path;
			else if (!b)
				b = ts->files[i].path;
		}
		return tc_error_set(err, TC_ERR_FORMAT, ts->dir, -1,
				    "rank %d appears twice ('%s' and '%s')", r, a, b);
	}
	if (ts->nmissing) {
		if (ts->nmissing == 1)
			return tc_error_set(err, TC_ERR_FORMAT, ts->dir, -1,
					    "rank %d missing (world size %d)",
					    ts->missing[0], ts->world_size);
		return tc_error_set(err, TC_ERR_FORMAT, ts->dir, -1,
				    "%zu ranks missing (first %d; world size %d)",
				    ts->nmissing, ts->missing[0], ts->world_size);
	}
	return 0;
}

struct each_job {
	const struct tc_traceset *ts;
	tc_traceset_fn fn;
	void *ctx;
	struct first_err fail;
};

static void each_one(size_t i, void *p)
{
	struct each_job *j = p;
	struct tc_reader *r;
	struct tc_error e;
	int rc = tc_traceset_open_file(j->ts, i, &r, &e);

	if (!rc) {
		rc = j->fn(i, r, j->ctx, &e);
		tc_reader_close(&r);
	}
	if (rc)
		first_err_note(&j->fail, i, rc, &e);
	if (j->ts->progress)
		atomic_fetch_add(j->ts->progress, 1);
}

int tc_traceset_each(const struct tc_traceset *ts, struct tc_pool *pool,
		     tc_traceset_fn fn, void *ctx, struct tc_error *err)
{
	struct each_job job;

	job.ts = ts;
	job.fn = fn;
	job.ctx = ctx;
	first_err_init(&job.fail);
	tc_pool_for(pool, ts->nfiles, each_one, &job);
	return first_err_done(&job.fail, err);
}

/* ---- stats ------------------------------------------------------------ */

struct stats_acc {
	struct tc_file_stats *st;
	uint64_t *sigs;
	size_t nsigs, alloc;
};

static int stats_event(void *p, const struct tc_event *ev)
{
	struct stats_acc *a = p;
	struct tc_file_stats *st = a->st;

	st->op_counts[ev->op & 255]++;
	if (ev->t_start < st->t_first)
		st->t_first = ev->t_start;
	if (ev->t_end > st->t_last)
		st->t_last = ev->t_end;
	st->msg_bytes += tc_event_bytes(ev);
	return 0;
}

static int stats_callsite(void *p, const struct tc_callsite *cs)
{
	struct stats_acc *a = p;

	TC_ALLOC_GROW(a->sigs, a->nsigs + 1, a->alloc);
	a->sigs[a->nsigs++] = cs->signature;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int stats_one(size_t i, struct tc_reader *r, void *ctx, struct tc_error *err)
{
	struct tc_file_stats *st = &((struct tc_file_stats *)ctx)[i];
	static const struct tc_read_ops ops = { stats_event, stats_callsite, NULL };
	struct stats_acc acc = { st, NULL, 0, 0 };
	struct tc_raw_stats rs;
	const struct tc_raw_header *h = tc_reader_header(r);
	int rc;

	st->t_first = UINT64_MAX;
	rc = tc_reader_read(r, &ops, &acc, &rs, err);
	if (rc) {
		free(acc.sigs);
		return rc;
	}
	if (st->t_first == UINT64_MAX)
		st->t_first = 0;
	st->events = rs.events;
	st->blocks = rs.blocks;
	st->file_bytes = rs.file_bytes;
	st->raw_bytes = rs.raw_bytes;
	st->has_trailer = rs.has_trailer;
	st->dropped = rs.trailer.dropped;
	st->tracer_ns = rs.trailer.tracer_ns;
	st->ntracer_op = rs.trailer.ntracer_op;
	memcpy(st->tracer_op, rs.trailer.tracer_op, sizeof(st->tracer_op));
	st->bad_blocks = rs.bad_blocks;
	st->bad_bytes = rs.bad_bytes;
	snprintf(st->salvage_msg, sizeof(st->salvage_msg), "%s", rs.first_error_msg);
	st->abs_first = h->start_time_ns + st->t_first;
	st->abs_last = h->start_time_ns + st->t_last;
	/* a call site may be defined twice (again with symbols): dedupe */
	if (acc.nsigs) {
		size_t k = 1;
		qsort(acc.sigs, acc.nsigs, sizeof(uint64_t), cmp_u64);
		for (size_t j = 1; j < acc.nsigs; j++)
			if (acc.sigs[j] != acc.sigs[k - 1])
				acc.sigs[k++] = acc.sigs[j];
		acc.nsigs = k;
	}
	st->sigs = acc.sigs;
	st->nsigs = acc.nsigs;
	return 0;
}

static const struct tc_stats_remote *stats_remote;

void tc_traceset_set_stats_remote(const struct tc_stats_remote *remote)
{
	stats_remote = remote;
}

int tc_traceset_stats_local(const struct tc_traceset *ts, struct tc_pool *pool,
			    struct tc_file_stats *st, struct tc_error *err)
{
	return tc_traceset_each(ts, pool, stats_one, st, err);
}

int tc_traceset_stats(const struct tc_traceset *ts, struct tc_pool *pool,
		      struct tc_file_stats **out, struct tc_error *err)
{
	struct tc_file_stats *st = tc_xcalloc(ts->nfiles ? ts->nfiles : 1, sizeof(*st));
	int rc = stats_remote ? stats_remote->stats(stats_remote->self, ts, pool, st, err)
			      : tc_traceset_stats_local(ts, pool, st, err);

	if (rc) {
		tc_file_stats_free(st, ts->nfiles);
		*out = NULL;
		return rc;
	}
	*out = st;
	return 0;
}

void tc_file_stats_free(struct tc_file_stats *st, size_t n)
{
	if (!st)
		return;
	for (size_t i = 0; i < n; i++)
		free(st[i].sigs);
	free(st);
}

bool tc_traceset_host_clock(const struct tc_traceset_file *f)
{
	return f->format == TC_FMT_RAW && f->hdr.host && f->hdr.host[0] && f->hdr.clock &&
	       f->hdr.clock[0] && strcmp(f->hdr.clock, "synthetic") && f->hdr.start_time_ns;
}

uint64_t *tc_traceset_skews(const struct tc_traceset *ts, const struct tc_raw_stats *st)
{
	const struct tc_traceset_file *f0 = ts->nfiles ? &ts->files[0] : NULL;
	uint64_t *start, *end, *skew;
	size_t n = ts->nfiles;

	if (!n || n != (size_t)ts->world_size || ts->nmissing || ts->nduplicates)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct tc_traceset_file *f = &ts->files[i];
		if (f->hdr.rank != (int32_t)i || !tc_traceset_host_clock(f) ||
		    strcmp(f->hdr.host, f0->hdr.host) || strcmp(f->hdr.clock, f0->hdr.clock) ||
		    !st[i].events)
			return NULL;
	}
	start = tc_xmalloc(tc_st_mult(n, 2 * sizeof(*start)));
	end = start + n;
	for (size_t i = 0; i < n; i++) {
		start[i] = ts->files[i].hdr.start_time_ns;
		end[i] = st[i].first_end;
	}
	skew = tc_xmalloc(tc_st_mult(n, sizeof(*skew)));
	if (!tc_clock_skews(n, start, end, skew)) {
		free(skew);
		skew = NULL;
	}
	free(start);
	return skew;
}

/* One file's gaps on the host's clock, as the replay passes them
 * (tc_gap_next). */
struct conc_file {
	int64_t off;               /* the file's start on the host's clock */
	int64_t *gaps;
	size_t n, alloc;
	struct tc_gap_cursor gc;
	atomic_size_t *total;      /* the gaps of every file so far */
};

struct conc_job {
	struct conc_file *f;
	atomic_size_t total;
};

static int conc_event(void *p, const struct tc_event *ev)
{
	struct conc_file *f = p;
	uint64_t from;

	if (tc_gap_next(&f->gc, ev, &from)) {
		if (atomic_fetch_add(f->total, 1) >= TC_CONC_MAX_GAPS)
			return TC_ERR_STOP;
		TC_ALLOC_GROW(f->gaps, 2 * f->n + 2, f->alloc);
		f->gaps[2 * f->n] = f->off + (int64_t)from;
		f->gaps[2 * f->n + 1] = f->off + (int64_t)ev->t_start;
		f->n++;
	}
	return 0;
}

static int conc_one(size_t i, struct tc_reader *r, void *ctx, struct tc_error *err)
{
	static const struct tc_read_ops ops = { .event = conc_event };
	struct conc_job *j = ctx;
	int rc = tc_reader_read(r, &ops, &j->f[i], NULL, err);

	return rc == TC_ERR_STOP ? 0 : rc;
}

int tc_traceset_concurrency(const struct tc_traceset *ts, struct tc_pool *pool, uint64_t **ns,
			    size_t *n, struct tc_error *err)
{
	struct conc_job j;
	uint64_t first = UINT64_MAX;
	int64_t *all = NULL;
	size_t total = 0;
	int rc;

	*ns = NULL;
	*n = 0;
	j.f = tc_xcalloc(ts->nfiles + 1, sizeof(*j.f));
	atomic_init(&j.total, 0);
	for (size_t i = 0; i < ts->nfiles; i++)
		if (ts->files[i].hdr.start_time_ns < first)
			first = ts->files[i].hdr.start_time_ns;
	for (size_t i = 0; i < ts->nfiles; i++) {
		j.f[i].off = (int64_t)(ts->files[i].hdr.start_time_ns - first);
		j.f[i].total = &j.total;
	}
	rc = tc_traceset_each(ts, pool, conc_one, &j, err);
	if (!rc && atomic_load(&j.total) <= TC_CONC_MAX_GAPS && ts->nfiles) {
		total = atomic_load(&j.total);
		all = tc_xmalloc(tc_st_mult(total ? total : 1, 2 * sizeof(*all)));
		for (size_t i = 0, at = 0; i < ts->nfiles; at += j.f[i].n, i++)
			if (j.f[i].n)
				memcpy(all + 2 * at, j.f[i].gaps, j.f[i].n * 2 * sizeof(*all));
		*ns = tc_xmalloc(tc_st_mult(ts->nfiles, sizeof(**ns)));
		*n = tc_gap_concurrency(all, total, *ns, ts->nfiles);
		if (!*n) {
			free(*ns);
			*ns = NULL;
		}
	}
	for (size_t i = 0; i < ts->nfiles; i++)
		free(j.f[i].gaps);
	free(j.f);
	free(all);
	return rc;
}
