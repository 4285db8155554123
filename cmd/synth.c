/*
 * synth.c - `tracecluster synth`: write a synthetic raw trace set with
 * known ground truth (DIR/rank-NNNNN.tcr and DIR/truth.json).
 *
 * Ranks are generated in parallel (one job per rank through tc_pool_for),
 * each through the raw writer with atomic temp + rename. The output does
 * not depend on the thread count: a rank's file is a function of the
 * options and the rank only.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "formats/raw.h"
#include "lib/error.h"
#include "lib/file.h"
#include "lib/event.h"
#include "lib/json.h"
#include "lib/pool.h"
#include "lib/strbuf.h"
#include "lib/synth.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char synth_usage[] =
	"usage: tracecluster synth --pattern NAME --ranks P -o DIR [OPTIONS]\n"
	"       tracecluster synth --list\n"
	"\n"
	"Write a synthetic raw trace set with known ground truth: DIR/rank-NNNNN.tcr\n"
	"(one file per rank) and DIR/truth.json.\n"
	"\n"
	"Options:\n"
	"  -p, --pattern NAME    communication pattern (see --list)\n"
	"  -n, --ranks P         number of ranks (1 to 1048576)\n"
	"  -o, --output DIR      output directory (created when missing)\n"
	"      --iters N         timesteps (default 10; per phase for 'phases')\n"
	"      --msg-bytes B     base message size in bytes (default 8192)\n"
	"      --compute-ns NS   mean compute time between steps (default 100000)\n"
	"      --jitter FRAC     relative compute-time jitter, 0 to 1 (default 0.05)\n"
	"      --count-jitter FRAC\n"
	"                        relative message-count jitter, 0 to 0.5 (default 0)\n"
	"      --seed S          random seed (default 1)\n"
	"      --dims AxB[xC]    process grid (default: the most square one)\n"
	"      --phases N        phases of the 'phases' pattern (default 3)\n"
	"      --level Z         zlib level 1-9, 0 stores blocks (default 1)\n"
	"      --force           replace an earlier trace set in DIR\n"
	"      --json            print a one-line JSON summary\n"
	"      --list            list the patterns and exit\n"
	"  -j, --threads N       ranks generated in parallel (0 = online CPUs)\n"
	"  -q, --quiet           print nothing but errors\n"
	"  -h, --help            this help\n";

enum {
	OPT_ITERS = 0x2000, OPT_MSG_BYTES, OPT_COMPUTE_NS, OPT_JITTER,
	OPT_COUNT_JITTER, OPT_SEED, OPT_DIMS, OPT_PHASES, OPT_LEVEL, OPT_FORCE,
	OPT_JSON, OPT_LIST,
};

static const char *const cmd = "synth";

/* ---- per-rank generation -------------------------------------------------- */

struct gen_job {
	const struct tc_synth_opts *o;
	const char *dir;
	int level;
	const char *program;
	uint64_t start;
	uint64_t *events;       /* per rank */
	uint64_t *bytes;        /* per rank */
	unsigned char *done;    /* per rank: file renamed into place */
	atomic_bool failed;
	pthread_mutex_t lock;
	int32_t err_rank;       /* lowest failing rank, or -1 */
	struct tc_error err;
};

static char *rank_path(const char *dir, int32_t rank)
{
	struct tc_strbuf sb = TC_STRBUF_INIT;

	tc_strbuf_addf(&sb, "%s/rank-%05d.tcr", dir, (int)rank);
	return tc_strbuf_detach(&sb, NULL);
}

static void copy_str(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src);
}

static void gen_rank(size_t index, void *ctx)
{
	struct gen_job *job = ctx;
	int32_t rank = (int32_t)index;
	struct tc_raw_header h;
	struct tc_raw_writer_opts wo = { job->level, 0, true };
	struct tc_error err;
	struct stat st;
	char *path;
	int rc;

	if (atomic_load(&job->failed))
		return;
	tc_error_clear(&err);
	path = rank_path(job->dir, rank);
	memset(&h, 0, sizeof(h));
	h.rank = rank;
	h.world_size = job->o->ranks;
	h.start_time_ns = job->start;
	h.stack_depth = 4;
	copy_str(h.job_id, sizeof(h.job_id), "synth");
	copy_str(h.host, sizeof(h.host), "synth");
	copy_str(h.clock, sizeof(h.clock), "synthetic");
	copy_str(h.program, sizeof(h.program), job->program);
	copy_str(h.writer, sizeof(h.writer), "tracecluster-synth " TC_VERSION);
	rc = tc_raw_write_synth(path, &h, &wo, job->o, rank, &job->events[rank], &err);
	if (!rc) {
		job->done[rank] = 1;
		if (stat(path, &st) == 0)
			job->bytes[rank] = (uint64_t)st.st_size;
	} else {
		atomic_store(&job->failed, true);
		pthread_mutex_lock(&job->lock);
		if (job->err_rank < 0 || rank < job->err_rank) {
			job->err_rank = rank;
			job->err = err;
		}
		pthread_mutex_unlock(&job->lock);
	}
	free(path);
}

