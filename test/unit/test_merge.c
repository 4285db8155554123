/*
 * Unit tests of the inter-rank merge (lib/merge.h) and the global trace
 * format (formats/tct.h): the WLCS merge of Scala-H-Trace Alg. 1 on
 * hand-made sequences (loops with different counts, mismatched tails,
 * nested loops, the abbbbb/bbbbba example), exact expansion of every
 * rank, time statistics per rank set, value sequences, histograms and
 * their balancing, merge precision,
 * the radix tree's independence of the thread count, and the .tct readers
 * on malformed and mutated input.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "formats/tct.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/merge.h"
#include "lib/pack.h"
#include "lib/pool.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/strbuf.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- a rank's stream of hand-made events --------------------------------- */

/*
 * Letters stand for call sites: 'a' .. 'z' is call site letter - 'a' with
 * the op below; every event sends to the next rank (relative peer +1), so
 * that ranks doing the same thing share values.
 */
struct stream {
	int32_t rank;
	struct tc_rsd *rsd;
	struct tc_event *evs;
	size_t n, alloc;
	uint64_t clock;
	uint64_t req;
	uint64_t gap;           /* compute time before each event (0: 100 ns) */
};

static uint64_t sig_of(uint32_t site)
{
	return 0x5100000000000000ULL + 0x9e3779b97f4a7c15ULL * (site + 1);
}

static void stream_init(struct stream *s, int32_t rank, int match)
{
	struct tc_rsd_opts o = { 0, match };

	memset(s, 0, sizeof(*s));
	s->rank = rank;
	s->rsd = tc_rsd_new(rank, &o);
	for (uint32_t i = 0; i < 26; i++)
		tc_rsd_set_callsite(s->rsd, i, sig_of(i));
}

static void stream_release(struct stream *s)
{
	tc_rsd_free(&s->rsd);
	free(s->evs);
}

/* Feed one event of call site c with this count and tag. */
static void put_ct(struct stream *s, char c, uint64_t count, int32_t tag)
{
	struct tc_event ev;

	tc_event_init(&ev);
	ev.op = c == 'w' ? TC_OP_WAIT : (c % 2 ? TC_OP_ISEND : TC_OP_IRECV);
	ev.callsite = (uint32_t)(c - 'a');
	ev.fields = TC_F_COMM | TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE | TC_F_REQUEST;
	ev.comm = TC_COMM_WORLD;
	ev.peer = s->rank + 1;
	ev.tag = tag;
	ev.count = count;
	ev.dtype = TC_DT_INT;
	ev.dtype_size = 4;
	ev.request = ++s->req;
	ev.t_start = s->clock + (s->gap ? s->gap : 100);
	ev.t_end = ev.t_start + 10;
	s->clock = ev.t_end;
	tc_rsd_add(s->rsd, &ev);
	TC_ALLOC_GROW(s->evs, s->n + 1, s->alloc);
	s->evs[s->n++] = ev;
}

static void put(struct stream *s, char c)
{
	put_ct(s, c, 64, 7);
}

/* Feed a string: letters are events, "N(...)" repeats. */
static const char *feed(struct stream *s, const char *p)
{
	while (*p && *p != ')') {
		if (*p >= '0' && *p <= '9') {
			unsigned long n = strtoul(p, (char **)&p, 10);
			const char *body = p + 1, *end = body;
			for (unsigned long i = 0; i < n; i++)
				end = feed(s, body);
			p = end + 1;
		} else if (*p == ' ') {
			p++;
		} else {
			put(s, *p++);
		}
	}
	return p;
}

static struct tc_gtrace *leaf(struct stream *s, const struct tc_merge_opts *o)
{
	return tc_gtrace_from_rsd(s->rsd, NULL, 8, s->n, o);
}

/* ---- shape of a global trace ------------------------------------------- */

static char letter(uint64_t sig)
{
	for (uint32_t i = 0; i < 26; i++)
		if (sig_of(i) == sig)
			return (char)('a' + i);
	return '?';
}

static void rl_text(struct tc_strbuf *sb, const struct tc_ranklist *rl)
{
	int32_t *v = tc_xmalloc((rl->count + 1) * sizeof(*v));

	tc_ranklist_expand(rl, v);
	tc_strbuf_addch(sb, '{');
	for (uint64_t i = 0; i < rl->count; i++)
		tc_strbuf_addf(sb, "%s%d", i ? "," : "", v[i]);
	tc_strbuf_addch(sb, '}');
	free(v);
}

static bool rl_eq(const struct tc_ranklist *a, const struct tc_ranklist *b)
{
	struct tc_ranklist u;
	bool eq;

	tc_ranklist_init(&u);
	tc_granks_union(&u, a, b);
	eq = u.count == a->count && u.count == b->count;
	tc_ranklist_release(&u);
	return eq;
}

static void shape(struct tc_strbuf *sb, const struct tc_gnode *seq, size_t n,
		  const struct tc_ranklist *parent)
{
	for (size_t i = 0; i < n; i++) {
		const struct tc_gnode *nd = &seq[i];
		if (i)
			tc_strbuf_addch(sb, ' ');
		if (nd->nbody) {
			for (uint32_t k = 0; k < nd->iters.nvar; k++)
				tc_strbuf_addf(sb, "%s%" PRId64, k ? "/" : "", nd->iters.var[k].val.w);
			if (nd->iters.hist)
				tc_strbuf_addstr(sb, nd->iters.nvar ? "/h" : "h");
			tc_strbuf_addstr(sb, "(");
			shape(sb, nd->body, nd->nbody, &nd->ranks);
			tc_strbuf_addch(sb, ')');
		} else {
			tc_strbuf_addch(sb, letter(nd->stack));
		}
		if (!rl_eq(&nd->ranks, parent))
			rl_text(sb, &nd->ranks);
	}
}

static char *shape_of(const struct tc_gtrace *g)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;

	tc_strbuf_addstr(&sb, "");
	shape(&sb, g->seq, g->n, &g->ranks);
	return tc_strbuf_detach(&sb, NULL);
}

#define CHECK_SHAPE(g, want)                                             \
	do {                                                             \
		char *s_ = shape_of(g);                                  \
		CHECK_STR(s_, want);                                     \
		free(s_);                                                \
	} while (0)

/* Every event of the stream comes back from the global trace, in order,
 * with every parameter and the call site's signature. */
static bool expands_to(const struct tc_gtrace *g, const struct stream *s)
{
	struct tc_gtrace_iter it;
	struct tc_event ev;
	size_t k = 0;
	bool ok = true;

	if (tc_gtrace_iter_init(&it, g, s->rank))
		return false;
	while (ok && tc_gtrace_iter_next(&it, &ev)) {
		const struct tc_event *want = &s->evs[k];
		if (k >= s->n) {
			ok = false;
			break;
		}
		if (ev.op != want->op || ev.fields != want->fields || ev.peer != want->peer ||
		    ev.tag != want->tag || ev.count != want->count || ev.dtype != want->dtype ||
		    ev.dtype_size != want->dtype_size || ev.request != want->request ||
		    ev.comm != want->comm || ev.callsite >= g->nsites ||
		    g->sites[ev.callsite].sig != sig_of(want->callsite))
			ok = false;
		k++;
	}
	tc_gtrace_iter_release(&it);
	return ok && k == s->n;
}

/* Merge the streams' leaves left to right and finish. */
static struct tc_gtrace *merge_streams(struct stream *s, size_t n, const struct tc_merge_opts *o)
{
	struct tc_gtrace *g = leaf(&s[0], o);

	for (size_t i = 1; i < n; i++) {
		struct tc_gtrace *b = leaf(&s[i], o);
		tc_gtrace_merge(g, &b, o);
		CHECK(b == NULL);
	}
	tc_gtrace_finish(g);
	return g;
}

static const struct tc_merge_opts lossless = { 100, 8, false };

/* ---- the WLCS merge ------------------------------------------------------ */

TEST(merge_identical)
{
	struct stream s[2];
	struct tc_gtrace *g;

	for (int r = 0; r < 2; r++) {
		stream_init(&s[r], r, TC_RSD_MATCH_PARAMS);
		feed(&s[r], "a 10(b c) d");
	}
	g = merge_streams(s, 2, &lossless);
	CHECK_SHAPE(g, "a 10(b c) d");
	CHECK_EQ_U64(g->ranks.count, 2);
	CHECK(expands_to(g, &s[0]));
	CHECK(expands_to(g, &s[1]));
	tc_gtrace_free(&g);
	stream_release(&s[0]);
	stream_release(&s[1]);
}

