/*
 * coll.c - capture test: every collective once, blocking and nonblocking,
 * with v-variants and MPI_IN_PLACE. Counts depend on the rank r so the
 * recorded vectors can be checked: rank r contributes r+1 elements to the
 * v-variants, and Scatterv/Gatherv/Reduce_scatter use counts j+1 for
 * rank j.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int r, p, *a, *b, *cnt, *dsp, *rcnt, *rdsp;
	double x[8] = { 0 }, y[8];
	MPI_Datatype *types;
	MPI_Request req[5];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	a = calloc(1024, sizeof(int));
	b = calloc(1024, sizeof(int));
	cnt = malloc(sizeof(int) * p);
	dsp = malloc(sizeof(int) * p);
	rcnt = malloc(sizeof(int) * p);
	rdsp = malloc(sizeof(int) * p);
	types = malloc(sizeof(MPI_Datatype) * p);
	for (int j = 0, d = 0; j < p; j++) {
		cnt[j] = j + 1;
		dsp[j] = d;
		d += j + 1;
		rcnt[j] = r + 1;
		rdsp[j] = j * (r + 1);
		types[j] = MPI_INT;
	}

	MPI_Bcast(a, 10, MPI_INT, 1, MPI_COMM_WORLD);
	MPI_Reduce(x, y, 5, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD);
	MPI_Allreduce(a, b, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, a, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Gather(a, 2, MPI_INT, b, 2, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Gatherv(a, r + 1, MPI_INT, b, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Scatter(a, 4, MPI_INT, b, 4, MPI_INT, 3, MPI_COMM_WORLD);
	MPI_Scatterv(a, cnt, dsp, MPI_INT, b, r + 1, MPI_INT, 3, MPI_COMM_WORLD);
	MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
	MPI_Allgatherv(a, r + 1, MPI_INT, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
	MPI_Alltoall(a, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD);
	/* rank r sends j+1 ints to rank j and receives r+1 from each */
	MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD);
	{
		int *sd = malloc(sizeof(int) * p), *rd = malloc(sizeof(int) * p);
		for (int j = 0; j < p; j++) {
			sd[j] = dsp[j] * (int)sizeof(int);
			rd[j] = rdsp[j] * (int)sizeof(int);
		}
		MPI_Alltoallw(a, cnt, sd, types, b, rcnt, rd, types, MPI_COMM_WORLD);
		free(sd);
		free(rd);
	}
	MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Reduce_scatter_block(a, b, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	MPI_Scan(x, y, 1, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
	MPI_Exscan(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);

	MPI_Ibcast(a, 7, MPI_INT, 2, MPI_COMM_WORLD, &req[0]);
	MPI_Iallreduce(x, y, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req[1]);
	MPI_Ialltoallv(a, cnt, dsp, MPI_INT, b + 512, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD,
		       &req[2]);
	MPI_Ibarrier(MPI_COMM_WORLD, &req[3]);
	MPI_Igatherv(a + 512, r + 1, MPI_INT, b + 768, cnt, dsp, MPI_INT, 1, MPI_COMM_WORLD,
		     &req[4]);
	MPI_Waitall(5, req, MPI_STATUSES_IGNORE);

	free(a);
	free(b);
	free(cnt);
	free(dsp);
	free(rcnt);
	free(rdsp);
	free(types);
	MPI_Finalize();
	return 0;
}
