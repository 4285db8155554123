/*
 * share.c - the CPU time of each recorded compute gap (--compute cpu).
 *
 * A gap's recorded time is wall-clock time: on a node with more ranks
 * than cores it includes the time the rank waited for a core. Its CPU
 * time is estimated from the recorded timeline of the node's ranks
 * (gapcpu.c, the model), gathered here: each rank's gaps, its timeline
 * starting at the end of its MPI_Init, which the ranks leave together.
 * The replay then spins for that CPU time, and the scheduler stretches
 * it back to wall time as it stretched the application's computing.
 */
#include "lib/compat.h"
#include "cmd/mpi/internal.h"
#include "cmd/mpi/gapcpu.h"
#include "lib/event.h"
#include "lib/skew.h"
#include "lib/xalloc.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* gaps gathered from the node at most, else a share for all (memory) */
#define MAX_NODE_GAPS (1u << 23)

/*
 * The cores the node's ranks run on: the union of their affinity masks.
 * One rank's mask is not the node's: a launcher that binds each rank to
 * a core (Open MPI does when there are no more ranks than cores) gives
 * every rank a mask of one core, and a model of 16 bound ranks on one
 * core would take their gaps for a sixteenth of their time.
 */
int tc_replay_node_cores(int *ranks)
{
	MPI_Comm node;
	cpu_set_t set, all;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int cores;

	/* a rank that cannot tell its mask may run anywhere */
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		CPU_ZERO(&set);
		for (long c = 0; c < online && c < CPU_SETSIZE; c++)
			CPU_SET((int)c, &set);
	}
	all = set;
	*ranks = 1;
	if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
				 &node) == MPI_SUCCESS) {
		PMPI_Comm_size(node, ranks);
		PMPI_Allreduce(&set, &all, (int)sizeof(set), MPI_BYTE, MPI_BOR, node);
		PMPI_Comm_free(&node);
	}
	cores = CPU_COUNT(&all);
	return cores > 0 ? cores : online > 0 ? (int)online : 1;
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

/* measuring the node's share: every rank spins from a moment PROBE_LEAD_NS
 * ahead, when all are runnable, for PROBE_NS more */
#define PROBE_LEAD_NS 30000000u
#define PROBE_NS 50000000u

double tc_replay_node_share(int cores)
{
	MPI_Comm node;
	double cpu, sum = 0, share;
	uint64_t c0, t0 = 0;
	int size, me;

	if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
				 &node) != MPI_SUCCESS)
		return 1;
	PMPI_Comm_size(node, &size);
	PMPI_Comm_rank(node, &me);
	/* one clock for the node's ranks: the window is the same for all */
	if (me == 0)
		t0 = tc_rp_wall_ns() + PROBE_LEAD_NS;
	PMPI_Bcast(&t0, 1, MPI_UINT64_T, 0, node);
	while (tc_rp_wall_ns() < t0)
		;
	c0 = tc_rp_cpu_ns();
	while (tc_rp_wall_ns() < t0 + PROBE_NS)
		;
	/* the CPU time the ranks had in the window against the cores' */
	cpu = (double)(tc_rp_cpu_ns() - c0);
	PMPI_Allreduce(&cpu, &sum, 1, MPI_DOUBLE, MPI_SUM, node);
	PMPI_Comm_free(&node);
	share = sum / ((double)PROBE_NS * (size < cores ? size : cores));
	return share > 1 ? 1 : share < 0.01 ? 0.01 : share;
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
 * pairs from base on the rank's clock (see node_base), and the event each
 * precedes. */
static size_t own_gaps(const struct tc_revents *e, int64_t base, int64_t **out, size_t **at)
{
	struct tc_gap_cursor gc = { 0, false };
	int64_t *g = tc_xmalloc(tc_st_mult(e->n ? e->n : 1, 2 * sizeof(*g)));
	size_t *idx = tc_xmalloc(tc_st_mult(e->n ? e->n : 1, sizeof(*idx))), n = 0;
	uint64_t from;

	for (size_t i = 0; i < e->n; i++) {
		if (tc_gap_next(&gc, &e->ev[i], &from)) {
			g[2 * n] = (int64_t)from - base;
			g[2 * n + 1] = (int64_t)e->ev[i].t_start - base;
			idx[n++] = i;
		}
	}
	*out = g;
	*at = idx;
	return n;
}

