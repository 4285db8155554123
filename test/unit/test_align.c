/*
 * Unit tests of align/: pairwise alignment (every engine against the full
 * Needleman-Wunsch matrix on random sequences, known gap placement),
 * progressive and hierarchical multiple alignment, call trees, function
 * pairs and the concept lattice on a hand example, run comparison.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "align/align.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/strbuf.h"
#include "lib/synth.h"
#include "lib/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

static uint64_t rng_state = 0x1234567;

static uint64_t rnd(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return tc_hash_fmix(rng_state);
}

/* Symbols from a string: 'A' -> 1, 'B' -> 2, ... */
static size_t syms(const char *s, uint64_t *out)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		out[i] = (uint64_t)(unsigned char)s[i];
	return n;
}

/* The columns of an alignment as a string of '=', '!', '<', '>'. */
static char *cols(const struct tc_alignment *al)
{
	char *s = tc_xmalloc(al->ncols + 1);
	memcpy(s, al->col, al->ncols);
	s[al->ncols] = '\0';
	return s;
}

static void align_str(const char *a, const char *b, int engine, const struct tc_ascore *sc,
		      struct tc_alignment *al)
{
	uint64_t x[256], y[256];
	size_t na = syms(a, x), nb = syms(b, y);
	struct tc_error err;

	tc_alignment_init(al);
	CHECK(tc_align_pair(x, na, y, nb, sc, engine, al, &err) == 0);
	CHECK(tc_alignment_check(al, x, na, y, nb, sc ? sc : &(struct tc_ascore)TC_ASCORE_DEFAULT));
}

/* ---- pairwise ----------------------------------------------------------- */

TEST(pair_identical_and_empty)
{
	struct tc_alignment al;
	int engines[] = { TC_AENGINE_LCS, TC_AENGINE_NW, TC_AENGINE_FULL };

	for (size_t e = 0; e < TC_ARRAY_SIZE(engines); e++) {
		align_str("ABCABC", "ABCABC", engines[e], NULL, &al);
		CHECK_EQ_U64(al.matches, 6);
		CHECK_EQ_I64(al.score, 6);
		CHECK(tc_alignment_similarity(&al) == 1.0);
		tc_alignment_release(&al);
		align_str("", "", engines[e], NULL, &al);
		CHECK_EQ_U64(al.ncols, 0);
		CHECK(tc_alignment_similarity(&al) == 1.0);
		tc_alignment_release(&al);
		align_str("", "AB", engines[e], NULL, &al);
		CHECK_EQ_U64(al.only_b, 2);
		CHECK_EQ_I64(al.score, -2);
		tc_alignment_release(&al);
	}
}

TEST(pair_known_gap_placement)
{
	struct tc_alignment al;
	char *c;
	int engines[] = { TC_AENGINE_LCS, TC_AENGINE_NW, TC_AENGINE_FULL };

	for (size_t e = 0; e < TC_ARRAY_SIZE(engines); e++) {
		/* one event missing in b: the gap is where it is missing */
		align_str("ABCDEFG", "ABCEFG", engines[e], NULL, &al);
		c = cols(&al);
		CHECK_STR(c, "===<===");
		free(c);
		tc_alignment_release(&al);
		/* one extra event in b */
		align_str("MCCMAAM", "MCCMBAM", engines[e], NULL, &al);
		c = cols(&al);
		CHECK_STR(c, "====!==");
		free(c);
		CHECK_EQ_U64(al.mismatches, 1);
		CHECK_EQ_I64(al.score, 6 - 2);
		tc_alignment_release(&al);
		/* an inserted block of three */
		align_str("XYZXYZ", "XYZQQQXYZ", engines[e], NULL, &al);
		c = cols(&al);
		CHECK(!strcmp(c, "===>>>===") || !strcmp(c, ">>>======"));
		CHECK_EQ_U64(al.only_b, 3);
		free(c);
		tc_alignment_release(&al);
	}
}

