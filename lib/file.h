/*
 * file.h - outputs written whole or not at all.
 *
 * An output goes to a temporary file beside its final name, created
 * exclusively under a name nobody can predict (PATH.tmp.XXXXXX, so a
 * file or symbolic link planted there is never written through), made
 * durable with fsync(2) and renamed over PATH; the directory is synced
 * too, so after a crash PATH is the old file or the new one, whole.
 */
#ifndef TC_FILE_H
#define TC_FILE_H

#include "compat.h"

struct tc_error;

/* Create the temporary file for path: an open descriptor (*tmp: its
 * name, to free), or -1 with err filled. */
int tc_tmp_create(const char *path, char **tmp, struct tc_error *err);
/* fsync and close fd, rename *tmp to path, sync the directory; on failure
 * remove the temporary file. Frees *tmp. Returns 0 or an error code. */
int tc_tmp_commit(int fd, char **tmp, const char *path, struct tc_error *err);
/* Close fd, remove the temporary file, free *tmp. */
void tc_tmp_abort(int fd, char **tmp);

/*
 * Write len bytes to path as above; "-" writes standard output, and a path
 * that is not a regular file (/dev/null, a pipe) is written in place.
 */
int tc_write_file(const char *path, const void *data, size_t len, struct tc_error *err);

#endif
