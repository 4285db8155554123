/*
 * otf2_write.c - export as an OTF2 archive through the OTF2 library
 * (formats/otf2.md).
 *
 * DIR/traces.otf2 with one location ("Master thread" of "MPI Rank r") per
 * rank. Each MPI call becomes ENTER and LEAVE of a region named after the
 * op, with the MPI records of the call in between: MPI_SEND/MPI_ISEND at
 * the start of a send, MPI_IRECV_REQUEST at the start of a nonblocking
 * receive, MPI_RECV at the end of a blocking one, MPI_ISEND_COMPLETE and
 * MPI_IRECV at the end of the wait or test that completed the request,
 * MPI_COLLECTIVE_BEGIN/END around a collective. Communicators with the
 * same members on every rank become one OTF2 communicator. The
 * definitions are written last, when every rank is known. The archive is
 * written into a temporary directory beside DIR and renamed into place.
 */
#include "lib/compat.h"
#include "formats/export_internal.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/xalloc.h"

#include <otf2/otf2.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct w_comm {                  /* one OTF2 communicator (ids 2 and up) */
	uint64_t hash;
	uint32_t size;
	int32_t *members;
};

struct w_req {                   /* a pending nonblocking receive */
	uint64_t id;
	uint32_t comm;           /* OTF2 communicator */
};

struct w_region {
	uint32_t op;             /* TC_OP_NONE for a call site */
	uint64_t sig;
	char *name;              /* call site: its name */
};

struct o2w {
	OTF2_Archive *archive;
	OTF2_EvtWriter *ew;
	char *tmpdir;
	char creator[128];
	/* strings */
	char **strings;
	size_t nstrings, astrings;
	/* regions: one per op used (op_region: id + 1; 0 none yet), one per
	 * call site (site_key/site_region: by signature) */
	uint32_t op_region[TC_OP_MAX];
	struct w_region *regions;
	size_t nregions, aregions;
	uint64_t *site_key;
	uint32_t *site_region;
	size_t nsites, sitecap;
	struct w_comm *comms;
	size_t ncomms, acomms;
	uint64_t *nevents;       /* per rank */
	uint64_t t_last, t_max;
	struct w_req *reqs;      /* of the current rank */
	size_t nreqs, areqs;
	bool failed;
};

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void *cd,
				bool final)
{
	(void)u; (void)ft; (void)loc; (void)cd; (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)u; (void)ft; (void)loc;
	return 0;
}

static OTF2_FlushCallbacks flush_cb = { pre_flush, post_flush };

static uint32_t w_string(struct o2w *w, const char *s)
{
	for (size_t i = 0; i < w->nstrings; i++)
		if (!strcmp(w->strings[i], s))
			return (uint32_t)i;
	TC_ALLOC_GROW(w->strings, w->nstrings + 1, w->astrings);
	w->strings[w->nstrings] = tc_xstrdup(s);
	return (uint32_t)w->nstrings++;
}

static uint32_t new_region(struct o2w *w, uint32_t op, uint64_t sig, const char *name)
{
	TC_ALLOC_GROW(w->regions, w->nregions + 1, w->aregions);
	w->regions[w->nregions].op = op;
	w->regions[w->nregions].sig = sig;
	w->regions[w->nregions].name = name ? tc_xstrdup(name) : NULL;
	return (uint32_t)w->nregions++;
}

static uint32_t w_region(struct o2w *w, unsigned op)
{
	if (op >= TC_OP_MAX)
		op = TC_OP_NONE;
	if (!w->op_region[op])
		w->op_region[op] = new_region(w, op, 0, NULL) + 1;
	return w->op_region[op] - 1;
}