/* ---- the output directory ------------------------------------------------- */

/* Whether name is rank-<digits>.tcr. */
static bool is_rank_file(const char *name)
{
	size_t n = strlen(name), i = 5;

	if (n < 10 || strncmp(name, "rank-", 5) || strcmp(name + n - 4, ".tcr"))
		return false;
	for (; i < n - 4; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return true;
}

/* mkdir -p */
static int make_dir(const char *dir, struct tc_error *err)
{
	char *p = tc_xstrdup(dir);
	struct stat st;
	int rc = 0;

	for (char *s = p + 1; ; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0777) < 0 && errno != EEXIST) {
				rc = tc_error_sys(err, p, "create directory");
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	if (!rc && stat(dir, &st) < 0)
		rc = tc_error_sys(err, dir, "access");
	else if (!rc && !S_ISDIR(st.st_mode))
		rc = tc_error_set(err, TC_ERR_IO, dir, -1, "not a directory");
	free(p);
	return rc;
}

/*
 * Make dir ready: create it, and refuse (or with force, remove) an earlier
 * trace set: rank-*.tcr, truth.json and temporary files of a killed run.
 */
static int prepare_dir(const char *dir, bool force, struct tc_error *err)
{
	DIR *d;
	struct dirent *de;
	int rc = make_dir(dir, err);

	if (rc)
		return rc;
	d = opendir(dir);
	if (!d)
		return tc_error_sys(err, dir, "open directory");
	while (!rc && (de = readdir(d))) {
		const char *name = de->d_name;
		bool rank = is_rank_file(name);
		/* temporary files a killed run left behind */
		bool tmp = (!strncmp(name, "rank-", 5) && strstr(name, ".tcr.tmp.")) ||
			   !strncmp(name, "truth.json.tmp.", 15);
		struct tc_strbuf sb = TC_STRBUF_INIT;

		if (!rank && !tmp && strcmp(name, "truth.json"))
			continue;
		if (!force) {
			if (rank)
				rc = tc_error_set(err, TC_ERR_IO, dir, -1,
						  "already holds a trace set (use --force to replace it)");
			continue;
		}
		tc_strbuf_addf(&sb, "%s/%s", dir, name);
		if (unlink(sb.buf) < 0 && errno != ENOENT)
			rc = tc_error_sys(err, sb.buf, "remove");
		tc_strbuf_release(&sb);
	}
	closedir(d);
	return rc;
}

/* Write data to path through a temporary file and rename. */
static int write_atomic(const char *path, const char *data, size_t len,
			struct tc_error *err)
{
	return tc_write_file(path, data, len, err);
}

/* ---- options -------------------------------------------------------------- */

static int parse_dims(const char *s, int32_t dims[3])
{
	const char *p = s;
	int n = 0;

	dims[0] = dims[1] = dims[2] = 0;
	while (*p) {
		char *end;
		unsigned long v;

		if (n == 3 || *p < '0' || *p > '9')
			goto bad;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || !v || v > (1ul << 20))
			goto bad;
		dims[n++] = (int32_t)v;
		p = end;
		if (*p == 'x' || *p == 'X') {
			p++;
			if (!*p)
				goto bad;
		} else if (*p) {
			goto bad;
		}
	}
	if (n)
		return 0;
bad:
	return tc_usage_error(cmd, "--dims: expected A, AxB or AxBxC (positive), got '%s'", s);
}

static int parse_int32(const char *opt, const char *s, int32_t lo, int32_t hi, int32_t *out)
{
	uint64_t v;
	int rc = tc_parse_u64(cmd, opt, s, &v);

	if (rc)
		return rc;
	if (v < (uint64_t)lo || v > (uint64_t)hi)
		return tc_usage_error(cmd, "%s: %s is out of range (%" PRId32 " to %" PRId32 ")",
				      opt, s, lo, hi);
	*out = (int32_t)v;
	return 0;
}

static int list_patterns(void)
{
	const struct tc_synth_pattern_info *p = tc_synth_patterns();

	for (; p->name; p++)
		printf("%-14s %s\n", p->name, p->summary);
	return TC_EXIT_OK;
}