TEST(merge_loops_with_different_counts)
{
	struct stream s[3];
	struct tc_gtrace *g;
	struct tc_gtrace_info in;

	stream_init(&s[0], 0, TC_RSD_MATCH_PARAMS);
	stream_init(&s[1], 1, TC_RSD_MATCH_PARAMS);
	stream_init(&s[2], 2, TC_RSD_MATCH_PARAMS);
	feed(&s[0], "a 10(b c) d");
	feed(&s[1], "a 12(b c) d");
	feed(&s[2], "a 10(b c) d");
	g = merge_streams(s, 3, &lossless);
	/* one loop, its count kept per rank set (ScalaTrace's vectors) */
	CHECK_SHAPE(g, "a 10/12(b c) d");
	CHECK_EQ_U64(g->seq[1].iters.nvar, 2);
	CHECK_EQ_U64(g->seq[1].iters.var[0].ranks.count, 2);
	tc_gtrace_info(g, &in);
	CHECK_EQ_U64(in.loops, 1);
	CHECK_EQ_U64(in.events, 4);
	for (int r = 0; r < 3; r++) {
		CHECK(expands_to(g, &s[r]));
		stream_release(&s[r]);
	}
	tc_gtrace_free(&g);
}

TEST(merge_mismatched_tails)
{
	struct stream s[2];
	struct tc_gtrace *g;

	stream_init(&s[0], 0, TC_RSD_MATCH_PARAMS);
	stream_init(&s[1], 1, TC_RSD_MATCH_PARAMS);
	feed(&s[0], "a b c e");
	feed(&s[1], "a b c f g");
	g = merge_streams(s, 2, &lossless);
	/* the unmatched tail of the first side, then the second's */
	CHECK_SHAPE(g, "a b c e{0} f{1} g{1}");
	CHECK(expands_to(g, &s[0]));
	CHECK(expands_to(g, &s[1]));
	tc_gtrace_free(&g);
	stream_release(&s[0]);
	stream_release(&s[1]);
}

TEST(merge_mismatched_heads_and_middles)
{
	struct stream s[2];
	struct tc_gtrace *g;

	stream_init(&s[0], 0, TC_RSD_MATCH_PARAMS);
	stream_init(&s[1], 1, TC_RSD_MATCH_PARAMS);
	feed(&s[0], "e a b 5(c d) f");
	feed(&s[1], "a g b 5(c d) h f");
	g = merge_streams(s, 2, &lossless);
	CHECK_SHAPE(g, "e{0} a g{1} b 5(c d) h{1} f");
	CHECK(expands_to(g, &s[0]));
	CHECK(expands_to(g, &s[1]));
	tc_gtrace_free(&g);
	stream_release(&s[0]);
	stream_release(&s[1]);
}

TEST(merge_nested_loops)
{
	struct stream s[2];
	struct tc_gtrace *g;

	stream_init(&s[0], 0, TC_RSD_MATCH_PARAMS);
	stream_init(&s[1], 1, TC_RSD_MATCH_PARAMS);
	feed(&s[0], "3(a 4(b) c) d");
	feed(&s[1], "3(a 5(b) e c) d");
	g = merge_streams(s, 2, &lossless);
	/* MATCH_LOOP: the outer loops match, their bodies merge recursively */
	CHECK_SHAPE(g, "3(a 4/5(b) e{1} c) d");
	CHECK(expands_to(g, &s[0]));
	CHECK(expands_to(g, &s[1]));
	tc_gtrace_free(&g);
	stream_release(&s[0]);
	stream_release(&s[1]);
}

TEST(merge_wlcs_prefers_the_long_loop)
{
	/* Scala-H-Trace §3: T1 = abbbbb, T2 = bbbbba; plain Alg. 1 matches a
	 * first, the weighted LCS matches the loop of b */
	struct stream s[2];
	struct tc_gtrace *g;

	stream_init(&s[0], 0, TC_RSD_MATCH_PARAMS);
	stream_init(&s[1], 1, TC_RSD_MATCH_PARAMS);
	feed(&s[0], "a 5(b)");
	feed(&s[1], "5(b) a");
	g = merge_streams(s, 2, &lossless);
	CHECK_SHAPE(g, "a{0} 5(b) a{1}");
	CHECK(expands_to(g, &s[0]));
	CHECK(expands_to(g, &s[1]));
	tc_gtrace_free(&g);
	stream_release(&s[0]);
	stream_release(&s[1]);
}

TEST(merge_paper_example)
{
	/* §3: T1 = a(b(bcb)db)a, T2 = a(b(bcb)fb)a merge to one loop nest
	 * with d and f side by side (T4), not one nest after the other (T3) */
	struct stream s[2];
	struct tc_gtrace *g, *one;
	struct tc_gtrace_info in, in1;

	stream_init(&s[0], 0, TC_RSD_MATCH_PARAMS);
	stream_init(&s[1], 1, TC_RSD_MATCH_PARAMS);
	feed(&s[0], "a 3(b 4(b c b) d b) a");
	feed(&s[1], "a 3(b 4(b c b) f b) a");
	one = leaf(&s[0], &lossless);
	tc_gtrace_info(one, &in1);
	g = merge_streams(s, 2, &lossless);
	tc_gtrace_info(g, &in);
	CHECK_EQ_U64(in.loops, in1.loops);
	/* the same nodes, and an f beside each of the (two) d nodes */
	CHECK_EQ_U64(in.events, in1.events + 2);
	CHECK(expands_to(g, &s[0]));
	CHECK(expands_to(g, &s[1]));
	tc_gtrace_free(&one);
	tc_gtrace_free(&g);
	stream_release(&s[0]);
	stream_release(&s[1]);
}

TEST(merge_parameters_as_vectors)
{
	struct stream s[4];
	struct tc_gtrace *g;
	const struct tc_gparam *cnt;

	for (int r = 0; r < 4; r++) {
		stream_init(&s[r], r, TC_RSD_MATCH_CALLSITE);
		for (int i = 0; i < 6; i++)
			put_ct(&s[r], 'b', r % 2 ? 90 : 92, 3);
	}
	g = merge_streams(s, 4, &lossless);
	CHECK_SHAPE(g, "6(b)");
	/* §4.3's example: 92 bytes [ranks 0,2], 90 [ranks 1,3] */
	cnt = &g->seq[0].body[0].p[TC_GP_COUNT];
	CHECK_EQ_U64(cnt->nvar, 2);
	CHECK(cnt->hist == NULL);
	CHECK_EQ_U64(cnt->var[0].val.w, 92);
	CHECK_EQ_U64(cnt->var[0].ranks.count, 2);
	CHECK(tc_ranklist_contains(&cnt->var[0].ranks, 2));
	CHECK_EQ_U64(g->seq[0].body[0].p[TC_GP_TAG].nvar, 1);
	for (int r = 0; r < 4; r++) {
		CHECK(expands_to(g, &s[r]));
		stream_release(&s[r]);
	}
	tc_gtrace_free(&g);
}

TEST(merge_per_occurrence_values)
{
	/* matching by call site: a count that changes every step is kept per
	 * occurrence, run-length and repetition compressed */
	struct stream s[2];
	struct tc_gtrace *g;
	const struct tc_gvar *v;

	for (int r = 0; r < 2; r++) {
		stream_init(&s[r], r, TC_RSD_MATCH_CALLSITE);
		for (int i = 0; i < 8; i++) {
			put_ct(&s[r], 'b', i % 2 ? 10 : 20, 1);
			put(&s[r], 'c');
		}
	}
	g = merge_streams(s, 2, &lossless);
	CHECK_SHAPE(g, "8(b c)");
	v = &g->seq[0].body[0].p[TC_GP_COUNT].var[0];
	CHECK(v->seq != NULL);
	CHECK_EQ_U64(v->ranks.count, 2);
	CHECK_EQ_U64(v->seq->len, 8);
	CHECK_EQ_U64(v->seq->n, 1);
	CHECK(v->seq->n && v->seq->e[0].chunk && v->seq->e[0].reps == 4);
	for (int r = 0; r < 2; r++) {
		CHECK(expands_to(g, &s[r]));
		stream_release(&s[r]);
	}
	tc_gtrace_free(&g);
}

/* ---- the radix tree ------------------------------------------------------ */

static char *tree_text(unsigned threads)
{
	struct stream s[7];
	struct tc_gtrace *items[7], *g;
	struct tc_pool *pool = tc_pool_new(threads);
	struct tc_strbuf sb = TC_STRBUF_INIT;
	static const char *const spec[7] = {
		"a 3(b c) d", "a 4(b c) d", "a e 3(b c) d", "a 3(b c) f d",
		"a 3(b c) d", "g a 3(b c) d", "a 3(b 2(c)) d",
	};

	for (int r = 0; r < 7; r++) {
		stream_init(&s[r], r, TC_RSD_MATCH_CALLSITE);
		feed(&s[r], spec[r]);
		items[r] = leaf(&s[r], &lossless);
	}
	g = tc_gtrace_merge_tree(items, 7, pool, &lossless);
	tc_gtrace_finish(g);
	for (int r = 0; r < 7; r++) {
		CHECK(expands_to(g, &s[r]));
		CHECK(items[r] == NULL);
		stream_release(&s[r]);
	}
	tc_tct_format(g, TC_TCT_TEXT, &sb);
	tc_gtrace_free(&g);
	tc_pool_free(pool);
	return tc_strbuf_detach(&sb, NULL);
}

