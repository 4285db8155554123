/*
 * replay.c - tracecluster replay: the simulated replay of a trace set or
 * of a global trace expanded to every rank (lib/replay.h).
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/analysis.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/json.h"
#include "lib/pool.h"
#include "lib/replay.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char replay_usage[] =
	"usage: tracecluster replay [--latency US] [--overhead US] [--gap US]\n"
	"                           [--per-byte NS] [--no-compute] [--lenient]\n"
	"                           [--json]\n"
	"                           DIR|TRACE.tct\n"
	"\n"
	"Replay the trace set in DIR, or a global compressed trace expanded to every\n"
	"rank, on a simulated machine: compute gaps from the trace, point-to-point\n"
	"messages by the LogGP model, collectives by standard algorithms' costs.\n"
	"Prints the predicted time of each rank and the makespan. Deterministic; a\n"
	"trace whose receives cannot all be matched is reported, not waited on.\n"
	"See tracecluster-replay(1).\n"
	"\n"
	TC_ANL_MODEL_HELP
	"      --lenient       on a stall, complete the earliest blocked operation\n"
	"                      unmatched and go on (counted) instead of stopping\n"
	"      --json          one JSON document\n"
	"  -j, --threads N     worker threads\n"
	"  -h, --help          this help\n";

static void print_text(const char *path, const struct tc_replay_params *p,
		       const struct tc_replay_result *r, const int32_t *ranks)
{
	char tb[TC_DURATION_LEN];

	printf("replay:   %s\n", path);
	printf("model:    L %g us, o %g us, g %g us, G %g ns/byte, compute gaps %s\n", p->L * 1e6,
	       p->o * 1e6, p->g * 1e6, p->G * 1e9, p->gaps ? "on" : "off");
	printf("ranks:    %zu, %" PRIu64 " events, %" PRIu64 " messages, %" PRIu64
	       " collectives\n", r->nranks, r->events, r->messages, r->collectives);
	printf("makespan: %s (%.9f s)\n", tc_fmt_seconds(r->makespan, false, tb), r->makespan);
	if (r->unmatched_sends)
		printf("unmatched sends: %" PRIu64 "\n", r->unmatched_sends);
	if (r->deadlock) {
		printf("deadlock: %zu rank%s blocked%s\n", r->nblocked, r->nblocked == 1 ? "" : "s",
		       p->lenient ? " at the first stall" : "");
		if (p->lenient)
			printf("forced:   %" PRIu64 " operation%s completed unmatched\n", r->forced,
			       r->forced == 1 ? "" : "s");
		for (size_t i = 0; i < r->nblocked; i++)
			printf("  rank %" PRId32 " in %s (peer %" PRId32 ", tag %" PRId32 ")\n",
			       r->blocked[i].rank, tc_op_name(r->blocked[i].op) ?
			       tc_op_name(r->blocked[i].op) : "?", r->blocked[i].peer,
			       r->blocked[i].tag);
	}
	printf("\n%8s %16s\n", "rank", "time_s");
	for (size_t i = 0; i < r->nranks; i++)
		printf("%8" PRId32 " %16.9f\n", ranks ? ranks[i] : (int32_t)i, r->time[i]);
}

static struct tc_json *replay_json(const struct tc_replay_params *p, const struct tc_replay_result *r)
{
	struct tc_json *o = tc_json_object(), *m = tc_json_object(), *t = tc_json_array();
	struct tc_json *bl = tc_json_array();

	tc_json_set_real(m, "L_s", p->L);
	tc_json_set_real(m, "o_s", p->o);
	tc_json_set_real(m, "g_s", p->g);
	tc_json_set_real(m, "G_s_per_byte", p->G);
	tc_json_set_bool(m, "compute_gaps", p->gaps);
	tc_json_set(o, "model", m);
	tc_json_set_uint(o, "ranks", r->nranks);
	tc_json_set_uint(o, "events", r->events);
	tc_json_set_uint(o, "messages", r->messages);
	tc_json_set_uint(o, "collectives", r->collectives);
	tc_json_set_uint(o, "unmatched_sends", r->unmatched_sends);
	tc_json_set_bool(o, "deadlock", r->deadlock);
	tc_json_set_bool(m, "lenient", p->lenient);
	tc_json_set_uint(o, "forced", r->forced);
	for (size_t i = 0; i < r->nblocked; i++) {
		struct tc_json *b = tc_json_object();
		tc_json_set_int(b, "rank", r->blocked[i].rank);
		tc_json_set_str(b, "op", tc_op_name(r->blocked[i].op) ? tc_op_name(r->blocked[i].op) : "?");
		tc_json_set_int(b, "peer", r->blocked[i].peer);
		tc_json_set_int(b, "tag", r->blocked[i].tag);
		tc_json_append(bl, b);
	}
	tc_json_set(o, "blocked", bl);
	tc_json_set_real(o, "makespan_s", r->makespan);
	for (size_t i = 0; i < r->nranks; i++) {
		struct tc_json *e = tc_json_object();
		tc_json_set_int(e, "rank", r->rank[i]);
		tc_json_set_real(e, "time_s", r->time[i]);
		tc_json_append(t, e);
	}
	tc_json_set(o, "per_rank", t);
	return o;
}

int cmd_replay(int argc, char **argv)
{
	static const char *cmd = "replay";
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		TC_ANL_MODEL_LONGOPTS,
		{ "json", no_argument, NULL, 'J' },
		{ "lenient", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct tc_replay_params p;
	struct tc_replay_result res;
	struct tc_anl a;
	struct tc_pool *pool = NULL;
	struct tc_error err;
	bool json = false;
	int c, rc, status = TC_EXIT_FAIL;

	tc_replay_params_init(&p);
	memset(&res, 0, sizeof(res));
	memset(&a, 0, sizeof(a));
	while ((c = getopt_long(argc, argv, TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (tc_anl_model_option(cmd, c, optarg, &p, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return tc_print_help(replay_usage);
		case 'J':
			json = true;
			break;
		case 'L':
			p.lenient = true;
			break;
		default:
			if ((rc = tc_cmd_option(cmd, c, optarg, argv)))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return tc_usage_error(cmd, optind >= argc ? "missing DIR" : "too many arguments");
	tc_error_clear(&err);
	pool = tc_cmd_pool();
	if (tc_anl_open(&a, argv[optind], 0, pool, &err)) {
		tc_report(&err);
		goto out;
	}
	tc_anl_replay(&a, NULL, &p, &res);
	if (json) {
		struct tc_json *o = replay_json(&p, &res);
		tc_json_set_int(o, "schema", 1);
		tc_json_set_str(o, "input", argv[optind]);
		tc_json_write(o, stdout, TC_JSON_COMPACT);
		tc_json_free(o);
	} else {
		print_text(argv[optind], &p, &res, res.rank);
	}
	status = res.deadlock && !p.lenient ? TC_EXIT_FAIL : TC_EXIT_OK;
	if (res.deadlock && !p.lenient)
		tc_errorf("'%s': replay stopped: %zu rank%s blocked", argv[optind], res.nblocked,
			  res.nblocked == 1 ? "" : "s");
out:
	tc_replay_result_release(&res);
	tc_anl_release(&a);
	tc_pool_free(pool);
	return tc_finish_stdout(status);
}