/*
 * Where the rank's timeline starts (see own_gaps): the rank's recorded
 * times less the base are ns from the moment the first of the node's
 * ranks ended its MPI_Init. They ended it milliseconds apart, as many as
 * there are ranks per core times a scheduler slice (8 ms for FT at 16
 * ranks on 2 cores), and their gaps overlap accordingly: where the trace
 * says when each ended it on the recording host's clock (lib/skew.h: a
 * global trace that keeps the skews, or raw files recorded on one host,
 * from their start times) they are put on that clock; else they are taken
 * to have left MPI_Init together. *files: whether they were.
 */
static int64_t node_base(const struct tc_revents *e, MPI_Comm node, int size, int me,
			 bool *files)
{
	uint64_t mine[4] = { e->start_ns, e->n ? e->ev[0].t_end : 0, e->host, e->skew }, *all;
	uint64_t *start, *end, *skew;
	bool kept = true, one_host = true;
	int64_t b;

	/* all: each rank's four; then start, end and skew, size each */
	all = tc_xmalloc(tc_st_mult((size_t)size, 7 * sizeof(*all)));
	start = all + 4 * (size_t)size;
	end = start + size;
	skew = end + size;
	PMPI_Allgather(mine, 4, MPI_UINT64_T, all, 4, MPI_UINT64_T, node);
	for (int r = 0; r < size; r++) {
		start[r] = all[4 * r];
		end[r] = all[4 * r + 1];
		one_host = one_host && all[4 * r + 2] == all[2];
		kept = kept && all[4 * r + 3];
		skew[r] = all[4 * r + 3] - 1;
	}
	*files = kept || (one_host && tc_clock_skews((size_t)size, start, end, skew));
	b = *files ? (int64_t)end[me] - (int64_t)skew[me] : (int64_t)end[me];
	free(all);
	return b;
}

bool tc_replay_mpi_shares(struct tc_replay_mpi *s, bool *files, double *calib)
{
	MPI_Comm node;
	int64_t *mine, *all = NULL;
	double *cpu = NULL;
	size_t *at, n, total = 0;
	int size, world, me = 0, *counts, *displs, in;
	struct tc_gapcpu_node model = { .other = s->o->other_load };
	bool ok = false;

	*files = false;
	*calib = 1;
	PMPI_Comm_size(MPI_COMM_WORLD, &world);
	model.cores = s->o->node_cores;
	model.head = base_slice((int)model.cores) / 2;
	model.cores *= s->o->node_share > 0 ? s->o->node_share : 1;
	if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
				 &node) != MPI_SUCCESS)
		return false;
	PMPI_Comm_size(node, &size);
	PMPI_Comm_rank(node, &me);
	n = own_gaps(s->evs, node_base(s->evs, node, size, me, files), &mine, &at);
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
	cpu = tc_xmalloc(tc_st_mult(total / 2 ? total / 2 : 1, sizeof(*cpu)));
	tc_gapcpu(all, total / 2, &model, cpu);
	/* a rebuilt timeline's gaps brought to the recorded concurrency, when
	 * the trace keeps it and the node holds every rank it was of */
	if (*files && s->evs->nconc && size == world) {
		uint64_t *h = tc_xmalloc(tc_st_mult((size_t)size, sizeof(*h)));
		size_t nh = tc_gap_concurrency(all, total / 2, h, (size_t)size);
		*calib = tc_gapcpu_calibration(s->evs->conc, s->evs->nconc, h, nh, model.cores);
		tc_gapcpu_scale(cpu, all, total / 2, *calib);
		free(h);
	}
	s->gap_cpu = tc_xcalloc(s->evs->n ? s->evs->n : 1, sizeof(*s->gap_cpu));
	for (size_t j = 0; j < n; j++)
		s->gap_cpu[at[j]] = (uint64_t)cpu[(size_t)displs[me] / 2 + j];
	ok = true;
out:
	PMPI_Comm_free(&node);
	free(mine);
	free(at);
	free(all);
	free(cpu);
	free(counts);
	free(displs);
	return ok;
}