/* The region standing for a call site: "SYMBOL @SIG", or "callsite SIG". */
static uint32_t w_site_region(struct o2w *w, const struct tc_export_site *s)
{
	uint64_t key = s->signature ? s->signature : 1;
	char name[320];
	size_t i;

	if ((w->nsites + 1) * 2 > w->sitecap) {
		uint64_t *ok = w->site_key;
		uint32_t *orr = w->site_region;
		size_t oc = w->sitecap;
		w->sitecap = oc ? oc * 2 : 64;
		w->site_key = tc_xcalloc(w->sitecap, sizeof(*w->site_key));
		w->site_region = tc_xcalloc(w->sitecap, sizeof(*w->site_region));
		for (size_t k = 0; k < oc; k++) {
			if (!ok[k])
				continue;
			for (i = tc_hash_fmix(ok[k]) & (w->sitecap - 1); w->site_key[i];
			     i = (i + 1) & (w->sitecap - 1))
				;
			w->site_key[i] = ok[k];
			w->site_region[i] = orr[k];
		}
		free(ok);
		free(orr);
	}
	for (i = tc_hash_fmix(key) & (w->sitecap - 1); w->site_key[i]; i = (i + 1) & (w->sitecap - 1))
		if (w->site_key[i] == key)
			return w->site_region[i];
	if (s->name)
		snprintf(name, sizeof(name), "%.256s @%016" PRIx64, s->name, s->signature);
	else
		snprintf(name, sizeof(name), "callsite %016" PRIx64, s->signature);
	w->site_key[i] = key;
	w->site_region[i] = new_region(w, TC_OP_NONE, s->signature, name);
	w->nsites++;
	return w->site_region[i];
}

static int o2w_fail(struct tc_export *x, struct tc_error *err, const char *what,
		    OTF2_ErrorCode e)
{
	struct o2w *w = x->impl;
	w->failed = true;
	return tc_error_set(err, TC_ERR_IO, x->path, -1, "cannot write OTF2 archive (%s: %s)",
			    what, OTF2_Error_GetDescription(e));
}

/* The OTF2 communicator of the rank's communicator `id`. */
static uint32_t w_comm(struct tc_export *x, uint32_t id)
{
	struct o2w *w = x->impl;
	const struct tc_export_comm *c;
	uint64_t h;

	if (id == TC_COMM_SELF)
		return 1;
	c = id == TC_COMM_WORLD ? NULL : tc_export_find_comm(x, id);
	if (!c)
		return 0;
	h = tc_hash64(c->members, (size_t)c->size * sizeof(*c->members), c->size);
	for (size_t i = 0; i < w->ncomms; i++)
		if (w->comms[i].hash == h && w->comms[i].size == c->size &&
		    !memcmp(w->comms[i].members, c->members, c->size * sizeof(*c->members)))
			return (uint32_t)i + 2;
	TC_ALLOC_GROW(w->comms, w->ncomms + 1, w->acomms);
	w->comms[w->ncomms].hash = h;
	w->comms[w->ncomms].size = c->size;
	w->comms[w->ncomms].members = tc_xmalloc(tc_st_mult(c->size ? c->size : 1,
							    sizeof(*c->members)));
	memcpy(w->comms[w->ncomms].members, c->members, c->size * sizeof(*c->members));
	return (uint32_t)w->ncomms++ + 2;
}

/* Communicator and peer rank in it for world rank peer (the world
 * communicator when the rank's communicator is not known). */
static void w_peer(struct tc_export *x, uint32_t comm, int32_t peer, uint32_t *ocomm,
		   uint32_t *orank)
{
	int32_t r = tc_export_comm_rank(x, comm, peer);

	if (r < 0) {
		*ocomm = 0;
		*orank = peer >= 0 ? (uint32_t)peer : OTF2_UNDEFINED_UINT32;
		return;
	}
	*ocomm = w_comm(x, comm);
	*orank = (uint32_t)r;
}

static int o2w_rank_begin(struct tc_export *x, struct tc_error *err)
{
	struct o2w *w = x->impl;

	w->nreqs = 0;
	w->t_last = 0;
	w->ew = OTF2_Archive_GetEvtWriter(w->archive, (OTF2_LocationRef)x->rank);
	if (!w->ew)
		return o2w_fail(x, err, "event writer", OTF2_ERROR_INVALID);
	return 0;
}

static uint64_t clamp_t(struct o2w *w, uint64_t t)
{
	if (t < w->t_last)
		t = w->t_last;
	w->t_last = t;
	if (t > w->t_max)
		w->t_max = t;
	return t;
}

