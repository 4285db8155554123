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
			    status, TC_RA());
}

API int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src,
			     int rtag, MPI_Comm comm, MPI_Status *status)
{
	return tcw_sendrecv_replace(buf, count, dt, dest, stag, src, rtag, comm, status, TC_RA());
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
	return tcw_mrecv(buf, count, dt, msg, status, NULL, TC_RA());
}

API int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req)
{
	return tcw_mrecv(buf, count, dt, msg, MPI_STATUS_IGNORE, req, TC_RA());
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
	return tcw_barrier(comm, NULL, TC_RA());
}

API int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
	return tcw_barrier(comm, req, TC_RA());
}

API int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
	return tcw_bcast(buf, count, dt, root, comm, NULL, TC_RA());
}

API int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
		   MPI_Request *req)
{
	return tcw_bcast(buf, count, dt, root, comm, req, TC_RA());
}

API int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
		   MPI_Comm comm)
{
	return tcw_reduce(TC_OP_REDUCE, sbuf, rbuf, count, dt, op, root, comm, NULL, TC_RA());
}

API int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
		    MPI_Comm comm, MPI_Request *req)
{
	return tcw_reduce(TC_OP_IREDUCE, sbuf, rbuf, count, dt, op, root, comm, req, TC_RA());
}

#define REDUCE(name, iname, op, iop)                                                      \
	API int name(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op rop, \
		     MPI_Comm comm)                                                        \
	{                                                                                  \
		return tcw_reduce(op, sbuf, rbuf, count, dt, rop, 0, comm, NULL, TC_RA()); \
	}                                                                                  \
	API int iname(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op rop, \
		      MPI_Comm comm, MPI_Request *req)                                      \
	{                                                                                   \
		return tcw_reduce(iop, sbuf, rbuf, count, dt, rop, 0, comm, req, TC_RA());  \
	}
REDUCE(MPI_Allreduce, MPI_Iallreduce, TC_OP_ALLREDUCE, TC_OP_IALLREDUCE)
REDUCE(MPI_Scan, MPI_Iscan, TC_OP_SCAN, TC_OP_ISCAN)
REDUCE(MPI_Exscan, MPI_Iexscan, TC_OP_EXSCAN, TC_OP_IEXSCAN)
REDUCE(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, TC_OP_REDUCE_SCATTER_BLOCK,
       TC_OP_IREDUCE_SCATTER_BLOCK)
#undef REDUCE

API int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
			   MPI_Op op, MPI_Comm comm)
{
	return tcw_reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm, NULL, TC_RA());
}

API int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
			    MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
	return tcw_reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm, req, TC_RA());
}

#define GATHER(name, iname, op, iop)                                                       \
	API int name(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
		     MPI_Datatype rtype, int root, MPI_Comm comm)                          \
	{                                                                                  \
		return tcw_gather(op, sbuf, scount, stype, rbuf, rcount, rtype, root, comm, \
				  NULL, TC_RA());                                          \
	}                                                                                  \
	API int iname(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
		      MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)        \
	{                                                                                   \
		return tcw_gather(iop, sbuf, scount, stype, rbuf, rcount, rtype, root, comm, \
				  req, TC_RA());                                            \
	}
GATHER(MPI_Gather, MPI_Igather, TC_OP_GATHER, TC_OP_IGATHER)
GATHER(MPI_Scatter, MPI_Iscatter, TC_OP_SCATTER, TC_OP_ISCATTER)
#undef GATHER

#define ALLGATHER(name, iname, op, iop)                                                    \
	API int name(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
		     MPI_Datatype rtype, MPI_Comm comm)                                    \
	{                                                                                  \
		return tcw_gather(op, sbuf, scount, stype, rbuf, rcount, rtype, 0, comm,   \
				  NULL, TC_RA());                                          \
	}                                                                                  \
	API int iname(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
		      MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)                  \
	{                                                                                   \
		return tcw_gather(iop, sbuf, scount, stype, rbuf, rcount, rtype, 0, comm,   \
				  req, TC_RA());                                            \
	}
