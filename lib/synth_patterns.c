/*
 * synth_patterns.c - the communication patterns of tracecluster synth.
 *
 * Each pattern plays one rank through the sg_* helpers of
 * synth_internal.h. Every MPI call statement a real code would write
 * separately (each direction, each branch) has its own call site, so
 * ranks that take different branches differ by call path, as in the
 * benchmarks of Bahmani 2017, Table 3.3 (IS: 3 main clusters, LU and
 * Sweep3D: 9, CG and FT: 1 main cluster with parameter sub-clusters, MG:
 * more clusters as levels drop ranks).
 *
 * Conventions: peers are world ranks; a message from a to b at a given
 * step and channel has the count sg_count(a, b, channel, base), computed
 * the same way by sender and receiver; tags are fixed per exchange.
 */
#include "compat.h"
#include "synth.h"
#include "synth_internal.h"
#include "error.h"
#include "event.h"
#include "hash.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DT_D TC_DT_DOUBLE
#define WORLD TC_COMM_WORLD

static uint64_t base_doubles(const struct sg *g)
{
	return sg_elems(sg_opts(g)->msg_bytes, 8);
}

/* ---- grids: neighbours and role labels ----------------------------------- */

/* Direction d: dimension d / 2, towards lower (even d) or higher (odd d)
 * coordinates. */
static int32_t neighbour(const struct tc_synth_opts *o, int32_t rank, int d)
{
	int32_t c[3];
	int dim = d / 2;

	sg_coords(o, rank, c);
	c[dim] += (d & 1) ? 1 : -1;
	if (c[dim] < 0 || c[dim] >= o->dims[dim])
		return -1;
	return sg_rank_of(o, c);
}

/*
 * "interior", "first"/"last" on a line, "edge-n", "corner-nw" on a plane,
 * "face-t", "edge-tn", "corner-tnw" in a box. Letters: dimension 0 west/
 * east, 1 north/south, 2 bottom/top. Dimensions of extent 1 are ignored.
 */
static void grid_label(const struct tc_synth_opts *o, int32_t rank, char *buf,
		       size_t len)
{
	static const char lo[3] = { 'w', 'n', 'b' }, hi[3] = { 'e', 's', 't' };
	static const char *const kinds[4][4] = {
		{ "interior" },
		{ "interior", "end" },
		{ "interior", "edge", "corner" },
		{ "interior", "face", "edge", "corner" },
	};
	int32_t c[3];
	char letters[4];
	int m = 0, k = 0, nl = 0, last = 0;

	sg_coords(o, rank, c);
	for (int d = 2; d >= 0; d--) {
		if (o->dims[d] <= 1)
			continue;
		m++;
		last = d;
		if (c[d] == 0) {
			letters[nl++] = lo[d];
			k++;
		} else if (c[d] == o->dims[d] - 1) {
			letters[nl++] = hi[d];
			k++;
		}
	}
	letters[nl] = '\0';
	if (m == 0)
		snprintf(buf, len, "single");
	else if (m == 1)
		snprintf(buf, len, "%s", !k ? "interior" : c[last] == 0 ? "first" : "last");
	else if (!k)
		snprintf(buf, len, "interior");
	else
		snprintf(buf, len, "%s-%s", kinds[m][k], letters);
}

static void grid_label_fn(const struct tc_synth_opts *o, int32_t rank, int phase,
			  char *buf, size_t len)
{
	(void)phase;
	grid_label(o, rank, buf, len);
}

/* ---- stencil1d / stencil2d / stencil3d ------------------------------------ */

enum { TAG_HALO = 10 };

#define ST_IRECV(d) (2u + (unsigned)(d))
#define ST_ISEND(nd, d) (2u + 2u * (nd) + (unsigned)(d))
#define ST_WAIT(nd) (2u + 4u * (nd))
#define ST_REDUCE(nd) (3u + 4u * (nd))

#define EXCH(dir, at) { "exchange_" dir, at, "halo_exchange", "timestep" }

static const struct sg_site stencil1d_sites[] = {
	SG_COMMON_SITES,
	EXCH("west", 0), EXCH("east", 0),
	EXCH("west", 1), EXCH("east", 1),
	{ "halo_exchange", 0, "timestep", NULL },
	{ "residual", 0, "timestep", NULL },
};

static const struct sg_site stencil2d_sites[] = {
	SG_COMMON_SITES,
	EXCH("west", 0), EXCH("east", 0), EXCH("north", 0), EXCH("south", 0),
	EXCH("west", 1), EXCH("east", 1), EXCH("north", 1), EXCH("south", 1),
	{ "halo_exchange", 0, "timestep", NULL },
	{ "residual", 0, "timestep", NULL },
};

