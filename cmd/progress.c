#include "lib/compat.h"
#include "cmd/progress.h"
#include "cmd/cmd.h"
#include "lib/xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct tc_progress {
	const char *label;
	uint64_t total;
	atomic_uint_least64_t done;
	atomic_bool stop;
	bool drawn;
	pthread_t thread;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *run(void *arg)
{
	struct tc_progress *p = arg;
	double start = now_s();
	const struct timespec tick = { 0, 200 * 1000 * 1000 };

	while (!atomic_load(&p->stop)) {
		nanosleep(&tick, NULL);
		if (atomic_load(&p->stop) || now_s() - start < 1.0)
			continue;
		{
			uint64_t d = atomic_load(&p->done);
			fprintf(stderr, "\r%s: %" PRIu64 "/%" PRIu64 " (%.0f%%)", p->label, d, p->total,
				p->total ? 100.0 * (double)d / (double)p->total : 100.0);
			fflush(stderr);
			p->drawn = true;
		}
	}
	return NULL;
}

struct tc_progress *tc_progress_start(const char *label, uint64_t total)
{
	struct tc_progress *p;

	if (tc_g.progress == 0 || tc_g.verbosity < 0)
		return NULL;
	if (tc_g.progress < 0 && !isatty(STDERR_FILENO))
		return NULL;
	p = tc_xcalloc(1, sizeof(*p));
	p->label = label;
	p->total = total;
	atomic_init(&p->done, 0);
	atomic_init(&p->stop, false);
	if (pthread_create(&p->thread, NULL, run, p)) {
		free(p);
		return NULL;
	}
	return p;
}

atomic_uint_least64_t *tc_progress_counter(struct tc_progress *p)
{
	return p ? &p->done : NULL;
}

void tc_progress_stop(struct tc_progress **pp)
{
	struct tc_progress *p = *pp;

	if (!p)
		return;
	*pp = NULL;
	atomic_store(&p->stop, true);
	pthread_join(p->thread, NULL);
	if (p->drawn)
		fputs("\r\033[K", stderr);
	free(p);
}