static OTF2_CollectiveOp coll_op(unsigned op)
{
	switch (tc_op_base(op)) {
	case TC_OP_BARRIER: case TC_OP_IBARRIER: return OTF2_COLLECTIVE_OP_BARRIER;
	case TC_OP_BCAST: case TC_OP_IBCAST: return OTF2_COLLECTIVE_OP_BCAST;
	case TC_OP_GATHER: case TC_OP_IGATHER: return OTF2_COLLECTIVE_OP_GATHER;
	case TC_OP_GATHERV: case TC_OP_IGATHERV: return OTF2_COLLECTIVE_OP_GATHERV;
	case TC_OP_SCATTER: case TC_OP_ISCATTER: return OTF2_COLLECTIVE_OP_SCATTER;
	case TC_OP_SCATTERV: case TC_OP_ISCATTERV: return OTF2_COLLECTIVE_OP_SCATTERV;
	case TC_OP_ALLGATHER: case TC_OP_IALLGATHER: return OTF2_COLLECTIVE_OP_ALLGATHER;
	case TC_OP_ALLGATHERV: case TC_OP_IALLGATHERV: return OTF2_COLLECTIVE_OP_ALLGATHERV;
	case TC_OP_ALLTOALL: case TC_OP_IALLTOALL: return OTF2_COLLECTIVE_OP_ALLTOALL;
	case TC_OP_ALLTOALLV: case TC_OP_IALLTOALLV: return OTF2_COLLECTIVE_OP_ALLTOALLV;
	case TC_OP_ALLTOALLW: case TC_OP_IALLTOALLW: return OTF2_COLLECTIVE_OP_ALLTOALLW;
	case TC_OP_ALLREDUCE: case TC_OP_IALLREDUCE: return OTF2_COLLECTIVE_OP_ALLREDUCE;
	case TC_OP_REDUCE: case TC_OP_IREDUCE: return OTF2_COLLECTIVE_OP_REDUCE;
	case TC_OP_REDUCE_SCATTER: case TC_OP_IREDUCE_SCATTER:
		return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
	case TC_OP_REDUCE_SCATTER_BLOCK: case TC_OP_IREDUCE_SCATTER_BLOCK:
		return OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
	case TC_OP_SCAN: case TC_OP_ISCAN: return OTF2_COLLECTIVE_OP_SCAN;
	case TC_OP_EXSCAN: case TC_OP_IEXSCAN: return OTF2_COLLECTIVE_OP_EXSCAN;
	default: return OTF2_COLLECTIVE_OP_BARRIER;
	}
}

static void req_add(struct o2w *w, uint64_t id, uint32_t comm)
{
	for (size_t i = 0; i < w->nreqs; i++) {
		if (w->reqs[i].id == id) {
			w->reqs[i].comm = comm;
			return;
		}
	}
	TC_ALLOC_GROW(w->reqs, w->nreqs + 1, w->areqs);
	w->reqs[w->nreqs].id = id;
	w->reqs[w->nreqs].comm = comm;
	w->nreqs++;
}

/* The communicator the receive `id` was posted on (and forget it). */
static bool req_take(struct o2w *w, uint64_t id, uint32_t *comm)
{
	for (size_t i = w->nreqs; i-- > 0;) {
		if (w->reqs[i].id == id) {
			*comm = w->reqs[i].comm;
			w->reqs[i] = w->reqs[--w->nreqs];
			return true;
		}
	}
	return false;
}

#define CHECK(call, what)                                                    \
	do {                                                                 \
		OTF2_ErrorCode e_ = (call);                                  \
		if (e_ != OTF2_SUCCESS)                                      \
			return o2w_fail(x, err, what, e_);                   \
		n++;                                                         \
	} while (0)

