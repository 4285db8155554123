/*
 * event.h - the event model shared by every reader, writer and algorithm.
 *
 * One struct tc_event is one MPI call made by one rank. Which optional
 * fields carry a value is told by the bit mask `fields` (TC_F_*); a field
 * whose bit is clear holds its default (see tc_event_init). Peers and roots
 * are world ranks. Op, datatype and reduction numbers are part of the raw
 * file format and are never renumbered: new ones get new numbers.
 */
#ifndef TC_EVENT_H
#define TC_EVENT_H

#include "compat.h"

/* ---- MPI operations (stable numbers) ---------------------------------- */
#define TC_OPS(X)                                                            \
	X(INIT, 1, "MPI_Init", TC_K_ENV, 0)                                  \
	X(INIT_THREAD, 2, "MPI_Init_thread", TC_K_ENV, 0)                    \
	X(FINALIZE, 3, "MPI_Finalize", TC_K_ENV, 0)                          \
	X(PCONTROL, 4, "MPI_Pcontrol", TC_K_ENV, 0)                          \
	X(SEND, 10, "MPI_Send", TC_K_SEND, 0)                                \
	X(BSEND, 11, "MPI_Bsend", TC_K_SEND, 0)                              \
	X(SSEND, 12, "MPI_Ssend", TC_K_SEND, 0)                              \
	X(RSEND, 13, "MPI_Rsend", TC_K_SEND, 0)                              \
	X(ISEND, 14, "MPI_Isend", TC_K_SEND, TC_OPF_NB)                      \
	X(IBSEND, 15, "MPI_Ibsend", TC_K_SEND, TC_OPF_NB)                    \
	X(ISSEND, 16, "MPI_Issend", TC_K_SEND, TC_OPF_NB)                    \
	X(IRSEND, 17, "MPI_Irsend", TC_K_SEND, TC_OPF_NB)                    \
	X(RECV, 18, "MPI_Recv", TC_K_RECV, 0)                                \
	X(IRECV, 19, "MPI_Irecv", TC_K_RECV, TC_OPF_NB)                      \
	X(SENDRECV, 20, "MPI_Sendrecv", TC_K_SENDRECV, 0)                    \
	X(SENDRECV_REPLACE, 21, "MPI_Sendrecv_replace", TC_K_SENDRECV, 0)    \
	X(PROBE, 22, "MPI_Probe", TC_K_PROBE, 0)                             \
	X(IPROBE, 23, "MPI_Iprobe", TC_K_PROBE, 0)                           \
	X(SEND_INIT, 24, "MPI_Send_init", TC_K_PERSIST, TC_OPF_NB)           \
	X(RECV_INIT, 25, "MPI_Recv_init", TC_K_PERSIST, TC_OPF_NB)           \
	X(START, 26, "MPI_Start", TC_K_START, TC_OPF_NB)                     \
	X(STARTALL, 27, "MPI_Startall", TC_K_START, TC_OPF_NB)               \
	X(BSEND_INIT, 28, "MPI_Bsend_init", TC_K_PERSIST, TC_OPF_NB)         \
	X(SSEND_INIT, 29, "MPI_Ssend_init", TC_K_PERSIST, TC_OPF_NB)         \
	X(RSEND_INIT, 30, "MPI_Rsend_init", TC_K_PERSIST, TC_OPF_NB)         \
	X(REQUEST_FREE, 31, "MPI_Request_free", TC_K_WAIT, 0)                \
	X(CANCEL, 32, "MPI_Cancel", TC_K_WAIT, 0)                            \
	X(MPROBE, 33, "MPI_Mprobe", TC_K_PROBE, 0)                           \
	X(IMPROBE, 34, "MPI_Improbe", TC_K_PROBE, 0)                         \
	X(MRECV, 35, "MPI_Mrecv", TC_K_RECV, 0)                              \
	X(IMRECV, 36, "MPI_Imrecv", TC_K_RECV, TC_OPF_NB)                    \
	X(WAIT, 40, "MPI_Wait", TC_K_WAIT, 0)                                \
	X(WAITALL, 41, "MPI_Waitall", TC_K_WAIT, 0)                          \
	X(WAITANY, 42, "MPI_Waitany", TC_K_WAIT, 0)                          \
	X(WAITSOME, 43, "MPI_Waitsome", TC_K_WAIT, 0)                        \
	X(TEST, 44, "MPI_Test", TC_K_WAIT, 0)                                \
	X(TESTALL, 45, "MPI_Testall", TC_K_WAIT, 0)                          \
	X(TESTANY, 46, "MPI_Testany", TC_K_WAIT, 0)                          \
	X(TESTSOME, 47, "MPI_Testsome", TC_K_WAIT, 0)                        \
	X(BARRIER, 60, "MPI_Barrier", TC_K_COLL, 0)                          \
	X(BCAST, 61, "MPI_Bcast", TC_K_COLL, TC_OPF_ROOT)                    \
	X(REDUCE, 62, "MPI_Reduce", TC_K_COLL, TC_OPF_ROOT | TC_OPF_RED)     \
	X(ALLREDUCE, 63, "MPI_Allreduce", TC_K_COLL, TC_OPF_RED)             \
	X(REDUCE_SCATTER, 64, "MPI_Reduce_scatter", TC_K_COLL, TC_OPF_RED | TC_OPF_V) \
	X(REDUCE_SCATTER_BLOCK, 65, "MPI_Reduce_scatter_block", TC_K_COLL, TC_OPF_RED) \
	X(SCAN, 66, "MPI_Scan", TC_K_COLL, TC_OPF_RED)                       \
	X(EXSCAN, 67, "MPI_Exscan", TC_K_COLL, TC_OPF_RED)                   \
	X(GATHER, 68, "MPI_Gather", TC_K_COLL, TC_OPF_ROOT)                  \
	X(GATHERV, 69, "MPI_Gatherv", TC_K_COLL, TC_OPF_ROOT | TC_OPF_V)     \
	X(SCATTER, 70, "MPI_Scatter", TC_K_COLL, TC_OPF_ROOT)                \
	X(SCATTERV, 71, "MPI_Scatterv", TC_K_COLL, TC_OPF_ROOT | TC_OPF_V)   \
	X(ALLGATHER, 72, "MPI_Allgather", TC_K_COLL, 0)                      \
	X(ALLGATHERV, 73, "MPI_Allgatherv", TC_K_COLL, TC_OPF_V)             \
	X(ALLTOALL, 74, "MPI_Alltoall", TC_K_COLL, 0)                        \
	X(ALLTOALLV, 75, "MPI_Alltoallv", TC_K_COLL, TC_OPF_V)               \
	X(ALLTOALLW, 76, "MPI_Alltoallw", TC_K_COLL, TC_OPF_V)               \
	X(IBARRIER, 80, "MPI_Ibarrier", TC_K_COLL, TC_OPF_NB)                \
	X(IBCAST, 81, "MPI_Ibcast", TC_K_COLL, TC_OPF_NB | TC_OPF_ROOT)      \
	X(IREDUCE, 82, "MPI_Ireduce", TC_K_COLL, TC_OPF_NB | TC_OPF_ROOT | TC_OPF_RED) \
	X(IALLREDUCE, 83, "MPI_Iallreduce", TC_K_COLL, TC_OPF_NB | TC_OPF_RED) \
	X(IREDUCE_SCATTER, 84, "MPI_Ireduce_scatter", TC_K_COLL, TC_OPF_NB | TC_OPF_RED | TC_OPF_V) \
	X(IREDUCE_SCATTER_BLOCK, 85, "MPI_Ireduce_scatter_block", TC_K_COLL, TC_OPF_NB | TC_OPF_RED) \
	X(ISCAN, 86, "MPI_Iscan", TC_K_COLL, TC_OPF_NB | TC_OPF_RED)         \
	X(IEXSCAN, 87, "MPI_Iexscan", TC_K_COLL, TC_OPF_NB | TC_OPF_RED)     \
	X(IGATHER, 88, "MPI_Igather", TC_K_COLL, TC_OPF_NB | TC_OPF_ROOT)    \
	X(IGATHERV, 89, "MPI_Igatherv", TC_K_COLL, TC_OPF_NB | TC_OPF_ROOT | TC_OPF_V) \
	X(ISCATTER, 90, "MPI_Iscatter", TC_K_COLL, TC_OPF_NB | TC_OPF_ROOT)  \
	X(ISCATTERV, 91, "MPI_Iscatterv", TC_K_COLL, TC_OPF_NB | TC_OPF_ROOT | TC_OPF_V) \
	X(IALLGATHER, 92, "MPI_Iallgather", TC_K_COLL, TC_OPF_NB)            \
	X(IALLGATHERV, 93, "MPI_Iallgatherv", TC_K_COLL, TC_OPF_NB | TC_OPF_V) \
	X(IALLTOALL, 94, "MPI_Ialltoall", TC_K_COLL, TC_OPF_NB)              \
	X(IALLTOALLV, 95, "MPI_Ialltoallv", TC_K_COLL, TC_OPF_NB | TC_OPF_V) \
	X(IALLTOALLW, 96, "MPI_Ialltoallw", TC_K_COLL, TC_OPF_NB | TC_OPF_V) \
	X(NEIGHBOR_ALLGATHER, 97, "MPI_Neighbor_allgather", TC_K_COLL, TC_OPF_NEIGH) \
	X(NEIGHBOR_ALLGATHERV, 98, "MPI_Neighbor_allgatherv", TC_K_COLL, TC_OPF_NEIGH | TC_OPF_V) \
	X(NEIGHBOR_ALLTOALL, 99, "MPI_Neighbor_alltoall", TC_K_COLL, TC_OPF_NEIGH) \
	X(NEIGHBOR_ALLTOALLV, 100, "MPI_Neighbor_alltoallv", TC_K_COLL, TC_OPF_NEIGH | TC_OPF_V) \
	X(NEIGHBOR_ALLTOALLW, 101, "MPI_Neighbor_alltoallw", TC_K_COLL, TC_OPF_NEIGH | TC_OPF_V) \
	X(INEIGHBOR_ALLGATHER, 102, "MPI_Ineighbor_allgather", TC_K_COLL, TC_OPF_NB | TC_OPF_NEIGH) \
	X(INEIGHBOR_ALLGATHERV, 103, "MPI_Ineighbor_allgatherv", TC_K_COLL,  \
	  TC_OPF_NB | TC_OPF_NEIGH | TC_OPF_V)                               \
	X(INEIGHBOR_ALLTOALL, 104, "MPI_Ineighbor_alltoall", TC_K_COLL, TC_OPF_NB | TC_OPF_NEIGH) \
	X(INEIGHBOR_ALLTOALLV, 105, "MPI_Ineighbor_alltoallv", TC_K_COLL,    \
	  TC_OPF_NB | TC_OPF_NEIGH | TC_OPF_V)                               \
	X(INEIGHBOR_ALLTOALLW, 106, "MPI_Ineighbor_alltoallw", TC_K_COLL,    \
	  TC_OPF_NB | TC_OPF_NEIGH | TC_OPF_V)                               \
	X(COMM_DUP, 110, "MPI_Comm_dup", TC_K_COMM, 0)                       \
	X(COMM_SPLIT, 111, "MPI_Comm_split", TC_K_COMM, 0)                   \
	X(COMM_SPLIT_TYPE, 112, "MPI_Comm_split_type", TC_K_COMM, 0)         \
	X(COMM_CREATE, 113, "MPI_Comm_create", TC_K_COMM, 0)                 \
	X(COMM_FREE, 114, "MPI_Comm_free", TC_K_COMM, 0)                     \
	X(CART_CREATE, 115, "MPI_Cart_create", TC_K_COMM, 0)                 \
	X(CART_SUB, 116, "MPI_Cart_sub", TC_K_COMM, 0)                       \
	X(GRAPH_CREATE, 117, "MPI_Graph_create", TC_K_COMM, 0)               \
	X(DIST_GRAPH_CREATE_ADJACENT, 118, "MPI_Dist_graph_create_adjacent", TC_K_COMM, 0) \
	X(COMM_IDUP, 119, "MPI_Comm_idup", TC_K_COMM, TC_OPF_NB)             \
	X(COMM_CREATE_GROUP, 120, "MPI_Comm_create_group", TC_K_COMM, 0)     \
	X(COMM_DUP_WITH_INFO, 121, "MPI_Comm_dup_with_info", TC_K_COMM, 0)   \
	X(INTERCOMM_CREATE, 122, "MPI_Intercomm_create", TC_K_COMM, 0)       \
	X(INTERCOMM_MERGE, 123, "MPI_Intercomm_merge", TC_K_COMM, 0)         \
	X(DIST_GRAPH_CREATE, 124, "MPI_Dist_graph_create", TC_K_COMM, 0)     \
	X(COMM_SPAWN, 125, "MPI_Comm_spawn", TC_K_COMM, TC_OPF_ROOT)         \
	X(COMM_CONNECT, 126, "MPI_Comm_connect", TC_K_COMM, TC_OPF_ROOT)     \
	X(COMM_ACCEPT, 127, "MPI_Comm_accept", TC_K_COMM, TC_OPF_ROOT)       \
	X(COMM_DISCONNECT, 128, "MPI_Comm_disconnect", TC_K_COMM, 0)         \
	X(FILE_OPEN, 140, "MPI_File_open", TC_K_IO, 0)                       \
	X(FILE_CLOSE, 141, "MPI_File_close", TC_K_IO, 0)                     \
	X(FILE_READ, 142, "MPI_File_read", TC_K_IO, 0)                       \
	X(FILE_READ_AT, 143, "MPI_File_read_at", TC_K_IO, 0)                 \
	X(FILE_READ_ALL, 144, "MPI_File_read_all", TC_K_IO, 0)               \
	X(FILE_READ_AT_ALL, 145, "MPI_File_read_at_all", TC_K_IO, 0)         \
	X(FILE_WRITE, 146, "MPI_File_write", TC_K_IO, 0)                     \
	X(FILE_WRITE_AT, 147, "MPI_File_write_at", TC_K_IO, 0)               \
	X(FILE_WRITE_ALL, 148, "MPI_File_write_all", TC_K_IO, 0)             \
	X(FILE_WRITE_AT_ALL, 149, "MPI_File_write_at_all", TC_K_IO, 0)      \
	X(FILE_IREAD, 150, "MPI_File_iread", TC_K_IO, TC_OPF_NB)             \
	X(FILE_IREAD_AT, 151, "MPI_File_iread_at", TC_K_IO, TC_OPF_NB)       \
	X(FILE_IREAD_ALL, 152, "MPI_File_iread_all", TC_K_IO, TC_OPF_NB)     \
	X(FILE_IREAD_AT_ALL, 153, "MPI_File_iread_at_all", TC_K_IO, TC_OPF_NB) \
	X(FILE_IWRITE, 154, "MPI_File_iwrite", TC_K_IO, TC_OPF_NB)           \
	X(FILE_IWRITE_AT, 155, "MPI_File_iwrite_at", TC_K_IO, TC_OPF_NB)     \
	X(FILE_IWRITE_ALL, 156, "MPI_File_iwrite_all", TC_K_IO, TC_OPF_NB)   \
	X(FILE_IWRITE_AT_ALL, 157, "MPI_File_iwrite_at_all", TC_K_IO, TC_OPF_NB) \
	X(FILE_READ_SHARED, 158, "MPI_File_read_shared", TC_K_IO, 0)         \
	X(FILE_WRITE_SHARED, 159, "MPI_File_write_shared", TC_K_IO, 0)       \
	X(FILE_IREAD_SHARED, 160, "MPI_File_iread_shared", TC_K_IO, TC_OPF_NB) \
	X(FILE_IWRITE_SHARED, 161, "MPI_File_iwrite_shared", TC_K_IO, TC_OPF_NB) \
	X(FILE_READ_ORDERED, 162, "MPI_File_read_ordered", TC_K_IO, 0)       \
	X(FILE_WRITE_ORDERED, 163, "MPI_File_write_ordered", TC_K_IO, 0)     \
	X(WIN_CREATE, 170, "MPI_Win_create", TC_K_RMA, TC_OPF_WSYNC)         \
	X(WIN_ALLOCATE, 171, "MPI_Win_allocate", TC_K_RMA, TC_OPF_WSYNC)     \
	X(WIN_ALLOCATE_SHARED, 172, "MPI_Win_allocate_shared", TC_K_RMA, TC_OPF_WSYNC) \
	X(WIN_CREATE_DYNAMIC, 173, "MPI_Win_create_dynamic", TC_K_RMA, TC_OPF_WSYNC) \
	X(WIN_FREE, 174, "MPI_Win_free", TC_K_RMA, TC_OPF_WSYNC)             \
	X(PUT, 175, "MPI_Put", TC_K_RMA, TC_OPF_PUT)                         \
	X(GET, 176, "MPI_Get", TC_K_RMA, TC_OPF_GET)                         \
	X(ACCUMULATE, 177, "MPI_Accumulate", TC_K_RMA, TC_OPF_PUT | TC_OPF_RED) \
	X(GET_ACCUMULATE, 178, "MPI_Get_accumulate", TC_K_RMA,               \
	  TC_OPF_PUT | TC_OPF_GET | TC_OPF_RED)                              \
	X(FETCH_AND_OP, 179, "MPI_Fetch_and_op", TC_K_RMA,                   \
	  TC_OPF_PUT | TC_OPF_GET | TC_OPF_RED)                              \
	X(COMPARE_AND_SWAP, 180, "MPI_Compare_and_swap", TC_K_RMA, TC_OPF_PUT | TC_OPF_GET) \
	X(RPUT, 181, "MPI_Rput", TC_K_RMA, TC_OPF_NB | TC_OPF_PUT)           \
	X(RGET, 182, "MPI_Rget", TC_K_RMA, TC_OPF_NB | TC_OPF_GET)           \
	X(RACCUMULATE, 183, "MPI_Raccumulate", TC_K_RMA, TC_OPF_NB | TC_OPF_PUT | TC_OPF_RED) \
	X(RGET_ACCUMULATE, 184, "MPI_Rget_accumulate", TC_K_RMA,             \
	  TC_OPF_NB | TC_OPF_PUT | TC_OPF_GET | TC_OPF_RED)                  \
	X(WIN_FENCE, 185, "MPI_Win_fence", TC_K_RMA, TC_OPF_WSYNC)           \
	X(WIN_LOCK, 186, "MPI_Win_lock", TC_K_RMA, 0)                        \
	X(WIN_UNLOCK, 187, "MPI_Win_unlock", TC_K_RMA, 0)                    \
	X(WIN_LOCK_ALL, 188, "MPI_Win_lock_all", TC_K_RMA, 0)                \
	X(WIN_UNLOCK_ALL, 189, "MPI_Win_unlock_all", TC_K_RMA, 0)            \
	X(WIN_FLUSH, 190, "MPI_Win_flush", TC_K_RMA, 0)                      \
	X(WIN_FLUSH_ALL, 191, "MPI_Win_flush_all", TC_K_RMA, 0)              \
	X(WIN_FLUSH_LOCAL, 192, "MPI_Win_flush_local", TC_K_RMA, 0)          \
	X(WIN_FLUSH_LOCAL_ALL, 193, "MPI_Win_flush_local_all", TC_K_RMA, 0)  \
	X(WIN_POST, 194, "MPI_Win_post", TC_K_RMA, 0)                        \
	X(WIN_START, 195, "MPI_Win_start", TC_K_RMA, 0)                      \
	X(WIN_COMPLETE, 196, "MPI_Win_complete", TC_K_RMA, 0)                \
	X(WIN_WAIT, 197, "MPI_Win_wait", TC_K_RMA, 0)                        \
	X(WIN_TEST, 198, "MPI_Win_test", TC_K_RMA, 0)                        \
	X(WIN_SYNC, 199, "MPI_Win_sync", TC_K_RMA, 0)                        \
	X(PSEND_INIT, 200, "MPI_Psend_init", TC_K_PERSIST, TC_OPF_NB | TC_OPF_PART) \
	X(PRECV_INIT, 201, "MPI_Precv_init", TC_K_PERSIST, TC_OPF_NB | TC_OPF_PART) \
	X(PREADY, 202, "MPI_Pready", TC_K_START, TC_OPF_PART)                \
	X(PREADY_RANGE, 203, "MPI_Pready_range", TC_K_START, TC_OPF_PART)    \
	X(PREADY_LIST, 204, "MPI_Pready_list", TC_K_START, TC_OPF_PART)      \
	X(PARRIVED, 205, "MPI_Parrived", TC_K_WAIT, TC_OPF_PART)             \
	X(ISENDRECV, 206, "MPI_Isendrecv", TC_K_SENDRECV, TC_OPF_NB)         \
	X(ISENDRECV_REPLACE, 207, "MPI_Isendrecv_replace", TC_K_SENDRECV, TC_OPF_NB) \
	X(COMM_IDUP_WITH_INFO, 208, "MPI_Comm_idup_with_info", TC_K_COMM, TC_OPF_NB) \
	X(COMM_CREATE_FROM_GROUP, 209, "MPI_Comm_create_from_group", TC_K_COMM, 0) \
	X(INTERCOMM_CREATE_FROM_GROUPS, 210, "MPI_Intercomm_create_from_groups", TC_K_COMM, 0) \
	X(BARRIER_INIT, 220, "MPI_Barrier_init", TC_K_COLL, TC_PCOLL)        \
	X(BCAST_INIT, 221, "MPI_Bcast_init", TC_K_COLL, TC_PCOLL | TC_OPF_ROOT) \
	X(REDUCE_INIT, 222, "MPI_Reduce_init", TC_K_COLL, TC_PCOLL | TC_OPF_ROOT | TC_OPF_RED) \
	X(ALLREDUCE_INIT, 223, "MPI_Allreduce_init", TC_K_COLL, TC_PCOLL | TC_OPF_RED) \
	X(REDUCE_SCATTER_INIT, 224, "MPI_Reduce_scatter_init", TC_K_COLL,    \
	  TC_PCOLL | TC_OPF_RED | TC_OPF_V)                                  \
	X(REDUCE_SCATTER_BLOCK_INIT, 225, "MPI_Reduce_scatter_block_init", TC_K_COLL, \
	  TC_PCOLL | TC_OPF_RED)                                             \
	X(SCAN_INIT, 226, "MPI_Scan_init", TC_K_COLL, TC_PCOLL | TC_OPF_RED) \
	X(EXSCAN_INIT, 227, "MPI_Exscan_init", TC_K_COLL, TC_PCOLL | TC_OPF_RED) \
	X(GATHER_INIT, 228, "MPI_Gather_init", TC_K_COLL, TC_PCOLL | TC_OPF_ROOT) \
	X(GATHERV_INIT, 229, "MPI_Gatherv_init", TC_K_COLL, TC_PCOLL | TC_OPF_ROOT | TC_OPF_V) \
	X(SCATTER_INIT, 230, "MPI_Scatter_init", TC_K_COLL, TC_PCOLL | TC_OPF_ROOT) \
	X(SCATTERV_INIT, 231, "MPI_Scatterv_init", TC_K_COLL, TC_PCOLL | TC_OPF_ROOT | TC_OPF_V) \
	X(ALLGATHER_INIT, 232, "MPI_Allgather_init", TC_K_COLL, TC_PCOLL)    \
	X(ALLGATHERV_INIT, 233, "MPI_Allgatherv_init", TC_K_COLL, TC_PCOLL | TC_OPF_V) \
	X(ALLTOALL_INIT, 234, "MPI_Alltoall_init", TC_K_COLL, TC_PCOLL)      \
	X(ALLTOALLV_INIT, 235, "MPI_Alltoallv_init", TC_K_COLL, TC_PCOLL | TC_OPF_V) \
	X(ALLTOALLW_INIT, 236, "MPI_Alltoallw_init", TC_K_COLL, TC_PCOLL | TC_OPF_V) \
	X(NEIGHBOR_ALLGATHER_INIT, 237, "MPI_Neighbor_allgather_init", TC_K_COLL, \
	  TC_PCOLL | TC_OPF_NEIGH)                                           \
	X(NEIGHBOR_ALLGATHERV_INIT, 238, "MPI_Neighbor_allgatherv_init", TC_K_COLL, \
	  TC_PCOLL | TC_OPF_NEIGH | TC_OPF_V)                                \
	X(NEIGHBOR_ALLTOALL_INIT, 239, "MPI_Neighbor_alltoall_init", TC_K_COLL, \
	  TC_PCOLL | TC_OPF_NEIGH)                                           \
	X(NEIGHBOR_ALLTOALLV_INIT, 240, "MPI_Neighbor_alltoallv_init", TC_K_COLL, \
	  TC_PCOLL | TC_OPF_NEIGH | TC_OPF_V)                                \
	X(NEIGHBOR_ALLTOALLW_INIT, 241, "MPI_Neighbor_alltoallw_init", TC_K_COLL, \
	  TC_PCOLL | TC_OPF_NEIGH | TC_OPF_V)                                \
	X(SESSION_INIT, 242, "MPI_Session_init", TC_K_ENV, 0)                \
	X(SESSION_FINALIZE, 243, "MPI_Session_finalize", TC_K_ENV, 0)

