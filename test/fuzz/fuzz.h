/*
 * fuzz.h - what the libFuzzer targets of the readers share (test/fuzz/).
 *
 * Each target is one LLVMFuzzerTestOneInput over one reader. Readers that
 * take a buffer parse it in memory; readers that only take a path get the
 * input in a fresh temporary file, removed again before returning.
 */
#ifndef TC_FUZZ_H
#define TC_FUZZ_H

#include "lib/compat.h"
#include "formats/raw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Callbacks that look at every record and keep nothing, so the whole
 * stream is decoded. */
static inline int fuzz_event(void *ctx, const struct tc_event *ev)
{
	(void)ctx;
	(void)ev;
	return 0;
}

static inline int fuzz_callsite(void *ctx, const struct tc_callsite *cs)
{
	(void)ctx;
	(void)cs;
	return 0;
}

static inline int fuzz_comm(void *ctx, const struct tc_comm *c)
{
	(void)ctx;
	(void)c;
	return 0;
}

static const struct tc_read_ops fuzz_ops = { fuzz_event, fuzz_callsite, fuzz_comm };

/*
 * Write data to a new file in $TMPDIR (else /tmp) whose name ends in
 * suffix; path receives its name. Returns 0, or -1 when it cannot.
 */
static inline int fuzz_temp_file(const uint8_t *data, size_t size, const char *suffix,
				 char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	size_t done = 0;
	int fd;

	snprintf(path, len, "%s/tc-fuzz-XXXXXX%s", dir && *dir ? dir : "/tmp", suffix);
	fd = mkstemps(path, (int)strlen(suffix));
	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			close(fd);
			unlink(path);
			return -1;
		}
		done += (size_t)n;
	}
	close(fd);
	return 0;
}

#endif
