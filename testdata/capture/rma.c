/*
 * rma.c - capture test: one-sided communication.
 *
 * Over a communicator with the world ranks reversed (world rank w is rank
 * P-1-w): a window of 64 ints (Win_create) with fences around a Put of 4
 * ints to the next rank at displacement 2, a Get of 3 ints from the
 * previous rank at displacement 1, an Accumulate (MPI_SUM, 2 ints) to the
 * next; then passive target on it: Win_lock of the next rank, Fetch_and_op,
 * Compare_and_swap, Get_accumulate, Rput + Rget completed by Waitall,
 * Win_flush_local, Win_flush, Win_unlock; Win_lock_all, Raccumulate +
 * Rget_accumulate, Win_flush_local_all, Win_flush_all, Win_sync,
 * Win_unlock_all; a general active target epoch (post/start/complete/wait)
 * with the next and previous ranks, then, with an argument, another one
 * ended by Win_test until it says yes instead of Win_wait (tests 0.1 ms
 * apart; how many say no is timing); Win_allocate and
 * Win_allocate_shared (on MPI_COMM_SELF) and Win_create_dynamic, each
 * freed.
 */
#include <mpi.h>
#include <stddef.h>
#include <time.h>

int main(int argc, char **argv)
{
	int r, p, n, pr, buf[64] = { 0 }, res[64] = { 0 }, one = 1, cmp = 0;
	int *mem, *shm, ranks[2], flag;
	MPI_Comm rev;
	MPI_Win win, wa, ws, wd;
	MPI_Group g, peers;
	MPI_Request req[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - r, &rev);
	MPI_Comm_rank(rev, &r);
	n = (r + 1) % p;
	pr = (r + p - 1) % p;
	MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, rev, &win);
	MPI_Win_fence(0, win);
	MPI_Put(res, 4, MPI_INT, n, 2, 4, MPI_INT, win);
	MPI_Get(res + 8, 3, MPI_INT, pr, 1, 3, MPI_INT, win);
	MPI_Accumulate(res, 2, MPI_INT, n, 0, 2, MPI_INT, MPI_SUM, win);
	MPI_Win_fence(0, win);

	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, n, 0, win);
	MPI_Fetch_and_op(&one, res, MPI_INT, n, 5, MPI_SUM, win);
	MPI_Compare_and_swap(&one, &cmp, res + 1, MPI_INT, n, 6, win);
	MPI_Get_accumulate(res, 2, MPI_INT, res + 4, 2, MPI_INT, n, 7, 2, MPI_INT, MPI_MAX, win);
	MPI_Rput(res, 6, MPI_INT, n, 10, 6, MPI_INT, win, &req[0]);
	MPI_Rget(res + 16, 5, MPI_INT, n, 20, 5, MPI_INT, win, &req[1]);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	MPI_Win_flush_local(n, win);
	MPI_Win_flush(n, win);
	MPI_Win_unlock(n, win);
	MPI_Barrier(rev);

	MPI_Win_lock_all(0, win);
	MPI_Raccumulate(res, 3, MPI_INT, pr, 30, 3, MPI_INT, MPI_REPLACE, win, &req[0]);
	MPI_Rget_accumulate(NULL, 0, MPI_INT, res + 32, 2, MPI_INT, pr, 40, 2, MPI_INT, MPI_NO_OP,
			    win, &req[1]);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	MPI_Win_flush_local_all(win);
	MPI_Win_flush_all(win);
	MPI_Win_sync(win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(rev);

	MPI_Comm_group(rev, &g);
	ranks[0] = n;
	ranks[1] = pr;
	MPI_Group_incl(g, n == pr ? 1 : 2, ranks, &peers);
	MPI_Win_post(peers, 0, win);
	MPI_Win_start(peers, 0, win);
	MPI_Put(res, 1, MPI_INT, n, 50, 1, MPI_INT, win);
	MPI_Win_complete(win);
	MPI_Win_wait(win);
	if (argc > 1) {
		MPI_Win_post(peers, 0, win);
		MPI_Win_start(peers, 0, win);
		MPI_Win_complete(win);
		/* a pause between the tests that say no, or an MPI that polls
		 * without yielding (MPICH, more ranks than cores) tests a million
		 * times before the peers' Win_complete runs */
		for (;;) {
			struct timespec pause = { 0, 100000 };
			MPI_Win_test(win, &flag);
			if (flag)
				break;
			nanosleep(&pause, NULL);
		}
	}
	MPI_Group_free(&peers);
	MPI_Group_free(&g);
	MPI_Win_free(&win);

	MPI_Win_allocate(256, 4, MPI_INFO_NULL, rev, &mem, &wa);
	MPI_Win_free(&wa);
	MPI_Win_allocate_shared(128, 4, MPI_INFO_NULL, MPI_COMM_SELF, &shm, &ws);
	MPI_Win_free(&ws);
	MPI_Win_create_dynamic(MPI_INFO_NULL, rev, &wd);
	MPI_Win_free(&wd);
	MPI_Comm_free(&rev);
	MPI_Finalize();
	return 0;
}
