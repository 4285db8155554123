/*
 * export.c - the exporter interface of formats/export.h and the
 * communicator table its backends share.
 */
#include "lib/compat.h"
#include "formats/export_internal.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

int tc_export_format_from_name(const char *name)
{
	if (!strcmp(name, "otf2"))
		return TC_EXPORT_OTF2;
	if (!strcmp(name, "chrome") || !strcmp(name, "perfetto") || !strcmp(name, "json"))
		return TC_EXPORT_CHROME;
	return -1;
}

#define EXPORT_MAX_SITES (1u << 24)

static void comms_clear(struct tc_export *x)
{
	for (size_t i = 0; i < x->nsites; i++) {
		free(x->sites[i].name);
		x->sites[i].name = NULL;
		x->sites[i].defined = false;
	}
	for (size_t i = 0; i < x->ncomms; i++)
		free(x->comms[i].members);
	x->ncomms = 0;
}

static void export_free(struct tc_export *x)
{
	comms_clear(x);
	free(x->comms);
	free(x->sites);
	free(x->path);
	free(x);
}

int tc_export_open(struct tc_export **out, enum tc_export_format fmt, const char *path,
		   int32_t world, const char *creator, struct tc_error *err)
{
	struct tc_export *x;
	int rc;

	*out = NULL;
	if (world <= 0)
		return tc_error_set(err, TC_ERR_USAGE, path, -1, "nothing to export (no rank)");
	x = tc_xcalloc(1, sizeof(*x));
	x->path = tc_xstrdup(path);
	x->world = world;
	x->rank = -1;
	switch (fmt) {
	case TC_EXPORT_OTF2:
		rc = tc_export_otf2_open(x, creator, err);
		break;
	case TC_EXPORT_CHROME:
		rc = tc_export_chrome_open(x, creator, err);
		break;
	default:
		rc = tc_error_set(err, TC_ERR_USAGE, path, -1, "unknown export format %d", (int)fmt);
	}
	if (rc) {
		export_free(x);
		return rc;
	}
	*out = x;
	return 0;
}

int tc_export_rank_begin(struct tc_export *x, int32_t rank, struct tc_error *err)
{
	if (rank < 0 || rank >= x->world)
		return tc_error_set(err, TC_ERR_FORMAT, x->path, -1,
				    "rank %" PRId32 " outside world size %" PRId32, rank, x->world);
	comms_clear(x);
	x->rank = rank;
	return x->vt->rank_begin(x, err);
}

void tc_export_comm(struct tc_export *x, const struct tc_comm *c)
{
	struct tc_export_comm *e = NULL;

	if (c->id == TC_COMM_WORLD || c->id == TC_COMM_SELF)
		return;
	for (size_t i = 0; i < x->ncomms; i++)
		if (x->comms[i].id == c->id)
			e = &x->comms[i];
	if (!e) {
		TC_ALLOC_GROW(x->comms, x->ncomms + 1, x->acomms);
		e = &x->comms[x->ncomms++];
	} else {
		free(e->members);
	}
	e->id = c->id;
	e->size = c->size;
	e->members = tc_xmalloc(tc_st_mult(c->size ? c->size : 1, sizeof(*e->members)));
	for (uint32_t i = 0; i < c->size; i++)
		e->members[i] = c->members ? c->members[i] : (int32_t)i;
}

void tc_export_callsite(struct tc_export *x, const struct tc_callsite *cs)
{
	struct tc_export_site *s;

	if (cs->id >= EXPORT_MAX_SITES)
		return;
	if (cs->id >= x->nsites) {
		size_t n = x->nsites ? x->nsites : 64;
		while (n <= cs->id)
			n *= 2;
		x->sites = tc_xrealloc(x->sites, tc_st_mult(n, sizeof(*x->sites)));
		memset(x->sites + x->nsites, 0, (n - x->nsites) * sizeof(*x->sites));
		x->nsites = n;
	}
	s = &x->sites[cs->id];
	free(s->name);
	s->name = NULL;
	s->defined = true;
	s->signature = cs->signature;
	for (uint32_t i = 0; i < cs->nframes; i++) {
		if (cs->frames[i].symbol && *cs->frames[i].symbol) {
			s->name = tc_xstrdup(cs->frames[i].symbol);
			break;
		}
	}
}

const struct tc_export_site *tc_export_find_site(const struct tc_export *x, uint32_t id)
{
	return id < x->nsites && x->sites[id].defined ? &x->sites[id] : NULL;
}

const struct tc_export_comm *tc_export_find_comm(const struct tc_export *x, uint32_t id)
{
	for (size_t i = 0; i < x->ncomms; i++)
		if (x->comms[i].id == id)
			return &x->comms[i];
	return NULL;
}

int32_t tc_export_comm_rank(const struct tc_export *x, uint32_t comm, int32_t w)
{
	const struct tc_export_comm *c;

	if (w < 0)
		return -1;
	if (comm == TC_COMM_SELF)
		return w == x->rank ? 0 : -1;
	c = comm == TC_COMM_WORLD ? NULL : tc_export_find_comm(x, comm);
	if (!c)
		return w;
	for (uint32_t i = 0; i < c->size; i++)
		if (c->members[i] == w)
			return (int32_t)i;
	return -1;
}

int tc_export_event(struct tc_export *x, const struct tc_event *ev, struct tc_error *err)
{
	return x->vt->event(x, ev, err);
}

int tc_export_rank_end(struct tc_export *x, struct tc_error *err)
{
	return x->vt->rank_end(x, err);
}

int tc_export_close(struct tc_export **xp, struct tc_error *err)
{
	struct tc_export *x = *xp;
	int rc;

	if (!x)
		return 0;
	*xp = NULL;
	rc = x->vt->close(x, err);
	export_free(x);
	return rc;
}

void tc_export_abort(struct tc_export **xp)
{
	struct tc_export *x = *xp;

	if (!x)
		return;
	*xp = NULL;
	x->vt->abort(x);
	export_free(x);
}
