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
int tcw_sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
		 void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
		 MPI_Status *status, void *ra);
int tcw_sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src,
			 int rtag, MPI_Comm comm, MPI_Status *status, void *ra);
int tcw_probe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status, void *ra);
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

int tcw_barrier(MPI_Comm comm, MPI_Request *req, void *ra);
int tcw_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
	      MPI_Request *req, void *ra);
/* Reduce, Allreduce, Scan, Exscan, Reduce_scatter_block and I-forms;
 * root is ignored where the call has none */
int tcw_reduce(unsigned op, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
	       MPI_Op redop, int root, MPI_Comm comm, MPI_Request *req, void *ra);
int tcw_reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
		       MPI_Op redop, MPI_Comm comm, MPI_Request *req, void *ra);
/* Gather, Scatter, Allgather, Alltoall and I-forms */
int tcw_gather(unsigned op, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
	       int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req,
	       void *ra);
/* Gatherv, Allgatherv (root ignored) */
int tcw_gatherv(unsigned op, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
		MPI_Comm comm, MPI_Request *req, void *ra);
int tcw_scatterv(const void *sbuf, const int scounts[], const int displs[],
		 MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
		 MPI_Comm comm, MPI_Request *req, void *ra);
int tcw_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
		  MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
		  MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req, void *ra);
int tcw_alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
		  const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
		  const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
		  MPI_Request *req, void *ra);

int tcw_comm_dup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req, void *ra);
int tcw_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm, void *ra);
int tcw_comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm,
			void *ra);
int tcw_comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm, void *ra);
int tcw_comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm,
			  void *ra);
int tcw_comm_free(MPI_Comm *comm, void *ra);
int tcw_cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
		    int reorder, MPI_Comm *newcomm, void *ra);
int tcw_cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *newcomm, void *ra);
int tcw_graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
		     int reorder, MPI_Comm *newcomm, void *ra);
int tcw_dist_graph_create_adjacent(MPI_Comm comm, int indeg, const int srcs[],
				   const int sw[], int outdeg, const int dsts[], const int dw[],
				   MPI_Info info, int reorder, MPI_Comm *newcomm, void *ra);

int tcw_file_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh,
		  void *ra);
int tcw_file_close(MPI_File *fh, void *ra);
/* File_read/write(_at)(_all); offset is ignored by the forms without _at */
int tcw_file_rw(unsigned op, MPI_File fh, MPI_Offset offset, void *buf, int count,
		MPI_Datatype dt, MPI_Status *status, void *ra);

#endif
