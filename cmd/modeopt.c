/*
 * modeopt.c - the clustering modes' options as the commands parse them
 * (see modeopt.h).
 */
#include "lib/compat.h"
#include "cmd/modeopt.h"
#include "cmd/cmd.h"
#include "cluster/cluster.h"
#include "lib/event.h"
#include "lib/json.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[TC_NMOPTS] = {
	"k", "steps", "distance", "threshold", "seed", "marker", "call-frequency", "noise",
};

/* How each option is spelt in messages. */
static const char *const flags[TC_NMOPTS] = {
	"-k", "--steps", "--distance", "--threshold", "--seed", "--marker", "--call-frequency",
	"--noise",
};

void tc_mode_args_init(struct tc_mode_args *ma, bool lists)
{
	memset(ma, 0, sizeof(*ma));
	tc_cluster_opts_init(&ma->o);
	ma->lists = lists;
}

int tc_mode_lookup(const char *cmd, const char *name, const struct tc_cluster_mode **mode)
{
	if (!name)
		return tc_usage_error(cmd, "missing --mode");
	if (!(*mode = tc_cluster_mode_find(name)))
		return tc_usage_error(cmd, "--mode: unknown mode '%s' (see tracecluster cluster "
				      "--list-modes)", name);
	return 0;
}

const char *tc_mode_args_first(const struct tc_mode_args *ma)
{
	for (int i = 0; i < TC_NMOPTS; i++)
		if (ma->given[i])
			return flags[i];
	return NULL;
}

const char *tc_mode_opt_name(int id)
{
	return id >= 0 && id < TC_NMOPTS ? names[id] : "?";
}

int tc_mode_opt_from_name(const char *name)
{
	for (int i = 0; i < TC_NMOPTS; i++)
		if (!strcmp(name, names[i]))
			return i;
	if (!strcmp(name, "max-clusters"))
		return TC_MOPT_K;
	if (!strcmp(name, "count-threshold"))
		return TC_MOPT_THRESHOLD;
	return -1;
}

bool tc_mode_opt_applies(const struct tc_cluster_mode *m, int id)
{
	bool cham = !strcmp(m->name, "chameleon");

	switch (id) {
	case TC_MOPT_K:
	case TC_MOPT_DISTANCE:
		return m->flags & TC_CMF_K;
	case TC_MOPT_STEPS:
	case TC_MOPT_NOISE:
		return (m->flags & TC_CMF_K) && !cham;
	case TC_MOPT_THRESHOLD:
		return m->flags & TC_CMF_THRESHOLD;
	case TC_MOPT_SEED:
		return m->flags & TC_CMF_SEED;
	case TC_MOPT_MARKER:
	case TC_MOPT_CALL_FREQUENCY:
		return cham;
	}
	return false;
}

int tc_mode_opt_set(const char *cmd, int id, const char *s, struct tc_cluster_opts *o)
{
	const char *f = flags[id];
	uint64_t u;
	double d;
	int rc;

	switch (id) {
	case TC_MOPT_K:
		if ((rc = tc_parse_u64(cmd, f, s, &u)))
			return rc;
		if (u < 1 || u > 4096)
			return tc_usage_error(cmd, "%s: %s is out of range (1 to 4096)", f, s);
		o->k = (uint32_t)u;
		return 0;
	case TC_MOPT_STEPS:
		if ((rc = tc_cluster_steps_from_name(s)) < 0)
			return tc_usage_error(cmd, "%s: expected single or double, got '%s'", f, s);
		o->steps = rc;
		return 0;
	case TC_MOPT_DISTANCE:
		if ((rc = tc_cluster_distance_from_name(s)) < 0)
			return tc_usage_error(cmd, "%s: expected manhattan or euclidean, got '%s'", f,
					      s);
		o->distance = rc;
		return 0;
	case TC_MOPT_THRESHOLD:
		if ((rc = tc_parse_double(cmd, f, s, &d)))
			return rc;
		if (!(d >= 0.0 && d < 1.0))
			return tc_usage_error(cmd, "%s: %s is out of range (0 to below 1)", f, s);
		o->threshold = d;
		return 0;
	case TC_MOPT_NOISE:
		if ((rc = tc_parse_double(cmd, f, s, &d)))
			return rc;
		if (!(d >= 0.0 && d <= 1.0))
			return tc_usage_error(cmd, "%s: %s is out of range (0 to 1)", f, s);
		o->noise = d;
		return 0;
	case TC_MOPT_SEED:
		if ((rc = tc_parse_u64(cmd, f, s, &u)))
			return rc;
		o->seed = u;
		return 0;
	case TC_MOPT_MARKER:
		if (tc_chameleon_parse_marker(s, &o->marker_op, &o->marker_site))
			return tc_usage_error(cmd, "%s: expected OP[@CALLSITE] or auto, e.g. "
					      "MPI_Barrier@0x1234, got '%s'", f, s);
		return 0;
	case TC_MOPT_CALL_FREQUENCY:
		if ((rc = tc_parse_u64(cmd, f, s, &u)))
			return rc;
		if (u < 1 || u > UINT32_MAX)
			return tc_usage_error(cmd, "%s: %s is out of range (1 to %" PRIu32 ")", f, s,
					      UINT32_MAX);
		o->call_frequency = (uint32_t)u;
		return 0;
	}
	return tc_usage_error(cmd, "unknown mode option");
}

