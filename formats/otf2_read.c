/*
 * otf2_read.c - OTF2 archives (Score-P traces) through the OTF2 library,
 * behind struct tc_reader (formats/otf2.md).
 *
 * An archive is an anchor file (traces.otf2), global definitions
 * (traces.def) and one event file per location (traces/N.evt). Each MPI
 * rank is one rank stream of the anchor file: the global definitions are
 * parsed once per process (a small cache keyed by the anchor's identity)
 * and reading rank r replays the events of that rank's location.
 *
 * Mapping: ENTER/LEAVE of an MPI region give the op and the call's time
 * span; the MPI records seen in between (MPI_SEND, MPI_ISEND,
 * MPI_ISEND_COMPLETE, MPI_IRECV_REQUEST, MPI_IRECV, MPI_RECV,
 * MPI_COLLECTIVE_END) give the peer, tag, bytes, communicator, root and
 * the request linkage. The enclosing non-MPI regions stand in for the
 * call site: their names (outermost last) are the frames of a stack
 * signature. Everything else is skipped.
 */
#include "lib/compat.h"
#include "formats/foreign.h"
#include "formats/reader.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/xalloc.h"

#include <otf2/otf2.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define O2_MAX_ID (1u << 24)       /* definition ids above this are corruption */
#define O2_MAX_STACK 64            /* region nesting kept for call sites */
#define O2_MAX_COMPL 4096          /* completions kept per call */
#define O2_CACHE 4
#define O2_MAX_QUEUE (1u << 16)    /* events held back for pending receives */

/* ---- global definitions --------------------------------------------------- */

struct o2_region {
	uint32_t name;      /* string id */
	uint32_t op;        /* enum tc_op, 0 when not an MPI call we know */
	bool mpi;           /* an MPI region (op known or not) */
	uint64_t hash;      /* of the name, the frame of a call site */
};

struct o2_group {
	uint8_t type;
	uint8_t paradigm;
	uint32_t n;
	uint64_t *members;
};

struct o2_comm {
	uint32_t name;
	uint32_t group;
	uint32_t parent;
	bool defined;
};

struct o2_location {
	uint64_t nevents;   /* records, as the definitions say */
	uint32_t group;     /* location group */
	uint8_t type;
	bool defined;
};

struct o2_lgroup {
	uint32_t name;
	uint32_t parent;    /* system tree node */
	uint8_t type;
	bool defined;
};

struct o2_defs {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int refs;
	bool cached;

	uint64_t ticks, offset, realtime;
	char creator[64];
	char **strings;
	size_t nstrings;
	struct o2_region *regions;
	size_t nregions;
	struct o2_group *groups;
	size_t ngroups;
	struct o2_comm *comms;
	size_t ncomms;
	struct o2_location *locs;
	size_t nlocs;
	struct o2_lgroup *lgroups;
	size_t nlgroups;
	uint32_t *stnodes;       /* name of each system tree node */
	size_t nstnodes;
	/* rank r is location rank_loc[r] */
	uint64_t *rank_loc;
	int32_t world;
	uint32_t comm_world;     /* OTF2 comm id of MPI_COMM_WORLD, or UINT32_MAX */
	bool bad;                /* an id past the caps */
};

static pthread_mutex_t o2_lock = PTHREAD_MUTEX_INITIALIZER;
static struct o2_defs *o2_cache[O2_CACHE];
static pthread_once_t o2_once = PTHREAD_ONCE_INIT;

/* The library prints its errors unless told otherwise: we report them. */
static OTF2_ErrorCode quiet_error(void *data, const char *file, uint64_t line,
				  const char *func, OTF2_ErrorCode code, const char *msg,
				  va_list va)
{
	(void)data; (void)file; (void)line; (void)func; (void)msg; (void)va;
	return code;
}

static void o2_init(void)
{
	OTF2_Error_RegisterCallback(quiet_error, NULL);
}

/* Grow an id-indexed array so that id fits; false past the cap. */
#define O2_SLOT(d, arr, n, id)                                               \
	((id) < O2_MAX_ID ? (o2_grow((void **)&(d)->arr, &(d)->n, (id), sizeof(*(d)->arr)), true) \
	 : ((d)->bad = true, false))

static void o2_grow(void **arr, size_t *n, uint64_t id, size_t elem)
{
	size_t want = (size_t)id + 1, cap = *n;

	if (want <= cap)
		return;
	while (cap < want)
		cap = cap ? cap * 2 : 64;
	*arr = tc_xrealloc(*arr, tc_st_mult(cap, elem));
	memset((char *)*arr + *n * elem, 0, (cap - *n) * elem);
	*n = cap;
}

static const char *o2_str(const struct o2_defs *d, uint64_t id)
{
	if (id < d->nstrings && d->strings[id])
		return d->strings[id];
	return "";
}

