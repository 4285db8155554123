/*
 * wrap_c.c - the C bindings: each MPI_ function hands its arguments and
 * its return address (the call site in the application) to record.c.
 */
#include "lib/compat.h"
#include "lib/capture/record.h"
#include "lib/capture/calls.h"

#include <stdarg.h>

#define API TC_CAP_API

API int MPI_Init(int *argc, char ***argv)
{
	return tcw_init(argc, argv, TC_RA());
}

API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	return tcw_init_thread(argc, argv, required, provided, TC_RA());
}

API int MPI_Finalize(void)
{
	return tcw_finalize(TC_RA());
}

API int MPI_Abort(MPI_Comm comm, int errorcode)
{
	return tcw_abort(comm, errorcode);
}

API int MPI_Pcontrol(const int level, ...)
{
	return tcw_pcontrol(level, TC_RA());
}

/* ---- point to point ---- */

#define X(name, OP, lc)                                                                       \
	API int MPI_##name(const void *buf, int count, MPI_Datatype dt, int dest, int tag, \
			   MPI_Comm comm)                                                  \
	{                                                                                  \
		return tcw_send(TC_OP_##OP, buf, count, dt, dest, tag, comm, TC_RA());     \
	}
TC_CALLS_SEND(X)
#undef X

#define X(name, OP, lc)                                                                       \
	API int MPI_##name(const void *buf, int count, MPI_Datatype dt, int peer, int tag, \
			   MPI_Comm comm, MPI_Request *req)                                \
	{                                                                                  \
		return tcw_isend(TC_OP_##OP, buf, count, dt, peer, tag, comm, req, TC_RA());\
	}
TC_CALLS_ISEND(X)
#undef X

#define X(name, OP, lc)                                                                       \
	API int MPI_##name(void *buf, int count, MPI_Datatype dt, int peer, int tag,       \
			   MPI_Comm comm, MPI_Request *req)                                \
	{                                                                                  \
		return tcw_isend(TC_OP_##OP, buf, count, dt, peer, tag, comm, req, TC_RA());\
	}
TC_CALLS_IRECV(X)
#undef X

API int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
		 MPI_Status *status)
{
	return tcw_recv(buf, count, dt, src, tag, comm, status, TC_RA());
}

API int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
		     void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
		     MPI_Status *status)
{
	return tcw_sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
			    status, false, TC_RA());
}

API int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src,
			     int rtag, MPI_Comm comm, MPI_Status *status)
{
	return tcw_sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, status, false,
				    TC_RA());
}

API int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *status)
{
	return tcw_probe(src, tag, comm, NULL, status, TC_RA());
}

API int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
	return tcw_probe(src, tag, comm, flag, status, TC_RA());
}

API int MPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status)
{
	return tcw_mprobe(src, tag, comm, NULL, msg, status, TC_RA());
}

API int MPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
		    MPI_Status *status)
{
	return tcw_mprobe(src, tag, comm, flag, msg, status, TC_RA());
}

API int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *status)
{
	return tcw_mrecv(buf, count, dt, msg, status, NULL, false, TC_RA());
}

API int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req)
{
	return tcw_mrecv(buf, count, dt, msg, MPI_STATUS_IGNORE, req, false, TC_RA());
}

API int MPI_Start(MPI_Request *req)
{
	return tcw_start(req, TC_RA());
}

API int MPI_Startall(int n, MPI_Request reqs[])
{
	return tcw_startall(n, reqs, TC_RA());
}

API int MPI_Request_free(MPI_Request *req)
{
	return tcw_request_free(req, TC_RA());
}

API int MPI_Cancel(MPI_Request *req)
{
	return tcw_cancel(req, TC_RA());
}

/* ---- completion ---- */

API int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	return tcw_wait(req, NULL, status, TC_RA());
}

API int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	return tcw_wait(req, flag, status, TC_RA());
}

API int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
	return tcw_waitall(n, reqs, NULL, sts, TC_RA());
}

API int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
	return tcw_waitall(n, reqs, flag, sts, TC_RA());
}

API int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
	return tcw_waitany(n, reqs, index, NULL, status, TC_RA());
}

API int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
	return tcw_waitany(n, reqs, index, flag, status, TC_RA());
}

API int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status sts[])
{
	return tcw_waitsome(TC_OP_WAITSOME, n, reqs, outcount, indices, sts, TC_RA());
}

API int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status sts[])
{
	return tcw_waitsome(TC_OP_TESTSOME, n, reqs, outcount, indices, sts, TC_RA());
}

/* ---- collectives ---- */

API int MPI_Barrier(MPI_Comm comm)
{
	return tcw_barrier(comm, NULL, NULL, TC_RA());
}

API int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
	return tcw_barrier(comm, req, NULL, TC_RA());
}

API int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
	return tcw_bcast(buf, count, dt, root, comm, NULL, NULL, TC_RA());
}

API int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
		   MPI_Request *req)
{
	return tcw_bcast(buf, count, dt, root, comm, req, NULL, TC_RA());
}

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,         \
			   MPI_Op rop, int root, MPI_Comm comm)                              \
	{                                                                                    \
		return tcw_reduce(TC_OP_##OP, sbuf, rbuf, count, dt, rop, root, comm, NULL,  \
				  NULL, TC_RA());                                                  \
	}                                                                                    \
	API int MPI_##iname(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,        \
			    MPI_Op rop, int root, MPI_Comm comm, MPI_Request *req)           \
	{                                                                                    \
		return tcw_reduce(TC_OP_I##OP, sbuf, rbuf, count, dt, rop, root, comm, req,  \
				  NULL, TC_RA());                                                  \
	}