TEST(merge_tree_same_for_every_thread_count)
{
	char *a = tree_text(1), *b = tree_text(4);

	CHECK_STR(a, b);
	free(a);
	free(b);
}

TEST(merge_filtering_zips_equal_structures)
{
	struct stream s[3];
	struct tc_merge_opts fo = lossless;
	struct tc_gtrace *g, *h;
	struct tc_strbuf x = TC_STRBUF_INIT, y = TC_STRBUF_INIT;

	fo.filtering = true;
	for (int r = 0; r < 3; r++) {
		stream_init(&s[r], r, TC_RSD_MATCH_CALLSITE);
		feed(&s[r], "a 5(b c) d");
	}
	g = merge_streams(s, 3, &fo);
	h = merge_streams(s, 3, &lossless);
	tc_tct_format(g, TC_TCT_TEXT, &x);
	tc_tct_format(h, TC_TCT_TEXT, &y);
	CHECK_STR(x.buf, y.buf);
	tc_strbuf_release(&x);
	tc_strbuf_release(&y);
	tc_gtrace_free(&g);
	tc_gtrace_free(&h);
	for (int r = 0; r < 3; r++)
		stream_release(&s[r]);
}

/* ---- histograms and precision ------------------------------------------- */

TEST(hist_balances_into_equal_bins)
{
	struct tc_hist h;
	uint64_t total = 0;

	memset(&h, 0, sizeof(h));
	for (int64_t x = 1; x <= 800; x++)
		tc_hist_add(&h, x, 1, (int32_t)(x % 13), TC_HIST_FINE);
	CHECK_EQ_U64(h.nbins, 800);
	tc_hist_balance(&h, 8);
	CHECK_EQ_U64(h.nbins, 8);
	for (uint32_t k = 0; k < h.nbins; k++) {
		CHECK_EQ_U64(h.bins[k].n, 100);
		CHECK(h.bins[k].lo <= h.bins[k].hi);
		if (k)
			CHECK(h.bins[k - 1].hi < h.bins[k].lo);
		total += h.bins[k].n;
	}
	CHECK_EQ_U64(total, 800);
	CHECK_EQ_I64(h.min, 1);
	CHECK_EQ_I64(h.max, 800);
	CHECK_EQ_I64(h.min_rank, 1);
	CHECK_EQ_I64(h.max_rank, 800 % 13);
	CHECK(h.bins[0].mean > 50 && h.bins[0].mean < 51);
	tc_hist_release(&h);
}

TEST(hist_skewed_values_and_merge)
{
	struct tc_hist a, b;
	uint64_t total = 0;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	/* one value with most of the counts keeps a bin of its own */
	tc_hist_add(&a, 500, 10000, 3, TC_HIST_FINE);
	for (int64_t x = 0; x < 100; x++)
		tc_hist_add(&b, x * 10, 10, 5, TC_HIST_FINE);
	tc_ranklist_add(&a.ranks, 3);
	tc_ranklist_add(&b.ranks, 5);
	tc_hist_merge(&a, &b, TC_HIST_FINE);
	CHECK_EQ_U64(a.n, 11000);
	CHECK_EQ_U64(a.ranks.count, 2);
	tc_hist_balance(&a, 4);
	CHECK(a.nbins <= 4 && a.nbins >= 2);
	for (uint32_t k = 0; k < a.nbins; k++) {
		total += a.bins[k].n;
		if (a.bins[k].lo <= 500 && 500 <= a.bins[k].hi)
			CHECK(a.bins[k].n >= 10000);
	}
	CHECK_EQ_U64(total, 11000);
	CHECK_EQ_I64(a.min, 0);
	CHECK_EQ_I64(a.min_rank, 5);
	CHECK_EQ_I64(a.max, 990);
	/* many distinct values stay within TC_HIST_FINE bins */
	for (int64_t x = 0; x < 5000; x++)
		tc_hist_add(&b, x * 3 + 1, 1, 7, TC_HIST_FINE);
	CHECK(b.nbins <= TC_HIST_FINE);
	CHECK_EQ_U64(b.n, 6000);
	tc_hist_release(&a);
	tc_hist_release(&b);
}

static struct tc_gtrace *two_counts(uint64_t c0, uint64_t c1, double precision,
				    struct stream *s)
{
	struct tc_merge_opts o = { precision, 8, false };

	stream_init(&s[0], 0, TC_RSD_MATCH_CALLSITE);
	stream_init(&s[1], 1, TC_RSD_MATCH_CALLSITE);
	for (int i = 0; i < 4; i++) {
		put_ct(&s[0], 'b', c0, 1);
		put_ct(&s[1], 'b', c1, 1);
	}
	return merge_streams(s, 2, &o);
}

TEST(precision_decides_histograms)
{
	struct stream s[2];
	struct tc_gtrace *g;
	const struct tc_gparam *p;

	/* 1000 and 1040 differ by 3.8%: a histogram at 95%, vectors at 99% */
	g = two_counts(1000, 1040, 95, s);
	p = &g->seq[0].body[0].p[TC_GP_COUNT];
	CHECK(p->hist != NULL);
	CHECK_EQ_U64(p->nvar, 0);
	CHECK_EQ_U64(p->hist->n, 8);
	CHECK_EQ_U64(p->hist->ranks.count, 2);
	CHECK_EQ_I64(p->hist->min, 1000);
	CHECK_EQ_I64(p->hist->max_rank, 1);
	/* parameters that match stay exact */
	CHECK(g->seq[0].body[0].p[TC_GP_TAG].hist == NULL);
	tc_gtrace_free(&g);
	stream_release(&s[0]);
	stream_release(&s[1]);

	g = two_counts(1000, 1040, 99, s);
	p = &g->seq[0].body[0].p[TC_GP_COUNT];
	CHECK(p->hist == NULL);
	CHECK_EQ_U64(p->nvar, 2);
	CHECK(expands_to(g, &s[0]));
	CHECK(expands_to(g, &s[1]));
	tc_gtrace_free(&g);
	stream_release(&s[0]);
	stream_release(&s[1]);

	/* at 0% every mismatch goes into the histogram */
	g = two_counts(1, 1000000, 0, s);
	p = &g->seq[0].body[0].p[TC_GP_COUNT];
	CHECK(p->hist != NULL);
	CHECK_EQ_U64(p->nvar, 0);
	CHECK_EQ_U64(p->hist->nbins, 2);
	tc_gtrace_free(&g);
	stream_release(&s[0]);
	stream_release(&s[1]);
}

TEST(precision_loop_counts)
{
	struct stream s[2];
	struct tc_merge_opts o = { 90, 8, false };
	struct tc_gtrace *g;
	struct tc_gtrace_iter it;
	struct tc_event ev;
	size_t n = 0;

	stream_init(&s[0], 0, TC_RSD_MATCH_PARAMS);
	stream_init(&s[1], 1, TC_RSD_MATCH_PARAMS);
	feed(&s[0], "a 50(b c) d");
	feed(&s[1], "a 51(b c) d");
	g = merge_streams(s, 2, &o);
	CHECK_SHAPE(g, "a h(b c) d");
	CHECK(g->seq[1].iters.hist && g->seq[1].iters.hist->n == 2);
	/* a drawn count is one of the binned ones */
	CHECK(tc_gtrace_iter_init(&it, g, 0) == 0);
	while (tc_gtrace_iter_next(&it, &ev))
		n++;
	tc_gtrace_iter_release(&it);
	CHECK(n == 2 + 2 * 50 || n == 2 + 2 * 51);
	tc_gtrace_free(&g);
	stream_release(&s[0]);
	stream_release(&s[1]);
}

/* ---- the .tct format ----------------------------------------------------- */

static struct tc_gtrace *sample(struct stream *s, double precision)
{
	struct tc_merge_opts o = { precision, 4, false };
	static const char *const spec[3] = { "a 3(b 2(c) d) w", "a 3(b 2(c) e d) w", "a 4(b 2(c) d)" };

	for (int r = 0; r < 3; r++) {
		stream_init(&s[r], r, TC_RSD_MATCH_CALLSITE);
		s[r].gap = r == 1 ? 5000 : 100; /* two time entries */
		put_ct(&s[r], 'f', 100 + (uint64_t)r * 3, r);
		feed(&s[r], spec[r]);
	}
	return merge_streams(s, 3, &o);
}

static char *text_of(const struct tc_gtrace *g, int form)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;

	tc_tct_format(g, form, &sb);
	return tc_strbuf_detach(&sb, NULL);
}

/* g through pack and unpack; the copy packs to the same bytes. */
static struct tc_gtrace *through_pack(struct tc_gtrace *g)
{
	struct tc_strbuf a = TC_STRBUF_INIT, b = TC_STRBUF_INIT;
	struct tc_unpack u;
	struct tc_gtrace *c;

