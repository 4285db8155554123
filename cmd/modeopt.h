/*
 * modeopt.h - the options of the clustering modes (cluster/cluster.h) as
 * every command that clusters takes them: cluster, compress's siblings
 * accuracy, compare, topology, heatmap --diff, align --cluster and diff
 * --leads.
 *
 *   -k K, --max-clusters K   kfarthest, kmedoid, chameleon
 *   --steps single|double    kfarthest, kmedoid
 *   --distance D             kfarthest, kmedoid, chameleon
 *   --threshold F, --count-threshold F
 *                            callpath-param
 *   --noise F                kfarthest, kmedoid
 *   --seed S                 kmedoid
 *   --marker OP[@CALLSITE]   chameleon
 *   --call-frequency N       chameleon
 *
 * align and diff keep -k for --key and align keeps --threshold for its
 * structural groups: there only the long forms --max-clusters and
 * --count-threshold name K and the COUNT threshold.
 */
#ifndef TC_CMD_MODEOPT_H
#define TC_CMD_MODEOPT_H

#include "lib/compat.h"
#include "cluster/cluster.h"

#include <getopt.h>

struct tc_json;
struct tc_strbuf;

enum tc_mopt {
	TC_MOPT_K = 0,
	TC_MOPT_STEPS,
	TC_MOPT_DISTANCE,
	TC_MOPT_THRESHOLD,
	TC_MOPT_SEED,
	TC_MOPT_MARKER,
	TC_MOPT_CALL_FREQUENCY,
	TC_MOPT_NOISE,
	TC_NMOPTS
};

/* The getopt code of option id. */
#define TC_MOPT_CODE(id) (0x3000 + (id))

/* The long options every clustering command takes. */
#define TC_MODE_LONGOPTS                                                        \
	{ "max-clusters", required_argument, NULL, TC_MOPT_CODE(TC_MOPT_K) },   \
	{ "steps", required_argument, NULL, TC_MOPT_CODE(TC_MOPT_STEPS) },      \
	{ "distance", required_argument, NULL, TC_MOPT_CODE(TC_MOPT_DISTANCE) }, \
	{ "count-threshold", required_argument, NULL, TC_MOPT_CODE(TC_MOPT_THRESHOLD) }, \
	{ "seed", required_argument, NULL, TC_MOPT_CODE(TC_MOPT_SEED) },        \
	{ "marker", required_argument, NULL, TC_MOPT_CODE(TC_MOPT_MARKER) },    \
	{ "call-frequency", required_argument, NULL, TC_MOPT_CODE(TC_MOPT_CALL_FREQUENCY) }, \
	{ "noise", required_argument, NULL, TC_MOPT_CODE(TC_MOPT_NOISE) }
/* --threshold as the COUNT threshold, where a command has no --threshold
 * of its own. */
#define TC_MODE_THRESHOLD_LONGOPT \
	{ "threshold", required_argument, NULL, TC_MOPT_CODE(TC_MOPT_THRESHOLD) }

#define TC_MODE_HELP                                                                     \
	"  -k, --max-clusters K\n"                                                       \
	"                      kfarthest, kmedoid: at most K clusters (default 9);\n"    \
	"                      chameleon: K / #call-paths leads per call-path cluster\n" \
	"      --steps S       kfarthest, kmedoid: single (all signatures at once) or\n" \
	"                      double (Call-Path first, then the rest); default single\n" \
	"      --distance D    kfarthest, kmedoid, chameleon: manhattan (default) or\n"  \
	"                      euclidean\n"                                              \
	"      --noise F       kfarthest, kmedoid: COMP and COMM times within F of the\n" \
	"                      larger, or within 3 standard errors, are noise, not a\n"  \
	"                      difference (0 to 1; default 0.5; 0: exact)\n"            \
	"      --threshold F, --count-threshold F\n"                                     \
	"                      callpath-param: COUNTs within F are alike (default 0.05)\n" \
	"      --seed S        kmedoid: seed of PAM's initial medoids (default 1)\n"     \
	"      --marker OP[@CALLSITE]\n"                                                 \
	"                      chameleon: the marker call (default MPI_Barrier at its\n" \
	"                      most frequent call site)\n"                              \
	"      --call-frequency N\n"                                                     \
	"                      chameleon: run the transition graph every N marker calls\n" \
	"                      (default 1)\n"

/* The mode options as given on a command line. */
struct tc_mode_args {
	struct tc_cluster_opts o;      /* the defaults with every value given */
	const char *given[TC_NMOPTS];  /* each option's text as last given, or NULL
					* (borrowed from argv) */
	bool lists;                    /* values may be comma-separated lists
					* (compare); o then holds the first */
};

void tc_mode_args_init(struct tc_mode_args *ma, bool lists);
/*
 * Handle c when it is a mode option (TC_MOPT_CODE(id); 'k' too where a
 * command lets -k mean K and passes it). Returns 1 when it was one (*rc:
 * 0, or the usage status after the message), else 0.
 */
int tc_mode_option(const char *cmd, int c, const char *arg, struct tc_mode_args *ma, int *rc);
/* The mode name given with --mode: 0 with *mode set, or the usage status
 * after the message (missing, or unknown). */
int tc_mode_lookup(const char *cmd, const char *name, const struct tc_cluster_mode **mode);
/* The option flag of the first mode option given ("-k", "--seed"), or
 * NULL when none was. */
const char *tc_mode_args_first(const struct tc_mode_args *ma);
/* Set option id to the value text s in o. Returns 0, or prints a usage
 * error naming cmd and the option and returns its status. */
int tc_mode_opt_set(const char *cmd, int id, const char *s, struct tc_cluster_opts *o);
/* "k", "steps", "distance", "threshold", "seed", "marker",
 * "call-frequency", "noise"; and back (-1 when unknown). */
const char *tc_mode_opt_name(int id);
int tc_mode_opt_from_name(const char *name);
/* Whether option id changes what mode m does. */
bool tc_mode_opt_applies(const struct tc_cluster_mode *m, int id);
/* The options m takes, with the values of o, as a JSON object (returns new). */
struct tc_json *tc_mode_opts_json(const struct tc_cluster_mode *m, const struct tc_cluster_opts *o);

/* The same as text, "k=9 distance=manhattan" (empty when m takes none),
 * into buf of len bytes; returns buf. */
const char *tc_mode_opts_text(const struct tc_cluster_mode *m, const struct tc_cluster_opts *o,
			      char *buf, size_t len);

#endif
