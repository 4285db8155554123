/*
 * export_internal.h - what the exporters of formats/export.h share.
 */
#ifndef TC_FORMATS_EXPORT_INTERNAL_H
#define TC_FORMATS_EXPORT_INTERNAL_H

#include "lib/compat.h"
#include "formats/export.h"

struct tc_export_comm {
	uint32_t id;            /* the rank's own id */
	uint32_t size;
	int32_t *members;       /* world rank of each comm rank */
};

struct tc_export_site {
	bool defined;
	uint64_t signature;
	char *name;             /* innermost symbol, or NULL */
};

struct tc_export_vtab {
	int (*rank_begin)(struct tc_export *x, struct tc_error *err);
	int (*event)(struct tc_export *x, const struct tc_event *ev, struct tc_error *err);
	int (*rank_end)(struct tc_export *x, struct tc_error *err);
	int (*close)(struct tc_export *x, struct tc_error *err);
	void (*abort)(struct tc_export *x);
};

struct tc_export {
	const struct tc_export_vtab *vt;
	void *impl;
	char *path;
	int32_t world;
	int32_t rank;           /* the rank being written */
	/* communicators of the current rank, other than world and self */
	struct tc_export_comm *comms;
	size_t ncomms, acomms;
	/* call sites of the current rank, by id */
	struct tc_export_site *sites;
	size_t nsites;
};

/* The communicator `id` of the current rank, NULL for world, self and
 * communicators the rank never defined. */
const struct tc_export_comm *tc_export_find_comm(const struct tc_export *x, uint32_t id);
/* The call site `id` of the current rank, or NULL. */
const struct tc_export_site *tc_export_find_site(const struct tc_export *x, uint32_t id);
/* The rank of world rank w in communicator c (world: w itself), or -1. */
int32_t tc_export_comm_rank(const struct tc_export *x, uint32_t comm, int32_t w);

int tc_export_otf2_open(struct tc_export *x, const char *creator, struct tc_error *err);
int tc_export_chrome_open(struct tc_export *x, const char *creator, struct tc_error *err);

#endif
