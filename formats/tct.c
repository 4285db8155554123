/*
 * tct.c - the global compressed trace format (.tct): what its forms share
 * (ranklist items, the checks every reader applies to what it read, the
 * reader state and its errors, the release of partly built nodes) and the
 * entry points that pick a form. The text form is in formats/tct_text.c,
 * the JSON form in formats/tct_json.c, the binary form in
 * formats/tct_bin.c. The format is specified in formats/tct.md.
 */
#include "lib/compat.h"
#include "formats/tct.h"
#include "formats/tct_internal.h"
#include "lib/error.h"
#include "lib/file.h"
#include "lib/event.h"
#include "lib/merge.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool item_same_shape(const struct rl_item *a, const struct rl_item *b)
{
	if (a->len != b->len || a->stride != b->stride || a->ndim != b->ndim)
		return false;
	for (uint32_t k = 0; k < a->ndim; k++)
		if (a->n[k] != b->n[k] || a->d[k] != b->d[k])
			return false;
	return true;
}

/* Group runs of items with the same shape and a constant shift. */
static size_t items_compact(struct rl_item *it, size_t n)
{
	size_t i = 0, k = 0;

	while (i < n) {
		size_t j = i + 1;
		if (it[i].ndim < RL_DIMS && j < n && item_same_shape(&it[i], &it[j])) {
			int64_t delta = it[j].start - it[i].start;
			while (j + 1 < n && item_same_shape(&it[i], &it[j + 1]) &&
			       it[j + 1].start - it[j].start == delta)
				j++;
			it[k] = it[i];
			it[k].n[it[k].ndim] = j - i + 1;
			it[k].d[it[k].ndim] = delta;
			it[k].ndim++;
			k++;
			i = j + 1;
			continue;
		}
		it[k++] = it[i++];
	}
	return k;
}

