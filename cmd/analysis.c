/*
 * analysis.c - the analysis of a trace set as JSON and text, and the
 * options of the replay model (see analysis.h).
 */
#include "lib/compat.h"
#include "cmd/analysis.h"
#include "cmd/cmd.h"
#include "lib/accuracy.h"
#include "lib/json.h"
#include "lib/merge.h"
#include "lib/replay.h"

#include <stdio.h>

void tc_anl_fidelity_json(struct tc_json *o, const struct tc_anl_fidelity *f)
{
	struct tc_json *r = tc_json_object(), *e = tc_json_object();

	tc_json_set_real(o, "acc", f->acc);
	tc_json_set_bool(o, "compute_gaps", f->gaps);
	tc_json_set_real(o, "acc_comm", f->acc_comm);
	tc_json_set_real(o, "acc_own_times", f->acc_own);
	tc_json_set_real(r, "t", f->t);
	tc_json_set_real(r, "t_clustered", f->t_clustered);
	tc_json_set_real(r, "t_comm", f->t_comm);
	tc_json_set_real(r, "t_comm_clustered", f->t_comm_clustered);
	tc_json_set_real(r, "t_own_times", f->t_own);
	tc_json_set_bool(r, "stalled", f->deadlock);
	tc_json_set_uint(r, "forced", f->forced);
	tc_json_set(o, "replay", r);
	tc_json_set_real(e, "operations", f->err_cluster);
	tc_json_set_real(e, "times", f->err_timing);
	tc_json_set(o, "error", e);
}

void tc_anl_fidelity_print(FILE *f, const char *indent, const struct tc_anl_fidelity *fid,
			   unsigned timing)
{
	char t0[TC_DURATION_LEN], t1[TC_DURATION_LEN];

	fprintf(f, "t %s, t' %s, ACC %.2f%%", tc_fmt_seconds(fid->t, false, t0),
		tc_fmt_seconds(fid->t_clustered, false, t1), 100 * fid->acc);
	if (fid->forced)
		fprintf(f, " (%" PRIu64 " clustered operation%s completed unmatched)", fid->forced,
			fid->forced == 1 ? "" : "s");
	if (fid->deadlock && !fid->forced)
		fprintf(f, " (a replay stalled)");
	if (!fid->gaps) {
		fprintf(f, " (communication only: no compute gaps)\n");
		return;
	}
	fprintf(f, "\n%scommunication only: t %s, t' %s, ACC %.2f%%\n", indent,
		tc_fmt_seconds(fid->t_comm, false, t0),
		tc_fmt_seconds(fid->t_comm_clustered, false, t1), 100 * fid->acc_comm);
	fprintf(f, "%swith each rank's own compute times: t' %s, ACC %.2f%%\n", indent,
		tc_fmt_seconds(fid->t_own, false, t1), 100 * fid->acc_own);
	fprintf(f, "%serror: %.2f%% from the clustered operations, %.2f%% from the compute times "
		"the trace keeps (leads' times, timing %s)\n", indent, 100 * fid->err_cluster,
		100 * fid->err_timing, tc_gtiming_name(timing));
}

struct tc_json *tc_anl_match_json(const struct tc_match *m)
{
	struct tc_json *o = tc_json_object();

	for (int i = 0; i < TC_MATCH_N; i++) {
		char key[32];
		snprintf(key, sizeof(key), "%s_pct", tc_match_name(i));
		tc_json_set_real(o, key, tc_match_pct(m, i));
	}
	return o;
}

void tc_anl_match_print(FILE *f, const struct tc_match *m)
{
	fprintf(f, "COUNT %.2f%%  LOOP %.2f%%  #EVENTS %.2f%%  SRC %.2f%%  DEST %.2f%%  TAG %.2f%%  "
		"COMM %.2f%%",
		tc_match_pct(m, TC_MATCH_COUNT), tc_match_pct(m, TC_MATCH_LOOP),
		tc_match_pct(m, TC_MATCH_EVENTS), tc_match_pct(m, TC_MATCH_SRC),
		tc_match_pct(m, TC_MATCH_DEST), tc_match_pct(m, TC_MATCH_TAG),
		tc_match_pct(m, TC_MATCH_COMM));
}

int tc_anl_model_option(const char *cmd, int c, const char *arg, struct tc_replay_params *p,
			int *rc)
{
	double v;

	*rc = 0;
	switch (c) {
	case 0x2001: case 0x2002: case 0x2003: case 0x2004:
		if ((*rc = tc_parse_double(cmd, "model option", arg, &v)))
			return 1;
		if (!(v >= 0 && v < 1e9)) {
			*rc = tc_usage_error(cmd, "%s is out of range", arg);
			return 1;
		}
		if (c == 0x2001)
			p->L = v * 1e-6;
		else if (c == 0x2002)
			p->o = v * 1e-6;
		else if (c == 0x2003)
			p->g = v * 1e-6;
		else
			p->G = v * 1e-9;
		return 1;
	case 0x2005:
		p->gaps = false;
		return 1;
	}
	return 0;
}