int tc_mode_option(const char *cmd, int c, const char *arg, struct tc_mode_args *ma, int *rc)
{
	int id = c == 'k' ? TC_MOPT_K : c - TC_MOPT_CODE(0);
	char *copy, *tok, *save = NULL;
	struct tc_cluster_opts o;
	bool first = true;

	*rc = 0;
	if (id < 0 || id >= TC_NMOPTS)
		return 0;
	if (!ma->lists) {
		if (!(*rc = tc_mode_opt_set(cmd, id, arg, &ma->o)))
			ma->given[id] = arg;
		return 1;
	}
	/* a list: every value must parse; o keeps the first */
	copy = tc_xstrdup(arg);
	o = ma->o;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if ((*rc = tc_mode_opt_set(cmd, id, tok, first ? &ma->o : &o)))
			break;
		first = false;
	}
	free(copy);
	if (!*rc && first)
		*rc = tc_usage_error(cmd, "%s: no value given", flags[id]);
	if (!*rc)
		ma->given[id] = arg;
	return 1;
}

static void marker_text(const struct tc_cluster_opts *o, char *buf, size_t len)
{
	const char *op = tc_op_name(o->marker_op ? o->marker_op : TC_OP_BARRIER);

	if (o->marker_op == TC_CHAM_MARKER_AUTO)
		snprintf(buf, len, "auto");
	else if (o->marker_site)
		snprintf(buf, len, "%s@0x%016" PRIx64, op ? op : "?", o->marker_site);
	else
		snprintf(buf, len, "%s", op ? op : "?");
}

const char *tc_mode_opts_text(const struct tc_cluster_mode *m, const struct tc_cluster_opts *o,
			      char *buf, size_t len)
{
	size_t n = 0;
	char mk[96];

#define ADD(...) \
	do { \
		if (n < len) \
			n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); \
	} while (0)
	buf[0] = '\0';
	if (tc_mode_opt_applies(m, TC_MOPT_K))
		ADD("%sk=%" PRIu32, n ? " " : "", o->k);
	if (tc_mode_opt_applies(m, TC_MOPT_STEPS))
		ADD("%ssteps=%s", n ? " " : "", tc_cluster_steps_name(o->steps));
	if (tc_mode_opt_applies(m, TC_MOPT_DISTANCE))
		ADD("%sdistance=%s", n ? " " : "", tc_cluster_distance_name(o->distance));
	if (tc_mode_opt_applies(m, TC_MOPT_NOISE))
		ADD("%snoise=%g", n ? " " : "", o->noise);
	if (tc_mode_opt_applies(m, TC_MOPT_THRESHOLD))
		ADD("%sthreshold=%g", n ? " " : "", o->threshold);
	if (tc_mode_opt_applies(m, TC_MOPT_SEED))
		ADD("%sseed=%" PRIu64, n ? " " : "", o->seed);
	if (tc_mode_opt_applies(m, TC_MOPT_MARKER)) {
		marker_text(o, mk, sizeof(mk));
		ADD("%smarker=%s call-frequency=%" PRIu32, n ? " " : "", mk,
		    o->call_frequency ? o->call_frequency : 1);
	}
#undef ADD
	return buf;
}

struct tc_json *tc_mode_opts_json(const struct tc_cluster_mode *m, const struct tc_cluster_opts *o)
{
	struct tc_json *j = tc_json_object();

	if (tc_mode_opt_applies(m, TC_MOPT_K))
		tc_json_set_uint(j, "k", o->k);
	if (tc_mode_opt_applies(m, TC_MOPT_STEPS))
		tc_json_set_str(j, "steps", tc_cluster_steps_name(o->steps));
	if (tc_mode_opt_applies(m, TC_MOPT_DISTANCE))
		tc_json_set_str(j, "distance", tc_cluster_distance_name(o->distance));
	if (tc_mode_opt_applies(m, TC_MOPT_NOISE))
		tc_json_set_real(j, "noise", o->noise);
	if (tc_mode_opt_applies(m, TC_MOPT_THRESHOLD))
		tc_json_set_real(j, "threshold", o->threshold);
	if (tc_mode_opt_applies(m, TC_MOPT_SEED))
		tc_json_set_uint(j, "seed", o->seed);
	if (tc_mode_opt_applies(m, TC_MOPT_MARKER)) {
		char buf[96];
		marker_text(o, buf, sizeof(buf));
		tc_json_set_str(j, "marker", buf);
		tc_json_set_uint(j, "call_frequency", o->call_frequency ? o->call_frequency : 1);
	}
	return j;
}