TEST(pair_weber_example)
{
	/* slide 4: A = m c c m a a, B = m c c m b a m (symbols of events) */
	struct tc_alignment al;
	struct tc_ascore sc = { 1, -1, -1 };

	align_str("mccmaa", "mccmbam", TC_AENGINE_NW, &sc, &al);
	CHECK_EQ_U64(al.matches, 5);
	CHECK_EQ_U64(al.mismatches, 1);
	CHECK_EQ_U64(al.only_b, 1);
	CHECK_EQ_I64(al.score, 3);
	tc_alignment_release(&al);
}

/* Hirschberg (both row engines) equals the full matrix score. */
TEST(pair_hirschberg_equals_full_random)
{
	struct tc_ascore scores[] = { TC_ASCORE_DEFAULT, { 1, -1, -1 }, { 2, -1, -2 },
				      { 3, -3, -1 }, { 5, -4, -3 } };
	struct tc_error err;

	for (int round = 0; round < 120; round++) {
		size_t na = rnd() % 700, nb = rnd() % 700, sigma = 1 + rnd() % 12;
		uint64_t *a = tc_xmalloc((na + 1) * 8), *b = tc_xmalloc((nb + 1) * 8);
		const struct tc_ascore *sc = &scores[round % TC_ARRAY_SIZE(scores)];
		struct tc_alignment full, hb, lcs;

		if (round % 3 == 0) { /* related sequences: b is a mutated copy */
			nb = 0;
			for (size_t i = 0; i < na; i++)
				a[i] = rnd() % sigma;
			b = tc_xrealloc(b, (2 * na + 1) * 8);
			for (size_t i = 0; i < na; i++) {
				unsigned r = rnd() % 20;
				if (r == 0)
					continue;
				if (r == 1)
					b[nb++] = rnd() % sigma;
				b[nb++] = r == 2 ? rnd() % sigma : a[i];
			}
		} else {
			for (size_t i = 0; i < na; i++)
				a[i] = rnd() % sigma;
			for (size_t i = 0; i < nb; i++)
				b[i] = rnd() % sigma;
		}
		tc_alignment_init(&full);
		tc_alignment_init(&hb);
		tc_alignment_init(&lcs);
		CHECK(tc_align_pair(a, na, b, nb, sc, TC_AENGINE_FULL, &full, &err) == 0);
		CHECK(tc_align_pair(a, na, b, nb, sc, TC_AENGINE_NW, &hb, &err) == 0);
		CHECK(tc_alignment_check(&full, a, na, b, nb, sc));
		CHECK(tc_alignment_check(&hb, a, na, b, nb, sc));
		CHECK_EQ_I64(hb.score, full.score);
		CHECK_EQ_I64(tc_align_score(a, na, b, nb, sc), full.score);
		if (tc_ascore_lcs_ok(sc)) {
			CHECK(tc_align_pair(a, na, b, nb, sc, TC_AENGINE_LCS, &lcs, &err) == 0);
			CHECK(tc_alignment_check(&lcs, a, na, b, nb, sc));
			CHECK_EQ_I64(lcs.score, full.score);
		} else {
			CHECK(tc_align_pair(a, na, b, nb, sc, TC_AENGINE_LCS, &lcs, &err) ==
			      TC_ERR_USAGE);
		}
		tc_alignment_release(&full);
		tc_alignment_release(&hb);
		tc_alignment_release(&lcs);
		free(a);
		free(b);
	}
}

/* Long sequences with many distinct symbols cross word boundaries and the
 * recursion many times. */