static int o2w_event(struct tc_export *x, const struct tc_event *ev, struct tc_error *err)
{
	struct o2w *w = x->impl;
	OTF2_EvtWriter *ew = w->ew;
	enum tc_op_kind kind = tc_op_kind(ev->op);
	unsigned flags = tc_op_flags(ev->op);
	uint64_t t0 = clamp_t(w, ev->t_start), t1;
	uint64_t bytes = tc_event_bytes(ev);
	uint32_t comm, peer, tag = ev->tag >= 0 ? (uint32_t)ev->tag : 0;
	uint32_t region = w_region(w, ev->op), site_region = 0;
	const struct tc_export_site *site = tc_export_find_site(x, ev->callsite);
	uint64_t n = 0;

	if (site) {
		site_region = w_site_region(w, site);
		CHECK(OTF2_EvtWriter_Enter(ew, NULL, t0, site_region), "enter");
	}
	CHECK(OTF2_EvtWriter_Enter(ew, NULL, t0, region), "enter");
	if ((kind == TC_K_SEND || kind == TC_K_SENDRECV) && (ev->fields & TC_F_PEER) &&
	    ev->peer >= 0) {
		w_peer(x, ev->comm, ev->peer, &comm, &peer);
		if (flags & TC_OPF_NB)
			CHECK(OTF2_EvtWriter_MpiIsend(ew, NULL, t0, peer, comm, tag, bytes,
						      ev->request), "isend");
		else
			CHECK(OTF2_EvtWriter_MpiSend(ew, NULL, t0, peer, comm, tag, bytes), "send");
	} else if (kind == TC_K_RECV && (flags & TC_OPF_NB)) {
		req_add(w, ev->request, ev->comm);
		CHECK(OTF2_EvtWriter_MpiIrecvRequest(ew, NULL, t0, ev->request), "irecv request");
	} else if (kind == TC_K_COLL) {
		CHECK(OTF2_EvtWriter_MpiCollectiveBegin(ew, NULL, t0), "collective begin");
	}
	t1 = clamp_t(w, ev->t_end);
	if (kind == TC_K_RECV && !(flags & TC_OPF_NB)) {
		int32_t src = ev->ncompl && ev->compl[0].source >= 0 ? ev->compl[0].source : ev->peer;
		int32_t rtag = ev->ncompl ? ev->compl[0].tag : ev->tag;
		uint64_t rb = ev->ncompl && ev->compl[0].bytes ? ev->compl[0].bytes : bytes;
		w_peer(x, ev->comm, src, &comm, &peer);
		CHECK(OTF2_EvtWriter_MpiRecv(ew, NULL, t1, peer, comm,
					     rtag >= 0 ? (uint32_t)rtag : 0, rb), "recv");
	} else if (kind == TC_K_SENDRECV) {
		int32_t src = ev->ncompl && ev->compl[0].source >= 0 ? ev->compl[0].source :
			      (ev->fields & TC_F_RPEER) ? ev->rpeer : ev->peer;
		int32_t rtag = (ev->fields & TC_F_RPEER) ? ev->rtag : ev->tag;
		w_peer(x, ev->comm, src, &comm, &peer);
		CHECK(OTF2_EvtWriter_MpiRecv(ew, NULL, t1, peer, comm,
					     rtag >= 0 ? (uint32_t)rtag : 0,
					     ev->ncompl ? ev->compl[0].bytes : bytes), "recv");
	} else if (kind == TC_K_COLL) {
		uint32_t root = OTF2_UNDEFINED_UINT32;
		if (ev->fields & TC_F_ROOT) {
			int32_t r = tc_export_comm_rank(x, ev->comm, ev->root);
			root = r >= 0 ? (uint32_t)r : OTF2_UNDEFINED_UINT32;
		}
		comm = tc_export_comm_rank(x, ev->comm, x->rank) >= 0 ? w_comm(x, ev->comm) : 0;
		CHECK(OTF2_EvtWriter_MpiCollectiveEnd(ew, NULL, t1, coll_op(ev->op), comm, root,
						      bytes, bytes), "collective end");
	} else if (kind == TC_K_WAIT) {
		for (uint32_t i = 0; i < ev->ncompl; i++) {
			const struct tc_completion *c = &ev->compl[i];
			uint32_t rcomm;
			if (!c->request)
				continue;
			if (c->source < 0 || !req_take(w, c->request, &rcomm)) {
				CHECK(OTF2_EvtWriter_MpiIsendComplete(ew, NULL, t1, c->request),
				      "isend complete");
				continue;
			}
			w_peer(x, rcomm, c->source, &comm, &peer);
			CHECK(OTF2_EvtWriter_MpiIrecv(ew, NULL, t1, peer, comm,
						      c->tag >= 0 ? (uint32_t)c->tag : 0,
						      c->bytes, c->request), "irecv");
		}
	}
	CHECK(OTF2_EvtWriter_Leave(ew, NULL, t1, region), "leave");
	if (site)
		CHECK(OTF2_EvtWriter_Leave(ew, NULL, t1, site_region), "leave");
	w->nevents[x->rank] += n;
	return 0;
}