TC_CALLS_REDUCE_ROOT(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,         \
			   MPI_Op rop, MPI_Comm comm)                                        \
	{                                                                                    \
		return tcw_reduce(TC_OP_##OP, sbuf, rbuf, count, dt, rop, 0, comm, NULL,     \
				  NULL, TC_RA());                                                  \
	}                                                                                    \
	API int MPI_##iname(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,        \
			    MPI_Op rop, MPI_Comm comm, MPI_Request *req)                     \
	{                                                                                    \
		return tcw_reduce(TC_OP_I##OP, sbuf, rbuf, count, dt, rop, 0, comm, req,     \
				  NULL, TC_RA());                                                  \
	}
TC_CALLS_REDUCE(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,     \
			   int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)          \
	{                                                                                    \
		return tcw_gather(TC_OP_##OP, sbuf, scount, stype, rbuf, rcount, rtype,      \
				  root, comm, NULL, NULL, TC_RA());                                \
	}                                                                                    \
	API int MPI_##iname(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,    \
			    int rcount, MPI_Datatype rtype, int root, MPI_Comm comm,         \
			    MPI_Request *req)                                                \
	{                                                                                    \
		return tcw_gather(TC_OP_I##OP, sbuf, scount, stype, rbuf, rcount, rtype,     \
				  root, comm, req, NULL, TC_RA());                                 \
	}
TC_CALLS_GATHER_ROOT(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,     \
			   int rcount, MPI_Datatype rtype, MPI_Comm comm)                    \
	{                                                                                    \
		return tcw_gather(TC_OP_##OP, sbuf, scount, stype, rbuf, rcount, rtype, 0,   \
				  comm, NULL, NULL, TC_RA());                                      \
	}                                                                                    \
	API int MPI_##iname(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,    \
			    int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) \
	{                                                                                    \
		return tcw_gather(TC_OP_I##OP, sbuf, scount, stype, rbuf, rcount, rtype, 0,  \
				  comm, req, NULL, TC_RA());                                       \
	}
TC_CALLS_ALLGATHER(X)
#undef X

/*
 * The v- and w-collectives, from their tables (calls.h): SHAPE(FORMS,
 * <columns>, sfx, CT, DT, VC, VD, large) gives the parameters and the
 * recording function's arguments of the binding with suffix sfx (nothing,
 * or _c for the MPI-4 large-count ones), counts of type CT and
 * displacements of type DT, members VC and VD of union tc_vec; FORMS, the
 * blocking and I- forms (COLL_FORMS) or the MPI-4 persistent one
 * (COLL_INIT), makes the functions of them.
 */
#define COLL_FORMS(name, iname, OP, sfx, fn, params, args, large)                          \
	API int MPI_##name##sfx(TC_UNPAREN params, MPI_Comm comm)                            \
	{                                                                                    \
		return fn(TC_OP_##OP, TC_UNPAREN args, comm, NULL, NULL, large, TC_RA());    \
	}                                                                                    \
	API int MPI_##iname##sfx(TC_UNPAREN params, MPI_Comm comm, MPI_Request *req)         \
	{                                                                                    \
		return fn(TC_OP_I##OP, TC_UNPAREN args, comm, req, NULL, large, TC_RA());    \
	}
#define COLL_INIT(name, iname, OP, sfx, fn, params, args, large)                           \
	API int MPI_##name##_init##sfx(TC_UNPAREN params, MPI_Comm comm, MPI_Info info,      \
				       MPI_Request *req)                                     \
	{                                                                                    \
		return fn(TC_OP_##OP##_INIT, TC_UNPAREN args, comm, req, &info, large,       \
			  TC_RA());                                                          \
	}
/* the int bindings */
#define INTS , int, int, i, i, false

#define REDUCE_SCATTER(...) REDUCE_SCATTER_(__VA_ARGS__)
#define REDUCE_SCATTER_(FORMS, name, iname, OP, fn, sfx, CT, DT, VC, VD, large)               \
	FORMS(name, iname, OP, sfx, fn,                                                       \
	      (const void *sbuf, void *rbuf, const CT rcounts[], MPI_Datatype dt, MPI_Op rop), \
	      (sbuf, rbuf, TC_VEC(VC, rcounts), dt, rop), large)

#define X(name, iname, OP, lc, fn) REDUCE_SCATTER(COLL_FORMS, name, iname, OP, fn, INTS)
TC_CALLS_REDUCE_SCATTER(X)
#undef X

#define GATHERV(...) GATHERV_(__VA_ARGS__)
#define GATHERV_(FORMS, name, iname, OP, fn, rt, sfx, CT, DT, VC, VD, large)                  \
	FORMS(name, iname, OP, sfx, fn,                                                       \
	      (const void *sbuf, CT scount, MPI_Datatype stype, void *rbuf,                   \
	       const CT rcounts[], const DT displs[], MPI_Datatype rtype rt(, int root)),     \
	      (sbuf, scount, stype, rbuf, TC_VEC(VC, rcounts), TC_VEC(VD, displs),           \
	       rtype rt(, root)),                                                             \
	      large)

#define X(name, iname, OP, lc, fn, rt) GATHERV(COLL_FORMS, name, iname, OP, fn, rt, INTS)
TC_CALLS_GATHERV(X)
#undef X

#define SCATTERV(...) SCATTERV_(__VA_ARGS__)
#define SCATTERV_(FORMS, name, iname, OP, fn, sfx, CT, DT, VC, VD, large)                     \
	FORMS(name, iname, OP, sfx, fn,                                                       \
	      (const void *sbuf, const CT scounts[], const DT displs[], MPI_Datatype stype,   \
	       void *rbuf, CT rcount, MPI_Datatype rtype, int root),                          \
	      (sbuf, TC_VEC(VC, scounts), TC_VEC(VD, displs), stype, rbuf, rcount, rtype,    \
	       root),                                                                         \
	      large)

#define X(name, iname, OP, lc, fn) SCATTERV(COLL_FORMS, name, iname, OP, fn, INTS)
TC_CALLS_SCATTERV(X)
#undef X

#define ALLTOALLV(...) ALLTOALLV_(__VA_ARGS__)
#define ALLTOALLV_(FORMS, name, iname, OP, fn, sfx, CT, DT, VC, VD, large)                    \
	FORMS(name, iname, OP, sfx, fn,                                                       \
	      (const void *sbuf, const CT scounts[], const DT sdispls[], MPI_Datatype stype,  \
	       void *rbuf, const CT rcounts[], const DT rdispls[], MPI_Datatype rtype),       \
	      (sbuf, TC_VEC(VC, scounts), TC_VEC(VD, sdispls), stype, rbuf,                  \
	       TC_VEC(VC, rcounts), TC_VEC(VD, rdispls), rtype),                              \
	      large)

#define X(name, iname, OP, lc, fn) ALLTOALLV(COLL_FORMS, name, iname, OP, fn, INTS)
TC_CALLS_ALLTOALLV(X)
#undef X

#define ALLTOALLW(...) ALLTOALLW_(__VA_ARGS__)
#define ALLTOALLW_(FORMS, name, iname, OP, fn, sfx, CT, DT, VC, VD, large)                    \
	FORMS(name, iname, OP, sfx, fn,                                                       \
	      (const void *sbuf, const CT scounts[], const DT sdispls[],                      \
	       const MPI_Datatype stypes[], void *rbuf, const CT rcounts[],                   \
	       const DT rdispls[], const MPI_Datatype rtypes[]),                              \
	      (sbuf, TC_VEC(VC, scounts), TC_VEC(VD, sdispls), stypes, rbuf,                 \
	       TC_VEC(VC, rcounts), TC_VEC(VD, rdispls), rtypes),                             \
	      large)

/* the int bindings' displacements are the table's */
#define X(name, iname, OP, lc, fn, DT, dm) \
	ALLTOALLW(COLL_FORMS, name, iname, OP, fn, , int, DT, i, dm, false)
TC_CALLS_ALLTOALLW(X)
#undef X

/* ---- neighbourhood collectives ---- */

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,     \
			   int rcount, MPI_Datatype rtype, MPI_Comm comm)                    \
	{                                                                                    \
		return tcw_neighbor(TC_OP_##OP, sbuf, scount, stype, rbuf, rcount, rtype,    \
				    comm, NULL, NULL, TC_RA());                                    \
	}                                                                                    \
	API int MPI_##iname(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,    \
			    int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) \
	{                                                                                    \
		return tcw_neighbor(TC_OP_I##OP, sbuf, scount, stype, rbuf, rcount, rtype,   \
				    comm, req, NULL, TC_RA());                                     \
	}