TEST(pair_lcs_long)
{
	size_t na = 5000, nb = 4700;
	uint64_t *a = tc_xmalloc(na * 8), *b = tc_xmalloc(nb * 8);
	struct tc_alignment x, y;
	struct tc_ascore sc = TC_ASCORE_DEFAULT;
	struct tc_error err;

	for (size_t i = 0; i < na; i++)
		a[i] = rnd() % 300;
	for (size_t i = 0; i < nb; i++)
		b[i] = i % 3 ? a[i + i / 50] : rnd() % 300;
	tc_alignment_init(&x);
	tc_alignment_init(&y);
	CHECK(tc_align_pair(a, na, b, nb, &sc, TC_AENGINE_LCS, &x, &err) == 0);
	CHECK(tc_align_pair(a, na, b, nb, &sc, TC_AENGINE_FULL, &y, &err) == 0);
	CHECK(tc_alignment_check(&x, a, na, b, nb, &sc));
	CHECK_EQ_I64(x.score, y.score);
	CHECK_EQ_I64(x.score, tc_align_score(a, na, b, nb, &sc));
	tc_alignment_release(&x);
	tc_alignment_release(&y);
	free(a);
	free(b);
}

/* ---- sequences built by hand ------------------------------------------------ */

/* A sequence whose events are single-frame call sites named by letters:
 * event 'x' is MPI_Send from function "fx", one call site per letter. */
static struct tc_aseq *letters(const char *s, int32_t rank)
{
	struct tc_aseq *q = tc_aseq_new(rank, 64);
	bool defined[256] = { false };

	for (size_t i = 0; s[i]; i++) {
		unsigned char ch = (unsigned char)s[i];
		struct tc_event ev;
		if (!defined[ch]) {
			char sym[16];
			struct tc_frame fr[2];
			struct tc_callsite cs;
			snprintf(sym, sizeof(sym), "f%c+0x10", ch);
			fr[0].module = "prog";
			fr[0].offset = 0x1000 + ch;
			fr[0].symbol = sym;
			fr[1].module = "prog";
			fr[1].offset = 0x10;
			fr[1].symbol = "main+0x10";
			cs.id = ch;
			cs.nframes = 2;
			cs.frames = fr;
			cs.signature = tc_stack_signature(fr, 2);
			tc_aseq_on_callsite(q, &cs);
			defined[ch] = true;
		}
		tc_event_init(&ev);
		ev.op = TC_OP_SEND;
		ev.callsite = ch;
		ev.fields = TC_F_PEER | TC_F_COUNT;
		ev.peer = (rank + 1) % 64;
		ev.count = 8;
		ev.t_start = i * 1000 + 100;
		ev.t_end = ev.t_start + 10 * (1 + rank);
		tc_aseq_on_event(q, &ev);
	}
	return q;
}

/* Row r of an alignment block as letters and '-' for gaps. */
static char *row_str(const struct tc_msa *m, size_t r, const char *seq)
{
	char *s = tc_xmalloc(m->ncols + 1);
	for (size_t c = 0; c < m->ncols; c++) {
		int64_t e = m->cell[r * m->ncols + c];
		s[c] = e < 0 ? '-' : seq[e];
	}
	s[m->ncols] = '\0';
	return s;
}

TEST(msa_progressive_three)
{
	const char *in[3] = { "abcde", "abde", "abxcde" };
	struct tc_aseq *q[3];
	struct tc_msa m;
	struct tc_msa_opts o = { TC_ASCORE_DEFAULT, TC_AENGINE_AUTO };
	struct tc_msa_stats st;
	struct tc_error err;
	char *r0, *r1, *r2;

	for (int i = 0; i < 3; i++)
		q[i] = letters(in[i], i);
	tc_msa_init(&m);
	CHECK(tc_msa_progressive(q, 3, &o, &m, &err) == 0);
	CHECK(tc_msa_check(&m, q));
	CHECK_EQ_U64(m.nrows, 3);
	CHECK_EQ_U64(m.ncols, 6);
	r0 = row_str(&m, 0, in[0]);
	r1 = row_str(&m, 1, in[1]);
	r2 = row_str(&m, 2, in[2]);
	CHECK_STR(r0, "ab-cde");
	CHECK_STR(r1, "ab--de");
	CHECK_STR(r2, "abxcde");
	/* row 2 joins first (5 of its 6 events in row 0, against 4 of 5),
	 * then row 1, both against row 0 */
	CHECK_EQ_U64(m.order[1], 2);
	CHECK_EQ_U64(m.order[2], 1);
	CHECK_EQ_U64(m.guide[1], 0);
	CHECK_EQ_U64(m.guide[2], 0);
	tc_msa_stats(&m, q, &st);
	CHECK_EQ_U64(st.conserved, 4);
	CHECK_EQ_U64(st.gapped, 2);
	free(r0);
	free(r1);
	free(r2);
	tc_msa_release(&m);
	for (int i = 0; i < 3; i++)
		tc_aseq_free(&q[i]);
}

