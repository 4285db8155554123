/*
 * dumpi.c - SST DUMPI traces (one big-endian binary file per rank and an
 * ASCII .meta file) behind struct tc_reader.
 *
 * The layout (formats/dumpi.md) is that of sst-dumpi's dumpi/common
 * (io.c, iodefs.h and the generated per-function record readers): an
 * 8-byte magic, the call stream (two 32-bit time biases, then records of
 * a 16-bit function id, an 8-bit field mask, an optional 16-bit thread
 * id, CPU and wall times, optional performance counters and the
 * function's arguments), a header, a footer with call counts, optional
 * label sections and an index of 64-bit offsets at the very end.
 *
 * Records carry no length, so every function's argument layout is in the
 * table below (du_funcs); arguments are decoded into slots and the
 * functions of the event model are turned into struct tc_event. Handles
 * (communicators, datatypes, requests) are DUMPI's small hashed integers:
 * requests are followed from creation to completion and get the ids of
 * the event model; pre-defined communicators, datatypes and operations
 * map onto ours. With -finstrument-functions traces, the
 * Function_enter/exit records give every call a call path.
 */
#include "lib/compat.h"
#include "formats/foreign.h"
#include "formats/reader.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	DU_ALL_FUNCTIONS = 290,
	DU_FUNCTION_ENTER = 291,
	DU_FUNCTION_EXIT = 292,
	DU_END_OF_STREAM = 293,
};

/* Field mask bits (dumpi/common/settings.h). */
#define DU_STATUS_MASK 0x03
#define DU_CPU_MASK 0x04
#define DU_WALL_MASK 0x08
#define DU_THREAD_MASK 0x40
#define DU_PERF_MASK 0x80

#define DU_INDEX_MAX 64         /* bytes of the index record at the end */
#define DU_MAX_ARRAY (1 << 24)  /* elements of one array argument */
#define DU_MAX_STRING (1 << 20)
#define DU_MAX_SLOTS 16
#define DU_MAX_STACK 256        /* Function_enter nesting kept */
#define DU_BUF (1u << 20)

/*
 * Argument layouts, one character per argument (each makes one slot):
 *   i int32   h int16 (handles)   b int8   L int64
 *   S status or status array (present when the mask has status bits)
 *   A int32 array   H int16 array   B int8 array
 *   c char array    C array of char arrays    X array of arrays of them
 *   2 array of int32 arrays
 *   v argv of MPI_Init (an extra int32 before version 0.6.2)
 *   V argv of MPI_Init_thread
 *   x A from version 0.6.9 on, else i (MPI_Type_struct indices)
 *   y A from version 0.6.8 on, else i (MPI_Cart_get coords)
 *   (ab...) the enclosed arguments are present only when slot a equals
 *           slot b (the root-only arguments of gather/scatter/spawn)
 * NULL: no record layout known (the function is never written).
 */