ALLGATHER(MPI_Allgather, MPI_Iallgather, TC_OP_ALLGATHER, TC_OP_IALLGATHER)
ALLGATHER(MPI_Alltoall, MPI_Ialltoall, TC_OP_ALLTOALL, TC_OP_IALLTOALL)
#undef ALLGATHER

API int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		    const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
		    MPI_Comm comm)
{
	return tcw_gatherv(TC_OP_GATHERV, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root,
			   comm, NULL, TC_RA());
}

API int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		     const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
		     MPI_Comm comm, MPI_Request *req)
{
	return tcw_gatherv(TC_OP_IGATHERV, sbuf, scount, stype, rbuf, rcounts, displs, rtype,
			   root, comm, req, TC_RA());
}

API int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		       const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
	return tcw_gatherv(TC_OP_ALLGATHERV, sbuf, scount, stype, rbuf, rcounts, displs, rtype, 0,
			   comm, NULL, TC_RA());
}

API int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
			const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm,
			MPI_Request *req)
{
	return tcw_gatherv(TC_OP_IALLGATHERV, sbuf, scount, stype, rbuf, rcounts, displs, rtype,
			   0, comm, req, TC_RA());
}

API int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
		     MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
		     MPI_Comm comm)
{
	return tcw_scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, NULL,
			    TC_RA());
}

API int MPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[],
		      MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
		      MPI_Comm comm, MPI_Request *req)
{
	return tcw_scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req,
			    TC_RA());
}

API int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
		      MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
		      MPI_Datatype rtype, MPI_Comm comm)
{
	return tcw_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm,
			     NULL, TC_RA());
}

API int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[],
		       MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
		       MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
	return tcw_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm,
			     req, TC_RA());
}

API int MPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
		      const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
		      const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm)
{
	return tcw_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm,
			     NULL, TC_RA());
}

API int MPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
		       const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
		       const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
		       MPI_Request *req)
{
	return tcw_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm,
			     req, TC_RA());
}

/* ---- neighbourhood collectives ---- */

#define NEIGHBOR(name, iname, op, iop)                                                     \
	API int name(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
		     MPI_Datatype rtype, MPI_Comm comm)                                    \
	{                                                                                  \
		return tcw_neighbor(op, sbuf, scount, stype, rbuf, rcount, rtype, comm, NULL, \
				    TC_RA());                                              \
	}                                                                                  \
	API int iname(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, \
		      MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)                  \
	{                                                                                   \
		return tcw_neighbor(iop, sbuf, scount, stype, rbuf, rcount, rtype, comm, req, \
				    TC_RA());                                               \
	}
NEIGHBOR(MPI_Neighbor_allgather, MPI_Ineighbor_allgather, TC_OP_NEIGHBOR_ALLGATHER,
	 TC_OP_INEIGHBOR_ALLGATHER)
NEIGHBOR(MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall, TC_OP_NEIGHBOR_ALLTOALL,
	 TC_OP_INEIGHBOR_ALLTOALL)
#undef NEIGHBOR

API int MPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
				const int rcounts[], const int displs[], MPI_Datatype rtype,
				MPI_Comm comm)
{
	return tcw_neighbor_allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm,
				       NULL, TC_RA());
}

API int MPI_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
				 const int rcounts[], const int displs[], MPI_Datatype rtype,
				 MPI_Comm comm, MPI_Request *req)
{
	return tcw_neighbor_allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm,
				       req, TC_RA());
}

API int MPI_Neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
			       MPI_Datatype stype, void *rbuf, const int rcounts[],
			       const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
	return tcw_neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
				      rtype, comm, NULL, TC_RA());
}