/* Slides 14-15: A = cb, B = bc, C = cbb? -- the block keeps every row's
 * events in order and opens a column for every unmatched event. */
TEST(msa_progressive_weber)
{
	const char *in[4] = { "cb", "bc", "cbb", "cbcb" };
	struct tc_aseq *q[4];
	struct tc_msa m;
	struct tc_msa_opts o = { TC_ASCORE_DEFAULT, TC_AENGINE_AUTO };
	struct tc_error err;

	for (int i = 0; i < 4; i++)
		q[i] = letters(in[i], i);
	tc_msa_init(&m);
	CHECK(tc_msa_progressive(q, 4, &o, &m, &err) == 0);
	CHECK(tc_msa_check(&m, q));
	CHECK(m.ncols >= 4 && m.ncols <= 6);
	CHECK_EQ_U64(m.pairs, 3);
	tc_msa_release(&m);
	for (int i = 0; i < 4; i++)
		tc_aseq_free(&q[i]);
}

/* ---- synth-generated sequences -------------------------------------------- */

static struct tc_aseq *synth_seq(const char *pattern, int32_t ranks, int32_t rank, int iters,
				 uint64_t seed)
{
	struct tc_synth_opts o;
	struct tc_synth_sink sink = { tc_aseq_on_callsite, NULL, tc_aseq_on_event };
	struct tc_aseq *s = tc_aseq_new(rank, ranks);
	struct tc_error err;

	memset(&o, 0, sizeof(o));
	o.pattern = pattern;
	o.ranks = ranks;
	o.iters = iters;
	o.seed = seed;
	o.jitter = 0.2;
	CHECK(tc_synth_validate(&o, &err) == 0);
	CHECK(tc_synth_rank(&o, rank, &sink, s, &err) == 0);
	return s;
}

TEST(ctree_stencil)
{
	struct tc_aseq *s = synth_seq("stencil2d", 16, 5, 3, 1);
	struct tc_ctree t;
	size_t leaves = 0, maxd = 0;

	tc_ctree_build(&t, s);
	for (size_t i = 0; i < t.n; i++) {
		leaves += t.node[i].leaf;
		if (t.node[i].depth > maxd)
			maxd = t.node[i].depth;
		for (size_t c = 0; c < t.node[i].nchild; c++) {
			const struct tc_ctree_node *ch = &t.node[t.node[i].child[c]];
			CHECK(ch->depth == t.node[i].depth + 1);
			CHECK(ch->first >= t.node[i].first && ch->last <= t.node[i].last);
		}
	}
	CHECK_EQ_U64(leaves, s->n);
	/* root -> main -> timestep -> halo_exchange -> exchange_X -> MPI */
	CHECK_EQ_U64(maxd, 5);
	CHECK_EQ_U64(t.node[0].nchild, 1);
	CHECK_STR(t.node[t.node[0].child[0]].fn, "main");
	tc_ctree_release(&t);
	tc_aseq_free(&s);
}

