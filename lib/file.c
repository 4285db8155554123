/*
 * file.c - outputs written whole or not at all (see file.h).
 */
#include "compat.h"
#include "file.h"
#include "error.h"
#include "strbuf.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tc_tmp_create(const char *path, char **tmp, struct tc_error *err)
{
	struct tc_strbuf name = TC_STRBUF_INIT;
	int fd;

	tc_strbuf_addf(&name, "%s.tmp.XXXXXX", path);
	fd = mkostemp(name.buf, O_CLOEXEC);
	if (fd < 0) {
		tc_error_sys(err, path, "create a temporary file for");
		tc_strbuf_release(&name);
		*tmp = NULL;
		return -1;
	}
	/* mkostemp makes it 0600: an output is as readable as any other */
	(void)fchmod(fd, 0644);
	*tmp = tc_xstrdup(name.buf);
	tc_strbuf_release(&name);
	return fd;
}

static int write_all(int fd, const void *data, size_t len, const char *name,
		     struct tc_error *err)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return tc_error_sys(err, name, "write to");
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Sync the directory holding path, so that a rename in it is durable. */
static void sync_dir(const char *path)
{
	char *copy = tc_xstrdup(path);
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(copy);
}

int tc_tmp_commit(int fd, char **tmp, const char *path, struct tc_error *err)
{
	int rc = 0;

	/* EINVAL, EROFS: a file system without fsync (some FUSE, /dev/shm) */
	if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
		rc = tc_error_sys(err, *tmp, "write to");
	if (close(fd) < 0 && !rc)
		rc = tc_error_sys(err, *tmp, "close");
	if (!rc && rename(*tmp, path) < 0)
		rc = tc_error_sys(err, path, "rename to");
	if (rc)
		unlink(*tmp);
	else
		sync_dir(path);
	free(*tmp);
	*tmp = NULL;
	return rc;
}

void tc_tmp_abort(int fd, char **tmp)
{
	if (fd >= 0)
		close(fd);
	if (*tmp)
		unlink(*tmp);
	free(*tmp);
	*tmp = NULL;
}

int tc_write_file(const char *path, const void *data, size_t len, struct tc_error *err)
{
	struct stat st;
	char *tmp;
	int fd, rc;

	if (!path || !strcmp(path, "-")) {
		if (len && fwrite(data, 1, len, stdout) != len)
			return tc_error_sys(err, "standard output", "write to");
		return fflush(stdout) ? tc_error_sys(err, "standard output", "write to") : 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device or a pipe (/dev/null, /dev/stdout): never replace it */
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return tc_error_sys(err, path, "open");
		rc = write_all(fd, data, len, path, err);
		if (close(fd) < 0 && !rc)
			rc = tc_error_sys(err, path, "close");
		return rc;
	}
	fd = tc_tmp_create(path, &tmp, err);
	if (fd < 0)
		return TC_ERR_IO;
	if ((rc = write_all(fd, data, len, tmp, err))) {
		tc_tmp_abort(fd, &tmp);
		return rc;
	}
	return tc_tmp_commit(fd, &tmp, path, err);
}
