/*
 * cmd.h - shared by the subcommands of the tracecluster executable.
 *
 * Only cmd/ prints to stdout or exits. Exit status: 0 ok, 1 failure (I/O,
 * bad trace), 2 usage.
 */
#ifndef TC_CMD_H
#define TC_CMD_H

#include "lib/compat.h"

#include <string.h>

struct tc_error;
struct tc_pool;

enum { TC_EXIT_OK = 0, TC_EXIT_FAIL = 1, TC_EXIT_USAGE = 2 };

/* Global options, set by main() before the subcommand runs. */
struct tc_globals {
	unsigned threads;   /* resolved: >= 1 */
	int verbosity;      /* -1 quiet, 0 normal, 1+ verbose */
	int progress;       /* -1 auto (stderr is a TTY), 0 off, 1 on */
};
extern struct tc_globals tc_g;

/* Subcommands: int cmd_<name>(int argc, char **argv); argv[0] is the name. */
int cmd_accuracy(int argc, char **argv);
int cmd_align(int argc, char **argv);
int cmd_cluster(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_compress(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_expand(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_heatmap(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_signatures(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_topology(int argc, char **argv);

/* The tracecluster command line: global options, then one command
 * (cmd/entry.c's main; tracecluster-mpi runs it in its first process). */
int tc_main(int argc, char **argv);

/* "tracecluster: <msg>" on stderr. */
void tc_errorf(const char *fmt, ...) TC_PRINTF(1, 2);
void tc_warnf(const char *fmt, ...) TC_PRINTF(1, 2);
/* Print "tracecluster: <formatted error>" on stderr. */
void tc_report(const struct tc_error *e);
/* Print a usage error and the hint to run --help; returns TC_EXIT_USAGE. */
int tc_usage_error(const char *cmd, const char *fmt, ...) TC_PRINTF(2, 3);
/*
 * One warning when a read kept only part of a file (--salvage): how many
 * events were kept, damaged bytes skipped and the first damage, or that
 * the file had no trailer. Prints nothing for a complete read.
 */
void tc_warn_salvaged(const char *path, uint64_t events, uint64_t bad_blocks,
		      uint64_t bad_bytes, bool has_trailer, const char *first_damage);
/* Print text (a --help message) to stdout; returns TC_EXIT_OK. */
int tc_print_help(const char *text);
/* Flush stdout and check for write errors; returns the exit status to use. */
int tc_finish_stdout(int status);
/* A pool of tc_g.threads threads (returns new). */
struct tc_pool *tc_cmd_pool(void);
/* Parse a non-negative integer option; returns 0 or usage error status. */
int tc_parse_u64(const char *cmd, const char *opt, const char *s, uint64_t *out);
int tc_parse_double(const char *cmd, const char *opt, const char *s, double *out);
/*
 * A duration in human units, four significant digits: "1.234 s",
 * "56.7 \u00b5s", "812 ns" (sign: also a '+' for positive values). Writes
 * into buf (TC_DURATION_LEN bytes) and returns it.
 */
#define TC_DURATION_LEN 32
const char *tc_fmt_seconds(double s, bool sign, char *buf);
const char *tc_fmt_ns(int64_t ns, bool sign, char *buf);
/* The printf field width that shows s in w columns: w plus the UTF-8
 * continuation bytes of s (the "\u00b5" of tc_fmt_seconds). */
static inline int tc_fmt_width(const char *s, int w)
{
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) == 0x80;
	return w;
}
/* one or many by n: "1 cluster", "2 clusters" */
static inline const char *tc_plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The last component of path, trailing slashes aside ("../runs/halo2d/"
 * gives "halo2d"): its start, and its length in *len. A figure's default
 * title names a set by it, not by the path as typed. */
static inline const char *tc_path_name(const char *path, int *len)
{
	size_t end = strlen(path);
	const char *name;

	while (end > 1 && path[end - 1] == '/')
		end--;
	name = path + end;
	while (name > path && name[-1] != '/')
		name--;
	*len = (int)(path + end - name);
	return name;
}

/* --timing stats|rank|none: enum tc_gtiming in *out, or a usage error. */
int tc_parse_timing(const char *cmd, const char *s, int *out);

/*
 * Common long options every command accepts after its name, so that
 * `tracecluster info -j2 DIR` works like `tracecluster -j2 info DIR`.
 * Handle them with tc_common_option() in the getopt loop.
 */
#define TC_COMMON_LONGOPTS                                 \
	{ "threads", required_argument, NULL, 'j' },       \
	{ "quiet", no_argument, NULL, 'q' },               \
	{ "verbose", no_argument, NULL, 'v' },             \
	{ "progress", no_argument, NULL, 0x1001 },         \
	{ "no-progress", no_argument, NULL, 0x1002 },      \
	{ "help", no_argument, NULL, 'h' }
#define TC_COMMON_SHORTOPTS "j:qvh"
/* Returns 1 if c was a common option (handled), 0 if not, or a negative
 * exit status (negated) on a bad value. */
int tc_common_option(const char *cmd, int c, const char *arg);
/*
 * The tail of every command's getopt loop: a common option (returns 0,
 * handled), a missing value (':'), an unknown option ('?') or anything
 * else (returns the usage-error exit status). Use as
 *	default: if ((rc = tc_cmd_option(cmd, c, optarg, argv))) return rc;
 */
int tc_cmd_option(const char *cmd, int c, const char *arg, char **argv);

#endif