static int o2w_rank_end(struct tc_export *x, struct tc_error *err)
{
	struct o2w *w = x->impl;
	OTF2_ErrorCode e = OTF2_Archive_CloseEvtWriter(w->archive, w->ew);

	w->ew = NULL;
	if (e != OTF2_SUCCESS)
		return o2w_fail(x, err, "close event writer", e);
	return 0;
}

static OTF2_RegionRole region_role(unsigned op)
{
	unsigned f = tc_op_flags(op);

	op = tc_op_base(op);
	switch (tc_op_kind(op)) {
	case TC_K_SEND: case TC_K_RECV: case TC_K_SENDRECV: case TC_K_PROBE:
	case TC_K_PERSIST: case TC_K_START: case TC_K_WAIT:
		return OTF2_REGION_ROLE_POINT2POINT;
	case TC_K_COLL:
		if (op == TC_OP_BARRIER || op == TC_OP_IBARRIER)
			return OTF2_REGION_ROLE_BARRIER;
		if (op == TC_OP_BCAST || op == TC_OP_IBCAST || op == TC_OP_SCATTER ||
		    op == TC_OP_SCATTERV || op == TC_OP_ISCATTER || op == TC_OP_ISCATTERV)
			return OTF2_REGION_ROLE_COLL_ONE2ALL;
		if (f & TC_OPF_ROOT)
			return OTF2_REGION_ROLE_COLL_ALL2ONE;
		return OTF2_REGION_ROLE_COLL_ALL2ALL;
	case TC_K_IO:
		return OTF2_REGION_ROLE_FILE_IO;
	default:
		return OTF2_REGION_ROLE_FUNCTION;
	}
}

#define GCHECK(call, what)                                                   \
	do {                                                                 \
		OTF2_ErrorCode e_ = (call);                                  \
		if (e_ != OTF2_SUCCESS)                                      \
			return o2w_fail(x, err, what, e_);                   \
	} while (0)

static int write_defs(struct tc_export *x, struct tc_error *err)
{
	struct o2w *w = x->impl;
	OTF2_GlobalDefWriter *g;
	uint64_t *members;
	uint32_t s_empty, s_thread, s_world, s_self, s_mpi, s_node, s_machine, s_file;
	uint32_t *s_region, *s_rank;
	char buf[64];
	uint32_t P = (uint32_t)x->world;

	/* definition files of each location (empty: the ids are global) */
	GCHECK(OTF2_Archive_OpenDefFiles(w->archive), "open definition files");
	for (uint32_t r = 0; r < P; r++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->archive, r);
		if (!dw)
			return o2w_fail(x, err, "definition writer", OTF2_ERROR_INVALID);
		GCHECK(OTF2_Archive_CloseDefWriter(w->archive, dw), "close definition writer");
	}
	GCHECK(OTF2_Archive_CloseDefFiles(w->archive), "close definition files");

	g = OTF2_Archive_GetGlobalDefWriter(w->archive);
	if (!g)
		return o2w_fail(x, err, "global definition writer", OTF2_ERROR_INVALID);
	s_empty = w_string(w, "");
	s_thread = w_string(w, "Master thread");
	s_world = w_string(w, "MPI_COMM_WORLD");
	s_self = w_string(w, "MPI_COMM_SELF");
	s_mpi = w_string(w, "MPI");
	s_node = w_string(w, "node");
	s_machine = w_string(w, "tracecluster");
	s_file = w_string(w, "MPI");
	s_region = tc_xcalloc(w->nregions + 1, sizeof(*s_region));
	for (uint32_t i = 0; i < w->nregions; i++) {
		const struct w_region *rg = &w->regions[i];
		const char *name = rg->op ? tc_op_name(rg->op) : rg->name;
		s_region[i] = w_string(w, name ? name : "MPI_unknown");
	}
	s_rank = tc_xmalloc(tc_st_mult(P, sizeof(*s_rank)));
	for (uint32_t r = 0; r < P; r++) {
		snprintf(buf, sizeof(buf), "MPI Rank %u", r);
		s_rank[r] = w_string(w, buf);
	}
	for (size_t i = 2; i < w->ncomms + 2; i++) {
		snprintf(buf, sizeof(buf), "Comm %zu", i);
		w_string(w, buf);
	}
	members = tc_xmalloc(tc_st_mult(P, sizeof(*members)));
