#include "lib/compat.h"
#include "test/unit/unit.h"
#include "formats/raw.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/synth.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct unit_case *cases, **tail = &cases;
static int failed_checks;
static char tmpdir[256];

const char *unit_synth_set(const char *name, struct tc_synth_opts *o)
{
	static char dir[4096];
	struct tc_raw_writer_opts wo = { 1, 0, false };
	struct tc_error err;

	snprintf(dir, sizeof(dir), "%s/%s", unit_tmpdir(), name);
	CHECK(mkdir(dir, 0755) == 0);
	CHECK(tc_synth_validate(o, &err) == 0);
	for (int32_t r = 0; r < o->ranks; r++) {
		struct tc_raw_header h;
		char path[4200];
		memset(&h, 0, sizeof(h));
		h.rank = r;
		h.world_size = o->ranks;
		snprintf(h.writer, sizeof(h.writer), "unit");
		snprintf(h.host, sizeof(h.host), "node%d", (int)(r % 2));
		tc_raw_rank_path(path, sizeof(path), dir, r);
		CHECK(tc_raw_write_synth(path, &h, &wo, o, r, NULL, &err) == 0);
	}
	return dir;
}

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