TEST(msa_hierarchical_stencil)
{
	int32_t ranks[] = { 0, 1, 5, 6, 15 };
	struct tc_aseq *q[5];
	struct tc_msa h, p;
	struct tc_msa_opts o = { TC_ASCORE_DEFAULT, TC_AENGINE_AUTO };
	struct tc_msa_stats sh, sp;
	struct tc_error err;

	for (int i = 0; i < 5; i++)
		q[i] = synth_seq("stencil2d", 16, ranks[i], 4, 1);
	tc_msa_init(&h);
	tc_msa_init(&p);
	CHECK(tc_msa_hierarchical(q, 5, &o, &h, &err) == 0);
	CHECK(tc_msa_progressive(q, 5, &o, &p, &err) == 0);
	CHECK(tc_msa_check(&h, q));
	CHECK(tc_msa_check(&p, q));
	tc_msa_stats(&h, q, &sh);
	tc_msa_stats(&p, q, &sp);
	/* no column mixes two symbols in the hierarchical block */
	CHECK_EQ_U64(sh.mixed, 0);
	/* the calls every rank makes: Init, per step Waitall and Allreduce,
	 * Finalize -> conserved in both */
	CHECK(sh.conserved >= 2 + 2 * 4);
	CHECK(sp.conserved >= 2 + 2 * 4);
	/* the hierarchical variant aligns much shorter sequences */
	CHECK(h.cells < p.cells);
	tc_msa_release(&h);
	tc_msa_release(&p);
	for (int i = 0; i < 5; i++)
		tc_aseq_free(&q[i]);
}

TEST(cgraph_stencil)
{
	struct tc_cgraph *g = tc_cgraph_new(16);
	struct tc_cgraph_info info;
	struct tc_strbuf sb = TC_STRBUF_INIT;

	for (int32_t r = 0; r < 16; r++) {
		struct tc_aseq *s = synth_seq("stencil2d", 16, r, 2, 1);
		tc_cgraph_add(g, (size_t)r, s);
		tc_aseq_free(&s);
	}
	tc_cgraph_info(g, &info);
	/* exchange_{west,east,north,south} are each missing on some ranks */
	CHECK(info.partial >= 4);
	tc_cgraph_dot(g, &sb);
	CHECK(strstr(sb.buf, "digraph merged_call_graph") != NULL);
	CHECK(strstr(sb.buf, "stencil2d_exchange_east\\n12/16 processes") != NULL);
	tc_strbuf_reset(&sb);
	tc_cgraph_svg(g, &sb);
	CHECK(strstr(sb.buf, "<svg") != NULL && strstr(sb.buf, "</svg>") != NULL);
	tc_strbuf_release(&sb);
	tc_cgraph_free(&g);
}

/* ---- function pairs and the concept lattice ----------------------------------- */

static struct tc_fpairs *fp_letters(const char *s, int32_t rank)
{
	struct tc_aseq *q = letters(s, rank);
	struct tc_fpairs *p = tc_fpairs_new(rank);

	tc_fpairs_from_aseq(p, q);
	tc_aseq_free(&q);
	return p;
}

TEST(fpairs_of_frames)
{
	struct tc_fpairs *p = fp_letters("abab", 0);

	/* main->fa, main->fb, fa->MPI_Send, fb->MPI_Send */
	CHECK_EQ_U64(tc_fpairs_count(p), 4);
	CHECK_STR(tc_fpairs_get(p, 0), "fa\tMPI_Send");
	CHECK_STR(tc_fpairs_get(p, 3), "main\tfb");
	tc_fpairs_free(&p);
}

/*
 * The hand example: P1 = {a, b}, P2 = {b, c}, P3 = {a, c} over the
 * attributes "main->fx" and "fx->MPI_Send" for x in a, b, c, plus P4 = P1.
 * Per letter the two pairs always come together, so the lattice is that
 * of the letters: the Boolean lattice of {a, b, c} with the empty
 * extent at the bottom: 8 concepts, 12 cover edges; 3 groups.
 */
