/*
 * refine.c - exact comparison of the members of a cluster.
 *
 * The signatures are hashes and averages, so they can collide: "any
 * low-overhead hash function can result in conflicts ... (but we could
 * alert users to collisions or even automatically trigger more complex
 * hashes if needed)" (dissertation §3.1). The parameter signature of
 * Table 3.1 is built from averages and so cannot tell apart ranks whose
 * peers are permutations of one another (NPB CG's transpose partners: the
 * average relative destination is the same, the sequence is not). Given
 * the ranks' traces, this file compares what the signatures summarise:
 * the event sequences themselves, loops expanded, at three levels (enum
 * tc_seq_level). callpath-param uses it to split the sub-clusters that
 * the parameter signature merged wrongly, reference to split reference
 * digests that collide, and tc_cluster_verify() to check any clustering,
 * which also compares what no signature sees: the colour and key of
 * communicator splits (tc_seq_comm_alike()).
 */
#include "lib/compat.h"
#include "cluster/internal.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/pool.h"
#include "lib/rsd.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The fields of an event that TC_LEVEL_PARAM compares (Table 3.1: COUNT,
 * DEST, SOURCE, datatype, reduction op, communicator type). */
#define PARAM_FIELDS (TC_F_PEER | TC_F_RPEER | TC_F_COUNT | TC_F_DTYPE | TC_F_REDOP | \
		      TC_F_SCOUNTS | TC_F_RCOUNTS)

struct walker {
	const struct tc_rank_trace *t;
	struct tc_rsd_iter it;
	struct tc_event ev;
	uint64_t stack;
};

static void walker_init(struct walker *w, const struct tc_rank_trace *t)
{
	w->t = t;
	tc_rsd_iter_init(&w->it, t->seq);
}

static bool walker_next(struct walker *w)
{
	if (!tc_rsd_iter_next(&w->it, &w->ev))
		return false;
	w->stack = tc_rsd_event(w->t->seq, w->it.node->event)->stack;
	return true;
}

static void walker_release(struct walker *w)
{
	tc_rsd_iter_release(&w->it);
}

static bool counts_alike(const uint64_t *a, const uint64_t *b, uint32_t n, double t)
{
	for (uint32_t i = 0; i < n; i++)
		if (!tc_count_alike(a[i], b[i], t))
			return false;
	return true;
}

/* Whether two events agree at TC_LEVEL_PARAM. */
static bool param_alike(const struct walker *a, const struct walker *b, double t)
{
	const struct tc_event *x = &a->ev, *y = &b->ev;
	uint32_t f = x->fields & PARAM_FIELDS;

	if (f != (y->fields & PARAM_FIELDS))
		return false;
	if ((f & TC_F_PEER) && tc_rel_peer(x->peer, a->t->rank) != tc_rel_peer(y->peer, b->t->rank))
		return false;
	if ((f & TC_F_RPEER) &&
	    tc_rel_peer(x->rpeer, a->t->rank) != tc_rel_peer(y->rpeer, b->t->rank))
		return false;
	if ((f & TC_F_DTYPE) && x->dtype != y->dtype)
		return false;
	if ((f & TC_F_REDOP) && x->redop != y->redop)
		return false;
	if (tc_comm_type_of(a->t, x->comm) != tc_comm_type_of(b->t, y->comm))
		return false;
	if ((f & TC_F_COUNT) && !tc_count_alike(x->count, y->count, t))
		return false;
	if ((f & TC_F_SCOUNTS) &&
	    (x->nscounts != y->nscounts || !counts_alike(x->scounts, y->scounts, x->nscounts, t)))
		return false;
	if ((f & TC_F_RCOUNTS) &&
	    (x->nrcounts != y->nrcounts || !counts_alike(x->rcounts, y->rcounts, x->nrcounts, t)))
		return false;
	return true;
}