static const struct sg_site stencil3d_sites[] = {
	SG_COMMON_SITES,
	EXCH("west", 0), EXCH("east", 0), EXCH("north", 0), EXCH("south", 0),
	EXCH("bottom", 0), EXCH("top", 0),
	EXCH("west", 1), EXCH("east", 1), EXCH("north", 1), EXCH("south", 1),
	EXCH("bottom", 1), EXCH("top", 1),
	{ "halo_exchange", 0, "timestep", NULL },
	{ "residual", 0, "timestep", NULL },
};

/*
 * Each timestep: post a receive from every existing neighbour, send to
 * every existing neighbour (one call statement per direction), wait for
 * all, then an Allreduce of the residual. Non-periodic: a rank on the
 * boundary skips the statements of the missing directions.
 */
static void stencil_run(struct sg *g, unsigned nd)
{
	const struct tc_synth_opts *o = sg_opts(g);
	int32_t me = sg_rank(g);
	uint64_t base = base_doubles(g);
	int32_t nb[6];

	for (unsigned d = 0; d < 2 * nd; d++)
		nb[d] = neighbour(o, me, (int)d);
	for (int32_t s = 0; s < o->iters && !sg_stopped(g); s++) {
		sg_step(g, s, -1);
		/* the message from nb[d] travelled in direction d ^ 1 */
		for (unsigned d = 0; d < 2 * nd; d++)
			if (nb[d] >= 0)
				sg_irecv(g, ST_IRECV(d), nb[d], TAG_HALO + (int32_t)(d ^ 1),
					 sg_count(g, nb[d], me, d ^ 1, base), base, DT_D, WORLD);
		for (unsigned d = 0; d < 2 * nd; d++)
			if (nb[d] >= 0)
				sg_isend(g, ST_ISEND(nd, d), nb[d], TAG_HALO + (int32_t)d,
					 sg_count(g, me, nb[d], d, base), base, DT_D, WORLD);
		sg_waitall(g, ST_WAIT(nd));
		sg_coll(g, ST_REDUCE(nd), TC_OP_ALLREDUCE, 1, DT_D, TC_RED_SUM, -1, WORLD, 0);
	}
}

static void stencil1d_run(struct sg *g) { stencil_run(g, 1); }
static void stencil2d_run(struct sg *g) { stencil_run(g, 2); }
static void stencil3d_run(struct sg *g) { stencil_run(g, 3); }

static const struct sg_pattern pat_stencil1d = {
	"stencil1d", "1D halo exchange on a line of ranks, non-periodic",
	1, 1, false, stencil1d_sites, TC_ARRAY_SIZE(stencil1d_sites),
	NULL, stencil1d_run, grid_label_fn, false, -1,
};

static const struct sg_pattern pat_stencil2d = {
	"stencil2d", "2D five-point halo exchange on an AxB grid, non-periodic",
	2, 1, false, stencil2d_sites, TC_ARRAY_SIZE(stencil2d_sites),
	NULL, stencil2d_run, grid_label_fn, false, -1,
};

static const struct sg_pattern pat_stencil3d = {
	"stencil3d", "3D seven-point halo exchange on an AxBxC grid, non-periodic",
	3, 1, false, stencil3d_sites, TC_ARRAY_SIZE(stencil3d_sites),
	NULL, stencil3d_run, grid_label_fn, false, -1,
};

/* ---- wavefront ------------------------------------------------------------ */

enum {
	WF_RECV = 2,       /* + direction of the upstream neighbour */
	WF_SEND = 6,       /* + direction of the downstream neighbour */
	WF_REDUCE = 10,
	WF_SWEEPS = 4,
	WF_BLOCKS = 2,
	TAG_SWEEP = 100,
};

static const struct sg_site wavefront_sites[] = {
	SG_COMMON_SITES,
	{ "sweep", 0, "sweep_octant", "solve" }, /* receive from west */
	{ "sweep", 1, "sweep_octant", "solve" }, /* receive from east */
	{ "sweep", 2, "sweep_octant", "solve" }, /* receive from north */
	{ "sweep", 3, "sweep_octant", "solve" }, /* receive from south */
	{ "sweep", 4, "sweep_octant", "solve" }, /* send to west */
	{ "sweep", 5, "sweep_octant", "solve" }, /* send to east */
	{ "sweep", 6, "sweep_octant", "solve" }, /* send to north */
	{ "sweep", 7, "sweep_octant", "solve" }, /* send to south */
	{ "flux_error", 0, "solve", NULL },
};

/*
 * Sweep s starts in corner nw (s = 0), ne, sw, se: the flow runs east
 * (or west for s & 1) and south (or north for s & 2). For each of
 * WF_BLOCKS blocks a rank receives from its upstream neighbours, computes
 * and sends to its downstream neighbours, blocking, as LU and Sweep3D do.
 */