	tc_gtrace_pack(g, &a);
	tc_unpack_init(&u, a.buf, a.len);
	c = tc_gtrace_unpack(&u);
	CHECK(c != NULL && tc_unpack_done(&u));
	if (c) {
		tc_gtrace_pack(c, &b);
		CHECK(a.len == b.len && !memcmp(a.buf, b.buf, a.len));
	}
	/* a message cut anywhere is refused, never read past its end */
	for (size_t cut = 0; cut < a.len; cut += 1 + cut / 16) {
		struct tc_gtrace *t;
		tc_unpack_init(&u, a.buf, cut);
		t = tc_gtrace_unpack(&u);
		CHECK(t == NULL);
		tc_gtrace_free(&t);
	}
	tc_strbuf_release(&a);
	tc_strbuf_release(&b);
	tc_gtrace_free(&g);
	return c;
}

/* The radix tree of merges with every unfinished trace handed through
 * pack/unpack between levels (as tracecluster-mpi hands them between
 * processes), as text; lossy precision brings histograms in. */
static char *tree_text_packed(double precision, bool packed)
{
	struct stream s[7];
	struct tc_gtrace *items[7], *g;
	struct tc_merge_opts o = { precision, 4, false };
	char *txt;
	struct tc_gframe fr[2] = { { "libapp.so", 0x1234, "solve" }, { "app", 0x10, NULL } };
	struct tc_trace_comm cm = { 5, 0, TC_OP_COMM_SPLIT, 3, 0, { 0 }, 0, NULL, false, false,
				    0, 0, NULL };
	int32_t members[3] = { 0, 2, 4 };
	static const char *const spec[7] = {
		"a 3(b c) d", "a 4(b c) d", "a e 3(b c) d", "a 3(b c) f d",
		"a 3(b c) d", "g a 3(b c) d", "a 3(b 2(c)) d",
	};

	cm.members = members;
	for (int r = 0; r < 7; r++) {
		stream_init(&s[r], r, TC_RSD_MATCH_CALLSITE);
		s[r].gap = r % 3 ? 100 : 7000;
		put_ct(&s[r], 'f', 100 + (uint64_t)r * 7, r);
		feed(&s[r], spec[r]);
		items[r] = leaf(&s[r], &o);
		tc_gtrace_set_site(items[r], sig_of((uint32_t)r), fr, 2);
		if (r % 2 == 0)
			tc_gtrace_add_comms(items[r], r, &cm, 1);
		if (packed)
			items[r] = through_pack(items[r]);
	}
	for (size_t step = 1; step < 7; step *= 2)
		for (size_t i = 0; i + step < 7; i += 2 * step) {
			tc_gtrace_merge(items[i], &items[i + step], &o);
			if (packed)
				items[i] = through_pack(items[i]);
		}
	g = items[0];
	tc_gtrace_finish(g);
	if (packed)
		g = through_pack(g);
	for (int r = 0; r < 7; r++)
		stream_release(&s[r]);
	txt = text_of(g, TC_TCT_TEXT);
	tc_gtrace_free(&g);
	return txt;
}

TEST(gtrace_pack_round_trip_merges_on_the_same)
{
	double prec[3] = { 100, 90, 0 };

	for (int k = 0; k < 3; k++) {
		char *a = tree_text_packed(prec[k], false), *b = tree_text_packed(prec[k], true);
		CHECK_STR(a, b);
		CHECK(strstr(a, "solve") != NULL);
		free(a);
		free(b);
	}
}

TEST(tct_round_trip_text_and_json)
{
	struct stream s[3];
	double prec[2] = { 100, 0 };

	for (int k = 0; k < 2; k++) {
		struct tc_gtrace *g = sample(s, prec[k]), *t = NULL, *j = NULL;
		char *txt = text_of(g, TC_TCT_TEXT), *js = text_of(g, TC_TCT_JSON);
		struct tc_error err;
		CHECK(tc_tct_probe(txt, strlen(txt)));
		CHECK(tc_tct_probe(js, strlen(js)));
		CHECK(strstr(js, "\"times\"") != NULL);
		CHECK(tc_tct_parse(txt, strlen(txt), "t.tct", &t, &err) == 0);
		CHECK(tc_tct_parse(js, strlen(js), "t.json", &j, &err) == 0);
		if (t && j) {
			char *t2 = text_of(t, TC_TCT_TEXT), *j2 = text_of(j, TC_TCT_TEXT);
			char *js2 = text_of(j, TC_TCT_JSON);
			CHECK_STR(t2, txt);
			CHECK_STR(j2, txt);
			CHECK_STR(js2, js);
			for (int r = 0; r < 3 && prec[k] == 100; r++) {
				CHECK(expands_to(t, &s[r]));
				CHECK(expands_to(j, &s[r]));
			}
			free(t2);
			free(j2);
			free(js2);
		}
		tc_gtrace_free(&t);
		tc_gtrace_free(&j);
		tc_gtrace_free(&g);
		free(txt);
		free(js);
		for (int r = 0; r < 3; r++)
			stream_release(&s[r]);
	}
}

/* g written in form and read back, its text form checked to be g's (txt). */
static struct tc_gtrace *reread(const struct tc_gtrace *g, int form, const char *txt)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_gtrace *b = NULL;
	struct tc_error err;

	tc_tct_format(g, form, &sb);
	CHECK(tc_tct_parse(sb.buf, sb.len, "t.tct", &b, &err) == 0);
	if (b) {
		char *t2 = text_of(b, TC_TCT_TEXT);
		CHECK_STR(t2, txt);
		free(t2);
	}
	tc_strbuf_release(&sb);
	return b;
}

/* The tracer's time per call (tracer_ns) and per op (tracer_ops): in every
 * form and through pack when measured, with and without a communicator
 * table (the binary form puts them after the table), per op without the
 * mean too, and absent from every form when not. */
TEST(tct_tracer_ns_in_every_form)
{
	struct stream s[3];
	struct tc_trace_comm cm = { 5, 0, TC_OP_COMM_SPLIT, 3, 0, { 0 }, 0, NULL, false, false,
				    0, 0, NULL };
	int32_t members[3] = { 0, 1, 2 };

	cm.members = members;
	/* k: none; the mean and per op; the same after a table; per op alone */
	for (int k = 0; k < 4; k++) {
		struct tc_gtrace *g = sample(s, 100);
		char *txt;
		bool mean = k == 1 || k == 2;

		g->tracer_ns = mean ? 1234 : 0;
		if (k == 2)
			tc_gtrace_add_comms(g, 1, &cm, 1);
		/* and per op: with the mean, and (k == 2) after a table */
		if (k > 0) {
			g->tracer_ops = calloc(2, sizeof(*g->tracer_ops));
			g->tracer_ops[0] = (struct tc_tracer_op){ TC_OP_SEND, 300, 40 };
			g->tracer_ops[1] = (struct tc_tracer_op){ TC_OP_WAITALL, 2100, 7 };
			g->ntracer_ops = 2;
		}
		txt = text_of(g, TC_TCT_TEXT);
		CHECK((strstr(txt, "\ntracer_ns 1234\n") != NULL) == mean);
		CHECK((strstr(txt, "tracer_ns") != NULL) == mean);
		CHECK((strstr(txt, "\ntracer_op MPI_Send 300 40\ntracer_op MPI_Waitall 2100 7\n") !=
		       NULL) == (k > 0));
		for (int form = TC_TCT_TEXT; form <= TC_TCT_BINARY; form++) {
			struct tc_gtrace *b = reread(g, form, txt);
			if (b) {
				CHECK_EQ_U64(b->tracer_ns, g->tracer_ns);
				CHECK_EQ_U64(b->ntracer_ops, g->ntracer_ops);
				CHECK_EQ_U64(b->ncomms, g->ncomms);
			}
			tc_gtrace_free(&b);
		}
		g = through_pack(g);
		CHECK_EQ_U64(g->tracer_ns, mean ? 1234 : 0);
		CHECK_EQ_U64(g->ntracer_ops, k == 0 ? 0 : 2);
		if (k > 0)
			CHECK(g->tracer_ops[1].op == TC_OP_WAITALL && g->tracer_ops[1].ns == 2100 &&
			      g->tracer_ops[1].calls == 7);
		tc_gtrace_free(&g);
		free(txt);
		for (int r = 0; r < 3; r++)
			stream_release(&s[r]);
	}
}

/* The ranks' skews: in every form and through pack, alone, after the
 * tracer's time and a communicator table (the binary form puts them last,
 * the counts before them written even when 0), and absent when not kept. */