API int MPI_Ineighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
				MPI_Datatype stype, void *rbuf, const int rcounts[],
				const int rdispls[], MPI_Datatype rtype, MPI_Comm comm,
				MPI_Request *req)
{
	return tcw_neighbor_alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls,
				      rtype, comm, req, TC_RA());
}

API int MPI_Neighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
			       const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
			       const MPI_Aint rdispls[], const MPI_Datatype rtypes[],
			       MPI_Comm comm)
{
	return tcw_neighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,
				      rtypes, comm, NULL, TC_RA());
}

API int MPI_Ineighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
				const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
				const MPI_Aint rdispls[], const MPI_Datatype rtypes[],
				MPI_Comm comm, MPI_Request *req)
{
	return tcw_neighbor_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls,
				      rtypes, comm, req, TC_RA());
}

/* ---- communicators ---- */

API int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	return tcw_comm_dup(comm, newcomm, NULL, TC_RA());
}

API int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
	return tcw_comm_dup(comm, newcomm, req, TC_RA());
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
	return tcw_comm_dup_with_info(comm, info, newcomm, TC_RA());
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
	return tcw_win_create(TC_OP_WIN_CREATE, base, size, disp_unit, info, comm, win, TC_RA());
}

API int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
			 void *baseptr, MPI_Win *win)
{
	return tcw_win_create(TC_OP_WIN_ALLOCATE, baseptr, size, disp_unit, info, comm, win,
			      TC_RA());
}

API int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
				void *baseptr, MPI_Win *win)
{
	return tcw_win_create(TC_OP_WIN_ALLOCATE_SHARED, baseptr, size, disp_unit, info, comm,
			      win, TC_RA());
}

API int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	return tcw_win_create(TC_OP_WIN_CREATE_DYNAMIC, NULL, 0, 1, info, comm, win, TC_RA());
}

API int MPI_Win_free(MPI_Win *win)
{
	return tcw_win_free(win, TC_RA());
}

API int MPI_Put(const void *addr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
		int tcount, MPI_Datatype ttype, MPI_Win win)
{
	return tcw_put(TC_OP_PUT, (void *)addr, ocount, otype, target, disp, tcount, ttype, win,
		       NULL, TC_RA());
}

API int MPI_Get(void *addr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
		int tcount, MPI_Datatype ttype, MPI_Win win)
{
	return tcw_put(TC_OP_GET, addr, ocount, otype, target, disp, tcount, ttype, win, NULL,
		       TC_RA());
}

API int MPI_Rput(const void *addr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
		 int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
	return tcw_put(TC_OP_RPUT, (void *)addr, ocount, otype, target, disp, tcount, ttype, win,
		       req, TC_RA());
}

API int MPI_Rget(void *addr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
		 int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
	return tcw_put(TC_OP_RGET, addr, ocount, otype, target, disp, tcount, ttype, win, req,
		       TC_RA());
}

API int MPI_Accumulate(const void *addr, int ocount, MPI_Datatype otype, int target,
		       MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
	return tcw_accumulate(addr, ocount, otype, target, disp, tcount, ttype, op, win, NULL,
			      TC_RA());
}

API int MPI_Raccumulate(const void *addr, int ocount, MPI_Datatype otype, int target,
			MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
			MPI_Request *req)
{
	return tcw_accumulate(addr, ocount, otype, target, disp, tcount, ttype, op, win, req,
			      TC_RA());
}

API int MPI_Get_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
			   int rcount, MPI_Datatype rtype, int target, MPI_Aint disp, int tcount,
			   MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
	return tcw_get_accumulate(oaddr, ocount, otype, raddr, rcount, rtype, target, disp,
				  tcount, ttype, op, win, NULL, TC_RA());
}

API int MPI_Rget_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
			    int rcount, MPI_Datatype rtype, int target, MPI_Aint disp, int tcount,
			    MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request *req)
{
	return tcw_get_accumulate(oaddr, ocount, otype, raddr, rcount, rtype, target, disp,
				  tcount, ttype, op, win, req, TC_RA());
}

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

