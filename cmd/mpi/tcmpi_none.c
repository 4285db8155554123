/*
 * tcmpi_none.c - `compress --mode none` over MPI: the global trace of
 * every rank merged where the ranks' files are read, in the radix tree of
 * the single-process command (ScalaTrace's radix-tree merge, dissertation
 * ch. 3), not at process 0.
 *
 * tc_gtrace_merge_tree merges leaves 0 .. n-1 level by level: at level k
 * (step s = 2^k) the item at every index i that is a multiple of 2s takes
 * in the item at i + s, which holds the merge of leaves [i + s, i + 2s).
 * Here every process reads its share of the files (contiguous, as for
 * loading) and makes each rank's trace a leaf (tc_anl_none_leaf). An item
 * lives at the process whose share holds its index; at level k the item
 * at j = i + s whose left partner i lies in an earlier share is packed
 * (tc_gtrace_pack: unfinished traces merge on exactly) and sent to the
 * process holding i; every other merge of the level runs where both items
 * are, on the process's threads. Messages only go from later shares to
 * earlier ones, so no process waits on one that waits on it, and process 0
 * ends with the root: the same merges in the same order as one process
 * makes, the same bytes.
 *
 * Protocol after the REQ_NONE request and the shares: each other process
 * reads its share and sends process 0 one head message (its files'
 * communicator tables and read statistics, and its share's first failure);
 * process 0 broadcasts whether every file was read; then the tree's
 * messages (tag TAG_NONE_TREE + level) flow. Process 0 holds no rank's
 * trace, only the tables.
 */
#include "lib/compat.h"
#include "cmd/mpi/tcmpi.h"
#include "analysis/analysis.h"
#include "cmd/cmd.h"
#include "formats/load.h"
#include "formats/raw.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/merge.h"
#include "lib/pack.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/strbuf.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The tag of the root when it is handed to process 0 (whose share is
 * empty when there are fewer files than processes). */
#define TAG_NONE_ROOT (TAG_NONE_TREE + 64)

/* One process's share: its leaves, then the subtrees they merge into
 * (items[i - lo] for file i), and the tables and statistics of its files. */
struct part {
	size_t lo, hi, n;          /* share [lo, hi) of n files */
	struct tc_gtrace **items;
	struct tc_rank_trace **tabs;
	struct tc_raw_stats *stats;
	bool *got;
	const struct tc_merge_opts *mo;
	int rc;                    /* the share's first failure */
	size_t bad;                /* its file's index */
	struct tc_error err;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int leaf_one(size_t k, struct tc_rank_trace *t, void *ctx, struct tc_error *err)
{
	struct part *p = ctx;

	(void)err;
	p->items[k] = tc_anl_none_leaf(t, p->mo, &p->tabs[k]);
	p->got[k] = true;
	return 0;
}

/* Read the files of share (a view of [p->lo, p->hi)) into p. */
static void part_read(struct part *p, const struct tc_traceset *share, struct tc_pool *pool,
		      const struct tc_rsd_opts *ro)
{
	size_t m = p->hi - p->lo;

	p->items = tc_xcalloc(m + 1, sizeof(*p->items));
	p->tabs = tc_xcalloc(m + 1, sizeof(*p->tabs));
	p->stats = tc_xcalloc(m + 1, sizeof(*p->stats));
	p->got = tc_xcalloc(m + 1, sizeof(*p->got));
	tc_error_clear(&p->err);
	p->rc = m ? tc_load_each_local(share, pool, ro, leaf_one, p, p->stats, &p->err) : 0;
	if (p->rc) {
		size_t k = 0;
		while (k < m && p->got[k])
			k++;
		p->bad = p->lo + k;
	}
}

static void part_free(struct part *p)
{
	size_t m = p->hi - p->lo;

	for (size_t k = 0; k < m; k++) {
		tc_gtrace_free(&p->items[k]);
		tc_rank_trace_free(&p->tabs[k]);
	}
	free(p->items);
	free(p->tabs);
	free(p->stats);
	free(p->got);
}

/* The process whose share holds file i of n (the last of those whose
 * share starts at or before i, which is never an empty one). */
static int owner(size_t n, size_t i)
{
	int a = 0, b = tcmpi_size - 1;

	while (a < b) {
		int m = a + (b - a + 1) / 2;
		size_t lo, hi;
		tcmpi_share(n, m, &lo, &hi);
		if (lo <= i)
			a = m;
		else
			b = m - 1;
	}
	return a;
}

/* ---- the radix tree -------------------------------------------------------- */

struct level {
	struct part *p;
	size_t step, first;        /* first: the level's first left index */
	struct tc_gtrace *right;   /* the right item received for the last left */
	size_t right_of;           /* that left's index */
};

static void merge_one(size_t k, void *ctx)
{
	struct level *lv = ctx;
	struct part *p = lv->p;
	size_t i = lv->first + k * 2 * lv->step;

	if (i + lv->step >= p->n)
		return;
	if (i == lv->right_of && lv->right)
		tc_gtrace_merge(p->items[i - p->lo], &lv->right, p->mo);
	else if (i + lv->step < p->hi)
		tc_gtrace_merge(p->items[i - p->lo], &p->items[i + lv->step - p->lo], p->mo);
}

static struct tc_gtrace *recv_trace(int source, int tag)
{
	struct tc_unpack u;
	struct tc_gtrace *g;
	size_t len;
	char *buf = tcmpi_recv(source, tag, true, &len);

