/*
 * graph.c - neighbourhood collectives on graph topologies.
 *
 * On P ranks (at least 4), three graphs:
 *   adjacent  MPI_Dist_graph_create_adjacent, irregular and unweighted:
 *             rank r sends to r+1, and even ranks also to r+2 (mod P);
 *             its sources are the ranks that send to it, in rank order
 *   dist      MPI_Dist_graph_create, weighted: each rank names its edge
 *             to r-1 (weight r+1); rank 0 also names 1 -> 3 for rank 1;
 *             an alltoallv on it receives 1 + s ints from source s
 *   graph     MPI_Graph_create: the undirected ring plus the chord 0-2
 * and a Comm_dup of the first, with blocking and nonblocking
 * neighbourhood collectives on each (counts that depend on the
 * neighbour's position on the v and w forms).
 *
 * It prints "sent SRC DST BYTES" for each pair of world ranks it sent
 * bytes between through these collectives, from its own graph
 * definitions, so that a test can check a heatmap against them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Open MPI's MPI_UNWEIGHTED is a pointer to a one-byte object */
#pragma GCC diagnostic ignored "-Wstringop-overread"

static int p;
static long *sent; /* bytes to each world rank */

/* r's out-neighbours in the adjacent graph into out; returns how many */
static int adj_out(int r, int *out)
{
	int n = 0;

	out[n++] = (r + 1) % p;
	if (r % 2 == 0)
		out[n++] = (r + 2) % p;
	return n;
}

/* count bytes to each of n destinations */
static void to_all(const int *dst, int n, long bytes)
{
	for (int j = 0; j < n; j++)
		sent[dst[j]] += bytes;
}

int main(int argc, char **argv)
{
	int r, in[8], out[8], nin = 0, nout, tmp[8];
	int sbuf[256] = { 0 }, rbuf[256] = { 0 }, sc[8], rc[8] = { 0 }, d[8], dd[8];
	MPI_Aint wd[8];
	MPI_Datatype wt[8];
	MPI_Comm adj, dist, graph, dup;
	MPI_Request req[4];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (p < 4)
		MPI_Abort(MPI_COMM_WORLD, 2);
	sent = calloc((size_t)p, sizeof(*sent));

	/* adjacent: the sources are the ranks whose out-list holds r */
	nout = adj_out(r, out);
	for (int s = 0; s < p; s++) {
		int n = adj_out(s, tmp);
		for (int j = 0; j < n; j++) {
			if (tmp[j] != r)
				continue;
			rc[nin] = 1 + j; /* what s sends me in the v and w forms */
			in[nin++] = s;
		}
	}
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, MPI_UNWEIGHTED, nout, out,
				       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &adj);
	for (int j = 0; j < 8; j++) {
		sc[j] = 1 + j;
		d[j] = 16 * j;
		wd[j] = 64 * j;
		wt[j] = MPI_INT;
	}
	MPI_Neighbor_allgather(sbuf, 3, MPI_INT, rbuf, 3, MPI_INT, adj);
	to_all(out, nout, 12);
	MPI_Neighbor_alltoall(sbuf, 2, MPI_DOUBLE, rbuf, 2, MPI_DOUBLE, adj);
	to_all(out, nout, 16);
	/* 1 + j ints to the j-th destination */
	MPI_Neighbor_alltoallv(sbuf, sc, d, MPI_INT, rbuf, rc, d, MPI_INT, adj);
	for (int j = 0; j < nout; j++)
		sent[out[j]] += 4L * sc[j];
	MPI_Ineighbor_allgather(sbuf, 5, MPI_INT, rbuf, 5, MPI_INT, adj, &req[0]);
	to_all(out, nout, 20);
	MPI_Ineighbor_alltoallw(sbuf, sc, wd, wt, rbuf + 128, rc, wd, wt, adj, &req[1]);
	for (int j = 0; j < nout; j++)
		sent[out[j]] += 4L * sc[j];
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);

	/* the same graph through a copy */
	MPI_Comm_dup(adj, &dup);
	MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, dup);
	to_all(out, nout, 4);

	/* dist: edges named by any rank; rank 0 names 1 -> 3 as well */
	{
		int srcs[2] = { r, 1 }, degs[2] = { 1, 1 }, dsts[2], w[2];
		int n = r == 0 ? 2 : 1;
		dsts[0] = (r + p - 1) % p;
		dsts[1] = 3;
		w[0] = r + 1;
		w[1] = 7;
		MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts, w, MPI_INFO_NULL, 0,
				      &dist);
	}
	MPI_Neighbor_alltoall(sbuf, 6, MPI_INT, rbuf, 6, MPI_INT, dist);
	MPI_Ineighbor_allgather(sbuf, 7, MPI_INT, rbuf, 7, MPI_INT, dist, &req[0]);
	MPI_Wait(&req[0], MPI_STATUS_IGNORE);
	sent[(r + p - 1) % p] += 24 + 28;
	if (r == 1)
		sent[3] += 24 + 28;
	/* 1 + r ints to each destination: a receive count per source that
	 * depends on the source, in the order MPI lists the sources */
	{
		int ni, no, wgt, srcs[8], sw[8], dsts[8], dw[8];
		MPI_Dist_graph_neighbors_count(dist, &ni, &no, &wgt);
		MPI_Dist_graph_neighbors(dist, ni, srcs, sw, no, dsts, dw);
		for (int j = 0; j < no; j++) {
			sc[j] = 1 + r;
			d[j] = 0;
			sent[dsts[j]] += 4L * (1 + r);
		}
		for (int j = 0, at = 0; j < ni; at += 1 + srcs[j], j++) {
			rc[j] = 1 + srcs[j];
			dd[j] = at;
		}
		MPI_Neighbor_alltoallv(sbuf, sc, d, MPI_INT, rbuf, rc, dd, MPI_INT, dist);
	}

	/* graph: the ring, and the chord 0-2, in both directions */
	{
		int *index = malloc((size_t)p * sizeof(*index));
		int *edges = malloc((size_t)(2 * p + 2) * sizeof(*edges));
		int e = 0, nn = 0, nb[4];
		for (int k = 0; k < p; k++) {
			edges[e++] = (k + p - 1) % p;
			edges[e++] = (k + 1) % p;
			if (k == 0 || k == 2)
				edges[e++] = 2 - k;
			index[k] = e;
		}
		MPI_Graph_create(MPI_COMM_WORLD, p, index, edges, 0, &graph);
		nb[nn++] = (r + p - 1) % p;
		nb[nn++] = (r + 1) % p;
		if (r == 0 || r == 2)
			nb[nn++] = 2 - r;
		free(index);
		free(edges);
		MPI_Neighbor_allgather(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, graph);
		to_all(nb, nn, 8);
		MPI_Ineighbor_alltoall(sbuf, 3, MPI_INT, rbuf, 3, MPI_INT, graph, &req[0]);
		MPI_Wait(&req[0], MPI_STATUS_IGNORE);
		to_all(nb, nn, 12);
	}

	for (int k = 0; k < p; k++)
		if (sent[k])
			printf("sent %d %d %ld\n", r, k, sent[k]);
	fflush(stdout);
	MPI_Comm_free(&graph);
	MPI_Comm_free(&dist);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&adj);
	free(sent);
	MPI_Finalize();
	return 0;
}