enum tc_op {
	TC_OP_NONE = 0,
#define TC_X_(id, num, name, kind, flags) TC_OP_##id = num,
	TC_OPS(TC_X_)
#undef TC_X_
	TC_OP_MAX = 256 /* op numbers are below this */
};

/* What an op does, for code that treats ops by family. */
enum tc_op_kind {
	TC_K_OTHER = 0,
	TC_K_ENV,      /* init/finalize/pcontrol, sessions */
	TC_K_SEND,     /* point-to-point send, blocking or not */
	TC_K_RECV,     /* point-to-point receive, blocking or not */
	TC_K_SENDRECV,
	TC_K_PROBE,
	TC_K_PERSIST,  /* persistent request creation */
	TC_K_START,
	TC_K_WAIT,     /* completion: wait/test families, request free, cancel */
	TC_K_COLL,     /* collective, blocking or not */
	TC_K_COMM,     /* communicator management */
	TC_K_IO,       /* MPI-IO */
	TC_K_RMA,      /* one-sided: windows, RMA operations, synchronisation */
};

enum {
	TC_OPF_NB = 1u << 0,   /* nonblocking: returns a request */
	TC_OPF_ROOT = 1u << 1, /* rooted collective */
	TC_OPF_RED = 1u << 2,  /* takes a reduction op */
	TC_OPF_V = 1u << 3,    /* takes per-peer count vectors */
	TC_OPF_NEIGH = 1u << 4, /* neighbourhood collective: vectors per topology neighbour */
	TC_OPF_PUT = 1u << 5,  /* RMA: moves data from origin to target */
	TC_OPF_GET = 1u << 6,  /* RMA: moves data from target to origin */
	TC_OPF_WSYNC = 1u << 7, /* RMA: collective over the window's communicator */
	TC_OPF_PERSIST = 1u << 8, /* collective: creates a persistent request (MPI_Start runs it) */
	TC_OPF_PART = 1u << 9,  /* partitioned communication */
};
/* a persistent collective's init */
#define TC_PCOLL (TC_OPF_NB | TC_OPF_PERSIST)