#define WSYNC(op, type, rank, assert, group, win, flag) \
	tcw_win_sync(op, type, rank, assert, group, win, flag, TC_RA())

API int MPI_Win_fence(int assert, MPI_Win win)
{
	return WSYNC(TC_OP_WIN_FENCE, 0, 0, assert, MPI_GROUP_NULL, win, NULL);
}

API int MPI_Win_lock(int type, int rank, int assert, MPI_Win win)
{
	return WSYNC(TC_OP_WIN_LOCK, type, rank, assert, MPI_GROUP_NULL, win, NULL);
}

API int MPI_Win_unlock(int rank, MPI_Win win)
{
	return WSYNC(TC_OP_WIN_UNLOCK, 0, rank, 0, MPI_GROUP_NULL, win, NULL);
}

API int MPI_Win_lock_all(int assert, MPI_Win win)
{
	return WSYNC(TC_OP_WIN_LOCK_ALL, 0, 0, assert, MPI_GROUP_NULL, win, NULL);
}

API int MPI_Win_unlock_all(MPI_Win win)
{
	return WSYNC(TC_OP_WIN_UNLOCK_ALL, 0, 0, 0, MPI_GROUP_NULL, win, NULL);
}

API int MPI_Win_flush(int rank, MPI_Win win)
{
	return WSYNC(TC_OP_WIN_FLUSH, 0, rank, 0, MPI_GROUP_NULL, win, NULL);
}

API int MPI_Win_flush_all(MPI_Win win)
{
	return WSYNC(TC_OP_WIN_FLUSH_ALL, 0, 0, 0, MPI_GROUP_NULL, win, NULL);
}

API int MPI_Win_flush_local(int rank, MPI_Win win)
{
	return WSYNC(TC_OP_WIN_FLUSH_LOCAL, 0, rank, 0, MPI_GROUP_NULL, win, NULL);
}

API int MPI_Win_flush_local_all(MPI_Win win)
{
	return WSYNC(TC_OP_WIN_FLUSH_LOCAL_ALL, 0, 0, 0, MPI_GROUP_NULL, win, NULL);
}

API int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	return WSYNC(TC_OP_WIN_POST, 0, 0, assert, group, win, NULL);
}

API int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	return WSYNC(TC_OP_WIN_START, 0, 0, assert, group, win, NULL);
}

API int MPI_Win_complete(MPI_Win win)
{
	return WSYNC(TC_OP_WIN_COMPLETE, 0, 0, 0, MPI_GROUP_NULL, win, NULL);
}

API int MPI_Win_wait(MPI_Win win)
{
	return WSYNC(TC_OP_WIN_WAIT, 0, 0, 0, MPI_GROUP_NULL, win, NULL);
}

API int MPI_Win_test(MPI_Win win, int *flag)
{
	return WSYNC(TC_OP_WIN_TEST, 0, 0, 0, MPI_GROUP_NULL, win, flag);
}

API int MPI_Win_sync(MPI_Win win)
{
	return WSYNC(TC_OP_WIN_SYNC, 0, 0, 0, MPI_GROUP_NULL, win, NULL);
}
#undef WSYNC

/* ---- MPI-IO ---- */

API int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
	return tcw_file_open(comm, name, amode, info, fh, TC_RA());
}

API int MPI_File_close(MPI_File *fh)
{
	return tcw_file_close(fh, TC_RA());
}

#define FILE_RW(name, op)                                                                  \
	API int name(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *st)   \
	{                                                                                  \
		return tcw_file_rw(op, fh, 0, buf, count, dt, st, TC_RA());                \
	}
#define FILE_RW_AT(name, op)                                                               \
	API int name(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype dt,   \
		     MPI_Status *st)                                                       \
	{                                                                                  \
		return tcw_file_rw(op, fh, off, buf, count, dt, st, TC_RA());              \
	}