#define G(call, what)                                                        \
	do {                                                                 \
		OTF2_ErrorCode e_ = (call);                                  \
		if (e_ != OTF2_SUCCESS) {                                    \
			free(members); free(s_region); free(s_rank);         \
			return o2w_fail(x, err, what, e_);                   \
		}                                                            \
	} while (0)
	G(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, w->t_max + 1,
						    OTF2_UNDEFINED_TIMESTAMP), "clock");
	for (size_t i = 0; i < w->nstrings; i++)
		G(OTF2_GlobalDefWriter_WriteString(g, (uint32_t)i, w->strings[i]), "string");
	G(OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, s_mpi,
					     OTF2_PARADIGM_CLASS_PROCESS), "paradigm");
	for (uint32_t i = 0; i < w->nregions; i++) {
		bool site = !w->regions[i].op;
		G(OTF2_GlobalDefWriter_WriteRegion(g, i, s_region[i], s_region[i], s_empty,
						   site ? OTF2_REGION_ROLE_CODE :
						   region_role(w->regions[i].op),
						   site ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI,
						   OTF2_REGION_FLAG_NONE, site ? s_empty : s_file, 0, 0),
		  "region");
	}
	G(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_machine, s_node,
						   OTF2_UNDEFINED_SYSTEM_TREE_NODE), "system tree");
	for (uint32_t r = 0; r < P; r++)
		G(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, s_rank[r],
							  OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
							  OTF2_UNDEFINED_LOCATION_GROUP),
		  "location group");
	for (uint32_t r = 0; r < P; r++)
		G(OTF2_GlobalDefWriter_WriteLocation(g, r, s_thread, OTF2_LOCATION_TYPE_CPU_THREAD,
						     w->nevents[r], r), "location");
	for (uint32_t r = 0; r < P; r++)
		members[r] = r;
	/* group 0: the location of each world rank; 1: world; 2: self */
	G(OTF2_GlobalDefWriter_WriteGroup(g, 0, s_empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
					  OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, P, members),
	  "group");
	G(OTF2_GlobalDefWriter_WriteGroup(g, 1, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
					  OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, P, members),
	  "group");
	G(OTF2_GlobalDefWriter_WriteGroup(g, 2, s_empty, OTF2_GROUP_TYPE_COMM_SELF,
					  OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL), "group");
	for (size_t i = 0; i < w->ncomms; i++) {
		const struct w_comm *c = &w->comms[i];
		uint64_t *m = tc_xmalloc(tc_st_mult(c->size ? c->size : 1, sizeof(*m)));
		OTF2_ErrorCode e;
		for (uint32_t k = 0; k < c->size; k++)
			m[k] = c->members[k] >= 0 ? (uint64_t)c->members[k] : 0;
		e = OTF2_GlobalDefWriter_WriteGroup(g, (uint32_t)i + 3, s_empty,
						    OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
						    OTF2_GROUP_FLAG_NONE, c->size, m);
		free(m);
		G(e, "group");
	}
	G(OTF2_GlobalDefWriter_WriteComm(g, 0, s_world, 1, OTF2_UNDEFINED_COMM,
					 OTF2_COMM_FLAG_NONE), "comm");
	G(OTF2_GlobalDefWriter_WriteComm(g, 1, s_self, 2, OTF2_UNDEFINED_COMM,
					 OTF2_COMM_FLAG_NONE), "comm");
	for (size_t i = 0; i < w->ncomms; i++) {
		snprintf(buf, sizeof(buf), "Comm %zu", i + 2);
		G(OTF2_GlobalDefWriter_WriteComm(g, (uint32_t)i + 2, w_string(w, buf), (uint32_t)i + 3,
						 0, OTF2_COMM_FLAG_NONE), "comm");
	}
#undef G
	free(members);
	free(s_region);
	free(s_rank);
	return 0;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st; (void)flag; (void)f;
	remove(p);
	return 0;
}

static void o2w_free(struct o2w *w)
{
	for (size_t i = 0; i < w->nstrings; i++)
		free(w->strings[i]);
	for (size_t i = 0; i < w->ncomms; i++)
		free(w->comms[i].members);
	for (size_t i = 0; i < w->nregions; i++)
		free(w->regions[i].name);
	free(w->regions);
	free(w->site_key);
	free(w->site_region);
	free(w->strings);
	free(w->comms);
	free(w->nevents);
	free(w->reqs);
	free(w->tmpdir);
	free(w);
}