TEST(lattice_hand_example)
{
	struct tc_fpairs *p[4];
	struct tc_structural *s;
	struct tc_structural_opts o = { 1.0, 0 };
	struct tc_error err;
	size_t n;
	const size_t *m;

	p[0] = fp_letters("ab", 10);
	p[1] = fp_letters("bc", 11);
	p[2] = fp_letters("ca", 12);
	p[3] = fp_letters("ba", 13);
	CHECK(tc_structural_build(&s, p, 4, &o, NULL, &err) == 0);
	CHECK_EQ_U64(tc_structural_npairs(s), 6);
	CHECK_EQ_U64(tc_structural_nconcepts(s), 8);
	CHECK_EQ_U64(tc_structural_nedges(s), 12);
	CHECK_EQ_U64(tc_structural_ngroups(s), 3);
	m = tc_structural_group(s, 0, &n);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(m[0], 0);
	CHECK_EQ_U64(m[1], 3);
	CHECK_EQ_U64(tc_structural_group_of(s, 2), 2);
	/* |{a,b} n {b,c}| / |{a,b,c}| on pairs: 2 / 6 */
	CHECK(fabs(tc_structural_sim(s, 0, 1) - 2.0 / 6.0) < 1e-12);
	CHECK(tc_structural_sim(s, 0, 3) == 1.0);
	tc_structural_free(&s);

	/* joined at threshold 1/3: one group */
	o.threshold = 0.3;
	CHECK(tc_structural_build(&s, p, 4, &o, NULL, &err) == 0);
	CHECK_EQ_U64(tc_structural_ngroups(s), 1);
	tc_structural_free(&s);

	/* a nested example: {a} < {a,c} < {a,b,c}: a chain of 3 concepts */
	for (int i = 0; i < 4; i++)
		tc_fpairs_free(&p[i]);
	p[0] = fp_letters("abc", 0);
	p[1] = fp_letters("ac", 1);
	p[2] = fp_letters("a", 2);
	p[3] = fp_letters("ca", 3);
	o.threshold = 1.0;
	CHECK(tc_structural_build(&s, p, 4, &o, NULL, &err) == 0);
	CHECK_EQ_U64(tc_structural_nconcepts(s), 3);
	CHECK_EQ_U64(tc_structural_nedges(s), 2);
	CHECK_EQ_U64(tc_structural_ngroups(s), 3);
	CHECK(fabs(tc_structural_sim(s, 0, 1) - 4.0 / 6.0) < 1e-12);
	CHECK(fabs(tc_structural_sim(s, 1, 2) - 2.0 / 4.0) < 1e-12);
	tc_structural_free(&s);
	/* the cap on concepts is an error, not a crash */
	o.max_concepts = 2;
	CHECK(tc_structural_build(&s, p, 4, &o, NULL, &err) == TC_ERR);
	CHECK(s == NULL);
	for (int i = 0; i < 4; i++)
		tc_fpairs_free(&p[i]);
}

/* Corner, edge and interior ranks of a 2D stencil call different exchange
 * functions: the structural groups are the truth's nine roles. */
TEST(structural_stencil2d_groups)
{
	struct tc_fpairs *p[16];
	struct tc_structural *s;
	struct tc_structural_opts o = { 1.0, 0 };
	struct tc_error err;
	size_t n;
	const size_t *m;

	for (int32_t r = 0; r < 16; r++) {
		struct tc_aseq *q = synth_seq("stencil2d", 16, r, 2, 1);
		p[r] = tc_fpairs_new(r);
		tc_fpairs_from_aseq(p[r], q);
		tc_aseq_free(&q);
	}
	CHECK(tc_structural_build(&s, p, 16, &o, NULL, &err) == 0);
	CHECK_EQ_U64(tc_structural_ngroups(s), 9);
	/* interior ranks 5, 6, 9, 10 */
	m = tc_structural_group(s, tc_structural_group_of(s, 5), &n);
	CHECK_EQ_U64(n, 4);
	CHECK(m[0] == 5 && m[1] == 6 && m[2] == 9 && m[3] == 10);
	CHECK(tc_structural_sim(s, 0, 5) < 1.0);
	CHECK(tc_structural_sim(s, 0, 15) < tc_structural_sim(s, 0, 1));
	tc_structural_free(&s);
	for (int r = 0; r < 16; r++)
		tc_fpairs_free(&p[r]);
}