/* "MPI_Send", or NULL for an unknown number. */
const char *tc_op_name(unsigned op);
/* Inverse of tc_op_name, also accepting "Send" and "send"; TC_OP_NONE if unknown. */
unsigned tc_op_from_name(const char *name);
enum tc_op_kind tc_op_kind(unsigned op);
unsigned tc_op_flags(unsigned op);
/* The blocking collective of a persistent collective's init (MPI_Allreduce
 * for MPI_Allreduce_init); any other op itself. */
unsigned tc_op_base(unsigned op);
/* Whether op is a known op number. */
bool tc_op_valid(unsigned op);

/* ---- datatypes (stable numbers; 0 = none; >= TC_DT_DERIVED: derived) -- */
#define TC_DTYPES(X)                                                         \
	X(CHAR, 1, "MPI_CHAR") X(SIGNED_CHAR, 2, "MPI_SIGNED_CHAR")          \
	X(UNSIGNED_CHAR, 3, "MPI_UNSIGNED_CHAR") X(BYTE, 4, "MPI_BYTE")      \
	X(SHORT, 5, "MPI_SHORT") X(UNSIGNED_SHORT, 6, "MPI_UNSIGNED_SHORT")  \
	X(INT, 7, "MPI_INT") X(UNSIGNED, 8, "MPI_UNSIGNED")                  \
	X(LONG, 9, "MPI_LONG") X(UNSIGNED_LONG, 10, "MPI_UNSIGNED_LONG")     \
	X(LONG_LONG, 11, "MPI_LONG_LONG")                                    \
	X(UNSIGNED_LONG_LONG, 12, "MPI_UNSIGNED_LONG_LONG")                  \
	X(FLOAT, 13, "MPI_FLOAT") X(DOUBLE, 14, "MPI_DOUBLE")                \
	X(LONG_DOUBLE, 15, "MPI_LONG_DOUBLE") X(C_BOOL, 16, "MPI_C_BOOL")    \
	X(INT8_T, 17, "MPI_INT8_T") X(INT16_T, 18, "MPI_INT16_T")            \
	X(INT32_T, 19, "MPI_INT32_T") X(INT64_T, 20, "MPI_INT64_T")          \
	X(UINT8_T, 21, "MPI_UINT8_T") X(UINT16_T, 22, "MPI_UINT16_T")        \
	X(UINT32_T, 23, "MPI_UINT32_T") X(UINT64_T, 24, "MPI_UINT64_T")      \
	X(C_COMPLEX, 25, "MPI_C_COMPLEX")                                    \
	X(C_DOUBLE_COMPLEX, 26, "MPI_C_DOUBLE_COMPLEX")                      \
	X(WCHAR, 27, "MPI_WCHAR") X(PACKED, 28, "MPI_PACKED")                \
	X(AINT, 29, "MPI_AINT") X(OFFSET, 30, "MPI_OFFSET")                  \
	X(COUNT, 31, "MPI_COUNT")                                            \
	X(FLOAT_INT, 32, "MPI_FLOAT_INT") X(DOUBLE_INT, 33, "MPI_DOUBLE_INT") \
	X(LONG_INT, 34, "MPI_LONG_INT") X(TWO_INT, 35, "MPI_2INT")           \
	X(SHORT_INT, 36, "MPI_SHORT_INT")                                    \
	X(LONG_DOUBLE_INT, 37, "MPI_LONG_DOUBLE_INT")                        \
	X(INTEGER, 40, "MPI_INTEGER") X(REAL, 41, "MPI_REAL")                \
	X(DOUBLE_PRECISION, 42, "MPI_DOUBLE_PRECISION")                      \
	X(COMPLEX, 43, "MPI_COMPLEX") X(DOUBLE_COMPLEX, 44, "MPI_DOUBLE_COMPLEX") \
	X(LOGICAL, 45, "MPI_LOGICAL") X(CHARACTER, 46, "MPI_CHARACTER")      \
	X(TWO_REAL, 47, "MPI_2REAL")                                         \
	X(TWO_DOUBLE_PRECISION, 48, "MPI_2DOUBLE_PRECISION")                 \
	X(TWO_INTEGER, 49, "MPI_2INTEGER")