#define FILE_W(name, op)                                                                   \
	API int name(MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *st) \
	{                                                                                  \
		return tcw_file_rw(op, fh, 0, (void *)buf, count, dt, st, TC_RA());        \
	}
#define FILE_W_AT(name, op)                                                                \
	API int name(MPI_File fh, MPI_Offset off, const void *buf, int count,              \
		     MPI_Datatype dt, MPI_Status *st)                                      \
	{                                                                                  \
		return tcw_file_rw(op, fh, off, (void *)buf, count, dt, st, TC_RA());      \
	}
FILE_RW(MPI_File_read, TC_OP_FILE_READ)
FILE_RW(MPI_File_read_all, TC_OP_FILE_READ_ALL)
FILE_RW_AT(MPI_File_read_at, TC_OP_FILE_READ_AT)
FILE_RW_AT(MPI_File_read_at_all, TC_OP_FILE_READ_AT_ALL)
FILE_W(MPI_File_write, TC_OP_FILE_WRITE)
FILE_W(MPI_File_write_all, TC_OP_FILE_WRITE_ALL)
FILE_W_AT(MPI_File_write_at, TC_OP_FILE_WRITE_AT)
FILE_W_AT(MPI_File_write_at_all, TC_OP_FILE_WRITE_AT_ALL)
FILE_RW(MPI_File_read_shared, TC_OP_FILE_READ_SHARED)
FILE_RW(MPI_File_read_ordered, TC_OP_FILE_READ_ORDERED)
FILE_W(MPI_File_write_shared, TC_OP_FILE_WRITE_SHARED)
FILE_W(MPI_File_write_ordered, TC_OP_FILE_WRITE_ORDERED)
#undef FILE_RW
#undef FILE_RW_AT
#undef FILE_W
#undef FILE_W_AT

#define FILE_IRW(name, op)                                                                 \
	API int name(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Request *req) \
	{                                                                                  \
		return tcw_file_irw(op, fh, 0, buf, count, dt, req, TC_RA());              \
	}
#define FILE_IRW_AT(name, op)                                                              \
	API int name(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype dt,   \
		     MPI_Request *req)                                                     \
	{                                                                                  \
		return tcw_file_irw(op, fh, off, buf, count, dt, req, TC_RA());            \
	}
#define FILE_IW(name, op)                                                                  \
	API int name(MPI_File fh, const void *buf, int count, MPI_Datatype dt,             \
		     MPI_Request *req)                                                     \
	{                                                                                  \
		return tcw_file_irw(op, fh, 0, (void *)buf, count, dt, req, TC_RA());      \
	}
#define FILE_IW_AT(name, op)                                                               \
	API int name(MPI_File fh, MPI_Offset off, const void *buf, int count,              \
		     MPI_Datatype dt, MPI_Request *req)                                    \
	{                                                                                  \
		return tcw_file_irw(op, fh, off, (void *)buf, count, dt, req, TC_RA());    \
	}
FILE_IRW(MPI_File_iread, TC_OP_FILE_IREAD)
FILE_IRW(MPI_File_iread_all, TC_OP_FILE_IREAD_ALL)
FILE_IRW(MPI_File_iread_shared, TC_OP_FILE_IREAD_SHARED)
FILE_IRW_AT(MPI_File_iread_at, TC_OP_FILE_IREAD_AT)
FILE_IRW_AT(MPI_File_iread_at_all, TC_OP_FILE_IREAD_AT_ALL)
FILE_IW(MPI_File_iwrite, TC_OP_FILE_IWRITE)
FILE_IW(MPI_File_iwrite_all, TC_OP_FILE_IWRITE_ALL)
FILE_IW(MPI_File_iwrite_shared, TC_OP_FILE_IWRITE_SHARED)
FILE_IW_AT(MPI_File_iwrite_at, TC_OP_FILE_IWRITE_AT)
FILE_IW_AT(MPI_File_iwrite_at_all, TC_OP_FILE_IWRITE_AT_ALL)
#undef FILE_IRW
#undef FILE_IRW_AT
#undef FILE_IW
#undef FILE_IW_AT

