/*
 * tables.c - what the shim remembers about MPI handles: communicators
 * (file-local id, rank translation to world ranks), datatypes and
 * reduction ops (stable numbers of lib/event.h), MPI-IO files, RMA
 * windows, outstanding requests (shim-assigned ids) and messages of
 * matched probes.
 *
 * All tables are open addressing with linear probing over a 64-bit key
 * made from the handle (a pointer in Open MPI, an int in MPICH). Callers
 * hold the capture lock (tc_cap_lock) when the job is multithreaded.
 *
 * Out of memory (tc_cap_malloc) stops recording; a table that cannot grow
 * stays as it was and the handle goes unremembered, a communicator or a
 * window that cannot be learnt is the placeholder `lost` (no members, no
 * neighbours), so that the call being recorded completes harmlessly.
 * The tables are only used while recording, so never when their set-up
 * failed.
 */
#include "lib/compat.h"
#include "lib/capture/internal.h"
#include "lib/hash.h"

#include <stdlib.h>
#include <string.h>

#define KEY(h) handle_key(&(h), sizeof(h))

static inline uint64_t handle_key(const void *h, size_t n)
{
	uint64_t k = 0;

	memcpy(&k, h, n < sizeof(k) ? n : sizeof(k));
	return k;
}

/* ---- a small map from handle keys to 64-bit values --------------------- */

struct kv {
	uint64_t key;
	uint64_t val;
	bool used;
};

struct map {
	struct kv *t;
	size_t mask, used;
};

static bool map_init(struct map *m)
{
	m->mask = 63;
	m->used = 0;
	m->t = tc_cap_calloc(m->mask + 1, sizeof(*m->t));
	return m->t != NULL;
}

static struct kv *map_find(const struct map *m, uint64_t key)
{
	for (size_t j = tc_hash_fmix(key) & m->mask; m->t[j].used; j = (j + 1) & m->mask)
		if (m->t[j].key == key)
			return &m->t[j];
	return NULL;
}

static void map_insert(struct map *m, uint64_t key, uint64_t val)
{
	size_t j;

	for (j = tc_hash_fmix(key) & m->mask; m->t[j].used; j = (j + 1) & m->mask)
		;
	m->t[j].key = key;
	m->t[j].val = val;
	m->t[j].used = true;
	m->used++;
}

/* Map key to val; false (m as it was) when the table cannot grow. */
static bool map_put(struct map *m, uint64_t key, uint64_t val)
{
	struct kv *e = map_find(m, key);

	if (e) {
		e->val = val;
		return true;
	}
	if ((m->used + 1) * 2 > m->mask + 1) {
		struct map n = { tc_cap_calloc((m->mask + 1) * 2, sizeof(struct kv)),
				 m->mask * 2 + 1, 0 };
		if (!n.t)
			return false;
		for (size_t i = 0; i <= m->mask; i++)
			if (m->t[i].used)
				map_insert(&n, m->t[i].key, m->t[i].val);
		free(m->t);
		*m = n;
	}
	map_insert(m, key, val);
	return true;
}