enum tc_dtype {
	TC_DT_NONE = 0,
#define TC_X_(id, num, name) TC_DT_##id = num,
	TC_DTYPES(TC_X_)
#undef TC_X_
	TC_DT_DERIVED = 1000 /* derived datatypes: TC_DT_DERIVED + n */
};

/* "MPI_DOUBLE"; "derived" for derived types; NULL for 0/unknown. */
const char *tc_dtype_name(unsigned dt);

/* ---- reduction operations (stable numbers; >= TC_RED_USER: user ops) -- */
#define TC_REDOPS(X)                                                         \
	X(MAX, 1, "MPI_MAX") X(MIN, 2, "MPI_MIN") X(SUM, 3, "MPI_SUM")       \
	X(PROD, 4, "MPI_PROD") X(LAND, 5, "MPI_LAND") X(BAND, 6, "MPI_BAND") \
	X(LOR, 7, "MPI_LOR") X(BOR, 8, "MPI_BOR") X(LXOR, 9, "MPI_LXOR")     \
	X(BXOR, 10, "MPI_BXOR") X(MAXLOC, 11, "MPI_MAXLOC")                  \
	X(MINLOC, 12, "MPI_MINLOC") X(REPLACE, 13, "MPI_REPLACE")            \
	X(NO_OP, 14, "MPI_NO_OP")