static void wavefront_run(struct sg *g)
{
	const struct tc_synth_opts *o = sg_opts(g);
	int32_t me = sg_rank(g);
	uint64_t base = base_doubles(g);

	for (int32_t s = 0; s < o->iters && !sg_stopped(g); s++) {
		sg_step(g, s, -1);
		for (int sw = 0; sw < WF_SWEEPS; sw++) {
			/* upstream directions along x and y */
			int up[2] = { (sw & 1) ? 1 : 0, (sw & 2) ? 3 : 2 };

			for (int b = 0; b < WF_BLOCKS; b++) {
				for (int a = 0; a < 2; a++) {
					int32_t nb = neighbour(o, me, up[a]);
					uint32_t chan = (uint32_t)(sw * 8 + b * 2 + a);

					if (nb >= 0)
						sg_recv(g, WF_RECV + (unsigned)up[a], nb, nb,
							TAG_SWEEP + sw, sg_count(g, nb, me, chan, base),
							base, DT_D, WORLD);
				}
				sg_compute(g);
				for (int a = 0; a < 2; a++) {
					int down = up[a] ^ 1;
					int32_t nb = neighbour(o, me, down);
					uint32_t chan = (uint32_t)(sw * 8 + b * 2 + a);

					if (nb >= 0)
						sg_send(g, WF_SEND + (unsigned)down, nb, TAG_SWEEP + sw,
							sg_count(g, me, nb, chan, base), base, DT_D,
							WORLD);
				}
			}
		}
		sg_coll(g, WF_REDUCE, TC_OP_ALLREDUCE, 1, DT_D, TC_RED_MAX, -1, WORLD, 0);
	}
}

static const struct sg_pattern pat_wavefront = {
	"wavefront", "LU/Sweep3D-like pipelined sweeps from the corners of an AxB grid",
	2, 1, false, wavefront_sites, TC_ARRAY_SIZE(wavefront_sites),
	NULL, wavefront_run, grid_label_fn, false, -1,
};

/* ---- cg ------------------------------------------------------------------- */

enum {
	CG_RED_IRECV = 2, CG_RED_SEND, CG_RED_WAIT,
	CG_TR_IRECV, CG_TR_SEND, CG_TR_WAIT,
	CG_DOT_IRECV, CG_DOT_SEND, CG_DOT_WAIT,
	CG_NORM,
	TAG_CG_RED = 1, TAG_CG_TR = 100, TAG_CG_DOT = 200,
};

static const struct sg_site cg_sites[] = {
	SG_COMMON_SITES,
	{ "reduce_q", 0, "conj_grad", "cg_iteration" },
	{ "reduce_q", 1, "conj_grad", "cg_iteration" },
	{ "reduce_q", 2, "conj_grad", "cg_iteration" },
	{ "transpose_exchange", 0, "conj_grad", "cg_iteration" },
	{ "transpose_exchange", 1, "conj_grad", "cg_iteration" },
	{ "transpose_exchange", 2, "conj_grad", "cg_iteration" },
	{ "reduce_dot", 0, "conj_grad", "cg_iteration" },
	{ "reduce_dot", 1, "conj_grad", "cg_iteration" },
	{ "reduce_dot", 2, "conj_grad", "cg_iteration" },
	{ "norm", 0, "cg_iteration", NULL },
};

/* NPB CG: npcols = dims[0], nprows = dims[1], npcols = nprows or 2 nprows. */
static int cg_check(const struct tc_synth_opts *o, struct tc_error *err)
{
	if (o->dims[0] != o->dims[1] && o->dims[0] != 2 * o->dims[1])
		return tc_error_set(err, TC_ERR_USAGE, NULL, -1,
				    "--dims: cg needs AxB with A = B or A = 2B, not %" PRId32 "x%" PRId32,
				    o->dims[0], o->dims[1]);
	return 0;
}

/* The transpose partner of NPB CG's setup_proc_info (exch_proc). */
static int32_t cg_exch(const struct tc_synth_opts *o, int32_t me)
{
	int32_t npcols = o->dims[0], nprows = o->dims[1];

	if (npcols == nprows)
		return (me % nprows) * nprows + me / nprows;
	return 2 * ((me / 2) % nprows * nprows + (me / 2) / nprows) + me % 2;
}

static int log2i(int64_t v)
{
	int l = 0;

	while (((int64_t)1 << l) < v)
		l++;
	return l;
}

static void cg_exchange(struct sg *g, unsigned site, int32_t peer, int32_t tag,
			uint32_t chan, uint64_t base)
{
	int32_t me = sg_rank(g);

	sg_irecv(g, site, peer, tag, sg_count(g, peer, me, chan, base), base, DT_D, WORLD);
	sg_send(g, site + 1, peer, tag, sg_count(g, me, peer, chan, base), base, DT_D, WORLD);
	sg_wait(g, site + 2);
}

