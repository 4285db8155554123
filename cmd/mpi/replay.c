/*
 * replay.c - tracecluster-replay: re-execute the communication of a trace
 * on real MPI ranks (ScalaReplay's use of a global trace).
 *
 *   mpirun -np P tracecluster-replay [options] TRACE
 *
 * TRACE is a global trace (.tct, any serialisation, any clustering mode),
 * expanded here for each rank with the library's iterator, or a raw trace
 * set (a directory, read with the trace-set reader). Each rank loads its
 * own events, then issues every MPI call they record with the recorded
 * parameters (ops.c), separated by the recorded compute gaps, and reports
 * its elapsed time. A watchdog thread turns a replay that stops making
 * progress into a report of where each stuck rank is and a non-zero exit.
 * See tracecluster-replay(1).
 */
#include "lib/compat.h"
#include "cmd/mpi/internal.h"
#include "cmd/mpi/discount.h"
#include "formats/tct.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/hash.h"
#include "lib/json.h"
#include "lib/merge.h"
#include "lib/pool.h"
#include "lib/ranklist.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <getopt.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"usage: mpirun -np P tracecluster-replay [--compute cpu|spin|sleep] [--cpu-share F]\n"
	"                                        [--other-load N|now] [--node-share F|now]\n"
	"                                        [--no-compute]\n"
	"                                        [--tracer-cost recorded|mean|none|NS]\n"
	"                                        [--any-source recorded|any]\n"
	"                                        [--empty-polls guard|issue]\n"
	"                                        [--timeout S] [--force]\n"
	"                                        [--json] [-q] TRACE\n"
	"\n"
	"Replay the communication of TRACE (a global trace .tct in any form, or a raw\n"
	"trace set directory) on P real MPI ranks, P the trace's world size: every\n"
	"MPI call each rank recorded, with its peers, tags, counts, datatypes of the\n"
	"recorded sizes, roots, reduction ops, communicators and requests, separated\n"
	"by the recorded compute gaps. Prints each rank's elapsed time. A trace whose\n"
	"ranks disagree (messages that do not pair up, collectives on MPI_COMM_WORLD\n"
	"that differ) is refused before it starts, naming the call; a replay that\n"
	"stops making progress for S seconds reports where each rank is stuck and\n"
	"exits non-zero. See tracecluster-replay(1).\n"
	"\n"
	"      --compute MODE  compute gaps by busy waiting for the CPU time they had\n"
	"                      when recorded (cpu; the default), for their time (spin),\n"
	"                      or by sleeping (sleep)\n"
	"      --cpu-share F   --compute cpu: the share of a core each rank had when\n"
	"                      recorded (default: at each moment, the node's cores\n"
	"                      divided among the ranks computing then in the trace)\n"
	"      --other-load N  --compute cpu from the timeline: N tasks of other jobs\n"
	"                      competed for the node's cores when it was recorded; now:\n"
	"                      as many as compete now, counted before the replay\n"
	"                      (default 0)\n"
	"      --node-share F  --compute cpu from the timeline: the job had the share F\n"
	"                      of the node's cores when it was recorded, other jobs the\n"
	"                      rest; now: the share it gets now, measured before the\n"
	"                      replay by spinning every rank (default 1)\n"
	"      --no-compute    no compute gaps: the communication alone\n"
	"      --tracer-cost C the tracer's time per call inside the recorded gaps,\n"
	"                      taken out of them: recorded (the default: as the\n"
	"                      capture shim measured it after each op's calls, kept\n"
	"                      in the raw files and the global trace), mean (its mean\n"
	"                      over every call after each), none, or NS nanoseconds\n"
	"      --any-source M  recorded: a wildcard receive or probe names the source\n"
	"                      it matched in the trace, or one inferred from the\n"
	"                      ranks' messages where the trace does not say (the\n"
	"                      default); any: as recorded\n"
	"      --empty-polls P an MPI_Improbe that found no message in the trace:\n"
	"                      guard: not issued when a message it would take is\n"
	"                      there (the default); issue: issued as recorded; a\n"
	"                      message such a poll takes is held for the call of the\n"
	"                      trace that takes it\n"
	"      --timeout S     watchdog: seconds without progress inside one MPI call\n"
	"                      before the replay is reported stuck (default 120)\n"
	"      --force         replay a trace whose ranks disagree, which is refused by\n"
	"                      default: point-to-point messages that do not pair up (a\n"
	"                      rank sends more to another than that one receives from\n"
	"                      it, or fewer), collectives on MPI_COMM_WORLD that differ\n"
	"                      (operation, root, bytes)\n"
	"      --json          one JSON document on standard output\n"
	"  -q, --quiet         no warnings about skipped operations\n"
	"  -h, --help          this help\n"
	"      --version       the version\n";

/* ---- loading one rank's events ------------------------------------------ */

