/*
 * gapcpu.h - the CPU time of recorded compute gaps on a shared node, a
 * pure function of the recorded timeline (gapcpu.c; no MPI, so that it
 * is tested alone).
 */
#ifndef TC_CMD_MPI_GAPCPU_H
#define TC_CMD_MPI_GAPCPU_H

#include "lib/compat.h"

/* The node the gaps were recorded on. */
struct tc_gapcpu_node {
	double cores;             /* C, > 0: cores, or the share of them the
				   * job had (other jobs took the rest) */
	double other;             /* tasks of other jobs competing for the cores */
	double head;              /* ns a rank keeps its core after its MPI call
				   * returns (the rest of its scheduler slice) */
};

/* gaps[2j], gaps[2j+1]: start and end (ns, one clock for the node) of
 * the compute gap j of any of the node's ranks, n gaps in all; fills
 * cpu[j] with the CPU time (ns) gap j had. Each gap's CPU time is at
 * most its length, and the gaps together never have more than C cores'
 * worth at any moment. */
void tc_gapcpu(const int64_t *gaps, size_t n, const struct tc_gapcpu_node *node, double *cpu);

/*
 * A global trace's timeline is rebuilt from mean times: its ranks drift
 * from where they were, and their gaps overlap where they did not (on FT
 * at 16 ranks on 2 cores, never more than 2 ranks in gaps at once when
 * recorded; up to 5 on the rebuilt timeline, 10% of its gap time over 2).
 * The trace keeps the recorded concurrency (exact[k-1]: the time during
 * which k ranks were in gaps, ne entries); approx is the rebuilt
 * timeline's (na entries). Returns the factor that brings the gaps' CPU
 * time on the rebuilt timeline to the recorded one's, each taken as the
 * sum over k of t_k min(k, C) (the cores going round the ranks in gaps);
 * 1 when either has none.
 */
double tc_gapcpu_calibration(const uint64_t *exact, size_t ne, const uint64_t *approx, size_t na,
			     double cores);

/* Scale the CPU times cpu[j] of the n gaps (start gaps[2j], end
 * gaps[2j+1]) so that together they have factor times what they had, none
 * more than its gap's length (all of them their lengths when that is not
 * enough): cpu[j] becomes min(f cpu[j], length), f found for the total.
 * Returns f. */
double tc_gapcpu_scale(double *cpu, const int64_t *gaps, size_t n, double factor);

#endif