static const struct {
	const char *name;
	const char *args;
} du_funcs[DU_END_OF_STREAM] = {
	{ "MPI_Send", "ihiih" }, { "MPI_Recv", "ihiihS" },
	{ "MPI_Get_count", "Shi" }, { "MPI_Bsend", "ihiih" },
	{ "MPI_Ssend", "ihiih" }, { "MPI_Rsend", "ihiih" },
	{ "MPI_Buffer_attach", "i" }, { "MPI_Buffer_detach", "i" },
	{ "MPI_Isend", "ihiihi" }, { "MPI_Ibsend", "ihiihi" },
	{ "MPI_Issend", "ihiihi" }, { "MPI_Irsend", "ihiihi" },
	{ "MPI_Irecv", "ihiihi" }, { "MPI_Wait", "iS" },
	{ "MPI_Test", "iiS" }, { "MPI_Request_free", "i" },
	{ "MPI_Waitany", "iAiS" }, { "MPI_Testany", "iAiiS" },
	{ "MPI_Waitall", "iAS" }, { "MPI_Testall", "iAiS" },
	{ "MPI_Waitsome", "iAiAS" }, { "MPI_Testsome", "iAiAS" },
	{ "MPI_Iprobe", "iihiS" }, { "MPI_Probe", "iihS" },
	{ "MPI_Cancel", "i" }, { "MPI_Test_cancelled", "Si" },
	{ "MPI_Send_init", "ihiihi" }, { "MPI_Bsend_init", "ihiihi" },
	{ "MPI_Ssend_init", "ihiihi" }, { "MPI_Rsend_init", "ihiihi" },
	{ "MPI_Recv_init", "ihiihi" }, { "MPI_Start", "i" },
	{ "MPI_Startall", "iA" }, { "MPI_Sendrecv", "ihiiihiihS" },
	{ "MPI_Sendrecv_replace", "ihiiiihS" }, { "MPI_Type_contiguous", "ihh" },
	{ "MPI_Type_vector", "iiihh" }, { "MPI_Type_hvector", "iiihh" },
	{ "MPI_Type_indexed", "iAAhh" }, { "MPI_Type_hindexed", "iAAhh" },
	{ "MPI_Type_struct", "iAxHh" }, { "MPI_Address", "i" },
	{ "MPI_Type_extent", "hi" }, { "MPI_Type_size", "hi" },
	{ "MPI_Type_lb", "hi" }, { "MPI_Type_ub", "hi" },
	{ "MPI_Type_commit", "h" }, { "MPI_Type_free", "h" },
	{ "MPI_Get_elements", "Shi" }, { "MPI_Pack", "ihiiih" },
	{ "MPI_Unpack", "iiiihh" }, { "MPI_Pack_size", "ihhi" },
	{ "MPI_Barrier", "h" }, { "MPI_Bcast", "ihih" },
	{ "MPI_Gather", "iihih(03ih)" }, { "MPI_Gatherv", "iiihih(04AA)h" },
	{ "MPI_Scatter", "iihih(03ih)" }, { "MPI_Scatterv", "iihihih(05AA)" },
	{ "MPI_Allgather", "ihihh" }, { "MPI_Allgatherv", "iihAAhh" },
	{ "MPI_Alltoall", "ihihh" }, { "MPI_Alltoallv", "iAAhAAhh" },
	{ "MPI_Reduce", "ihbih" }, { "MPI_Op_create", "ib" },
	{ "MPI_Op_free", "b" }, { "MPI_Allreduce", "ihbh" },
	{ "MPI_Reduce_scatter", "iAhbh" }, { "MPI_Scan", "ihbh" },
	{ "MPI_Group_size", "hi" }, { "MPI_Group_rank", "hi" },
	{ "MPI_Group_translate_ranks", "hiAhA" }, { "MPI_Group_compare", "hhb" },
	{ "MPI_Comm_group", "hh" }, { "MPI_Group_union", "hhh" },
	{ "MPI_Group_intersection", "hhh" }, { "MPI_Group_difference", "hhh" },
	{ "MPI_Group_incl", "hiAh" }, { "MPI_Group_excl", "hiAh" },
	{ "MPI_Group_range_incl", "hi2h" }, { "MPI_Group_range_excl", "hi2h" },
	{ "MPI_Group_free", "h" }, { "MPI_Comm_size", "hi" },
	{ "MPI_Comm_rank", "hi" }, { "MPI_Comm_compare", "hhb" },
	{ "MPI_Comm_dup", "hh" }, { "MPI_Comm_create", "hhh" },
	{ "MPI_Comm_split", "hiih" }, { "MPI_Comm_free", "h" },
	{ "MPI_Comm_test_inter", "hi" }, { "MPI_Comm_remote_size", "hi" },
	{ "MPI_Comm_remote_group", "hh" }, { "MPI_Intercomm_create", "hihiih" },
	{ "MPI_Intercomm_merge", "hih" }, { "MPI_Keyval_create", "h" },
	{ "MPI_Keyval_free", "h" }, { "MPI_Attr_put", "hi" },
	{ "MPI_Attr_get", "hii" }, { "MPI_Attr_delete", "hi" },
	{ "MPI_Topo_test", "hb" }, { "MPI_Cart_create", "hiAAih" },
	{ "MPI_Dims_create", "iiAA" }, { "MPI_Graph_create", "ihiAAih" },
	{ "MPI_Graphdims_get", "hii" }, { "MPI_Graph_get", "iihiiAA" },
	{ "MPI_Cartdim_get", "hi" }, { "MPI_Cart_get", "ihiAAy" },
	{ "MPI_Cart_rank", "ihAi" }, { "MPI_Cart_coords", "ihiiA" },
	{ "MPI_Graph_neighbors_count", "hii" }, { "MPI_Graph_neighbors", "ihiiA" },
	{ "MPI_Cart_shift", "hiiii" }, { "MPI_Cart_sub", "ihAh" },
	{ "MPI_Cart_map", "hiAAi" }, { "MPI_Graph_map", "ihiAAi" },
	{ "MPI_Get_processor_name", "ci" }, { "MPI_Get_version", "ii" },
	{ "MPI_Errhandler_create", "h" }, { "MPI_Errhandler_set", "hh" },
	{ "MPI_Errhandler_get", "hh" }, { "MPI_Errhandler_free", "h" },
	{ "MPI_Error_string", "ici" }, { "MPI_Error_class", "ii" },
	{ "MPI_Wtime", "" }, { "MPI_Wtick", "" },
	{ "MPI_Init", "v" }, { "MPI_Finalize", "" },
	{ "MPI_Initialized", "i" }, { "MPI_Abort", "hi" },
	{ "MPI_Pcontrol", NULL }, { "MPI_Close_port", "c" },
	{ "MPI_Comm_accept", "chihh" }, { "MPI_Comm_connect", "chihh" },
	{ "MPI_Comm_disconnect", "h" }, { "MPI_Comm_get_parent", "h" },
	{ "MPI_Comm_join", "ih" }, { "MPI_Comm_spawn", "iihh(01cCihA)" },
	{ "MPI_Comm_spawn_multiple", "iiihh(12iCXAHA)" }, { "MPI_Lookup_name", "chc" },
	{ "MPI_Open_port", "hc" }, { "MPI_Publish_name", "chc" },
	{ "MPI_Unpublish_name", "chc" }, { "MPI_Accumulate", "ihiiihbh" },
	{ "MPI_Get", "ihiiihh" }, { "MPI_Put", "ihiiihh" },
	{ "MPI_Win_complete", "h" }, { "MPI_Win_create", "iihhh" },
	{ "MPI_Win_fence", "bh" }, { "MPI_Win_free", "h" },
	{ "MPI_Win_get_group", "hh" }, { "MPI_Win_lock", "bibh" },
	{ "MPI_Win_post", "hbh" }, { "MPI_Win_start", "hbh" },
	{ "MPI_Win_test", "hi" }, { "MPI_Win_unlock", "ih" },
	{ "MPI_Win_wait", "h" }, { "MPI_Alltoallw", "iAAHAAHh" },
	{ "MPI_Exscan", "ihbh" }, { "MPI_Add_error_class", "i" },
	{ "MPI_Add_error_code", "ii" }, { "MPI_Add_error_string", "ic" },
	{ "MPI_Comm_call_errhandler", "hi" }, { "MPI_Comm_create_keyval", "h" },
	{ "MPI_Comm_delete_attr", "hh" }, { "MPI_Comm_free_keyval", "h" },
	{ "MPI_Comm_get_attr", "hhi" }, { "MPI_Comm_get_name", "hci" },
	{ "MPI_Comm_set_attr", "hh" }, { "MPI_Comm_set_name", "hc" },
	{ "MPI_File_call_errhandler", "hi" }, { "MPI_Grequest_complete", "i" },
	{ "MPI_Grequest_start", "i" }, { "MPI_Init_thread", "Vbb" },
	{ "MPI_Is_thread_main", "i" }, { "MPI_Query_thread", "b" },
	{ "MPI_Status_set_cancelled", "Si" }, { "MPI_Status_set_elements", "Shi" },
	{ "MPI_Type_create_keyval", "h" }, { "MPI_Type_delete_attr", "hh" },
	{ "MPI_Type_dup", "hh" }, { "MPI_Type_free_keyval", "h" },
	{ "MPI_Type_get_attr", "hhi" }, { "MPI_Type_get_contents", "iiihiiiAAH" },
	{ "MPI_Type_get_envelope", "hiiib" }, { "MPI_Type_get_name", "hci" },
	{ "MPI_Type_set_attr", "hh" }, { "MPI_Type_set_name", "hc" },
	{ "MPI_Type_match_size", "bih" }, { "MPI_Win_call_errhandler", "hi" },
	{ "MPI_Win_create_keyval", "h" }, { "MPI_Win_delete_attr", "hh" },
	{ "MPI_Win_free_keyval", "h" }, { "MPI_Win_get_attr", "hhi" },
	{ "MPI_Win_get_name", "hci" }, { "MPI_Win_set_attr", "hh" },
	{ "MPI_Win_set_name", "hc" }, { "MPI_Alloc_mem", "ih" },
	{ "MPI_Comm_create_errhandler", "h" }, { "MPI_Comm_get_errhandler", "hh" },
	{ "MPI_Comm_set_errhandler", "hh" }, { "MPI_File_create_errhandler", "h" },
	{ "MPI_File_get_errhandler", "hh" }, { "MPI_File_set_errhandler", "hh" },
	{ "MPI_Finalized", "i" }, { "MPI_Free_mem", "" },
	{ "MPI_Get_address", "i" }, { "MPI_Info_create", "h" },
	{ "MPI_Info_delete", "hc" }, { "MPI_Info_dup", "hh" },
	{ "MPI_Info_free", "h" }, { "MPI_Info_get", "hcici" },
	{ "MPI_Info_get_nkeys", "hi" }, { "MPI_Info_get_nthkey", "hic" },
	{ "MPI_Info_get_valuelen", "hcii" }, { "MPI_Info_set", "hcc" },
	{ "MPI_Pack_external", "cihiii" }, { "MPI_Pack_external_size", "cihi" },
	{ "MPI_Request_get_status", "iiS" }, { "MPI_Type_create_darray", "iiiABAAbhh" },
	{ "MPI_Type_create_hindexed", "iAAhh" }, { "MPI_Type_create_hvector", "iiihh" },
	{ "MPI_Type_create_indexed_block", "iiAhh" }, { "MPI_Type_create_resized", "hiih" },
	{ "MPI_Type_create_struct", "iAAHh" }, { "MPI_Type_create_subarray", "iAAAbhh" },
	{ "MPI_Type_get_extent", "hii" }, { "MPI_Type_get_true_extent", "hii" },
	{ "MPI_Unpack_external", "ciiiih" }, { "MPI_Win_create_errhandler", "h" },
	{ "MPI_Win_get_errhandler", "hh" }, { "MPI_Win_set_errhandler", "hh" },
	{ "MPI_File_open", "hcbhh" }, { "MPI_File_close", "h" },
	{ "MPI_File_delete", "ch" }, { "MPI_File_set_size", "hL" },
	{ "MPI_File_preallocate", "hL" }, { "MPI_File_get_size", "hL" },
	{ "MPI_File_get_group", "hh" }, { "MPI_File_get_amode", "hb" },
	{ "MPI_File_set_info", "hh" }, { "MPI_File_get_info", "hh" },
	{ "MPI_File_set_view", "hLhhch" }, { "MPI_File_get_view", "hLhhc" },
	{ "MPI_File_read_at", "hLihS" }, { "MPI_File_read_at_all", "hLihS" },
	{ "MPI_File_write_at", "hLihS" }, { "MPI_File_write_at_all", "hLihS" },
	{ "MPI_File_iread_at", "hLihi" }, { "MPI_File_iwrite_at", "hLihi" },
	{ "MPI_File_read", "hihS" }, { "MPI_File_read_all", "hihS" },
	{ "MPI_File_write", "hihS" }, { "MPI_File_write_all", "hihS" },
	{ "MPI_File_iread", "hihi" }, { "MPI_File_iwrite", "hihi" },
	{ "MPI_File_seek", "hLb" }, { "MPI_File_get_position", "hL" },
	{ "MPI_File_get_byte_offset", "hLL" }, { "MPI_File_read_shared", "hihS" },
	{ "MPI_File_write_shared", "hihS" }, { "MPI_File_iread_shared", "hihi" },
	{ "MPI_File_iwrite_shared", "hihi" }, { "MPI_File_read_ordered", "hihS" },
	{ "MPI_File_write_ordered", "hihS" }, { "MPI_File_seek_shared", "hLb" },
	{ "MPI_File_get_position_shared", "hL" }, { "MPI_File_read_at_all_begin", "hLih" },
	{ "MPI_File_read_at_all_end", "hS" }, { "MPI_File_write_at_all_begin", "hLih" },
	{ "MPI_File_write_at_all_end", "hS" }, { "MPI_File_read_all_begin", "hih" },
	{ "MPI_File_read_all_end", "hS" }, { "MPI_File_write_all_begin", "hih" },
	{ "MPI_File_write_all_end", "hS" }, { "MPI_File_read_ordered_begin", "hih" },
	{ "MPI_File_read_ordered_end", "hS" }, { "MPI_File_write_ordered_begin", "hih" },
	{ "MPI_File_write_ordered_end", "hS" }, { "MPI_File_get_type_extent", "hhi" },
	{ "MPI_Register_datarep", "c" }, { "MPI_File_set_atomicity", "hi" },
	{ "MPI_File_get_atomicity", "hi" }, { "MPI_File_sync", "h" },
	{ "MPIO_Test", "iiS" }, { "MPIO_Wait", "iS" },
	{ "MPIO_Testall", "iAiS" }, { "MPIO_Waitall", "iAS" },
	{ "MPIO_Testany", "iAiiS" }, { "MPIO_Waitany", "iAiS" },
	{ "MPIO_Waitsome", "iAiAS" }, { "MPIO_Testsome", "iAiAS" },
	{ "MPI_ALL_FUNCTIONS", NULL },
	{ "Function_enter", "L" }, { "Function_exit", "L" },
};