/* ---- MPI-4 large-count variants ---- */

#if MPI_VERSION >= 4
#define SEND_C(name, op)                                                                   \
	API int name(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, \
		     MPI_Comm comm)                                                        \
	{                                                                                  \
		return tcw_send_c(op, buf, count, dt, dest, tag, comm, TC_RA());           \
	}
SEND_C(MPI_Send_c, TC_OP_SEND)
SEND_C(MPI_Bsend_c, TC_OP_BSEND)
SEND_C(MPI_Ssend_c, TC_OP_SSEND)
SEND_C(MPI_Rsend_c, TC_OP_RSEND)
#undef SEND_C

#define ISEND_C(name, op)                                                                  \
	API int name(const void *buf, MPI_Count count, MPI_Datatype dt, int peer, int tag, \
		     MPI_Comm comm, MPI_Request *req)                                      \
	{                                                                                  \
		return tcw_isend_c(op, buf, count, dt, peer, tag, comm, req, TC_RA());     \
	}
ISEND_C(MPI_Isend_c, TC_OP_ISEND)
ISEND_C(MPI_Ibsend_c, TC_OP_IBSEND)
ISEND_C(MPI_Issend_c, TC_OP_ISSEND)
ISEND_C(MPI_Irsend_c, TC_OP_IRSEND)
ISEND_C(MPI_Send_init_c, TC_OP_SEND_INIT)
ISEND_C(MPI_Bsend_init_c, TC_OP_BSEND_INIT)
ISEND_C(MPI_Ssend_init_c, TC_OP_SSEND_INIT)
ISEND_C(MPI_Rsend_init_c, TC_OP_RSEND_INIT)
#undef ISEND_C

API int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
		    MPI_Comm comm, MPI_Request *req)
{
	return tcw_isend_c(TC_OP_IRECV, buf, count, dt, src, tag, comm, req, TC_RA());
}

API int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
			MPI_Comm comm, MPI_Request *req)
{
	return tcw_isend_c(TC_OP_RECV_INIT, buf, count, dt, src, tag, comm, req, TC_RA());
}

API int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
		   MPI_Status *status)
{
	return tcw_recv_c(buf, count, dt, src, tag, comm, status, TC_RA());
}

API int MPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm)
{
	return tcw_bcast_c(buf, count, dt, root, comm, NULL, TC_RA());
}

API int MPI_Ibcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm,
		     MPI_Request *req)
{
	return tcw_bcast_c(buf, count, dt, root, comm, req, TC_RA());
}

API int MPI_Reduce_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
		     int root, MPI_Comm comm)
{
	return tcw_reduce_c(TC_OP_REDUCE, sbuf, rbuf, count, dt, op, root, comm, NULL, TC_RA());
}

API int MPI_Ireduce_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
		      int root, MPI_Comm comm, MPI_Request *req)
{
	return tcw_reduce_c(TC_OP_IREDUCE, sbuf, rbuf, count, dt, op, root, comm, req, TC_RA());
}

#define REDUCE_C(name, iname, op, iop)                                                     \
	API int name(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,       \
		     MPI_Op rop, MPI_Comm comm)                                            \
	{                                                                                  \
		return tcw_reduce_c(op, sbuf, rbuf, count, dt, rop, 0, comm, NULL, TC_RA()); \
	}                                                                                  \
	API int iname(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,      \
		      MPI_Op rop, MPI_Comm comm, MPI_Request *req)                         \
	{                                                                                  \
		return tcw_reduce_c(iop, sbuf, rbuf, count, dt, rop, 0, comm, req, TC_RA()); \
	}