TC_CALLS_NEIGHBOR(X)
#undef X

/* ---- communicators ---- */

API int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	return tcw_comm_dup(comm, NULL, newcomm, NULL, TC_RA());
}

API int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
	return tcw_comm_dup(comm, NULL, newcomm, req, TC_RA());
}

API int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	return tcw_comm_split(comm, color, key, newcomm, TC_RA());
}

API int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
	return tcw_comm_split_type(comm, type, key, info, newcomm, TC_RA());
}

API int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	return tcw_comm_create(comm, group, newcomm, TC_RA());
}

API int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
	return tcw_comm_create_group(comm, group, tag, newcomm, TC_RA());
}

API int MPI_Comm_free(MPI_Comm *comm)
{
	return tcw_comm_free(comm, TC_RA());
}

API int MPI_Comm_disconnect(MPI_Comm *comm)
{
	return tcw_comm_disconnect(comm, TC_RA());
}

API int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
			int reorder, MPI_Comm *newcomm)
{
	return tcw_cart_create(comm, ndims, dims, periods, reorder, newcomm, TC_RA());
}

API int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *newcomm)
{
	return tcw_cart_sub(comm, remain, newcomm, TC_RA());
}

API int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
			 int reorder, MPI_Comm *newcomm)
{
	return tcw_graph_create(comm, nnodes, index, edges, reorder, newcomm, TC_RA());
}

API int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indeg, const int srcs[],
				       const int sw[], int outdeg, const int dsts[],
				       const int dw[], MPI_Info info, int reorder,
				       MPI_Comm *newcomm)
{
	return tcw_dist_graph_create_adjacent(comm, indeg, srcs, sw, outdeg, dsts, dw, info,
					      reorder, newcomm, TC_RA());
}

API int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	return tcw_comm_dup(comm, &info, newcomm, NULL, TC_RA());
}

API int MPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer_comm,
			     int remote_leader, int tag, MPI_Comm *newcomm)
{
	return tcw_intercomm_create(local, local_leader, peer_comm, remote_leader, tag, newcomm,
				    TC_RA());
}

API int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newcomm)
{
	return tcw_intercomm_merge(intercomm, high, newcomm, TC_RA());
}

API int MPI_Dist_graph_create(MPI_Comm comm, int n, const int srcs[], const int degrees[],
			      const int dsts[], const int weights[], MPI_Info info, int reorder,
			      MPI_Comm *newcomm)
{
	return tcw_dist_graph_create(comm, n, srcs, degrees, dsts, weights, info, reorder,
				     newcomm, TC_RA());
}

API int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
		       MPI_Comm comm, MPI_Comm *intercomm, int errcodes[])
{
	return tcw_comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, errcodes,
			      TC_RA());
}