static OTF2_CallbackCode def_clock(void *u, uint64_t res, uint64_t off, uint64_t len,
				   uint64_t rt)
{
	struct o2_defs *d = u;
	(void)len;
	d->ticks = res;
	d->offset = off;
	d->realtime = rt;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
	struct o2_defs *d = u;

	if (!O2_SLOT(d, strings, nstrings, self))
		return OTF2_CALLBACK_INTERRUPT;
	free(d->strings[self]);
	d->strings[self] = tc_xstrdup(s ? s : "");
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
				    OTF2_StringRef canon, OTF2_StringRef descr,
				    OTF2_RegionRole role, OTF2_Paradigm paradigm,
				    OTF2_RegionFlag flags, OTF2_StringRef file,
				    uint32_t begin, uint32_t end)
{
	struct o2_defs *d = u;
	struct o2_region *r;
	const char *s;

	(void)descr; (void)role; (void)flags; (void)file; (void)begin; (void)end;
	if (!O2_SLOT(d, regions, nregions, self))
		return OTF2_CALLBACK_INTERRUPT;
	r = &d->regions[self];
	r->name = name;
	s = o2_str(d, canon != OTF2_UNDEFINED_STRING ? canon : name);
	if (!*s)
		s = o2_str(d, name);
	r->mpi = paradigm == OTF2_PARADIGM_MPI || !strncmp(s, "MPI_", 4);
	r->op = r->mpi ? tc_op_from_name(s) : 0;
	r->hash = tc_hash64(o2_str(d, name), strlen(o2_str(d, name)), 0x6f746632);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_stnode(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
				    OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
	struct o2_defs *d = u;
	(void)cls; (void)parent;
	if (!O2_SLOT(d, stnodes, nstnodes, self))
		return OTF2_CALLBACK_INTERRUPT;
	d->stnodes[self] = name;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_lgroup(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
				    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
				    OTF2_LocationGroupRef creator)
{
	struct o2_defs *d = u;
	(void)creator;
	if (!O2_SLOT(d, lgroups, nlgroups, self))
		return OTF2_CALLBACK_INTERRUPT;
	d->lgroups[self].name = name;
	d->lgroups[self].parent = parent;
	d->lgroups[self].type = type;
	d->lgroups[self].defined = true;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
				      OTF2_LocationType type, uint64_t nev,
				      OTF2_LocationGroupRef group)
{
	struct o2_defs *d = u;
	(void)name;
	if (!O2_SLOT(d, locs, nlocs, self))
		return OTF2_CALLBACK_INTERRUPT;
	d->locs[self].nevents = nev;
	d->locs[self].group = group;
	d->locs[self].type = type;
	d->locs[self].defined = true;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name,
				   OTF2_GroupType type, OTF2_Paradigm paradigm,
				   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
	struct o2_defs *d = u;
	struct o2_group *g;
	(void)name; (void)flags;
	if (!O2_SLOT(d, groups, ngroups, self) || n > O2_MAX_ID) {
		d->bad = true;
		return OTF2_CALLBACK_INTERRUPT;
	}
	g = &d->groups[self];
	free(g->members);
	g->type = type;
	g->paradigm = paradigm;
	g->n = n;
	g->members = n ? tc_xmalloc(tc_st_mult(n, sizeof(*members))) : NULL;
	if (n)
		memcpy(g->members, members, n * sizeof(*members));
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
				  OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
	struct o2_defs *d = u;
	(void)flags;
	if (!O2_SLOT(d, comms, ncomms, self))
		return OTF2_CALLBACK_INTERRUPT;
	d->comms[self].name = name;
	d->comms[self].group = group;
	d->comms[self].parent = parent;
	d->comms[self].defined = true;
	return OTF2_CALLBACK_SUCCESS;
}

static void defs_free(struct o2_defs *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nstrings; i++)
		free(d->strings[i]);
	for (size_t i = 0; i < d->ngroups; i++)
		free(d->groups[i].members);
	free(d->strings);
	free(d->regions);
	free(d->groups);
	free(d->comms);
	free(d->locs);
	free(d->lgroups);
	free(d->stnodes);
	free(d->rank_loc);
	free(d->path);
	free(d);
}

/* The MPI group of a communicator, or NULL. */
static const struct o2_group *comm_group(const struct o2_defs *d, uint32_t comm)
{
	if (comm >= d->ncomms || !d->comms[comm].defined || d->comms[comm].group >= d->ngroups)
		return NULL;
	return &d->groups[d->comms[comm].group];
}

/*
 * Ranks: the MPI group of type COMM_LOCATIONS lists the location of each
 * world rank. Without one, every PROCESS location group is a rank, in
 * id order, read on its first location.
 */
static int find_ranks(struct o2_defs *d, const char *path, struct tc_error *err)
{
	const struct o2_group *loc_group = NULL;

	for (size_t i = 0; i < d->ngroups; i++) {
		const struct o2_group *g = &d->groups[i];
		if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g->paradigm == OTF2_PARADIGM_MPI &&
		    g->n) {
			loc_group = g;
			break;
		}
	}
	if (loc_group) {
		d->world = (int32_t)loc_group->n;
		d->rank_loc = tc_xmalloc(tc_st_mult(loc_group->n, sizeof(*d->rank_loc)));
		memcpy(d->rank_loc, loc_group->members, loc_group->n * sizeof(*d->rank_loc));
	} else {
		size_t n = 0, alloc = 0;
		for (size_t g = 0; g < d->nlgroups; g++) {
			if (!d->lgroups[g].defined || d->lgroups[g].type != OTF2_LOCATION_GROUP_TYPE_PROCESS)
				continue;
			for (size_t l = 0; l < d->nlocs; l++) {
				if (d->locs[l].defined && d->locs[l].group == g) {
					TC_ALLOC_GROW(d->rank_loc, n + 1, alloc);
					d->rank_loc[n++] = l;
					break;
				}
			}
		}
		d->world = (int32_t)n;
	}
	if (d->world <= 0)
		return tc_error_set(err, TC_ERR_FORMAT, path, -1, "OTF2 archive holds no MPI rank");
	if (d->world > TC_ST_MAX_WORLD)
		return tc_error_set(err, TC_ERR_FORMAT, path, -1, "OTF2 archive: %d ranks",
				    d->world);
	d->comm_world = UINT32_MAX;
	for (size_t c = 0; c < d->ncomms; c++) {
		const struct o2_group *g = comm_group(d, (uint32_t)c);
		if (g && g->paradigm == OTF2_PARADIGM_MPI && g->type == OTF2_GROUP_TYPE_COMM_GROUP &&
		    g->n == (uint32_t)d->world && d->comms[c].parent == OTF2_UNDEFINED_COMM) {
			d->comm_world = (uint32_t)c;
			if (!strcmp(o2_str(d, d->comms[c].name), "MPI_COMM_WORLD"))
				break;
		}
	}
	return 0;
}