static void cg_run(struct sg *g)
{
	const struct tc_synth_opts *o = sg_opts(g);
	int32_t me = sg_rank(g), exch = cg_exch(o, me);
	int l2npcols = log2i(o->dims[0]);
	uint64_t base = base_doubles(g);

	for (int32_t s = 0; s < o->iters && !sg_stopped(g); s++) {
		sg_step(g, s, -1);
		/* sum the partial matrix-vector products across the row */
		for (int i = 0; i < l2npcols; i++)
			cg_exchange(g, CG_RED_IRECV, me ^ (1 << i), TAG_CG_RED + i,
				    (uint32_t)i, base);
		/* swap with the transpose partner; diagonal ranks skip it */
		if (exch != me)
			cg_exchange(g, CG_TR_IRECV, exch, TAG_CG_TR, 100, base);
		sg_compute(g);
		/* dot product reduced across the row */
		for (int i = 0; i < l2npcols; i++)
			cg_exchange(g, CG_DOT_IRECV, me ^ (1 << i), TAG_CG_DOT + i,
				    200u + (uint32_t)i, 1);
		sg_coll(g, CG_NORM, TC_OP_ALLREDUCE, 1, DT_D, TC_RED_SUM, -1, WORLD, 0);
	}
}

static void cg_label(const struct tc_synth_opts *o, int32_t rank, int phase,
		     char *buf, size_t len)
{
	(void)phase;
	snprintf(buf, len, "%s", cg_exch(o, rank) == rank ? "diagonal" : "off-diagonal");
}

static const struct sg_pattern pat_cg = {
	"cg", "NPB-CG-like row reductions, transpose exchange and Allreduce (2^k ranks)",
	2, 1, true, cg_sites, TC_ARRAY_SIZE(cg_sites),
	cg_check, cg_run, cg_label, false, -1,
};

/* ---- ft ------------------------------------------------------------------- */

enum {
	FT_BCAST = 2, FT_SPLIT_ROW, FT_SPLIT_COL, FT_A2A_ROW, FT_A2A_COL, FT_CHECKSUM,
	FT_ROW = 2, FT_COL = 3, /* communicator ids */
};

static const struct sg_site ft_sites[] = {
	SG_COMMON_SITES,
	{ "setup", 1, NULL, NULL },
	{ "setup_comms", 0, "setup", NULL },
	{ "setup_comms", 1, "setup", NULL },
	{ "transpose_x_yz", 0, "fft", "ft_iteration" },
	{ "transpose_xy_z", 0, "fft", "ft_iteration" },
	{ "checksum", 0, "ft_iteration", NULL },
};

/*
 * Rank r = x + A y. Comm_split(world, y, x) gives the row communicator
 * (ranks with the same y), Comm_split(world, x, y) the column one; each
 * iteration transposes with an Alltoall in each and sums a checksum.
 */
static void ft_run(struct sg *g)
{
	const struct tc_synth_opts *o = sg_opts(g);
	int32_t me = sg_rank(g), a = o->dims[0], b = o->dims[1];
	int32_t x = me % a, y = me / a;
	int32_t *members = tc_xmalloc(tc_st_mult((size_t)TC_MAX(a, b), sizeof(*members)));
	uint64_t per_peer = sg_elems(o->msg_bytes, 16);

	sg_coll(g, FT_BCAST, TC_OP_BCAST, 3, TC_DT_INT, TC_RED_NONE, 0, WORLD, 0);
	for (int32_t i = 0; i < a; i++)
		members[i] = y * a + i;
	sg_split(g, FT_SPLIT_ROW, y, x, FT_ROW, members, (uint32_t)a);
	for (int32_t j = 0; j < b; j++)
		members[j] = x + a * j;
	sg_split(g, FT_SPLIT_COL, x, y, FT_COL, members, (uint32_t)b);
	free(members);
	for (int32_t s = 0; s < o->iters && !sg_stopped(g); s++) {
		sg_step(g, s, -1);
		sg_coll(g, FT_A2A_ROW, TC_OP_ALLTOALL, per_peer, TC_DT_DOUBLE_COMPLEX,
			TC_RED_NONE, -1, FT_ROW, per_peer * 16 * (uint64_t)a);
		sg_compute(g);
		sg_coll(g, FT_A2A_COL, TC_OP_ALLTOALL, per_peer, TC_DT_DOUBLE_COMPLEX,
			TC_RED_NONE, -1, FT_COL, per_peer * 16 * (uint64_t)b);
		sg_coll(g, FT_CHECKSUM, TC_OP_ALLREDUCE, 1, TC_DT_DOUBLE_COMPLEX, TC_RED_SUM,
			-1, WORLD, 0);
	}
}

static void all_label(const struct tc_synth_opts *o, int32_t rank, int phase,
		      char *buf, size_t len)
{
	(void)o;
	(void)rank;
	(void)phase;
	snprintf(buf, len, "all");
}

static const struct sg_pattern pat_ft = {
	"ft", "NPB-FT-like Comm_split into rows and columns, Alltoall in each, Allreduce",
	2, 1, false, ft_sites, TC_ARRAY_SIZE(ft_sites),
	NULL, ft_run, all_label, false, -1,
};