/* DUMPI function id -> tc op (0: not part of the event model). */
static uint32_t du_op(unsigned fn)
{
	switch (fn) {
	case 0: return TC_OP_SEND;
	case 1: return TC_OP_RECV;
	case 3: return TC_OP_BSEND;
	case 4: return TC_OP_SSEND;
	case 5: return TC_OP_RSEND;
	case 8: return TC_OP_ISEND;
	case 9: return TC_OP_IBSEND;
	case 10: return TC_OP_ISSEND;
	case 11: return TC_OP_IRSEND;
	case 12: return TC_OP_IRECV;
	case 13: return TC_OP_WAIT;
	case 14: return TC_OP_TEST;
	case 15: return TC_OP_REQUEST_FREE;
	case 16: return TC_OP_WAITANY;
	case 17: return TC_OP_TESTANY;
	case 18: return TC_OP_WAITALL;
	case 19: return TC_OP_TESTALL;
	case 20: return TC_OP_WAITSOME;
	case 21: return TC_OP_TESTSOME;
	case 22: return TC_OP_IPROBE;
	case 23: return TC_OP_PROBE;
	case 24: return TC_OP_CANCEL;
	case 26: return TC_OP_SEND_INIT;
	case 27: return TC_OP_BSEND_INIT;
	case 28: return TC_OP_SSEND_INIT;
	case 29: return TC_OP_RSEND_INIT;
	case 30: return TC_OP_RECV_INIT;
	case 31: return TC_OP_START;
	case 32: return TC_OP_STARTALL;
	case 33: return TC_OP_SENDRECV;
	case 34: return TC_OP_SENDRECV_REPLACE;
	case 52: return TC_OP_BARRIER;
	case 53: return TC_OP_BCAST;
	case 54: return TC_OP_GATHER;
	case 55: return TC_OP_GATHERV;
	case 56: return TC_OP_SCATTER;
	case 57: return TC_OP_SCATTERV;
	case 58: return TC_OP_ALLGATHER;
	case 59: return TC_OP_ALLGATHERV;
	case 60: return TC_OP_ALLTOALL;
	case 61: return TC_OP_ALLTOALLV;
	case 62: return TC_OP_REDUCE;
	case 65: return TC_OP_ALLREDUCE;
	case 66: return TC_OP_REDUCE_SCATTER;
	case 67: return TC_OP_SCAN;
	case 84: return TC_OP_COMM_DUP;
	case 85: return TC_OP_COMM_CREATE;
	case 86: return TC_OP_COMM_SPLIT;
	case 87: return TC_OP_COMM_FREE;
	case 99: return TC_OP_CART_CREATE;
	case 101: return TC_OP_GRAPH_CREATE;
	case 111: return TC_OP_CART_SUB;
	case 124: return TC_OP_INIT;
	case 125: return TC_OP_FINALIZE;
	case 155: return TC_OP_ALLTOALLW;
	case 156: return TC_OP_EXSCAN;
	case 171: return TC_OP_INIT_THREAD;
	case 230: return TC_OP_FILE_OPEN;
	case 231: return TC_OP_FILE_CLOSE;
	case 242: return TC_OP_FILE_READ_AT;
	case 243: return TC_OP_FILE_READ_AT_ALL;
	case 244: return TC_OP_FILE_WRITE_AT;
	case 245: return TC_OP_FILE_WRITE_AT_ALL;
	case 248: return TC_OP_FILE_READ;
	case 249: return TC_OP_FILE_READ_ALL;
	case 250: return TC_OP_FILE_WRITE;
	case 251: return TC_OP_FILE_WRITE_ALL;
	}
	return TC_OP_NONE;
}

/* DUMPI's pre-defined datatypes (constants.h), from 2; user types from 28. */
#define DU_FIRST_USER_TYPE 28
static const struct {
	uint32_t dt, size;
} du_dtypes[DU_FIRST_USER_TYPE] = {
	{ 0, 0 }, { 0, 0 }, { TC_DT_CHAR, 1 }, { TC_DT_SIGNED_CHAR, 1 },
	{ TC_DT_UNSIGNED_CHAR, 1 }, { TC_DT_BYTE, 1 }, { TC_DT_WCHAR, 4 },
	{ TC_DT_SHORT, 2 }, { TC_DT_UNSIGNED_SHORT, 2 }, { TC_DT_INT, 4 },
	{ TC_DT_UNSIGNED, 4 }, { TC_DT_LONG, 8 }, { TC_DT_UNSIGNED_LONG, 8 },
	{ TC_DT_FLOAT, 4 }, { TC_DT_DOUBLE, 8 }, { TC_DT_LONG_DOUBLE, 16 },
	{ TC_DT_LONG_LONG, 8 }, { TC_DT_UNSIGNED_LONG_LONG, 8 }, { TC_DT_LONG_LONG, 8 },
	{ TC_DT_PACKED, 1 }, { 0, 0 }, { 0, 0 }, { TC_DT_FLOAT_INT, 8 },
	{ TC_DT_DOUBLE_INT, 12 }, { TC_DT_LONG_INT, 12 }, { TC_DT_SHORT_INT, 6 },
	{ TC_DT_TWO_INT, 8 }, { TC_DT_LONG_DOUBLE_INT, 20 },
};

/* DUMPI's reduction ops (constants.h) -> ours; user ops from 15. */
#define DU_FIRST_USER_OP 15
static const uint32_t du_redops[DU_FIRST_USER_OP] = {
	0, TC_RED_MAX, TC_RED_MIN, TC_RED_SUM, TC_RED_PROD, TC_RED_LAND, TC_RED_BAND,
	TC_RED_LOR, TC_RED_BOR, TC_RED_LXOR, TC_RED_BXOR, TC_RED_MINLOC, TC_RED_MAXLOC,
	TC_RED_REPLACE, 0,
};

#define DU_COMM_NULL 1
#define DU_COMM_WORLD 2
#define DU_COMM_SELF 3
#define DU_REQUEST_NULL 1
#define DU_ANY_SOURCE (-1)

/* ---- the reader ---------------------------------------------------------- */

struct du_status {
	int32_t bytes, source, tag;
	int8_t cancelled, error;
};

struct du_slot {
	int64_t v;        /* scalar value, or element count of an array */
	uint32_t off;     /* arrays: first element in ints[] / st[] */
	bool present;
};

struct du_req {           /* a live request handle */
	int32_t handle;
	uint64_t id;
	int32_t peer, tag;
	uint64_t bytes;
	bool recv, persistent, used;
};

struct du_reader {
	char *path;
	int fd;
	unsigned flags;
	uint64_t size;
	struct tc_raw_header hdr;
	uint8_t ver[3];
	uint64_t body, end;       /* the call stream: [body + 8, end) */
	bool have_index;
	uint32_t cpu_bias, wall_bias;
	int32_t *dtsize;          /* datatype sizes of the size section */
	uint32_t ndtsize;
	uint64_t *fn_addr;        /* function names (instrumented traces) */
	char **fn_name;
	uint32_t nfn;
	/* input window */
	uint8_t *buf;
	uint64_t boff;            /* file offset of buf[0] */
	size_t blen, bpos;
	bool bad;                 /* a read ran past the end */
	/* one record */
	struct du_slot s[DU_MAX_SLOTS];
	int32_t *ints;
	size_t nints, aints;
	struct du_status *st;
	size_t nst, ast;
	/* reading state */
	const struct tc_read_ops *ops;
	void *ctx;
	struct tc_raw_stats *stats;
	struct du_req *reqs;      /* open addressing by handle */
	size_t reqcap, nreqs;
	uint64_t nextreq;
	struct tc_completion *compl;
	size_t acompl;
	uint64_t *counts;
	size_t acounts;
	uint64_t stack[DU_MAX_STACK];
	uint32_t depth, deep;     /* kept frames, frames beyond the cap */
	uint64_t *site_key;       /* call-path hash -> call-site id */
	uint32_t *site_id;
	size_t sitecap, nsites;
	struct tc_frame *frames;
};

static int du_fail(const struct du_reader *r, struct tc_error *err, uint64_t off,
		   const char *fmt, ...) TC_PRINTF(4, 5);

static int du_fail(const struct du_reader *r, struct tc_error *err, uint64_t off,
		   const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off, "%s", msg);
}