/* Remove with backward shift, so no tombstones are needed. */
static void map_del(struct map *m, uint64_t key)
{
	struct kv *e = map_find(m, key);
	size_t i, j;

	if (!e)
		return;
	i = (size_t)(e - m->t);
	m->t[i].used = false;
	m->used--;
	for (j = (i + 1) & m->mask; m->t[j].used; j = (j + 1) & m->mask) {
		size_t home = tc_hash_fmix(m->t[j].key) & m->mask;
		/* move j into the hole at i if its home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->t[i] = m->t[j];
			m->t[j].used = false;
			i = j;
		}
	}
}

static void map_release(struct map *m)
{
	free(m->t);
	memset(m, 0, sizeof(*m));
}

/* ---- communicators ---------------------------------------------------- */

static struct map comms;          /* handle -> struct tc_comm_info * */
static struct tc_comm_info world, self, null_comm;
/* What a communicator is when it cannot be learnt for want of memory. */
static struct tc_comm_info lost = { .id = UINT32_MAX, .myrank = -1, .degs = true };

/* The communicators the tables do not own. */
static inline bool comm_static(const struct tc_comm_info *ci)
{
	return ci == &world || ci == &self || ci == &null_comm || ci == &lost;
}
static MPI_Group world_group = MPI_GROUP_NULL;
static uint32_t next_comm_id = 2;

/* World ranks of every member of group g (n of them); NULL without memory. */
static int32_t *translate(MPI_Group g, int n)
{
	size_t m = (size_t)(n > 0 ? n : 1);
	int *in = tc_cap_calloc(m, sizeof(int));
	int *out = in ? tc_cap_calloc(m, sizeof(int)) : NULL;
	int32_t *res = out ? tc_cap_calloc(m, sizeof(int32_t)) : NULL;

	if (!res) {
		free(in);
		free(out);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		in[i] = i;
	if (PMPI_Group_translate_ranks(g, n, in, world_group, out) != MPI_SUCCESS)
		for (int i = 0; i < n; i++)
			out[i] = MPI_UNDEFINED;
	for (int i = 0; i < n; i++)
		res[i] = out[i] == MPI_UNDEFINED ? TC_PEER_NONE : out[i];
	free(in);
	free(out);
	return res;
}

static void comm_free(struct tc_comm_info *ci)
{
	if (ci->peers != ci->members)
		free(ci->peers);
	free(ci->members);
	free(ci);
}

/* The record of c with this id; NULL without memory. */
static struct tc_comm_info *comm_make(MPI_Comm c, uint32_t id)
{
	struct tc_comm_info *ci = tc_cap_calloc(1, sizeof(*ci));
	MPI_Group g;
	int inter = 0, n = 0;

	if (!ci)
		return NULL;
	ci->handle = c;
	ci->id = id;
	ci->refs = 1;
	PMPI_Comm_test_inter(c, &inter);
	PMPI_Comm_group(c, &g);
	PMPI_Group_size(g, &n);
	ci->size = n;
	ci->members = translate(g, n);
	PMPI_Group_free(&g);
	ci->myrank = 0;
	PMPI_Comm_rank(c, &ci->myrank);
	if (inter) {
		PMPI_Comm_remote_group(c, &g);
		PMPI_Group_size(g, &n);
		ci->rsize = n;
		ci->peers = translate(g, n);
		PMPI_Group_free(&g);
	} else {
		ci->rsize = ci->size;
		ci->peers = ci->members;
	}
	if (!ci->members || !ci->peers) {
		comm_free(ci);
		return NULL;
	}
	return ci;
}

/* Make and remember the record of c; `lost` without memory. */
static struct tc_comm_info *comm_add(MPI_Comm c)
{
	struct tc_comm_info *ci = comm_make(c, next_comm_id);

	if (!ci)
		return &lost;
	if (!map_put(&comms, KEY(c), (uint64_t)(uintptr_t)ci)) {
		comm_free(ci);
		return &lost;
	}
	next_comm_id++;
	return ci;
}

/*
 * This rank's view of c's graph topology into g (graph, weighted, nin,
 * nout, edges): MPI_Dist_graph_neighbors (MPI_Graph_neighbors, the list
 * both ways). Returns the edge array (the caller frees it), or NULL with
 * g->graph false when c has no graph topology or memory is short.
 */
static int *comm_graph(MPI_Comm c, struct tc_comm *g)
{
	int topo = MPI_UNDEFINED, in = 0, out = 0, weighted = 0, me = 0;
	int *e;

	if (c == MPI_COMM_NULL || PMPI_Topo_test(c, &topo) != MPI_SUCCESS)
		return NULL;
	if (topo == MPI_GRAPH) {
		if (PMPI_Comm_rank(c, &me) != MPI_SUCCESS ||
		    PMPI_Graph_neighbors_count(c, me, &in) != MPI_SUCCESS || in < 0)
			return NULL;
		if (!(e = tc_cap_calloc((size_t)in * 2 + 1, sizeof(*e))))
			return NULL;
		if (PMPI_Graph_neighbors(c, me, in, e) != MPI_SUCCESS) {
			free(e);
			return NULL;
		}
		memcpy(e + in, e, (size_t)in * sizeof(*e));
		out = in;
	} else if (topo == MPI_DIST_GRAPH) {
		size_t n;
		if (PMPI_Dist_graph_neighbors_count(c, &in, &out, &weighted) != MPI_SUCCESS ||
		    in < 0 || out < 0)
			return NULL;
		n = ((size_t)in + (size_t)out) * (weighted ? 2 : 1);
		if (!(e = tc_cap_calloc(n + 1, sizeof(*e))))
			return NULL;
		if (PMPI_Dist_graph_neighbors(c, in, e, weighted ? e + in + out : MPI_UNWEIGHTED,
					      out, e + in,
					      weighted ? e + 2 * in + out : MPI_UNWEIGHTED) !=
		    MPI_SUCCESS) {
			free(e);
			return NULL;
		}
	} else {
		return NULL;
	}
	g->graph = true;
	g->weighted = weighted != 0;
	g->nin = (uint32_t)in;
	g->nout = (uint32_t)out;
	g->edges = (const int32_t *)e;
	return e;
}

static void comm_record(const struct tc_comm_info *ci, uint32_t parent, unsigned creator,
			int ndims, const int *dims, const int *periods)
{
	struct tc_comm c;
	int *edges;

	for (int i = 0; i < ci->size; i++)
		if (ci->members[i] < 0)
			return; /* members outside MPI_COMM_WORLD (spawned) */
	memset(&c, 0, sizeof(c));
	c.id = ci->id;
	c.parent = parent;
	c.creator = creator;
	c.size = (uint32_t)ci->size;
	c.members = ci->members;
	if (ndims > 0 && ndims <= 8) {
		c.ndims = (uint32_t)ndims;
		for (int i = 0; i < ndims; i++) {
			c.dims[i] = dims[i];
			if (periods[i])
				c.periods |= 1u << i;
		}
	}
	edges = comm_graph(ci->handle, &c);
	tc_cap_emit_comm(&c);
	free(edges);
}

struct tc_comm_info *tc_comm_get(MPI_Comm comm)
{
	struct kv *e;
	struct tc_comm_info *ci;

	if (comm == MPI_COMM_WORLD)
		return &world;
	if (comm == MPI_COMM_SELF)
		return &self;
	if (comm == MPI_COMM_NULL)
		return &null_comm;
	e = map_find(&comms, KEY(comm));
	if (e)
		return (struct tc_comm_info *)(uintptr_t)e->val;
	/* created by a call the shim does not wrap: learn it now */
	ci = comm_add(comm);
	if (ci != &lost)
		comm_record(ci, TC_COMM_WORLD, TC_OP_NONE, 0, NULL, NULL);
	return ci;
}

int32_t tc_comm_peer(const struct tc_comm_info *ci, int r)
{
	if (r == MPI_ANY_SOURCE)
		return TC_ANY_SOURCE;
	if (r == MPI_PROC_NULL)
		return TC_PROC_NULL;
	if (!ci->peers)
		return r >= 0 && r < tc_cap.size ? r : TC_PEER_NONE;
	if (r < 0 || r >= ci->rsize)
		return TC_PEER_NONE;
	return ci->peers[r];
}

uint32_t tc_comm_new(MPI_Comm newcomm, uint32_t parent, unsigned op, int ndims,
		     const int *dims, const int *periods)
{
	struct tc_comm_info *ci;
	struct kv *e;

	if (newcomm == MPI_COMM_NULL)
		return UINT32_MAX;
	e = map_find(&comms, KEY(newcomm));
	if (e) { /* a stale entry: the handle was freed behind our back */
		tc_comm_unref((struct tc_comm_info *)(uintptr_t)e->val);
		map_del(&comms, KEY(newcomm));
	}
	ci = comm_add(newcomm);
	if (ci != &lost)
		comm_record(ci, parent, op, ndims, dims, periods);
	return ci->id;
}

uint32_t tc_comm_forget(MPI_Comm comm)
{
	struct kv *e = map_find(&comms, KEY(comm));
	struct tc_comm_info *ci;
	uint32_t id;

	if (!e)
		return tc_comm_get(comm)->id;
	ci = (struct tc_comm_info *)(uintptr_t)e->val;
	id = ci->id;
	map_del(&comms, KEY(comm));
	tc_comm_unref(ci);
	return id;
}

void tc_comm_unref(struct tc_comm_info *ci)
{
	if (!ci || comm_static(ci))
		return;
	if (--ci->refs)
		return;
	comm_free(ci);
}

/* ---- datatypes and reduction ops ---------------------------------------- */

static struct map dtypes;  /* key -> num | size << 32 | predefined << 63 */
static uint32_t next_derived = TC_DT_DERIVED;
static struct map redops;
static uint32_t next_userop = TC_RED_USER;

static void add_dtype(MPI_Datatype dt, uint32_t num)
{
	int size = 0;

	if (dt == MPI_DATATYPE_NULL || map_find(&dtypes, KEY(dt)))
		return;
	if (PMPI_Type_size(dt, &size) != MPI_SUCCESS || size < 0)
		size = 0;
	map_put(&dtypes, KEY(dt), num | (uint64_t)(uint32_t)size << 32 | 1ull << 63);
}

static void init_dtypes(void)
{
	add_dtype(MPI_CHAR, TC_DT_CHAR);
	add_dtype(MPI_SIGNED_CHAR, TC_DT_SIGNED_CHAR);
	add_dtype(MPI_UNSIGNED_CHAR, TC_DT_UNSIGNED_CHAR);
	add_dtype(MPI_BYTE, TC_DT_BYTE);
	add_dtype(MPI_SHORT, TC_DT_SHORT);
	add_dtype(MPI_UNSIGNED_SHORT, TC_DT_UNSIGNED_SHORT);
	add_dtype(MPI_INT, TC_DT_INT);
	add_dtype(MPI_UNSIGNED, TC_DT_UNSIGNED);
	add_dtype(MPI_LONG, TC_DT_LONG);
	add_dtype(MPI_UNSIGNED_LONG, TC_DT_UNSIGNED_LONG);
	add_dtype(MPI_LONG_LONG, TC_DT_LONG_LONG);
	add_dtype(MPI_LONG_LONG_INT, TC_DT_LONG_LONG);
	add_dtype(MPI_UNSIGNED_LONG_LONG, TC_DT_UNSIGNED_LONG_LONG);
	add_dtype(MPI_FLOAT, TC_DT_FLOAT);
	add_dtype(MPI_DOUBLE, TC_DT_DOUBLE);
	add_dtype(MPI_LONG_DOUBLE, TC_DT_LONG_DOUBLE);
	add_dtype(MPI_C_BOOL, TC_DT_C_BOOL);
	add_dtype(MPI_INT8_T, TC_DT_INT8_T);
	add_dtype(MPI_INT16_T, TC_DT_INT16_T);
	add_dtype(MPI_INT32_T, TC_DT_INT32_T);
	add_dtype(MPI_INT64_T, TC_DT_INT64_T);
	add_dtype(MPI_UINT8_T, TC_DT_UINT8_T);
	add_dtype(MPI_UINT16_T, TC_DT_UINT16_T);
	add_dtype(MPI_UINT32_T, TC_DT_UINT32_T);
	add_dtype(MPI_UINT64_T, TC_DT_UINT64_T);
	add_dtype(MPI_C_FLOAT_COMPLEX, TC_DT_C_COMPLEX);
	add_dtype(MPI_C_DOUBLE_COMPLEX, TC_DT_C_DOUBLE_COMPLEX);
	add_dtype(MPI_WCHAR, TC_DT_WCHAR);
	add_dtype(MPI_PACKED, TC_DT_PACKED);
	add_dtype(MPI_AINT, TC_DT_AINT);
	add_dtype(MPI_OFFSET, TC_DT_OFFSET);
	add_dtype(MPI_COUNT, TC_DT_COUNT);
	add_dtype(MPI_FLOAT_INT, TC_DT_FLOAT_INT);
	add_dtype(MPI_DOUBLE_INT, TC_DT_DOUBLE_INT);
	add_dtype(MPI_LONG_INT, TC_DT_LONG_INT);
	add_dtype(MPI_2INT, TC_DT_TWO_INT);
	add_dtype(MPI_SHORT_INT, TC_DT_SHORT_INT);
	add_dtype(MPI_LONG_DOUBLE_INT, TC_DT_LONG_DOUBLE_INT);
	add_dtype(MPI_INTEGER, TC_DT_INTEGER);
	add_dtype(MPI_REAL, TC_DT_REAL);
	add_dtype(MPI_DOUBLE_PRECISION, TC_DT_DOUBLE_PRECISION);
	add_dtype(MPI_COMPLEX, TC_DT_COMPLEX);
	add_dtype(MPI_DOUBLE_COMPLEX, TC_DT_DOUBLE_COMPLEX);
	add_dtype(MPI_LOGICAL, TC_DT_LOGICAL);
	add_dtype(MPI_CHARACTER, TC_DT_CHARACTER);
	add_dtype(MPI_2REAL, TC_DT_TWO_REAL);
	add_dtype(MPI_2DOUBLE_PRECISION, TC_DT_TWO_DOUBLE_PRECISION);
	add_dtype(MPI_2INTEGER, TC_DT_TWO_INTEGER);
}

void tc_dtype(MPI_Datatype dt, uint32_t *num, uint32_t *size)
{
	struct kv *e;
	int sz = 0;

	if (dt == MPI_DATATYPE_NULL) {
		*num = TC_DT_NONE;
		*size = 0;
		return;
	}
	e = map_find(&dtypes, KEY(dt));
	if (e && (e->val >> 63)) {
		*num = (uint32_t)e->val;
		*size = (uint32_t)(e->val >> 32) & 0x7fffffffu;
		return;
	}
	/* derived: the handle may be freed and reused, so ask its size */
	if (!e) {
		map_put(&dtypes, KEY(dt), next_derived);
		*num = next_derived++;
	} else {
		*num = (uint32_t)e->val;
	}
	if (PMPI_Type_size(dt, &sz) != MPI_SUCCESS || sz < 0)
		sz = 0;
	*size = (uint32_t)sz;
}

static void init_redops(void)
{
#define R(o, n) map_put(&redops, handle_key(&(MPI_Op){ o }, sizeof(MPI_Op)), n)
	R(MPI_MAX, TC_RED_MAX);
	R(MPI_MIN, TC_RED_MIN);
	R(MPI_SUM, TC_RED_SUM);
	R(MPI_PROD, TC_RED_PROD);
	R(MPI_LAND, TC_RED_LAND);
	R(MPI_BAND, TC_RED_BAND);
	R(MPI_LOR, TC_RED_LOR);
	R(MPI_BOR, TC_RED_BOR);
	R(MPI_LXOR, TC_RED_LXOR);
	R(MPI_BXOR, TC_RED_BXOR);
	R(MPI_MAXLOC, TC_RED_MAXLOC);
	R(MPI_MINLOC, TC_RED_MINLOC);
	R(MPI_REPLACE, TC_RED_REPLACE);
	R(MPI_NO_OP, TC_RED_NO_OP);
#undef R
}

uint32_t tc_redop(MPI_Op op)
{
	struct kv *e;

	if (op == MPI_OP_NULL)
		return TC_RED_NONE;
	e = map_find(&redops, KEY(op));
	if (e)
		return (uint32_t)e->val;
	map_put(&redops, KEY(op), next_userop);
	return next_userop++;
}

/* ---- MPI-IO files ------------------------------------------------------- */

static struct map files;
static uint32_t next_file;

uint32_t tc_file_new(MPI_File fh)
{
	map_put(&files, KEY(fh), next_file);
	return next_file++;
}

uint32_t tc_file_id(MPI_File fh)
{
	struct kv *e = map_find(&files, KEY(fh));

	return e ? (uint32_t)e->val : tc_file_new(fh);
}

uint32_t tc_file_forget(MPI_File fh)
{
	uint32_t id = tc_file_id(fh);

	map_del(&files, KEY(fh));
	return id;
}

/* ---- requests ----------------------------------------------------------- */

/*
 * Outstanding requests, and messages of matched probes, by handle. A
 * request lives in a direct-mapped line chosen by its handle's bits when
 * that line is free and no other entry has its handle; otherwise in a hash
 * table (open addressing), which also takes every entry of a handle that
 * several outstanding requests share (Open MPI returns one handle for
 * requests completed at once). So an entry found in its line is the only
 * one of its handle, and a handle absent from its line needs the hash
 * only while the hash holds something: a program with a few requests in
 * flight never hashes.
 */
struct req_slot {
	uint64_t key;
	uint32_t stamp;
	bool used;
	struct tc_req_info info;
};

#define REQ_LINES 256

static struct {
	struct req_slot line[REQ_LINES];
	struct req_slot *t;      /* the hash table */
	size_t mask, used;
	uint64_t next_id;
	uint32_t stamp;
} R;

/* The line of a handle: no hashing, the bits that tell handles apart. */
static inline struct req_slot *req_line(uint64_t key)
{
#ifdef MPICH
	/* an int: the object's kind above its index in the handle pool */
	return &R.line[key & (REQ_LINES - 1)];
#else
	/* a pointer to a request object, objects a few hundred bytes apart */
	return &R.line[(key >> 4 ^ key >> 12) & (REQ_LINES - 1)];
#endif
}

/* The entry of key in its line, the only entry of key; else NULL. */
static inline struct req_slot *req_lined(uint64_t key)
{
	struct req_slot *l = req_line(key);

	return l->used && l->key == key ? l : NULL;
}

static inline bool req_is_line(const struct req_slot *s)
{
	return s >= R.line && s < R.line + REQ_LINES;
}

static void req_place(const struct req_slot *s)
{
	size_t j;

	for (j = tc_hash_fmix(s->key) & R.mask; R.t[j].used; j = (j + 1) & R.mask)
		;
	R.t[j] = *s;
	R.t[j].used = true;
	R.used++;
}

/* Put s in the hash; false (the table as it was) when it cannot grow. */
static bool req_hash_insert(const struct req_slot *s)
{
	if ((R.used + 1) * 2 > R.mask + 1) {
		struct req_slot *old = R.t;
		size_t omask = R.mask;
		struct req_slot *t = tc_cap_calloc((R.mask + 1) * 2, sizeof(*R.t));

		if (!t)
			return false;
		R.t = t;
		R.mask = R.mask * 2 + 1;
		R.used = 0;
		for (size_t i = 0; i <= omask; i++)
			if (old[i].used)
				req_place(&old[i]);
		free(old);
	}
	req_place(s);
	return true;
}

static bool req_hash_has(uint64_t key)
{
	for (size_t j = tc_hash_fmix(key) & R.mask; R.t[j].used; j = (j + 1) & R.mask)
		if (R.t[j].key == key)
			return true;
	return false;
}

/* Where a new entry of key goes if not to the hash: its line, else NULL. */
static inline struct req_slot *req_free_line(uint64_t key)
{
	struct req_slot *l = req_line(key);

	return !l->used && (!R.used || !req_hash_has(key)) ? l : NULL;
}

/* Remember s, whose line is taken; false (the tables as they were)
 * without memory. */
static bool req_insert(const struct req_slot *s)
{
	struct req_slot *l = req_line(s->key);

	if (l->used && l->key == s->key) {
		/* a second entry of the handle: both go to the hash */
		if (!req_hash_insert(l))
			return false;
		l->used = false;
	}
	return req_hash_insert(s);
}

/* The entry (key, id), or NULL. */
static struct req_slot *req_find_key(uint64_t key, uint64_t id)
{
	struct req_slot *l = req_lined(key);

	if (l)
		return l->info.id == id ? l : NULL;
	for (size_t j = tc_hash_fmix(key) & R.mask; R.used && R.t[j].used; j = (j + 1) & R.mask)
		if (R.t[j].key == key && R.t[j].info.id == id)
			return &R.t[j];
	return NULL;
}

static void req_remove(struct req_slot *s)
{
	size_t i, j;

	tc_comm_unref(s->info.comm);
	if (req_is_line(s)) {
		s->used = false;
		return;
	}
	i = (size_t)(s - R.t);
	R.t[i].used = false;
	R.used--;
	for (j = (i + 1) & R.mask; R.t[j].used; j = (j + 1) & R.mask) {
		size_t home = tc_hash_fmix(R.t[j].key) & R.mask;
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			R.t[i] = R.t[j];
			R.t[j].used = false;
			i = j;
		}
	}
}

static void req_fill(struct req_slot *s, uint64_t key, uint64_t id, unsigned op,
		     enum tc_req_kind kind, bool persistent, struct tc_comm_info *ci,
		     const struct tc_event *ev)
{
	memset(s, 0, sizeof(*s));
	s->used = true;
	s->key = key;
	s->info.id = id;
	s->info.kind = (uint8_t)kind;
	s->info.persistent = persistent;
	s->info.op = op;
	s->info.comm = ci;
	if (ci && !comm_static(ci))
		ci->refs++;
	s->info.comm_id = ev->fields & TC_F_COMM ? ev->comm : 0;
	s->info.peer = ev->fields & TC_F_PEER ? ev->peer : TC_PEER_NONE;
	s->info.tag = ev->fields & TC_F_TAG ? ev->tag : TC_ANY_TAG;
	if (ev->fields & TC_F_DTYPE) {
		s->info.count = ev->count;
		s->info.dtype = ev->dtype;
		s->info.dtype_size = ev->dtype_size;
	}
}

uint64_t tc_req_new(MPI_Request h, unsigned op, enum tc_req_kind kind, bool persistent,
		    struct tc_comm_info *ci, const struct tc_event *ev)
{
	return tc_req_new_id(h, ++R.next_id, op, kind, persistent, ci, ev);
}

uint64_t tc_req_new_id(MPI_Request h, uint64_t id, unsigned op, enum tc_req_kind kind,
		       bool persistent, struct tc_comm_info *ci, const struct tc_event *ev)
{
	uint64_t key = KEY(h);
	struct req_slot s, *l;

	if (h != MPI_REQUEST_NULL && (l = req_free_line(key))) {
		req_fill(l, key, id, op, kind, persistent, ci, ev);
		return id;
	}
	req_fill(&s, key, id, op, kind, persistent, ci, ev);
	if (h == MPI_REQUEST_NULL || !req_insert(&s))
		tc_comm_unref(ci);
	return id;
}

uint32_t tc_req_stamp(void)
{
	if (++R.stamp == 0)
		R.stamp = 1;
	return R.stamp;
}

bool tc_req_peek(MPI_Request h, uint32_t stamp, struct tc_req_info *out)
{
	uint64_t key = KEY(h);
	struct req_slot *best = req_lined(key);

	if (best) {
		if (best->stamp == stamp)
			return false;
	} else {
		for (size_t j = tc_hash_fmix(key) & R.mask; R.used && R.t[j].used;
		     j = (j + 1) & R.mask) {
			struct req_slot *s = &R.t[j];
			if (s->key == key && s->stamp != stamp &&
			    (!best || s->info.id < best->info.id))
				best = s;
		}
		if (!best)
			return false;
	}
	best->stamp = stamp;
	*out = best->info;
	return true;
}

void tc_req_done(MPI_Request h, uint64_t id)
{
	struct req_slot *s = req_find_key(KEY(h), id);

	if (!s)
		return;
	if (s->info.persistent)
		s->info.active = 0;
	else
		req_remove(s);
}

void tc_req_start(MPI_Request h, uint64_t id)
{
	struct req_slot *s = req_find_key(KEY(h), id);

	if (s)
		s->info.active = 1;
}

void tc_req_forget(MPI_Request h, uint64_t id)
{
	struct req_slot *s = req_find_key(KEY(h), id);

	if (s)
		req_remove(s);
}

/* ---- matched-probe messages --------------------------------------------- */

/*
 * A message taken by Mprobe/Improbe lives in the request tables under its
 * own handle (message and request handles never compare equal: they are
 * pointers to different objects in Open MPI, and MPICH handles carry their
 * kind) with op TC_OP_MPROBE or TC_OP_IMPROBE and its received bytes in
 * count (dtype_size 1), until Mrecv/Imrecv takes it.
 */
uint64_t tc_msg_new(MPI_Message m, unsigned op, struct tc_comm_info *ci,
		    const struct tc_event *ev)
{
	uint64_t key = KEY(m);
	struct req_slot s, *l;

	if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
		return ++R.next_id;
	l = req_free_line(key);
	req_fill(l ? l : &s, key, ++R.next_id, op, TC_REQ_OTHER, false, ci, ev);
	if (!l && !req_insert(&s))
		tc_comm_unref(ci);
	return R.next_id;
}

static inline bool is_msg(const struct req_slot *s)
{
	return s->info.op == TC_OP_MPROBE || s->info.op == TC_OP_IMPROBE;
}

bool tc_msg_peek(MPI_Message m, struct tc_req_info *out)
{
	uint64_t key = KEY(m);
	struct req_slot *l = req_lined(key);

	if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
		return false;
	if (l && is_msg(l)) {
		*out = l->info;
		return true;
	}
	for (size_t j = tc_hash_fmix(key) & R.mask; !l && R.used && R.t[j].used;
	     j = (j + 1) & R.mask) {
		struct req_slot *s = &R.t[j];
		if (s->key == key && is_msg(s)) {
			*out = s->info;
			return true;
		}
	}
	return false;
}

void tc_msg_done(MPI_Message m, uint64_t id)
{
	struct req_slot *s = req_find_key(KEY(m), id);

	if (s)
		req_remove(s);
}

/* ---- RMA windows -------------------------------------------------------- */

static struct map wins;           /* handle -> struct tc_win_info * */
static uint32_t next_win;
/* What a window is when it cannot be learnt for want of memory. */
static const struct tc_win_info lost_win = { .id = UINT32_MAX, .comm_id = UINT32_MAX };

static void win_free(struct tc_win_info *wi)
{
	if (wi) {
		free(wi->peers);
		free(wi);
	}
}

static const struct tc_win_info *win_make(MPI_Win w, uint32_t comm_id)
{
	struct tc_win_info *wi = tc_cap_calloc(1, sizeof(*wi));
	MPI_Group g;
	int n = 0;

	if (!wi)
		return &lost_win;
	wi->comm_id = comm_id;
	if (PMPI_Win_get_group(w, &g) == MPI_SUCCESS) {
		PMPI_Group_size(g, &n);
		wi->peers = translate(g, n);
		wi->size = n;
		PMPI_Group_free(&g);
		if (!wi->peers) {
			win_free(wi);
			return &lost_win;
		}
	}
	if (!map_put(&wins, KEY(w), (uint64_t)(uintptr_t)wi)) {
		win_free(wi);
		return &lost_win;
	}
	wi->id = next_win++;
	return wi;
}

const struct tc_win_info *tc_win_new(MPI_Win w, uint32_t comm_id)
{
	struct kv *e = map_find(&wins, KEY(w));

	if (e) { /* a stale entry: the handle was freed behind our back */
		win_free((struct tc_win_info *)(uintptr_t)e->val);
		map_del(&wins, KEY(w));
	}
	return win_make(w, comm_id);
}

const struct tc_win_info *tc_win_get(MPI_Win w)
{
	struct kv *e = map_find(&wins, KEY(w));

	/* created by a call the shim did not record: learn it now */
	return e ? (const struct tc_win_info *)(uintptr_t)e->val : win_make(w, UINT32_MAX);
}

int32_t tc_win_peer(const struct tc_win_info *wi, int r)
{
	if (r == MPI_PROC_NULL)
		return TC_PROC_NULL;
	if (r < 0 || r >= wi->size)
		return TC_PEER_NONE;
	return wi->peers[r];
}

void tc_win_forget(MPI_Win w)
{
	struct kv *e = map_find(&wins, KEY(w));

	if (!e)
		return;
	win_free((struct tc_win_info *)(uintptr_t)e->val);
	map_del(&wins, KEY(w));
}

/* ---- set-up ------------------------------------------------------------- */

void tc_tables_init(void)
{
	PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
	world.handle = MPI_COMM_WORLD;
	world.id = TC_COMM_WORLD;
	world.refs = 1;
	world.size = world.rsize = tc_cap.size;
	world.myrank = tc_cap.rank;
	self.handle = MPI_COMM_SELF;
	self.id = TC_COMM_SELF;
	self.refs = 1;
	self.size = self.rsize = 1;
	self.myrank = 0;
	self.members = self.peers = tc_cap_malloc(sizeof(int32_t));
	if (!self.members)
		return;
	self.members[0] = tc_cap.rank;
	null_comm.handle = MPI_COMM_NULL;
	null_comm.id = UINT32_MAX;
	null_comm.size = null_comm.rsize = 0;
	null_comm.myrank = -1;
	null_comm.members = null_comm.peers = self.members; /* never indexed: rsize 0 */
	if (!map_init(&comms) || !map_init(&files) || !map_init(&wins) || !map_init(&dtypes) ||
	    !map_init(&redops))
		return;
	init_dtypes();
	init_redops();
	R.mask = 255;
	R.t = tc_cap_calloc(R.mask + 1, sizeof(*R.t));
}

void tc_tables_release(void)
{
	for (size_t i = 0; comms.t && i <= comms.mask; i++)
		if (comms.t[i].used)
			tc_comm_unref((struct tc_comm_info *)(uintptr_t)comms.t[i].val);
	for (size_t i = 0; R.t && i <= R.mask; i++)
		if (R.t[i].used)
			tc_comm_unref(R.t[i].info.comm);
	for (size_t i = 0; i < REQ_LINES; i++)
		if (R.line[i].used)
			tc_comm_unref(R.line[i].info.comm);
	map_release(&comms);
	for (size_t i = 0; wins.t && i <= wins.mask; i++)
		if (wins.t[i].used)
			win_free((struct tc_win_info *)(uintptr_t)wins.t[i].val);
	map_release(&files);
	map_release(&wins);
	map_release(&dtypes);
	map_release(&redops);
	free(R.t);
	memset(&R, 0, sizeof(R));
	free(self.members);
	self.members = self.peers = NULL;
}
