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

#endif