static int o2_fail(struct tc_error *err, const char *path, const char *what, OTF2_ErrorCode rc)
{
	return tc_error_set(err, TC_ERR_FORMAT, path, -1, "not a readable OTF2 archive (%s: %s)",
			    what, OTF2_Error_GetDescription(rc));
}

static int parse_defs(const char *path, struct o2_defs **out, struct tc_error *err)
{
	struct o2_defs *d = tc_xcalloc(1, sizeof(*d));
	OTF2_Reader *rd = NULL;
	OTF2_GlobalDefReader *gdr;
	OTF2_GlobalDefReaderCallbacks *cb = NULL;
	OTF2_ErrorCode e;
	uint64_t n = 0;
	char *creator = NULL;
	int rc = 0;

	rd = OTF2_Reader_Open(path);
	if (!rd) {
		rc = tc_error_set(err, TC_ERR_FORMAT, path, -1, "not a readable OTF2 archive");
		goto out;
	}
	if ((e = OTF2_Reader_SetSerialCollectiveCallbacks(rd)) != OTF2_SUCCESS) {
		rc = o2_fail(err, path, "collectives", e);
		goto out;
	}
	if (OTF2_Reader_GetCreator(rd, &creator) == OTF2_SUCCESS && creator) {
		snprintf(d->creator, sizeof(d->creator), "%s", creator);
		free(creator);
	}
	gdr = OTF2_Reader_GetGlobalDefReader(rd);
	if (!gdr) {
		rc = tc_error_set(err, TC_ERR_FORMAT, path, -1,
				  "OTF2 archive without global definitions");
		goto out;
	}
	cb = OTF2_GlobalDefReaderCallbacks_New();
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
	OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, def_stnode);
	OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, def_lgroup);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
	OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
	OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
	OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, cb, d);
	e = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
	if (d->bad) {
		rc = tc_error_set(err, TC_ERR_FORMAT, path, -1,
				  "OTF2 definitions: an id or size past %u", O2_MAX_ID);
		goto out;
	}
	if (e != OTF2_SUCCESS) {
		rc = o2_fail(err, path, "global definitions", e);
		goto out;
	}
	if (!d->ticks)
		d->ticks = 1000000000;
	rc = find_ranks(d, path, err);
out:
	if (cb)
		OTF2_GlobalDefReaderCallbacks_Delete(cb);
	if (rd)
		OTF2_Reader_Close(rd);
	if (rc) {
		defs_free(d);
		d = NULL;
	}
	*out = d;
	return rc;
}

/* Parsed definitions for path, from the cache when the anchor is unchanged. */
static int defs_get(const char *path, struct o2_defs **out, struct tc_error *err)
{
	struct stat st;
	struct o2_defs *d = NULL;
	int rc = 0, i, free_slot = -1;

	*out = NULL;
	pthread_once(&o2_once, o2_init);
	if (stat(path, &st) < 0)
		return tc_error_sys(err, path, "open");
	if (S_ISDIR(st.st_mode))
		return tc_error_set(err, TC_ERR_FORMAT, path, -1, "is a directory");
	pthread_mutex_lock(&o2_lock);
	for (i = 0; i < O2_CACHE; i++) {
		struct o2_defs *c = o2_cache[i];
		if (!c) {
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (!strcmp(c->path, path) && c->dev == st.st_dev && c->ino == st.st_ino &&
		    c->size == st.st_size && c->mtime.tv_sec == st.st_mtim.tv_sec &&
		    c->mtime.tv_nsec == st.st_mtim.tv_nsec) {
			c->refs++;
			*out = c;
			goto out;
		}
	}
	rc = parse_defs(path, &d, err);
	if (rc)
		goto out;
	d->path = tc_xstrdup(path);
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	d->size = st.st_size;
	d->mtime = st.st_mtim;
	d->refs = 1;
	if (free_slot < 0) {
		for (i = 0; i < O2_CACHE; i++) {
			if (!o2_cache[i]->refs) {
				defs_free(o2_cache[i]);
				o2_cache[i] = NULL;
				free_slot = i;
				break;
			}
		}
	}
	if (free_slot >= 0) {
		d->cached = true;
		o2_cache[free_slot] = d;
	}
	*out = d;
out:
	pthread_mutex_unlock(&o2_lock);
	return rc;
}

static void defs_put(struct o2_defs *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&o2_lock);
	if (--d->refs == 0 && !d->cached)
		defs_free(d);
	pthread_mutex_unlock(&o2_lock);
}

