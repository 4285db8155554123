/*
 * internal.h - shared by the clustering modes (the files of cluster/); not public.
 */
#ifndef TC_CLUSTER_INTERNAL_H
#define TC_CLUSTER_INTERNAL_H

#include "lib/compat.h"
#include "cluster/cluster.h"

struct tc_pool;

/* ---- radix-tree forests (tree.c) --------------------------------------- */

/*
 * A forest of radix trees over input indices. Tree t holds the positions
 * [off[t], off[t+1]); its members idx[off[t]] ... in increasing rank
 * order; local node j's children are j*radix+1 .. j*radix+radix, so a
 * node's rank is below every rank of its subtree and the tree of all
 * ranks is ScalaTrace's radix tree rooted in rank 0. The forest is walked
 * bottom-up, one level (one depth, over all trees) at a time; the nodes of
 * a level run in parallel.
 */
struct tc_forest {
	size_t n;               /* positions */
	const uint32_t *idx;    /* position -> input index (borrowed) */
	size_t ntrees;
	const size_t *off;      /* ntrees + 1 (borrowed) */
	unsigned radix;
	uint32_t *tree;         /* position -> tree */
	size_t *order;          /* positions, deepest level first */
	size_t *level;          /* nlevels + 1 offsets into order */
	unsigned nlevels;
};

void tc_forest_init(struct tc_forest *f, const uint32_t *idx, size_t n, const size_t *off,
		 size_t ntrees, unsigned radix);
void tc_forest_release(struct tc_forest *f);
/* Children of pos: *first and the count (0 for a leaf); contiguous. */
size_t tc_forest_children(const struct tc_forest *f, size_t pos, size_t *first);
/* Run fn on every position, level by level, deepest first. */
typedef void (*tc_forest_fn)(const struct tc_forest *f, size_t pos, void *ctx);
void tc_forest_run(const struct tc_forest *f, struct tc_pool *pool, tc_forest_fn fn, void *ctx);

/* A cluster travelling up a tree: its head (an input index), its size
 * and, for the COUNT filter, the 128-bit sum of its members' COUNT. */
struct tc_titem {
	uint32_t head;
	uint32_t size;
	uint64_t lo, hi;
};

/* A node's list (one item inline for leaves). */
struct tc_tlist {
	struct tc_titem *v;
	size_t n;
	struct tc_titem one;
};

/* After a reduction that recorded merges in head[] (an absorbed head
 * points to the head it joined), point every member of the forest
 * straight at its cluster's head. */
void tc_forest_resolve(const struct tc_forest *f, uint32_t *head);

/* Free what tlist owns (not the inline item). */
void tc_tlist_release(struct tc_tlist *l);

/*
 * Exact-key reduction (§3.1, §3.2): a node merges, in order, its own
 * rank and its children's lists, each list sorted by key; clusters with
 * equal keys merge (when count is given, only when their mean COUNTs are
 * alike within threshold; the first alike one in list order), the head
 * is the lower index. keys[i*nk + j] is key j of input index i. On
 * return head[idx] (for every idx in the forest) is the head of its
 * cluster in its tree: its lowest index.
 */
struct tc_exact_spec {
	const uint64_t *keys;
	unsigned nk;
	const uint64_t *count;  /* NULL: no COUNT filter */
	double threshold;
};
void tc_exact_reduce(const struct tc_forest *f, const struct tc_exact_spec *s, struct tc_pool *pool,
		  uint32_t *head);

/* One tree over all n input indices. */
struct tc_all_tree {
	uint32_t *idx;
	size_t off[2];
};
void tc_all_tree_init(struct tc_all_tree *a, struct tc_forest *f, size_t n, unsigned radix);
void tc_all_tree_release(struct tc_all_tree *a);

/* Trees of the members of each group, groups in order of their first
 * member, members increasing: group[i] is the group of input index i
 * (< ngroups). */
struct tc_group_forest {
	uint32_t *idx;
	size_t *off;
};
void tc_group_forest_init(struct tc_group_forest *g, struct tc_forest *f, const uint32_t *group,
		       size_t n, size_t ngroups, unsigned radix);
void tc_group_forest_release(struct tc_group_forest *g);

/* Follow head[] to the root of each chain (path compression). */
void tc_resolve_heads(uint32_t *head, size_t n);

/*
 * Alg. 5 over a forest (kmodes.c): at every node K-Farthest (or PAM when
 * pam) keeps at most k[tree] of the node's and its children's clusters,
 * by the distances of mt over in->sigs; on return head[idx] is the head of
 * idx's cluster. Chameleon's find-top-K (Alg. 7) runs on it too.
 */
void tc_k_reduce(const struct tc_forest *f, const struct tc_cluster_metric *mt,
		 const struct tc_cluster_input *in, const uint32_t *k, bool pam,
		 const struct tc_cluster_opts *o, uint32_t *head);

/* ---- reductions run in parts (remote.c; tracecluster-mpi) -------------- */

/*
 * One radix-tree reduction, what its nodes read and what they write:
 * everything a process needs to run some subtrees of it
 * (tc_reduction_run_part in cluster.h) and to take others' results.
 */