/* The arrays of every event, copied (events keep offsets until the end). */
struct loader {
	struct tc_revents *out;
	uint64_t *words;
	size_t nwords, awords;
};

static uint64_t put_words(struct loader *l, const void *p, size_t nbytes)
{
	size_t n = (nbytes + 7) / 8, at = l->nwords;

	if (!n)
		return 0;
	if (l->nwords + n > l->awords) {
		l->awords = l->awords ? 2 * l->awords : 1024;
		while (l->nwords + n > l->awords)
			l->awords *= 2;
		l->words = tc_xrealloc(l->words, tc_st_mult(l->awords, 8));
	}
	memcpy(l->words + at, p, nbytes);
	l->nwords += n;
	return (uint64_t)at + 1;
}

static int load_event(void *ctx, const struct tc_event *ev)
{
	struct loader *l = ctx;
	struct tc_revents *r = l->out;
	struct tc_event *e;

	if (r->n == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 1024;
		r->ev = tc_xrealloc(r->ev, tc_st_mult(r->alloc, sizeof(*r->ev)));
	}
	e = &r->ev[r->n++];
	*e = *ev;
	/* offsets + 1 into the word arena until every event is in */
	e->compl = (const void *)(uintptr_t)put_words(l, ev->compl,
						       ev->ncompl * sizeof(*ev->compl));
	e->scounts = (const void *)(uintptr_t)put_words(l, ev->scounts, ev->nscounts * 8);
	e->rcounts = (const void *)(uintptr_t)put_words(l, ev->rcounts, ev->nrcounts * 8);
	return 0;
}

static int load_comm(void *ctx, const struct tc_comm *c)
{
	struct loader *l = ctx;
	struct tc_revents *r = l->out;
	struct tc_comm *e;
	int32_t *m = NULL, *g = NULL;

	if (c->members) {
		m = tc_xmalloc(tc_st_mult(c->size ? c->size : 1, sizeof(*m)));
		memcpy(m, c->members, (size_t)c->size * sizeof(*m));
	}
	if (c->graph) {
		g = tc_xmalloc(tc_st_mult(tc_comm_edge_words(c) + 1, sizeof(*g)));
		memcpy(g, c->edges, tc_comm_edge_words(c) * sizeof(*g));
	}
	r->comms = tc_xrealloc(r->comms, tc_st_mult(r->ncomms + 1, sizeof(*r->comms)));
	e = &r->comms[r->ncomms++];
	*e = *c;
	e->members = m;
	e->edges = g;
	return 0;
}

static const void *fix_ptr(const uint64_t *base, const void *off)
{
	uintptr_t o = (uintptr_t)off;

	return o ? base + (o - 1) : NULL;
}

static void loader_finish(struct loader *l)
{
	struct tc_revents *r = l->out;

	r->words = l->words;
	for (size_t i = 0; i < r->n; i++) {
		struct tc_event *e = &r->ev[i];
		e->compl = fix_ptr(r->words, e->compl);
		e->scounts = fix_ptr(r->words, e->scounts);
		e->rcounts = fix_ptr(r->words, e->rcounts);
	}
}

static int load_tct(const char *path, int32_t rank, int32_t world, struct loader *l,
		    struct tc_error *err)
{
	struct tc_gtrace *g = NULL;
	struct tc_gtrace_iter it;
	struct tc_event ev;
	int rc = -1;

	if (tc_tct_read(path, &g, err))
		return -1;
	if (g->world_size != world) {
		tc_error_set(err, TC_ERR_FORMAT, path, -1,
			     "the trace is of %" PRId32 " ranks, the replay runs on %" PRId32,
			     g->world_size, world);
		goto out;
	}
	l->out->tracer_ns = g->tracer_ns;
	if (g->skew && rank >= 0 && rank < g->world_size) {
		l->out->skew = g->skew[rank] + 1;
		if (g->nconc) {
			l->out->conc = tc_xmalloc(g->nconc * sizeof(*g->conc));
			memcpy(l->out->conc, g->conc, g->nconc * sizeof(*g->conc));
			l->out->nconc = g->nconc;
		}
	}
	for (size_t i = 0; i < g->ntracer_ops; i++) {
		l->out->tracer_op[g->tracer_ops[i].op] = g->tracer_ops[i].ns + 1;
		l->out->has_tracer_op = true;
	}
	if (tc_gtrace_iter_init(&it, g, rank)) {
		tc_error_set(err, TC_ERR_FORMAT, path, -1, "rank %" PRId32 " is not in the trace",
			     rank);
		goto out;
	}
	while (tc_gtrace_iter_next(&it, &ev))
		load_event(l, &ev);
	tc_gtrace_iter_release(&it);
	/* the rank's communicators, from the trace's table (none in a trace
	 * written before it had one) */
	for (size_t i = 0; i < g->ncomms; i++) {
		const struct tc_gcomm *gc = &g->comms[i];
		struct tc_comm c = { .id = gc->id, .parent = gc->parent, .creator = gc->creator,
				     .size = gc->size, .members = gc->members, .ndims = gc->ndims,
				     .periods = gc->periods, .graph = gc->graph,
				     .weighted = gc->weighted, .nin = gc->nin, .nout = gc->nout,
				     .edges = gc->edges };
		if (!tc_ranklist_contains(&gc->ranks, rank))
			continue;
		memcpy(c.dims, gc->dims, sizeof(c.dims));
		load_comm(l, &c);
	}
	rc = 0;
out:
	tc_gtrace_free(&g);
	return rc;
}