enum tc_redop {
	TC_RED_NONE = 0,
#define TC_X_(id, num, name) TC_RED_##id = num,
	TC_REDOPS(TC_X_)
#undef TC_X_
	TC_RED_USER = 100
};

const char *tc_redop_name(unsigned op);

/* ---- the event ------------------------------------------------------- */

/* Special peers (world ranks are >= 0). */
#define TC_PEER_NONE (-1)
#define TC_ANY_SOURCE (-2)
#define TC_PROC_NULL (-3)
/* "MPI_ANY_SOURCE" or "MPI_PROC_NULL" for those special peers, else NULL. */
const char *tc_peer_name(int32_t peer);
#define TC_ANY_TAG (-1)
#define TC_UNDEFINED (-1)     /* MPI_UNDEFINED color */
#define TC_COMM_WORLD 0u      /* communicator ids: 0 world, 1 self */
#define TC_COMM_SELF 1u
#define TC_NO_CALLSITE UINT32_MAX
/* MPI_Win_lock's lock type, its event's tag */
#define TC_LOCK_EXCLUSIVE 1
#define TC_LOCK_SHARED 2

/* Which optional fields of an event are present. */
enum {
	TC_F_COMM = 1u << 0,
	TC_F_PEER = 1u << 1,
	TC_F_TAG = 1u << 2,
	TC_F_COUNT = 1u << 3,
	TC_F_DTYPE = 1u << 4,   /* dtype and dtype_size */
	TC_F_BYTES = 1u << 5,   /* bytes not equal to count * dtype_size */
	TC_F_REDOP = 1u << 6,
	TC_F_ROOT = 1u << 7,
	TC_F_COLOR = 1u << 8,   /* color and key */
	TC_F_REQUEST = 1u << 9,
	TC_F_NEWCOMM = 1u << 10,
	TC_F_COMPL = 1u << 11,  /* completions array */
	TC_F_SCOUNTS = 1u << 12,
	TC_F_RCOUNTS = 1u << 13,
	TC_F_FILE = 1u << 14,   /* file (or window) id and offset */
	TC_F_RPEER = 1u << 15,  /* sendrecv: receive-side peer and tag */
	TC_F_RESULT = 1u << 16, /* non-success return code */
	TC_F_ALL = (1u << 17) - 1
};

