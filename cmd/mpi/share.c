/*
 * share.c - the CPU time of each recorded compute gap (--compute cpu).
 *
 * A gap's recorded time is wall-clock time: on a node with more ranks
 * than cores it includes the time the rank waited for a core. What it
 * computed is the gap's time times the share of a core it had, and that
 * share is estimated from the recorded timeline of the node's ranks: at
 * any moment the cores are divided among the ranks that are computing (in
 * a gap) then, a rank waiting in MPI taken to yield its core (Open MPI's
 * mpi_yield_when_idle, on by default when a node is oversubscribed);
 * the rank runs on uninterrupted for the rest of the scheduler's slice it
 * was in when its MPI call returned (half of one on average), and at that
 * share after.
 * Each rank's timeline starts at the end of its MPI_Init, which the ranks
 * leave together. The replay then spins for that CPU time, and the
 * scheduler stretches it back to wall time as it stretched the
 * application's computing.
 */
#include "lib/compat.h"
#include "cmd/mpi/internal.h"
#include "lib/event.h"
#include "lib/xalloc.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* gaps gathered from the node at most, else a share for all (memory) */
#define MAX_NODE_GAPS (1u << 23)

struct edge {
	int64_t t;
	int d;         /* +1 a gap starts, -1 one ends */
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static int time_cmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

int tc_replay_node_cores(int *ranks)
{
	MPI_Comm node;
	cpu_set_t set;
	int cores = 0;

	*ranks = 1;
	if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
				 &node) == MPI_SUCCESS) {
		PMPI_Comm_size(node, ranks);
		PMPI_Comm_free(&node);
	}
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		cores = CPU_COUNT(&set);
	if (cores <= 0)
		cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	return cores > 0 ? cores : 1;
}

/* sampling /proc/loadavg for the load of other jobs: every SAMPLE_NS,
 * SAMPLES times, after SETTLE_NS for the job's ranks to fall asleep */
#define SETTLE_NS 20000000L
#define SAMPLE_NS 5000000L
#define SAMPLES 20

