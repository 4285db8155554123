/*
 * Unit tests of lib/progress.h: off, it is NULL and costs nothing; on,
 * into a file (not a terminal), whole lines with the count, and a last
 * line with the count reached.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "lib/progress.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TEST(progress_off)
{
	struct tc_progress *p;

	tc_progress_set_mode(0);
	p = tc_progress_start("off", 10);
	CHECK(p == NULL);
	CHECK(tc_progress_counter(p) == NULL);
	tc_progress_add(tc_progress_counter(p), 3); /* a NULL counter is fine */
	tc_progress_stop(&p);
	CHECK(p == NULL);
	tc_progress_set_mode(-1);
}

/* Run a progress line of total counting to n into a file; its text. */
static char *lines(uint64_t total, uint64_t n)
{
	static char buf[4096];
	char path[4200];
	struct tc_progress *p;
	int fd, saved;
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "%s/progress.txt", unit_tmpdir());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	setenv("TRACECLUSTER_PROGRESS_DELAY", "0", 1);
	tc_progress_set_mode(1);
	p = tc_progress_start("counting", total);
	CHECK(p != NULL);
	for (uint64_t i = 0; i < n; i++)
		tc_progress_add(tc_progress_counter(p), 1);
	tc_progress_stop(&p);
	CHECK(p == NULL);
	tc_progress_set_mode(-1);
	unsetenv("TRACECLUSTER_PROGRESS_DELAY");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	f = fopen(path, "r");
	CHECK(f != NULL);
	len = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[len] = 0;
	if (f)
		fclose(f);
	return buf;
}

TEST(progress_lines)
{
	const char *s = lines(10, 7);

	/* the first line at once (delay 0), the last with the count reached */
	CHECK(!strncmp(s, "counting: 0/10 (0%)", 19));
	CHECK(strstr(s, "\ncounting: 7/10, done in 0:00\n") != NULL);
	CHECK(strchr(s, '\r') == NULL);
	s = lines(0, 3);
	CHECK(strstr(s, "counting: done in 0:00\n") != NULL);
}