static int pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t k = pread(fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -1 : 1;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* ---- the input window ---------------------------------------------------- */

static uint64_t in_tell(const struct du_reader *r)
{
	return r->boff + r->bpos;
}

static void in_seek(struct du_reader *r, uint64_t off)
{
	r->boff = off;
	r->blen = r->bpos = 0;
	r->bad = false;
}

/* Make n bytes available at the cursor, within [.., r->end). */
static const uint8_t *in_take(struct du_reader *r, size_t n)
{
	const uint8_t *p;

	if (r->bad)
		return NULL;
	if (r->blen - r->bpos < n) {
		uint64_t off = in_tell(r);
		size_t want;
		if (off > r->end || r->end - off < n) {
			r->bad = true;
			return NULL;
		}
		want = (size_t)TC_MIN((uint64_t)DU_BUF, r->end - off);
		if (want < n)
			want = n;
		if (!r->buf)
			r->buf = tc_xmalloc(DU_BUF);
		if (want > DU_BUF) {
			r->bad = true;
			return NULL;
		}
		if (pread_full(r->fd, r->buf, want, off)) {
			r->bad = true;
			return NULL;
		}
		r->boff = off;
		r->blen = want;
		r->bpos = 0;
	}
	p = r->buf + r->bpos;
	r->bpos += n;
	return p;
}

static uint64_t get(struct du_reader *r, int n)
{
	const uint8_t *p = in_take(r, (size_t)n);
	return p ? be(p, n) : 0;
}

static void skip(struct du_reader *r, uint64_t n)
{
	while (n && !r->bad) {
		size_t k = (size_t)TC_MIN(n, (uint64_t)DU_BUF / 2);
		in_take(r, k);
		n -= k;
	}
}

static bool have_version(const struct du_reader *r, int a, int b, int c)
{
	if (r->ver[0] != a)
		return r->ver[0] > a;
	if (r->ver[1] != b)
		return r->ver[1] > b;
	return r->ver[2] >= c;
}

/* An array length that the rest of the stream can hold. */
static bool array_len(struct du_reader *r, int64_t n, size_t elem, struct tc_error *err,
		      uint64_t at, int *rc)
{
	uint64_t left = r->end - TC_MIN(r->end, in_tell(r));

	if (n < 0)
		return true;   /* DUMPI reads nothing for a negative count */
	if (n > DU_MAX_ARRAY || (uint64_t)n * elem > left) {
		*rc = du_fail(r, err, at, "absurd array length %" PRId64, n);
		return false;
	}
	return true;
}

/* ---- decoding one record's arguments ------------------------------------ */

static int read_chararr(struct du_reader *r, struct tc_error *err)
{
	uint64_t at = in_tell(r);
	int32_t n = (int32_t)get(r, 4);

	if (r->bad)
		return 0;
	if (n > DU_MAX_STRING || (n > 0 && (uint64_t)n > r->end - TC_MIN(r->end, in_tell(r))))
		return du_fail(r, err, at, "absurd string length %d", n);
	if (n > 0)
		skip(r, (uint64_t)n);
	return 0;
}

static int read_status(struct du_reader *r, uint8_t mask, struct du_slot *s,
		       struct tc_error *err)
{
	uint64_t at = in_tell(r);
	int64_t n;
	int rc = 0;
	bool tag = have_version(r, 0, 6, 3);

	s->off = (uint32_t)r->nst;
	s->v = 0;
	if (!(mask & DU_STATUS_MASK))
		return 0;
	n = (int32_t)get(r, 4);
	if (!array_len(r, n, tag ? 14 : 10, err, at, &rc))
		return rc;
	if (n <= 0)
		return 0;
	TC_ALLOC_GROW(r->st, r->nst + (size_t)n, r->ast);
	for (int64_t i = 0; i < n && !r->bad; i++) {
		struct du_status *d = &r->st[r->nst++];
		d->bytes = (int32_t)get(r, 4);
		d->source = (int32_t)get(r, 4);
		d->cancelled = (int8_t)get(r, 1);
		d->error = (int8_t)get(r, 1);
		d->tag = tag ? (int32_t)get(r, 4) : TC_ANY_TAG;
	}
	s->v = n;
	return 0;
}

static int read_ints(struct du_reader *r, int elem, struct du_slot *s, struct tc_error *err)
{
	uint64_t at = in_tell(r);
	int64_t n = (int32_t)get(r, 4);
	int rc = 0;

	s->off = (uint32_t)r->nints;
	s->v = 0;
	if (r->bad || !array_len(r, n, (size_t)elem, err, at, &rc))
		return rc;
	if (n <= 0)
		return 0;
	TC_ALLOC_GROW(r->ints, r->nints + (size_t)n, r->aints);
	for (int64_t i = 0; i < n; i++) {
		uint64_t v = get(r, elem);
		r->ints[r->nints++] = elem == 4 ? (int32_t)v : elem == 2 ? (int32_t)(uint16_t)v
								  : (int32_t)(uint8_t)v;
	}
	s->v = n;
	return 0;
}

static int read_args(struct du_reader *r, const char *layout, uint8_t mask, struct tc_error *err)
{
	int ns = 0, rc = 0;
	int cond_skip = 0;   /* inside a (ab...) group whose condition failed */

	r->nints = r->nst = 0;
	memset(r->s, 0, sizeof(r->s));
	for (const char *c = layout; *c && !r->bad && !rc; c++) {
		struct du_slot *s;
		uint64_t at = in_tell(r);

		if (*c == '(') {
			int a = c[1] - '0', b = c[2] - '0';
			cond_skip = r->s[a].v != r->s[b].v;
			c += 2;
			continue;
		}
		if (*c == ')') {
			cond_skip = 0;
			continue;
		}
		s = &r->s[ns++];
		if (cond_skip)
			continue;
		s->present = true;
		switch (*c) {
		case 'i':
			s->v = (int32_t)get(r, 4);
			break;
		case 'h':
			s->v = (uint16_t)get(r, 2);
			break;
		case 'b':
			s->v = (uint8_t)get(r, 1);
			break;
		case 'L':
			s->v = (int64_t)get(r, 8);
			break;
		case 'S':
			rc = read_status(r, mask, s, err);
			break;
		case 'x':
		case 'y':
			if (!have_version(r, 0, 6, *c == 'x' ? 9 : 8)) {
				s->v = (int32_t)get(r, 4);
				break;
			}
			/* fall through */
		case 'A':
			rc = read_ints(r, 4, s, err);
			break;
		case 'H':
			rc = read_ints(r, 2, s, err);
			break;
		case 'B':
			rc = read_ints(r, 1, s, err);
			break;
		case 'c':
			rc = read_chararr(r, err);
			break;
		case 'C':
		case '2':
		case 'v':
		case 'V': {
			int64_t n = (int32_t)get(r, 4);
			if (*c == 'v' && !have_version(r, 0, 6, 2))
				get(r, 4);
			if (r->bad || !array_len(r, n, 4, err, at, &rc))
				break;
			for (int64_t i = 0; i < n && !r->bad && !rc; i++) {
				if (*c == '2') {
					struct du_slot tmp;
					size_t keep = r->nints;
					rc = read_ints(r, 4, &tmp, err);
					r->nints = keep;
				} else {
					rc = read_chararr(r, err);
				}
			}
			s->v = n > 0 ? n : 0;
			break;
		}
		case 'X': {
			int64_t n = (int32_t)get(r, 4);
			if (r->bad || !array_len(r, n, 4, err, at, &rc))
				break;
			for (int64_t i = 0; i < n && !r->bad && !rc; i++) {
				int64_t m = (int32_t)get(r, 4);
				if (r->bad || !array_len(r, m, 4, err, at, &rc))
					break;
				for (int64_t j = 0; j < m && !r->bad && !rc; j++)
					rc = read_chararr(r, err);
			}
			break;
		}
		}
	}
	return rc;
}

/* ---- mapping onto the event model ---------------------------------------- */

static int32_t map_peer(int64_t v, bool source)
{
	if (source && v == DU_ANY_SOURCE)
		return TC_ANY_SOURCE;
	if (v < 0 || v > INT32_MAX)
		return TC_PROC_NULL;
	return (int32_t)v;
}

static bool map_comm(int64_t c, uint32_t *out)
{
	switch (c) {
	case DU_COMM_WORLD:
		*out = TC_COMM_WORLD;
		return true;
	case DU_COMM_SELF:
		*out = TC_COMM_SELF;
		return true;
	case 0:
	case DU_COMM_NULL:
		return false;
	}
	*out = (uint32_t)c;
	return true;
}

static void set_comm(struct tc_event *ev, const struct du_slot *s)
{
	if (s->present && map_comm(s->v, &ev->comm))
		ev->fields |= TC_F_COMM;
}

static void set_dtype(const struct du_reader *r, struct tc_event *ev, int64_t d)
{
	if (d >= 2 && d < DU_FIRST_USER_TYPE && du_dtypes[d].dt) {
		ev->dtype = du_dtypes[d].dt;
		ev->dtype_size = du_dtypes[d].size;
	} else if (d >= DU_FIRST_USER_TYPE) {
		ev->dtype = TC_DT_DERIVED + (uint32_t)(d - DU_FIRST_USER_TYPE);
		ev->dtype_size = 0;
	} else {
		return;
	}
	if (d < r->ndtsize && r->dtsize[d] >= 0)
		ev->dtype_size = (uint32_t)r->dtsize[d];
	ev->fields |= TC_F_DTYPE;
}

static void set_count(struct tc_event *ev, int64_t c)
{
	if (c >= 0) {
		ev->count = (uint64_t)c;
		ev->fields |= TC_F_COUNT;
	}
}

static void set_redop(struct tc_event *ev, int64_t o)
{
	if (o > 0 && o < DU_FIRST_USER_OP - 1)
		ev->redop = du_redops[o];
	else if (o >= DU_FIRST_USER_OP)
		ev->redop = TC_RED_USER + (uint32_t)(o - DU_FIRST_USER_OP);
	else
		return;
	ev->fields |= TC_F_REDOP;
}

static void set_root(struct tc_event *ev, int64_t v)
{
	if (v >= 0 && v <= INT32_MAX) {
		ev->root = (int32_t)v;
		ev->fields |= TC_F_ROOT;
	}
}

static uint64_t *counts(struct du_reader *r, const struct du_slot *s, uint64_t *buf)
{
	for (int64_t i = 0; i < s->v; i++) {
		int32_t x = r->ints[s->off + i];
		buf[i] = x > 0 ? (uint64_t)x : 0;
	}
	return buf;
}

static void set_vectors(struct du_reader *r, struct tc_event *ev, const struct du_slot *sc,
			const struct du_slot *rc)
{
	uint64_t ns = sc && sc->present ? (uint64_t)sc->v : 0;
	uint64_t nr = rc && rc->present ? (uint64_t)rc->v : 0;

	if (!ns && !nr)
		return;
	TC_ALLOC_GROW(r->counts, ns + nr, r->acounts);
	if (ns) {
		ev->scounts = counts(r, sc, r->counts);
		ev->nscounts = (uint32_t)ns;
		ev->fields |= TC_F_SCOUNTS;
	}
	if (nr) {
		ev->rcounts = counts(r, rc, r->counts + ns);
		ev->nrcounts = (uint32_t)nr;
		ev->fields |= TC_F_RCOUNTS;
	}
}

/* ---- requests ------------------------------------------------------------ */

static struct du_req *req_find(struct du_reader *r, int32_t h, bool insert)
{
	size_t i;

	if (insert && (r->nreqs + 1) * 2 > r->reqcap) {
		struct du_req *old = r->reqs;
		size_t oc = r->reqcap;
		r->reqcap = oc ? oc * 2 : 64;
		r->reqs = tc_xcalloc(r->reqcap, sizeof(*r->reqs));
		r->nreqs = 0;
		for (size_t k = 0; k < oc; k++) {
			if (!old[k].used)
				continue;
			for (i = (uint32_t)old[k].handle * 2654435761u & (r->reqcap - 1);
			     r->reqs[i].used; i = (i + 1) & (r->reqcap - 1))
				;
			r->reqs[i] = old[k];
			r->nreqs++;
		}
		free(old);
	}
	if (!r->reqcap)
		return NULL;
	for (i = (uint32_t)h * 2654435761u & (r->reqcap - 1); r->reqs[i].used;
	     i = (i + 1) & (r->reqcap - 1))
		if (r->reqs[i].handle == h)
			return &r->reqs[i];
	if (!insert)
		return NULL;
	memset(&r->reqs[i], 0, sizeof(r->reqs[i]));
	r->reqs[i].used = true;
	r->reqs[i].handle = h;
	r->nreqs++;
	return &r->reqs[i];
}

/* Remove a request (backward-shift deletion keeps the probe chains). */
static void req_drop(struct du_reader *r, struct du_req *q)
{
	size_t i = (size_t)(q - r->reqs), j = i;

	r->reqs[i].used = false;
	r->nreqs--;
	for (;;) {
		size_t home;
		j = (j + 1) & (r->reqcap - 1);
		if (!r->reqs[j].used)
			return;
		home = (uint32_t)r->reqs[j].handle * 2654435761u & (r->reqcap - 1);
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			r->reqs[i] = r->reqs[j];
			r->reqs[j].used = false;
			i = j;
		}
	}
}

