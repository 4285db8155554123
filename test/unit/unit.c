#include "lib/compat.h"
#include "test/unit/unit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct unit_case *cases, **tail = &cases;
static int failed_checks;
static char tmpdir[256];

void unit_register(struct unit_case *c)
{
	*tail = c;
	tail = &c->next;
}

void unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: check failed: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed_checks++;
}

const char *unit_tmpdir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/tc-unit-XXXXXX");
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			exit(2);
		}
	}
	return tmpdir;
}

static void cleanup(void)
{
	if (tmpdir[0]) {
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", tmpdir);
	}
}

int main(int argc, char **argv)
{
	int n = 0, bad = 0;
	const char *prog = strrchr(argv[0], '/');

	prog = prog ? prog + 1 : argv[0];
	if (argc > 1 && !strcmp(argv[1], "--count")) {
		for (struct unit_case *c = cases; c; c = c->next)
			n++;
		printf("%d\n", n);
		return 0;
	}
	atexit(cleanup);
	for (struct unit_case *c = cases; c; c = c->next) {
		int before = failed_checks;
		n++;
		c->fn();
		fflush(stdout);
		if (failed_checks != before) {
			printf("not ok %d %s: %s\n", n, prog, c->name);
			bad++;
		} else {
			printf("ok %d %s: %s\n", n, prog, c->name);
		}
	}
	printf("1..%d\n", n);
	return bad ? 1 : 0;
}
