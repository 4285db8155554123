/*
 * record.h - one recording implementation per MPI function (record.c),
 * shared by the C bindings (wrap_c.c) and the Fortran bindings
 * (wrap_f.c). Each takes the C arguments (Fortran handles already
 * converted, sentinels already mapped) plus ra, the return address into
 * the application, and returns what the PMPI_ function returned.
 *
 * Where blocking and nonblocking forms share a function, req is NULL for
 * the blocking form, and op (enum tc_op) tells which call it is.
 */
#ifndef TC_CAPTURE_RECORD_H
#define TC_CAPTURE_RECORD_H

#include "lib/capture/internal.h"

int tcw_init(int *argc, char ***argv, void *ra);
int tcw_init_thread(int *argc, char ***argv, int required, int *provided, void *ra);
int tcw_finalize(void *ra);
int tcw_abort(MPI_Comm comm, int code);
int tcw_pcontrol(int level, void *ra);

/* Send, Bsend, Ssend, Rsend */
int tcw_send(unsigned op, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
	     MPI_Comm comm, void *ra);
/* Isend, Ibsend, Issend, Irsend, Irecv; Send_init, Bsend_init, Ssend_init,
 * Rsend_init, Recv_init */
int tcw_isend(unsigned op, const void *buf, int count, MPI_Datatype dt, int peer, int tag,
	      MPI_Comm comm, MPI_Request *req, void *ra);
int tcw_recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
	     MPI_Status *status, void *ra);
/* large: the MPI-4 _c form (here and below), recorded as its base op */
int tcw_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
		 void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int src, int rtag,
		 MPI_Comm comm, MPI_Status *status, bool large, void *ra);
int tcw_sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
			 int src, int rtag, MPI_Comm comm, MPI_Status *status, bool large,
			 void *ra);
int tcw_probe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status, void *ra);
/* Mprobe (flag NULL) and Improbe */
int tcw_mprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
	       MPI_Status *status, void *ra);
/* Mrecv (req NULL) and Imrecv (status ignored) */
int tcw_mrecv(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg,
	      MPI_Status *status, MPI_Request *req, bool large, void *ra);
int tcw_start(MPI_Request *req, void *ra);
int tcw_startall(int n, MPI_Request reqs[], void *ra);
int tcw_request_free(MPI_Request *req, void *ra);
int tcw_cancel(MPI_Request *req, void *ra);

/* Wait, Test */
int tcw_wait(MPI_Request *req, int *flag, MPI_Status *status, void *ra);
/* Waitall, Testall */
int tcw_waitall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[], void *ra);
/* Waitany, Testany */
int tcw_waitany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status, void *ra);
/* Waitsome, Testsome */
int tcw_waitsome(unsigned op, int n, MPI_Request reqs[], int *outcount, int indices[],
		 MPI_Status sts[], void *ra);

int tcw_barrier(MPI_Comm comm, MPI_Request *req, const MPI_Info *init, void *ra);
int tcw_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
	      MPI_Request *req, const MPI_Info *init, void *ra);
/* Reduce, Allreduce, Scan, Exscan, Reduce_scatter_block and I-forms;
 * root is ignored where the call has none */
int tcw_reduce(unsigned op, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
	       MPI_Op redop, int root, MPI_Comm comm, MPI_Request *req, const MPI_Info *init, void *ra);
/* Gather, Scatter, Allgather, Alltoall and I-forms */
int tcw_gather(unsigned op, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
	       int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req,
	       const MPI_Info *init, void *ra);
/*
 * Per-peer counts and displacements as the binding passed them: i, int
 * arrays; a, MPI_Aint displacements (Neighbor_alltoallw's, and those of
 * every MPI-4 large-count _c form); c, the MPI_Count counts of the _c
 * forms. The functions that take them have a `large` argument, true for
 * the _c forms, and their op tells the blocking, I- and _init forms
 * apart (req NULL for the blocking one, init non-NULL for the _init one).
 */
union tc_vec {
	const int *i;
	const MPI_Aint *a;
	const MPI_Count *c;
};

/* p as union tc_vec member m */
#define TC_VEC(m, p) ((union tc_vec){ .m = (p) })
#define TC_VI(p) TC_VEC(i, p)

int tcw_reduce_scatter(unsigned op, const void *sbuf, void *rbuf, union tc_vec rcounts,
		       MPI_Datatype dt, MPI_Op redop, MPI_Comm comm, MPI_Request *req,
		       const MPI_Info *init, bool large, void *ra);
/* Gatherv, Allgatherv (root ignored) */
int tcw_gatherv(unsigned op, const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
		union tc_vec rcounts, union tc_vec displs, MPI_Datatype rtype, int root,
		MPI_Comm comm, MPI_Request *req, const MPI_Info *init, bool large, void *ra);