static int load_set(const char *path, int32_t rank, int32_t world, struct loader *l,
		    struct tc_error *err)
{
	static const struct tc_read_ops ops = { .event = load_event, .comm = load_comm };
	struct tc_traceset *ts = NULL;
	struct tc_reader *r = NULL;
	struct tc_raw_stats st;
	size_t i;
	int rc = -1;

	struct tc_pool *pool = tc_pool_new(1);

	rc = tc_traceset_open(&ts, path, 0, pool, err);
	tc_pool_free(pool);
	if (rc)
		return -1;
	rc = -1;
	if (tc_traceset_check(ts, err))
		goto out;
	if (ts->world_size != world) {
		tc_error_set(err, TC_ERR_FORMAT, path, -1,
			     "the trace is of %" PRId32 " ranks, the replay runs on %" PRId32,
			     ts->world_size, world);
		goto out;
	}
	for (i = 0; i < ts->nfiles && ts->files[i].hdr.rank != rank; i++)
		;
	if (i == ts->nfiles) {
		tc_error_set(err, TC_ERR_FORMAT, path, -1, "no events of rank %" PRId32, rank);
		goto out;
	}
	if (tc_traceset_open_file(ts, i, &r, err))
		goto out;
	if (tc_reader_read(r, &ops, l, &st, err))
		goto out;
	/* a raw file's clock: on one host, the ranks' on one timeline */
	if (tc_traceset_host_clock(&ts->files[i])) {
		l->out->start_ns = ts->files[i].hdr.start_time_ns;
		l->out->host = tc_hash64(ts->files[i].hdr.host, strlen(ts->files[i].hdr.host), 0);
	}
	l->out->tracer_ns = st.has_trailer && st.trailer.tracer_ns <= TC_TRACER_NS_MAX ?
			    st.trailer.tracer_ns : 0;
	for (unsigned k = 0; st.has_trailer && k < st.trailer.ntracer_op; k++) {
		l->out->tracer_op[st.trailer.tracer_op[k].op] = st.trailer.tracer_op[k].ns + 1;
		l->out->has_tracer_op = true;
	}
	rc = 0;
out:
	tc_reader_close(&r);
	tc_traceset_free(&ts);
	return rc;
}

int tc_revents_load(struct tc_revents *r, const char *path, int32_t rank, int32_t world,
		    struct tc_error *err)
{
	struct loader l = { .out = r };
	int rc;

	memset(r, 0, sizeof(*r));
	rc = tc_tct_file_probe(path) ? load_tct(path, rank, world, &l, err)
				     : load_set(path, rank, world, &l, err);
	loader_finish(&l);
	return rc;
}

void tc_revents_release(struct tc_revents *r)
{
	free(r->ev);
	free(r->words);
	for (size_t i = 0; i < r->ncomms; i++) {
		free((void *)r->comms[i].members);
		free((void *)r->comms[i].edges);
	}
	free(r->comms);
	free(r->conc);
	memset(r, 0, sizeof(*r));
}

/* The span the replay re-enacts: from the end of the rank's first event
 * (MPI_Init) to the start of its MPI_Finalize (or the end of its last
 * event), in seconds. */
static double recorded_span(const struct tc_revents *r)
{
	uint64_t a, b;

	if (!r->n)
		return 0;
	a = tc_op_kind(r->ev[0].op) == TC_K_ENV ? r->ev[0].t_end : r->ev[0].t_start;
	b = r->ev[r->n - 1].op == TC_OP_FINALIZE ? r->ev[r->n - 1].t_start : r->ev[r->n - 1].t_end;
	return b > a ? (double)(b - a) * 1e-9 : 0;
}

/* ---- the watchdog -------------------------------------------------------- */

