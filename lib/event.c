#include "compat.h"
#include "event.h"
#include "hash.h"

#include <string.h>
#include <strings.h>

struct op_info {
	const char *name;
	unsigned char kind;
	unsigned short flags;
};

static const struct op_info op_table[TC_OP_MAX] = {
#define TC_X_(id, num, nm, kd, fl) [num] = { nm, kd, fl },
	TC_OPS(TC_X_)
#undef TC_X_
};

bool tc_op_valid(unsigned op)
{
	return op < TC_OP_MAX && op_table[op].name;
}

const char *tc_op_name(unsigned op)
{
	return op < TC_OP_MAX ? op_table[op].name : NULL;
}

const char *tc_peer_name(int32_t peer)
{
	switch (peer) {
	case TC_ANY_SOURCE:
		return "MPI_ANY_SOURCE";
	case TC_PROC_NULL:
		return "MPI_PROC_NULL";
	}
	return NULL;
}

enum tc_op_kind tc_op_kind(unsigned op)
{
	return op < TC_OP_MAX ? (enum tc_op_kind)op_table[op].kind : TC_K_OTHER;
}

unsigned tc_op_flags(unsigned op)
{
	return op < TC_OP_MAX ? op_table[op].flags : 0;
}

unsigned tc_op_base(unsigned op)
{
	switch (op) {
#define TC_X_(id) \
	case TC_OP_##id##_INIT: \
		return TC_OP_##id;
		TC_X_(BARRIER) TC_X_(BCAST) TC_X_(REDUCE) TC_X_(ALLREDUCE) TC_X_(REDUCE_SCATTER)
		TC_X_(REDUCE_SCATTER_BLOCK) TC_X_(SCAN) TC_X_(EXSCAN) TC_X_(GATHER) TC_X_(GATHERV)
		TC_X_(SCATTER) TC_X_(SCATTERV) TC_X_(ALLGATHER) TC_X_(ALLGATHERV) TC_X_(ALLTOALL)
		TC_X_(ALLTOALLV) TC_X_(ALLTOALLW) TC_X_(NEIGHBOR_ALLGATHER)
		TC_X_(NEIGHBOR_ALLGATHERV) TC_X_(NEIGHBOR_ALLTOALL) TC_X_(NEIGHBOR_ALLTOALLV)
		TC_X_(NEIGHBOR_ALLTOALLW)
#undef TC_X_
	default:
		return op;
	}
}

unsigned tc_op_from_name(const char *name)
{
	const char *n = name;

	if (!strncasecmp(n, "MPI_", 4))
		n += 4;
	for (unsigned i = 0; i < TC_OP_MAX; i++) {
		if (op_table[i].name && !strcasecmp(op_table[i].name + 4, n))
			return i;
	}
	return TC_OP_NONE;
}

static const char *const dtype_names[] = {
#define TC_X_(id, num, nm) [num] = nm,
	TC_DTYPES(TC_X_)
#undef TC_X_
};

const char *tc_dtype_name(unsigned dt)
{
	if (dt >= TC_DT_DERIVED)
		return "derived";
	if (dt < TC_ARRAY_SIZE(dtype_names))
		return dtype_names[dt];
	return NULL;
}

static const char *const redop_names[] = {
#define TC_X_(id, num, nm) [num] = nm,
	TC_REDOPS(TC_X_)
#undef TC_X_
};

const char *tc_redop_name(unsigned op)
{
	if (op >= TC_RED_USER)
		return "user";
	if (op < TC_ARRAY_SIZE(redop_names))
		return redop_names[op];
	return NULL;
}

uint64_t tc_stack_signature(const struct tc_frame *frames, uint32_t nframes)
{
	uint64_t h = 0x7463736967ULL; /* "tcsig" */

	for (uint32_t i = 0; i < nframes; i++) {
		const char *m = frames[i].module ? frames[i].module : "";
		const char *base = strrchr(m, '/');

		/* The module's file name, not its path: a binary copied to
		 * another directory keeps its call-site signatures. */
		base = base ? base + 1 : m;
		h = tc_hash_mix(h, tc_hash64(base, strlen(base), 0));
		h = tc_hash_mix(h, frames[i].offset);
	}
	return h;
}
