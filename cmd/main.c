/*
 * main.c - the tracecluster command: global options and the command table.
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "lib/merge.h"
#include "lib/error.h"
#include "lib/pool.h"
#include "lib/progress.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tc_globals tc_g = { 1, 0, -1 };

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* Sorted by name. */
static const struct command commands[] = {
	{ "accuracy", cmd_accuracy, "how well a mode's clustered global trace reproduces the original" },
	{ "align", cmd_align, "align ranks' event sequences; merged call graph; structural similarity" },
	{ "cluster", cmd_cluster, "cluster the ranks by their signatures with one of several modes" },
	{ "compare", cmd_compare, "run several clustering modes on one trace set, one table" },
	{ "compress", cmd_compress, "merge the cluster leads' traces into one global compressed trace" },
	{ "diff", cmd_diff, "compare two runs rank by rank: divergences and time differences" },
	{ "dump", cmd_dump, "print the events of one raw trace file" },
	{ "expand", cmd_expand, "give back one rank's events from a global compressed trace" },
	{ "export", cmd_export, "write a trace set or a global trace as OTF2 or Perfetto/Chrome JSON" },
	{ "heatmap", cmd_heatmap, "communication matrix or message sizes as PDF, SVG, PNG or CSV" },
	{ "info", cmd_info, "summarise a trace set: ranks, events, ops, call sites" },
	{ "replay", cmd_replay, "simulated replay: predicted time per rank and makespan" },
	{ "run", cmd_run, "run an MPI launcher line with the capture shim preloaded" },
	{ "signatures", cmd_signatures, "print each rank's call-path, parameter and ACURDION signatures" },
	{ "synth", cmd_synth, "write a synthetic trace set with known ground truth" },
	{ "topology", cmd_topology, "the ranks on their process grid coloured by cluster" },
};

static const char usage_text[] =
	"usage: tracecluster [-j N] [-q] [-v] [--[no-]progress] COMMAND [ARGS]\n"
	"       tracecluster --help | --version | help COMMAND\n"
	"\n"
	"Cluster MPI processes by their communication traces.\n"
	"\n"
	"Global options:\n"
	"  -j, --threads N   worker threads (0 = online CPUs; default\n"
	"                    $TRACECLUSTER_THREADS, else 0)\n"
	"  -q, --quiet       only errors on stderr\n"
	"  -v, --verbose     more detail on stderr\n"
	"      --progress    progress on stderr even when it is not a terminal\n"
	"      --no-progress never show progress\n"
	"  -h, --help        this help\n"
	"  -V, --version     print the version\n"
	"\n"
	"Commands:\n";