/* Allgatherv: tcw_gatherv without a root, as tcw_neighbor_allgatherv */
static inline int tcw_allgatherv(unsigned op, const void *sbuf, MPI_Count scount,
				 MPI_Datatype stype, void *rbuf, union tc_vec rcounts,
				 union tc_vec displs, MPI_Datatype rtype, MPI_Comm comm,
				 MPI_Request *req, const MPI_Info *init, bool large, void *ra)
{
	return tcw_gatherv(op, sbuf, scount, stype, rbuf, rcounts, displs, rtype, 0, comm, req,
			   init, large, ra);
}
int tcw_scatterv(unsigned op, const void *sbuf, union tc_vec scounts, union tc_vec displs,
		 MPI_Datatype stype, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
		 MPI_Comm comm, MPI_Request *req, const MPI_Info *init, bool large, void *ra);
/* Alltoallv; Alltoallw (per-peer types: its vectors in bytes) */
int tcw_alltoallv(unsigned op, const void *sbuf, union tc_vec scounts, union tc_vec sdispls,
		  MPI_Datatype stype, void *rbuf, union tc_vec rcounts, union tc_vec rdispls,
		  MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req, const MPI_Info *init,
		  bool large, void *ra);
int tcw_alltoallw(unsigned op, const void *sbuf, union tc_vec scounts, union tc_vec sdispls,
		  const MPI_Datatype stypes[], void *rbuf, union tc_vec rcounts,
		  union tc_vec rdispls, const MPI_Datatype rtypes[], MPI_Comm comm,
		  MPI_Request *req, const MPI_Info *init, bool large, void *ra);

/* Neighbor_allgather, Neighbor_alltoall and their I-forms */
int tcw_neighbor(unsigned op, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		 int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req, const MPI_Info *init, void *ra);
int tcw_neighbor_allgatherv(unsigned op, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
			    void *rbuf, union tc_vec rcounts, union tc_vec displs,
			    MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req,
			    const MPI_Info *init, bool large, void *ra);
int tcw_neighbor_alltoallv(unsigned op, const void *sbuf, union tc_vec scounts,
			   union tc_vec sdispls, MPI_Datatype stype, void *rbuf,
			   union tc_vec rcounts, union tc_vec rdispls, MPI_Datatype rtype,
			   MPI_Comm comm, MPI_Request *req, const MPI_Info *init, bool large,
			   void *ra);
int tcw_neighbor_alltoallw(unsigned op, const void *sbuf, union tc_vec scounts,
			   union tc_vec sdispls, const MPI_Datatype stypes[], void *rbuf,
			   union tc_vec rcounts, union tc_vec rdispls,
			   const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request *req,
			   const MPI_Info *init, bool large, void *ra);

/* Comm_dup, Comm_idup (req), and with info the _with_info forms */
int tcw_comm_dup(MPI_Comm comm, const MPI_Info *info, MPI_Comm *newcomm, MPI_Request *req,
		 void *ra);
int tcw_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm, void *ra);
int tcw_comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm,
			void *ra);
int tcw_comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm, void *ra);
int tcw_comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm,
			  void *ra);
int tcw_comm_free(MPI_Comm *comm, void *ra);
int tcw_comm_disconnect(MPI_Comm *comm, void *ra);
int tcw_cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
		    int reorder, MPI_Comm *newcomm, void *ra);
int tcw_cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *newcomm, void *ra);
int tcw_graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
		     int reorder, MPI_Comm *newcomm, void *ra);
int tcw_dist_graph_create_adjacent(MPI_Comm comm, int indeg, const int srcs[],
				   const int sw[], int outdeg, const int dsts[], const int dw[],
				   MPI_Info info, int reorder, MPI_Comm *newcomm, void *ra);

int tcw_intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer_comm, int remote_leader,
			 int tag, MPI_Comm *newcomm, void *ra);
int tcw_intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newcomm, void *ra);
int tcw_dist_graph_create(MPI_Comm comm, int n, const int srcs[], const int degrees[],
			  const int dsts[], const int weights[], MPI_Info info, int reorder,
			  MPI_Comm *newcomm, void *ra);
int tcw_comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
		   MPI_Comm comm, MPI_Comm *intercomm, int errcodes[], void *ra);
/* Comm_connect (accept false) and Comm_accept */
int tcw_comm_connect(bool accept, const char *port, MPI_Info info, int root, MPI_Comm comm,
		     MPI_Comm *newcomm, void *ra);

/* Win_create, Win_allocate(_shared) (base is the baseptr argument),
 * Win_create_dynamic (base, size, disp_unit ignored) */