	tc_unpack_init(&u, buf, len);
	g = tc_gtrace_unpack(&u);
	if (!g || !tc_unpack_done(&u)) {
		fprintf(stderr, "tracecluster-mpi: process %d: a damaged partial trace from process %d"
			" (%zu bytes)\n", tcmpi_rank, source, len);
		MPI_Abort(MPI_COMM_WORLD, 70);
	}
	free(buf);
	return g;
}

/* Pack item j (freed) and send it to process dest with tag; the buffer
 * and request are kept in *sb and *rq until the sends are waited for. */
static void send_item(struct part *p, size_t j, int dest, int tag, struct tc_strbuf *sb,
		      MPI_Request *rq)
{
	tc_gtrace_pack(p->items[j - p->lo], sb);
	tc_gtrace_free(&p->items[j - p->lo]);
	tcmpi_check_size(sb);
	MPI_CHECK(MPI_Isend(sb->buf, (int)sb->len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, rq),
		  "send a partial trace");
}

/* This process's part of the tree; process 0 gets the root. */
static struct tc_gtrace *tree_merge(struct part *p, struct tc_pool *pool)
{
	struct tc_strbuf sb[66];
	MPI_Request rq[66];
	int nsent = 0, level = 0;
	struct tc_gtrace *root = NULL;

	for (size_t step = 1; step < p->n && p->lo < p->hi; step *= 2, level++) {
		size_t two = 2 * step, j, i;
		struct level lv = { p, step, 0, NULL, SIZE_MAX };

		/* the share's first right item of the level, when its left is earlier */
		j = p->lo / two * two + step;
		if (j < p->lo)
			j += two;
		if (j < p->hi && j - step < p->lo) {
			tc_strbuf_init(&sb[nsent]);
			send_item(p, j, owner(p->n, j - step), TAG_NONE_TREE + level, &sb[nsent],
				  &rq[nsent]);
			nsent++;
		}
		/* the share's last left item, when its right is later */
		i = (p->hi - 1) / two * two;
		if (i >= p->lo && i + step >= p->hi && i + step < p->n) {
			lv.right = recv_trace(owner(p->n, i + step), TAG_NONE_TREE + level);
			lv.right_of = i;
		}
		lv.first = (p->lo + two - 1) / two * two;
		if (lv.first < p->hi)
			tc_pool_for(pool, (p->hi - lv.first + two - 1) / two, merge_one, &lv);
		tc_gtrace_free(&lv.right);
	}
	if (p->lo == 0 && p->hi > 0) {
		root = p->items[0];
		p->items[0] = NULL;
		if (tcmpi_rank != 0) {
			/* the first share is elsewhere: the root goes to process 0 */
			tc_strbuf_init(&sb[nsent]);
			tc_gtrace_pack(root, &sb[nsent]);
			tc_gtrace_free(&root);
			tcmpi_check_size(&sb[nsent]);
			MPI_CHECK(MPI_Isend(sb[nsent].buf, (int)sb[nsent].len, MPI_BYTE, 0,
					    TAG_NONE_ROOT, MPI_COMM_WORLD, &rq[nsent]),
				  "send the merged trace");
			nsent++;
		}
	} else if (tcmpi_rank == 0 && p->n) {
		root = recv_trace(owner(p->n, 0), TAG_NONE_ROOT);
	}
	MPI_CHECK(MPI_Waitall(nsent, rq, MPI_STATUSES_IGNORE), "send a partial trace");
	for (int k = 0; k < nsent; k++)
		tc_strbuf_release(&sb[k]);
	return root;
}

/* ---- the head messages: tables, statistics, failures ----------------------- */

/* Its files' read statistics and communicator tables after the head,
 * unless a file failed (then no tree is merged: the head is all). */
static void pack_head(struct tc_strbuf *sb, const struct part *p)
{
	size_t m = p->hi - p->lo;

	if (tcmpi_pack_head(sb, p->lo, m, p->rc, p->rc ? p->bad - p->lo : 0, &p->err))
		return;
	for (size_t k = 0; k < m; k++) {
		tc_pack_bytes(sb, &p->stats[k], sizeof(p->stats[k]));
		tc_rank_trace_pack(p->tabs[k], sb);
	}
}

/* One process's head into the command's arrays. */
static void give_head(const struct tc_traceset *ts, const char *msg, size_t len,
		      struct tc_rank_trace **tabs, struct tc_raw_stats *stats,
		      struct tcmpi_fail *fail)
{
	struct tc_unpack u;
	size_t lo, m;
	bool failed;