TEST(tct_skews_in_every_form)
{
	struct stream s[3];
	struct tc_trace_comm cm = { 5, 0, TC_OP_COMM_SPLIT, 3, 0, { 0 }, 0, NULL, false, false,
				    0, 0, NULL };
	int32_t members[3] = { 0, 1, 2 };

	cm.members = members;
	/* k: none; alone; after the mean; after a table and the ops */
	for (int k = 0; k < 4; k++) {
		struct tc_gtrace *g = sample(s, 100);
		char *txt;

		g->world_size = 3; /* the ranks the sample covers, 0 to 2 */
		CHECK(g->ranks.count == 3);
		if (k > 0) {
			g->skew = calloc(3, sizeof(*g->skew));
			g->skew[0] = 812345;
			g->skew[2] = 7;
		}
		if (k >= 2) {
			/* and the concurrency in the gaps, 1 and 2 ranks */
			g->conc = calloc(2, sizeof(*g->conc));
			g->conc[0] = 5000;
			g->conc[1] = 123;
			g->nconc = 2;
		}
		g->tracer_ns = k >= 2 ? 99 : 0;
		if (k == 3) {
			tc_gtrace_add_comms(g, 1, &cm, 1);
			g->tracer_ops = calloc(1, sizeof(*g->tracer_ops));
			g->tracer_ops[0] = (struct tc_tracer_op){ TC_OP_SEND, 300, 40 };
			g->ntracer_ops = 1;
		}
		txt = text_of(g, TC_TCT_TEXT);
		CHECK((strstr(txt, "\nskew 812345 0 7\n") != NULL) == (k > 0));
		CHECK((strstr(txt, "skew") != NULL) == (k > 0));
		CHECK((strstr(txt, "\nskew 812345 0 7\nconcurrency 5000 123\n") != NULL) == (k >= 2));
		for (int form = TC_TCT_TEXT; form <= TC_TCT_BINARY; form++) {
			struct tc_gtrace *b = reread(g, form, txt);
			if (b) {
				CHECK((b->skew != NULL) == (k > 0));
				if (b->skew && k > 0)
					CHECK(b->skew[0] == 812345 && b->skew[1] == 0 &&
					      b->skew[2] == 7);
				CHECK_EQ_U64(b->tracer_ns, g->tracer_ns);
				CHECK_EQ_U64(b->ntracer_ops, g->ntracer_ops);
				CHECK_EQ_U64(b->nconc, g->nconc);
				if (b->nconc == 2)
					CHECK(b->conc[0] == 5000 && b->conc[1] == 123);
			}
			tc_gtrace_free(&b);
		}
		g = through_pack(g);
		CHECK((g->skew != NULL) == (k > 0));
		if (g->skew)
			CHECK(g->skew[0] == 812345 && g->skew[2] == 7);
		CHECK_EQ_U64(g->nconc, k >= 2 ? 2 : 0);
		tc_gtrace_free(&g);
		free(txt);
		for (int r = 0; r < 3; r++)
			stream_release(&s[r]);
	}
}

/* Skews that cannot be a trace's are refused with the line: too few or
 * too many, none of them 0, beyond 10^13 ns, before the ranks, twice, or
 * of a trace that does not cover the world. */
TEST(tct_bad_skews_refused)
{
	static const char *const bad[] = {
		"skew 0 5", "skew 0 5 6 7", "skew 4 5 6", "skew 0 5 10000000000001", "skew 0 x 1",
		"skew 0 1 2\nskew 0 1 2", "concurrency 5 6", "skew 0 1 2\nconcurrency",
		"skew 0 1 2\nconcurrency 5 0", "skew 0 1 2\nconcurrency 1 2 3 4",
		"skew 0 1 2\nconcurrency 1 x",
	};
	struct stream s[3];
	struct tc_gtrace *g = sample(s, 100);
	char *txt, *at;

	g->world_size = 3;
	txt = text_of(g, TC_TCT_TEXT);
	at = strstr(txt, "\nbins ");

	CHECK(at != NULL);
	for (size_t i = 0; at && i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tc_strbuf sb = TC_STRBUF_INIT;
		struct tc_gtrace *b = NULL;
		struct tc_error err;
		tc_strbuf_add(&sb, txt, (size_t)(at - txt) + 1);
		tc_strbuf_addf(&sb, "%s%s", bad[i], at);
		tc_error_clear(&err);
		CHECK(tc_tct_parse(sb.buf, sb.len, "t.tct", &b, &err) != 0);
		CHECK(b == NULL && (strstr(err.msg, "skew") || strstr(err.msg, "concurrency")));
		tc_gtrace_free(&b);
		tc_strbuf_release(&sb);
	}
	{
		/* before the ranks */
		struct tc_strbuf sb = TC_STRBUF_INIT;
		struct tc_gtrace *b = NULL;
		struct tc_error err;
		char *nl = strchr(txt, '\n');
		tc_strbuf_add(&sb, txt, (size_t)(nl - txt) + 1);
		tc_strbuf_addf(&sb, "skew 0 1 2%s", nl);
		CHECK(tc_tct_parse(sb.buf, sb.len, "t.tct", &b, &err) != 0 && b == NULL);
		tc_strbuf_release(&sb);
	}
	{
		/* a binary trace cut in its skews */
		struct tc_strbuf sb = TC_STRBUF_INIT;
		struct tc_gtrace *b = NULL;
		struct tc_error err;
		g->skew = calloc(3, sizeof(*g->skew));
		g->skew[1] = 300;
		g->skew[2] = 1u << 20;
		tc_tct_format(g, TC_TCT_BINARY, &sb);
		CHECK(tc_tct_parse(sb.buf, sb.len, "t.tct", &b, &err) == 0);
		tc_gtrace_free(&b);
		g->skew[0] = 1; /* none 0 */
		tc_strbuf_release(&sb);
		tc_tct_format(g, TC_TCT_BINARY, &sb);
		CHECK(tc_tct_parse(sb.buf, sb.len, "t.tct", &b, &err) != 0 && b == NULL);
		tc_strbuf_release(&sb);
	}
	{
		/* the JSON form's: too few, none 0, a concurrency without
		 * skews, a last concurrency of 0 */
		static const char *const from[] = { "\"skew\":[0,300,1048576]",
						    "\"skew\":[0,300,1048576]",
						    "\"skew\":[0,300,1048576],",
						    "\"concurrency\":[9,4]" };
		static const char *const to[] = { "\"skew\":[0,300]", "\"skew\":[5,300,1048576]",
						  "", "\"concurrency\":[9,0]" };
		char *js;
		g->skew[0] = 0;
		g->conc = calloc(2, sizeof(*g->conc));
		g->conc[0] = 9;
		g->conc[1] = 4;
		g->nconc = 2;
		js = text_of(g, TC_TCT_JSON);
		for (size_t i = 0; i < sizeof(from) / sizeof(from[0]); i++) {
			char *hit = strstr(js, from[i]);
			struct tc_strbuf sb = TC_STRBUF_INIT;
			struct tc_gtrace *b = NULL;
			struct tc_error err;
			CHECK(hit != NULL);
			if (!hit)
				continue;
			tc_strbuf_add(&sb, js, (size_t)(hit - js));
			tc_strbuf_addf(&sb, "%s%s", to[i], hit + strlen(from[i]));
			tc_error_clear(&err);
			CHECK(tc_tct_parse(sb.buf, sb.len, "t.json", &b, &err) != 0);
			CHECK(b == NULL && (strstr(err.msg, "skew") || strstr(err.msg, "concurrency")));
			tc_strbuf_release(&sb);
		}
		free(js);
	}
	tc_gtrace_free(&g);
	free(txt);
	for (int r = 0; r < 3; r++)
		stream_release(&s[r]);
}

/* Frames whose bytes are not UTF-8 come back from the JSON form exactly. */
TEST(tct_json_keeps_bytes_that_are_not_utf8)
{
	static const char *mods[3] = { "/opt/m\xff/lib.so", "\xee\xbe\x80\xc3", "caf\xc3\xa9" };
	struct tc_gframe fr[3];
	struct stream s[3];
	struct tc_gtrace *g = sample(s, 100), *j = NULL;
	struct tc_error err;
	char *js;

	CHECK(g->nsites > 0);
	for (int k = 0; k < 3; k++) {
		fr[k].module = (char *)mods[k];
		fr[k].offset = 16 * (uint64_t)k;
		fr[k].symbol = (char *)mods[2 - k];
	}
	tc_gtrace_set_site(g, g->sites[0].sig, fr, 3);
	js = text_of(g, TC_TCT_JSON);
	CHECK(strstr(js, "\xff") == NULL);
	CHECK(tc_tct_parse(js, strlen(js), "t.json", &j, &err) == 0);
	if (j) {
		ptrdiff_t i = tc_gtrace_site(j, g->sites[0].sig);
		CHECK(i >= 0);
		if (i >= 0) {
			CHECK_EQ_U64(j->sites[i].nframes, 3);
			for (uint32_t k = 0; k < 3 && k < j->sites[i].nframes; k++) {
				CHECK_STR(j->sites[i].frames[k].module, mods[k]);
				CHECK_STR(j->sites[i].frames[k].symbol, mods[2 - k]);
				CHECK_EQ_U64(j->sites[i].frames[k].offset, 16 * k);
			}
		}
	}
	tc_gtrace_free(&j);
	tc_gtrace_free(&g);
	free(js);
	for (int r = 0; r < 3; r++)
		stream_release(&s[r]);
}