static void req_new(struct du_reader *r, struct tc_event *ev, int64_t handle, bool recv,
		    bool persistent)
{
	struct du_req *q;

	ev->request = ++r->nextreq;
	ev->fields |= TC_F_REQUEST;
	if (handle == DU_REQUEST_NULL || handle == 0)
		return;
	q = req_find(r, (int32_t)handle, true);
	q->id = ev->request;
	q->peer = (ev->fields & TC_F_PEER) ? ev->peer : TC_PEER_NONE;
	q->tag = (ev->fields & TC_F_TAG) ? ev->tag : TC_ANY_TAG;
	q->bytes = tc_event_bytes(ev);
	q->recv = recv;
	q->persistent = persistent;
}

/* One completion of request handle h with status st (may be NULL). */
static void complete(struct du_reader *r, struct tc_event *ev, int64_t h,
		     const struct du_status *st)
{
	struct du_req *q;
	struct tc_completion *c;

	if (h == DU_REQUEST_NULL || h == 0)
		return;
	q = req_find(r, (int32_t)h, false);
	TC_ALLOC_GROW(r->compl, ev->ncompl + 1, r->acompl);
	c = &r->compl[ev->ncompl++];
	c->request = q ? q->id : 0;
	c->source = TC_PEER_NONE;
	c->tag = q ? q->tag : TC_ANY_TAG;
	c->bytes = 0;
	if (q && q->recv) {
		c->source = q->peer >= 0 ? q->peer : TC_PEER_NONE;
		c->bytes = q->bytes;
		if (st && st->source >= 0 && st->source < r->hdr.world_size) {
			/* the status says what actually arrived */
			c->source = st->source;
			c->tag = st->tag;
			if (st->bytes >= 0)
				c->bytes = (uint64_t)st->bytes;
		}
	}
	ev->compl = r->compl;
	ev->fields |= TC_F_COMPL;
	if (q && !q->persistent)
		req_drop(r, q);
}

static const struct du_status *status_at(const struct du_reader *r, const struct du_slot *s,
					 int64_t i)
{
	return s->present && i >= 0 && i < s->v ? &r->st[s->off + i] : NULL;
}

/* ---- call paths (Function_enter/exit) ----------------------------------- */

static const char *fn_name(const struct du_reader *r, uint64_t addr)
{
	for (uint32_t i = 0; i < r->nfn; i++)
		if (r->fn_addr[i] == addr)
			return r->fn_name[i];
	return "";
}

/* The call-site id of the current call path, defined on first use. */
static int current_site(struct du_reader *r, uint32_t *id)
{
	uint64_t h = 0x64756d7069ULL;
	size_t i;

	*id = TC_NO_CALLSITE;
	if (!r->depth)
		return 0;
	for (uint32_t k = 0; k < r->depth; k++)
		h = tc_hash_mix(h, r->stack[k]);
	h = h ? h : 1;
	if ((r->nsites + 1) * 2 > r->sitecap) {
		uint64_t *ok = r->site_key;
		uint32_t *oi = r->site_id;
		size_t oc = r->sitecap;
		r->sitecap = oc ? oc * 2 : 64;
		r->site_key = tc_xcalloc(r->sitecap, sizeof(*r->site_key));
		r->site_id = tc_xcalloc(r->sitecap, sizeof(*r->site_id));
		for (size_t k = 0; k < oc; k++) {
			if (!ok[k])
				continue;
			for (i = ok[k] & (r->sitecap - 1); r->site_key[i]; i = (i + 1) & (r->sitecap - 1))
				;
			r->site_key[i] = ok[k];
			r->site_id[i] = oi[k];
		}
		free(ok);
		free(oi);
	}
	for (i = h & (r->sitecap - 1); r->site_key[i]; i = (i + 1) & (r->sitecap - 1)) {
		if (r->site_key[i] == h) {
			*id = r->site_id[i];
			return 0;
		}
	}
	r->site_key[i] = h;
	r->site_id[i] = (uint32_t)r->nsites++;
	*id = r->site_id[i];
	if (r->ops->callsite) {
		struct tc_callsite cs;
		if (!r->frames)
			r->frames = tc_xmalloc(DU_MAX_STACK * sizeof(*r->frames));
		/* innermost first */
		for (uint32_t k = 0; k < r->depth; k++) {
			r->frames[k].module = "dumpi";
			r->frames[k].offset = r->stack[r->depth - 1 - k];
			r->frames[k].symbol = fn_name(r, r->stack[r->depth - 1 - k]);
		}
		cs.id = *id;
		cs.nframes = r->depth;
		cs.frames = r->frames;
		cs.signature = tc_stack_signature(r->frames, r->depth);
		if (r->ops->callsite(r->ctx, &cs))
			return TC_ERR_STOP;
	}
	return 0;
}

/* ---- one record ----------------------------------------------------------- */

/* A time stamp: 16-bit seconds after the bias, 32-bit nanoseconds. */
static uint64_t get_time(struct du_reader *r, uint32_t bias)
{
	uint64_t sec = get(r, 2);
	uint64_t nsec = get(r, 4);

	return (sec + bias) * 1000000000ull + nsec;
}