size_t tc_tct_rl_items(const struct tc_ranklist *rl, struct rl_item **out)
{
	struct rl_item *it = tc_xcalloc(rl->nruns ? rl->nruns : 1, sizeof(*it));
	size_t n = rl->nruns;

	for (size_t i = 0; i < n; i++) {
		it[i].start = rl->runs[i].start;
		it[i].len = rl->runs[i].len;
		it[i].stride = rl->runs[i].len > 1 ? rl->runs[i].stride : 1;
	}
	for (int pass = 0; pass < RL_DIMS; pass++) {
		size_t m = items_compact(it, n);
		if (m == n)
			break;
		n = m;
	}
	*out = it;
	return n;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* Move the ranks gathered as runs into b->v. */
static void rl_unsort(struct rl_build *b)
{
	b->unsorted = true;
	TC_ALLOC_GROW(b->v, b->runs.count + 1, b->alloc);
	tc_ranklist_expand(&b->runs, b->v);
	b->n = b->runs.count;
	tc_ranklist_release(&b->runs);
}

/* Add the ranks of an item; returns an error message or NULL. */
const char *tc_tct_rl_build_add(struct rl_build *b, const struct rl_item *it)
{
	uint64_t total = it->len, have = b->unsorted ? b->n : b->runs.count;
	uint64_t idx[RL_DIMS] = { 0 };

	if (!it->len)
		return "empty ranklist item";
	for (uint32_t k = 0; k < it->ndim; k++) {
		if (!it->n[k] || total > (uint64_t)b->world / it->n[k])
			return "ranklist item larger than the world";
		total *= it->n[k];
	}
	if (total > (uint64_t)b->world || have + total > (uint64_t)b->world)
		return "ranklist larger than the world";
	for (;;) {
		int64_t base = it->start, end;
		for (uint32_t k = 0; k < it->ndim; k++)
			base += (int64_t)idx[k] * it->d[k];
		/* |stride| * (len - 1) < world here: no overflow */
		end = base + (int64_t)(it->len - 1) * it->stride;
		if (base < 0 || base >= b->world || end < 0 || end >= b->world)
			return "rank out of range";
		if (!b->unsorted && (it->len == 1 || it->stride > 0) &&
		    (!b->runs.count || base > b->last)) {
			tc_ranklist_add_seq(&b->runs, (int32_t)base, (uint32_t)it->len,
					    (int32_t)it->stride);
			b->last = end;
		} else {
			if (!b->unsorted)
				rl_unsort(b);
			TC_ALLOC_GROW(b->v, b->n + it->len, b->alloc);
			for (uint64_t j = 0; j < it->len; j++)
				b->v[b->n++] = (int32_t)(base + (int64_t)j * it->stride);
		}
		{
			uint32_t k = 0;
			while (k < it->ndim && ++idx[k] == it->n[k])
				idx[k++] = 0;
			if (k == it->ndim)
				break;
		}
	}
	return NULL;
}

/* Sort, reject duplicates, make runs; returns an error message or NULL. */
const char *tc_tct_rl_build_finish(struct rl_build *b, struct tc_ranklist *rl)
{
	if (!b->unsorted) {
		*rl = b->runs;
		tc_ranklist_init(&b->runs);
	} else {
		if (b->n)
			qsort(b->v, b->n, sizeof(*b->v), cmp_i32);
		for (size_t i = 1; i < b->n; i++)
			if (b->v[i] == b->v[i - 1]) {
				free(b->v);
				b->v = NULL;
				return "rank listed twice";
			}
		tc_ranklist_init(rl);
		tc_ranklist_from_array(rl, b->v, b->n);
	}
	if (rl->nruns && rl->alloc > rl->nruns) {
		rl->runs = tc_xrealloc(rl->runs, rl->nruns * sizeof(*rl->runs));
		rl->alloc = rl->nruns;
	}
	free(b->v);
	b->v = NULL;
	return NULL;
}

void tc_tct_rl_build_release(struct rl_build *b)
{
	free(b->v);
	b->v = NULL;
	tc_ranklist_release(&b->runs);
}

/* ---- writing ------------------------------------------------------------ */

void tc_tct_format(const struct tc_gtrace *g, int form, struct tc_strbuf *out)
{
	if (form == TC_TCT_BINARY)
		tc_tct_bin_format(g, out);
	else if (form == TC_TCT_JSON)
		tc_tct_json_format(g, out);
	else
		tc_tct_text_format(g, out);
}

int tc_tct_write_file(const char *path, const char *data, size_t len, struct tc_error *err)
{
	return tc_write_file(path, data, len, err);
}

/* ---- reading: shared ---------------------------------------------------- */

int tc_tct_rd_fail(struct rd *r, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->line)
		return tc_error_set(r->err, TC_ERR_FORMAT, r->name, -1, "line %zu: %s", r->line, msg);
	return tc_error_set(r->err, TC_ERR_FORMAT, r->name, -1, "%s%s%s",
			    r->where ? r->where : "", r->where ? ": " : "", msg);
}

/* Range of a one-word parameter as tc_event holds it. */
static bool word_in_range(unsigned p, int64_t w)
{
	switch (p) {
	case TC_GP_COMM:
	case TC_GP_DTYPE:
	case TC_GP_DTYPE_SIZE:
	case TC_GP_REDOP:
	case TC_GP_NEWCOMM:
	case TC_GP_FILE:
		return w >= 0 && w <= UINT32_MAX;
	case TC_GP_TAG:
	case TC_GP_RTAG:
	case TC_GP_ROOT:
	case TC_GP_COLOR:
	case TC_GP_KEY:
	case TC_GP_RESULT:
		return w >= INT32_MIN && w <= INT32_MAX;
	case TC_GP_PEER:
	case TC_GP_RPEER:
		if (tc_rel_is_rank(w))
			return w >= -(int64_t)INT32_MAX && w <= INT32_MAX;
		return w - TC_REL_SPECIAL >= INT32_MIN && w - TC_REL_SPECIAL < 0;
	default:
		return true;
	}
}

/* Check every word of a value of parameter p (TC_GP_N: loop count). */
const char *tc_tct_val_check(unsigned p, const struct tc_gval *v)
{
	const int64_t *w;

	if (v->n == TC_GVAL_ABSENT)
		return p == TC_GP_N ? "loop count missing" : NULL;
	w = tc_gval_words(v);
	if (p == TC_GP_N)
		return v->n == 1 && w[0] > 0 ? NULL : "loop count must be a positive integer";
	switch (tc_gparam_kind(p)) {
	case TC_GPK_COMPL:
		if (v->n % 4)
			return "bad completion list";
		for (uint32_t i = 0; i < v->n; i += 4)
			if (!word_in_range(TC_GP_PEER, w[i + 1]) || w[i + 2] < INT32_MIN ||
			    w[i + 2] > INT32_MAX)
				return "completion out of range";
		return NULL;
	case TC_GPK_UARRAY:
		return NULL;
	default:
		if (v->n != 1)
			return "expected one value";
		return word_in_range(p, w[0]) ? NULL : "value out of range";
	}
}