enum { TC_RED_EXACT = 1, TC_RED_K = 2 };
struct tc_reduction {
	int kind;
	const struct tc_forest *f;
	struct tc_tlist *lists;       /* per position */
	uint32_t *head;               /* per input index (f->n of them) */
	struct tc_pool *pool;         /* the caller's threads (may be NULL) */
	const struct tc_exact_spec *exact;  /* TC_RED_EXACT */
	const struct tc_cluster_metric *mt; /* TC_RED_K (kmodes.c) */
	const struct tc_signatures *sigs;
	const uint32_t *k;            /* per tree */
	bool pam;
	uint64_t seed;
	/* the parts under part_depth (remote.c's cache; tc_reduction_release) */
	unsigned part_depth;
	size_t *part_rid, *part_roots;
	/* what an unpacked one owns (NULL otherwise) */
	struct tc_forest own_f;
	uint32_t *own_idx;
	size_t *own_off;
	struct tc_exact_spec own_exact;
	uint64_t *own_keys, *own_count;
	struct tc_cluster_metric own_mt;
	struct tc_signatures *own_sigs;
	uint32_t *own_k;
};
/* r of kind over f (lists and head: the reduction's own), zeroed else. */
void tc_reduction_init(struct tc_reduction *r, int kind, const struct tc_forest *f,
		       struct tc_tlist *lists, uint32_t *head, struct tc_pool *pool);
/* Hand the levels below some depth to the remote (tc_reduce_remote) if
 * one is set: returns that depth once their results are in r, 0 when
 * every level is the caller's. */
unsigned tc_reduction_remote(struct tc_reduction *r);
/* Free what the parts left in r (not r). */
void tc_reduction_release(struct tc_reduction *r);
/* Run fn on the positions above depth d (all when d is 0), bottom-up. */
void tc_forest_run_above(const struct tc_forest *f, unsigned d, struct tc_pool *pool,
			 tc_forest_fn fn, void *ctx);
/* The node function of each kind over the positions of view (f with a
 * subset of its levels): tree.c and kmodes.c. */
void tc_exact_run(struct tc_reduction *r, const struct tc_forest *view, struct tc_pool *pool);
void tc_k_run(struct tc_reduction *r, const struct tc_forest *view, struct tc_pool *pool);

/* ---- results (cluster.c) ------------------------------------------------ */

/*
 * Clusters from head[i] (the head, an input index, of i's cluster; the
 * head's rank is the lead), numbered in order of their first member;
 * cid[i] receives i's cluster id if cid is not NULL. Returns the array
 * (*n clusters).
 */
struct tc_cluster *tc_build_clusters(const struct tc_cluster_input *in, const uint32_t *head,
				  size_t *n, uint32_t *cid);
/* Free an array of clusters. */
void tc_free_clusters(struct tc_cluster *c, size_t n);
/* Set each sub-cluster's parent and each main cluster's subs, given the
 * main cluster of every input index. */
void tc_link_mains(struct tc_cluster *subs, size_t nsubs, struct tc_cluster *mains,
		size_t nmains, const uint32_t *main_of);
/* Heads that are the first member of a group: first[g] of group[i]. */
void tc_heads_from_groups(const uint32_t *group, size_t n, uint32_t *head);

/* ---- the modes ----------------------------------------------------------- */

int tc_mode_callpath(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		      struct tc_clustering *out, struct tc_error *err);
int tc_mode_callpath_param(const struct tc_cluster_input *in,
			    const struct tc_cluster_opts *o, struct tc_clustering *out,
			    struct tc_error *err);
int tc_mode_reference(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		       struct tc_clustering *out, struct tc_error *err);
int tc_mode_dynamic(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		     struct tc_clustering *out, struct tc_error *err);
int tc_mode_kfarthest(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		       struct tc_clustering *out, struct tc_error *err);
int tc_mode_kmedoid(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		     struct tc_clustering *out, struct tc_error *err);
/* chameleon.c (dissertation ch. 5) */
int tc_mode_chameleon(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		      struct tc_clustering *out, struct tc_error *err);
/* structural.c (align/align.h's function-pair clustering) */
int tc_mode_structural(const struct tc_cluster_input *in, const struct tc_cluster_opts *o,
		       struct tc_clustering *out, struct tc_error *err);

/* ---- exact comparison of members (refine.c) ----------------------------- */

/* Digest of a rank's sequence at TC_LEVEL_PARAM without the counts:
 * ranks alike at that level have equal digests. */
uint64_t tc_seq_param_digest(const struct tc_rank_trace *t);

/*
 * Split the clusters given by head[] (heads are the lowest index of each)
 * so that every member is alike at level with the first member of its new
 * cluster: members are compared, in rank order, with the first member of
 * each new cluster made so far and join the first they are alike with.
 * digest, if not NULL, holds a value per input index that alike members
 * share; it splits first, cheaply. Rewrites head[]; returns the number of
 * clusters added.
 */
size_t tc_refine_heads(const struct tc_cluster_input *in, uint32_t *head, const uint64_t *digest,
		    int level, double threshold, struct tc_pool *pool);

/* Count-free parameter digest of every rank; members whose compressed
 * sequence equals their head's (head may be NULL) borrow its digest. */
uint64_t *tc_param_digests(const struct tc_cluster_input *in, const uint32_t *head,
			   struct tc_pool *pool);

#endif