static int emit(struct du_reader *r, unsigned fn, uint64_t t0, uint64_t t1)
{
	const struct du_slot *s = r->s;
	struct tc_event ev;
	uint32_t op = du_op(fn);
	int rc;

	if (!op)
		return 0;
	tc_event_init(&ev);
	ev.op = op;
	ev.t_start = t0;
	ev.t_end = t1 >= t0 ? t1 : t0;
	if ((rc = current_site(r, &ev.callsite)))
		return rc;
	switch (fn) {
	case 0: case 3: case 4: case 5:          /* send: count type dest tag comm */
	case 8: case 9: case 10: case 11:        /* isend: ... request */
	case 26: case 27: case 28: case 29:      /* send_init: ... request */
	case 1: case 12: case 30:                /* recv, irecv, recv_init */
		set_count(&ev, s[0].v);
		set_dtype(r, &ev, s[1].v);
		ev.peer = map_peer(s[2].v, fn == 1 || fn == 12 || fn == 30);
		ev.tag = (int32_t)s[3].v;
		ev.fields |= TC_F_PEER | TC_F_TAG;
		set_comm(&ev, &s[4]);
		if (fn == 1) {
			const struct du_status *st = status_at(r, &s[5], 0);
			if (st && st->source >= 0 && st->source < r->hdr.world_size) {
				TC_ALLOC_GROW(r->compl, 1, r->acompl);
				r->compl[0].request = 0;
				r->compl[0].source = st->source;
				r->compl[0].tag = st->tag;
				r->compl[0].bytes = st->bytes >= 0 ? (uint64_t)st->bytes : 0;
				ev.compl = r->compl;
				ev.ncompl = 1;
				ev.fields |= TC_F_COMPL;
			}
		} else if (fn >= 8) {
			req_new(r, &ev, s[5].v, fn == 12 || fn == 30, fn >= 26);
		}
		break;
	case 13:                                 /* wait: request status */
		complete(r, &ev, s[0].v, status_at(r, &s[1], 0));
		break;
	case 14:                                 /* test: request flag status */
		if (s[1].v)
			complete(r, &ev, s[0].v, status_at(r, &s[2], 0));
		break;
	case 15:                                 /* request_free */
	case 24: {                               /* cancel */
		struct du_req *q = req_find(r, (int32_t)s[0].v, false);
		if (q) {
			ev.request = q->id;
			ev.fields |= TC_F_REQUEST;
			if (fn == 15)
				req_drop(r, q);
		}
		break;
	}
	case 16:                                 /* waitany: count reqs index status */
	case 17: {                               /* testany: count reqs index flag status */
		int64_t idx = s[2].v;
		if ((fn == 16 || s[3].v) && idx >= 0 && idx < s[1].v)
			complete(r, &ev, r->ints[s[1].off + idx],
				 status_at(r, &s[fn == 16 ? 3 : 4], 0));
		break;
	}
	case 18:                                 /* waitall: count reqs statuses */
	case 19: {                               /* testall: count reqs flag statuses */
		const struct du_slot *sts = &s[fn == 18 ? 2 : 3];
		if (fn == 19 && !s[2].v)
			break;
		for (int64_t i = 0; i < s[1].v; i++)
			complete(r, &ev, r->ints[s[1].off + i], status_at(r, sts, i));
		break;
	}
	case 20:                                 /* waitsome/testsome: count reqs */
	case 21:                                 /* outcount indices statuses */
		for (int64_t i = 0; i < s[3].v; i++) {
			int32_t idx = r->ints[s[3].off + i];
			if (idx >= 0 && idx < s[1].v)
				complete(r, &ev, r->ints[s[1].off + idx], status_at(r, &s[4], i));
		}
		break;
	case 22:                                 /* iprobe: source tag comm flag status */
	case 23:                                 /* probe: source tag comm status */
		ev.peer = map_peer(s[0].v, true);
		ev.tag = (int32_t)s[1].v;
		ev.fields |= TC_F_PEER | TC_F_TAG;
		set_comm(&ev, &s[2]);
		break;
	case 31: {                               /* start: request */
		struct du_req *q = req_find(r, (int32_t)s[0].v, false);
		if (q) {
			ev.request = q->id;
			ev.fields |= TC_F_REQUEST;
		}
		break;
	}
	case 32:                                 /* startall: count requests */
		set_count(&ev, s[0].v);
		break;
	case 33:                                 /* sendrecv */
		set_count(&ev, s[0].v);
		set_dtype(r, &ev, s[1].v);
		ev.peer = map_peer(s[2].v, false);
		ev.tag = (int32_t)s[3].v;
		ev.rpeer = map_peer(s[6].v, true);
		ev.rtag = (int32_t)s[7].v;
		ev.fields |= TC_F_PEER | TC_F_TAG | TC_F_RPEER;
		set_comm(&ev, &s[8]);
		break;
	case 34:                                 /* sendrecv_replace */
		set_count(&ev, s[0].v);
		set_dtype(r, &ev, s[1].v);
		ev.peer = map_peer(s[2].v, false);
		ev.tag = (int32_t)s[3].v;
		ev.rpeer = map_peer(s[4].v, true);
		ev.rtag = (int32_t)s[5].v;
		ev.fields |= TC_F_PEER | TC_F_TAG | TC_F_RPEER;
		set_comm(&ev, &s[6]);
		break;
	case 52:                                 /* barrier: comm */
		set_comm(&ev, &s[0]);
		break;
	case 53:                                 /* bcast: count type root comm */
		set_count(&ev, s[0].v);
		set_dtype(r, &ev, s[1].v);
		set_root(&ev, s[2].v);
		set_comm(&ev, &s[3]);
		break;
	case 54:                                 /* gather: rank count type root comm */
	case 56:                                 /* scatter: rank rcount rtype root comm */
		set_count(&ev, s[1].v);
		set_dtype(r, &ev, s[2].v);
		set_root(&ev, s[3].v);
		set_comm(&ev, &s[4]);
		break;
	case 55:                                 /* gatherv: rank size count type root comm rcounts */
		set_count(&ev, s[2].v);
		set_dtype(r, &ev, s[3].v);
		set_root(&ev, s[4].v);
		set_comm(&ev, &s[5]);
		set_vectors(r, &ev, NULL, &s[6]);
		break;
	case 57:        /* scatterv: rank size stype rcount rtype root comm scounts */
		set_count(&ev, s[3].v);
		set_dtype(r, &ev, s[4].v);
		set_root(&ev, s[5].v);
		set_comm(&ev, &s[6]);
		set_vectors(r, &ev, &s[7], NULL);
		break;
	case 58:                                 /* allgather, alltoall: scount stype rcount rtype comm */
	case 60:
		set_count(&ev, s[0].v);
		set_dtype(r, &ev, s[1].v);
		set_comm(&ev, &s[4]);
		break;
	case 59:        /* allgatherv: size scount stype rcounts displs rtype comm */
		set_count(&ev, s[1].v);
		set_dtype(r, &ev, s[2].v);
		set_comm(&ev, &s[6]);
		set_vectors(r, &ev, NULL, &s[3]);
		break;
	case 61:        /* alltoallv: size scounts sdispls stype rcounts rdispls rtype comm */
		set_dtype(r, &ev, s[3].v);
		set_comm(&ev, &s[7]);
		set_vectors(r, &ev, &s[1], &s[4]);
		break;
	case 155:       /* alltoallw: size scounts sdispls stypes rcounts rdispls rtypes comm */
		set_comm(&ev, &s[7]);
		set_vectors(r, &ev, &s[1], &s[4]);
		break;
	case 62:                                 /* reduce: count type op root comm */
		set_count(&ev, s[0].v);
		set_dtype(r, &ev, s[1].v);
		set_redop(&ev, s[2].v);
		set_root(&ev, s[3].v);
		set_comm(&ev, &s[4]);
		break;
	case 65:                                 /* allreduce, scan, exscan: count type op comm */
	case 67:
	case 156:
		set_count(&ev, s[0].v);
		set_dtype(r, &ev, s[1].v);
		set_redop(&ev, s[2].v);
		set_comm(&ev, &s[3]);
		break;
	case 66:                                 /* reduce_scatter: size rcounts type op comm */
		set_dtype(r, &ev, s[2].v);
		set_redop(&ev, s[3].v);
		set_comm(&ev, &s[4]);
		set_vectors(r, &ev, NULL, &s[1]);
		break;
	case 84:                                 /* comm_dup: old new */
	case 85:                                 /* comm_create: old group new */
	case 86:                                 /* comm_split: old color key new */
	case 99:                                 /* cart_create: old ndim dims periods reorder new */
	case 101:                                /* graph_create: edges old nodes index edges reorder new */
	case 111: {                              /* cart_sub: ndim old remain new */
		static const int8_t oldslot[] = { [84] = 0, [85] = 0, [86] = 0, [99] = 0,
						  [101] = 1, [111] = 1 };
		static const int8_t newslot[] = { [84] = 1, [85] = 2, [86] = 3, [99] = 5,
						  [101] = 6, [111] = 3 };
		struct tc_comm c;
		set_comm(&ev, &s[oldslot[fn]]);
		if (fn == 86) {
			ev.color = (int32_t)s[1].v;
			ev.key = (int32_t)s[2].v;
			ev.fields |= TC_F_COLOR;
		}
		memset(&c, 0, sizeof(c));
		if (!map_comm(s[newslot[fn]].v, &c.id) || c.id <= TC_COMM_SELF)
			break;
		c.parent = (ev.fields & TC_F_COMM) ? ev.comm : TC_COMM_WORLD;
		c.creator = op;
		if (fn == 99) {
			c.ndims = (uint32_t)TC_MIN(s[2].v, 8);
			for (uint32_t d = 0; d < c.ndims; d++) {
				c.dims[d] = r->ints[s[2].off + d];
				if (d < s[3].v && r->ints[s[3].off + d])
					c.periods |= 1u << d;
			}
		}
		ev.newcomm = c.id;
		ev.fields |= TC_F_NEWCOMM;
		if (r->ops->comm && r->ops->comm(r->ctx, &c))
			return TC_ERR_STOP;
		break;
	}
	case 87:                                 /* comm_free */
		set_comm(&ev, &s[0]);
		break;
	case 230:                                /* file_open: comm name mode info file */
		set_comm(&ev, &s[0]);
		ev.file = (uint32_t)s[4].v;
		ev.fields |= TC_F_FILE;
		break;
	case 231:                                /* file_close: file */
		ev.file = (uint32_t)s[0].v;
		ev.fields |= TC_F_FILE;
		break;
	case 242: case 243: case 244: case 245: /* file_*_at: file offset count type status */
		ev.file = (uint32_t)s[0].v;
		ev.offset = s[1].v > 0 ? (uint64_t)s[1].v : 0;
		ev.fields |= TC_F_FILE;
		set_count(&ev, s[2].v);
		set_dtype(r, &ev, s[3].v);
		break;
	case 248: case 249: case 250: case 251: /* file_read/write(_all): file count type status */
		ev.file = (uint32_t)s[0].v;
		ev.fields |= TC_F_FILE;
		set_count(&ev, s[1].v);
		set_dtype(r, &ev, s[2].v);
		break;
	}
	if (r->stats)
		r->stats->events++;
	if (r->ops->event && r->ops->event(r->ctx, &ev))
		return TC_ERR_STOP;
	return 0;
}