/* ---- mg ------------------------------------------------------------------- */

enum {
	MG_IRECV_L = 2, MG_IRECV_R, MG_ISEND_L, MG_ISEND_R, MG_WAIT,
	MG_RESTRICT_SEND, MG_RESTRICT_RECV, MG_PROLONG_SEND, MG_PROLONG_RECV,
	MG_NORM,
	TAG_MG_HALO = 300, TAG_MG_RESTRICT = 400, TAG_MG_PROLONG = 500,
};

static const struct sg_site mg_sites[] = {
	SG_COMMON_SITES,
	{ "comm3_exchange", 0, "comm3", "mg3P" },
	{ "comm3_exchange", 1, "comm3", "mg3P" },
	{ "comm3_exchange", 2, "comm3", "mg3P" },
	{ "comm3_exchange", 3, "comm3", "mg3P" },
	{ "comm3", 0, "mg3P", NULL },
	{ "rprj3", 0, "mg3P", NULL },
	{ "rprj3", 1, "mg3P", NULL },
	{ "interp", 0, "mg3P", NULL },
	{ "interp", 1, "mg3P", NULL },
	{ "norm2u3", 0, "mg_iteration", NULL },
};

/* Levels 0 (finest, every rank) to L - 1 (only rank 0). */
static int mg_levels(int32_t p)
{
	return 1 + log2i(p);
}

static bool mg_active(int32_t r, int l)
{
	return (r & ((1 << l) - 1)) == 0;
}

static uint64_t mg_count(const struct sg *g, int l)
{
	uint64_t b = base_doubles(g) >> l;

	return b ? b : 1;
}

/* Halo exchange at level l with the active neighbours at distance 2^l. */
static void mg_halo(struct sg *g, int l)
{
	int32_t me = sg_rank(g), p = sg_size(g), d = 1 << l;
	int32_t left = me - d, right = me + d < p ? me + d : -1;
	uint64_t base = mg_count(g, l);
	uint32_t cr = 4u * (uint32_t)l, cl = cr + 1; /* channels: rightwards, leftwards */

	if (!mg_active(me, l))
		return;
	if (left >= 0)
		sg_irecv(g, MG_IRECV_L, left, TAG_MG_HALO + 2 * l, sg_count(g, left, me, cr, base),
			 base, DT_D, WORLD);
	if (right >= 0)
		sg_irecv(g, MG_IRECV_R, right, TAG_MG_HALO + 2 * l + 1,
			 sg_count(g, right, me, cl, base), base, DT_D, WORLD);
	if (left >= 0)
		sg_isend(g, MG_ISEND_L, left, TAG_MG_HALO + 2 * l + 1,
			 sg_count(g, me, left, cl, base), base, DT_D, WORLD);
	if (right >= 0)
		sg_isend(g, MG_ISEND_R, right, TAG_MG_HALO + 2 * l,
			 sg_count(g, me, right, cr, base), base, DT_D, WORLD);
	sg_waitall(g, MG_WAIT);
}

/*
 * Restriction from level l to l + 1: a rank active at l but not at l + 1
 * sends its coarse data to r - 2^l; prolongation is the reverse.
 */
static void mg_transfer(struct sg *g, int l, bool restrict_)
{
	int32_t me = sg_rank(g), p = sg_size(g), d = 1 << l;
	uint64_t base = mg_count(g, l + 1);
	uint32_t chan = 4u * (uint32_t)l + (restrict_ ? 2 : 3);
	int32_t tag = (restrict_ ? TAG_MG_RESTRICT : TAG_MG_PROLONG) + l;

	if (!mg_active(me, l))
		return;
	if (!mg_active(me, l + 1)) {
		int32_t up = me - d;
		if (restrict_)
			sg_send(g, MG_RESTRICT_SEND, up, tag, sg_count(g, me, up, chan, base),
				base, DT_D, WORLD);
		else
			sg_recv(g, MG_PROLONG_RECV, up, up, tag, sg_count(g, up, me, chan, base),
				base, DT_D, WORLD);
	} else if (me + d < p) {
		int32_t down = me + d;
		if (restrict_)
			sg_recv(g, MG_RESTRICT_RECV, down, down, tag,
				sg_count(g, down, me, chan, base), base, DT_D, WORLD);
		else
			sg_send(g, MG_PROLONG_SEND, down, tag, sg_count(g, me, down, chan, base),
				base, DT_D, WORLD);
	}
}

static void mg_run(struct sg *g)
{
	const struct tc_synth_opts *o = sg_opts(g);
	int nl = mg_levels(o->ranks);

	for (int32_t s = 0; s < o->iters && !sg_stopped(g); s++) {
		sg_step(g, s, -1);
		for (int l = 0; l < nl - 1; l++) {
			mg_halo(g, l);
			mg_transfer(g, l, true);
		}
		mg_halo(g, nl - 1);
		sg_compute(g);
		for (int l = nl - 2; l >= 0; l--) {
			mg_transfer(g, l, false);
			mg_halo(g, l);
		}
		sg_coll(g, MG_NORM, TC_OP_ALLREDUCE, 1, DT_D, TC_RED_SUM, -1, WORLD, 0);
	}
}

