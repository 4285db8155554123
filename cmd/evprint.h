/*
 * evprint.h - print one event as `tracecluster dump` does, in text or as
 * one JSON object per line; shared by dump (raw files) and expand (a
 * rank's events given back from a global trace), so both print the same
 * shapes with the same keys.
 */
#ifndef TC_CMD_EVPRINT_H
#define TC_CMD_EVPRINT_H

#include "lib/compat.h"

struct tc_event;

struct tc_evprint_ctx {
	uint64_t index;          /* the event's number in the rank's sequence */
	int32_t rank;
	const uint64_t *sigs;    /* call-site id -> stack signature (0: unknown) */
	size_t nsigs;
};

/* {"record":"event","index":...} and a newline on stdout. */
void tc_evprint_json(const struct tc_evprint_ctx *c, const struct tc_event *ev);
/* One text line on stdout: index, start time, duration, op, parameters. */
void tc_evprint_text(const struct tc_evprint_ctx *c, const struct tc_event *ev);

#endif