struct watch {
	struct tc_replay_mpi *s;
	double timeout;
	atomic_bool stop;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* At most this many requests of a wait are named. */
#define STUCK_REQS 4

/*
 * Where a rank is stuck: event i; for a wait, the events that made the
 * requests it waits for as the trace completes them (the latest event
 * before i with the request's id: its nonblocking call or start).
 */
static void describe_stuck(const struct tc_revents *e, uint64_t i, struct tc_strbuf *sb)
{
	const struct tc_event *ev = &e->ev[i];
	size_t named = 0, more = 0;
	char text[256];

	tc_rp_event_text(ev, (size_t)i, text, sizeof(text));
	tc_strbuf_addstr(sb, text);
	if (tc_op_kind(ev->op) != TC_K_WAIT || !ev->ncompl)
		return;
	for (uint32_t j = 0; j < ev->ncompl; j++) {
		uint64_t id = ev->compl[j].request;
		size_t k = (size_t)i;
		while (id && k-- > 0)
			if ((e->ev[k].fields & TC_F_REQUEST) && e->ev[k].request == id)
				break;
		if (!id || k == SIZE_MAX)
			continue;
		if (named == STUCK_REQS) {
			more++;
			continue;
		}
		tc_rp_event_text(&e->ev[k], k, text, sizeof(text));
		tc_strbuf_addf(sb, "%s %s", named ? "," : " waiting for", text);
		named++;
	}
	if (more)
		tc_strbuf_addf(sb, " and %zu more", more);
}

static void *watchdog(void *arg)
{
	struct watch *w = arg;
	struct tc_replay_mpi *s = w->s;
	uint64_t last = UINT64_MAX;
	double since = now_s();

	while (!atomic_load(&w->stop)) {
		uint64_t at = atomic_load(&s->progress);
		double t = now_s();
		if (at != last || !atomic_load(&s->in_mpi)) {
			last = at;
			since = t;
		} else if (t - since > w->timeout) {
			/* the replay's thread is inside an MPI call: the events
			 * are not written meanwhile (read only after loading) */
			struct tc_strbuf where;
			tc_strbuf_init(&where);
			describe_stuck(s->evs, at, &where);
			fprintf(stderr, "tracecluster-replay: rank %" PRId32 " stuck for %.0f s at %s: "
				"aborting\n", s->rank, t - since, where.buf ? where.buf : "?");
			fflush(stderr);
			_exit(TC_REPLAY_EXIT_STUCK);
		}
		usleep(100000);
	}
	return NULL;
}

/* ---- MPI errors ------------------------------------------------------------- */

/* The replay whose calls an MPI error handler reports. */
static struct tc_replay_mpi *live;

/*
 * An MPI call of the replay failed: by default MPI ends the job with its
 * own words and no event; this names the rank, the event and what MPI
 * said, and ends the rank (mpirun then ends the job). The usual cause is
 * a trace whose ranks disagree on a call: a clustered trace whose member
 * took its lead's counts of an MPI_Alltoallv, larger than its partners'.
 */
static void mpi_error(int code)
{
	char str[MPI_MAX_ERROR_STRING] = "", where[256] = "an event";
	int len = 0, cls = 0;
	uint64_t at = live ? atomic_load(&live->progress) : 0;

	if (live && at < live->evs->n)
		tc_rp_event_text(&live->evs->ev[at], (size_t)at, where, sizeof(where));
	PMPI_Error_string(code, str, &len);
	PMPI_Error_class(code, &cls);
	fprintf(stderr, "tracecluster-replay: rank %" PRId32 " at %s: MPI error: %s%s\n",
		live ? live->rank : -1, where, str,
		cls == MPI_ERR_TRUNCATE ? " (a message larger than its receive: the trace's "
					  "counts disagree between the ranks)" : "");
	fflush(stderr);
	_exit(TC_REPLAY_EXIT_MPI);
}

static void comm_error(MPI_Comm *c, int *code, ...)
{
	(void)c;
	mpi_error(*code);
}

/* Communicators made from the world or self inherit their handler. */
static void report_mpi_errors(struct tc_replay_mpi *s)
{
	MPI_Errhandler eh;

	live = s;
	if (PMPI_Comm_create_errhandler(comm_error, &eh) != MPI_SUCCESS)
		return;
	PMPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
	PMPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
	PMPI_Errhandler_free(&eh);
}

/* ---- the program ----------------------------------------------------------- */

static const char *const compute_names[] = {
	[TC_COMPUTE_NONE] = "none",
	[TC_COMPUTE_SPIN] = "spin",
	[TC_COMPUTE_SLEEP] = "sleep",
	[TC_COMPUTE_CPU] = "cpu",
};

static void usage_error(int rank, const char *msg, const char *arg)
{
	if (rank == 0)
		fprintf(stderr, "tracecluster-replay: %s%s%s\n%s", msg, arg ? " " : "",
			arg ? arg : "", "try 'tracecluster-replay --help'\n");
}

/* Option opt's argument arg, one of two words: *v set true for yes, false
 * for no; anything else a usage error (false). */
static bool two_words(const char *opt, const char *arg, const char *yes, const char *no, bool *v)
{
	char msg[96];

	if (strcmp(arg, yes) && strcmp(arg, no)) {
		snprintf(msg, sizeof(msg), "%s: expected %s or %s, not", opt, yes, no);
		usage_error(0, msg, arg);
		return false;
	}
	*v = !strcmp(arg, yes);
	return true;
}

struct results {
	double *t, *rec;           /* replayed and recorded time per rank */
	double *comp;              /* the compute asked of each rank's gaps, s */
	uint64_t *nev, *skipped;
	double max, rec_max;
	uint64_t events, skips;
	double tracer_ns;          /* the ns per call taken out of the gaps, mean over ranks */
	double tracer_s;           /* the time taken out of them, over every rank */
	uint64_t polls_took;       /* messages polls took early, over every rank */
	uint64_t wild_inferred;    /* wildcard receives given inferred sources, over every rank */
	uint64_t wild_unnamed;     /* those left wildcards */
	double comp_sum;           /* comp over every rank */
	double overrun_s;          /* the replay's own time between its calls
				    * that no gap had room for, over every rank */
};

static void results_sum(struct results *r, int world)
{
	r->max = r->rec_max = 0;
	r->events = r->skips = 0;
	r->comp_sum = 0;
	for (int i = 0; i < world; i++) {
		r->comp_sum += r->comp[i];
		if (r->t[i] > r->max)
			r->max = r->t[i];
		if (r->rec[i] > r->rec_max)
			r->rec_max = r->rec[i];
		r->events += r->nev[i];
		r->skips += r->skipped[i];
	}
}

static struct tc_json *result_json(const char *path, const struct tc_replay_opts *o,
				   const struct results *r, int world)
{
	struct tc_json *doc = tc_json_object(), *ranks = tc_json_array();

	tc_json_set_int(doc, "schema", 1);
	tc_json_set_str(doc, "input", path);
	tc_json_set_int(doc, "ranks", world);
	tc_json_set_str(doc, "compute", compute_names[o->compute]);
	if (o->compute == TC_COMPUTE_CPU && !o->timeline)
		tc_json_set_real(doc, "cpu_share", o->cpu_share);
	if (o->compute == TC_COMPUTE_CPU && o->timeline) {
		tc_json_set_real(doc, "other_load", o->other_load);
		tc_json_set_real(doc, "node_share", o->node_share);
		tc_json_set_str(doc, "timeline", o->timeline_files ? "files" : "init");
		tc_json_set_real(doc, "concurrency_factor", o->timeline_calib);
	}
	tc_json_set_int(doc, "node_cores", o->node_cores);
	tc_json_set_int(doc, "node_ranks", o->node_ranks);
	tc_json_set_str(doc, "any_source", o->any_recorded ? "recorded" : "any");
	tc_json_set_str(doc, "empty_polls", o->polls_guarded ? "guard" : "issue");
	tc_json_set_uint(doc, "polls_took", r->polls_took);
	tc_json_set_uint(doc, "wildcards_inferred", r->wild_inferred);
	tc_json_set_uint(doc, "wildcards_unnamed", r->wild_unnamed);
	tc_json_set_str(doc, "tracer_cost", o->tracer_cost);
	tc_json_set_real(doc, "tracer_ns", r->tracer_ns);
	tc_json_set_real(doc, "tracer_removed_s", r->tracer_s);
	for (int i = 0; i < world; i++) {
		struct tc_json *e = tc_json_object();
		tc_json_set_int(e, "rank", i);
		tc_json_set_real(e, "time_s", r->t[i]);
		tc_json_set_real(e, "recorded_s", r->rec[i]);
		tc_json_set_real(e, "compute_s", r->comp[i]);
		tc_json_set_uint(e, "events", r->nev[i]);
		tc_json_set_uint(e, "skipped", r->skipped[i]);
		tc_json_append(ranks, e);
	}
	tc_json_set(doc, "per_rank", ranks);
	tc_json_set_uint(doc, "events", r->events);
	tc_json_set_uint(doc, "skipped", r->skips);
	tc_json_set_real(doc, "compute_s", r->comp_sum);
	if (o->compute != TC_COMPUTE_NONE)
		tc_json_set_real(doc, "overrun_s", r->overrun_s);
	tc_json_set_real(doc, "makespan_s", r->max);
	tc_json_set_real(doc, "recorded_makespan_s", r->rec_max);
	tc_json_set_real(doc, "ratio", r->rec_max > 0 ? r->max / r->rec_max : 0);
	return doc;
}

static void print_text(const char *path, const struct tc_replay_opts *o, const struct results *r,
		       int world)
{
	printf("replay:   %s\n", path);
	printf("ranks:    %d, %" PRIu64 " events, %" PRIu64 " skipped\n", world, r->events,
	       r->skips);
	printf("node:     %d rank%s on %d core%s\n", o->node_ranks, o->node_ranks == 1 ? "" : "s",
	       o->node_cores, o->node_cores == 1 ? "" : "s");
	if (o->compute == TC_COMPUTE_CPU && o->timeline) {
		printf("compute:  cpu (shares from the recorded timeline, %.1f other tasks, "
		       "%.3f of the node; ranks %s", o->other_load, o->node_share,
		       o->timeline_files ? "on their files' clock" : "from the end of MPI_Init");
		if (o->timeline_calib != 1)
			printf("; brought to the recorded concurrency, x%.3f", o->timeline_calib);
		printf(")\n");
	} else if (o->compute == TC_COMPUTE_CPU) {
		printf("compute:  cpu (share %.3f)\n", o->cpu_share);
	} else {
		printf("compute:  %s\n", compute_names[o->compute]);
	}
	if (r->tracer_s > 0)
		printf("tracer:   %.0f ns per call out of the gaps (%s), %.6f s over the ranks\n",
		       r->tracer_ns, o->tracer_cost, r->tracer_s);
	if (r->wild_inferred || r->wild_unnamed)
		printf("wildcards: %" PRIu64 " receive%s of a source the trace does not name: %" PRIu64
		       " given the source inferred from the senders' messages, %" PRIu64
		       " posted as MPI_ANY_SOURCE\n", r->wild_inferred + r->wild_unnamed,
		       r->wild_inferred + r->wild_unnamed == 1 ? "" : "s", r->wild_inferred,
		       r->wild_unnamed);
	printf("gaps:     %.6f s of %s time computed over the ranks", r->comp_sum,
	       o->compute == TC_COMPUTE_CPU ? "CPU" : "wall-clock");
	if (o->compute != TC_COMPUTE_NONE)
		printf("; %.6f s of the replay's own time between its calls beyond them",
		       r->overrun_s);
	putchar('\n');
	if (r->polls_took)
		printf("polls:    %" PRIu64 " message%s taken by polls that found none in the "
		       "trace, held for the calls that take them\n", r->polls_took,
		       r->polls_took == 1 ? "" : "s");
	printf("makespan: %.6f s (recorded %.6f s, ratio %.3f)\n", r->max, r->rec_max,
	       r->rec_max > 0 ? r->max / r->rec_max : 0);
	printf("\n%8s %14s %14s %14s %12s\n", "rank", "time_s", "recorded_s", "compute_s",
	       "events");
	for (int i = 0; i < world; i++)
		printf("%8d %14.6f %14.6f %14.6f %12" PRIu64 "\n", i, r->t[i], r->rec[i], r->comp[i],
		       r->nev[i]);
}

/* The other MPI's replay program, by the MPI this one is built against. */
#if defined(OPEN_MPI)
#define OTHER_MPI "an MPICH launcher runs tracecluster-replay.mpich"
#elif defined(MPICH_VERSION)
#define OTHER_MPI "an Open MPI launcher runs tracecluster-replay"
#else
#define OTHER_MPI "run the one built against the launcher's MPI"
#endif

/*
 * A world of one where the launcher started more: the program runs under
 * the launcher of another MPI than its own, whose ranks it cannot see
 * (each process is a singleton). Said once per process, with the
 * launcher's count, which its environment holds (MPICH's Hydra and
 * Slurm: PMI_SIZE; Open MPI: OMPI_COMM_WORLD_SIZE).
 */
static void foreign_launcher_hint(void)
{
	static const char *const vars[] = { "PMI_SIZE", "OMPI_COMM_WORLD_SIZE" };
	char lib[MPI_MAX_LIBRARY_VERSION_STRING], *nl;
	int len = 0;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (!v || strtol(v, NULL, 10) <= 1)
			continue;
		if (MPI_Get_library_version(lib, &len) != MPI_SUCCESS)
			snprintf(lib, sizeof(lib), "?");
		if ((nl = strpbrk(lib, ",\n")))
			*nl = '\0';
		for (nl = lib; *nl; nl++)
			if (*nl == '\t')
				*nl = ' ';
		fprintf(stderr, "tracecluster-replay: the launcher started %s processes (%s), but "
			"each is an MPI job of its own: this program is built against %s, not the "
			"launcher's MPI (%s)\n", v, vars[i], lib, OTHER_MPI);
		return;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "compute", required_argument, NULL, 'c' },
		{ "cpu-share", required_argument, NULL, 's' },
		{ "other-load", required_argument, NULL, 'L' },
		{ "node-share", required_argument, NULL, 'N' },
		{ "no-compute", no_argument, NULL, 'n' },
		{ "tracer-cost", required_argument, NULL, 'T' },
		{ "any-source", required_argument, NULL, 'a' },
		{ "empty-polls", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 't' },
		{ "force", no_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'J' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct tc_replay_opts o = { .compute = TC_COMPUTE_CPU, .node_share = 1, .timeline_calib = 1,
				    .any_recorded = true, .polls_guarded = true };
	struct tc_replay_mpi s;
	struct tc_revents evs;
	struct tc_error err;
	double timeout = 120, share = 0, t0, elapsed, rec, comp;
	const char *why;
	size_t at = 0;
	struct results res = { 0 };
	uint64_t nev, skipped;
	bool json = false, force = false, other_now = false, share_now = false, tracer_recorded = true;
	bool tracer_mean = false;
	uint64_t tracer_ns = 0, discount = 0;
	int c, rank = 0, world = 1, ok, all_ok, status = 0;
	char *end;
	pthread_t wd;
	struct watch w;
	bool watching;

	/* help and usage errors before MPI_Init, so they work without mpirun */
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (!strcmp(optarg, "sleep"))
				o.compute = TC_COMPUTE_SLEEP;
			else if (!strcmp(optarg, "spin"))
				o.compute = TC_COMPUTE_SPIN;
			else if (!strcmp(optarg, "cpu"))
				o.compute = TC_COMPUTE_CPU;
			else
				return usage_error(0, "--compute: expected cpu, spin or sleep, not",
						   optarg), 2;
			break;
		case 's':
			share = strtod(optarg, &end);
			if (*end || end == optarg || !(share > 0 && share <= 1))
				return usage_error(0, "--cpu-share: expected a number in (0, 1], not",
						   optarg), 2;
			break;
		case 'L':
			other_now = !strcmp(optarg, "now");
			if (other_now)
				break;
			o.other_load = strtod(optarg, &end);
			if (*end || end == optarg || !(o.other_load >= 0 && o.other_load <= 1e6))
				return usage_error(0, "--other-load: expected now or a number >= 0, not",
						   optarg), 2;
			break;
		case 'N':
			share_now = !strcmp(optarg, "now");
			if (share_now)
				break;
			o.node_share = strtod(optarg, &end);
			if (*end || end == optarg || !(o.node_share > 0 && o.node_share <= 1))
				return usage_error(0, "--node-share: expected now or a number in (0, 1], not",
						   optarg), 2;
			break;
		case 'n':
			o.compute = TC_COMPUTE_NONE;
			break;
		case 'T':
			tracer_mean = !strcmp(optarg, "mean");
			tracer_recorded = tracer_mean || !strcmp(optarg, "recorded");
			if (tracer_recorded || !strcmp(optarg, "none"))
				break;
			errno = 0;
			tracer_ns = strtoull(optarg, &end, 10);
			if (*end || end == optarg || *optarg == '-' || errno ||
			    tracer_ns > TC_TRACER_NS_MAX)
				return usage_error(0, "--tracer-cost: expected recorded, mean, none or "
						   "nanoseconds (at most 10^9), not", optarg), 2;
			break;
		case 'a':
			if (!two_words("--any-source", optarg, "recorded", "any", &o.any_recorded))
				return 2;
			break;
		case 'P':
			if (!two_words("--empty-polls", optarg, "guard", "issue", &o.polls_guarded))
				return 2;
			break;
		case 't':
			timeout = strtod(optarg, &end);
			if (*end || end == optarg || !(timeout > 0))
				return usage_error(0, "--timeout: expected a positive number, not",
						   optarg), 2;
			break;
		case 'F':
			force = true;
			break;
		case 'J':
			json = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("tracecluster-replay %s\n", TC_VERSION);
			return 0;
		default:
			return usage_error(0, "bad usage", NULL), 2;
		}
	}
	if (optind + 1 != argc)
		return usage_error(0, optind >= argc ? "missing TRACE" : "too many arguments",
				   NULL), 2;

	MPI_Init(&argc, &argv);
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &world);
	o.node_cores = tc_replay_node_cores(&o.node_ranks);
	if (share > 0)
		o.cpu_share = share;
	else
		o.cpu_share = o.node_ranks > o.node_cores ? (double)o.node_cores / o.node_ranks : 1;

	tc_error_clear(&err);
	ok = tc_revents_load(&evs, argv[optind], rank, world, &err) == 0;
	if (!ok) {
		char msg[512];
		tc_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "tracecluster-replay: rank %d: %s\n", rank, msg);
		if (world == 1)
			foreign_launcher_hint();
	}
	/* helper communication goes through PMPI_: a replay traced with the
	 * capture shim records the trace's calls only */
	PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	if (!all_ok) {
		PMPI_Finalize();
		return 1;
	}
	/* the tracer's time out of the gaps, before anything reads them
	 * (the timeline's shares too) */
	o.tracer_cost = tracer_recorded ? (tracer_mean ? "mean" : "recorded") : tracer_ns ? "given"
										     : "none";
	o.tracer_ns = tracer_recorded ? evs.tracer_ns : tracer_ns;
	discount = tc_tracer_discount(evs.ev, evs.n, o.tracer_ns,
				 tracer_recorded && !tracer_mean && evs.has_tracer_op ? evs.tracer_op
										 : NULL);
	tc_replay_mpi_init(&s, &o, &evs, rank, world);
	/* the CPU time of each gap, from the recorded timeline; a rank that
	 * cannot have it (too many gaps) spins a constant share of each */
	if (o.compute == TC_COMPUTE_CPU && share <= 0) {
		if (other_now)
			o.other_load = tc_replay_other_load();
		if (share_now)
			o.node_share = tc_replay_node_share(o.node_cores);
		o.timeline = tc_replay_mpi_shares(&s, &o.timeline_files, &o.timeline_calib);
	}
	/* wildcard receives the trace does not name the source of */
	if (o.any_recorded)
		tc_replay_infer_wildcards(&s);
	/* refused before anything is replayed, by every rank alike */
	why = tc_replay_mpi_refusal(&s, &at);
	if (why) {
		const char *op = tc_op_name(evs.ev[at].op);
		fprintf(stderr, "tracecluster-replay: rank %d: event %zu (%s): cannot be replayed: %s\n",
			rank, at, op ? op : "?", why);
	}
	ok = !why;
	PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	/* messages without a partner, collectives that differ: they would
	 * block the replay or end it in an MPI error; named before, not
	 * found by the watchdog */
	if (all_ok && !tc_replay_pairs_check(&s, force) && !force)
		all_ok = 0;
	if (all_ok && !tc_replay_colls_check(&s, force) && !force)
		all_ok = 0;
	if (!all_ok) {
		tc_replay_mpi_release(&s);
		tc_revents_release(&evs);
		PMPI_Finalize();
		return 1;
	}
	w.s = &s;
	w.timeout = timeout;
	atomic_init(&w.stop, false);
	watching = pthread_create(&wd, NULL, watchdog, &w) == 0;
	report_mpi_errors(&s);
	PMPI_Barrier(MPI_COMM_WORLD);
	t0 = now_s();
	tc_replay_mpi_run(&s);
	elapsed = now_s() - t0;
	nev = evs.n;
	skipped = s.skipped;
	if (s.skipped && !o.quiet)
		fprintf(stderr, "tracecluster-replay: rank %d: %" PRIu64
			" event%s of operations not replayed (first: %s)\n", rank, s.skipped,
			s.skipped == 1 ? "" : "s", tc_op_name(s.first_skipped) ?
			tc_op_name(s.first_skipped) : "?");
	/* stop watching before the final collectives, which wait on the
	 * slowest rank */
	atomic_store(&w.stop, true);
	if (watching)
		pthread_join(wd, NULL);
	rec = recorded_span(&evs);
	if (rank == 0) {
		res.t = tc_xcalloc((size_t)world, sizeof(*res.t));
		res.rec = tc_xcalloc((size_t)world, sizeof(*res.rec));
		res.comp = tc_xcalloc((size_t)world, sizeof(*res.comp));
		res.nev = tc_xcalloc((size_t)world, sizeof(*res.nev));
		res.skipped = tc_xcalloc((size_t)world, sizeof(*res.skipped));
	}
	PMPI_Gather(&elapsed, 1, MPI_DOUBLE, res.t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	PMPI_Gather(&rec, 1, MPI_DOUBLE, res.rec, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	comp = (double)s.compute_ns * 1e-9;
	PMPI_Gather(&comp, 1, MPI_DOUBLE, res.comp, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	PMPI_Gather(&nev, 1, MPI_UINT64_T, res.nev, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	PMPI_Gather(&skipped, 1, MPI_UINT64_T, res.skipped, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	{
		uint64_t mine[6] = { o.tracer_ns, discount, s.polls_took, s.wild_inferred,
				     s.wild_unnamed, s.debt_ns }, all[6] = { 0, 0, 0, 0, 0, 0 };
		PMPI_Reduce(mine, all, 6, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
		res.tracer_ns = (double)all[0] / world;
		res.tracer_s = (double)all[1] * 1e-9;
		res.polls_took = all[2];
		res.wild_inferred = all[3];
		res.wild_unnamed = all[4];
		res.overrun_s = (double)all[5] * 1e-9;
	}
	if (rank == 0) {
		results_sum(&res, world);
		if (json) {
			struct tc_json *doc = result_json(argv[optind], &o, &res, world);
			tc_json_write(doc, stdout, TC_JSON_COMPACT);
			fputc('\n', stdout);
			tc_json_free(doc);
		} else {
			print_text(argv[optind], &o, &res, world);
		}
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "tracecluster-replay: write error\n");
			status = 1;
		}
	}
	tc_replay_mpi_release(&s);
	tc_revents_release(&evs);
	free(res.t);
	free(res.rec);
	free(res.comp);
	free(res.nev);
	free(res.skipped);
	MPI_Finalize();
	return status;
}