API int MPI_Comm_connect(const char *port, MPI_Info info, int root, MPI_Comm comm,
			 MPI_Comm *newcomm)
{
	return tcw_comm_connect(false, port, info, root, comm, newcomm, TC_RA());
}

API int MPI_Comm_accept(const char *port, MPI_Info info, int root, MPI_Comm comm,
			MPI_Comm *newcomm)
{
	return tcw_comm_connect(true, port, info, root, comm, newcomm, TC_RA());
}

/* ---- one-sided ---- */

API int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
		       MPI_Win *win)
{
	return tcw_win_create(TC_OP_WIN_CREATE, base, size, disp_unit, info, comm, win, false,
			      TC_RA());
}

API int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
			 void *baseptr, MPI_Win *win)
{
	return tcw_win_create(TC_OP_WIN_ALLOCATE, baseptr, size, disp_unit, info, comm, win,
			      false, TC_RA());
}

API int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
				void *baseptr, MPI_Win *win)
{
	return tcw_win_create(TC_OP_WIN_ALLOCATE_SHARED, baseptr, size, disp_unit, info, comm,
			      win, false, TC_RA());
}

API int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	return tcw_win_create(TC_OP_WIN_CREATE_DYNAMIC, NULL, 0, 1, info, comm, win, false,
			      TC_RA());
}

API int MPI_Win_free(MPI_Win *win)
{
	return tcw_win_free(win, TC_RA());
}

#define X(name, rname, OP, lc, cq)                                                         \
	API int MPI_##name(cq void *addr, int ocount, MPI_Datatype otype, int target,        \
			   MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win)       \
	{                                                                                    \
		return tcw_put(TC_OP_##OP, (void *)addr, ocount, otype, target, disp,        \
			       tcount, ttype, win, NULL, TC_RA());                           \
	}                                                                                    \
	API int MPI_##rname(cq void *addr, int ocount, MPI_Datatype otype, int target,       \
			    MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win,      \
			    MPI_Request *req)                                                \
	{                                                                                    \
		return tcw_put(TC_OP_R##OP, (void *)addr, ocount, otype, target, disp,       \
			       tcount, ttype, win, req, TC_RA());                            \
	}
TC_CALLS_PUT(X)
#undef X

/*
 * The accumulates, from their tables (calls.h): RMA_FORMS makes a call and
 * its request form, whose parameters before the window are params, passing
 * args before it to fn; their int bindings here, and (MPI-4) the
 * large-count ones (suffix _c, MPI_Count counts) below.
 */
