#include "lib/compat.h"
#include "lib/progress.h"
#include "lib/xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct tc_progress {
	char *label;
	uint64_t total;
	atomic_uint_least64_t done;
	atomic_bool stop;
	bool tty;        /* redraw in place; else whole lines */
	double delay;    /* seconds before the first line */
	bool drawn;
	double start;
	pthread_t thread;
};

/* -1 auto (stderr is a terminal), 0 off, 1 on */
static atomic_int mode = -1;

void tc_progress_set_mode(int m)
{
	atomic_store(&mode, m < 0 ? -1 : m > 0);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds as m:ss or h:mm:ss. */
static void clock_text(double s, char *buf, size_t len)
{
	uint64_t t = s > 0 && s < 1e9 ? (uint64_t)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%" PRIu64 ":%02u:%02u", t / 3600, (unsigned)(t / 60 % 60),
			 (unsigned)(t % 60));
	else
		snprintf(buf, len, "%u:%02u", (unsigned)(t / 60), (unsigned)(t % 60));
}

static void draw(struct tc_progress *p, uint64_t d, double elapsed, bool last)
{
	char eta[32], el[32];
	double rate = elapsed > 0 ? (double)d / elapsed : 0;

	if (p->tty)
		fputs("\r", stderr);
	clock_text(elapsed, el, sizeof(el));
	if (last && !p->total) {
		fprintf(stderr, "%s: done in %s", p->label, el);
	} else if (last) {
		fprintf(stderr, "%s: %" PRIu64 "/%" PRIu64 ", done in %s", p->label, d, p->total, el);
	} else if (!p->total) {
		fprintf(stderr, "%s: %s", p->label, el);
	} else {
		if (d > p->total)
			d = p->total;
		if (rate > 0)
			clock_text((double)(p->total - d) / rate, eta, sizeof(eta));
		fprintf(stderr, "%s: %" PRIu64 "/%" PRIu64 " (%.0f%%), %.*f/s, ETA %s", p->label, d,
			p->total, 100.0 * (double)d / (double)p->total, rate < 10 ? 1 : 0, rate,
			rate > 0 ? eta : "?");
	}
	fputs(p->tty ? "\033[K" : "\n", stderr);
	fflush(stderr);
	p->drawn = true;
}

static void *run(void *arg)
{
	struct tc_progress *p = arg;
	const struct timespec tick = { 0, 200 * 1000 * 1000 };
	double last = -1;
	uint64_t last_d = UINT64_MAX;

	if (p->drawn) {
		last = 0;
		last_d = 0;
	}
	while (!atomic_load(&p->stop)) {
		double t;
		uint64_t d;
		nanosleep(&tick, NULL);
		t = now_s() - p->start;
		if (atomic_load(&p->stop) || t < p->delay)
			continue;
		d = atomic_load(&p->done);
		/* log files: a line a second at most, and only when it moved */
		if (!p->tty && last >= 0 && (t - last < 1.0 || (d == last_d && p->total)))
			continue;
		draw(p, d, t, false);
		last = t;
		last_d = d;
	}
	return NULL;
}

struct tc_progress *tc_progress_start(const char *label, uint64_t total)
{
	struct tc_progress *p;
	bool tty = isatty(STDERR_FILENO);
	const char *env;

	int m = atomic_load(&mode);

	if (m == 0 || (m < 0 && !tty))
		return NULL;
	p = tc_xcalloc(1, sizeof(*p));
	p->label = tc_xstrdup(label);
	p->total = total;
	p->tty = tty;
	p->start = now_s();
	p->delay = 1.0;
	if ((env = getenv("TRACECLUSTER_PROGRESS_DELAY")) && *env) {
		char *end;
		double v = strtod(env, &end);
		if (!*end && v >= 0 && v < 3600)
			p->delay = v;
	}
	atomic_init(&p->done, 0);
	atomic_init(&p->stop, false);
	if (p->delay == 0)
		draw(p, 0, 0, false); /* at once, before any work */
	if (pthread_create(&p->thread, NULL, run, p)) {
		free(p->label);
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
	if (p->drawn && p->tty)
		fputs("\r\033[K", stderr);
	else if (p->drawn)
		draw(p, atomic_load(&p->done), now_s() - p->start, true);
	free(p->label);
	free(p);
}
