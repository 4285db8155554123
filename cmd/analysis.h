/*
 * analysis.h - what replay, accuracy and compare print of the analysis of
 * a trace set (analysis/analysis.h): the replay figures and the matching
 * as JSON and text, and the options of the replay model.
 */
#ifndef TC_CMD_ANALYSIS_H
#define TC_CMD_ANALYSIS_H

#include "lib/compat.h"
#include "analysis/analysis.h"

#include <stdio.h>

struct tc_json;
struct tc_match;
struct tc_replay_params;

/* The replay figures of f as JSON members of o (acc, acc_comm, ...), and
 * as lines of text, the second and later starting with indent. */
void tc_anl_fidelity_json(struct tc_json *o, const struct tc_anl_fidelity *f);
void tc_anl_fidelity_print(FILE *f, const char *indent, const struct tc_anl_fidelity *fid,
			   unsigned timing);

/* The matching percentages as a JSON object (count_pct, loop_pct, ...:
 * percentages, 0 to 100), and as one line of text. */
struct tc_json *tc_anl_match_json(const struct tc_match *m);
void tc_anl_match_print(FILE *f, const struct tc_match *m);

/* The replay model's options (replay, accuracy, compare). */
#define TC_ANL_MODEL_LONGOPTS                                  \
	{ "latency", required_argument, NULL, 0x2001 },       \
	{ "overhead", required_argument, NULL, 0x2002 },      \
	{ "gap", required_argument, NULL, 0x2003 },           \
	{ "per-byte", required_argument, NULL, 0x2004 },      \
	{ "no-compute", no_argument, NULL, 0x2005 }
#define TC_ANL_MODEL_HELP                                                          \
	"      --latency US    replay model: L, latency in microseconds (default 1)\n"  \
	"      --overhead US   o, CPU overhead per message end (default 0.3)\n"         \
	"      --gap US        g, least time between message injections (default 0.2)\n" \
	"      --per-byte NS   G, nanoseconds per byte (default 0.1, i.e. 10 GB/s)\n"    \
	"      --no-compute    leave out the compute gaps of the trace\n"
/* Returns 1 when c was a model option (*rc: 0, or the usage status). */
int tc_anl_model_option(const char *cmd, int c, const char *arg, struct tc_replay_params *p,
			int *rc);

#endif