#define RMA_FORMS(name, rname, OP, sfx, fn, params, args, large)                           \
	API int MPI_##name##sfx(TC_UNPAREN params, MPI_Win win)                              \
	{                                                                                    \
		return fn(TC_OP_##OP, TC_UNPAREN args, win, NULL, large, TC_RA());           \
	}                                                                                    \
	API int MPI_##rname##sfx(TC_UNPAREN params, MPI_Win win, MPI_Request *req)           \
	{                                                                                    \
		return fn(TC_OP_R##OP, TC_UNPAREN args, win, req, large, TC_RA());           \
	}
#define ACCUMULATE(name, rname, OP, sfx, CT, large)                                        \
	RMA_FORMS(name, rname, OP, sfx, tcw_accumulate,                                      \
		  (const void *addr, CT ocount, MPI_Datatype otype, int target,              \
		   MPI_Aint disp, CT tcount, MPI_Datatype ttype, MPI_Op rop),                \
		  (addr, ocount, otype, target, disp, tcount, ttype, rop), large)
#define GET_ACCUMULATE(name, rname, OP, sfx, CT, large)                                    \
	RMA_FORMS(name, rname, OP, sfx, tcw_get_accumulate,                                  \
		  (const void *oaddr, CT ocount, MPI_Datatype otype, void *raddr, CT rcount, \
		   MPI_Datatype rtype, int target, MPI_Aint disp, CT tcount,                 \
		   MPI_Datatype ttype, MPI_Op rop),                                          \
		  (oaddr, ocount, otype, raddr, rcount, rtype, target, disp, tcount, ttype,  \
		   rop),                                                                     \
		  large)

#define X(name, rname, OP, lc) ACCUMULATE(name, rname, OP, , int, false)
TC_CALLS_ACCUMULATE(X)
#undef X
#define X(name, rname, OP, lc) GET_ACCUMULATE(name, rname, OP, , int, false)
TC_CALLS_GET_ACCUMULATE(X)
#undef X

API int MPI_Fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype dt, int target,
			 MPI_Aint disp, MPI_Op op, MPI_Win win)
{
	return tcw_fetch_and_op(oaddr, raddr, dt, target, disp, op, win, TC_RA());
}

API int MPI_Compare_and_swap(const void *oaddr, const void *caddr, void *raddr, MPI_Datatype dt,
			     int target, MPI_Aint disp, MPI_Win win)
{
	return tcw_compare_and_swap(oaddr, caddr, raddr, dt, target, disp, win, TC_RA());
}

API int MPI_Win_lock(int type, int rank, int assert, MPI_Win win)
{
	return tcw_win_sync(TC_OP_WIN_LOCK, type, rank, assert, MPI_GROUP_NULL, win, NULL, TC_RA());
}

API int MPI_Win_test(MPI_Win win, int *flag)
{
	return tcw_win_sync(TC_OP_WIN_TEST, 0, 0, 0, MPI_GROUP_NULL, win, flag, TC_RA());
}

#define X(name, OP, lc)                                                                    \
	API int MPI_##name(MPI_Win win)                                                      \
	{                                                                                    \
		return tcw_win_sync(TC_OP_##OP, 0, 0, 0, MPI_GROUP_NULL, win, NULL, TC_RA());\
	}
TC_CALLS_WIN(X)
#undef X

#define X(name, OP, lc)                                                                    \
	API int MPI_##name(int rank, MPI_Win win)                                            \
	{                                                                                    \
		return tcw_win_sync(TC_OP_##OP, 0, rank, 0, MPI_GROUP_NULL, win, NULL,       \
				    TC_RA());                                                \
	}
TC_CALLS_WIN_RANK(X)
#undef X

#define X(name, OP, lc)                                                                    \
	API int MPI_##name(int assert, MPI_Win win)                                          \
	{                                                                                    \
		return tcw_win_sync(TC_OP_##OP, 0, 0, assert, MPI_GROUP_NULL, win, NULL,     \
				    TC_RA());                                                \
	}
TC_CALLS_WIN_ASSERT(X)
#undef X

#define X(name, OP, lc)                                                                    \
	API int MPI_##name(MPI_Group group, int assert, MPI_Win win)                         \
	{                                                                                    \
		return tcw_win_sync(TC_OP_##OP, 0, 0, assert, group, win, NULL, TC_RA());    \
	}
TC_CALLS_WIN_GROUP(X)
#undef X

/* ---- MPI-IO ---- */

API int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
	return tcw_file_open(comm, name, amode, info, fh, TC_RA());
}

API int MPI_File_close(MPI_File *fh)
{
	return tcw_file_close(fh, TC_RA());
}

/* the explicit-offset forms take an MPI_Offset after fh: AT, or nothing;
 * the MPI-4 large-count ones (suffix _c) an MPI_Count count */
#define AT , MPI_Offset off
#define NOAT
#define X(name, OP, lc, cq, at, offv, sfx, cnt, large)                                     \
	API int MPI_##name##sfx(MPI_File fh at, cq void *buf, cnt count, MPI_Datatype dt,    \
				MPI_Status *st)                                              \
	{                                                                                    \
		return tcw_file_rw(TC_OP_##OP, fh, offv, (void *)buf, count, dt, st, large,  \
				   TC_RA());                                                 \
	}
#define FILE_RW(name, OP, lc, cq) X(name, OP, lc, cq, NOAT, 0, , int, false)
#define FILE_RW_AT(name, OP, lc, cq) X(name, OP, lc, cq, AT, off, , int, false)
TC_CALLS_FILE(FILE_RW)
TC_CALLS_FILE_AT(FILE_RW_AT)
#undef FILE_RW
#undef FILE_RW_AT
#if MPI_VERSION >= 4
#define FILE_RW(name, OP, lc, cq) X(name, OP, lc, cq, NOAT, 0, _c, MPI_Count, true)
#define FILE_RW_AT(name, OP, lc, cq) X(name, OP, lc, cq, AT, off, _c, MPI_Count, true)
TC_CALLS_FILE(FILE_RW)
TC_CALLS_FILE_AT(FILE_RW_AT)
#undef FILE_RW
#undef FILE_RW_AT
#endif
#undef X

#define X(name, OP, lc, cq, at, offv, sfx, cnt, large)                                     \
	API int MPI_##name##sfx(MPI_File fh at, cq void *buf, cnt count, MPI_Datatype dt,    \
				MPI_Request *req)                                            \
	{                                                                                    \
		return tcw_file_irw(TC_OP_##OP, fh, offv, (void *)buf, count, dt, req,       \
				    large, TC_RA());                                         \
	}
#define FILE_IRW(name, OP, lc, cq) X(name, OP, lc, cq, NOAT, 0, , int, false)
#define FILE_IRW_AT(name, OP, lc, cq) X(name, OP, lc, cq, AT, off, , int, false)
TC_CALLS_FILE_I(FILE_IRW)
TC_CALLS_FILE_I_AT(FILE_IRW_AT)
#undef FILE_IRW
#undef FILE_IRW_AT
#if MPI_VERSION >= 4
#define FILE_IRW(name, OP, lc, cq) X(name, OP, lc, cq, NOAT, 0, _c, MPI_Count, true)
#define FILE_IRW_AT(name, OP, lc, cq) X(name, OP, lc, cq, AT, off, _c, MPI_Count, true)
TC_CALLS_FILE_I(FILE_IRW)
TC_CALLS_FILE_I_AT(FILE_IRW_AT)
#undef FILE_IRW
#undef FILE_IRW_AT
#endif
#undef X
#undef AT
#undef NOAT

/* ---- MPI-4 large-count variants ---- */

#if MPI_VERSION >= 4
#define X(name, OP, lc)                                                                    \
	API int MPI_##name##_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,  \
			       int tag, MPI_Comm comm)                                       \
	{                                                                                    \
		return tcw_send_c(TC_OP_##OP, buf, count, dt, dest, tag, comm, TC_RA());     \
	}
TC_CALLS_SEND(X)
#undef X

#define X(name, OP, lc)                                                                    \
	API int MPI_##name##_c(const void *buf, MPI_Count count, MPI_Datatype dt, int peer,  \
			       int tag, MPI_Comm comm, MPI_Request *req)                     \
	{                                                                                    \
		return tcw_isend_c(TC_OP_##OP, buf, count, dt, peer, tag, comm, req,         \
				   TC_RA());                                                 \
	}
TC_CALLS_ISEND(X)
#undef X

#define X(name, OP, lc)                                                                    \
	API int MPI_##name##_c(void *buf, MPI_Count count, MPI_Datatype dt, int peer,        \
			       int tag, MPI_Comm comm, MPI_Request *req)                     \
	{                                                                                    \
		return tcw_isend_c(TC_OP_##OP, buf, count, dt, peer, tag, comm, req,         \
				   TC_RA());                                                 \
	}
TC_CALLS_IRECV(X)
#undef X