static const char *pattern_summary(const char *name)
{
	for (const struct tc_synth_pattern_info *p = tc_synth_patterns(); p->name; p++)
		if (!strcmp(p->name, name))
			return p->summary;
	return "";
}

struct synth_args {
	struct tc_synth_opts o;
	const char *dir;
	bool force, json, list, have_ranks;
	int level;
};

/* The options into sa; -1 to go on, else the status to exit with (after
 * --help or --list, or a usage error). */
static int parse_args(int argc, char **argv, struct synth_args *sa)
{
	static const struct option longopts[] = {
		{ "pattern", required_argument, NULL, 'p' },
		{ "ranks", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "iters", required_argument, NULL, OPT_ITERS },
		{ "msg-bytes", required_argument, NULL, OPT_MSG_BYTES },
		{ "compute-ns", required_argument, NULL, OPT_COMPUTE_NS },
		{ "jitter", required_argument, NULL, OPT_JITTER },
		{ "count-jitter", required_argument, NULL, OPT_COUNT_JITTER },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "dims", required_argument, NULL, OPT_DIMS },
		{ "phases", required_argument, NULL, OPT_PHASES },
		{ "level", required_argument, NULL, OPT_LEVEL },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "list", no_argument, NULL, OPT_LIST },
		TC_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct tc_error err;
	uint64_t v;
	int c, rc;

	memset(sa, 0, sizeof(*sa));
	sa->o.seed = 1;
	sa->o.jitter = 0.05;
	tc_error_clear(&err);
	while ((c = getopt_long(argc, argv, ":p:n:o:" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		rc = 0;
		switch (c) {
		case 'h':
			return tc_print_help(synth_usage);
		case 'p':
			sa->o.pattern = optarg;
			break;
		case 'n':
			rc = tc_parse_u64(cmd, "--ranks", optarg, &v);
			if (!rc && (v < 1 || v > (1u << 20)))
				rc = tc_usage_error(cmd, "--ranks: %s is out of range (1 to %u)",
						    optarg, 1u << 20);
			sa->o.ranks = (int32_t)v;
			sa->have_ranks = true;
			break;
		case 'o':
			sa->dir = optarg;
			break;
		case OPT_ITERS:
			rc = parse_int32("--iters", optarg, 1, 1000000, &sa->o.iters);
			break;
		case OPT_MSG_BYTES:
			rc = tc_parse_u64(cmd, "--msg-bytes", optarg, &sa->o.msg_bytes);
			if (!rc && !sa->o.msg_bytes)
				rc = tc_usage_error(cmd, "--msg-bytes: must be positive");
			break;
		case OPT_COMPUTE_NS:
			rc = tc_parse_u64(cmd, "--compute-ns", optarg, &sa->o.compute_ns);
			if (!rc && !sa->o.compute_ns)
				rc = tc_usage_error(cmd, "--compute-ns: must be positive");
			break;
		case OPT_JITTER:
			rc = tc_parse_double(cmd, "--jitter", optarg, &sa->o.jitter);
			break;
		case OPT_COUNT_JITTER:
			rc = tc_parse_double(cmd, "--count-jitter", optarg, &sa->o.count_jitter);
			break;
		case OPT_SEED:
			rc = tc_parse_u64(cmd, "--seed", optarg, &sa->o.seed);
			break;
		case OPT_DIMS:
			rc = parse_dims(optarg, sa->o.dims);
			break;
		case OPT_PHASES:
			rc = parse_int32("--phases", optarg, 1, 64, &sa->o.phases);
			break;
		case OPT_LEVEL:
			rc = parse_int32("--level", optarg, 0, 9, &sa->level);
			if (!rc && !sa->level)
				sa->level = -1; /* stored blocks */
			break;
		case OPT_FORCE:
			sa->force = true;
			break;
		case OPT_JSON:
			sa->json = true;
			break;
		case OPT_LIST:
			sa->list = true;
			break;
		case ':':
			return tc_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		case '?':
			if (optopt)
				return tc_usage_error(cmd, "unknown option '-%c'", optopt);
			return tc_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		default:
			rc = tc_common_option(cmd, c, optarg);
			rc = rc < 0 ? -rc : 0;
			break;
		}
		if (rc)
			return rc;
	}
	if (optind < argc)
		return tc_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (sa->list)
		return list_patterns();
	if (!sa->o.pattern)
		return tc_usage_error(cmd, "--pattern is required (see --list)");
	if (!sa->have_ranks)
		return tc_usage_error(cmd, "--ranks is required");
	if (!sa->dir || !*sa->dir)
		return tc_usage_error(cmd, "-o DIR is required");
	if (tc_synth_validate(&sa->o, &err))
		return tc_usage_error(cmd, "%s", err.msg);
	if (sa->o.count_jitter >= 0.05)
		tc_warnf("--count-jitter %g is not below the 5%% COUNT threshold of the truth",
			 sa->o.count_jitter);
	return -1;
}

/* Writes every rank of sa's set and its truth.json under sa->dir into
 * job (whose arrays the caller frees); on failure removes the ranks
 * written and returns TC_EXIT_FAIL after reporting the error. */
static int generate(const struct tc_synth_opts *o, const char *dir, int level,
		    struct gen_job *job)
{
	struct tc_error err;
	struct tc_strbuf truth = TC_STRBUF_INIT, path = TC_STRBUF_INIT;
	struct tc_pool *pool;
	char program[1024];
	int rc;

	tc_error_clear(&err);
	memset(job, 0, sizeof(*job));
	job->o = o;
	job->dir = dir;
	job->level = level;
	snprintf(program, sizeof(program), "%s: %s", o->pattern, pattern_summary(o->pattern));
	job->program = program;
	job->start = tc_synth_start_time(o);
	job->events = tc_xcalloc((size_t)o->ranks, sizeof(*job->events));
	job->bytes = tc_xcalloc((size_t)o->ranks, sizeof(*job->bytes));
	job->done = tc_xcalloc((size_t)o->ranks, 1);
	atomic_init(&job->failed, false);
	pthread_mutex_init(&job->lock, NULL);
	job->err_rank = -1;
	tc_error_clear(&job->err);

	pool = tc_cmd_pool();
	tc_pool_for(pool, (size_t)o->ranks, gen_rank, job);
	tc_pool_free(pool);

	rc = TC_EXIT_OK;
	if (job->err_rank >= 0) {
		tc_report(&job->err);
		rc = TC_EXIT_FAIL;
	} else if (tc_synth_truth_json(o, &truth, &err)) {
		tc_report(&err);
		rc = TC_EXIT_FAIL;
	} else {
		tc_strbuf_addf(&path, "%s/truth.json", dir);
		if (write_atomic(path.buf, truth.buf, truth.len, &err)) {
			tc_report(&err);
			rc = TC_EXIT_FAIL;
		}
	}
	if (rc) {
		/* do not leave a partial set that looks complete */
		for (int32_t r = 0; r < o->ranks; r++) {
			if (job->done[r]) {
				char *p = rank_path(dir, r);
				unlink(p);
				free(p);
			}
		}
	}
	tc_strbuf_release(&truth);
	tc_strbuf_release(&path);
	return rc;
}

/* What was written: one JSON object, or one line unless -q. */
static void print_result(const struct tc_synth_opts *o, const char *dir, bool json,
			 const struct gen_job *job)
{
	uint64_t events = 0, bytes = 0;

	for (int32_t r = 0; r < o->ranks; r++) {
		events += job->events[r];
		bytes += job->bytes[r];
	}
	if (json) {
		struct tc_json *doc = tc_json_object();

		tc_json_set_int(doc, "schema", 2);
		tc_json_set_str(doc, "pattern", o->pattern);
		tc_json_set_int(doc, "ranks", o->ranks);
		tc_json_set_uint(doc, "events", events);
		tc_json_set_uint(doc, "bytes", bytes);
		tc_json_set_str(doc, "output", dir);
		tc_json_write(doc, stdout, TC_JSON_COMPACT);
		tc_json_free(doc);
	} else if (tc_g.verbosity >= 0) {
		printf("%s: %" PRId32 " ranks, %" PRIu64 " events, %" PRIu64 " bytes in %s\n",
		       o->pattern, o->ranks, events, bytes, dir);
	}
}

int cmd_synth(int argc, char **argv)
{
	struct synth_args sa;
	struct tc_error err;
	struct gen_job job;
	int rc;

	if ((rc = parse_args(argc, argv, &sa)) >= 0)
		return rc;
	tc_error_clear(&err);
	if (prepare_dir(sa.dir, sa.force, &err)) {
		tc_report(&err);
		return TC_EXIT_FAIL;
	}
	rc = generate(&sa.o, sa.dir, sa.level, &job);
	if (rc == TC_EXIT_OK)
		print_result(&sa.o, sa.dir, sa.json, &job);
	pthread_mutex_destroy(&job.lock);
	free(job.events);
	free(job.bytes);
	free(job.done);
	return rc;
}
