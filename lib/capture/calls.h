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
 *
 * With MPI-4, the tables of the v- and w-collectives and of the
 * accumulates also make the large-count C bindings (suffix _c: MPI_Count
 * counts, MPI_Aint displacements), recorded as their int forms are.
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

/*
 * Collectives as blocking/nonblocking pairs: X(Name, Iname, OP, lc), the
 * nonblocking form being MPI_<Iname>, TC_OP_I<OP> and mpi_i<lc>, with an
 * MPI_Request * after the arguments of the blocking one.
 *
 * Reductions, (const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
 * MPI_Op op, [int root,] MPI_Comm comm), recorded by tcw_reduce.
 */
#define TC_CALLS_REDUCE_ROOT(X) \
	X(Reduce, Ireduce, REDUCE, reduce)

#define TC_CALLS_REDUCE(X)                                        \
	X(Allreduce, Iallreduce, ALLREDUCE, allreduce)            \
	X(Scan, Iscan, SCAN, scan)                                \
	X(Exscan, Iexscan, EXSCAN, exscan)                        \
	X(Reduce_scatter_block, Ireduce_scatter_block, REDUCE_SCATTER_BLOCK, \
	  reduce_scatter_block)

/*
 * Per-peer receive counts, X(Name, Iname, OP, lc, fn): (const void *sbuf,
 * void *rbuf, const int rcounts[], MPI_Datatype dt, MPI_Op op, MPI_Comm
 * comm), recorded by fn; the MPI-4 persistent form is MPI_<Name>_init.
 */
#define TC_CALLS_REDUCE_SCATTER(X) \
	X(Reduce_scatter, Ireduce_scatter, REDUCE_SCATTER, reduce_scatter, tcw_reduce_scatter)

/*
 * One count and type a side, (const void *sbuf, int scount, MPI_Datatype
 * stype, void *rbuf, int rcount, MPI_Datatype rtype, [int root,] MPI_Comm
 * comm), recorded by tcw_gather; the neighbourhood ones by tcw_neighbor.
 */
#define TC_CALLS_GATHER_ROOT(X)                    \
	X(Gather, Igather, GATHER, gather)         \
	X(Scatter, Iscatter, SCATTER, scatter)

#define TC_CALLS_ALLGATHER(X)                          \
	X(Allgather, Iallgather, ALLGATHER, allgather) \
	X(Alltoall, Ialltoall, ALLTOALL, alltoall)

#define TC_CALLS_NEIGHBOR(X)                                                          \
	X(Neighbor_allgather, Ineighbor_allgather, NEIGHBOR_ALLGATHER, neighbor_allgather) \
	X(Neighbor_alltoall, Ineighbor_alltoall, NEIGHBOR_ALLTOALL, neighbor_alltoall)

/*
 * One send count, per-peer receive counts and displacements, X(Name,
 * Iname, OP, lc, fn, rt): (const void *sbuf, int scount, MPI_Datatype
 * stype, void *rbuf, const int rcounts[], const int displs[], MPI_Datatype
 * rtype, [int root,] MPI_Comm comm), the root where rt is TC_ROOTED (not
 * where TC_UNROOTED), recorded by fn; the MPI-4 persistent form is
 * MPI_<Name>_init.
 */
#define TC_CALLS_GATHERV(X)                                                            \
	X(Gatherv, Igatherv, GATHERV, gatherv, tcw_gatherv, TC_ROOTED)                 \
	X(Allgatherv, Iallgatherv, ALLGATHERV, allgatherv, tcw_allgatherv, TC_UNROOTED) \
	X(Neighbor_allgatherv, Ineighbor_allgatherv, NEIGHBOR_ALLGATHERV,              \
	  neighbor_allgatherv, tcw_neighbor_allgatherv, TC_UNROOTED)

/*
 * Per-peer send counts and displacements, one receive count, X(Name,
 * Iname, OP, lc, fn): (const void *sbuf, const int scounts[], const int
 * displs[], MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
 * int root, MPI_Comm comm), recorded by fn; the MPI-4 persistent form is
 * MPI_<Name>_init.
 */
#define TC_CALLS_SCATTERV(X) \
	X(Scatterv, Iscatterv, SCATTERV, scatterv, tcw_scatterv)

/* rt(, x) of the tables above: x, or nothing */
#define TC_ROOTED(...) __VA_ARGS__
#define TC_UNROOTED(...)
/* the arguments in parentheses p without them */
#define TC_UNPAREN(...) __VA_ARGS__

/*
 * Per-peer counts and displacements on both sides, X(Name, Iname, OP, lc,
 * fn): (const void *sbuf, const int scounts[], const int sdispls[],
 * MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
 * MPI_Datatype rtype, MPI_Comm comm), recorded by fn; the MPI-4 persistent
 * form is MPI_<Name>_init.
 */
#define TC_CALLS_ALLTOALLV(X)                                                 \
	X(Alltoallv, Ialltoallv, ALLTOALLV, alltoallv, tcw_alltoallv)         \
	X(Neighbor_alltoallv, Ineighbor_alltoallv, NEIGHBOR_ALLTOALLV,        \
	  neighbor_alltoallv, tcw_neighbor_alltoallv)

/*
 * And per-peer types, X(Name, Iname, OP, lc, fn, DT, dm): (const void
 * *sbuf, const int scounts[], const DT sdispls[], const MPI_Datatype
 * stypes[], void *rbuf, const int rcounts[], const DT rdispls[], const
 * MPI_Datatype rtypes[], MPI_Comm comm), dm the member of union tc_vec
 * (record.h) for DT; recorded by fn, the MPI-4 persistent form
 * MPI_<Name>_init.
 */