/* ---- probing -------------------------------------------------------------- */

bool tc_otf2_probe(const void *buf, size_t len)
{
	const uint8_t *b = buf;
	/* the anchor file starts with a small header tag and "OTF2" */
	return len >= 6 && b[0] < 16 && !memcmp(b + 2, "OTF2", 4);
}

int tc_otf2_world(const char *path, int32_t *world, struct tc_error *err)
{
	struct o2_defs *d;
	int rc = defs_get(path, &d, err);

	if (rc)
		return rc;
	*world = d->world;
	defs_put(d);
	return 0;
}

static uint64_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

uint64_t tc_otf2_stream_bytes(const char *path, uint32_t rank)
{
	struct o2_defs *d;
	size_t len = strlen(path);
	char *buf;
	uint64_t own = 0, shared;

	if (defs_get(path, &d, NULL))
		return 0;
	buf = tc_xmalloc(len + 48);
	if (len > 5 && !strcmp(path + len - 5, ".otf2"))
		len -= 5;
	snprintf(buf, len + 48, "%.*s.def", (int)len, path);
	shared = file_size(path) + file_size(buf);
	if (rank < (uint32_t)d->world) {
		snprintf(buf, len + 48, "%.*s/%" PRIu64 ".evt", (int)len, path, d->rank_loc[rank]);
		own = file_size(buf);
		snprintf(buf, len + 48, "%.*s/%" PRIu64 ".def", (int)len, path, d->rank_loc[rank]);
		own += file_size(buf);
		own += shared / (uint64_t)d->world + (rank == 0 ? shared % (uint64_t)d->world : 0);
	}
	free(buf);
	defs_put(d);
	return own;
}

/* ---- one rank stream ------------------------------------------------------ */

struct o2_frame {
	uint32_t region;
	uint64_t t;
};

struct o2_qev {
	struct tc_event ev;
	struct tc_completion *compl;   /* owned copy */
};

struct o2_pend {
	uint64_t request;
	size_t index;                  /* in the queue */
};

struct o2_reader {
	char *path;
	struct o2_defs *defs;
	uint32_t rank;
	uint64_t loc;
	struct tc_raw_header hdr;

	/* during a read */
	const struct tc_read_ops *ops;
	void *ctx;
	struct tc_error *err;
	int rc;
	uint64_t nevents;
	struct o2_frame stack[O2_MAX_STACK];
	uint32_t depth, lost;      /* lost: levels past O2_MAX_STACK */
	/* the MPI call open at the top of the stack */
	bool in_call;
	struct tc_event ev;
	struct tc_completion *compl;
	uint32_t ncompl;
	/* communicators: OTF2 id -> our id + 1 (0: not yet given) */
	uint32_t *comm_id;
	uint32_t ncomm_ids;
	/* call sites: signature -> id */
	uint64_t *site_key;
	uint32_t *site_id;
	size_t nsites, sitecap;
	struct tc_frame frames[O2_MAX_STACK + 1];
	/*
	 * OTF2 gives the peer, tag and size of a nonblocking receive only
	 * when it completes: from an MPI_Irecv on, events are held back
	 * until every held receive has completed and been filled in.
	 */
	struct o2_qev *queue;
	size_t nqueue, aqueue;
	struct o2_pend *pend;
	size_t npend, apend;
};

/* Request ids as the events carry them (0 is "no request"). */
static uint64_t req_id(uint64_t req)
{
	return req ? req : 1ull << 63;
}