API int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
		   MPI_Status *status)
{
	return tcw_recv_c(buf, count, dt, src, tag, comm, status, TC_RA());
}

API int MPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
	return tcw_bcast_c(buf, count, dt, root, comm, NULL, NULL, TC_RA());
}

API int MPI_Ibcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm,
		     MPI_Request *req)
{
	return tcw_bcast_c(buf, count, dt, root, comm, req, NULL, TC_RA());
}

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_c(const void *sbuf, void *rbuf, MPI_Count count,                \
			       MPI_Datatype dt, MPI_Op rop, int root, MPI_Comm comm)         \
	{                                                                                    \
		return tcw_reduce_c(TC_OP_##OP, sbuf, rbuf, count, dt, rop, root, comm,      \
				    NULL, NULL, TC_RA());                                    \
	}                                                                                    \
	API int MPI_##iname##_c(const void *sbuf, void *rbuf, MPI_Count count,               \
				MPI_Datatype dt, MPI_Op rop, int root, MPI_Comm comm,        \
				MPI_Request *req)                                            \
	{                                                                                    \
		return tcw_reduce_c(TC_OP_I##OP, sbuf, rbuf, count, dt, rop, root, comm,     \
				    req, NULL, TC_RA());                                     \
	}
TC_CALLS_REDUCE_ROOT(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_c(const void *sbuf, void *rbuf, MPI_Count count,                \
			       MPI_Datatype dt, MPI_Op rop, MPI_Comm comm)                   \
	{                                                                                    \
		return tcw_reduce_c(TC_OP_##OP, sbuf, rbuf, count, dt, rop, 0, comm, NULL,   \
				    NULL, TC_RA());                                          \
	}                                                                                    \
	API int MPI_##iname##_c(const void *sbuf, void *rbuf, MPI_Count count,               \
				MPI_Datatype dt, MPI_Op rop, MPI_Comm comm, MPI_Request *req) \
	{                                                                                    \
		return tcw_reduce_c(TC_OP_I##OP, sbuf, rbuf, count, dt, rop, 0, comm, req,   \
				    NULL, TC_RA());                                          \
	}
TC_CALLS_REDUCE(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,       \
			       void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,   \
			       MPI_Comm comm)                                                \
	{                                                                                    \
		return tcw_gather_c(TC_OP_##OP, sbuf, scount, stype, rbuf, rcount, rtype,    \
				    root, comm, NULL, NULL, TC_RA());                        \
	}                                                                                    \
	API int MPI_##iname##_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,      \
				void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,  \
				MPI_Comm comm, MPI_Request *req)                             \
	{                                                                                    \
		return tcw_gather_c(TC_OP_I##OP, sbuf, scount, stype, rbuf, rcount, rtype,   \
				    root, comm, req, NULL, TC_RA());                         \
	}
TC_CALLS_GATHER_ROOT(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,       \
			       void *rbuf, MPI_Count rcount, MPI_Datatype rtype,             \
			       MPI_Comm comm)                                                \
	{                                                                                    \
		return tcw_gather_c(TC_OP_##OP, sbuf, scount, stype, rbuf, rcount, rtype, 0, \
				    comm, NULL, NULL, TC_RA());                              \
	}                                                                                    \
	API int MPI_##iname##_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,      \
				void *rbuf, MPI_Count rcount, MPI_Datatype rtype,            \
				MPI_Comm comm, MPI_Request *req)                             \
	{                                                                                    \
		return tcw_gather_c(TC_OP_I##OP, sbuf, scount, stype, rbuf, rcount, rtype,   \
				    0, comm, req, NULL, TC_RA());                            \
	}
TC_CALLS_ALLGATHER(X)
TC_CALLS_NEIGHBOR(X)
#undef X

#define X(name, rname, OP, lc, cq)                                                         \
	API int MPI_##name##_c(cq void *addr, MPI_Count ocount, MPI_Datatype otype,          \
			       int target, MPI_Aint disp, MPI_Count tcount,                  \
			       MPI_Datatype ttype, MPI_Win win)                              \
	{                                                                                    \
		return tcw_put_c(TC_OP_##OP, (void *)addr, ocount, otype, target, disp,      \
				 tcount, ttype, win, NULL, TC_RA());                         \
	}                                                                                    \
	API int MPI_##rname##_c(cq void *addr, MPI_Count ocount, MPI_Datatype otype,         \
				int target, MPI_Aint disp, MPI_Count tcount,                 \
				MPI_Datatype ttype, MPI_Win win, MPI_Request *req)           \
	{                                                                                    \
		return tcw_put_c(TC_OP_R##OP, (void *)addr, ocount, otype, target, disp,     \
				 tcount, ttype, win, req, TC_RA());                          \
	}
TC_CALLS_PUT(X)
#undef X

API int MPI_Sendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest,
		       int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int src,
		       int rtag, MPI_Comm comm, MPI_Status *status)
{
	return tcw_sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
			    status, true, TC_RA());
}

API int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
			       int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
	return tcw_sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, status, true,
				    TC_RA());
}

API int MPI_Isendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest,
			int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int src,
			int rtag, MPI_Comm comm, MPI_Request *req)
{
	return tcw_isendrecv(TC_OP_ISENDRECV, sbuf, scount, stype, dest, stag, rbuf, rcount,
			     rtype, src, rtag, comm, req, true, TC_RA());
}

API int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest,
				int stag, int src, int rtag, MPI_Comm comm, MPI_Request *req)
{
	return tcw_isendrecv(TC_OP_ISENDRECV_REPLACE, buf, count, dt, dest, stag, buf, count, dt,
			     src, rtag, comm, req, true, TC_RA());
}

API int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg,
		    MPI_Status *status)
{
	return tcw_mrecv(buf, count, dt, msg, status, NULL, true, TC_RA());
}