bool tc_seq_alike(const struct tc_rank_trace *a, const struct tc_rank_trace *b, int level,
		  double threshold)
{
	struct walker x, y;
	bool alike = true;

	if (level >= TC_LEVEL_EXACT)
		return tc_rsd_equal(a->seq, b->seq);
	if (level < TC_LEVEL_CALLPATH)
		return true;
	/* equal compressed sequences (relative peers, every parameter) are
	 * alike at every level: no need to walk them event by event */
	if (tc_rsd_equal(a->seq, b->seq))
		return true;
	walker_init(&x, a);
	walker_init(&y, b);
	for (;;) {
		bool nx = walker_next(&x), ny = walker_next(&y);
		if (nx != ny) {
			alike = false;
			break;
		}
		if (!nx)
			break;
		if (x.ev.op != y.ev.op || x.stack != y.stack ||
		    (level >= TC_LEVEL_PARAM && !param_alike(&x, &y, threshold))) {
			alike = false;
			break;
		}
	}
	walker_release(&x);
	walker_release(&y);
	return alike;
}

/* The next event of w that carries a colour and key; false at the end. */
static bool next_split(struct walker *w)
{
	while (walker_next(w))
		if (w->ev.fields & TC_F_COLOR)
			return true;
	return false;
}

bool tc_seq_comm_alike(const struct tc_rank_trace *a, const struct tc_rank_trace *b)
{
	struct walker x, y;
	bool alike = true;

	walker_init(&x, a);
	walker_init(&y, b);
	for (;;) {
		bool nx = next_split(&x), ny = next_split(&y);
		if (nx != ny) {
			alike = false;
			break;
		}
		if (!nx)
			break;
		if (x.ev.op != y.ev.op || x.ev.color != y.ev.color || x.ev.key != y.ev.key) {
			alike = false;
			break;
		}
	}
	walker_release(&x);
	walker_release(&y);
	return alike;
}

uint64_t tc_seq_param_digest(const struct tc_rank_trace *t)
{
	struct walker w;
	uint64_t h = 0x7061726d64677374ULL, n = 0; /* "parmdgst" */

	walker_init(&w, t);
	while (walker_next(&w)) {
		const struct tc_event *e = &w.ev;
		uint32_t f = e->fields & PARAM_FIELDS;

		h = tc_hash_mix(h, (uint64_t)e->op << 32 | f);
		h = tc_hash_mix(h, w.stack);
		if (f & TC_F_PEER)
			h = tc_hash_mix(h, (uint64_t)tc_rel_peer(e->peer, t->rank));
		if (f & TC_F_RPEER)
			h = tc_hash_mix(h, (uint64_t)tc_rel_peer(e->rpeer, t->rank));
		if (f & TC_F_DTYPE)
			h = tc_hash_mix(h, e->dtype);
		if (f & TC_F_REDOP)
			h = tc_hash_mix(h, e->redop);
		h = tc_hash_mix(h, (uint64_t)tc_comm_type_of(t, e->comm));
		if (f & TC_F_SCOUNTS)
			h = tc_hash_mix(h, e->nscounts);
		if (f & TC_F_RCOUNTS)
			h = tc_hash_mix(h, e->nrcounts);
		n++;
	}
	walker_release(&w);
	return tc_hash_fmix(tc_hash_mix(h, n));
}

/* ---- digests of every rank ---------------------------------------------- */

#define DIGEST_CHUNK 16

struct digest_job {
	const struct tc_cluster_input *in;
	const uint32_t *head;
	uint8_t *need;
	uint64_t *out;
};

/* Members whose compressed sequence equals their cluster head's have the
 * head's digest: only the others (and the heads) are walked event by
 * event. On regular codes that is one walk per cluster instead of one per
 * rank. */
static void need_chunk(size_t c, void *p)
{
	struct digest_job *job = p;
	size_t lo = c * DIGEST_CHUNK, hi = TC_MIN(job->in->n, lo + DIGEST_CHUNK);

	for (size_t i = lo; i < hi; i++) {
		uint32_t h = job->head ? job->head[i] : (uint32_t)i;
		job->need[i] = h == i || h >= job->in->n ||
			       !tc_rsd_equal(job->in->traces[h]->seq, job->in->traces[i]->seq);
	}
}

static void digest_chunk(size_t c, void *p)
{
	struct digest_job *job = p;
	size_t lo = c * DIGEST_CHUNK, hi = TC_MIN(job->in->n, lo + DIGEST_CHUNK);

	for (size_t i = lo; i < hi; i++)
		if (job->need[i])
			job->out[i] = tc_seq_param_digest(job->in->traces[i]);
}

