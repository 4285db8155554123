/*
 * error.h - error reports filled by library functions.
 *
 * Library code never prints: it returns a negative code and fills an
 * optional struct tc_error with the subject (a path), a byte offset when
 * the error is inside a file, and a message. cmd/ turns it into one line:
 *   tracecluster: 'DIR/rank-00003.tcr': byte 1234: block checksum mismatch
 */
#ifndef TC_ERROR_H
#define TC_ERROR_H

#include "compat.h"

enum {
	TC_OK = 0,
	TC_ERR = -1,      /* generic failure, message in tc_error */
	TC_ERR_IO = -2,   /* system call failed (errno in tc_error.sys) */
	TC_ERR_FORMAT = -3, /* malformed input */
	TC_ERR_VERSION = -4, /* input from a newer, unknown format version */
	TC_ERR_STOP = -5, /* a callback asked to stop; not a failure */
	TC_ERR_USAGE = -6,
	TC_ERR_NOMEM = -7, /* out of memory (where that is not fatal) */
};

struct tc_error {
	int code;
	int sys;              /* errno, or 0 */
	int64_t offset;       /* byte offset in the file, or -1 */
	char path[512];       /* subject, may be empty */
	char msg[512];
};

void tc_error_clear(struct tc_error *e);
/* Fill e (if non-NULL) and return code. offset < 0 means none. */
int tc_error_set(struct tc_error *e, int code, const char *path, int64_t offset,
		 const char *fmt, ...) TC_PRINTF(5, 6);
/* An I/O error from errno; what is the verb ("open", "read"): reported as
 * "cannot open 'PATH': No such file or directory". */
int tc_error_sys(struct tc_error *e, const char *path, const char *what);
/* Format the report as one line without the program prefix. */
void tc_error_format(const struct tc_error *e, char *buf, size_t len);

#endif