/* Read and deliver one record; *done at the end of the stream. */
static int read_record(struct du_reader *r, bool *done, bool *finalized, struct tc_error *err)
{
	uint64_t at = in_tell(r), c0 = 0, c1 = 0, w0 = 0, w1 = 0, t0, t1;
	unsigned fn;
	uint8_t mask;
	int rc;

	*done = false;
	if (at >= r->end) {
		*done = true;
		return 0;
	}
	fn = (unsigned)get(r, 2);
	if (r->bad)
		return du_fail(r, err, at, "truncated record");
	if (fn == DU_END_OF_STREAM || (*finalized && fn == 0)) {
		*done = true;
		return 0;
	}
	if (fn >= DU_END_OF_STREAM || !du_funcs[fn].args)
		return du_fail(r, err, at, "unknown DUMPI function id %u", fn);
	mask = (uint8_t)get(r, 1);
	if (mask & DU_THREAD_MASK)
		get(r, 2);
	if (mask & DU_CPU_MASK) {
		c0 = get_time(r, r->cpu_bias);
		c1 = get_time(r, r->cpu_bias);
	}
	if (mask & DU_WALL_MASK) {
		w0 = get_time(r, r->wall_bias);
		w1 = get_time(r, r->wall_bias);
	}
	if (mask & DU_PERF_MASK) {
		unsigned n = (unsigned)get(r, 1);
		skip(r, (uint64_t)n * 16);
	}
	if ((rc = read_args(r, du_funcs[fn].args, mask, err)))
		return rc;
	if (r->bad)
		return du_fail(r, err, at, "truncated %s record", du_funcs[fn].name);
	if (fn == 125)
		*finalized = true;
	if (fn == DU_FUNCTION_ENTER) {
		if (r->depth < DU_MAX_STACK)
			r->stack[r->depth++] = (uint64_t)r->s[0].v;
		else
			r->deep++;
		return 0;
	}
	if (fn == DU_FUNCTION_EXIT) {
		if (r->deep)
			r->deep--;
		else if (r->depth)
			r->depth--;
		return 0;
	}
	/* times: wall clock when recorded (from the file's start time),
	 * else CPU time (from the CPU time bias) */
	if (mask & DU_WALL_MASK) {
		t0 = w0 > r->hdr.start_time_ns ? w0 - r->hdr.start_time_ns : 0;
		t1 = w1 > r->hdr.start_time_ns ? w1 - r->hdr.start_time_ns : 0;
	} else if (mask & DU_CPU_MASK) {
		uint64_t o = (uint64_t)r->cpu_bias * 1000000000ull;
		t0 = c0 > o ? c0 - o : 0;
		t1 = c1 > o ? c1 - o : 0;
	} else {
		t0 = t1 = 0;
	}
	return emit(r, fn, t0, t1);
}

static const struct tc_raw_header *du_header(void *impl)
{
	return &((struct du_reader *)impl)->hdr;
}

static int du_read(void *impl, const struct tc_read_ops *ops, void *ctx,
		   struct tc_raw_stats *stats, struct tc_error *err)
{
	struct du_reader *r = impl;
	struct tc_raw_stats local;
	bool done = false, finalized = false;
	int rc = 0;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	stats->first_error = -1;
	stats->file_bytes = r->size;
	stats->raw_bytes = r->end > r->body ? r->end - r->body : 0;
	r->ops = ops;
	r->ctx = ctx;
	r->stats = stats;
	r->depth = r->deep = 0;
	r->nextreq = 0;
	free(r->reqs);
	r->reqs = NULL;
	r->reqcap = r->nreqs = 0;
	free(r->site_key);
	free(r->site_id);
	r->site_key = NULL;
	r->site_id = NULL;
	r->sitecap = r->nsites = 0;
	in_seek(r, r->body + 8);
	while (!done) {
		uint64_t at = in_tell(r);
		struct tc_error e;

		tc_error_clear(&e);
		rc = read_record(r, &done, &finalized, &e);
		if (rc == TC_ERR_STOP)
			return rc;
		if (rc) {
			if (!(r->flags & TC_RAW_SALVAGE)) {
				if (err)
					*err = e;
				return rc;
			}
			/* salvage: keep what came before the damage */
			stats->bad_blocks = 1;
			stats->bad_bytes = r->end - at;
			stats->first_error = e.offset;
			snprintf(stats->first_error_msg, sizeof(stats->first_error_msg), "%.159s",
				 e.msg);
			rc = 0;
			break;
		}
	}
	stats->has_trailer = done && r->have_index;
	stats->blocks = 0;
	stats->trailer.events = stats->events;
	return rc;
}

static void du_close(void *impl)
{
	struct du_reader *r = impl;

	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r->dtsize);
	free(r->fn_addr);
	for (uint32_t i = 0; i < r->nfn; i++)
		free(r->fn_name[i]);
	free(r->fn_name);
	free(r->buf);
	free(r->ints);
	free(r->st);
	free(r->reqs);
	free(r->compl);
	free(r->counts);
	free(r->site_key);
	free(r->site_id);
	free(r->frames);
	free(r);
}

static const struct tc_reader_vtab du_vtab = { "dumpi", du_header, du_read, du_close };

/* ---- opening: index, header, label sections ------------------------------ */

/* A 16-bit-length string of a section into buf. */
static void get_string(struct du_reader *r, char *buf, size_t len)
{
	size_t n = (size_t)get(r, 2), k = TC_MIN(n, len - 1);
	const uint8_t *p = k ? in_take(r, k) : NULL;

	if (p)
		memcpy(buf, p, k);
	buf[p ? k : 0] = '\0';
	if (n > k)
		skip(r, n - k);
	for (size_t i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20)
			buf[i] = '?';
}

static int read_index(struct du_reader *r, uint64_t *off, struct tc_error *err)
{
	static const uint8_t magic[8] = { 0xff, 0xaa, 0xdd, 'D', 'U', 'M', 'P', 'I' };
	uint8_t tail[DU_INDEX_MAX];
	uint64_t w[8];
	int k;

	/* [magic] [sizelbl] [addrlbl] [perflbl] header body footer keyval; the
	 * optional label offsets were prepended over the versions, so the
	 * magic sits in one of the first four words */
	if (r->size < 8 + 40)
		return du_fail(r, err, r->size, "no DUMPI index record at the end (truncated file?)");
	memset(tail, 0, sizeof(tail));
	if (r->size >= 8 + DU_INDEX_MAX) {
		if (pread_full(r->fd, tail, DU_INDEX_MAX, r->size - DU_INDEX_MAX))
			return tc_error_sys(err, r->path, "read");
	} else {
		size_t n = (size_t)(r->size - 8);
		if (pread_full(r->fd, tail + DU_INDEX_MAX - n, n, 8))
			return tc_error_sys(err, r->path, "read");
	}
	for (k = 0; k < 4; k++)
		if (!memcmp(tail + 8 * k, magic, 8))
			break;
	if (k == 4)
		return du_fail(r, err, r->size, "no DUMPI index record at the end (truncated file?)");
	for (int i = 0; i < 8; i++)
		w[i] = be(tail + 8 * i, 8);
	for (int i = 0; i < 7; i++)
		off[i] = 0;
	/* off[]: sizelbl, addrlbl, perflbl, header, body, footer, keyval */
	for (int i = k + 1; i < 4; i++)
		off[i - 1] = w[i];
	off[3] = w[4];
	off[4] = w[5];
	off[5] = w[6];
	off[6] = w[7];
	for (int i = 0; i < 7; i++)
		if (off[i] >= r->size - (uint64_t)(DU_INDEX_MAX - 8 * k))
			return du_fail(r, err, r->size - (uint64_t)(DU_INDEX_MAX - 8 * k),
				       "index record points past the end of the file");
	if (off[4] < 8)
		return du_fail(r, err, r->size - 24, "bad call stream offset %" PRIu64, off[4]);
	return 0;
}

static int read_sections(struct du_reader *r, const uint64_t *off, struct tc_error *err)
{
	uint64_t end = r->size;

	/* the header: version, start time, host, user, mesh */
	if (off[3]) {
		char user[256];
		in_seek(r, off[3]);
		r->end = end;
		for (int i = 0; i < 3; i++)
			r->ver[i] = (uint8_t)get(r, 1);
		get(r, 8);
		get_string(r, r->hdr.host, sizeof(r->hdr.host));
		get_string(r, user, sizeof(user));
		if (r->bad)
			return du_fail(r, err, off[3], "truncated header record");
	} else if (r->have_index) {
		/* no header record: the oldest layout */
		r->ver[0] = r->ver[1] = r->ver[2] = 0;
	}
	/* datatype sizes */
	if (off[0]) {
		int64_t n;
		in_seek(r, off[0]);
		r->end = end;
		n = (int32_t)get(r, 4);
		if (r->bad || n < 0 || n > (1 << 20) || (uint64_t)n * 4 > end - off[0])
			return du_fail(r, err, off[0], "bad datatype size table");
		r->dtsize = tc_xcalloc((size_t)n + 1, sizeof(*r->dtsize));
		r->ndtsize = (uint32_t)n;
		for (int64_t i = 0; i < n; i++)
			r->dtsize[i] = (int32_t)get(r, 4);
	}
	/* function names (instrumented traces) */
	if (off[1]) {
		int64_t n;
		in_seek(r, off[1]);
		r->end = end;
		n = (int32_t)get(r, 4);
		if (r->bad || n < 0 || (uint64_t)n * 10 > end - off[1])
			return du_fail(r, err, off[1], "bad function name table");
		r->fn_addr = tc_xcalloc((size_t)n + 1, sizeof(*r->fn_addr));
		r->fn_name = tc_xcalloc((size_t)n + 1, sizeof(*r->fn_name));
		for (int64_t i = 0; i < n && !r->bad; i++) {
			char name[256];
			r->fn_addr[i] = get(r, 8);
			get_string(r, name, sizeof(name));
			r->fn_name[i] = tc_xstrdup(name);
			r->nfn++;
		}
		if (r->bad)
			return du_fail(r, err, off[1], "truncated function name table");
	}
	/* the call stream ends where the next section starts */
	r->body = off[4];
	for (int i = 0; i < 7; i++)
		if (i != 4 && off[i] > r->body && off[i] < end)
			end = off[i];
	r->end = end;
	in_seek(r, r->body);
	r->cpu_bias = (uint32_t)get(r, 4);
	r->wall_bias = (uint32_t)get(r, 4);
	if (r->bad)
		return du_fail(r, err, r->body, "truncated call stream");
	return 0;
}