static void run_chunks(struct tc_pool *pool, size_t nchunks, tc_pool_for_fn fn, void *job)
{
	if (pool && nchunks > 1)
		tc_pool_for(pool, nchunks, fn, job);
	else
		for (size_t c = 0; c < nchunks; c++)
			fn(c, job);
}

uint64_t *tc_param_digests(const struct tc_cluster_input *in, const uint32_t *head,
			   struct tc_pool *pool)
{
	struct digest_job job = { in, head, NULL, NULL };
	size_t n = in->n, nchunks = (n + DIGEST_CHUNK - 1) / DIGEST_CHUNK;

	uint8_t *borrow = tc_xcalloc(n ? n : 1, 1);

	job.out = tc_xcalloc(n ? n : 1, sizeof(uint64_t));
	job.need = tc_xcalloc(n ? n : 1, 1);
	run_chunks(pool, nchunks, need_chunk, &job);
	/* a member that borrows its head's digest makes the head needed */
	for (size_t i = 0; i < n; i++) {
		if (!job.need[i]) {
			borrow[i] = 1;
			job.need[head[i]] = 1;
		}
	}
	run_chunks(pool, nchunks, digest_chunk, &job);
	for (size_t i = 0; i < n; i++)
		if (borrow[i])
			job.out[i] = job.out[head[i]];
	free(borrow);
	free(job.need);
	return job.out;
}

/* ---- splitting clusters ---------------------------------------------------- */

/* Number the clusters of head[] in order of their first member. */
static size_t number_groups(const uint32_t *head, size_t n, uint32_t *group)
{
	uint32_t *num = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*num)));
	size_t ng = 0;

	for (size_t i = 0; i < n; i++)
		num[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		if (num[head[i]] == UINT32_MAX)
			num[head[i]] = (uint32_t)ng++;
		group[i] = num[head[i]];
	}
	free(num);
	return ng;
}

struct split_job {
	const struct tc_cluster_input *in;
	const struct tc_group_forest *g;
	uint32_t *head;
	int level;
	double threshold;
};

/* The members of one class, in rank order, against the first member of
 * each new cluster made so far. */
static void split_class(size_t c, void *p)
{
	struct split_job *job = p;
	const uint32_t *mem = &job->g->idx[job->g->off[c]];
	size_t m = job->g->off[c + 1] - job->g->off[c], nreps = 0;
	uint32_t *reps;

	if (m < 2)
		return;
	reps = tc_xmalloc(tc_st_mult(m, sizeof(*reps)));
	for (size_t a = 0; a < m; a++) {
		uint32_t i = mem[a];
		size_t q = 0;
		while (q < nreps && !tc_seq_alike(job->in->traces[reps[q]], job->in->traces[i],
						  job->level, job->threshold))
			q++;
		if (q == nreps)
			reps[nreps++] = i;
		job->head[i] = reps[q];
	}
	free(reps);
}

size_t tc_refine_heads(const struct tc_cluster_input *in, uint32_t *head, const uint64_t *digest,
		       int level, double threshold, struct tc_pool *pool)
{
	size_t n = in->n, before, after;
	uint32_t *group = tc_xmalloc(tc_st_mult(n ? n : 1, sizeof(*group)));
	struct tc_group_forest g;
	struct tc_forest f;
	struct split_job job;

	before = number_groups(head, n, group);
	if (digest) {
		/* a radix tree of each cluster's members, keyed by the digest */
		struct tc_exact_spec spec = { digest, 1, NULL, 0 };
		tc_group_forest_init(&g, &f, group, n, before, 2);
		tc_exact_reduce(&f, &spec, pool, head);
		tc_forest_release(&f);
		tc_group_forest_release(&g);
	}
	after = number_groups(head, n, group);
	tc_group_forest_init(&g, &f, group, n, after, 2);
	tc_forest_release(&f);
	job.in = in;
	job.g = &g;
	job.head = head;
	job.level = level;
	job.threshold = threshold;
	if (pool && after > 1)
		tc_pool_for(pool, after, split_class, &job);
	else
		for (size_t c = 0; c < after; c++)
			split_class(c, &job);
	tc_group_forest_release(&g);
	after = number_groups(head, n, group);
	free(group);
	return after - before;
}