/* ---- diff ---------------------------------------------------------------------- */

TEST(diff_same_structure_other_seed)
{
	struct tc_aseq *a = synth_seq("stencil2d", 16, 5, 5, 1);
	struct tc_aseq *b = synth_seq("stencil2d", 16, 5, 5, 2);
	struct tc_diff_opts o = { TC_ASCORE_DEFAULT, TC_AENGINE_AUTO, 3 };
	struct tc_diff_rank d;
	struct tc_error err;

	CHECK(tc_diff_rank(a, b, &o, &d, &err) == 0);
	CHECK_EQ_U64(d.al.matches, a->n);
	CHECK_EQ_U64(d.first_div, SIZE_MAX);
	CHECK_EQ_U64(d.param_diffs, 0);
	CHECK_EQ_U64(d.ntop, 3);
	CHECK(d.top[0].delta != 0);
	/* the deltas add up to the difference of the spans */
	CHECK_EQ_I64(d.delta_total - (int64_t)tc_aseq_comp_ns(b, 0) +
		     (int64_t)tc_aseq_comp_ns(a, 0),
		     (int64_t)d.span_b - (int64_t)d.span_a);
	tc_diff_rank_release(&d);
	tc_aseq_free(&a);
	tc_aseq_free(&b);
}

TEST(diff_divergence)
{
	struct tc_aseq *a = letters("abcdefg", 3);
	struct tc_aseq *b = letters("abcxefg", 3);
	struct tc_diff_opts o = { TC_ASCORE_DEFAULT, TC_AENGINE_AUTO, 10 };
	struct tc_diff_rank d;
	struct tc_error err;

	CHECK(tc_diff_rank(a, b, &o, &d, &err) == 0);
	CHECK_EQ_U64(d.first_div, 3);
	CHECK_EQ_U64(d.first_div_a, 3);
	CHECK_EQ_U64(d.first_div_b, 3);
	CHECK_EQ_U64(d.al.matches, 6);
	CHECK_EQ_U64(d.ntop, 6);
	tc_diff_rank_release(&d);
	tc_aseq_free(&a);
	tc_aseq_free(&b);
}

/* ---- call sites across runs ------------------------------------------------------ */

TEST(module_key_roles)
{
	CHECK(tc_module_is_shared("/usr/lib/x86_64-linux-gnu/libmpi.so.40"));
	CHECK(tc_module_is_shared("libc.so.6"));
	CHECK(tc_module_is_shared("/opt/app/plugin.so"));
	CHECK(tc_module_is_shared("linux-vdso.so.1"));
	CHECK(!tc_module_is_shared("/home/u/bin/solver"));
	CHECK(!tc_module_is_shared("/home/u/bin/solver.sorted"));
	CHECK(!tc_module_is_shared("/tmp/lib.so.d/app"));
	CHECK(!tc_module_is_shared(""));
	/* the main program by its role, libraries by their file name */
	CHECK_EQ_U64(tc_module_key("/home/u/bin/solver"), tc_module_key("/scratch/solver2"));
	CHECK_EQ_U64(tc_module_key("/usr/lib/libmpi.so.40"), tc_module_key("/opt/ompi/lib/libmpi.so.40"));
	CHECK(tc_module_key("/usr/lib/libmpi.so.40") != tc_module_key("/usr/lib/libmpi.so.12"));
	CHECK(tc_module_key("/usr/lib/libmpi.so.40") != tc_module_key("/home/u/bin/solver"));
	CHECK_EQ_U64(tc_module_key(""), 0);
}

/* One rank of two Sends from main at 0x1200 and 0x1234 of module exe,
 * through libfoo at lib, symbolised when sym. */
