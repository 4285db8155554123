/*
 * reduce_mpi.c - a clustering reduction's subtrees in parts over MPI
 * processes (reduce_mpi.h). Process 0 sends each process the forest and
 * the data of its share's ranks (tag), the process runs the mode's node
 * function on its subtrees and answers (tag + 1) with its rank, a word
 * saying whether it could, and its roots' lists and head changes.
 */
#include "lib/compat.h"
#include "cmd/mpi/reduce_mpi.h"
#include "cluster/cluster.h"
#include "lib/pack.h"
#include "lib/pool.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define REDUCE_MIN_DISTANCE 262144

size_t tc_mpi_reduce_min(const struct tc_reduction *r, const char *env)
{
	const char *s = getenv(env);
	char *end;
	unsigned long long v;

	if (s && *s) {
		v = strtoull(s, &end, 10);
		if (!*end)
			return (size_t)v;
	}
	return tc_reduction_by_distance(r) ? REDUCE_MIN_DISTANCE : SIZE_MAX;
}

void tc_mpi_reduce_share(size_t nroots, int nparts, int p, size_t *lo, size_t *hi)
{
	*lo = (size_t)((unsigned __int128)nroots * (unsigned)p / (unsigned)nparts);
	*hi = (size_t)((unsigned __int128)nroots * (unsigned)(p + 1) / (unsigned)nparts);
}

/* The next message with tag from source into a new buffer (NULL when it
 * does not fit in memory's idea of an int). */
static char *recv_any(MPI_Comm comm, int source, int tag, size_t *len)
{
	MPI_Status st;
	int count = 0;
	char *buf;

	PMPI_Probe(source, tag, comm, &st);
	PMPI_Get_count(&st, MPI_BYTE, &count);
	buf = tc_xmalloc(count > 0 ? (size_t)count : 1);
	PMPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
	*len = count > 0 ? (size_t)count : 0;
	return buf;
}

bool tc_mpi_reduce_lead(struct tc_reduction *r, unsigned d, size_t nroots, int nparts,
			struct tc_pool *pool, MPI_Comm comm, int tag)
{
	struct tc_strbuf *in = tc_xcalloc((size_t)nparts, sizeof(*in));
	MPI_Request *sent = tc_xcalloc((size_t)nparts, sizeof(*sent));
	size_t lo, hi;
	bool ok = true;

	sent[0] = MPI_REQUEST_NULL;
	for (int p = 1; p < nparts; p++) {
		tc_mpi_reduce_share(nroots, nparts, p, &lo, &hi);
		tc_strbuf_init(&in[p]);
		tc_reduction_pack(r, d, lo, hi, &in[p]);
		if (in[p].len > INT_MAX) {
			/* too big for one message: the process gets none and says so */
			in[p].len = 0;
			ok = false;
		}
		PMPI_Isend(in[p].buf, (int)in[p].len, MPI_BYTE, p, tag, comm, &sent[p]);
	}
	tc_mpi_reduce_share(nroots, nparts, 0, &lo, &hi);
	tc_reduction_run_part(r, d, lo, hi, pool, NULL);
	for (int k = 1; k < nparts; k++) {
		struct tc_unpack u;
		size_t n;
		char *msg = recv_any(comm, MPI_ANY_SOURCE, tag + 1, &n);
		uint64_t p, done;
		tc_unpack_init(&u, msg, n);
		p = tc_unpack_u64(&u);
		done = tc_unpack_u64(&u);
		if (u.bad || !done || p == 0 || p >= (uint64_t)nparts) {
			ok = false;
		} else {
			tc_mpi_reduce_share(nroots, nparts, (int)p, &lo, &hi);
			if (!tc_reduction_take_part(r, d, lo, hi, &u) || !tc_unpack_done(&u))
				ok = false;
		}
		free(msg);
	}
	PMPI_Waitall(nparts, sent, MPI_STATUSES_IGNORE);
	for (int p = 1; p < nparts; p++)
		tc_strbuf_release(&in[p]);
	free(in);
	free(sent);
	return ok;
}

void tc_mpi_reduce_serve(unsigned d, size_t nroots, int nparts, int p, unsigned threads,
			 MPI_Comm comm, int tag)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;
	struct tc_reduction *r;
	struct tc_unpack u;
	size_t lo, hi, len;
	char *buf = recv_any(comm, 0, tag, &len);

	tc_unpack_init(&u, buf, len);
	r = tc_reduction_unpack(&u);
	tc_pack_u64(&sb, (uint64_t)p);
	if (!r || !tc_unpack_done(&u)) {
		tc_pack_u64(&sb, 0);
	} else {
		struct tc_pool *pool = tc_pool_new(threads);
		tc_mpi_reduce_share(nroots, nparts, p, &lo, &hi);
		tc_pack_u64(&sb, 1);
		tc_reduction_run_part(r, d, lo, hi, pool, &sb);
		tc_pool_free(pool);
		if (sb.len > INT_MAX) {
			tc_strbuf_reset(&sb);
			tc_pack_u64(&sb, (uint64_t)p);
			tc_pack_u64(&sb, 0);
		}
	}
	free(buf);
	tc_reduction_free(&r);
	PMPI_Send(sb.buf, (int)sb.len, MPI_BYTE, 0, tag + 1, comm);
	tc_strbuf_release(&sb);
}