	tc_unpack_init(&u, msg, len);
	if (!tcmpi_unpack_head(&u, ts->nfiles, &lo, &m, fail, NULL, &failed))
		u.bad = true;
	for (size_t k = 0; k < m && !u.bad && !failed; k++) {
		size_t sn;
		const void *s = tc_unpack_bytes(&u, &sn);
		if (!s || sn != sizeof(struct tc_raw_stats))
			u.bad = true;
		else if (stats)
			memcpy(&stats[lo + k], s, sn);
		if (!u.bad)
			tabs[lo + k] = tc_rank_trace_unpack(&u);
	}
	if (!tc_unpack_done(&u)) {
		fprintf(stderr, "tracecluster-mpi: a damaged message of tables (%zu bytes)\n", len);
		MPI_Abort(MPI_COMM_WORLD, 70);
	}
	if (ts->progress)
		atomic_fetch_add(ts->progress, m);
}

static void req_opts(const struct req *rq, struct tc_rsd_opts *ro, struct tc_merge_opts *mo)
{
	ro->window = (uint32_t)rq->window;
	ro->match = (int)rq->match;
	mo->precision = rq->precision;
	mo->bins = (uint32_t)rq->bins;
	mo->filtering = rq->filtering != 0;
}

/* ---- process 0 --------------------------------------------------------------- */

static int none_run(void *self, const struct tc_traceset *ts, struct tc_pool *pool,
		    const struct tc_rsd_opts *ro, const struct tc_merge_opts *mo,
		    struct tc_rank_trace **tabs, struct tc_raw_stats *stats,
		    struct tc_gtrace **out, double *merge_s, struct tc_error *err)
{
	struct req rq;
	struct tc_rsd_opts rsd = { 0, 0 };
	struct tc_merge_opts merge;
	struct tc_traceset own = *ts;
	struct tcmpi_fail fail;
	struct part p;
	int go, others = tcmpi_size - 1;
	double t0;

	(void)self;
	if (ro)
		rsd = *ro;
	tcmpi_req_init(&rq, REQ_NONE, pool, &rsd, ts);
	rq.precision = mo->precision;
	rq.bins = mo->bins;
	rq.filtering = mo->filtering;
	req_opts(&rq, &rsd, &merge);
	tcmpi_start(&rq, ts);

	memset(&p, 0, sizeof(p));
	p.n = ts->nfiles;
	p.mo = &merge;
	tcmpi_share(p.n, 0, &p.lo, &p.hi);
	own.files = ts->files + p.lo;
	own.nfiles = p.hi - p.lo;
	part_read(&p, &own, pool, &rsd);
	tcmpi_fail_init(&fail);
	if (p.rc)
		tcmpi_fail_note(&fail, p.bad, p.rc, &p.err);
	for (size_t k = 0; k < p.hi - p.lo; k++) {
		if (stats)
			stats[p.lo + k] = p.stats[k];
		tabs[p.lo + k] = p.tabs[k];
		p.tabs[k] = NULL;
	}
	while (others--) {
		size_t len;
		char *msg = tcmpi_recv(MPI_ANY_SOURCE, TAG_NONE_HEAD, true, &len);
		give_head(ts, msg, len, tabs, stats, &fail);
		free(msg);
	}
	go = fail.index == SIZE_MAX;
	MPI_CHECK(MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD), "broadcast go");
	t0 = now_s();
	if (go)
		*out = tree_merge(&p, pool);
	*merge_s = now_s() - t0;
	if (go && tc_g.verbosity > 0)
		fprintf(stderr, "tracecluster-mpi: %zu ranks merged on %d processes in the radix "
			"tree (%.3f s)\n", ts->nfiles, tcmpi_size, *merge_s);
	part_free(&p);
	return tcmpi_fail_result(&fail, err);
}

const struct tc_none_remote tcmpi_none_remote = { none_run, NULL };

/* ---- the other processes ------------------------------------------------------ */

void tcmpi_serve_none(const struct req *rq)
{
	struct tc_traceset ts;
	struct tc_rsd_opts ro;
	struct tc_merge_opts mo;
	struct tc_pool *pool = tc_pool_new((unsigned)rq->threads);
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct part p;
	int go = 0;

	req_opts(rq, &ro, &mo);
	memset(&p, 0, sizeof(p));
	p.lo = tcmpi_recv_share(&ts);
	p.hi = p.lo + ts.nfiles;
	p.n = (size_t)rq->nfiles;
	p.mo = &mo;
	ts.progress = NULL;
	part_read(&p, &ts, pool, &ro);
	pack_head(&sb, &p);
	tcmpi_check_size(&sb);
	MPI_CHECK(MPI_Send(sb.buf, (int)sb.len, MPI_BYTE, 0, TAG_NONE_HEAD, MPI_COMM_WORLD),
		  "send tables");
	tc_strbuf_release(&sb);
	MPI_CHECK(MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD), "broadcast go");
	if (go) {
		struct tc_gtrace *root = tree_merge(&p, pool);
		tc_gtrace_free(&root);
	}
	part_free(&p);
	tcmpi_free_share(&ts);
	tc_pool_free(pool);
}