static void o2w_abort(struct tc_export *x)
{
	struct o2w *w = x->impl;

	if (w->archive)
		OTF2_Archive_Close(w->archive);
	if (w->tmpdir)
		nftw(w->tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	o2w_free(w);
}

static int o2w_close(struct tc_export *x, struct tc_error *err)
{
	struct o2w *w = x->impl;
	OTF2_ErrorCode e;
	int rc;

	if (w->failed) {
		o2w_abort(x);
		return tc_error_set(err, TC_ERR_IO, x->path, -1, "OTF2 archive not written");
	}
	e = OTF2_Archive_CloseEvtFiles(w->archive);
	if (e != OTF2_SUCCESS) {
		rc = o2w_fail(x, err, "close event files", e);
		o2w_abort(x);
		return rc;
	}
	if ((rc = write_defs(x, err))) {
		o2w_abort(x);
		return rc;
	}
	e = OTF2_Archive_Close(w->archive);
	w->archive = NULL;
	if (e != OTF2_SUCCESS) {
		rc = o2w_fail(x, err, "close", e);
		o2w_abort(x);
		return rc;
	}
	if (rename(w->tmpdir, x->path) < 0) {
		rc = errno == ENOTEMPTY || errno == EEXIST || errno == ENOTDIR ?
		     tc_error_set(err, TC_ERR_IO, x->path, -1,
				  "exists and is not an empty directory") :
		     tc_error_sys(err, x->path, "rename into");
		o2w_abort(x);
		return rc;
	}
	o2w_free(w);
	return 0;
}

static const struct tc_export_vtab o2w_vtab = {
	o2w_rank_begin, o2w_event, o2w_rank_end, o2w_close, o2w_abort,
};

static OTF2_ErrorCode quiet_error(void *data, const char *file, uint64_t line,
				  const char *func, OTF2_ErrorCode code, const char *msg,
				  va_list va)
{
	(void)data; (void)file; (void)line; (void)func; (void)msg; (void)va;
	return code;
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

int tc_export_otf2_open(struct tc_export *x, const char *creator, struct tc_error *err)
{
	struct o2w *w;
	struct stat st;
	size_t len = strlen(x->path) + 16;
	OTF2_ErrorCode e;

	if (stat(x->path, &st) == 0 && (!S_ISDIR(st.st_mode) || !dir_empty(x->path)))
		return tc_error_set(err, TC_ERR_IO, x->path, -1,
				    "exists and is not an empty directory");
	OTF2_Error_RegisterCallback(quiet_error, NULL);
	w = tc_xcalloc(1, sizeof(*w));
	x->impl = w;
	x->vt = &o2w_vtab;
	snprintf(w->creator, sizeof(w->creator), "%s", creator ? creator : "tracecluster");
	w->nevents = tc_xcalloc((size_t)x->world, sizeof(*w->nevents));
	w->tmpdir = tc_xmalloc(len);
	snprintf(w->tmpdir, len, "%s.tmp.XXXXXX", x->path);
	if (!mkdtemp(w->tmpdir)) {
		int rc = tc_error_sys(err, w->tmpdir, "create directory");
		free(w->tmpdir);
		w->tmpdir = NULL;
		o2w_free(w);
		return rc;
	}
	w->archive = OTF2_Archive_Open(w->tmpdir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
				       OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!w->archive) {
		o2w_abort(x);
		return tc_error_set(err, TC_ERR_IO, x->path, -1, "cannot create OTF2 archive");
	}
	if ((e = OTF2_Archive_SetFlushCallbacks(w->archive, &flush_cb, NULL)) != OTF2_SUCCESS ||
	    (e = OTF2_Archive_SetSerialCollectiveCallbacks(w->archive)) != OTF2_SUCCESS ||
	    (e = OTF2_Archive_SetCreator(w->archive, w->creator)) != OTF2_SUCCESS ||
	    (e = OTF2_Archive_OpenEvtFiles(w->archive)) != OTF2_SUCCESS) {
		int rc = o2w_fail(x, err, "open", e);
		o2w_abort(x);
		return rc;
	}
	return 0;
}