/* One request completed by a wait/test call, or the status of a receive. */
struct tc_completion {
	uint64_t request;   /* request id (see tc_event.request); 0 for blocking */
	int32_t source;     /* world rank that sent, TC_PEER_NONE for sends */
	int32_t tag;
	uint64_t bytes;     /* bytes received (0 for sends) */
};

struct tc_event {
	uint32_t op;         /* enum tc_op */
	uint32_t fields;     /* TC_F_* */
	uint32_t callsite;   /* file-local call-site id, TC_NO_CALLSITE if none */
	uint64_t t_start;    /* ns since the file's start time */
	uint64_t t_end;
	uint32_t comm;       /* communicator id (file-local; 0 world, 1 self) */
	int32_t peer;        /* world rank or TC_ANY_SOURCE / TC_PROC_NULL */
	int32_t tag;
	int32_t rpeer;       /* receive side of sendrecv */
	int32_t rtag;
	uint64_t count;      /* elements (send side for sendrecv) */
	uint32_t dtype;      /* enum tc_dtype */
	uint32_t dtype_size; /* bytes per element */
	uint64_t bytes;      /* total payload bytes of the call */
	uint32_t redop;      /* enum tc_redop */
	int32_t root;        /* world rank */
	int32_t color;
	int32_t key;
	uint64_t request;    /* request id assigned by the writer (not the handle) */
	uint32_t newcomm;    /* id of the communicator the call created */
	uint32_t file;       /* MPI-IO file id; for TC_K_RMA ops the window id */
	uint64_t offset;     /* MPI-IO offset; for RMA the target displacement */
	int32_t result;      /* MPI error code when not MPI_SUCCESS */
	uint32_t ncompl;
	uint32_t nscounts;
	uint32_t nrcounts;
	const struct tc_completion *compl; /* borrowed */
	const uint64_t *scounts;           /* borrowed: per-peer send counts */
	const uint64_t *rcounts;           /* borrowed: per-peer receive counts */
};