API int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg,
		     MPI_Request *req)
{
	return tcw_mrecv(buf, count, dt, msg, MPI_STATUS_IGNORE, req, true, TC_RA());
}

API int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
			 MPI_Comm comm, MPI_Win *win)
{
	return tcw_win_create(TC_OP_WIN_CREATE, base, size, disp_unit, info, comm, win, true,
			      TC_RA());
}

API int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
			   void *baseptr, MPI_Win *win)
{
	return tcw_win_create(TC_OP_WIN_ALLOCATE, baseptr, size, disp_unit, info, comm, win,
			      true, TC_RA());
}

API int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
				  MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	return tcw_win_create(TC_OP_WIN_ALLOCATE_SHARED, baseptr, size, disp_unit, info, comm,
			      win, true, TC_RA());
}

/* the persistent collectives (their info after the communicator) */
API int MPI_Bcast_init_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm,
			 MPI_Info info, MPI_Request *req)
{
	return tcw_bcast_c(buf, count, dt, root, comm, req, &info, TC_RA());
}

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_init_c(const void *sbuf, void *rbuf, MPI_Count count,           \
				    MPI_Datatype dt, MPI_Op rop, int root, MPI_Comm comm,    \
				    MPI_Info info, MPI_Request *req)                         \
	{                                                                                    \
		return tcw_reduce_c(TC_OP_##OP##_INIT, sbuf, rbuf, count, dt, rop, root,     \
				    comm, req, &info, TC_RA());                              \
	}
TC_CALLS_REDUCE_ROOT(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_init_c(const void *sbuf, void *rbuf, MPI_Count count,           \
				    MPI_Datatype dt, MPI_Op rop, MPI_Comm comm,              \
				    MPI_Info info, MPI_Request *req)                         \
	{                                                                                    \
		return tcw_reduce_c(TC_OP_##OP##_INIT, sbuf, rbuf, count, dt, rop, 0, comm,  \
				    req, &info, TC_RA());                                    \
	}
TC_CALLS_REDUCE(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_init_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,  \
				    void *rbuf, MPI_Count rcount, MPI_Datatype rtype,        \
				    int root, MPI_Comm comm, MPI_Info info,                  \
				    MPI_Request *req)                                        \
	{                                                                                    \
		return tcw_gather_c(TC_OP_##OP##_INIT, sbuf, scount, stype, rbuf, rcount,    \
				    rtype, root, comm, req, &info, TC_RA());                 \
	}
TC_CALLS_GATHER_ROOT(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_init_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,  \
				    void *rbuf, MPI_Count rcount, MPI_Datatype rtype,        \
				    MPI_Comm comm, MPI_Info info, MPI_Request *req)          \
	{                                                                                    \
		return tcw_gather_c(TC_OP_##OP##_INIT, sbuf, scount, stype, rbuf, rcount,    \
				    rtype, 0, comm, req, &info, TC_RA());                    \
	}
TC_CALLS_ALLGATHER(X)
TC_CALLS_NEIGHBOR(X)
#undef X

/* ---- MPI-4 persistent collectives: the wrapper of the blocking form with
 * the info argument (a non-NULL init) ---- */

API int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
	return tcw_barrier(comm, req, &info, TC_RA());
}

API int MPI_Bcast_init(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
		       MPI_Info info, MPI_Request *req)
{
	return tcw_bcast(buf, count, dt, root, comm, req, &info, TC_RA());
}

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,  \
				  MPI_Op rop, int root, MPI_Comm comm, MPI_Info info,        \
				  MPI_Request *req)                                          \
	{                                                                                    \
		return tcw_reduce(TC_OP_##OP##_INIT, sbuf, rbuf, count, dt, rop, root, comm, \
				  req, &info, TC_RA());                                      \
	}
TC_CALLS_REDUCE_ROOT(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,  \
				  MPI_Op rop, MPI_Comm comm, MPI_Info info, MPI_Request *req) \
	{                                                                                    \
		return tcw_reduce(TC_OP_##OP##_INIT, sbuf, rbuf, count, dt, rop, 0, comm,    \
				  req, &info, TC_RA());                                      \
	}
TC_CALLS_REDUCE(X)
#undef X

#define X(name, iname, OP, lc, fn) REDUCE_SCATTER(COLL_INIT, name, iname, OP, fn, INTS)
TC_CALLS_REDUCE_SCATTER(X)
#undef X
#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_init(const void *sbuf, int scount, MPI_Datatype stype,          \
				  void *rbuf, int rcount, MPI_Datatype rtype, int root,      \
				  MPI_Comm comm, MPI_Info info, MPI_Request *req)            \
	{                                                                                    \
		return tcw_gather(TC_OP_##OP##_INIT, sbuf, scount, stype, rbuf, rcount,      \
				  rtype, root, comm, req, &info, TC_RA());                   \
	}
TC_CALLS_GATHER_ROOT(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_init(const void *sbuf, int scount, MPI_Datatype stype,          \
				  void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, \
				  MPI_Info info, MPI_Request *req)                           \
	{                                                                                    \
		return tcw_gather(TC_OP_##OP##_INIT, sbuf, scount, stype, rbuf, rcount,      \
				  rtype, 0, comm, req, &info, TC_RA());                      \
	}
TC_CALLS_ALLGATHER(X)
#undef X

#define X(name, iname, OP, lc)                                                             \
	API int MPI_##name##_init(const void *sbuf, int scount, MPI_Datatype stype,          \
				  void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, \
				  MPI_Info info, MPI_Request *req)                           \
	{                                                                                    \
		return tcw_neighbor(TC_OP_##OP##_INIT, sbuf, scount, stype, rbuf, rcount,    \
				    rtype, comm, req, &info, TC_RA());                       \
	}