/* ---- time entries ------------------------------------------------------ */

#define ANY_EVENT UINT64_MAX
#define ANY_TIME UINT64_MAX

/* Event `at` of rank's expansion (every event: ANY_EVENT) starts comp ns
 * after the previous one ends and takes comm ns (any time: ANY_TIME). */
static bool times_at(const struct tc_gtrace *g, int32_t rank, uint64_t at, uint64_t comp,
		     uint64_t comm)
{
	struct tc_gtrace_iter it;
	struct tc_event ev;
	uint64_t prev = 0, k = 0;
	bool ok = true, seen = false;

	if (tc_gtrace_iter_init(&it, g, rank))
		return false;
	while (tc_gtrace_iter_next(&it, &ev)) {
		if (at == ANY_EVENT || k == at) {
			seen = true;
			if (ev.t_start - prev != comp ||
			    (comm != ANY_TIME && ev.t_end - ev.t_start != comm))
				ok = false;
		}
		prev = ev.t_end;
		k++;
	}
	tc_gtrace_iter_release(&it);
	return ok && seen;
}

/* Every event of rank's expansion starts comp ns after the previous one
 * ends and takes comm ns. */
static bool gaps_are(const struct tc_gtrace *g, int32_t rank, uint64_t comp, uint64_t comm)
{
	return times_at(g, rank, ANY_EVENT, comp, comm);
}

TEST(merge_keeps_times_per_rank_set)
{
	struct stream s[3];
	uint64_t gap[3] = { 100, 100000, 140 };
	struct tc_gtrace *g, *t = NULL, *j = NULL;
	struct tc_error err;
	char *txt, *js;

	for (int r = 0; r < 3; r++) {
		stream_init(&s[r], r, TC_RSD_MATCH_PARAMS);
		s[r].gap = gap[r];
		feed(&s[r], "a 10(b c) d");
	}
	/* ranks 0 and 1: a long compute phase on one, a short one on the
	 * other; each rank gets its own gaps back */
	g = merge_streams(s, 2, &lossless);
	CHECK_SHAPE(g, "a 10(b c) d");
	CHECK_EQ_U64(g->seq[0].ntimes, 2);
	CHECK(g->seq[0].comp.mean == 50050.0);
	CHECK_EQ_U64(g->seq[0].comp.n, 2);
	CHECK(gaps_are(g, 0, 100, 10));
	CHECK(gaps_are(g, 1, 100000, 10));
	CHECK(expands_to(g, &s[0]));
	CHECK(expands_to(g, &s[1]));
	tc_gtrace_free(&g);

	/* rank 2 is within 50 ns of rank 0: one entry for both, at their mean */
	g = merge_streams(s, 3, &lossless);
	CHECK_EQ_U64(g->seq[0].ntimes, 2);
	CHECK_EQ_U64(g->seq[1].body[0].ntimes, 2);
	CHECK_EQ_U64(g->seq[0].times[0].ranks.count, 2);
	CHECK(gaps_are(g, 0, 120, 10));
	CHECK(gaps_are(g, 2, 120, 10));
	CHECK(gaps_are(g, 1, 100000, 10));

	/* both forms carry the entries */
	txt = text_of(g, TC_TCT_TEXT);
	js = text_of(g, TC_TCT_JSON);
	CHECK(strstr(txt, "comp=120.000/20.000/100/140*2@[0-2/2]|") != NULL);
	CHECK(strstr(js, "\"times\"") != NULL);
	CHECK(tc_tct_parse(txt, strlen(txt), "t.tct", &t, &err) == 0);
	CHECK(tc_tct_parse(js, strlen(js), "t.json", &j, &err) == 0);
	if (t && j) {
		char *t2 = text_of(t, TC_TCT_TEXT), *j2 = text_of(j, TC_TCT_TEXT);
		char *js2 = text_of(j, TC_TCT_JSON);
		CHECK_STR(t2, txt);
		CHECK_STR(j2, txt);
		CHECK_STR(js2, js);
		for (int r = 0; r < 3; r++) {
			CHECK(gaps_are(t, r, r == 1 ? 100000 : 120, 10));
			CHECK(gaps_are(j, r, r == 1 ? 100000 : 120, 10));
		}
		free(t2);
		free(j2);
		free(js2);
	}
	tc_gtrace_free(&t);
	tc_gtrace_free(&j);
	tc_gtrace_free(&g);
	free(txt);
	free(js);
	for (int r = 0; r < 3; r++)
		stream_release(&s[r]);
}

/*
 * --timing stats joins time entries whose ranks spend about the same time
 * at the event, compute and call time alike: rank 0 computes 2.58 ms
 * before a broadcast and waits 0.06 ms in it, rank 1 computes 0.04 ms and
 * waits 2.57 ms. Their totals agree within the budget (0.05% of a run of
 * about 0.5 s: MPI_Init's 0.45 s), their compute times do not, and the
 * compute time is what a replay spends: both entries stay. Ranks 2 and 3
 * differ by 10 us in both: one entry.
 */
TEST(timing_stats_keeps_entries_whose_compute_times_differ)
{
	static const char txt[] =
		"tracecluster-tct 1\n"
		"world 4\n"
		"ranks [0-3]\n"
		"timing rank\n"
		"site 0 0x0000000000000010\n"
		"site 1 0x0000000000000020\n"
		"trace\n"
		"MPI_Init site=0 n=4 comp=0.000/0.000/0/0 comm=450000000.000/0.000/450000000/450000000\n"
		"MPI_Bcast site=1 n=4 comp=2578644.000/0.000/2578644/2578644*1@[0]|"
		"38848.000/0.000/38848/38848*1@[1]|100000.000/0.000/100000/100000*1@[2]|"
		"110000.000/0.000/110000/110000*1@[3]"
		" comm=60891.000/0.000/60891/60891|2570772.000/0.000/2570772/2570772|"
		"500000.000/0.000/500000/500000|500000.000/0.000/500000/500000\n"
		"end\n";
	struct tc_gtrace *g = NULL;
	struct tc_error err;
	const struct tc_gtime *t;

	CHECK(tc_tct_parse(txt, strlen(txt), "bcast.tct", &g, &err) == 0);
	if (!g)
		return;
	CHECK_EQ_U64(g->seq[1].ntimes, 4);
	tc_gtrace_set_timing(g, TC_GTIMING_STATS);
	CHECK_EQ_U64(g->seq[1].ntimes, 3);
	CHECK(times_at(g, 0, 1, 2578644, ANY_TIME));
	CHECK(times_at(g, 1, 1, 38848, ANY_TIME));
	CHECK(times_at(g, 2, 1, 105000, ANY_TIME));
	CHECK(times_at(g, 3, 1, 105000, ANY_TIME));
	t = g->seq[1].ntimes == 3 ? &g->seq[1].times[2] : NULL;
	CHECK(t && t->ranks.count == 2 && t->comm.mean == 500000.0);
	tc_gtrace_free(&g);
}

/* An event of 10 occurrences over 4 ranks whose two time entries hold 5
 * each: "even" (each entry's share of the ranks) although 10 is not a
 * multiple of 4; the binary form must read back what it wrote. */
TEST(tct_binary_even_time_entries_of_a_count_not_a_multiple_of_the_ranks)
{
	static const char txt[] =
		"tracecluster-tct 1\n"
		"world 4\n"
		"ranks [0-3]\n"
		"timing stats\n"
		"site 0 0x0000000000000010\n"
		"trace\n"
		"MPI_Barrier site=0 n=10 comp=100.000/0.000/100/100*5@[0,2]|900.000/0.000/900/900*5@[1,3]"
		" comm=10.000/0.000/10/10|20.000/0.000/20/20\n"
		"end\n";
	struct tc_gtrace *g = NULL, *b = NULL;
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_error err;

	CHECK(tc_tct_parse(txt, strlen(txt), "even.tct", &g, &err) == 0);
	if (!g)
		return;
	tc_tct_format(g, TC_TCT_BINARY, &sb);
	CHECK(tc_tct_parse(sb.buf, sb.len, "even.tcb", &b, &err) == 0);
	if (b) {
		CHECK_EQ_U64(b->seq[0].ntimes, 2);
		CHECK_EQ_U64(b->seq[0].times[0].comp.n, 5);
		CHECK_EQ_U64(b->seq[0].times[1].comp.n, 5);
		CHECK(b->seq[0].times[1].comp.mean > 895 && b->seq[0].times[1].comp.mean < 905);
	}
	tc_gtrace_free(&b);
	tc_gtrace_free(&g);
	tc_strbuf_release(&sb);
}