/*
 * Role: rank 0 is active on every level ("root"); another rank is active
 * up to level t = ctz(r) ("top-l<t>"), and lacks its right neighbour from
 * level m on when r + 2^m >= P ("-edge-l<m>").
 */
static void mg_label(const struct tc_synth_opts *o, int32_t rank, int phase,
		     char *buf, size_t len)
{
	int t = 0, m = 0;

	(void)phase;
	if (rank == 0) {
		snprintf(buf, len, "root");
		return;
	}
	while (!(rank & (1 << t)))
		t++;
	while (m <= t && rank + (1 << m) < o->ranks)
		m++;
	if (m > t)
		snprintf(buf, len, "top-l%d", t);
	else
		snprintf(buf, len, "top-l%d-edge-l%d", t, m);
}

static const struct sg_pattern pat_mg = {
	"mg", "NPB-MG-like V-cycle: coarse levels on fewer ranks, halo, restriction, prolongation",
	1, 1, false, mg_sites, TC_ARRAY_SIZE(mg_sites),
	NULL, mg_run, mg_label, false, -1,
};

/* ---- is ------------------------------------------------------------------- */

enum {
	IS_BUCKETS = 2, IS_COUNTS, IS_KEYS, IS_IRECV, IS_SEND, IS_WAIT, IS_VERIFY,
	TAG_IS_KEY = 1000, IS_NBUCKETS = 1024,
};

static const struct sg_site is_sites[] = {
	SG_COMMON_SITES,
	{ "rank_keys", 0, "is_iteration", NULL },
	{ "rank_keys", 1, "is_iteration", NULL },
	{ "rank_keys", 2, "is_iteration", NULL },
	{ "exchange_boundary", 0, "is_iteration", NULL },
	{ "exchange_boundary", 1, "is_iteration", NULL },
	{ "exchange_boundary", 2, "is_iteration", NULL },
	{ "full_verify", 0, NULL, NULL },
};

/*
 * Each iteration: Allreduce of the bucket sizes, Alltoall of the send
 * counts, Alltoallv of the keys (msg_bytes of keys per rank, spread over
 * all ranks), then the largest key goes to the next rank: rank 0 receives
 * nothing, the last rank sends nothing. A rooted Reduce verifies at the
 * end.
 */
static void is_run(struct sg *g)
{
	const struct tc_synth_opts *o = sg_opts(g);
	int32_t me = sg_rank(g), p = sg_size(g);
	uint64_t per_peer = sg_elems(o->msg_bytes, 4) / (uint64_t)p;
	uint64_t *sc = tc_xcalloc((size_t)p, sizeof(*sc));
	uint64_t *rc = tc_xcalloc((size_t)p, sizeof(*rc));

	if (!per_peer)
		per_peer = 1;
	for (int32_t s = 0; s < o->iters && !sg_stopped(g); s++) {
		sg_step(g, s, -1);
		sg_coll(g, IS_BUCKETS, TC_OP_ALLREDUCE, IS_NBUCKETS, TC_DT_INT, TC_RED_SUM, -1,
			WORLD, 0);
		sg_coll(g, IS_COUNTS, TC_OP_ALLTOALL, 1, TC_DT_INT, TC_RED_NONE, -1, WORLD,
			4 * (uint64_t)p);
		if (!sg_keymode(g)) {
			for (int32_t j = 0; j < p; j++) {
				sc[j] = sg_count(g, me, j, 0, per_peer);
				rc[j] = sg_count(g, j, me, 0, per_peer);
			}
		}
		sg_alltoallv(g, IS_KEYS, sc, rc, (uint32_t)p, TC_DT_INT, WORLD,
			     per_peer * (uint64_t)p);
		sg_compute(g);
		if (me > 0)
			sg_irecv(g, IS_IRECV, me - 1, TAG_IS_KEY, 1, 1, TC_DT_INT, WORLD);
		if (me < p - 1)
			sg_send(g, IS_SEND, me + 1, TAG_IS_KEY, 1, 1, TC_DT_INT, WORLD);
		sg_wait(g, IS_WAIT);
	}
	sg_end_steps(g);
	sg_coll(g, IS_VERIFY, TC_OP_REDUCE, 1, TC_DT_INT, TC_RED_SUM, 0, WORLD, 0);
	free(sc);
	free(rc);
}

static void is_label(const struct tc_synth_opts *o, int32_t rank, int phase,
		     char *buf, size_t len)
{
	(void)phase;
	if (o->ranks == 1)
		snprintf(buf, len, "single");
	else
		snprintf(buf, len, "%s", rank == 0 ? "first" :
			 rank == o->ranks - 1 ? "last" : "middle");
}

