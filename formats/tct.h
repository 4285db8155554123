/*
 * tct.h - the global compressed trace format (.tct): binary (the default
 * output of compress), text and JSON.
 *
 * Writes and reads a struct tc_gtrace (lib/merge.h). Both forms carry the
 * same data: a header (world size, ranks covered, how the trace was made),
 * the call-site table, and the node tree (nested loops with iteration
 * counts per rank set, events with ranklists, per-ranklist parameter
 * vectors, histograms, compute-time statistics). The spec is
 * formats/tct.md; tracecluster-tct(5) is its man page.
 *
 * Readers take hostile input: every count is capped, every number range
 * checked, nesting bounded; an error is one line naming the file and the
 * line (text) or the element (JSON).
 */
#ifndef TC_FORMATS_TCT_H
#define TC_FORMATS_TCT_H

#include "lib/compat.h"

struct tc_error;
struct tc_gtrace;
struct tc_strbuf;

#define TC_TCT_VERSION 1
#define TC_TCT_MAGIC "tracecluster-tct"

enum tc_tct_form {
	TC_TCT_TEXT = 0,
	TC_TCT_JSON = 1,
	TC_TCT_BINARY = 2,      /* formats/tct-binary.md */
};

/* Append the serialised form of g (tc_gtrace_finish must have run). */
void tc_tct_format(const struct tc_gtrace *g, int form, struct tc_strbuf *out);

/*
 * Write len bytes to path through a temporary file in the same
 * directory, renamed into place ("-": standard output; a path that is not
 * a regular file, such as /dev/null or a pipe, is written in place and
 * never replaced). Returns 0 or fills err.
 */
int tc_tct_write_file(const char *path, const char *data, size_t len, struct tc_error *err);

/* Parse a trace in any form (detected: the binary magic, JSON starts with '{'); name is
 * the file named in errors. Returns 0 and a new, finished trace in *out. */
int tc_tct_parse(const char *buf, size_t len, const char *name, struct tc_gtrace **out,
		 struct tc_error *err);

/* Read a file ("-": standard input) and parse it. */
int tc_tct_read(const char *path, struct tc_gtrace **out, struct tc_error *err);

/* Whether the first bytes look like a .tct file of any form. */
bool tc_tct_probe(const void *buf, size_t len);
/* Whether path is a regular file that starts like a global trace ("-",
 * standard input, is not: it cannot be looked at twice). */
bool tc_tct_file_probe(const char *path);

#endif