static const char good_head[] =
	"tracecluster-tct 1\n"
	"world 4\n"
	"ranks [0-3]\n"
	"site 0 0x0000000000000010\n"
	"site 1 0x0000000000000020\n"
	"trace\n";

/* Parse head + body; return the error message (static) or NULL. */
static const char *parse_msg(const char *head, const char *body)
{
	static struct tc_error err;
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_gtrace *g = NULL;
	int rc;

	tc_strbuf_addstr(&sb, head);
	tc_strbuf_addstr(&sb, body);
	rc = tc_tct_parse(sb.buf, sb.len, "bad.tct", &g, &err);
	tc_strbuf_release(&sb);
	tc_gtrace_free(&g);
	return rc ? err.msg : NULL;
}

#define CHECK_BAD(head, body, line, text)                                    \
	do {                                                                 \
		const char *m_ = parse_msg(head, body);                      \
		CHECK(m_ != NULL);                                           \
		if (m_) {                                                    \
			if (!strstr(m_, line) || !strstr(m_, text))          \
				unit_fail(__FILE__, __LINE__, "message '%s'", m_); \
		}                                                            \
	} while (0)

TEST(tct_reader_accepts_a_minimal_trace)
{
	CHECK(parse_msg(good_head, "MPI_Barrier site=0 n=4 comp=1/0/1/1 comm=2/0/2/2\n"
			"loop 3@[0-1]|4@[2-3] {\n"
			"  MPI_Send site=1 n=14 comp=1/0/1/1 comm=2/0/2/2\n"
			"      peer +1@[0-2]|null@[3]\n"
			"      count <5*2,(6,7)*3>@[0,2]|9@[1,3]\n"
			"}\nend\n") == NULL);
}

TEST(tct_reader_checks_time_entries)
{
	static const char *const cm = " comm=2/0/2/2|3/0/3/3\nend\n";
	char buf[256];

	CHECK(parse_msg(good_head, "MPI_Barrier site=0 n=4 comp=1/0/1/1*3@[0-2]|9/0/9/9*1@[3]"
			" comm=2/0/2/2|3/0/3/3\nend\n") == NULL);
	snprintf(buf, sizeof(buf), "MPI_Barrier site=0 n=4 comp=1/0/1/1*3@[0-2]|9/0/9/9*1@[2-3]%s", cm);
	CHECK_BAD(good_head, buf, "line 7", "share ranks");
	snprintf(buf, sizeof(buf), "MPI_Barrier site=0 n=4 comp=1/0/1/1*3@[0-1]|9/0/9/9*1@[3]%s", cm);
	CHECK_BAD(good_head, buf, "line 7", "cover");
	snprintf(buf, sizeof(buf), "MPI_Barrier site=0 n=5 comp=1/0/1/1*3@[0-2]|9/0/9/9*1@[3]%s", cm);
	CHECK_BAD(good_head, buf, "line 7", "add up");
	CHECK_BAD(good_head, "MPI_Barrier site=0 n=4 comp=1/0/1/1*4@[0-3] comm=2/0/2/2\nend\n",
		  "line 7", "single time entry");
	CHECK_BAD(good_head, "MPI_Barrier site=0 n=4 comp=1/0/1/1*3@[0-2]|9/0/9/9*1@[3]"
		  " comm=2/0/2/2\nend\n", "line 7", "per time entry");
}

TEST(tct_reader_rejects_malformed_input)
{
	const char *ev = "MPI_Barrier site=0 n=4 comp=1/0/1/1 comm=2/0/2/2\n";

	CHECK_BAD("", "", "line 1", "empty");
	CHECK_BAD("tracecluster-tct 2\n", "", "line 1", "version 2");
	CHECK_BAD("hello\n", "", "line 1", "not a tracecluster");
	CHECK_BAD(good_head, ev, "line 8", "missing 'end'");
	CHECK_BAD(good_head, "end\nMPI_Barrier\n", "line 8", "after 'end'");
	CHECK_BAD("tracecluster-tct 1\nranks [0]\n", "", "line 2", "'ranks' must follow");
	CHECK_BAD("tracecluster-tct 1\nworld 0\n", "", "line 2", "world size");
	CHECK_BAD("tracecluster-tct 1\nworld 99999999999\n", "", "line 2", "world size");
	CHECK_BAD("tracecluster-tct 1\nworld 4\nranks [2-4]\n", "", "line 3", "out of range");
	CHECK_BAD("tracecluster-tct 1\nworld 4\nranks [0,0]\n", "", "line 3", "twice");
	CHECK_BAD("tracecluster-tct 1\nworld 4\nranks [0-3x9999999999+1]\n", "", "line 3",
		  "larger than the world");
	CHECK_BAD("tracecluster-tct 1\nworld 4\nranks [0-3\n", "", "line 3", "ranklist");
	CHECK_BAD("tracecluster-tct 1\nworld 4\nranks [0-3]\nsite 1 0x1\n", "", "line 4",
		  "count up");
	CHECK_BAD("tracecluster-tct 1\nworld 4\nranks [0-3]\nsite 0 0x2\nsite 1 0x1\n", "",
		  "line 5", "sorted");
	CHECK_BAD("tracecluster-tct 1\nworld 4\nranks [0-3]\nframe \"a\" 0x1 \"b\"\n", "",
		  "line 4", "before any 'site'");
	CHECK_BAD("tracecluster-tct 1\nworld 4\nranks [0-3]\nsite 0 0x1\n  frame \"a 0x1\n", "",
		  "line 5", "quoted");
	CHECK_BAD("tracecluster-tct 1\nworld 4\nranks [0-3]\nbogus 1\n", "", "line 4",
		  "unknown header keyword");
	CHECK_BAD("tracecluster-tct 1\nworld 4\nranks [0-3]\ntracer_ns -5\n", "", "line 4",
		  "tracer_ns");
	CHECK_BAD("tracecluster-tct 1\nworld 4\nranks [0-3]\ntracer_ns 2000000000\n", "",
		  "line 4", "tracer_ns");
	CHECK_BAD(good_head, "MPI_Barrier site=7 n=1 comp=1/0/1/1 comm=1/0/1/1\nend\n", "line 7",
		  "site table");
	CHECK_BAD(good_head, "MPI_Barrier site=0 n=1 comp=1/0/1 comm=1/0/1/1\nend\n", "line 7",
		  "comp=");
	CHECK_BAD(good_head, "MPI_Barrier site=0 n=1 comp=nan/0/1/1 comm=1/0/1/1\nend\n",
		  "line 7", "comp=");
	CHECK_BAD(good_head, "MPI_Barrier site=0 ranks=[5] n=1 comp=1/0/1/1 comm=1/0/1/1\nend\n",
		  "line 7", "out of range");
	CHECK_BAD(good_head, "loop 3 ranks=[0-1] {\n  MPI_Barrier site=0 ranks=[2] n=1 "
		  "comp=1/0/1/1 comm=1/0/1/1\n}\nend\n", "line 8", "outside");
	CHECK_BAD(good_head, "count 5\nend\n", "line 7", "not after an event");
	CHECK_BAD(good_head, ev, "line 8", "end");
	{
		char buf[512];
		snprintf(buf, sizeof(buf), "%s  peer +1\n  peer +2\nend\n", ev);
		CHECK_BAD(good_head, buf, "line 9", "given twice");
		snprintf(buf, sizeof(buf), "%s  peer banana\nend\n", ev);
		CHECK_BAD(good_head, buf, "line 8", "malformed value");
		snprintf(buf, sizeof(buf), "%s  tag 99999999999\nend\n", ev);
		CHECK_BAD(good_head, buf, "line 8", "out of range");
		snprintf(buf, sizeof(buf), "%s  count <1*0>\nend\n", ev);
		CHECK_BAD(good_head, buf, "line 8", "repetition");
		snprintf(buf, sizeof(buf), "%s  count <1*4611686018427387904,2>\nend\n", ev);
		CHECK_BAD(good_head, buf, "line 8", "too long");
		snprintf(buf, sizeof(buf), "%s  count <(1,2)*3074457345618258602,(3)*3>\nend\n", ev);
		CHECK_BAD(good_head, buf, "line 8", "too long");
		snprintf(buf, sizeof(buf), "%s  count ((((1\nend\n", ev);
		CHECK_BAD(good_head, buf, "line 8", "malformed");
		snprintf(buf, sizeof(buf), "%s  compl [1:2:3]\nend\n", ev);
		CHECK_BAD(good_head, buf, "line 8", "array");
		snprintf(buf, sizeof(buf), "%s  nonsense 1\nend\n", ev);
		CHECK_BAD(good_head, buf, "line 8", "unknown keyword");
		snprintf(buf, sizeof(buf),
			 "%s  count hist ranks=[0-3] n=5 min=1@0 max=9@0 bins=1..9:4:5:1\nend\n", ev);
		CHECK_BAD(good_head, buf, "line 8", "add up");
		snprintf(buf, sizeof(buf),
			 "%s  count hist ranks=[0-3] n=2 min=1@0 max=9@0 bins=5..9:1:5:1,1..4:1:2:0\nend\n",
			 ev);
		CHECK_BAD(good_head, buf, "line 8", "order");
		snprintf(buf, sizeof(buf), "%s  count hist ranks=[0-3] n=1 min=1@9 max=1@0 bins=1..1:1:1:0\nend\n",
			 ev);
		CHECK_BAD(good_head, buf, "line 8", "min=");
	}
	CHECK_BAD(good_head, "loop 0 {\n", "line 7", "positive");
	CHECK_BAD(good_head, "loop 2 {\n}\nend\n", "line 8", "empty loop");
	CHECK_BAD(good_head, "}\n", "line 7", "without a loop");
	CHECK_BAD(good_head, "loop 2 {\nend\n", "line 8", "inside a loop");
	CHECK_BAD(good_head, "loop 2 {\n  iters 3\n", "line 8", "must be a histogram");
	CHECK_BAD(good_head, "MPI_Bogus site=0\nend\n", "line 7", "unknown keyword");
	{
		/* nesting beyond the limit */
		struct tc_strbuf sb = TC_STRBUF_INIT;
		for (int i = 0; i < 300; i++)
			tc_strbuf_addstr(&sb, "loop 2 {\n");
		CHECK_BAD(good_head, sb.buf, "line", "too deeply");
		tc_strbuf_release(&sb);
	}
	{
		/* a NUL byte */
		struct tc_gtrace *g = NULL;
		struct tc_error err;
		char buf[64] = "tracecluster-tct 1\nworld 4\0\n";
		CHECK(tc_tct_parse(buf, 30, "nul.tct", &g, &err) != 0);
		CHECK(strstr(err.msg, "NUL") != NULL);
		CHECK_STR(err.path, "nul.tct");
	}
}