#define TC_CALLS_ALLTOALLW(X)                                                      \
	X(Alltoallw, Ialltoallw, ALLTOALLW, alltoallw, tcw_alltoallw, int, i)      \
	X(Neighbor_alltoallw, Ineighbor_alltoallw, NEIGHBOR_ALLTOALLW,             \
	  neighbor_alltoallw, tcw_neighbor_alltoallw, MPI_Aint, a)

/*
 * One-sided transfers and their request forms: X(Name, Rname, OP, lc, cq),
 * the request form being MPI_<Rname>, TC_OP_R<OP>, mpi_r<lc>; cq is const
 * where the origin buffer is only read. (cq void *addr, int ocount,
 * MPI_Datatype otype, int target, MPI_Aint disp, int tcount, MPI_Datatype
 * ttype, MPI_Win win), recorded by tcw_put.
 */
#define TC_CALLS_PUT(X)             \
	X(Put, Rput, PUT, put, const) \
	X(Get, Rget, GET, get, )

/*
 * Accumulates and their request forms: X(Name, Rname, OP, lc) as above;
 * (const void *addr, int ocount, MPI_Datatype otype, int target, MPI_Aint
 * disp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win), recorded
 * by tcw_accumulate; the same with a result buffer after the origin's,
 * (..., MPI_Datatype otype, void *raddr, int rcount, MPI_Datatype rtype,
 * int target, ...), by tcw_get_accumulate.
 */
#define TC_CALLS_ACCUMULATE(X) \
	X(Accumulate, Raccumulate, ACCUMULATE, accumulate)

#define TC_CALLS_GET_ACCUMULATE(X) \
	X(Get_accumulate, Rget_accumulate, GET_ACCUMULATE, get_accumulate)

/*
 * One-sided synchronisation, recorded by tcw_win_sync: X(Name, OP, lc) on
 * (MPI_Win win); (int rank, MPI_Win win); (int assert, MPI_Win win);
 * (MPI_Group group, int assert, MPI_Win win). Win_lock and Win_test have
 * shapes of their own.
 */
#define TC_CALLS_WIN(X)                                         \
	X(Win_unlock_all, WIN_UNLOCK_ALL, win_unlock_all)       \
	X(Win_flush_all, WIN_FLUSH_ALL, win_flush_all)          \
	X(Win_flush_local_all, WIN_FLUSH_LOCAL_ALL, win_flush_local_all) \
	X(Win_complete, WIN_COMPLETE, win_complete)             \
	X(Win_wait, WIN_WAIT, win_wait)                         \
	X(Win_sync, WIN_SYNC, win_sync)

#define TC_CALLS_WIN_RANK(X)                                    \
	X(Win_unlock, WIN_UNLOCK, win_unlock)                   \
	X(Win_flush, WIN_FLUSH, win_flush)                      \
	X(Win_flush_local, WIN_FLUSH_LOCAL, win_flush_local)

#define TC_CALLS_WIN_ASSERT(X)                                  \
	X(Win_fence, WIN_FENCE, win_fence)                      \
	X(Win_lock_all, WIN_LOCK_ALL, win_lock_all)

#define TC_CALLS_WIN_GROUP(X)                                   \
	X(Win_post, WIN_POST, win_post)                         \
	X(Win_start, WIN_START, win_start)

/*
 * MPI-IO data access: X(Name, OP, lc, cq), cq const for the writes.
 * (MPI_File fh, cq void *buf, int count, MPI_Datatype dt, MPI_Status *st),
 * recorded by tcw_file_rw; the _AT tables take an MPI_Offset after fh.
 * The nonblocking ones (TC_CALLS_FILE_I*) end in MPI_Request *req instead
 * of the status, recorded by tcw_file_irw.
 */
#define TC_CALLS_FILE(X)                                                \
	X(File_read, FILE_READ, file_read, )                            \
	X(File_read_all, FILE_READ_ALL, file_read_all, )                \
	X(File_write, FILE_WRITE, file_write, const)                    \
	X(File_write_all, FILE_WRITE_ALL, file_write_all, const)        \
	X(File_read_shared, FILE_READ_SHARED, file_read_shared, )       \
	X(File_write_shared, FILE_WRITE_SHARED, file_write_shared, const) \
	X(File_read_ordered, FILE_READ_ORDERED, file_read_ordered, )    \
	X(File_write_ordered, FILE_WRITE_ORDERED, file_write_ordered, const)

#define TC_CALLS_FILE_AT(X)                                             \
	X(File_read_at, FILE_READ_AT, file_read_at, )                   \
	X(File_read_at_all, FILE_READ_AT_ALL, file_read_at_all, )       \
	X(File_write_at, FILE_WRITE_AT, file_write_at, const)           \
	X(File_write_at_all, FILE_WRITE_AT_ALL, file_write_at_all, const)

#define TC_CALLS_FILE_I(X)                                              \
	X(File_iread, FILE_IREAD, file_iread, )                         \
	X(File_iread_all, FILE_IREAD_ALL, file_iread_all, )             \
	X(File_iread_shared, FILE_IREAD_SHARED, file_iread_shared, )    \
	X(File_iwrite, FILE_IWRITE, file_iwrite, const)                 \
	X(File_iwrite_all, FILE_IWRITE_ALL, file_iwrite_all, const)     \
	X(File_iwrite_shared, FILE_IWRITE_SHARED, file_iwrite_shared, const)

#define TC_CALLS_FILE_I_AT(X)                                           \
	X(File_iread_at, FILE_IREAD_AT, file_iread_at, )                \
	X(File_iread_at_all, FILE_IREAD_AT_ALL, file_iread_at_all, )    \
	X(File_iwrite_at, FILE_IWRITE_AT, file_iwrite_at, const)        \
	X(File_iwrite_at_all, FILE_IWRITE_AT_ALL, file_iwrite_at_all, const)

#endif
