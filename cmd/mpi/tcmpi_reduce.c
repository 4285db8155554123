/*
 * tcmpi_reduce.c - the radix-tree reductions of the clustering modes
 * (cluster/tree.c, cluster/kmodes.c) over the processes of
 * tracecluster-mpi, as the papers run them over the processes of the job
 * (dissertation §3.1-3.2, ACURDION Alg. 5).
 *
 * When a mode reduces a forest of enough ranks (reduce_min), process 0
 * picks the shallowest depth with at least one node per process and
 * gives each process a contiguous share
 * of the subtrees under that depth, itself included: the forest, and the
 * keys, or the signatures and the metric, of the share's ranks alone
 * (cluster/remote.c). Each runs the mode's node function on its
 * subtrees with its threads and sends back their roots' lists and the
 * head changes below them; process 0 then runs the levels above. Every
 * node runs the same code on the same inputs, so the clusters are the
 * single process's.
 */
#include "lib/compat.h"
#include "cmd/mpi/tcmpi.h"
#include "cluster/cluster.h"
#include "cmd/cmd.h"
#include "lib/pack.h"
#include "lib/pool.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The fewest ranks a reduction must have to run in parts: sending each
 * process the forest and its ranks' data and taking back the results costs
 * about 0.5-1 us per rank (test/bench/clusterbench -s), which the K modes'
 * nodes (distances between clusters) repay from a few hundred thousand
 * ranks and the exact-key reductions (a sort-merge of keys per node) do
 * not: by default those stay in process 0. TRACECLUSTER_MPI_REDUCE_MIN=N
 * sets one threshold for both.
 */
#define REDUCE_MIN_DISTANCE 262144

static size_t reduce_min(const struct tc_reduction *r)
{
	const char *s = getenv("TRACECLUSTER_MPI_REDUCE_MIN");
	char *end;
	unsigned long long v;

	if (s && *s) {
		v = strtoull(s, &end, 10);
		if (!*end)
			return (size_t)v;
	}
	return tc_reduction_by_distance(r) ? REDUCE_MIN_DISTANCE : SIZE_MAX;
}

static void damaged(const char *what, size_t len)
{
	fprintf(stderr, "tracecluster-mpi: process %d: a damaged %s (%zu bytes)\n", tcmpi_rank, what,
		len);
	MPI_Abort(MPI_COMM_WORLD, 70);
}

static unsigned reduce_run(void *self, struct tc_reduction *r)
{
	struct tc_pool *pool = tc_reduction_pool(r);
	struct tc_strbuf *in;
	MPI_Request *sent;
	struct req rq;
	size_t nroots, lo, hi;
	unsigned d;

	(void)self;
	if (tcmpi_size == 1 || !pthread_equal(pthread_self(), tcmpi_main_thread) ||
	    tc_reduction_size(r) < reduce_min(r))
		return 0;
	d = tc_reduction_plan(r, (size_t)tcmpi_size, &nroots);
	if (!d)
		return 0;
	memset(&rq, 0, sizeof(rq));
	rq.type = REQ_REDUCE;
	rq.threads = pool ? tc_pool_threads(pool) : 1;
	rq.depth = d;
	rq.nroots = nroots;
	MPI_CHECK(MPI_Bcast(&rq, sizeof(rq), MPI_BYTE, 0, MPI_COMM_WORLD), "broadcast request");
	/* each process its share of the subtrees and what their nodes read */
	in = tc_xcalloc((size_t)tcmpi_size, sizeof(*in));
	sent = tc_xcalloc((size_t)tcmpi_size, sizeof(*sent));
	sent[0] = MPI_REQUEST_NULL;
	for (int p = 1; p < tcmpi_size; p++) {
		tcmpi_share(nroots, p, &lo, &hi);
		tc_strbuf_init(&in[p]);
		tc_reduction_pack(r, d, lo, hi, &in[p]);
		tcmpi_check_size(&in[p]);
		MPI_CHECK(MPI_Isend(in[p].buf, (int)in[p].len, MPI_BYTE, p, TAG_REDUCE_IN,
				    MPI_COMM_WORLD, &sent[p]), "send a reduction");
	}
	/* the first share here, in place */
	tcmpi_share(nroots, 0, &lo, &hi);
	tc_reduction_run_part(r, d, lo, hi, pool, NULL);
	for (int k = 1; k < tcmpi_size; k++) {
		struct tc_unpack u;
		size_t n;
		char *msg = tcmpi_recv(MPI_ANY_SOURCE, TAG_REDUCE, true, &n);
		uint64_t p;
		tc_unpack_init(&u, msg, n);
		p = tc_unpack_u64(&u);
		if (u.bad || p == 0 || p >= (uint64_t)tcmpi_size)
			damaged("part of a reduction", n);
		tcmpi_share(nroots, (int)p, &lo, &hi);
		if (!tc_reduction_take_part(r, d, lo, hi, &u) || !tc_unpack_done(&u))
			damaged("part of a reduction", n);
		free(msg);
	}
	MPI_CHECK(MPI_Waitall(tcmpi_size, sent, MPI_STATUSES_IGNORE), "send a reduction");
	for (int p = 1; p < tcmpi_size; p++)
		tc_strbuf_release(&in[p]);
	free(in);
	free(sent);
	if (tc_g.verbosity > 0)
		fprintf(stderr, "tracecluster-mpi: a reduction of %zu ranks on %d processes: %zu "
			"subtrees under depth %u\n", tc_reduction_size(r), tcmpi_size, nroots, d);
	return d;
}

const struct tc_reduce_remote tcmpi_reduce_remote = { reduce_run, NULL };

void tcmpi_serve_reduce(const struct req *rq)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_reduction *r;
	struct tc_unpack u;
	struct tc_pool *pool;
	size_t lo, hi, len;
	char *buf = tcmpi_recv(0, TAG_REDUCE_IN, true, &len);

	tc_unpack_init(&u, buf, len);
	r = tc_reduction_unpack(&u);
	if (!r || !tc_unpack_done(&u))
		damaged("reduction", len);
	free(buf);
	pool = tc_pool_new((unsigned)rq->threads);
	tcmpi_share((size_t)rq->nroots, tcmpi_rank, &lo, &hi);
	tc_pack_u64(&sb, (uint64_t)tcmpi_rank);
	tc_reduction_run_part(r, (unsigned)rq->depth, lo, hi, pool, &sb);
	tcmpi_check_size(&sb);
	MPI_CHECK(MPI_Send(sb.buf, (int)sb.len, MPI_BYTE, 0, TAG_REDUCE, MPI_COMM_WORLD),
		  "send part of a reduction");
	tc_strbuf_release(&sb);
	tc_reduction_free(&r);
	tc_pool_free(pool);
}