static const struct sg_pattern pat_is = {
	"is", "NPB-IS-like key exchange: Alltoall, Alltoallv, boundary key to the next rank",
	1, 1, false, is_sites, TC_ARRAY_SIZE(is_sites),
	NULL, is_run, is_label, false, -1,
};

/* ---- master-worker ------------------------------------------------------- */

enum {
	MW_RECV_REQ = 2, MW_SEND_WORK, MW_RECV_LAST, MW_SEND_STOP,
	MW_SEND_REQ, MW_RECV_WORK, MW_RECV_STOP,
	TAG_MW_REQ = 1, TAG_MW_WORK = 2, TAG_MW_STOP = 3,
};

static const struct sg_site mw_sites[] = {
	SG_COMMON_SITES,
	{ "serve", 0, "master", NULL },
	{ "serve", 1, "master", NULL },
	{ "stop_workers", 0, "master", NULL },
	{ "stop_workers", 1, "master", NULL },
	{ "worker", 0, NULL, NULL },
	{ "worker", 1, NULL, NULL },
	{ "worker", 2, NULL, NULL },
};

struct mw_order {
	uint64_t h;
	int32_t w;
};

static int cmp_order(const void *a, const void *b)
{
	const struct mw_order *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return (x->w > y->w) - (x->w < y->w);
}

/* The order in which requests of round k reach the master (any source). */
static void mw_round_order(const struct tc_synth_opts *o, int32_t k, struct mw_order *ord)
{
	uint64_t h0 = tc_hash_mix(tc_hash_fmix(o->seed ^ 0x6d77ULL), (uint64_t)(uint32_t)k);

	for (int32_t w = 1; w < o->ranks; w++) {
		ord[w - 1].h = tc_hash_mix(h0, (uint64_t)w);
		ord[w - 1].w = w;
	}
	qsort(ord, (size_t)(o->ranks - 1), sizeof(*ord), cmp_order);
}

/*
 * Round k: every worker sends a request, the master receives them with
 * MPI_ANY_SOURCE in an order drawn from (seed, k) and answers each with a
 * task; a last round answers with a stop message.
 */
static void mw_run(struct sg *g)
{
	const struct tc_synth_opts *o = sg_opts(g);
	int32_t me = sg_rank(g);
	uint64_t base = base_doubles(g);

	if (me == 0) {
		struct mw_order *ord = tc_xmalloc(tc_st_mult((size_t)o->ranks, sizeof(*ord)));

		for (int32_t k = 0; k <= o->iters && !sg_stopped(g); k++) {
			bool last = k == o->iters;

			if (last)
				sg_end_steps(g);
			else
				sg_step(g, k, -1);
			mw_round_order(o, k, ord);
			for (int32_t i = 0; i < o->ranks - 1; i++) {
				int32_t w = ord[i].w;

				sg_recv(g, last ? MW_RECV_LAST : MW_RECV_REQ, TC_ANY_SOURCE, w,
					TAG_MW_REQ, 1, 1, TC_DT_INT, WORLD);
				if (last)
					sg_send(g, MW_SEND_STOP, w, TAG_MW_STOP, 1, 1, TC_DT_INT,
						WORLD);
				else
					sg_send(g, MW_SEND_WORK, w, TAG_MW_WORK,
						sg_count(g, 0, w, 0, base), base, DT_D, WORLD);
			}
		}
		free(ord);
		return;
	}
	for (int32_t k = 0; k < o->iters && !sg_stopped(g); k++) {
		sg_step(g, k, -1);
		sg_send(g, MW_SEND_REQ, 0, TAG_MW_REQ, 1, 1, TC_DT_INT, WORLD);
		sg_recv(g, MW_RECV_WORK, 0, 0, TAG_MW_WORK, sg_count(g, 0, me, 0, base), base,
			DT_D, WORLD);
	}
	sg_end_steps(g);
	sg_compute(g);
	sg_send(g, MW_SEND_REQ, 0, TAG_MW_REQ, 1, 1, TC_DT_INT, WORLD);
	sg_recv(g, MW_RECV_STOP, 0, 0, TAG_MW_STOP, 1, 1, TC_DT_INT, WORLD);
}

static void mw_label(const struct tc_synth_opts *o, int32_t rank, int phase,
		     char *buf, size_t len)
{
	(void)o;
	(void)phase;
	snprintf(buf, len, "%s", rank == 0 ? "master" : "worker");
}

static const struct sg_pattern pat_mw = {
	"master-worker", "rank 0 hands out tasks to workers that ask (MPI_ANY_SOURCE)",
	1, 2, false, mw_sites, TC_ARRAY_SIZE(mw_sites),
	NULL, mw_run, mw_label, false, -1,
};

/* ---- phases --------------------------------------------------------------- */