static uint64_t to_ns(const struct o2_defs *d, uint64_t t)
{
	unsigned __int128 x;

	t = t >= d->offset ? t - d->offset : 0;
	if (d->ticks == 1000000000)
		return t;
	x = (unsigned __int128)t * 1000000000u / d->ticks;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

/* The world rank of rank `r` of OTF2 communicator comm. */
static int32_t world_of(const struct o2_reader *rd, uint32_t comm, uint32_t r)
{
	const struct o2_group *g = comm_group(rd->defs, comm);

	if (r == OTF2_UNDEFINED_UINT32)
		return TC_PEER_NONE;
	if (!g)
		return (int32_t)r;
	if (g->type == OTF2_GROUP_TYPE_COMM_SELF)
		return (int32_t)rd->rank;
	if (r >= g->n || g->members[r] > INT32_MAX)
		return TC_PEER_NONE;
	return (int32_t)g->members[r];
}

/* Give the communicator its id, and define it the first time it is used. */
static int map_comm(struct o2_reader *rd, uint32_t comm, uint32_t *out)
{
	const struct o2_defs *d = rd->defs;
	const struct o2_group *g = comm_group(d, comm);
	struct tc_comm c;
	int32_t *members = NULL;

	if (comm == d->comm_world || comm == OTF2_UNDEFINED_COMM || !g) {
		*out = TC_COMM_WORLD;
		return 0;
	}
	if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
		*out = TC_COMM_SELF;
		return 0;
	}
	if (comm >= O2_MAX_ID) {
		*out = TC_COMM_WORLD;
		return 0;
	}
	if (comm >= rd->ncomm_ids) {
		size_t n = rd->ncomm_ids;
		o2_grow((void **)&rd->comm_id, &n, comm, sizeof(*rd->comm_id));
		rd->ncomm_ids = (uint32_t)n;
	}
	if (rd->comm_id[comm]) {
		*out = rd->comm_id[comm] - 1;
		return 0;
	}
	/* ids 0 and 1 are world and self; the others follow in first-use order */
	{
		uint32_t next = 2;
		for (uint32_t i = 0; i < rd->ncomm_ids; i++)
			if (rd->comm_id[i] && rd->comm_id[i] - 1 >= next)
				next = rd->comm_id[i];
		rd->comm_id[comm] = next + 1;
		*out = next;
	}
	if (!rd->ops->comm)
		return 0;
	memset(&c, 0, sizeof(c));
	c.id = *out;
	c.size = g->n;
	members = tc_xmalloc(tc_st_mult(g->n ? g->n : 1, sizeof(*members)));
	for (uint32_t i = 0; i < g->n; i++)
		members[i] = g->members[i] > INT32_MAX ? TC_PEER_NONE : (int32_t)g->members[i];
	c.members = members;
	c.parent = TC_COMM_WORLD;
	if (d->comms[comm].parent != OTF2_UNDEFINED_COMM && d->comms[comm].parent < rd->ncomm_ids &&
	    rd->comm_id[d->comms[comm].parent])
		c.parent = rd->comm_id[d->comms[comm].parent] - 1;
	if (rd->ops->comm(rd->ctx, &c)) {
		free(members);
		return TC_ERR_STOP;
	}
	free(members);
	return 0;
}

/* The call site of the MPI call at the top of the stack: the names of the
 * regions around it, innermost first. */
static int current_site(struct o2_reader *rd, uint32_t *id)
{
	const struct o2_defs *d = rd->defs;
	uint32_t n = 0;
	uint64_t h = 0x9e3779b97f4a7c15ull;
	size_t i;

	for (uint32_t k = rd->depth; k-- > 0;) {
		const struct o2_region *reg = &d->regions[rd->stack[k].region];
		rd->frames[n].module = "otf2";
		rd->frames[n].offset = reg->hash;
		rd->frames[n].symbol = o2_str(d, reg->name);
		n++;
	}
	for (i = 0; i < n; i++)
		h = tc_hash_mix(h, rd->frames[i].offset);
	h = h ? h : 1;
	if ((rd->nsites + 1) * 2 > rd->sitecap) {
		uint64_t *ok = rd->site_key;
		uint32_t *oi = rd->site_id;
		size_t oc = rd->sitecap;
		rd->sitecap = oc ? oc * 2 : 64;
		rd->site_key = tc_xcalloc(rd->sitecap, sizeof(*rd->site_key));
		rd->site_id = tc_xcalloc(rd->sitecap, sizeof(*rd->site_id));
		for (size_t k = 0; k < oc; k++) {
			if (!ok[k])
				continue;
			for (i = ok[k] & (rd->sitecap - 1); rd->site_key[i];
			     i = (i + 1) & (rd->sitecap - 1))
				;
			rd->site_key[i] = ok[k];
			rd->site_id[i] = oi[k];
		}
		free(ok);
		free(oi);
	}
	for (i = h & (rd->sitecap - 1); rd->site_key[i]; i = (i + 1) & (rd->sitecap - 1)) {
		if (rd->site_key[i] == h) {
			*id = rd->site_id[i];
			return 0;
		}
	}
	rd->site_key[i] = h;
	rd->site_id[i] = (uint32_t)rd->nsites++;
	*id = rd->site_id[i];
	if (rd->ops->callsite) {
		struct tc_callsite cs;
		cs.id = *id;
		cs.nframes = n;
		cs.frames = rd->frames;
		cs.signature = tc_stack_signature(rd->frames, n);
		if (rd->ops->callsite(rd->ctx, &cs))
			return TC_ERR_STOP;
	}
	return 0;
}

/* Give the held-back events to the callback, in order. */
static int flush_queue(struct o2_reader *rd)
{
	int rc = 0;
	size_t i;

	for (i = 0; i < rd->nqueue; i++) {
		struct o2_qev *q = &rd->queue[i];
		if (!rc && rd->ops->event && rd->ops->event(rd->ctx, &q->ev))
			rc = TC_ERR_STOP;
		free(q->compl);
	}
	rd->nqueue = 0;
	rd->npend = 0;
	return rc;
}