TEST(tct_json_reader_rejects_malformed_input)
{
	static const char *const bad[] = {
		"{",
		"[]",
		"{\"format\":\"x\"}",
		"{\"format\":\"tracecluster-tct\",\"version\":9}",
		"{\"format\":\"tracecluster-tct\",\"version\":1,\"world_size\":-1}",
		"{\"format\":\"tracecluster-tct\",\"version\":1,\"world_size\":4,\"ranks\":[[0,5,1]],"
		"\"sites\":[],\"trace\":[]}",
		"{\"format\":\"tracecluster-tct\",\"version\":1,\"world_size\":4,\"ranks\":[[0,4,1]],"
		"\"sites\":[],\"trace\":[{\"type\":\"event\",\"op\":\"MPI_Send\",\"site\":0,"
		"\"ranks\":[[0,4,1]]}]}",
		"{\"format\":\"tracecluster-tct\",\"version\":1,\"world_size\":4,\"ranks\":[[0,4,1]],"
		"\"sites\":[{\"signature\":\"0x10\"}],\"trace\":[{\"type\":\"loop\",\"ranks\":[[0,4,1]],"
		"\"iters\":{\"variants\":[{\"ranks\":[[0,4,1]],\"value\":0}]},\"body\":[]}]}",
		"{\"format\":\"tracecluster-tct\",\"version\":1,\"world_size\":4,\"ranks\":[[0,4,1]],"
		"\"sites\":[{\"signature\":\"0x10\"}],\"trace\":[{\"type\":\"event\",\"op\":\"MPI_Send\","
		"\"site\":0,\"ranks\":[[0,4,1]],\"n\":1,\"comp\":{\"mean\":1,\"sd\":0,\"min\":1,\"max\":1},"
		"\"comm\":{\"mean\":1,\"sd\":0,\"min\":1,\"max\":1},\"params\":{\"tag\":{\"variants\":"
		"[{\"ranks\":[[0,4,1]],\"value\":\"x\"}]}}}]}",
		"{\"format\":\"tracecluster-tct\",\"version\":1,\"world_size\":4,\"ranks\":[[0,4,1]],"
		"\"sites\":[{\"signature\":\"0x10\"}],\"trace\":[{\"type\":\"event\",\"op\":\"MPI_Send\","
		"\"site\":0,\"ranks\":[[0,4,1]],\"n\":1,\"comp\":{\"mean\":1,\"sd\":0,\"min\":1,\"max\":1},"
		"\"comm\":{\"mean\":1,\"sd\":0,\"min\":1,\"max\":1},\"params\":{\"weird\":{}}}]}",
	};

	for (size_t i = 0; i < TC_ARRAY_SIZE(bad); i++) {
		struct tc_gtrace *g = NULL;
		struct tc_error err;
		int rc = tc_tct_parse(bad[i], strlen(bad[i]), "bad.json", &g, &err);
		CHECK(rc != 0);
		CHECK(g == NULL);
		CHECK_STR(err.path, "bad.json");
		CHECK(err.msg[0] != '\0');
	}
}

/* Random byte changes to valid files never crash the readers (run under
 * the sanitizers by make SANITIZE=address,undefined check). */
TEST(tct_readers_survive_mutations)
{
	struct stream s[3];
	struct tc_gtrace *g = sample(s, 0);
	char *forms[2] = { text_of(g, TC_TCT_TEXT), text_of(g, TC_TCT_JSON) };
	uint64_t rng = 0x1234567;
	static const char junk[] = "0123456789-+[]{}()<>,*@|:/x.\n \"\\";

	for (int f = 0; f < 2; f++) {
		size_t len = strlen(forms[f]);
		char *buf = tc_xmalloc(len + 1);
		for (int round = 0; round < 1500; round++) {
			struct tc_gtrace *p = NULL;
			struct tc_error err;
			size_t cut = len;
			memcpy(buf, forms[f], len + 1);
			for (int k = 0; k < 1 + round % 4; k++) {
				rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
				buf[(rng >> 33) % len] = junk[(rng >> 17) % (sizeof(junk) - 1)];
			}
			if (round % 7 == 0)
				cut = (size_t)((rng >> 40) % len);
			if (tc_tct_parse(buf, cut, "m.tct", &p, &err) == 0 && p) {
				/* what parses also expands for every rank */
				for (int32_t r = 0; r < p->world_size && r < 8; r++) {
					struct tc_gtrace_iter it;
					struct tc_event ev;
					size_t n = 0;
					if (tc_gtrace_iter_init(&it, p, r))
						continue;
					while (n < 100000 && tc_gtrace_iter_next(&it, &ev))
						n++;
					tc_gtrace_iter_release(&it);
				}
			}
			tc_gtrace_free(&p);
		}
		free(buf);
	}
	free(forms[0]);
	free(forms[1]);
	tc_gtrace_free(&g);
	for (int r = 0; r < 3; r++)
		stream_release(&s[r]);
}

/* A trace whose loops stand for far more events than its header says is
 * refused in every form, naming the loop: its line, its body byte, its
 * JSON path; rank lists count, so a wide world with a small header is
 * refused as a deep loop is, and its rank lists are read as runs. */
TEST(tct_bound_names_the_loop_in_every_form)
{
	static const char text[] =
		"tracecluster-tct 1\n"
		"world 16777216\n"
		"ranks [0-16777215]\n"
		"events 16777216000\n"
		"site 0 0x0000000000000010\n"
		"trace\n"
		"MPI_Barrier site=0 n=16777216 comp=1/0/1/1 comm=2/0/2/2\n"
		"loop 999 {\n"
		"  MPI_Barrier site=0 n=16760438784 comp=1/0/1/1 comm=2/0/2/2\n"
		"}\nend\n";
	struct tc_error err;
	struct tc_gtrace *g = NULL, *p = NULL;
	static const int forms[3] = { TC_TCT_TEXT, TC_TCT_JSON, TC_TCT_BINARY };
	static const char *want[3] = { "the loop at line ", "the loop at trace[1]: ",
				       "the loop at body byte " };

	CHECK(tc_tct_parse(text, strlen(text), "wide.tct", &g, &err) == 0);
	if (!g)
		return;
	CHECK(g->ranks.nruns == 1 && g->ranks.count == 16777216);
	g->events = 1000; /* now the header understates the work */
	for (int f = 0; f < 3; f++) {
		struct tc_strbuf sb = TC_STRBUF_INIT;
		tc_tct_format(g, forms[f], &sb);
		CHECK(tc_tct_parse(sb.buf, sb.len, "bad.tct", &p, &err) != 0 && !p);
		if (!strstr(err.msg, want[f]) ||
		    !strstr(err.msg, " iteration counts imply far more ") ||
		    !strstr(err.msg, " than the 1000 events the header declares (over all 16777216 "
			    "ranks)"))
			unit_fail(__FILE__, __LINE__, "form %d: '%s'", forms[f], err.msg);
		tc_strbuf_release(&sb);
	}
	tc_gtrace_free(&g);
}
