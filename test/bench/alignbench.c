/*
 * alignbench - time and peak memory of aligning two ranks' event
 * sequences (make bench, align/ section).
 *
 *   alignbench [--engine lcs|nw|full] [--events N] [--pattern P]
 *              [--ranks P] [--pair A,B]
 *
 * Generates the two ranks with synth (ranks 1 and 5, an edge and an
 * interior rank of stencil2d on 16 ranks, by default; the iteration count
 * chosen so that the longer rank has N events or a few more),
 * then aligns them once and prints one line:
 *
 *   engine=lcs events=100000,60000 seconds=0.41 peak_kib=12345 base_kib=9000 score=...
 *
 * peak_kib is the process's high-water resident size after the alignment
 * (getrusage), base_kib the same before it: the difference is what the
 * alignment itself took.
 */
#include "lib/compat.h"
#include "align/align.h"
#include "lib/error.h"
#include "lib/synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static long peak_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct tc_aseq *gen(struct tc_synth_opts *o, int32_t rank)
{
	struct tc_synth_sink sink = { tc_aseq_on_callsite, NULL, tc_aseq_on_event };
	struct tc_aseq *s = tc_aseq_new(rank, o->ranks);
	struct tc_error err;

	if (tc_synth_rank(o, rank, &sink, s, &err)) {
		fprintf(stderr, "alignbench: synth failed: %s\n", err.msg);
		exit(1);
	}
	return s;
}

int main(int argc, char **argv)
{
	struct tc_synth_opts o;
	struct tc_alignment al;
	struct tc_ascore sc = TC_ASCORE_DEFAULT;
	struct tc_aseq *a, *b;
	struct tc_error err;
	const char *engine = "lcs";
	long events = 100000, base;
	int32_t ra = 1, rb = 5;
	int eng;
	double t0, t1;

	memset(&o, 0, sizeof(o));
	o.pattern = "stencil2d";
	o.ranks = 16;
	o.seed = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--engine") && i + 1 < argc)
			engine = argv[++i];
		else if (!strcmp(argv[i], "--events") && i + 1 < argc)
			events = atol(argv[++i]);
		else if (!strcmp(argv[i], "--pattern") && i + 1 < argc)
			o.pattern = argv[++i];
		else if (!strcmp(argv[i], "--ranks") && i + 1 < argc)
			o.ranks = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pair") && i + 1 < argc &&
			 sscanf(argv[i + 1], "%d,%d", &ra, &rb) == 2)
			i++;
		else {
			fprintf(stderr, "usage: alignbench [--engine lcs|nw|full] [--events N] "
				"[--pattern P] [--ranks P] [--pair A,B]\n");
			return 2;
		}
	}
	eng = tc_aengine_from_name(engine);
	if (eng < 0 || events < 1) {
		fprintf(stderr, "alignbench: bad --engine or --events\n");
		return 2;
	}
	/* calibrate: events per iteration of the longer rank, from 10 and 20 */
	o.iters = 10;
	if (tc_synth_validate(&o, &err)) {
		fprintf(stderr, "alignbench: %s\n", err.msg);
		return 2;
	}
	{
		size_t n10, n20, per, fixed;
		a = gen(&o, ra);
		b = gen(&o, rb);
		n10 = TC_MAX(a->n, b->n);
		tc_aseq_free(&a);
		tc_aseq_free(&b);
		o.iters = 20;
		a = gen(&o, ra);
		b = gen(&o, rb);
		n20 = TC_MAX(a->n, b->n);
		tc_aseq_free(&a);
		tc_aseq_free(&b);
		per = (n20 - n10) / 10;
		fixed = n10 - 10 * per;
		if (!per || (size_t)events <= fixed)
			o.iters = 1;
		else
			o.iters = (int32_t)(((size_t)events - fixed + per - 1) / per);
	}
	a = gen(&o, ra);
	b = gen(&o, rb);
	base = peak_kib();
	tc_alignment_init(&al);
	t0 = now();
	if (tc_align_pair(a->sym, a->n, b->sym, b->n, &sc, eng, &al, &err)) {
		fprintf(stderr, "alignbench: %s\n", err.msg);
		return 1;
	}
	t1 = now();
	printf("engine=%s events=%zu,%zu seconds=%.3f peak_kib=%ld base_kib=%ld score=%" PRId64
	       " matches=%" PRIu64 "\n", engine, a->n, b->n, t1 - t0, peak_kib(), base, al.score,
	       al.matches);
	tc_alignment_release(&al);
	tc_aseq_free(&a);
	tc_aseq_free(&b);
	return 0;
}