static void print_usage(FILE *f)
{
	fputs(usage_text, f);
	for (size_t i = 0; i < TC_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\nSee tracecluster COMMAND --help and tracecluster(1).\n", f);
}

void tc_errorf(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("tracecluster: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void tc_warnf(const char *fmt, ...)
{
	va_list ap;

	if (tc_g.verbosity < 0)
		return;
	fflush(stdout);
	fputs("tracecluster: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void tc_report(const struct tc_error *e)
{
	char buf[1200];

	tc_error_format(e, buf, sizeof(buf));
	tc_errorf("%s", buf);
}

void tc_warn_salvaged(const char *path, uint64_t events, uint64_t bad_blocks,
		      uint64_t bad_bytes, bool has_trailer, const char *first_damage)
{
	if (has_trailer && !bad_blocks)
		return;
	tc_warnf("'%s': salvaged %" PRIu64 " events; %" PRIu64 " damaged bytes skipped%s%s",
		 path, events, bad_bytes,
		 first_damage && *first_damage ? "; first damage: " : "",
		 first_damage && *first_damage ? first_damage : (has_trailer ? "" : "; no trailer"));
}

int tc_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "tracecluster%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'tracecluster %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
	return TC_EXIT_USAGE;
}

int tc_print_help(const char *text)
{
	fputs(text, stdout);
	return TC_EXIT_OK;
}

int tc_finish_stdout(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			tc_errorf("write error on standard output: %s", strerror(errno));
		return TC_EXIT_FAIL;
	}
	return status;
}

struct tc_pool *tc_cmd_pool(void)
{
	return tc_pool_new(tc_g.threads);
}

int tc_parse_u64(const char *cmd, const char *opt, const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s || !*s || *s == '-')
		return tc_usage_error(cmd, "%s: expected a non-negative integer, got '%s'",
				      opt, s ? s : "");
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return tc_usage_error(cmd, "%s: expected a non-negative integer, got '%s'",
				      opt, s);
	*out = v;
	return 0;
}

const char *tc_fmt_seconds(double s, bool sign, char *buf)
{
	static const char *const units[] = { "s", "ms", "\u00b5s", "ns" };
	double v = s < 0 ? -s : s;
	const char *sg = s < 0 ? "-" : sign && s > 0 ? "+" : "";
	unsigned u = 0;

	if (v == 0 || v != v) {
		snprintf(buf, TC_DURATION_LEN, "%s s", v == 0 ? "0" : "nan");
		return buf;
	}
	while (u < 3 && v < 0.9995) {
		v *= 1e3;
		u++;
	}
	if (v >= 1e4)
		snprintf(buf, TC_DURATION_LEN, "%s%.0f %s", sg, v, units[u]);
	else
		snprintf(buf, TC_DURATION_LEN, "%s%.4g %s", sg, v, units[u]);
	return buf;
}

const char *tc_fmt_ns(int64_t ns, bool sign, char *buf)
{
	return tc_fmt_seconds((double)ns * 1e-9, sign, buf);
}

int tc_parse_double(const char *cmd, const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end)
		return tc_usage_error(cmd, "%s: expected a number, got '%s'", opt, s);
	*out = v;
	return 0;
}

int tc_parse_timing(const char *cmd, const char *s, int *out)
{
	int t = tc_gtiming_from_name(s);

	if (t < 0)
		return tc_usage_error(cmd, "--timing: expected stats, rank or none, got '%s'", s);
	*out = t;
	return 0;
}

static int set_threads(const char *cmd, const char *s)
{
	uint64_t n;
	int rc = tc_parse_u64(cmd, "--threads", s, &n);

	if (rc)
		return rc;
	if (n > 4096)
		return tc_usage_error(cmd, "--threads: %s is too many", s);
	tc_g.threads = n ? (unsigned)n : tc_online_cpus();
	return 0;
}

int tc_common_option(const char *cmd, int c, const char *arg)
{
	int rc;

	switch (c) {
	case 'j':
		rc = set_threads(cmd, arg);
		return rc ? -rc : 1;
	case 'q':
		tc_g.verbosity = -1;
		break;
	case 'v':
		tc_g.verbosity++;
		return 1;
	case 0x1001:
		tc_g.progress = 1;
		break;
	case 0x1002:
		tc_g.progress = 0;
		break;
	default:
		return 0;
	}
	tc_progress_set_mode(tc_g.verbosity < 0 ? 0 : tc_g.progress);
	return 1;
}

int tc_cmd_option(const char *cmd, int c, const char *arg, char **argv)
{
	int rc;

	if (c == ':')
		return tc_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
	if (c == '?')
		return tc_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
	rc = tc_common_option(cmd, c, arg);
	if (rc < 0)
		return -rc;
	return rc ? 0 : tc_usage_error(cmd, "unknown option");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < TC_ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int tc_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd;
	const char *env;
	int c, rc;

	env = getenv("TRACECLUSTER_THREADS");
	tc_g.threads = tc_online_cpus();
	if (env && *env && set_threads(NULL, env))
		return TC_EXIT_USAGE;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+" TC_COMMON_SHORTOPTS "V", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_usage(stdout);
			return tc_finish_stdout(TC_EXIT_OK);
		case 'V':
			printf("tracecluster %s\n", TC_VERSION);
			return tc_finish_stdout(TC_EXIT_OK);
		case '?':
			if (optopt)
				return tc_usage_error(NULL, "unknown option '-%c'", optopt);
			return tc_usage_error(NULL, "unknown option '%s'", argv[optind - 1]);
		case ':':
			return tc_usage_error(NULL, "option '%s' needs a value", argv[optind - 1]);
		default:
			rc = tc_common_option(NULL, c, optarg);
			if (rc < 0)
				return -rc;
		}
	}
	if (optind >= argc) {
		print_usage(stderr);
		return TC_EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "help")) {
		if (optind + 1 >= argc) {
			print_usage(stdout);
			return tc_finish_stdout(TC_EXIT_OK);
		}
		cmd = find_command(argv[optind + 1]);
		if (!cmd)
			return tc_usage_error(NULL, "'%s' is not a command", argv[optind + 1]);
		{
			char *hargv[] = { (char *)cmd->name, (char *)"--help", NULL };
			optind = 0;
			return tc_finish_stdout(cmd->fn(2, hargv));
		}
	}
	cmd = find_command(argv[optind]);
	if (!cmd)
		return tc_usage_error(NULL, "'%s' is not a command", argv[optind]);
	argc -= optind;
	argv += optind;
	optind = 0; /* reset getopt for the subcommand (GNU: 0 reinitialises) */
	opterr = 0;
	rc = cmd->fn(argc, argv);
	return tc_finish_stdout(rc);
}
