/*
 * gapcpu.c - the CPU time each recorded compute gap had, from the
 * recorded timeline of a node's ranks.
 *
 * A gap's recorded time is wall-clock time. With k tasks runnable on C
 * cores (k > C), a task that computes for g ns of CPU time takes about
 * g k / C ns of wall time: the cores go round the k tasks. Which tasks
 * are runnable at a moment the timeline tells: the ranks in a gap then
 * (a rank waiting in MPI is taken to yield its core, as Open MPI's
 * ranks do on an oversubscribed node), and the tasks of other jobs. Among
 * them it tells more: a rank whose MPI call has just returned held a
 * core to return from it, and keeps it for the rest of its scheduler
 * slice (the head of its gap, half a slice on average), while the ranks
 * further into their gaps wait for theirs. So at each moment, with h
 * ranks in the head of a gap and u further into one:
 *
 *   head share  min(1, C / h)
 *   tail share  min(1, R / (u + other)), R = C - h * head share
 *
 * the cores going first to the heads, the rest divided evenly among the
 * other ranks computing and the other jobs' tasks. A gap's CPU time is
 * the integral of its share over its length. Whatever the timeline, the
 * gaps never have more than C cores together: a short gap does not run
 * at full speed while more than C ranks start theirs.
 */
#include "lib/compat.h"
#include "cmd/mpi/gapcpu.h"
#include "lib/xalloc.h"

#include <stdlib.h>

struct edge {
	int64_t t;
	int dh, du;              /* change of the heads and of the tails */
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

/* the index of t in times[0..n), which holds it */
static size_t time_at(const int64_t *times, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (times[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* the end of the head of gap (a, b) */
static int64_t head_end(int64_t a, int64_t b, double head)
{
	return (double)(b - a) > head ? a + (int64_t)head : b;
}

void tc_gapcpu(const int64_t *gaps, size_t n, const struct tc_gapcpu_node *node, double *cpu)
{
	struct edge *e = tc_xmalloc(tc_st_mult(n ? 4 * n : 1, sizeof(*e)));
	int64_t *times;
	double *ch, *cu, C = node->cores > 0 ? node->cores : 1;
	double other = node->other > 0 ? node->other : 0, head = node->head > 0 ? node->head : 0;
	size_t ne = 0, nt = 0;
	int h = 0, u = 0;

	for (size_t j = 0; j < n; j++) {
		int64_t a = gaps[2 * j], b = gaps[2 * j + 1], m;
		if (b <= a)
			continue;
		m = head_end(a, b, head);
		if (m > a) {
			e[ne++] = (struct edge){ a, 1, 0 };
			e[ne++] = (struct edge){ m, -1, 0 };
		}
		if (b > m) {
			e[ne++] = (struct edge){ m, 0, 1 };
			e[ne++] = (struct edge){ b, 0, -1 };
		}
	}
	qsort(e, ne, sizeof(*e), edge_cmp);
	/* the integrals of the head and the tail shares up to each edge */
	times = tc_xmalloc(tc_st_mult(ne ? ne : 1, sizeof(*times)));
	ch = tc_xmalloc(tc_st_mult(ne ? ne : 1, sizeof(*ch)));
	cu = tc_xmalloc(tc_st_mult(ne ? ne : 1, sizeof(*cu)));
	for (size_t k = 0; k < ne; k++) {
		if (!nt || e[k].t != times[nt - 1]) {
			double dt = nt ? (double)(e[k].t - times[nt - 1]) : 0;
			double hs = h > C ? C / h : 1, r = C - h * hs;
			double us = u + other > r ? (r > 0 ? r / (u + other) : 0) : 1;
			times[nt] = e[k].t;
			ch[nt] = nt ? ch[nt - 1] + dt * hs : 0;
			cu[nt] = nt ? cu[nt - 1] + dt * us : 0;
			nt++;
		}
		h += e[k].dh;
		u += e[k].du;
	}
	for (size_t j = 0; j < n; j++) {
		int64_t a = gaps[2 * j], b = gaps[2 * j + 1], m;
		size_t ia, im, ib;
		if (b <= a) {
			cpu[j] = 0;
			continue;
		}
		m = head_end(a, b, head);
		ia = time_at(times, nt, a);
		im = time_at(times, nt, m);
		ib = time_at(times, nt, b);
		cpu[j] = (ch[im] - ch[ia]) + (cu[ib] - cu[im]);
	}
	free(e);
	free(times);
	free(ch);
	free(cu);
}

/* The CPU time of gaps whose concurrency is t[k-1], k = 1 .. n, on C cores. */
static double conc_cpu(const uint64_t *t, size_t n, double C)
{
	double s = 0;

	for (size_t k = 1; k <= n; k++)
		s += (double)t[k - 1] * ((double)k < C ? (double)k : C);
	return s;
}

double tc_gapcpu_calibration(const uint64_t *exact, size_t ne, const uint64_t *approx, size_t na,
			     double cores)
{
	double C = cores > 0 ? cores : 1;
	double e = conc_cpu(exact, ne, C), a = conc_cpu(approx, na, C);

	return e > 0 && a > 0 ? e / a : 1;
}

static double scaled_total(const double *cpu, const int64_t *gaps, size_t n, double f)
{
	double s = 0;

	for (size_t j = 0; j < n; j++) {
		double len = (double)(gaps[2 * j + 1] - gaps[2 * j]), c = f * cpu[j];
		s += c < len ? c : len;
	}
	return s;
}

double tc_gapcpu_scale(double *cpu, const int64_t *gaps, size_t n, double factor)
{
	double have = 0, room = 0, want, lo = 0, hi = 1;

	for (size_t j = 0; j < n; j++) {
		have += cpu[j];
		room += gaps[2 * j + 1] > gaps[2 * j] ? (double)(gaps[2 * j + 1] - gaps[2 * j]) : 0;
	}
	if (have <= 0 || factor <= 0)
		return 1;
	want = factor * have < room ? factor * have : room;
	/* the total is continuous and nondecreasing in f: bisect for it */
	while (scaled_total(cpu, gaps, n, hi) < want && hi < 1e9)
		hi *= 2;
	for (int i = 0; i < 64 && hi - lo > 1e-9 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (scaled_total(cpu, gaps, n, mid) < want)
			lo = mid;
		else
			hi = mid;
	}
	for (size_t j = 0; j < n; j++) {
		double len = (double)(gaps[2 * j + 1] - gaps[2 * j]), c = hi * cpu[j];
		cpu[j] = c < len ? c : len;
	}
	return hi;
}