enum {
	PH_IRECV_L = 2, PH_IRECV_R, PH_ISEND_L, PH_ISEND_R, PH_HALO_WAIT,
	PH_ALLREDUCE, PH_GATHER_IRECV, PH_GATHER_WAIT, PH_GATHER_SEND, PH_MARKER,
	TAG_PH_HALO = 600, TAG_PH_GATHER = 700,
};

static const struct sg_site phases_sites[] = {
	SG_COMMON_SITES,
	{ "halo_phase", 0, "timestep", NULL },
	{ "halo_phase", 1, "timestep", NULL },
	{ "halo_phase", 2, "timestep", NULL },
	{ "halo_phase", 3, "timestep", NULL },
	{ "halo_phase", 4, "timestep", NULL },
	{ "reduce_phase", 0, "timestep", NULL },
	{ "gather_phase", 0, "timestep", NULL },
	{ "gather_phase", 1, "timestep", NULL },
	{ "gather_phase", 2, "timestep", NULL },
	{ "timestep", 0, NULL, NULL },
};

static void phases_halo(struct sg *g, uint64_t base)
{
	int32_t me = sg_rank(g), p = sg_size(g);
	int32_t left = me - 1, right = me + 1 < p ? me + 1 : -1;

	/* channel 0: rightwards, 1: leftwards */
	if (left >= 0)
		sg_irecv(g, PH_IRECV_L, left, TAG_PH_HALO, sg_count(g, left, me, 0, base), base,
			 DT_D, WORLD);
	if (right >= 0)
		sg_irecv(g, PH_IRECV_R, right, TAG_PH_HALO + 1, sg_count(g, right, me, 1, base),
			 base, DT_D, WORLD);
	if (left >= 0)
		sg_isend(g, PH_ISEND_L, left, TAG_PH_HALO + 1, sg_count(g, me, left, 1, base),
			 base, DT_D, WORLD);
	if (right >= 0)
		sg_isend(g, PH_ISEND_R, right, TAG_PH_HALO, sg_count(g, me, right, 0, base),
			 base, DT_D, WORLD);
	sg_waitall(g, PH_HALO_WAIT);
}

static void phases_gather(struct sg *g, uint64_t base)
{
	int32_t me = sg_rank(g), p = sg_size(g);

	if (me == 0) {
		for (int32_t j = 1; j < p; j++)
			sg_irecv(g, PH_GATHER_IRECV, j, TAG_PH_GATHER, sg_count(g, j, 0, 2, base),
				 base, DT_D, WORLD);
		sg_waitall(g, PH_GATHER_WAIT);
	} else {
		sg_send(g, PH_GATHER_SEND, 0, TAG_PH_GATHER, sg_count(g, me, 0, 2, base), base,
			DT_D, WORLD);
	}
}

/*
 * Phase k (iters timesteps each) does kind k % 3: a 1D halo exchange, only
 * an Allreduce, or a gather to rank 0 by point-to-point messages. Every
 * timestep ends with MPI_Barrier at the one marker call site.
 */
static void phases_run(struct sg *g)
{
	const struct tc_synth_opts *o = sg_opts(g);
	uint64_t base = base_doubles(g);
	int32_t steps = o->phases * o->iters;

	for (int32_t s = 0; s < steps && !sg_stopped(g); s++) {
		int k = s / o->iters;

		sg_step(g, s, k);
		switch (k % 3) {
		case 0:
			phases_halo(g, base);
			break;
		case 1:
			sg_coll(g, PH_ALLREDUCE, TC_OP_ALLREDUCE, 1, DT_D, TC_RED_SUM, -1, WORLD, 0);
			break;
		default:
			phases_gather(g, base);
			break;
		}
		sg_coll(g, PH_MARKER, TC_OP_BARRIER, 0, TC_DT_NONE, TC_RED_NONE, -1, WORLD, 0);
	}
}

static void phases_label(const struct tc_synth_opts *o, int32_t rank, int phase,
			 char *buf, size_t len)
{
	int kind = phase < 0 ? 0 : phase % 3;

	if (kind == 1)
		snprintf(buf, len, "all");
	else if (kind == 2)
		snprintf(buf, len, "%s", rank == 0 ? "root" : "sender");
	else if (o->ranks == 1)
		snprintf(buf, len, "single");
	else
		snprintf(buf, len, "%s", rank == 0 ? "first" :
			 rank == o->ranks - 1 ? "last" : "interior");
}

static const struct sg_pattern pat_phases = {
	"phases", "behaviour changes between phases: halo, Allreduce, gather; Barrier marker",
	1, 1, false, phases_sites, TC_ARRAY_SIZE(phases_sites),
	NULL, phases_run, phases_label, true, PH_MARKER,
};

const struct sg_pattern *const sg_patterns[] = {
	&pat_stencil1d, &pat_stencil2d, &pat_stencil3d, &pat_wavefront, &pat_cg,
	&pat_ft, &pat_mg, &pat_is, &pat_mw, &pat_phases, NULL,
};