static int deliver(struct o2_reader *rd, const struct tc_event *ev)
{
	struct o2_qev *q;
	bool hold = ev->op == TC_OP_IRECV && (ev->fields & TC_F_REQUEST);

	if (!hold && !rd->nqueue)
		return rd->ops->event && rd->ops->event(rd->ctx, ev) ? TC_ERR_STOP : 0;
	TC_ALLOC_GROW(rd->queue, rd->nqueue + 1, rd->aqueue);
	q = &rd->queue[rd->nqueue];
	q->ev = *ev;
	q->compl = NULL;
	if (ev->ncompl) {
		q->compl = tc_xmalloc(tc_st_mult(ev->ncompl, sizeof(*q->compl)));
		memcpy(q->compl, ev->compl, ev->ncompl * sizeof(*q->compl));
		q->ev.compl = q->compl;
	}
	if (hold) {
		TC_ALLOC_GROW(rd->pend, rd->npend + 1, rd->apend);
		rd->pend[rd->npend].request = ev->request;
		rd->pend[rd->npend].index = rd->nqueue;
		rd->npend++;
	}
	rd->nqueue++;
	if (!rd->npend || rd->nqueue >= O2_MAX_QUEUE)
		return flush_queue(rd);
	return 0;
}

/* A held receive completed: fill in what its MPI_Irecv could not say. */
static void complete_held(struct o2_reader *rd, uint64_t request, int32_t source, int32_t tag,
			  uint64_t bytes, uint32_t comm)
{
	for (size_t i = 0; i < rd->npend; i++) {
		struct tc_event *ev;
		if (rd->pend[i].request != request)
			continue;
		ev = &rd->queue[rd->pend[i].index].ev;
		ev->peer = source;
		ev->tag = tag;
		ev->comm = comm;
		ev->count = bytes;
		ev->dtype = TC_DT_BYTE;
		ev->dtype_size = 1;
		ev->fields |= TC_F_COMM | TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE;
		rd->pend[i] = rd->pend[--rd->npend];
		return;
	}
}