int tcw_win_create(unsigned op, void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
		   MPI_Comm comm, MPI_Win *win, bool large, void *ra);
int tcw_win_free(MPI_Win *win, void *ra);
/* Put, Get, Rput, Rget (req NULL for Put and Get) */
int tcw_put(unsigned op, void *addr, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
	    int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req, void *ra);
/* Accumulate, Raccumulate (req NULL for Accumulate) */
int tcw_accumulate(unsigned op, const void *addr, MPI_Count ocount, MPI_Datatype otype,
		   int target, MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op redop,
		   MPI_Win win, MPI_Request *req, bool large, void *ra);
/* Get_accumulate, Rget_accumulate */
int tcw_get_accumulate(unsigned op, const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
		       void *raddr, MPI_Count rcount, MPI_Datatype rtype, int target,
		       MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op redop,
		       MPI_Win win, MPI_Request *req, bool large, void *ra);
int tcw_fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype dt, int target, MPI_Aint disp,
		     MPI_Op redop, MPI_Win win, void *ra);
int tcw_compare_and_swap(const void *oaddr, const void *caddr, void *raddr, MPI_Datatype dt,
			 int target, MPI_Aint disp, MPI_Win win, void *ra);
/* Win_fence, Win_(un)lock(_all), Win_flush(_local)(_all), Win_post/start/
 * complete/wait/test, Win_sync; arguments the call has not are ignored */
int tcw_win_sync(unsigned op, int lock_type, int rank, int assert, MPI_Group group, MPI_Win win,
		 int *flag, void *ra);

int tcw_file_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh,
		  void *ra);
int tcw_file_close(MPI_File *fh, void *ra);
/* File_read/write(_at)(_all), File_read/write_shared, File_read/write_ordered;
 * offset is ignored by the forms without _at */
int tcw_file_rw(unsigned op, MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
		MPI_Datatype dt, MPI_Status *status, bool large, void *ra);
/* File_iread/iwrite(_at)(_all), File_iread/iwrite_shared */
int tcw_file_irw(unsigned op, MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
		 MPI_Datatype dt, MPI_Request *req, bool large, void *ra);

#if MPI_VERSION >= 4
/* MPI-4 large-count variants, recorded as their base op */
int tcw_send_c(unsigned op, const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
	       MPI_Comm comm, void *ra);
int tcw_isend_c(unsigned op, const void *buf, MPI_Count count, MPI_Datatype dt, int peer,
		int tag, MPI_Comm comm, MPI_Request *req, void *ra);
int tcw_recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
	       MPI_Status *status, void *ra);
/* init: the info of the persistent forms (*_init_c), NULL for the others */
int tcw_bcast_c(void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm,
		MPI_Request *req, const MPI_Info *init, void *ra);
int tcw_reduce_c(unsigned op, const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
		 MPI_Op redop, int root, MPI_Comm comm, MPI_Request *req, const MPI_Info *init,
		 void *ra);
int tcw_gather_c(unsigned op, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
		 void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
		 MPI_Request *req, const MPI_Info *init, void *ra);
int tcw_put_c(unsigned op, void *addr, MPI_Count ocount, MPI_Datatype otype, int target,
	      MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req,
	      void *ra);
#endif

#if MPI_VERSION >= 4
/* Psend_init, Precv_init */
int tcw_pinit(unsigned op, void *buf, int partitions, MPI_Count count, MPI_Datatype dt,
	      int peer, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *req, void *ra);
/* Pready (partition lo), Pready_range (lo..hi), Pready_list (n, list),
 * Parrived (partition lo, flag) */
int tcw_pready(unsigned op, int lo, int hi, int n, const int list[], MPI_Request req, int *flag,
	       void *ra);
/* Isendrecv, Isendrecv_replace (sbuf the buffer; rbuf, rcount, rtype ignored) */
int tcw_isendrecv(unsigned op, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
		  int dest, int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int src,
		  int rtag, MPI_Comm comm, MPI_Request *req, bool large, void *ra);
/* Session_init, Session_finalize (info, eh ignored) */
int tcw_session(unsigned op, MPI_Info info, MPI_Errhandler eh, MPI_Session *session, void *ra);
int tcw_comm_create_from_group(MPI_Group group, const char *tag, MPI_Info info,
			       MPI_Errhandler eh, MPI_Comm *newcomm, void *ra);
int tcw_intercomm_create_from_groups(MPI_Group local, int local_leader, MPI_Group remote,
				     int remote_leader, const char *tag, MPI_Info info,
				     MPI_Errhandler eh, MPI_Comm *newcomm, void *ra);
#endif

#endif