bool tc_tct_occ_add_ok(uint64_t len, uint64_t add, uint64_t reps)
{
	if (reps && add > MAX_OCC / reps)
		return false;
	return len + add * reps <= MAX_OCC;
}

/* The parameter whose histogram or variants a line fills (TC_GP_N: a
 * loop count). */
bool tc_tct_kind_of(unsigned p, enum tc_gparam_kind *kind)
{
	if (p == TC_GP_N) {
		*kind = TC_GPK_UINT;
		return true;
	}
	*kind = tc_gparam_kind(p);
	return p < TC_GP_N;
}

/* A histogram read from a file is checked for consistency. */
const char *tc_tct_hist_check(const struct tc_hist *h)
{
	uint64_t total = 0;

	if (!h->nbins || h->nbins > TC_HIST_BINS_MAX)
		return "bad number of histogram bins";
	for (uint32_t k = 0; k < h->nbins; k++) {
		const struct tc_hbin *b = &h->bins[k];
		if (b->lo > b->hi || !b->n || (k && h->bins[k - 1].hi >= b->lo))
			return "histogram bins out of order";
		if (!isfinite(b->mean) || !isfinite(b->m2) || b->m2 < 0)
			return "bad histogram bin statistics";
		if (b->n > UINT64_MAX - total)
			return "histogram count overflow";
		total += b->n;
	}
	if (total != h->n)
		return "histogram bin counts do not add up";
	if (h->min > h->max || h->min > h->bins[0].lo || h->max < h->bins[h->nbins - 1].hi)
		return "histogram min/max inconsistent";
	if (!h->ranks.count)
		return "histogram without ranks";
	return NULL;
}

struct tc_gvar *tc_tct_gp_push(struct tc_gparam *gp)
{
	struct tc_gvar *v;

	if (gp->nvar == UINT32_MAX)
		return NULL;
	gp->var = tc_xrealloc(gp->var, tc_st_mult(gp->nvar + 1, sizeof(*gp->var)));
	v = &gp->var[gp->nvar++];
	memset(v, 0, sizeof(*v));
	v->val.n = TC_GVAL_ABSENT;
	return v;
}

bool tc_tct_rl_same(const struct tc_ranklist *a, const struct tc_ranklist *b)
{
	if (a->count != b->count || a->nruns != b->nruns)
		return false;
	for (size_t i = 0; i < a->nruns; i++)
		if (a->runs[i].start != b->runs[i].start || a->runs[i].len != b->runs[i].len ||
		    (a->runs[i].len > 1 && a->runs[i].stride != b->runs[i].stride))
			return false;
	return true;
}

/* Whether child's ranks lie within parent's. */
bool tc_tct_rl_within(const struct tc_ranklist *child, const struct tc_ranklist *parent)
{
	struct tc_ranklist u;
	bool ok;

	tc_ranklist_init(&u);
	tc_granks_union(&u, parent, child);
	ok = u.count == parent->count;
	tc_ranklist_release(&u);
	return ok;
}

const char *tc_tct_comm_check(const struct tc_gcomm *c, int32_t world)
{
	if (c->id <= TC_COMM_SELF)
		return "a communicator table entry of the world or self";
	if (!c->ranks.count)
		return "a communicator of no rank";
	if (c->creator >= TC_OP_MAX)
		return "a communicator's creator is not an operation";
	if (c->size > (uint32_t)world)
		return "a communicator larger than the world";
	if (c->ndims > 8 || c->periods >> c->ndims)
		return "a communicator's grid has more than 8 dimensions";
	for (uint32_t d = 0; d < c->ndims; d++)
		if (c->dims[d] < 1 || c->dims[d] > world)
			return "a communicator's grid has a bad dimension";
	for (uint32_t i = 0; c->members && i < c->size; i++)
		if (c->members[i] < 0 || c->members[i] >= world)
			return "a communicator's member is not a rank of the world";
	for (size_t i = 0; i < tc_gcomm_edge_words(c); i++)
		if (c->edges[i] < 0 || (i < (size_t)c->nin + c->nout && c->edges[i] >= (int32_t)c->size))
			return "a communicator's graph neighbour is not one of its ranks";
	return NULL;
}

