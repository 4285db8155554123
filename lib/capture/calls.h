/*
 * calls.h - the table of recorded MPI functions that share an argument
 * shape: one line per function, expanded with X-macros into the C entry
 * points (wrap_c.c), the Fortran entry points (wrap_f.c) and the PMPI
 * dispatch of their record.c wrapper.
 *
 * Columns: X(Name, OP, lc): Name is the part after "MPI_"/"PMPI_" of the
 * C binding, OP the event op of lib/event.h (TC_OP_<OP>) and also the part
 * after "MPI_" of the upper-case Fortran symbol, lc the part after "mpi_"
 * of the lower-case Fortran symbols (wrap_f.c).
 */
#ifndef TC_CAPTURE_CALLS_H
#define TC_CAPTURE_CALLS_H

/*
 * Blocking sends: (const void *buf, int count, MPI_Datatype dt, int dest,
 * int tag, MPI_Comm comm), recorded by tcw_send.
 */
#define TC_CALLS_SEND(X)                        \
	X(Send, SEND, send)                     \
	X(Bsend, BSEND, bsend)                  \
	X(Ssend, SSEND, ssend)                  \
	X(Rsend, RSEND, rsend)

/*
 * Request-starting point-to-point calls on a send buffer: (const void *buf,
 * int count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm,
 * MPI_Request *req), recorded by tcw_isend.
 */
#define TC_CALLS_ISEND(X)                       \
	X(Isend, ISEND, isend)                  \
	X(Ibsend, IBSEND, ibsend)               \
	X(Issend, ISSEND, issend)               \
	X(Irsend, IRSEND, irsend)               \
	X(Send_init, SEND_INIT, send_init)      \
	X(Bsend_init, BSEND_INIT, bsend_init)   \
	X(Ssend_init, SSEND_INIT, ssend_init)   \
	X(Rsend_init, RSEND_INIT, rsend_init)

/* The same shape on a receive buffer (void *buf), also tcw_isend. */
#define TC_CALLS_IRECV(X)                       \
	X(Irecv, IRECV, irecv)                  \
	X(Recv_init, RECV_INIT, recv_init)

#endif