/* Set every field to its default and clear `fields`. */
static inline void tc_event_init(struct tc_event *ev)
{
	/* field by field: the compiler turns a memset of the whole struct
	 * into a string store that costs more, once per event read; inline,
	 * so that the stores of a reader that sets a field replace these */
	ev->op = 0;
	ev->fields = 0;
	ev->callsite = TC_NO_CALLSITE;
	ev->t_start = 0;
	ev->t_end = 0;
	ev->comm = 0;
	ev->peer = TC_PEER_NONE;
	ev->tag = 0;
	ev->rpeer = TC_PEER_NONE;
	ev->rtag = 0;
	ev->count = 0;
	ev->dtype = 0;
	ev->dtype_size = 0;
	ev->bytes = 0;
	ev->redop = 0;
	ev->root = TC_PEER_NONE;
	ev->color = TC_UNDEFINED;
	ev->key = 0;
	ev->request = 0;
	ev->newcomm = 0;
	ev->file = 0;
	ev->offset = 0;
	ev->result = 0;
	ev->ncompl = 0;
	ev->nscounts = 0;
	ev->nrcounts = 0;
	ev->compl = NULL;
	ev->scounts = NULL;
	ev->rcounts = NULL;
}
/* A rank's compute gaps, its events passed in order (the replay's and the
 * concurrency's one rule): every event after the first is preceded by the
 * gap from the latest end so far to its start, when it starts after it.
 * Initialise as { 0, false }. */