struct tc_gtime *tc_tct_times_push(struct tc_gnode *nd)
{
	struct tc_gtime *t;

	if (nd->ntimes == UINT32_MAX)
		return NULL;
	nd->times = tc_xrealloc(nd->times, tc_st_mult((size_t)nd->ntimes + 1, sizeof(*nd->times)));
	t = &nd->times[nd->ntimes++];
	memset(t, 0, sizeof(*t));
	tc_ranklist_init(&t->ranks);
	return t;
}

/* Time entries of an event node (read after its ranks and n): non-empty,
 * disjoint, covering the node's ranks, their counts adding up to n; the
 * node's comp and comm become their merge. */
const char *tc_tct_times_check(struct tc_gnode *nd, uint64_t n)
{
	struct tc_ranklist u;
	uint64_t sum = 0;
	const char *msg = NULL;

	tc_ranklist_init(&u);
	for (uint32_t i = 0; i < nd->ntimes && !msg; i++) {
		uint64_t before = u.count;
		if (!nd->times[i].ranks.count)
			msg = "time entry without ranks";
		else if (!tc_tct_rl_within(&nd->times[i].ranks, &nd->ranks))
			msg = "time entry ranks outside the node's ranks";
		tc_granks_union(&u, &u, &nd->times[i].ranks);
		if (!msg && u.count != before + nd->times[i].ranks.count)
			msg = "time entries share ranks";
		if (!msg && sum + nd->times[i].comp.n < sum)
			msg = "time entry counts overflow";
		sum += nd->times[i].comp.n;
	}
	if (!msg && u.count != nd->ranks.count)
		msg = "time entries do not cover the node's ranks";
	if (!msg && sum != n)
		msg = "time entry counts do not add up to n";
	tc_ranklist_release(&u);
	if (!msg)
		tc_gnode_times_total(nd);
	return msg;
}

/* ---- reading: entry points ---------------------------------------------- */

/* Release what a node owns without the struct itself (it may be in an
 * array). Mirrors lib/merge.c's node release, for partly built nodes. */
void tc_tct_param_free_parts(struct tc_gparam *gp)
{
	for (uint32_t i = 0; i < gp->nvar; i++) {
		tc_ranklist_release(&gp->var[i].ranks);
		tc_gval_release(&gp->var[i].val);
		tc_gseq_free(gp->var[i].seq);
	}
	free(gp->var);
	if (gp->hist) {
		tc_hist_release(gp->hist);
		free(gp->hist);
	}
	memset(gp, 0, sizeof(*gp));
}

void tc_tct_node_free_parts(struct tc_gnode *nd)
{
	tc_ranklist_release(&nd->ranks);
	for (uint32_t i = 0; i < nd->ntimes; i++)
		tc_gtime_release(&nd->times[i]);
	free(nd->times);
	for (uint32_t i = 0; i < nd->nbody; i++)
		tc_tct_node_free_parts(&nd->body[i]);
	free(nd->body);
	tc_tct_param_free_parts(&nd->iters);
	if (nd->p) {
		for (unsigned p = 0; p < TC_GP_N; p++)
			tc_tct_param_free_parts(&nd->p[p]);
		free(nd->p);
	}
	memset(nd, 0, sizeof(*nd));
}

void tc_tct_rd_node_at(struct rd *r, size_t line)
{
	TC_ALLOC_GROW(r->node_line, r->nnode_line + 1, r->anode_line);
	r->node_line[r->nnode_line++] = line;
}

void tc_tct_rd_node_path(struct rd *r, const char *path)
{
	TC_ALLOC_GROW(r->node_path, r->nnode_path + 1, r->anode_path);
	r->node_path[r->nnode_path++] = tc_xstrdup(path);
}

static void rd_release_nodes(struct rd *r)
{
	free(r->node_line);
	for (size_t i = 0; i < r->nnode_path; i++)
		free(r->node_path[i]);
	free(r->node_path);
}

static uint64_t bound_limit(uint64_t events, uint64_t factor)
{
	uint64_t m = events > UINT64_MAX / factor ? UINT64_MAX : events * factor;

	return m > UINT64_MAX - BOUND_SLACK ? UINT64_MAX : m + BOUND_SLACK;
}

