/*
 * cluster.c - tracecluster cluster: cluster the ranks of a trace set with
 * one of the modes of cluster/cluster.h and print the clusters, their
 * lead ranks, ranklists and signatures.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "analysis/seqload.h"
#include "formats/load.h"
#include "cmd/modeopt.h"
#include "lib/progress.h"
#include "cluster/cluster.h"
#include "cluster/signature.h"
#include "formats/raw.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/json.h"
#include "lib/pool.h"
#include "lib/ranklist.h"
#include "lib/rsd.h"
#include "lib/trace.h"
#include "lib/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char cluster_usage[] =
	"usage: tracecluster cluster [--mode M] [-k K] [--steps single|double]\n"
	"                            [--distance manhattan|euclidean] [--threshold F]\n"
	"                            [--noise F] [--seed S] [--verify] [--no-refine]\n"
	"                            [--json | --csv]\n"
	"                            [--match callsite|params] [--window N] [--salvage]\n"
	"                            [--marker OP[@CALLSITE]|auto] [--call-frequency N]\n"
	"                            [-j N] DIR|FILE\n"
	"       tracecluster cluster --list-modes\n"
	"\n"
	"Compress each rank's events into loops, compute its signatures and cluster\n"
	"the ranks: print every cluster with its lead rank, size, ranks (as plain\n"
	"ranges and in ScalaTrace's ranklist encoding) and signature values, and the\n"
	"main clusters of two-level modes. See tracecluster-cluster(1).\n"
	"\n"
	"  -m, --mode M      clustering mode (default callpath-param; see --list-modes)\n"
	"      --list-modes  list the modes and the paper sections they follow\n"
	TC_MODE_HELP
	"      --verify      compare every member's sequence with its lead's and\n"
	"                    report signature collisions\n"
	"      --no-refine   callpath-param, reference: signatures only, no exact\n"
	"                    comparison of members\n"
	"      --json        one JSON document instead of text\n"
	"      --csv         cluster membership as CSV: rank,cluster,lead, one row\n"
	"                    per rank (lead: the lead rank of its cluster)\n"
	"      --match M     loop compression: callsite (default) or params\n"
	"      --window N    loop compression looks back N nodes (default 256)\n"
	"      --salvage     read damaged files up to their damage; warn instead of fail\n"
	"  -j, --threads N   worker threads\n"
	"  -h, --help        this help\n";

struct load_ctx {
	struct tc_signatures *sigs;
	struct tc_rank_trace **traces; /* kept (a mode that needs its own) */
	bool borrowed;                 /* tc_load_shared keeps the trace */
};

static int load_one(size_t i, struct tc_rank_trace *t, void *p, struct tc_error *err)
{
	struct load_ctx *ctx = p;

	(void)err;
	tc_signatures_compute(t, &ctx->sigs[i]);
	if (ctx->traces)
		ctx->traces[i] = t;
	else if (!ctx->borrowed)
		tc_rank_trace_free(&t);
	return 0;
}

/* ---- text ----------------------------------------------------------------- */

static void print_hex(const char *name, uint64_t v)
{
	printf(" %s 0x%016" PRIx64, name, v);
}

static void print_sig_value(unsigned s, uint64_t v)
{
	const struct tc_sig_info *si = tc_sig_info(s);

	switch (si->kind) {
	case TC_SIGK_SIGNED:
		printf(" %s %" PRId64, si->name, (int64_t)v);
		break;
	case TC_SIGK_UNSIGNED:
		printf(" %s %" PRIu64, si->name, v);
		break;
	default:
		print_hex(si->name, v);
	}
}