struct tc_gap_cursor {
	uint64_t prev_end;
	bool any;
};

/* Pass ev: the gap before it, with *from its start, or 0 when none. */
static inline uint64_t tc_gap_next(struct tc_gap_cursor *c, const struct tc_event *ev,
				   uint64_t *from)
{
	uint64_t gap = c->any && ev->t_start > c->prev_end ? ev->t_start - c->prev_end : 0;

	*from = c->prev_end;
	if (!c->any || ev->t_end > c->prev_end)
		c->prev_end = ev->t_end;
	c->any = true;
	return gap;
}

/* Total bytes moved by the event (bytes if present, else count*dtype_size). */
static inline uint64_t tc_event_bytes(const struct tc_event *ev)
{
	if (ev->fields & TC_F_BYTES)
		return ev->bytes;
	return ev->count * ev->dtype_size;
}

/* ---- call sites and communicators ------------------------------------ */

struct tc_frame {
	const char *module;  /* path or name of the module (executable or DSO) */
	uint64_t offset;     /* return address minus the module's load base */
	const char *symbol;  /* "func+0x1c" or "" when unknown */
};

struct tc_callsite {
	uint32_t id;         /* file-local id used by events */
	uint64_t signature;  /* 64-bit stack signature, equal across ranks */
	uint32_t nframes;
	const struct tc_frame *frames; /* borrowed; innermost first */
};

/*
 * Hash frames (module name and offset, not the symbol) into the 64-bit
 * stack signature. The capture shim and synth both use this, so a call
 * site has the same signature on every rank and in every run.
 */
uint64_t tc_stack_signature(const struct tc_frame *frames, uint32_t nframes);

struct tc_comm {
	uint32_t id;         /* file-local id used by events */
	uint32_t parent;     /* id of the communicator it was derived from */
	uint32_t creator;    /* enum tc_op that created it (0 for world/self) */
	uint32_t size;
	const int32_t *members; /* borrowed: world rank of each comm rank; NULL
				 * for ranks 0..size-1 (readers give NULL for
				 * the world and its copies: see tc_comm_member) */
	uint32_t ndims;      /* Cartesian topology, 0 if none */
	int32_t dims[8];
	uint32_t periods;    /* bit d set: dimension d periodic */
	/* Graph topology (MPI_Graph_create, MPI_Dist_graph_create*) as this
	 * rank sees it: its in- and out-neighbours, ranks of the
	 * communicator in the order MPI_Dist_graph_neighbors gives them
	 * (MPI_Graph_neighbors: the same list both ways). graph false: none
	 * recorded (no graph, or a file from before edges were recorded). */
	bool graph;
	bool weighted;
	uint32_t nin, nout;
	const int32_t *edges; /* borrowed: nin sources, nout destinations,
			       * then when weighted their nin + nout weights */
};

/* Words in c->edges. */
static inline size_t tc_comm_edge_words(const struct tc_comm *c)
{
	return c->graph ? ((size_t)c->nin + c->nout) * (c->weighted ? 2 : 1) : 0;
}

/* The world rank of rank i of communicator c. */
static inline int32_t tc_comm_member(const struct tc_comm *c, uint32_t i)
{
	return c->members ? c->members[i] : (int32_t)i;
}

/* The largest tracer's time per call in the compute gaps (a raw trailer's
 * or a global trace's tracer_ns) readers take: one second. */
#define TC_TRACER_NS_MAX 1000000000ull

/* The tracer's mean time in the gaps after the calls of one op (a raw
 * trailer's or a global trace's tracer_op). */
struct tc_tracer_op {
	uint32_t op;              /* below TC_OP_MAX */
	uint32_t ns;              /* TC_TRACER_NS_MAX at most */
	uint64_t calls;           /* the op's calls it stands for (> 0) */
};
/* ops per raw file's trailer kept by readers (those of the most calls) */
#define TC_TRACER_OPS 32
/* the most calls a tracer_op counts: exact in a double and in JSON */
#define TC_TRACER_CALLS_MAX (1ull << 53)

#endif