/*
 * Refuse a tree whose loops stand for far more than the header's event
 * count (lib/merge.h: tc_gtrace_check_bound), naming the loop: its line
 * in the text form, its pre-order number otherwise.
 */
static int check_bound(struct rd *r, const struct tc_gtrace *g)
{
	char where[300] = "the trace";
	uint32_t node;
	int over;

	over = tc_gtrace_check_bound(g, bound_limit(g->events, BOUND_EVENTS_FACTOR),
				     bound_limit(g->events, BOUND_WORK_FACTOR), &node);
	if (!over)
		return 0;
	if (node != UINT32_MAX && node < r->nnode_line)
		snprintf(where, sizeof(where), "the loop at %s %zu",
			 r->node_bytes ? "body byte" : "line", r->node_line[node]);
	else if (node != UINT32_MAX && node < r->nnode_path)
		snprintf(where, sizeof(where), "the loop at %s", r->node_path[node]);
	else if (node != UINT32_MAX)
		snprintf(where, sizeof(where), "loop node %" PRIu32, node);
	r->line = 0;
	r->where = NULL;
	return tc_error_set(r->err, TC_ERR_FORMAT, r->name, -1,
			    "%s: the rank lists and iteration counts imply far more %s than the "
			    "%" PRIu64 " events the header declares (over all %" PRIu64 " ranks)",
			    where, over == 1 ? "events" : "loop steps", g->events, g->ranks.count);
}

bool tc_tct_probe(const void *buf, size_t len)
{
	const char *s = buf;
	size_t i = 0;

	if (tc_tct_bin_probe(buf, len))
		return true;
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	if (i < len && s[i] == '{')
		return true;
	return len - i >= strlen(TC_TCT_MAGIC) && !memcmp(s + i, TC_TCT_MAGIC, strlen(TC_TCT_MAGIC));
}

bool tc_tct_file_probe(const char *path)
{
	char buf[64];
	ssize_t n;
	struct stat st;
	int fd;

	if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 && tc_tct_probe(buf, (size_t)n);
}

int tc_tct_parse(const char *buf, size_t len, const char *name, struct tc_gtrace **out,
		 struct tc_error *err)
{
	struct tc_error local;
	struct rd r;
	size_t i = 0;
	int rc;

	*out = NULL;
	if (!err)
		err = &local;
	tc_error_clear(err);
	memset(&r, 0, sizeof(r));
	r.name = name;
	r.err = err;
	r.g = tc_gtrace_new(0);
	if (tc_tct_bin_probe(buf, len)) {
		rc = tc_tct_bin_parse(&r, buf, len, name, r.g, err);
		goto parsed;
	}
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if (i < len && buf[i] == '{')
		rc = tc_tct_json_parse(&r, buf, len);
	else
		rc = tc_tct_text_parse(&r, buf, len);
parsed:
	if (rc) {
		if (!err->code)
			tc_error_set(err, TC_ERR_FORMAT, name, -1, "malformed global trace");
		rd_release_nodes(&r);
		tc_gtrace_free(&r.g);
		return rc;
	}
	tc_gtrace_finish(r.g);
	rc = check_bound(&r, r.g);
	rd_release_nodes(&r);
	if (rc) {
		tc_gtrace_free(&r.g);
		return rc;
	}
	*out = r.g;
	return 0;
}

int tc_tct_read(const char *path, struct tc_gtrace **out, struct tc_error *err)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "rb");
	char chunk[65536];
	size_t n;
	int rc;

	*out = NULL;
	if (!f)
		return tc_error_sys(err, path, "open");
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (sb.len + n > MAX_FILE) {
			if (!std)
				fclose(f);
			tc_strbuf_release(&sb);
			return tc_error_set(err, TC_ERR_FORMAT, path, -1, "file too large");
		}
		tc_strbuf_add(&sb, chunk, n);
	}
	if (ferror(f)) {
		rc = tc_error_sys(err, path, "read");
		if (!std)
			fclose(f);
		tc_strbuf_release(&sb);
		return rc;
	}
	if (!std)
		fclose(f);
	rc = tc_tct_parse(sb.buf ? sb.buf : "", sb.len, std ? "standard input" : path, out, err);
	tc_strbuf_release(&sb);
	return rc;
}