static OTF2_CallbackCode stop(struct o2_reader *rd, int rc)
{
	rd->rc = rc;
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
				  void *u, OTF2_AttributeList *al, OTF2_RegionRef region)
{
	struct o2_reader *rd = u;
	const struct o2_defs *d = rd->defs;
	(void)loc; (void)pos; (void)al;

	if (region >= d->nregions)
		return stop(rd, tc_error_set(rd->err, TC_ERR_FORMAT, rd->path, -1,
					     "OTF2 rank %u: ENTER of undefined region %u",
					     rd->rank, region));
	if (rd->depth >= O2_MAX_STACK || rd->in_call) {
		rd->lost++;
		return OTF2_CALLBACK_SUCCESS;
	}
	rd->stack[rd->depth].region = region;
	rd->stack[rd->depth].t = t;
	rd->depth++;
	if (d->regions[region].op) {
		rd->in_call = true;
		tc_event_init(&rd->ev);
		rd->ev.op = d->regions[region].op;
		rd->ev.t_start = to_ns(d, t);
		rd->ncompl = 0;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
				  void *u, OTF2_AttributeList *al, OTF2_RegionRef region)
{
	struct o2_reader *rd = u;
	int rc;
	(void)loc; (void)pos; (void)al; (void)region;

	if (rd->lost) {
		rd->lost--;
		return OTF2_CALLBACK_SUCCESS;
	}
	if (!rd->depth)
		return OTF2_CALLBACK_SUCCESS;
	if (!rd->in_call) {
		rd->depth--;
		return OTF2_CALLBACK_SUCCESS;
	}
	/* the MPI call at the top of the stack ends */
	rd->in_call = false;
	rd->ev.t_end = to_ns(rd->defs, t);
	if (rd->ev.t_end < rd->ev.t_start)
		rd->ev.t_end = rd->ev.t_start;
	if (rd->ncompl) {
		rd->ev.compl = rd->compl;
		rd->ev.ncompl = rd->ncompl;
		rd->ev.fields |= TC_F_COMPL;
	}
	rc = current_site(rd, &rd->ev.callsite);
	rd->depth--;
	if (rc)
		return stop(rd, rc);
	rd->nevents++;
	if ((rc = deliver(rd, &rd->ev)))
		return stop(rd, rc);
	return OTF2_CALLBACK_SUCCESS;
}

static struct tc_completion *add_compl(struct o2_reader *rd)
{
	if (rd->ncompl >= O2_MAX_COMPL)
		return NULL;
	if (!rd->compl)
		rd->compl = tc_xmalloc(O2_MAX_COMPL * sizeof(*rd->compl));
	memset(&rd->compl[rd->ncompl], 0, sizeof(*rd->compl));
	rd->compl[rd->ncompl].source = TC_PEER_NONE;
	return &rd->compl[rd->ncompl++];
}

/* Peer, tag, bytes and communicator of a point-to-point record. */
static int p2p(struct o2_reader *rd, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
	       uint64_t len)
{
	struct tc_event *ev = &rd->ev;
	int rc = map_comm(rd, comm, &ev->comm);

	if (rc)
		return rc;
	ev->peer = world_of(rd, comm, peer);
	ev->tag = tag > INT32_MAX ? TC_ANY_TAG : (int32_t)tag;
	ev->count = len;
	ev->dtype = TC_DT_BYTE;
	ev->dtype_size = 1;
	ev->fields |= TC_F_COMM | TC_F_PEER | TC_F_TAG | TC_F_COUNT | TC_F_DTYPE;
	return 0;
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
				 OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
				 uint32_t tag, uint64_t len)
{
	struct o2_reader *rd = u;
	int rc;
	(void)loc; (void)t; (void)pos; (void)al;
	if (!rd->in_call)
		return OTF2_CALLBACK_SUCCESS;
	if ((rc = p2p(rd, receiver, comm, tag, len)))
		return stop(rd, rc);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
				  OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm,
				  uint32_t tag, uint64_t len, uint64_t req)
{
	struct o2_reader *rd = u;
	int rc;
	(void)loc; (void)t; (void)pos; (void)al;
	if (!rd->in_call)
		return OTF2_CALLBACK_SUCCESS;
	if ((rc = p2p(rd, receiver, comm, tag, len)))
		return stop(rd, rc);
	rd->ev.request = req_id(req);
	rd->ev.fields |= TC_F_REQUEST;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend_done(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
				       void *u, OTF2_AttributeList *al, uint64_t req)
{
	struct o2_reader *rd = u;
	struct tc_completion *c;
	(void)loc; (void)t; (void)pos; (void)al;
	if (rd->in_call && (c = add_compl(rd)))
		c->request = req_id(req);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv_req(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
				      void *u, OTF2_AttributeList *al, uint64_t req)
{
	struct o2_reader *rd = u;
	(void)loc; (void)t; (void)pos; (void)al;
	if (!rd->in_call)
		return OTF2_CALLBACK_SUCCESS;
	rd->ev.request = req_id(req);
	rd->ev.fields |= TC_F_REQUEST;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
				  OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
				  uint32_t tag, uint64_t len, uint64_t req)
{
	struct o2_reader *rd = u;
	struct tc_completion *c;
	(void)loc; (void)t; (void)pos; (void)al;
	if (!rd->in_call || !(c = add_compl(rd)))
		return OTF2_CALLBACK_SUCCESS;
	c->request = req_id(req);
	c->source = world_of(rd, comm, sender);
	c->tag = tag > INT32_MAX ? TC_ANY_TAG : (int32_t)tag;
	c->bytes = len;
	if (rd->npend) {
		uint32_t id;
		int rc = map_comm(rd, comm, &id);
		if (rc)
			return stop(rd, rc);
		complete_held(rd, c->request, c->source, c->tag, len, id);
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
				 OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm,
				 uint32_t tag, uint64_t len)
{
	struct o2_reader *rd = u;
	struct tc_completion *c;
	int rc;
	(void)loc; (void)t; (void)pos; (void)al;
	if (!rd->in_call)
		return OTF2_CALLBACK_SUCCESS;
	if ((rc = p2p(rd, sender, comm, tag, len)))
		return stop(rd, rc);
	if ((c = add_compl(rd))) {
		c->source = rd->ev.peer;
		c->tag = rd->ev.tag;
		c->bytes = len;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
				     void *u, OTF2_AttributeList *al, OTF2_CollectiveOp op,
				     OTF2_CommRef comm, uint32_t root, uint64_t sent,
				     uint64_t received)
{
	struct o2_reader *rd = u;
	struct tc_event *ev = &rd->ev;
	int rc;
	(void)loc; (void)t; (void)pos; (void)al; (void)op;
	if (!rd->in_call)
		return OTF2_CALLBACK_SUCCESS;
	if ((rc = map_comm(rd, comm, &ev->comm)))
		return stop(rd, rc);
	ev->fields |= TC_F_COMM | TC_F_COUNT | TC_F_DTYPE;
	ev->count = sent ? sent : received;
	ev->dtype = TC_DT_BYTE;
	ev->dtype_size = 1;
	if (tc_op_flags(ev->op) & TC_OPF_ROOT && root != OTF2_UNDEFINED_UINT32) {
		ev->root = world_of(rd, comm, root);
		ev->fields |= TC_F_ROOT;
	}
	return OTF2_CALLBACK_SUCCESS;
}

static const struct tc_raw_header *o2_header(void *impl)
{
	struct o2_reader *rd = impl;
	return &rd->hdr;
}

static int o2_read(void *impl, const struct tc_read_ops *ops, void *ctx,
		   struct tc_raw_stats *stats, struct tc_error *err)
{
	struct o2_reader *rd = impl;
	OTF2_Reader *r = NULL;
	OTF2_EvtReader *er = NULL;
	OTF2_DefReader *dr;
	OTF2_EvtReaderCallbacks *cb = NULL;
	OTF2_ErrorCode e;
	uint64_t n = 0;
	int rc = 0;

	rd->ops = ops;
	rd->ctx = ctx;
	rd->err = err;
	rd->rc = 0;
	rd->nevents = 0;
	rd->depth = rd->lost = 0;
	rd->in_call = false;
	rd->nsites = 0;
	for (size_t i = 0; i < rd->nqueue; i++)
		free(rd->queue[i].compl);
	rd->nqueue = rd->npend = 0;
	if (rd->site_key)
		memset(rd->site_key, 0, rd->sitecap * sizeof(*rd->site_key));
	if (rd->comm_id)
		memset(rd->comm_id, 0, rd->ncomm_ids * sizeof(*rd->comm_id));

	r = OTF2_Reader_Open(rd->path);
	if (!r)
		return tc_error_set(err, TC_ERR_FORMAT, rd->path, -1, "not a readable OTF2 archive");
	if ((e = OTF2_Reader_SetSerialCollectiveCallbacks(r)) != OTF2_SUCCESS ||
	    (e = OTF2_Reader_SelectLocation(r, rd->loc)) != OTF2_SUCCESS ||
	    (e = OTF2_Reader_OpenDefFiles(r)) != OTF2_SUCCESS ||
	    (e = OTF2_Reader_OpenEvtFiles(r)) != OTF2_SUCCESS) {
		rc = o2_fail(err, rd->path, "open", e);
		goto out;
	}
	/* local definitions carry the id mappings of an unified archive */
	dr = OTF2_Reader_GetDefReader(r, rd->loc);
	if (dr) {
		uint64_t nd = 0;
		OTF2_Reader_ReadAllLocalDefinitions(r, dr, &nd);
		OTF2_Reader_CloseDefReader(r, dr);
	}
	OTF2_Reader_CloseDefFiles(r);
	er = OTF2_Reader_GetEvtReader(r, rd->loc);
	if (!er) {
		rc = tc_error_set(err, TC_ERR_FORMAT, rd->path, -1,
				  "OTF2 archive: no events of location %" PRIu64 " (rank %u)",
				  rd->loc, rd->rank);
		goto out;
	}
	cb = OTF2_EvtReaderCallbacks_New();
	OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
	OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
	OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
	OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
	OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_done);
	OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_req);
	OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
	OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
	OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
	OTF2_Reader_RegisterEvtCallbacks(r, er, cb, rd);
	e = OTF2_Reader_ReadAllLocalEvents(r, er, &n);
	if (!rd->rc && rd->nqueue)
		rd->rc = flush_queue(rd);
	if (rd->rc) {
		rc = rd->rc;
		goto out;
	}
	if (e != OTF2_SUCCESS && e != OTF2_ERROR_INTERRUPTED_BY_CALLBACK) {
		rc = tc_error_set(err, TC_ERR_FORMAT, rd->path, -1,
				  "events of rank %u (location %" PRIu64 "): %s", rd->rank, rd->loc,
				  OTF2_Error_GetDescription(e));
		goto out;
	}
	if (rd->loc < rd->defs->nlocs && n < rd->defs->locs[rd->loc].nevents) {
		rc = tc_error_set(err, TC_ERR_FORMAT, rd->path, -1,
				  "events of rank %u (location %" PRIu64 "): %" PRIu64 " of %" PRIu64
				  " records, the rest is missing", rd->rank, rd->loc, n,
				  rd->defs->locs[rd->loc].nevents);
		goto out;
	}
out:
	if (cb)
		OTF2_EvtReaderCallbacks_Delete(cb);
	if (er)
		OTF2_Reader_CloseEvtReader(r, er);
	OTF2_Reader_CloseEvtFiles(r);
	OTF2_Reader_Close(r);
	if (stats) {
		memset(stats, 0, sizeof(*stats));
		stats->events = rd->nevents;
		stats->first_error = -1;
		stats->has_trailer = rc == 0;
		stats->trailer.events = rd->nevents;
		stats->file_bytes = tc_otf2_stream_bytes(rd->path, rd->rank);
	}
	return rc;
}

static void o2_close(void *impl)
{
	struct o2_reader *rd = impl;

	defs_put(rd->defs);
	for (size_t i = 0; i < rd->nqueue; i++)
		free(rd->queue[i].compl);
	free(rd->queue);
	free(rd->pend);
	free(rd->compl);
	free(rd->comm_id);
	free(rd->site_key);
	free(rd->site_id);
	free(rd->path);
	free(rd);
}

static const struct tc_reader_vtab o2_vtab = { "otf2", o2_header, o2_read, o2_close };

int tc_otf2_open(struct tc_reader **out, const char *path, uint32_t rank, unsigned flags,
		 struct tc_error *err)
{
	struct o2_defs *d;
	struct o2_reader *rd;
	const struct o2_location *l;
	int rc;

	(void)flags;
	*out = NULL;
	if ((rc = defs_get(path, &d, err)))
		return rc;
	if (rank >= (uint32_t)d->world) {
		defs_put(d);
		return tc_error_set(err, TC_ERR_USAGE, path, -1,
				    "OTF2 archive holds %d ranks (rank %u asked)", d->world, rank);
	}
	rd = tc_xcalloc(1, sizeof(*rd));
	rd->path = tc_xstrdup(path);
	rd->defs = d;
	rd->rank = rank;
	rd->loc = d->rank_loc[rank];
	rd->hdr.rank = (int32_t)rank;
	rd->hdr.world_size = d->world;
	if (d->realtime && d->realtime != OTF2_UNDEFINED_TIMESTAMP)
		rd->hdr.start_time_ns = d->realtime;
	l = rd->loc < d->nlocs ? &d->locs[rd->loc] : NULL;
	if (l && l->defined && l->group < d->nlgroups && d->lgroups[l->group].defined) {
		uint32_t node = d->lgroups[l->group].parent;
		if (node < d->nstnodes)
			snprintf(rd->hdr.host, sizeof(rd->hdr.host), "%s", o2_str(d, d->stnodes[node]));
	}
	snprintf(rd->hdr.clock, sizeof(rd->hdr.clock), "otf2 %" PRIu64 "/s", d->ticks);
	snprintf(rd->hdr.writer, sizeof(rd->hdr.writer), "%s", d->creator[0] ? d->creator : "otf2");
	*out = tc_reader_wrap(&o2_vtab, rd);
	return 0;
}