/* The signature values a mode clusters by. */
static void print_signatures(const struct tc_clustering *c, const struct tc_cluster *cl)
{
	const char *m = c->mode;

	printf("  %-11s", "signature:");
	if (!strcmp(m, "callpath")) {
		print_hex("callpath", cl->sig.callpath);
	} else if (!strcmp(m, "callpath-param")) {
		print_hex("callpath", cl->sig.callpath);
		print_hex("param", cl->sig.param);
		printf(" count %" PRIu64, cl->count_mean);
	} else if (!strcmp(m, "reference")) {
		print_hex("reference", cl->sig.reference);
	} else if (!strcmp(m, "dynamic")) {
		print_hex("callpath", cl->sig.callpath);
		print_sig_value(TC_SIG_SRC, cl->sig.v[TC_SIG_SRC]);
		print_sig_value(TC_SIG_DEST, cl->sig.v[TC_SIG_DEST]);
	} else {
		bool any = false;
		for (unsigned s = 0; s < TC_NSIGS; s++)
			if (c->dims & (1u << s)) {
				print_sig_value(s, cl->sig.v[s]);
				any = true;
			}
		if (!any)
			print_hex("callpath", cl->sig.callpath);
	}
	printf("\n");
}

static void print_ranks(const struct tc_cluster *cl)
{
	char *ranges = tc_ranklist_ranges_text(cl->ranks, cl->nranks);
	char *st = tc_ranklist_st_text(cl->st, cl->nst);

	printf("  %-11s %s\n", "ranks:", ranges);
	printf("  %-11s %s\n", "ranklist:", st);
	free(st);
	free(ranges);
}