REDUCE_C(MPI_Allreduce_c, MPI_Iallreduce_c, TC_OP_ALLREDUCE, TC_OP_IALLREDUCE)
REDUCE_C(MPI_Scan_c, MPI_Iscan_c, TC_OP_SCAN, TC_OP_ISCAN)
REDUCE_C(MPI_Exscan_c, MPI_Iexscan_c, TC_OP_EXSCAN, TC_OP_IEXSCAN)
REDUCE_C(MPI_Reduce_scatter_block_c, MPI_Ireduce_scatter_block_c, TC_OP_REDUCE_SCATTER_BLOCK,
	 TC_OP_IREDUCE_SCATTER_BLOCK)
#undef REDUCE_C

#define GATHER_C(name, iname, op, iop)                                                     \
	API int name(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,   \
		     MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm)        \
	{                                                                                  \
		return tcw_gather_c(op, sbuf, scount, stype, rbuf, rcount, rtype, root,    \
				    comm, NULL, TC_RA());                                  \
	}                                                                                  \
	API int iname(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,  \
		      MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm,       \
		      MPI_Request *req)                                                    \
	{                                                                                  \
		return tcw_gather_c(iop, sbuf, scount, stype, rbuf, rcount, rtype, root,   \
				    comm, req, TC_RA());                                   \
	}
GATHER_C(MPI_Gather_c, MPI_Igather_c, TC_OP_GATHER, TC_OP_IGATHER)
GATHER_C(MPI_Scatter_c, MPI_Iscatter_c, TC_OP_SCATTER, TC_OP_ISCATTER)
#undef GATHER_C

#define ALLGATHER_C(name, iname, op, iop)                                                  \
	API int name(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,   \
		     MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm)                  \
	{                                                                                  \
		return tcw_gather_c(op, sbuf, scount, stype, rbuf, rcount, rtype, 0, comm, \
				    NULL, TC_RA());                                        \
	}                                                                                  \
	API int iname(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,  \
		      MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req) \
	{                                                                                  \
		return tcw_gather_c(iop, sbuf, scount, stype, rbuf, rcount, rtype, 0, comm, \
				    req, TC_RA());                                         \
	}
ALLGATHER_C(MPI_Allgather_c, MPI_Iallgather_c, TC_OP_ALLGATHER, TC_OP_IALLGATHER)
ALLGATHER_C(MPI_Alltoall_c, MPI_Ialltoall_c, TC_OP_ALLTOALL, TC_OP_IALLTOALL)
ALLGATHER_C(MPI_Neighbor_allgather_c, MPI_Ineighbor_allgather_c, TC_OP_NEIGHBOR_ALLGATHER,
	    TC_OP_INEIGHBOR_ALLGATHER)
ALLGATHER_C(MPI_Neighbor_alltoall_c, MPI_Ineighbor_alltoall_c, TC_OP_NEIGHBOR_ALLTOALL,
	    TC_OP_INEIGHBOR_ALLTOALL)
#undef ALLGATHER_C

#define PUT_C(name, iname, op, iop, cq)                                                    \
	API int name(cq void *addr, MPI_Count ocount, MPI_Datatype otype, int target,      \
		     MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)     \
	{                                                                                  \
		return tcw_put_c(op, (void *)addr, ocount, otype, target, disp, tcount,    \
				 ttype, win, NULL, TC_RA());                               \
	}                                                                                  \
	API int iname(cq void *addr, MPI_Count ocount, MPI_Datatype otype, int target,     \
		      MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,    \
		      MPI_Request *req)                                                    \
	{                                                                                  \
		return tcw_put_c(iop, (void *)addr, ocount, otype, target, disp, tcount,   \
				 ttype, win, req, TC_RA());                                \
	}
PUT_C(MPI_Put_c, MPI_Rput_c, TC_OP_PUT, TC_OP_RPUT, const)
PUT_C(MPI_Get_c, MPI_Rget_c, TC_OP_GET, TC_OP_RGET, )
#undef PUT_C
#endif