TC_CALLS_NEIGHBOR(X)
#undef X

#define X(name, iname, OP, lc, fn, rt) GATHERV(COLL_INIT, name, iname, OP, fn, rt, INTS)
TC_CALLS_GATHERV(X)
#undef X

#define X(name, iname, OP, lc, fn) SCATTERV(COLL_INIT, name, iname, OP, fn, INTS)
TC_CALLS_SCATTERV(X)
#undef X

#define X(name, iname, OP, lc, fn) ALLTOALLV(COLL_INIT, name, iname, OP, fn, INTS)
TC_CALLS_ALLTOALLV(X)
#undef X

#define X(name, iname, OP, lc, fn, DT, dm) \
	ALLTOALLW(COLL_INIT, name, iname, OP, fn, , int, DT, i, dm, false)
TC_CALLS_ALLTOALLW(X)
#undef X

/* ---- MPI-4 large-count v- and w-collectives and accumulates: the table
 * lines above with MPI_Count counts and MPI_Aint displacements ---- */

#define LARGE _c, MPI_Count, MPI_Aint, c, a, true
/* the three large-count forms of a table line of SHAPE */
#define LARGE_FORMS(SHAPE, ...) \
	SHAPE(COLL_FORMS, __VA_ARGS__, LARGE) SHAPE(COLL_INIT, __VA_ARGS__, LARGE)

#define X(name, iname, OP, lc, fn, rt) LARGE_FORMS(GATHERV, name, iname, OP, fn, rt)
TC_CALLS_GATHERV(X)
#undef X
#define X(name, iname, OP, lc, fn) LARGE_FORMS(SCATTERV, name, iname, OP, fn)
TC_CALLS_SCATTERV(X)
#undef X
#define X(name, iname, OP, lc, fn) LARGE_FORMS(ALLTOALLV, name, iname, OP, fn)
TC_CALLS_ALLTOALLV(X)
#undef X
#define X(name, iname, OP, lc, fn, DT, dm) LARGE_FORMS(ALLTOALLW, name, iname, OP, fn)
TC_CALLS_ALLTOALLW(X)
#undef X
#define X(name, iname, OP, lc, fn) LARGE_FORMS(REDUCE_SCATTER, name, iname, OP, fn)
TC_CALLS_REDUCE_SCATTER(X)
#undef X

#define X(name, rname, OP, lc) ACCUMULATE(name, rname, OP, _c, MPI_Count, true)
TC_CALLS_ACCUMULATE(X)
#undef X
#define X(name, rname, OP, lc) GET_ACCUMULATE(name, rname, OP, _c, MPI_Count, true)
TC_CALLS_GET_ACCUMULATE(X)
#undef X

/* ---- MPI-4 partitioned communication, nonblocking sendrecv, communicators ---- */

API int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype dt,
		       int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
	return tcw_pinit(TC_OP_PSEND_INIT, (void *)buf, partitions, count, dt, dest, tag, comm,
			 info, req, TC_RA());
}

API int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype dt, int src,
		       int tag, MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
	return tcw_pinit(TC_OP_PRECV_INIT, buf, partitions, count, dt, src, tag, comm, info, req,
			 TC_RA());
}

API int MPI_Pready(int partition, MPI_Request req)
{
	return tcw_pready(TC_OP_PREADY, partition, partition, 0, NULL, req, NULL, TC_RA());
}

API int MPI_Pready_range(int lo, int hi, MPI_Request req)
{
	return tcw_pready(TC_OP_PREADY_RANGE, lo, hi, 0, NULL, req, NULL, TC_RA());
}

API int MPI_Pready_list(int n, int partitions[], MPI_Request req)
{
	return tcw_pready(TC_OP_PREADY_LIST, 0, 0, n, partitions, req, NULL, TC_RA());
}

API int MPI_Parrived(MPI_Request req, int partition, int *flag)
{
	return tcw_pready(TC_OP_PARRIVED, partition, partition, 0, NULL, req, flag, TC_RA());
}

API int MPI_Isendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
		      void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
		      MPI_Request *req)
{
	return tcw_isendrecv(TC_OP_ISENDRECV, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
			     req, false, TC_RA());
}

API int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src,
			      int rtag, MPI_Comm comm, MPI_Request *req)
{
	return tcw_isendrecv(TC_OP_ISENDRECV_REPLACE, buf, count, dt, dest, stag, buf, count, dt, src, rtag, comm, req,
			     false, TC_RA());
}

API int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
				MPI_Request *req)
{
	return tcw_comm_dup(comm, &info, newcomm, req, TC_RA());
}

API int MPI_Session_init(MPI_Info info, MPI_Errhandler eh, MPI_Session *session)
{
	return tcw_session(TC_OP_SESSION_INIT, info, eh, session, TC_RA());
}

API int MPI_Session_finalize(MPI_Session *session)
{
	return tcw_session(TC_OP_SESSION_FINALIZE, MPI_INFO_NULL, MPI_ERRORS_RETURN, session,
			   TC_RA());
}

API int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
				   MPI_Errhandler eh, MPI_Comm *newcomm)
{
	return tcw_comm_create_from_group(group, stringtag, info, eh, newcomm, TC_RA());
}

API int MPI_Intercomm_create_from_groups(MPI_Group local, int local_leader, MPI_Group remote,
					 int remote_leader, const char *stringtag, MPI_Info info,
					 MPI_Errhandler eh, MPI_Comm *newcomm)
{
	return tcw_intercomm_create_from_groups(local, local_leader, remote, remote_leader,
						stringtag, info, eh, newcomm, TC_RA());
}
#endif