static void print_subs(const char *label, const struct tc_cluster *cl)
{
	printf("  %-11s", label);
	for (size_t s = 0; s < cl->nsubs; s++)
		printf(" %" PRIu32, cl->subs[s]);
	printf("\n");
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static double percent(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* Chameleon's numbers, as in Table 5.2 (dissertation §5.2). */
static void print_chameleon(const struct tc_chameleon *ch)
{
	const char *op = tc_op_name(ch->marker_op);

	printf("%-12s %s at 0x%016" PRIx64 ", call frequency %" PRIu32 "\n", "marker:",
	       op ? op : "?", ch->marker_site, ch->call_frequency);
	printf("%-12s %" PRIu64 " marker %s, %" PRIu64 " %s: C %" PRIu64 ", L %" PRIu64
	       ", AT %" PRIu64 "\n", "calls:", ch->marker_calls,
	       plural(ch->marker_calls, "call", "calls"), ch->calls,
	       plural(ch->calls, "invocation", "invocations"), ch->in_state[TC_CHAM_C],
	       ch->in_state[TC_CHAM_L], ch->in_state[TC_CHAM_AT]);
	printf("%-12s", "states:");
	for (uint64_t i = 0; i < ch->calls;) {
		uint64_t j = i;
		while (j < ch->calls && ch->states[j] == ch->states[i])
			j++;
		printf(" %s", tc_cham_state_name(ch->states[i]));
		if (j - i > 1)
			printf("*%" PRIu64, j - i);
		i = j;
	}
	if (!ch->calls)
		printf(" none");
	printf("\n");
	printf("%-12s %" PRIu64 " at markers%s; %" PRIu64 " %s into the online trace\n",
	       "clusterings:", ch->reclusterings,
	       ch->final_clustering ? ", 1 at MPI_Finalize" : "", ch->merges,
	       plural(ch->merges, "merge", "merges"));
	printf("%-12s %zu of %zu ranks (%.1f%%), %" PRIu64 " of %" PRIu64
	       " events (%.1f%%)\n", "needed:", ch->needed, ch->ranks,
	       percent(ch->needed, ch->ranks), ch->events_used, ch->events,
	       percent(ch->events_used, ch->events));
}

static void print_text(const struct tc_traceset *ts, const struct tc_clustering *c,
		       const struct tc_cluster_mode *m)
{
	const struct tc_cluster_opts *o = &c->opts;

	printf("%-12s %s\n", "trace set:", ts->dir);
	printf("%-12s %zu (world size %d)\n", "ranks:", c->nranks, ts->world_size);
	printf("%-12s %s (%s)\n", "mode:", m->name, m->section);
	if (c->chameleon)
		printf("%-12s k %" PRIu32 ", %s distance\n", "options:", o->k,
		       tc_cluster_distance_name(o->distance));
	else if (m->flags & TC_CMF_K)
		printf("%-12s k %" PRIu32 ", %s step, %s distance, timing noise %g%s", "options:",
		       o->k, tc_cluster_steps_name(o->steps), tc_cluster_distance_name(o->distance),
		       o->noise, (m->flags & TC_CMF_SEED) ? "" : "\n");
	if (m->flags & TC_CMF_SEED)
		printf(", seed %" PRIu64 "\n", o->seed);
	if (m->flags & TC_CMF_THRESHOLD)
		printf("%-12s COUNT threshold %g\n", "options:", o->threshold);
	if (c->nmains)
		printf("%-12s %zu in %zu main %s\n", "clusters:", c->nclusters, c->nmains,
		       plural(c->nmains, "cluster", "clusters"));
	else
		printf("%-12s %zu\n", "clusters:", c->nclusters);
	if (c->chameleon)
		print_chameleon(c->chameleon);
	if ((m->flags & TC_CMF_K) && !c->chameleon) {
		printf("%-12s 0x%03" PRIx32, "format:", c->format);
		if (!c->format)
			printf(" (all ranks alike)");
		for (unsigned s = 0; s < TC_NSIGS; s++)
			if (c->format & (1u << s))
				printf(" %s", tc_sig_info(s)->name);
		printf("\n");
	}
	if (m->flags & TC_CMF_REFINE) {
		if (c->refined)
			printf("%-12s exact comparison of members added %zu %s\n", "refinement:",
			       c->added, plural(c->added, "cluster", "clusters"));
		else
			printf("%-12s none (signatures only)\n", "refinement:");
	}
	if (c->filter.applied) {
		printf("%-12s applied: %zu sub-clusters > P/2 = %zu; merged on", "filtering:",
		       c->nclusters, c->filter.limit);
		for (unsigned p = 0; p < TC_NFP; p++)
			if (c->filter.params & (1u << p))
				printf(" %s", tc_filter_param_name(p));
		if (!c->filter.params)
			printf(" nothing");
		printf(": %zu %s\n", c->filter.ngroups, plural(c->filter.ngroups, "group", "groups"));
	} else if (m->flags & TC_CMF_FILTER) {
		if (c->nclusters <= c->filter.limit)
			printf("%-12s not needed (%zu sub-clusters <= P/2 = %zu)\n", "filtering:",
			       c->nclusters, c->filter.limit);
		else
			printf("%-12s not needed (one sub-cluster per main cluster)\n",
			       "filtering:");
	}
	if (c->verified && c->claim >= 0)
		printf("%-12s %zu signature %s (members that differ from their lead at "
		       "level %s)\n", "verify:", c->collisions,
		       plural(c->collisions, "collision", "collisions"), tc_seq_level_name(c->claim));
	else if (c->verified)
		printf("%-12s done; the mode merges ranks that differ, so it has no "
		       "collisions to report\n", "verify:");

	for (size_t k = 0; k < c->nmains; k++) {
		const struct tc_cluster *cl = &c->mains[k];
		printf("\nmain cluster %" PRIu32 ": lead %" PRId32 ", %zu %s\n", cl->id, cl->lead,
		       cl->nranks, plural(cl->nranks, "rank", "ranks"));
		print_ranks(cl);
		print_subs("clusters:", cl);
	}
	for (size_t k = 0; k < c->nclusters; k++) {
		const struct tc_cluster *cl = &c->clusters[k];
		printf("\ncluster %" PRIu32, cl->id);
		if (cl->parent >= 0)
			printf(" (main %" PRId32 ")", cl->parent);
		printf(": lead %" PRId32 ", %zu %s\n", cl->lead, cl->nranks,
		       plural(cl->nranks, "rank", "ranks"));
		print_ranks(cl);
		print_signatures(c, cl);
		if (c->verified)
			printf("  %-11s %" PRIu32 " distinct %s; differ from the lead: %" PRIu32
			       " in call sites, %" PRIu32 " in parameters, %" PRIu32 " at all, %"
			       PRIu32 " in split colour/key\n",
			       "verify:", cl->check.sequences,
			       plural(cl->check.sequences, "sequence", "sequences"),
			       cl->check.differ[TC_LEVEL_CALLPATH], cl->check.differ[TC_LEVEL_PARAM],
			       cl->check.differ[TC_LEVEL_EXACT], cl->check.comm_differ);
	}
	for (size_t g = 0; g < c->filter.ngroups; g++) {
		const struct tc_cluster *cl = &c->filter.groups[g];
		printf("\nfiltered group %" PRIu32 " (main %" PRId32 "): lead %" PRId32
		       ", %zu %s\n", cl->id, cl->parent, cl->lead, cl->nranks,
		       plural(cl->nranks, "rank", "ranks"));
		print_ranks(cl);
		print_subs("clusters:", cl);
	}
}

/* ---- JSON ------------------------------------------------------------------ */

static struct tc_json *json_hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
	return tc_json_str(buf);
}

static struct tc_json *json_sig(unsigned s, uint64_t v)
{
	switch (tc_sig_info(s)->kind) {
	case TC_SIGK_SIGNED:
		return tc_json_int((int64_t)v);
	case TC_SIGK_UNSIGNED:
		return tc_json_uint(v);
	default:
		return json_hex(v);
	}
}

static struct tc_json *json_u32s(const uint32_t *v, size_t n)
{
	struct tc_json *a = tc_json_array();

	for (size_t i = 0; i < n; i++)
		tc_json_append(a, tc_json_uint(v[i]));
	return a;
}

static struct tc_json *json_cluster(const struct tc_cluster *cl, bool sub, bool main,
				    bool verified)
{
	struct tc_json *o = tc_json_object(), *ranks = tc_json_array(), *rl = tc_json_array();
	struct tc_json *sig = tc_json_object(), *ac = tc_json_object();
	char *ranges = tc_ranklist_ranges_text(cl->ranks, cl->nranks);

	tc_json_set_uint(o, "id", cl->id);
	tc_json_set_int(o, "lead", cl->lead);
	tc_json_set_uint(o, "size", cl->nranks);
	for (size_t r = 0; r < cl->nranks; r++)
		tc_json_append(ranks, tc_json_int(cl->ranks[r]));
	tc_json_set(o, "ranks", ranks);
	for (size_t i = 0; i < cl->nst; i++)
		tc_json_append(rl, tc_json_int(cl->st[i]));
	tc_json_set(o, "ranklist", rl);
	tc_json_set_str(o, "ranges", ranges);
	free(ranges);
	if (sub)
		tc_json_set_int(o, "main", cl->parent);
	if (main)
		tc_json_set(o, "subclusters", json_u32s(cl->subs, cl->nsubs));
	tc_json_set(sig, "callpath", json_hex(cl->sig.callpath));
	tc_json_set(sig, "param", json_hex(cl->sig.param));
	tc_json_set(sig, "reference", json_hex(cl->sig.reference));
	tc_json_set_uint(sig, "count_mean", cl->count_mean);
	for (unsigned s = 0; s < TC_NSIGS; s++)
		tc_json_set(ac, tc_sig_info(s)->name, json_sig(s, cl->sig.v[s]));
	tc_json_set(sig, "acurdion", ac);
	tc_json_set(o, "signatures", sig);
	if (verified) {
		struct tc_json *v = tc_json_object(), *d = tc_json_object();
		tc_json_set_uint(v, "sequences", cl->check.sequences);
		for (int l = 0; l < TC_NLEVELS; l++)
			tc_json_set_uint(d, tc_seq_level_name(l), cl->check.differ[l]);
		tc_json_set_uint(d, "comm", cl->check.comm_differ);
		tc_json_set(v, "differ", d);
		tc_json_set_uint(v, "collisions", cl->check.collisions);
		tc_json_set(o, "verify", v);
	}
	return o;
}

static struct tc_json *json_chameleon(const struct tc_chameleon *ch)
{
	struct tc_json *o = tc_json_object(), *st = tc_json_object(), *seq = tc_json_array();
	struct tc_json *mk = tc_json_object();
	const char *op = tc_op_name(ch->marker_op);

	tc_json_set_str(mk, "op", op ? op : "?");
	tc_json_set(mk, "callsite", json_hex(ch->marker_site));
	tc_json_set(o, "marker", mk);
	tc_json_set_uint(o, "call_frequency", ch->call_frequency);
	tc_json_set_uint(o, "marker_calls", ch->marker_calls);
	tc_json_set_uint(o, "calls", ch->calls);
	for (int s = 0; s < TC_NCHAM_STATES; s++)
		tc_json_set_uint(st, tc_cham_state_name(s), ch->in_state[s]);
	tc_json_set(o, "in_state", st);
	for (uint64_t i = 0; i < ch->calls; i++)
		tc_json_append(seq, tc_json_str(tc_cham_state_name(ch->states[i])));
	tc_json_set(o, "states", seq);
	tc_json_set_uint(o, "reclusterings", ch->reclusterings);
	tc_json_set_bool(o, "final_clustering", ch->final_clustering);
	tc_json_set_uint(o, "merges", ch->merges);
	tc_json_set_uint(o, "ranks_needed", ch->needed);
	tc_json_set_real(o, "ranks_needed_share", ch->ranks ?
			 (double)ch->needed / (double)ch->ranks : 0.0);
	tc_json_set_uint(o, "events", ch->events);
	tc_json_set_uint(o, "events_used", ch->events_used);
	return o;
}

static void print_json(const struct tc_traceset *ts, const struct tc_clustering *c,
		       const struct tc_cluster_mode *m, const struct tc_rsd_opts *ro)
{
	struct tc_json *doc = tc_json_object(), *opt = tc_json_object();
	struct tc_json *arr = tc_json_array();
	const struct tc_cluster_opts *o = &c->opts;

	tc_json_set_int(doc, "schema", 2);
	tc_json_set_str(doc, "mode", c->mode);
	tc_json_set_str(doc, "section", m->section);
	tc_json_set_str(doc, "input", ts->dir);
	tc_json_set_uint(doc, "ranks", c->nranks);
	tc_json_set_int(doc, "world_size", ts->world_size);
	tc_json_set_str(opt, "match", tc_rsd_match_name(ro->match));
	tc_json_set_uint(opt, "window", ro->window);
	if (c->chameleon) {
		tc_json_set_uint(opt, "k", o->k);
		tc_json_set_str(opt, "distance", tc_cluster_distance_name(o->distance));
	} else if (m->flags & TC_CMF_K) {
		tc_json_set_uint(opt, "k", o->k);
		tc_json_set_str(opt, "steps", tc_cluster_steps_name(o->steps));
		tc_json_set_str(opt, "distance", tc_cluster_distance_name(o->distance));
		tc_json_set_real(opt, "noise", o->noise);
	}
	if (m->flags & TC_CMF_SEED)
		tc_json_set_uint(opt, "seed", o->seed);
	if (m->flags & TC_CMF_THRESHOLD)
		tc_json_set_real(opt, "threshold", o->threshold);
	tc_json_set(doc, "options", opt);
	for (size_t k = 0; k < c->nclusters; k++)
		tc_json_append(arr, json_cluster(&c->clusters[k], c->nmains > 0, false,
						 c->verified));
	tc_json_set(doc, "clusters", arr);
	if (c->nmains) {
		arr = tc_json_array();
		for (size_t k = 0; k < c->nmains; k++)
			tc_json_append(arr, json_cluster(&c->mains[k], false, true, false));
		tc_json_set(doc, "main_clusters", arr);
	}
	if (c->chameleon)
		tc_json_set(doc, "chameleon", json_chameleon(c->chameleon));
	if ((m->flags & TC_CMF_K) && !c->chameleon) {
		struct tc_json *f = tc_json_object(), *names = tc_json_array();
		char buf[16];
		snprintf(buf, sizeof(buf), "0x%03" PRIx32, c->format);
		tc_json_set_str(f, "bitmap", buf);
		for (unsigned s = 0; s < TC_NSIGS; s++)
			if (c->format & (1u << s))
				tc_json_append(names, tc_json_str(tc_sig_info(s)->name));
		tc_json_set(f, "signatures", names);
		tc_json_set(doc, "format", f);
	}
	if (m->flags & TC_CMF_REFINE) {
		struct tc_json *r = tc_json_object();
		tc_json_set_bool(r, "done", c->refined);
		tc_json_set_uint(r, "added", c->added);
		tc_json_set(doc, "refinement", r);
	}
	if (m->flags & TC_CMF_FILTER) {
		struct tc_json *f = tc_json_object(), *names = tc_json_array();
		tc_json_set_bool(f, "applied", c->filter.applied);
		tc_json_set_uint(f, "limit", c->filter.limit);
		for (unsigned p = 0; p < TC_NFP; p++)
			if (c->filter.params & (1u << p))
				tc_json_append(names, tc_json_str(tc_filter_param_name(p)));
		tc_json_set(f, "parameters", names);
		arr = tc_json_array();
		for (size_t g = 0; g < c->filter.ngroups; g++)
			tc_json_append(arr, json_cluster(&c->filter.groups[g], true, true, false));
		tc_json_set(f, "groups", arr);
		tc_json_set(doc, "filtering", f);
	}
	if (c->verified) {
		struct tc_json *v = tc_json_object();
		tc_json_set_uint(v, "collisions", c->collisions);
		tc_json_set_str(v, "level", tc_seq_level_name(c->claim));
		tc_json_set(doc, "verify", v);
	}
	tc_json_write(doc, stdout, TC_JSON_COMPACT);
	tc_json_free(doc);
}

static int cmp_rank(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* rank,cluster,lead: one row per rank, by rank. */
static void print_csv(const struct tc_clustering *c)
{
	size_t n = 0, k = 0;
	struct { int32_t rank; uint32_t id; int32_t lead; } *rows;

	for (size_t i = 0; i < c->nclusters; i++)
		n += c->clusters[i].nranks;
	rows = tc_xcalloc(n + 1, sizeof(*rows));
	for (size_t i = 0; i < c->nclusters; i++)
		for (size_t r = 0; r < c->clusters[i].nranks; r++) {
			rows[k].rank = c->clusters[i].ranks[r];
			rows[k].id = c->clusters[i].id;
			rows[k++].lead = c->clusters[i].lead;
		}
	qsort(rows, n, sizeof(*rows), cmp_rank);
	printf("rank,cluster,lead\n");
	for (size_t i = 0; i < n; i++)
		printf("%" PRId32 ",%" PRIu32 ",%" PRId32 "\n", rows[i].rank, rows[i].id, rows[i].lead);
	free(rows);
}

static int list_modes(void)
{
	size_t n;
	const struct tc_cluster_mode *m = tc_cluster_modes(&n);

	for (size_t i = 0; i < n; i++)
		printf("%-15s %s\n%-15s (%s)\n", m[i].name, m[i].description, "", m[i].section);
	return TC_EXIT_OK;
}

/* ---- the command ------------------------------------------------------------- */

/* The command line, parsed. */
struct cluster_args {
	const char *path;
	const struct tc_cluster_mode *mode;
	struct tc_mode_args margs;
	struct tc_rsd_opts ropts;
	unsigned flags;          /* TC_RAW_* */
	bool json, csv, verify, refine, list;
};

/* Fill ca from argv: -1 to go on, else the status to exit with. */
static int parse_args(int argc, char **argv, struct cluster_args *ca)
{
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "mode", required_argument, NULL, 'm' },
		{ "list-modes", no_argument, NULL, 'L' },
		TC_MODE_LONGOPTS,
		TC_MODE_THRESHOLD_LONGOPT,
		{ "verify", no_argument, NULL, 'V' },
		{ "no-refine", no_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'J' },
		{ "csv", no_argument, NULL, 'c' },
		{ "match", required_argument, NULL, 'M' },
		{ "window", required_argument, NULL, 'W' },
		{ "salvage", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "cluster";
	uint64_t u;
	int c, rc;

	memset(ca, 0, sizeof(*ca));
	ca->mode = tc_cluster_mode_find("callpath-param");
	ca->ropts.window = TC_RSD_WINDOW_DEFAULT;
	ca->ropts.match = TC_RSD_MATCH_CALLSITE;
	ca->refine = true;
	tc_mode_args_init(&ca->margs, false);
	while ((c = getopt_long(argc, argv, ":m:k:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (tc_mode_option(cmd, c, optarg, &ca->margs, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'h':
			return tc_print_help(cluster_usage);
		case 'm':
			ca->mode = tc_cluster_mode_find(optarg);
			if (!ca->mode)
				return tc_usage_error(cmd, "--mode: unknown mode '%s' (see --list-modes)",
						      optarg);
			break;
		case 'L':
			ca->list = true;
			break;
		case 'V':
			ca->verify = true;
			break;
		case 'R':
			ca->refine = false;
			break;
		case 'J':
			ca->json = true;
			break;
		case 'c':
			ca->csv = true;
			break;
		case 'M':
			rc = tc_rsd_match_from_name(optarg);
			if (rc < 0)
				return tc_usage_error(cmd, "--match: expected params or callsite, got '%s'",
						      optarg);
			ca->ropts.match = rc;
			break;
		case 'W':
			rc = tc_parse_u64(cmd, "--window", optarg, &u);
			if (rc)
				return rc;
			if (u < 1 || u > TC_RSD_WINDOW_MAX)
				return tc_usage_error(cmd, "--window: %s is out of range (1 to %u)",
						      optarg, TC_RSD_WINDOW_MAX);
			ca->ropts.window = (uint32_t)u;
			break;
		case 'A':
			ca->flags |= TC_RAW_SALVAGE;
			break;
		default:
			if ((rc = tc_cmd_option(cmd, c, optarg, argv)))
				return rc;
		}
	}
	if (ca->list) {
		if (optind != argc)
			return tc_usage_error(cmd, "--list-modes takes no DIR");
		return list_modes();
	}
	if (optind + 1 != argc)
		return tc_usage_error(cmd, optind >= argc ? "missing DIR" : "too many arguments");
	if (ca->json && ca->csv)
		return tc_usage_error(cmd, "--json and --csv exclude each other");
	ca->path = argv[optind];
	return -1;
}

/* A trace set read for clustering: each rank's signature, and the traces
 * when the clustering compares them. */
struct cluster_set {
	struct tc_traceset *ts;
	struct load_ctx ctx;
	struct tc_load_shared shared;
};

static void cluster_set_release(struct cluster_set *cs)
{
	if (cs->ctx.borrowed)
		tc_load_shared_release(&cs->shared);
	else if (cs->ctx.traces)
		tc_load_free_all(cs->ctx.traces, cs->ts ? cs->ts->nfiles : 0);
	free(cs->ctx.sigs);
	tc_traceset_free(&cs->ts);
}

/* Read ca->path into cs (released by the caller either way). */
static int load_set(const struct cluster_args *ca, struct tc_pool *pool, struct cluster_set *cs,
		    struct tc_error *err)
{
	const struct tc_cluster_mode *mode = ca->mode;
	struct tc_raw_stats *rstats;
	struct tc_progress *prog;
	struct tc_traceset *ts;
	bool keep;
	int rc;

	memset(cs, 0, sizeof(*cs));
	if (tc_open_set(ca->path, ca->flags, pool, &cs->ts, err))
		return -1;
	ts = cs->ts;
	cs->ctx.sigs = tc_xcalloc(ts->nfiles ? ts->nfiles : 1, sizeof(*cs->ctx.sigs));
	/* the traces stay in memory for exact comparison of members: one per
	 * class of equal traces unless the mode needs every rank's own */
	keep = ca->verify || (mode->flags & TC_CMF_TRACES) ||
	       (ca->refine && (mode->flags & TC_CMF_REFINE));
	if (keep && (mode->flags & TC_CMF_OWN))
		cs->ctx.traces = tc_xcalloc(ts->nfiles ? ts->nfiles : 1, sizeof(*cs->ctx.traces));
	cs->ctx.borrowed = keep && !cs->ctx.traces;
	rstats = tc_xcalloc(ts->nfiles ? ts->nfiles : 1, sizeof(*rstats));
	prog = tc_progress_start("reading", ts->nfiles);
	ts->progress = tc_progress_counter(prog);
	if (cs->ctx.borrowed)
		rc = tc_load_shared(ts, pool, &ca->ropts, load_one, &cs->ctx, rstats, &cs->shared,
				    err);
	else
		rc = tc_load_each(ts, pool, &ca->ropts, load_one, &cs->ctx, rstats, err);
	if (!rc && cs->ctx.borrowed)
		cs->ctx.traces = cs->shared.traces;
	tc_progress_stop(&prog);
	ts->progress = NULL;
	for (size_t i = 0; !rc && i < ts->nfiles; i++)
		tc_warn_salvaged(ts->files[i].path, rstats[i].events, rstats[i].bad_blocks,
				 rstats[i].bad_bytes, rstats[i].has_trailer,
				 rstats[i].first_error_msg);
	free(rstats);
	return rc;
}

/* Cluster the loaded set as ca says (and verify with --verify). */
static int cluster(const struct cluster_args *ca, const struct cluster_set *cs,
		   struct tc_pool *pool, struct tc_clustering *result, struct tc_error *err)
{
	const struct tc_cluster_mode *mode = ca->mode;
	struct tc_cluster_opts copts = ca->margs.o;
	struct tc_cluster_input in;

	copts.pool = pool;
	in.sigs = cs->ctx.sigs;
	in.n = cs->ts->nfiles;
	/* --no-refine: cluster by the signatures alone */
	in.traces = ca->refine || (mode->flags & TC_CMF_TRACES) ? cs->ctx.traces : NULL;
	if (tc_cluster_run(mode, &in, &copts, result, err))
		return -1;
	if (ca->verify) {
		in.traces = cs->ctx.traces;
		if (tc_cluster_verify(result, &in, &copts, err))
			return -1;
	}
	return 0;
}

int cmd_cluster(int argc, char **argv)
{
	struct cluster_args ca;
	struct cluster_set cs;
	struct tc_clustering result;
	struct tc_pool *pool;
	struct tc_error err;
	int rc;

	if ((rc = parse_args(argc, argv, &ca)) >= 0)
		return rc;
	tc_error_clear(&err);
	tc_clustering_init(&result);
	pool = tc_cmd_pool();
	if (load_set(&ca, pool, &cs, &err) || cluster(&ca, &cs, pool, &result, &err)) {
		tc_report(&err);
		rc = TC_EXIT_FAIL;
	} else {
		if (ca.json)
			print_json(cs.ts, &result, ca.mode, &ca.ropts);
		else if (ca.csv)
			print_csv(&result);
		else
			print_text(cs.ts, &result, ca.mode);
		rc = TC_EXIT_OK;
	}
	tc_clustering_release(&result);
	cluster_set_release(&cs);
	tc_pool_free(pool);
	return rc;
}