static struct tc_aseq *two_sends(const char *exe, const char *lib, bool sym, uint64_t second)
{
	struct tc_aseq *q = tc_aseq_new(0, 2);
	uint64_t off[2] = { 0x1200, second };

	for (uint32_t k = 0; k < 2; k++) {
		struct tc_frame fr[2];
		struct tc_callsite cs;
		struct tc_event ev;
		fr[0].module = lib;
		fr[0].offset = 0x40;
		fr[0].symbol = sym ? "foo_send+0x40" : "";
		fr[1].module = exe;
		fr[1].offset = off[k];
		fr[1].symbol = sym ? (k ? "main+0x34" : "main+0x0") : "";
		cs.id = k;
		cs.nframes = 2;
		cs.frames = fr;
		cs.signature = tc_stack_signature(fr, 2);
		tc_aseq_on_callsite(q, &cs);
		tc_event_init(&ev);
		ev.op = TC_OP_SEND;
		ev.callsite = k;
		ev.fields = TC_F_PEER | TC_F_COUNT;
		ev.peer = 1;
		ev.count = 8;
		ev.t_start = 100 + 1000 * k;
		ev.t_end = ev.t_start + 10;
		tc_aseq_on_event(q, &ev);
	}
	return q;
}

TEST(site_key_ignores_program_path)
{
	for (int sym = 0; sym < 2; sym++) {
		struct tc_aseq *a = two_sends("/home/u/app", "/usr/lib/libfoo.so.1", sym, 0x1234);
		struct tc_aseq *b = two_sends("/scratch/copy/app2", "/opt/lib/libfoo.so.1", sym,
					      0x1234);
		struct tc_aseq *c = two_sends("/home/u/app", "/usr/lib/libfoo.so.1", sym, 0x1238);
		struct tc_aseq *d = two_sends("/home/u/app", "/usr/lib/libbar.so.1", sym, 0x1234);
		struct tc_strbuf why = TC_STRBUF_INIT;

		/* the recorded signatures differ (they hash the file name) */
		CHECK(a->sites[0].signature != b->sites[0].signature);
		for (int key = TC_AKEY_SITE; key <= TC_AKEY_FUNCTION; key++) {
			tc_aseq_rekey(a, key);
			tc_aseq_rekey(b, key);
			CHECK_EQ_U64(a->sym[0], b->sym[0]);
			CHECK_EQ_U64(a->sym[1], b->sym[1]);
			/* both from main: one function, two call sites */
			CHECK((a->sym[0] != a->sym[1]) == (key == TC_AKEY_SITE || !sym));
		}
		tc_aseq_rekey(a, TC_AKEY_SITE);
		tc_aseq_rekey(b, TC_AKEY_SITE);
		tc_aseq_explain(a, 1, b, 1, &why);
		CHECK_STR(why.buf ? why.buf : "", "");
		/* another call site of the same function */
		CHECK(a->sym[1] != c->sym[1]);
		CHECK_EQ_U64(a->sym[0], c->sym[0]);
		tc_aseq_explain(a, 1, c, 1, &why);
		CHECK_STR(why.buf, sym ? "call-site frame #1: A /home/u/app+0x1234 (main+0x34), "
				   "B /home/u/app+0x1238 (main+0x34)"
				 : "call-site frame #1: A /home/u/app+0x1234, B /home/u/app+0x1238");
		tc_strbuf_release(&why);
		/* another library */
		CHECK(a->sym[0] != d->sym[0]);
		tc_aseq_explain(a, 0, d, 0, &why);
		CHECK(why.buf && strstr(why.buf, "call-site frame #0: A /usr/lib/libfoo.so.1+0x40"));
		tc_strbuf_release(&why);
		tc_aseq_explain(a, 0, d, SIZE_MAX, &why);
		CHECK_STR(why.buf, "B has no event here");
		tc_strbuf_release(&why);
		tc_aseq_free(&a);
		tc_aseq_free(&b);
		tc_aseq_free(&c);
		tc_aseq_free(&d);
	}
}