static void nap(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* The runnable tasks of the node now, the reader included; -1 if unknown. */
static int runnable_now(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	int n = -1;

	if (f) {
		if (fscanf(f, "%*f %*f %*f %d/", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

double tc_replay_other_load(void)
{
	MPI_Comm node;
	double load = 0;
	int me = 0, got = 0, n;

	if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
				 &node) != MPI_SUCCESS)
		return 0;
	PMPI_Comm_rank(node, &me);
	PMPI_Barrier(node);
	/* the node's first rank counts while the others sleep */
	if (me == 0) {
		nap(SETTLE_NS);
		for (int i = 0; i < SAMPLES; i++) {
			if ((n = runnable_now()) >= 1) {
				load += n - 1;
				got++;
			}
			nap(SAMPLE_NS);
		}
		load = got ? load / got : 0;
	} else {
		nap(SETTLE_NS + SAMPLES * SAMPLE_NS + SETTLE_NS);
	}
	PMPI_Bcast(&load, 1, MPI_DOUBLE, 0, node);
	PMPI_Comm_free(&node);
	return load;
}

/* The time a task runs before the scheduler may give its core to another,
 * ns: Linux's base slice (0.75 ms times 1 + log2 of the cores, as the
 * kernel scales it), read where the kernel tells it. */
static double base_slice(int cores)
{
	FILE *f = fopen("/sys/kernel/debug/sched/base_slice_ns", "r");
	double ns = 0, scale = 1;

	if (f) {
		if (fscanf(f, "%lf", &ns) != 1)
			ns = 0;
		fclose(f);
		if (ns > 0)
			return ns;
	}
	for (int c = cores; c > 1; c /= 2)
		scale += 1;
	return 750000.0 * (scale < 4 ? scale : 4);
}

/* The gaps of the rank's events as the replay passes them: (start, end)
 * pairs from the end of the first event, and the event each precedes. */
static size_t own_gaps(const struct tc_revents *e, int64_t **out, size_t **at)
{
	uint64_t prev_end = 0, base = e->n ? e->ev[0].t_end : 0;
	int64_t *g = tc_xmalloc(tc_st_mult(e->n ? e->n : 1, 2 * sizeof(*g)));
	size_t *idx = tc_xmalloc(tc_st_mult(e->n ? e->n : 1, sizeof(*idx))), n = 0;

	for (size_t i = 0; i < e->n; i++) {
		const struct tc_event *ev = &e->ev[i];
		if (i && ev->t_start > prev_end && prev_end >= base) {
			g[2 * n] = (int64_t)(prev_end - base);
			g[2 * n + 1] = (int64_t)(ev->t_start - base);
			idx[n++] = i;
		}
		if (ev->t_end > prev_end || !i)
			prev_end = ev->t_end;
	}
	*out = g;
	*at = idx;
	return n;
}

bool tc_replay_mpi_shares(struct tc_replay_mpi *s)
{
	MPI_Comm node;
	int64_t *mine, *all = NULL, *times = NULL;
	double *cum = NULL;
	struct edge *edges = NULL;
	size_t *at, n, total = 0, nt = 0;
	int64_t busy = 0;
	double slice;
	int size, cores, ranks, *counts, *displs, in;
	double ext = s->o->other_load;
	bool ok = false;

	cores = tc_replay_node_cores(&ranks);
	slice = base_slice(cores);
	n = own_gaps(s->evs, &mine, &at);
	if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
				 &node) != MPI_SUCCESS) {
		free(mine);
		free(at);
		return false;
	}
	PMPI_Comm_size(node, &size);
	counts = tc_xmalloc(tc_st_mult((size_t)size, sizeof(*counts)));
	displs = tc_xmalloc(tc_st_mult((size_t)size, sizeof(*displs)));
	in = n > MAX_NODE_GAPS ? -1 : (int)(2 * n);
	PMPI_Allgather(&in, 1, MPI_INT, counts, 1, MPI_INT, node);
	for (int r = 0; r < size; r++) {
		if (counts[r] < 0 || total + (size_t)counts[r] > 2 * (size_t)MAX_NODE_GAPS)
			goto out; /* every rank sees the same: none gathers */
		displs[r] = (int)total;
		total += (size_t)counts[r];
	}
	all = tc_xmalloc(tc_st_mult(total ? total : 1, sizeof(*all)));
	PMPI_Allgatherv(mine, in, MPI_INT64_T, all, counts, displs, MPI_INT64_T, node);
	/* the number of ranks in a gap between consecutive edges, and the
	 * share of a core each had, summed from the first edge on */
	edges = tc_xmalloc(tc_st_mult(total ? total : 1, sizeof(*edges)));
	for (size_t k = 0; k < total; k++) {
		edges[k].t = all[k];
		edges[k].d = k % 2 ? -1 : 1;
	}
	qsort(edges, total, sizeof(*edges), edge_cmp);
	times = tc_xmalloc(tc_st_mult(total ? total : 1, sizeof(*times)));
	cum = tc_xmalloc(tc_st_mult(total ? total : 1, sizeof(*cum)));
	for (size_t k = 0; k < total; k++) {
		if (!nt || edges[k].t != times[nt - 1]) {
			double c = nt ? cum[nt - 1] : 0;
			if (nt && busy)
				c += (double)(edges[k].t - times[nt - 1]) *
			     (busy + ext > cores ? (double)cores / ((double)busy + ext) : 1.0);
			times[nt] = edges[k].t;
			cum[nt++] = c;
		}
		busy += edges[k].d;
	}
	s->gap_cpu = tc_xcalloc(s->evs->n ? s->evs->n : 1, sizeof(*s->gap_cpu));
	for (size_t j = 0; j < n; j++) {
		const int64_t *a = bsearch(&mine[2 * j], times, nt, sizeof(*times), time_cmp);
		const int64_t *b = bsearch(&mine[2 * j + 1], times, nt, sizeof(*times), time_cmp);
		double g = (double)(mine[2 * j + 1] - mine[2 * j]), c;
		if (!a || !b)
			continue;
		/* the rest of the slice the rank was in when its MPI call
		 * returned (half of one, on average) runs uninterrupted; the
		 * rest of the gap at the gap's mean share */
		c = cum[b - times] - cum[a - times];
		if (g <= slice / 2)
			c = g;
		else
			c = slice / 2 + (g - slice / 2) * (c / g);
		s->gap_cpu[at[j]] = (uint64_t)c;
	}
	ok = true;
out:
	PMPI_Comm_free(&node);
	free(mine);
	free(at);
	free(all);
	free(edges);
	free(times);
	free(cum);
	free(counts);
	free(displs);
	return ok;
}
