/*
 * exact.c - the trace of one cluster whose members keep their own
 * parameters (lib/merge.h, tc_gtrace_exact_cluster).
 *
 * The papers let a cluster's lead stand for its members' parameters too
 * (dissertation §3.3): a member whose tags depend on its rank, whose
 * neighbours differ from its lead's relative ones, or whose colour and key
 * of MPI_Comm_split differ, comes back with its lead's. Here members whose
 * compressed sequences (relative peers, every parameter) are equal form a
 * group, each group's sequence stands for its members, groups other than
 * the lead's take the lead's times (tc_gtrace_borrow_times), and the
 * groups are merged parameter by parameter where their structures agree
 * (the "filtering" merge, Table 3.2). The clustering still decides whose
 * times stand for whom.
 */
#include "lib/compat.h"
#include "lib/merge.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/xalloc.h"

#include <stdlib.h>

/* Groups of members compared against at most this many others each. */
#define MAX_GROUPS 64

struct tc_gtrace *tc_gtrace_exact_cluster(const struct tc_rsd *const *seqs,
					  const uint64_t *events, const int32_t *ranks, size_t n,
					  size_t lead, int32_t world,
					  const struct tc_merge_opts *opts,
					  void (*on_leaf)(struct tc_gtrace *leaf, size_t member,
							  void *ctx),
					  void *ctx)
{
	size_t *rep = tc_xcalloc(n ? n : 1, sizeof(*rep));
	uint32_t *grp = tc_xcalloc(n ? n : 1, sizeof(*grp));
	struct tc_gtrace **leaves, *g;
	struct tc_merge_opts fo = *opts;
	size_t ng = 0, lead_g = 0;

	for (size_t k = 0; k < n; k++) {
		size_t q = ng, lo = ng > MAX_GROUPS ? ng - MAX_GROUPS : 0;
		for (size_t h = lo; h < ng; h++)
			if (tc_rsd_equal(seqs[rep[h]], seqs[k])) {
				q = h;
				break;
			}
		if (q == ng)
			rep[ng++] = k;
		grp[k] = (uint32_t)q;
		if (k == lead)
			lead_g = q;
	}
	/* the lead's group is read from the lead's own sequence */
	if (n)
		rep[lead_g] = lead;
	leaves = tc_xcalloc(ng ? ng : 1, sizeof(*leaves));
	for (size_t q = 0; q < ng; q++) {
		struct tc_ranklist rl;
		tc_ranklist_init(&rl);
		for (size_t k = 0; k < n; k++)
			if (grp[k] == q)
				tc_ranklist_add(&rl, ranks[k]);
		leaves[q] = tc_gtrace_from_rsd(seqs[rep[q]], &rl, world, events[rep[q]], opts);
		if (on_leaf)
			on_leaf(leaves[q], rep[q], ctx);
		tc_ranklist_release(&rl);
	}
	for (size_t q = 0; q < ng; q++)
		if (q != lead_g)
			tc_gtrace_borrow_times(leaves[q], leaves[lead_g]);
	fo.filtering = true;
	g = tc_gtrace_merge_tree(leaves, ng, NULL, &fo);
	free(leaves);
	free(rep);
	free(grp);
	return g;
}