const char *tc_dumpi_function_name(unsigned id)
{
	if (id < DU_END_OF_STREAM)
		return du_funcs[id].name;
	return id == DU_END_OF_STREAM ? "END_OF_STREAM" : NULL;
}

bool tc_dumpi_probe(const void *buf, size_t len)
{
	return len >= TC_DUMPI_MAGIC_LEN && !memcmp(buf, TC_DUMPI_MAGIC, TC_DUMPI_MAGIC_LEN);
}

bool tc_dumpi_meta_probe(const void *buf, size_t len)
{
	const char *s = buf;
	size_t i;
	bool procs = false, prefix = false;

	/* key=value lines of printable text */
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c != '\n' && c != '\t' && c != '\r' && (c < 0x20 || c > 0x7e))
			return false;
	}
	for (i = 0; i < len; ) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (s + i)) : len - i;
		if (n >= 9 && !memcmp(s + i, "numprocs=", 9))
			procs = true;
		if (n >= 11 && !memcmp(s + i, "fileprefix=", 11))
			prefix = true;
		if (n && !memchr(s + i, '=', n))
			return false;
		i += n + 1;
	}
	return procs && prefix;
}

int tc_dumpi_read_meta(const char *path, struct tc_dumpi_meta *m, struct tc_error *err)
{
	char buf[65536];
	size_t len = 0;
	uint32_t line = 0;
	const char *p, *end;
	int fd;

	memset(m, 0, sizeof(*m));
	m->numprocs = -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tc_error_sys(err, path, "open");
	for (;;) {
		ssize_t k = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int rc = tc_error_sys(err, path, "read");
			close(fd);
			return rc;
		}
		if (k == 0)
			break;
		len += (size_t)k;
		if (len == sizeof(buf) - 1) {
			close(fd);
			return tc_error_set(err, TC_ERR_FORMAT, path, -1,
					    "too large for a DUMPI .meta file");
		}
	}
	close(fd);
	buf[len] = '\0';
	for (p = buf, end = buf + len; p < end; ) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *eq;
		size_t klen, vlen;

		line++;
		eq = memchr(p, '=', (size_t)(le - p));
		if (le > p && le[-1] == '\r')
			le--;
		if (le == p) {
			p = nl ? nl + 1 : end;
			continue;
		}
		if (!eq)
			return tc_error_set(err, TC_ERR_FORMAT, path, -1,
					    "line %u: expected key=value", line);
		klen = (size_t)(eq - p);
		vlen = (size_t)(le - eq - 1);
		if (klen == 8 && !memcmp(p, "numprocs", 8)) {
			int64_t v = 0;
			size_t i;
			for (i = 0; i < vlen && eq[1 + i] >= '0' && eq[1 + i] <= '9' &&
				    v <= TC_ST_MAX_WORLD; i++)
				v = v * 10 + (eq[1 + i] - '0');
			if (!vlen || i != vlen || v < 1 || v > TC_ST_MAX_WORLD)
				return tc_error_set(err, TC_ERR_FORMAT, path, -1,
						    "line %u: bad numprocs '%.*s'", line,
						    (int)TC_MIN(vlen, 32), eq + 1);
			m->numprocs = (int32_t)v;
		} else if (klen == 10 && !memcmp(p, "fileprefix", 10)) {
			if (!vlen || vlen >= sizeof(m->prefix) || memchr(eq + 1, '/', vlen))
				return tc_error_set(err, TC_ERR_FORMAT, path, -1,
						    "line %u: bad fileprefix", line);
			memcpy(m->prefix, eq + 1, vlen);
			m->prefix[vlen] = '\0';
		} else if (klen == 8 && !memcmp(p, "hostname", 8)) {
			size_t n = TC_MIN(vlen, sizeof(m->host) - 1);
			memcpy(m->host, eq + 1, n);
			m->host[n] = '\0';
		}
		p = nl ? nl + 1 : end;
	}
	if (m->numprocs < 0)
		return tc_error_set(err, TC_ERR_FORMAT, path, -1, "no numprocs= line");
	if (!m->prefix[0])
		return tc_error_set(err, TC_ERR_FORMAT, path, -1, "no fileprefix= line");
	return 0;
}

int32_t tc_dumpi_file_rank(const char *path)
{
	const char *base = strrchr(path, '/'), *dash, *dot;
	int64_t v = 0;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	dash = strrchr(base, '-');
	if (!dot || !dash || dash > dot || strcmp(dot, ".bin") || dot == dash + 1)
		return -1;
	for (const char *c = dash + 1; c < dot; c++) {
		if (*c < '0' || *c > '9' || v > TC_ST_MAX_WORLD)
			return -1;
		v = v * 10 + (*c - '0');
	}
	return v < TC_ST_MAX_WORLD ? (int32_t)v : -1;
}

/* "DIR/PREFIX-0003.bin" -> "DIR/PREFIX.meta" */
static char *meta_beside(const char *path)
{
	const char *base = strrchr(path, '/'), *dash;
	size_t n;
	char *m;

	base = base ? base + 1 : path;
	dash = strrchr(base, '-');
	if (!dash)
		return NULL;
	n = (size_t)(dash - path);
	m = tc_xmalloc(n + 6);
	memcpy(m, path, n);
	memcpy(m + n, ".meta", 6);
	return m;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	return n >= k && !strcmp(s + n - k, suf);
}

int tc_dumpi_open(struct tc_reader **out, const char *path, uint32_t index, unsigned flags,
		  struct tc_error *err)
{
	struct du_reader *r;
	struct tc_dumpi_meta meta;
	char *binpath = NULL, *metapath = NULL;
	uint8_t head[8];
	uint64_t off[7];
	struct stat st;
	int rc = 0;
	int32_t rank;

	*out = NULL;
	memset(&meta, 0, sizeof(meta));
	meta.numprocs = -1;
	if (ends_with(path, ".meta")) {
		/* a .meta file: stream `index` is the file of rank `index` */
		const char *slash = strrchr(path, '/');
		size_t dl = slash ? (size_t)(slash - path + 1) : 0;
		if ((rc = tc_dumpi_read_meta(path, &meta, err)))
			return rc;
		if (index >= (uint32_t)meta.numprocs)
			return tc_error_set(err, TC_ERR_USAGE, path, -1,
					    "no rank %u in this trace (numprocs %d)", index,
					    meta.numprocs);
		binpath = tc_xmalloc(dl + strlen(meta.prefix) + 32);
		memcpy(binpath, path, dl);
		snprintf(binpath + dl, strlen(meta.prefix) + 32, "%s-%04u.bin", meta.prefix, index);
		rank = (int32_t)index;
	} else {
		if (index != 0)
			return tc_error_set(err, TC_ERR_USAGE, path, -1,
					    "DUMPI files hold one rank (stream %u asked)", index);
		binpath = tc_xstrdup(path);
		rank = tc_dumpi_file_rank(path);
		metapath = meta_beside(path);
		if (metapath && access(metapath, F_OK) == 0 &&
		    (rc = tc_dumpi_read_meta(metapath, &meta, err))) {
			free(metapath);
			free(binpath);
			return rc;
		}
		free(metapath);
		if (rank < 0)
			rank = 0;
	}

	r = tc_xcalloc(1, sizeof(*r));
	r->path = binpath;
	r->flags = flags;
	r->fd = open(binpath, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		rc = tc_error_sys(err, binpath, "open");
		goto fail;
	}
	if (fstat(r->fd, &st) < 0) {
		rc = tc_error_sys(err, binpath, "stat");
		goto fail;
	}
	r->size = (uint64_t)st.st_size;
	if (!S_ISREG(st.st_mode)) {
		rc = tc_error_set(err, TC_ERR_FORMAT, binpath, -1, "not a regular file");
		goto fail;
	}
	if (r->size < 8 || pread_full(r->fd, head, 8, 0) || !tc_dumpi_probe(head, 8)) {
		rc = du_fail(r, err, 0, r->size < 8 ? "file too short for a DUMPI trace"
					     : "bad magic (not a DUMPI trace)");
		goto fail;
	}
	rc = read_index(r, off, err);
	if (rc) {
		if (!(flags & TC_RAW_SALVAGE))
			goto fail;
		/* salvage: a cut file has lost its index; read the stream from
		 * its usual place up to the damage */
		rc = 0;
		memset(off, 0, sizeof(off));
		off[4] = 8;
		r->ver[0] = 1;   /* assume the current layout */
	} else {
		r->have_index = true;
	}
	if ((rc = read_sections(r, off, err)))
		goto fail;
	if (!r->have_index)
		r->end = r->size;
	r->hdr.rank = rank;
	r->hdr.world_size = meta.numprocs > 0 ? meta.numprocs : rank + 1;
	if (r->hdr.rank >= r->hdr.world_size) {
		rc = tc_error_set(err, TC_ERR_FORMAT, r->path, -1,
				  "rank %d outside the world of %d ranks of the .meta file",
				  r->hdr.rank, r->hdr.world_size);
		goto fail;
	}
	r->hdr.start_time_ns = (uint64_t)r->wall_bias * 1000000000ull;
	r->hdr.version_major = r->ver[0];
	r->hdr.version_minor = r->ver[1];
	if (!r->hdr.host[0])
		snprintf(r->hdr.host, sizeof(r->hdr.host), "%s", meta.host);
	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "wall");
	snprintf(r->hdr.writer, sizeof(r->hdr.writer), "dumpi %u.%u.%u", r->ver[0], r->ver[1],
		 r->ver[2]);
	*out = tc_reader_wrap(&du_vtab, r);
	return 0;
fail:
	du_close(r);
	return rc;
}
