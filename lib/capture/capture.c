/*
 * capture.c - state, set-up and tear-down of the capture shim, and the path
 * from a finished event to the raw file.
 *
 * Events are committed into a batch: an array of slots (events, call-site
 * and communicator records, in the order the file needs them) plus an
 * arena for their arrays. A full batch goes to the writer thread, which
 * feeds the raw writer (encoding, deflate and write(2) when a block is
 * full) and hands the batch back. At most TC_MAX_BATCHES exist, so memory
 * is bounded; when the writer falls that far behind, the application
 * waits for it.
 *
 * Batches change hands through an atomic state (free, filling, full,
 * writing) and semaphores, never a lock: a signal handler may interrupt
 * the application anywhere, and the writer must still be able to finish.
 * SIGTERM/SIGINT: the handler only stops recording, wakes the writer
 * thread (sem_post) and waits for it (bounded); the writer thread, which
 * runs no application code and never takes the signal, writes the full
 * batches and the current one up to its last committed slot and closes
 * the file; then the signal is re-raised.
 */
#include "lib/compat.h"
#include "lib/capture/internal.h"
#include "lib/capture/online.h"
#include "formats/raw.h"
#include "lib/error.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TC_BATCH_SLOTS 1024
#define TC_MAX_BATCHES 4
#define TC_ARENA_BYTES (64 * 1024)
#define TC_SIGNAL_WAIT_S 3
/* A block seals at this many encoded bytes: on a full disk the part that
 * fits is kept block by block; ~10k events of a halo exchange. */
#define TC_CAP_DEFAULT_BLOCK (64 * 1024)
#define TC_CAP_DEFAULT_FLUSH_MS 1000

struct tc_cap_state tc_cap = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.depth = TC_CAP_DEFAULT_DEPTH,
	.skip = 3,
};
__thread int tc_cap_nest __attribute__((tls_model("initial-exec")));
__thread uint32_t tc_cap_tick __attribute__((tls_model("initial-exec")));
__thread struct tc_cap_probe tc_cap_probe __attribute__((tls_model("initial-exec")));

uint32_t tc_cap_tick_seed(void)
{
	return ((uint32_t)tc_cap.rank * 2654435761u) ^ (uint32_t)(uintptr_t)&tc_cap_tick ^ 0x9e3779b9u;
}

enum { SLOT_EVENT = 1, SLOT_CALLSITE, SLOT_COMM };

struct slot {
	uint8_t kind;
	union {
		struct tc_event ev;
		const struct tc_callsite *cs; /* owned by sites.c until the end */
		struct tc_comm comm;
	} u;
};

/* Batch states; a batch is filled by the application, written by the writer. */
enum { B_FREE, B_FILLING, B_FULL, B_WRITING };

struct batch {
	atomic_int state;
	uint64_t seq;            /* fill order = write order */
	atomic_uint n;           /* committed slots */
	unsigned done;           /* slots written already (writer side) */
	uint8_t *arena;
	size_t alen, acap;
	struct slot slots[TC_BATCH_SLOTS];
};

/* Trace states: who owns the writer. */
enum { ST_OFF, ST_RUNNING, ST_CLOSING, ST_CLOSED };

static struct {
	atomic_int state;
	struct tc_raw_writer *w;
	char path[PATH_MAX];
	char dir[PATH_MAX];             /* the job's trace directory */
	struct batch *_Atomic cur;      /* filled by the application */
	struct batch *batches[TC_MAX_BATCHES];
	atomic_uint nbatches;
	uint64_t fill_seq;              /* application side */
	uint64_t write_seq;             /* writer side */
	sem_t work, freed, done;
	pthread_t thread;
	bool threaded;
	atomic_int stop, emergency, failed;
	atomic_int stopped;             /* recording stopped for good (warned) */
	atomic_int wstop;               /* out of memory in the writer: it encodes no
	                                 * more, drops, and closes with its trailer */
	atomic_uint_fast64_t dropped;
	uint64_t flush_ms;              /* write what is committed this often (0: never) */
	uint64_t unflushed;             /* slots written since the last flush (writer) */
	struct sigaction old_term, old_int;
	bool handlers;
	/* in-job clustering from MPI_Init on (online.h) */
	struct tc_online_hooks hooks;
	bool armed;                     /* hooks.at_collective is called */
	atomic_int recording;           /* armed: what active would say */
	atomic_int suppress;            /* armed: events go to the tap only */
	atomic_int sync_req;            /* the application waits for the writer */
	sem_t synced;
} W;

static void cap_warn(const char *fmt, ...) TC_PRINTF(1, 2);

/* One line on standard error with one write(2): no memory, no stdio lock. */
static void cap_warn(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	size_t n;

	snprintf(buf, sizeof(buf) - 1, "tracecluster-capture: rank %d: ", (int)tc_cap.rank);
	n = strlen(buf);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - 1 - n, fmt, ap);
	va_end(ap);
	n = strlen(buf);
	buf[n++] = '\n';
	while (write(STDERR_FILENO, buf, n) < 0 && errno == EINTR)
		;
}

/*
 * Wrappers record while active. With in-job clustering armed they run
 * (active) while the trace is open even when nothing is to be recorded
 * (paused, stopped), so that every rank reaches the plugin at the same
 * collectives; tc_cap_commit then queues nothing.
 */
static void set_active(void)
{
	int running = atomic_load(&W.state) == ST_RUNNING;
	int on = running && !atomic_load(&tc_cap.paused) && !atomic_load(&W.stopped);

	atomic_store(&W.recording, on);
	atomic_store(&tc_cap.active, on || (W.armed && running));
}

/* Stop recording on this rank for good; true the first time, to warn. */
static bool stop_recording(void)
{
	atomic_store(&W.recording, 0);
	if (!W.armed)
		atomic_store(&tc_cap.active, 0);
	return !atomic_exchange(&W.stopped, 1);
}

/* ---- memory ------------------------------------------------------------- */

/*
 * The shim's allocations. Running out of memory must not end the job: the
 * first failure stops recording on this rank for good, with one warning,
 * and the caller gets NULL and leaves its tables as they were. What was
 * recorded before is written all the same, and the file closed with its
 * trailer at MPI_Finalize or exit.
 */
void tc_cap_nomem(size_t n)
{
	if (stop_recording())
		cap_warn("out of memory (allocating %zu bytes); tracing stopped", n);
}

void *tc_cap_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		tc_cap_nomem(n);
	return p;
}

void *tc_cap_calloc(size_t nmemb, size_t size)
{
	size_t n;
	void *p;

	if (__builtin_mul_overflow(nmemb, size, &n)) {
		tc_cap_nomem(SIZE_MAX);
		return NULL;
	}
	p = calloc(n ? n : 1, 1);
	if (!p)
		tc_cap_nomem(n);
	return p;
}

void *tc_cap_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		tc_cap_nomem(n);
	return q;
}

char *tc_cap_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = tc_cap_malloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

void *tc_cap_grow(void *p, size_t *alloc, size_t n, size_t size)
{
	size_t na = *alloc ? *alloc : 8, bytes;
	void *q;

	while (na < n)
		if (__builtin_mul_overflow(na, 2, &na))
			na = n;
	if (__builtin_mul_overflow(na, size, &bytes)) {
		tc_cap_nomem(SIZE_MAX);
		return p;
	}
	q = tc_cap_realloc(p, bytes);
	if (!q)
		return p;
	*alloc = na;
	return q;
}

/* ---- the writer side ---------------------------------------------------- */

/* The writer failed: one warning, recording stops, the job goes on. */
static void writer_failed(const struct tc_error *e)
{
	char msg[1200];

	if (atomic_exchange(&W.failed, 1))
		return;
	if (stop_recording()) {
		tc_error_format(e, msg, sizeof(msg));
		cap_warn("%s; tracing stopped", msg);
	}
	sem_post(&W.freed);
	tc_raw_writer_abort(&W.w);
}

/*
 * A record the raw writer could not take. Out of memory leaves the file
 * and the writer as they were: the writer takes no more records (the
 * rest count as dropped) and still closes the file with its trailer.
 * Anything else (a write error) ends the writer.
 */
static void writer_error(const struct tc_error *e)
{
	char msg[1200];

	if (e->code != TC_ERR_NOMEM) {
		writer_failed(e);
		return;
	}
	atomic_store(&W.wstop, 1);
	if (stop_recording()) {
		tc_error_format(e, msg, sizeof(msg));
		cap_warn("%s; tracing stopped", msg);
	}
}

/* Write the committed slots of b not written yet. */
static void write_slots(struct batch *b)
{
	unsigned to = atomic_load_explicit(&b->n, memory_order_acquire);
	struct tc_error err;

	tc_error_clear(&err);
	W.unflushed += to - b->done;
	for (unsigned i = b->done; i < to; i++) {
		const struct slot *s = &b->slots[i];
		int rc = 0;

		if (atomic_load(&W.failed) || atomic_load(&W.wstop) || !W.w) {
			if (s->kind == SLOT_EVENT)
				atomic_fetch_add(&W.dropped, 1);
			continue;
		}
		switch (s->kind) {
		case SLOT_EVENT:
			if (TC_UNLIKELY(W.armed)) {
				W.hooks.on_event(W.hooks.ctx, &s->u.ev);
				if (atomic_load_explicit(&W.suppress, memory_order_relaxed))
					break;
			}
			rc = tc_raw_writer_event(W.w, &s->u.ev, &err);
			break;
		case SLOT_CALLSITE:
			if (TC_UNLIKELY(W.armed))
				W.hooks.on_callsite(W.hooks.ctx, s->u.cs);
			rc = tc_raw_writer_callsite(W.w, s->u.cs, &err);
			break;
		case SLOT_COMM:
			if (TC_UNLIKELY(W.armed))
				W.hooks.on_comm(W.hooks.ctx, &s->u.comm);
			rc = tc_raw_writer_comm(W.w, &s->u.comm, &err);
			break;
		}
		if (rc) {
			if (s->kind == SLOT_EVENT)
				atomic_fetch_add(&W.dropped, 1);
			writer_error(&err);
		}
	}
	b->done = to;
}

static void batch_reset(struct batch *b)
{
	atomic_store_explicit(&b->n, 0, memory_order_relaxed);
	b->done = 0;
	b->alen = 0;
}

/* The next full batch in fill order, now owned by the writer, or NULL. */
static struct batch *take_full(void)
{
	unsigned nb = atomic_load_explicit(&W.nbatches, memory_order_acquire);

	for (unsigned i = 0; i < nb; i++) {
		struct batch *b = W.batches[i];
		int expect = B_FULL;
		if (b->seq == W.write_seq &&
		    atomic_compare_exchange_strong(&b->state, &expect, B_WRITING)) {
			W.write_seq++;
			return b;
		}
	}
	return NULL;
}

static void release_batch(struct batch *b)
{
	batch_reset(b);
	atomic_store_explicit(&b->state, B_FREE, memory_order_release);
	sem_post(&W.freed);
}

static void close_writer(void)
{
	struct tc_error err;

	tc_error_clear(&err);
	if (!W.w)
		return;
	if (atomic_load(&W.dropped))
		tc_raw_writer_drop(W.w, atomic_load(&W.dropped));
	tc_raw_writer_set_tracer_ns(W.w, tc_cap_tracer_mean(NULL));
	for (unsigned op = 1; op < TC_OP_MAX; op++) {
		uint64_t ns;
		if (tc_cap_op_mean(op, &ns))
			tc_raw_writer_set_tracer_op(W.w, op, ns, atomic_load(&tc_cap.calls[op]));
	}
	if (tc_raw_writer_close(&W.w, &err))
		writer_failed(&err);
}

/*
 * After a signal: write the full batches and the current one up to its
 * last committed slot, then close. Runs on the writer thread and takes
 * no lock, whatever the interrupted thread was holding.
 */
/*
 * Write the committed slots of the batch being filled when it is the next
 * in order: the application goes on filling it, the writer only reads the
 * slots published before n (release/acquire) and keeps its place in done.
 */
static void write_current(void)
{
	struct batch *b = atomic_load(&W.cur);

	if (b && atomic_load(&b->state) == B_FILLING && b->seq == W.write_seq)
		write_slots(b);
}

static void emergency_flush(void)
{
	struct batch *b;

	while ((b = take_full()) != NULL)
		write_slots(b);
	write_current();
	close_writer();
}

/*
 * Every flush_ms, what the application committed reaches the file as a
 * block of its own: a rank killed without a chance to flush (SIGKILL,
 * a node failure, mpirun tearing the job down) loses at most the last
 * flush_ms of events, or the last block when that is shorter.
 */
static void timed_flush(void)
{
	struct tc_error err;

	write_current();
	if (!W.unflushed || !W.w || atomic_load(&W.failed))
		return;
	W.unflushed = 0;
	tc_error_clear(&err);
	if (tc_raw_writer_flush(W.w, &err))
		writer_error(&err);
}

static void deadline_after(struct timespec *ts, uint64_t ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += (time_t)(ms / 1000);
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static bool past(const struct timespec *ts)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return now.tv_sec > ts->tv_sec || (now.tv_sec == ts->tv_sec && now.tv_nsec >= ts->tv_nsec);
}

static void *writer_main(void *arg)
{
	struct timespec next;

	(void)arg;
	pthread_setname_np(pthread_self(), "tc-writer");
	deadline_after(&next, W.flush_ms);
	for (;;) {
		struct batch *b;
		int rc;

		if (W.flush_ms)
			while ((rc = sem_timedwait(&W.work, &next)) < 0 && errno == EINTR)
				;
		else
			while ((rc = sem_wait(&W.work)) < 0 && errno == EINTR)
				;
		if (atomic_load(&W.emergency)) {
			emergency_flush();
			sem_post(&W.done);
			if (atomic_exchange(&W.sync_req, 0))
				sem_post(&W.synced);
			return NULL;
		}
		while (!atomic_load(&W.emergency) && (b = take_full()) != NULL) {
			write_slots(b);
			release_batch(b);
		}
		if (atomic_exchange(&W.sync_req, 0)) {
			/* the application waits (writer_sync): every committed
			 * slot has been written, the current batch's too */
			write_current();
			sem_post(&W.synced);
		}
		if (atomic_load(&W.stop) && !atomic_load(&W.emergency))
			return NULL;
		if (W.flush_ms && (rc < 0 || past(&next))) {
			timed_flush();
			deadline_after(&next, W.flush_ms);
		}
	}
}

/* ---- the application side ---------------------------------------------- */

static struct batch *batch_new(void)
{
	struct batch *b = tc_cap_calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->acap = TC_ARENA_BYTES;
	b->arena = tc_cap_malloc(b->acap);
	if (!b->arena) {
		free(b);
		return NULL;
	}
	atomic_store(&b->state, B_FILLING);
	return b;
}

/* A free batch, now filling; NULL when none is free and none may be made. */
static struct batch *grab_batch(void)
{
	unsigned nb = atomic_load(&W.nbatches);

	for (unsigned i = 0; i < nb; i++) {
		int expect = B_FREE;
		if (atomic_compare_exchange_strong(&W.batches[i]->state, &expect, B_FILLING))
			return W.batches[i];
	}
	if (nb < TC_MAX_BATCHES) {
		struct batch *b = batch_new();
		if (!b)
			return NULL;
		W.batches[nb] = b;
		atomic_store_explicit(&W.nbatches, nb + 1, memory_order_release);
		return b;
	}
	return NULL;
}

static void prealloc_batches(void)
{
	for (unsigned nb = atomic_load(&W.nbatches); nb < TC_MAX_BATCHES; nb++) {
		struct batch *b = batch_new();
		if (!b)
			return;
		atomic_store(&b->state, B_FREE);
		W.batches[nb] = b;
		atomic_store_explicit(&W.nbatches, nb + 1, memory_order_release);
	}
}

/* Hand the full batch b to the writer (or write it here without one). */
static void pass_on(struct batch *b)
{
	if (!W.threaded) {
		write_slots(b);
		batch_reset(b);
		return;
	}
	atomic_store_explicit(&b->state, B_FULL, memory_order_release);
	sem_post(&W.work);
}

/*
 * Make a fresh batch current, with at least arena_need bytes of arena,
 * after handing on the current one. Waits while TC_MAX_BATCHES are in
 * flight; returns NULL when tracing is over.
 */
static struct batch *handover(size_t arena_need)
{
	struct batch *b = atomic_load_explicit(&W.cur, memory_order_relaxed);

	if (b && atomic_load_explicit(&b->n, memory_order_relaxed)) {
		pass_on(b);
		if (W.threaded) {
			atomic_store(&W.cur, NULL);
			b = NULL;
		}
	}
	if (!b) {
		while (!(b = grab_batch())) {
			if (atomic_load(&W.state) != ST_RUNNING || atomic_load(&W.failed) ||
			    atomic_load(&W.stopped))
				return NULL;
			while (sem_wait(&W.freed) < 0 && errno == EINTR)
				;
		}
		b->seq = W.fill_seq++;
	}
	batch_reset(b);
	atomic_store(&W.cur, b);
	if (arena_need > b->acap) {
		uint8_t *a = tc_cap_realloc(b->arena, arena_need);
		if (!a)
			return NULL; /* b stays current, empty */
		b->arena = a;
		b->acap = arena_need;
	}
	return b;
}

/* A slot of the current batch with `need` bytes of arena (8-aligned). */
static struct slot *slot_claim(size_t need, uint8_t **arena)
{
	struct batch *b = atomic_load_explicit(&W.cur, memory_order_relaxed);
	unsigned n;

	need = (need + 7) & ~(size_t)7;
	if (TC_UNLIKELY(!b) || atomic_load_explicit(&b->n, memory_order_relaxed) == TC_BATCH_SLOTS ||
	    b->alen + need > b->acap) {
		b = handover(need);
		if (!b)
			return NULL;
	}
	n = atomic_load_explicit(&b->n, memory_order_relaxed);
	*arena = b->arena + b->alen;
	b->alen += need;
	return &b->slots[n];
}

static void slot_publish(void)
{
	struct batch *b = atomic_load_explicit(&W.cur, memory_order_relaxed);

	atomic_store_explicit(&b->n, atomic_load_explicit(&b->n, memory_order_relaxed) + 1,
			      memory_order_release);
}

static void emit_event(const struct tc_event *ev)
{
	size_t need = 0;
	uint8_t *a;
	struct slot *s;

	if (ev->fields & TC_F_COMPL)
		need += ev->ncompl * sizeof(struct tc_completion);
	if (ev->fields & TC_F_SCOUNTS)
		need += ev->nscounts * sizeof(uint64_t);
	if (ev->fields & TC_F_RCOUNTS)
		need += ev->nrcounts * sizeof(uint64_t);
	s = slot_claim(need, &a);
	if (!s) {
		atomic_fetch_add(&W.dropped, 1);
		return;
	}
	s->kind = SLOT_EVENT;
	s->u.ev = *ev;
	if (ev->fields & TC_F_COMPL) {
		size_t n = ev->ncompl * sizeof(struct tc_completion);
		if (n)
			memcpy(a, ev->compl, n);
		s->u.ev.compl = (const struct tc_completion *)a;
		a += n;
	}
	if (ev->fields & TC_F_SCOUNTS) {
		size_t n = ev->nscounts * sizeof(uint64_t);
		if (n)
			memcpy(a, ev->scounts, n);
		s->u.ev.scounts = (const uint64_t *)a;
		a += n;
	}
	if (ev->fields & TC_F_RCOUNTS) {
		size_t n = ev->nrcounts * sizeof(uint64_t);
		if (n)
			memcpy(a, ev->rcounts, n);
		s->u.ev.rcounts = (const uint64_t *)a;
	}
	slot_publish();
}

void tc_cap_emit_callsite(const struct tc_callsite *cs)
{
	uint8_t *a;
	struct slot *s = slot_claim(0, &a);

	if (!s)
		return;
	s->kind = SLOT_CALLSITE;
	s->u.cs = cs;
	slot_publish();
}

void tc_cap_emit_comm(const struct tc_comm *c)
{
	uint8_t *a;
	struct slot *s;

	if (atomic_load(&W.state) != ST_RUNNING || atomic_load(&W.stopped))
		return;
	s = slot_claim((c->size + tc_comm_edge_words(c)) * sizeof(int32_t), &a);
	if (!s)
		return;
	s->kind = SLOT_COMM;
	s->u.comm = *c;
	if (c->size)
		memcpy(a, c->members, c->size * sizeof(int32_t));
	s->u.comm.members = (const int32_t *)a;
	if (tc_comm_edge_words(c))
		memcpy(a + c->size * sizeof(int32_t), c->edges,
		       tc_comm_edge_words(c) * sizeof(int32_t));
	s->u.comm.edges = (const int32_t *)(a + c->size * sizeof(int32_t));
	slot_publish();
}

static void online_after(const struct tc_event *ev);

/* The shim's time after the end of a call of op that ended at t_end,
 * timed (read off the clock) or not, into its stratum (tc_cap.tracer). */
static inline void tracer_sample(unsigned op, uint64_t t_end, bool timed)
{
	struct tc_cap_tracer_op *t = &tc_cap.tracer[op];
	uint64_t k = atomic_load_explicit(&tc_cap.calls[op], memory_order_relaxed), x;

	if (!timed)
		return;
	if (k >= TC_CAP_GAP_ALL && !atomic_load_explicit(&tc_cap.dur[op], memory_order_relaxed)) {
		/* timed at exit: one later call in TC_CAP_GAP_SAMPLE, drawn */
		if (tc_cap_tick_next() >> (32 - TC_CAP_GAP_SAMPLE_BITS))
			return;
	}
	x = tc_cap_clock();
	/* the rest of the wrapper's time from this read (tc_cap_tail) */
	tc_cap_probe.mark = x;
	tc_cap_probe.op = op;
	x -= tc_cap.t0;
	x = x > t_end ? x - t_end : 0;
	if (k < TC_CAP_GAP_ALL && t->first_n < TC_CAP_GAP_ALL) {
		t->first[t->first_n++] = (uint32_t)TC_MIN(x, (uint64_t)TC_TRACER_NS_MAX);
		t->first_sum += x;
	} else if (k >= TC_CAP_GAP_ALL) {
		t->later_sum += x;
		t->later_n++;
	}
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The wrapper's time before the start of the call r records, when its
 * entry was sampled (tc_cap_enter); under the lock. Init, Finalize and
 * Pcontrol start before they enter and are not sampled. */
static inline void pre_sample(const struct tc_rec *r)
{
	uint64_t e = tc_cap_probe.entry, t0 = r->ev.t_start + tc_cap.t0;

	if (!e)
		return;
	tc_cap_probe.entry = 0;
	if (e <= t0 && t0 - e < TC_CAP_PROBE_MAX) {
		atomic_fetch_add_explicit(&tc_cap.pre_sum[r->ev.op], t0 - e, memory_order_relaxed);
		atomic_fetch_add_explicit(&tc_cap.pre_n[r->ev.op], 1, memory_order_relaxed);
	}
}

void tc_cap_tail(void)
{
	uint64_t x = tc_cap_clock() - tc_cap_probe.mark;
	unsigned op = tc_cap_probe.op;

	tc_cap_probe.mark = 0;
	x = x > tc_cap.clock_ns ? x - tc_cap.clock_ns : 0;
	if (op < TC_OP_MAX && x < TC_CAP_PROBE_MAX) {
		atomic_fetch_add_explicit(&tc_cap.tail_sum[op], x, memory_order_relaxed);
		atomic_fetch_add_explicit(&tc_cap.tail_n[op], 1, memory_order_relaxed);
	}
}

/* The mean of sum[op] / n[op], or, where op has no sample, of every op's
 * pooled; 0 without any. */
static double probe_mean(const _Atomic uint64_t *sum, const _Atomic uint64_t *n, unsigned op)
{
	uint64_t s = atomic_load_explicit(&sum[op], memory_order_relaxed);
	uint64_t k = atomic_load_explicit(&n[op], memory_order_relaxed);

	if (!k)
		for (unsigned o = 1; o < TC_OP_MAX; o++) {
			s += atomic_load_explicit(&sum[o], memory_order_relaxed);
			k += atomic_load_explicit(&n[o], memory_order_relaxed);
		}
	return k ? (double)s / (double)k : 0;
}

/* The wrapper's mean time outside the sample of tc_cap.tracer[op] (the
 * time before its start and after that sample's end), ns: the op's own
 * samples, or, where it has none, those of every op pooled (the time
 * there is the shim's entry and exit, nearly the same for every op). */
static double wrapper_mean(unsigned op)
{
	return probe_mean(tc_cap.pre_sum, tc_cap.pre_n, op) +
	       probe_mean(tc_cap.tail_sum, tc_cap.tail_n, op);
}

bool tc_cap_op_mean(unsigned op, uint64_t *ns)
{
	const struct tc_cap_tracer_op *t;
	uint64_t calls;
	uint32_t first_n;
	double later, mean;

	if (op >= TC_OP_MAX)
		return false;
	t = &tc_cap.tracer[op];
	calls = atomic_load_explicit(&tc_cap.calls[op], memory_order_relaxed);
	if (!calls || (!t->first_n && !t->later_n))
		return false;
	/* read once: a signal's flush may read while a call records */
	first_n = TC_MIN(t->first_n, (uint32_t)TC_CAP_GAP_ALL);
	if (t->later_n) {
		later = (double)t->later_sum / (double)t->later_n;
	} else if (first_n) {
		uint32_t v[TC_CAP_GAP_ALL];
		memcpy(v, t->first, first_n * sizeof(*v));
		qsort(v, first_n, sizeof(*v), u32_cmp);
		later = v[first_n / 2];
	} else {
		return false;
	}
	mean = calls > first_n ? ((double)t->first_sum + (double)(calls - first_n) * later) /
					 (double)calls
			       : (double)t->first_sum / (double)first_n;
	mean += wrapper_mean(op);
	*ns = mean < (double)TC_TRACER_NS_MAX ? (uint64_t)(mean + 0.5) : TC_TRACER_NS_MAX;
	return true;
}

uint64_t tc_cap_tracer_mean(uint64_t *calls)
{
	double sum = 0;
	uint64_t n = 0, ns;

	for (unsigned op = 1; op < TC_OP_MAX; op++) {
		uint64_t c = atomic_load_explicit(&tc_cap.calls[op], memory_order_relaxed);
		if (!tc_cap_op_mean(op, &ns))
			continue;
		sum += (double)ns * (double)c;
		n += c;
	}
	if (calls)
		*calls = n;
	return n ? (uint64_t)(sum / (double)n + 0.5) : 0;
}

void tc_cap_commit(struct tc_rec *r)
{
	/* a signal or a write error may have ended tracing meanwhile */
	if (TC_LIKELY(atomic_load_explicit(&tc_cap.active, memory_order_relaxed)) &&
	    (TC_LIKELY(!W.armed) || atomic_load(&W.recording))) {
		/* a wait/test that completed nothing lists no completions */
		if ((r->ev.fields & TC_F_COMPL) && !r->ev.ncompl)
			r->ev.fields &= ~(uint32_t)TC_F_COMPL;
		r->ev.callsite = tc_sites_lookup(r->frames, r->nframes);
		pre_sample(r);
		emit_event(&r->ev);
		tracer_sample(r->ev.op, r->ev.t_end, r->timed);
		atomic_store_explicit(&tc_cap.calls[r->ev.op],
				      atomic_load_explicit(&tc_cap.calls[r->ev.op],
							   memory_order_relaxed) + 1,
				      memory_order_relaxed);
	} else if (TC_UNLIKELY(W.armed)) {
		/* paused: the plugin still tells the marker by its call site */
		r->ev.callsite = tc_sites_lookup(r->frames, r->nframes);
	}
	tc_cap_unlock();
	if (TC_UNLIKELY(W.armed))
		online_after(&r->ev);
}

/* ---- signals, exit ----------------------------------------------------- */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int expect = ST_RUNNING;
	struct sigaction *old = sig == SIGTERM ? &W.old_term : &W.old_int;
	int saved = errno;

	atomic_store(&tc_cap.active, 0);
	if (W.threaded && atomic_compare_exchange_strong(&W.state, &expect, ST_CLOSING)) {
		struct timespec ts;

		atomic_store(&W.emergency, 1);
		sem_post(&W.work);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += TC_SIGNAL_WAIT_S;
		while (sem_timedwait(&W.done, &ts) < 0 && errno == EINTR)
			;
		atomic_store(&W.state, ST_CLOSED);
		sem_post(&W.freed); /* an application thread waiting for a batch goes on */
	}
	/* hand the signal on: to the previous handler, or default action */
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction) {
			old->sa_sigaction(sig, si, uc);
			errno = saved;
			return;
		}
	} else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
		errno = saved;
		return;
	}
	sigaction(sig, old, NULL);
	raise(sig);
	errno = saved;
}

static void install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* an ignored signal stays ignored */
	if (sigaction(SIGTERM, NULL, &W.old_term) == 0 && W.old_term.sa_handler != SIG_IGN)
		sigaction(SIGTERM, &sa, NULL);
	if (sigaction(SIGINT, NULL, &W.old_int) == 0 && W.old_int.sa_handler != SIG_IGN)
		sigaction(SIGINT, &sa, NULL);
	W.handlers = true;
}

static void remove_handlers(void)
{
	struct sigaction cur;

	if (!W.handlers)
		return;
	W.handlers = false;
	if (sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_sigaction == on_signal)
		sigaction(SIGTERM, &W.old_term, NULL);
	if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_sigaction == on_signal)
		sigaction(SIGINT, &W.old_int, NULL);
}

static void emit_symbolised(const struct tc_callsite *cs, void *ctx)
{
	struct tc_error err;

	(void)ctx;
	tc_error_clear(&err);
	if (W.armed && W.w && !atomic_load(&W.failed) && !atomic_load(&W.wstop))
		W.hooks.on_callsite(W.hooks.ctx, cs);
	if (W.w && !atomic_load(&W.failed) && !atomic_load(&W.wstop) &&
	    tc_raw_writer_callsite(W.w, cs, &err))
		writer_error(&err);
}

/*
 * After MPI_Finalize: no wrapper records any more (tracing is closed), so
 * the tables can go. Not at exit(3) or on a signal, where other threads
 * may still be inside a wrapper.
 */
static void release_all(void)
{
	unsigned nb = atomic_load(&W.nbatches);

	atomic_store(&W.cur, NULL);
	for (unsigned i = 0; i < nb; i++) {
		free(W.batches[i]->arena);
		free(W.batches[i]);
		W.batches[i] = NULL;
	}
	atomic_store(&W.nbatches, 0);
	tc_sites_release();
	tc_tables_release();
}

/*
 * Stop the writer thread after it wrote everything committed; then the
 * calling thread owns the writer. symbols (MPI_Finalize): add the
 * call-site records with symbols before the trailer, then free the
 * shim's memory.
 */
static void close_trace(bool symbols)
{
	int expect = ST_RUNNING;
	struct batch *b;

	if (!atomic_compare_exchange_strong(&W.state, &expect, ST_CLOSING))
		return;
	atomic_store(&tc_cap.active, 0);
	remove_handlers();
	tc_cap_lock();
	b = atomic_load(&W.cur);
	if (b && atomic_load(&b->n))
		pass_on(b);
	tc_cap_unlock();
	if (W.threaded) {
		atomic_store(&W.stop, 1);
		sem_post(&W.work);
		pthread_join(W.thread, NULL);
		W.threaded = false;
	}
	/* symbols are extra: not after running out of memory once */
	if (symbols && W.w && !atomic_load(&W.stopped))
		tc_sites_symbolise(emit_symbolised, NULL);
	close_writer();
	atomic_store(&W.state, ST_CLOSED);
	if (symbols)
		release_all();
}

static void at_exit(void)
{
	close_trace(false);
}

/*
 * In the child of fork(2) (system(3) and popen(3) where they fork, or a
 * fork() of the application) the shim goes inert: the trace belongs to the
 * parent, whose file description the child shares. The state is closed, so
 * nothing records (MPI_Pcontrol cannot resume either), and the exit
 * handler, the signal handler and MPI_Finalize find nothing to flush,
 * write or truncate; the writer thread does not exist in the child and is
 * never waited for. The child has one thread, so it takes no lock that
 * another thread of the parent may have held at the fork. No prepare or
 * parent handler is needed: the writer thread hands batches over through
 * atomics and semaphores and holds no lock the child could wait for, and
 * taking the capture lock before the fork would deadlock a fork made from
 * a signal handler that interrupted a recording thread.
 */
static void atfork_child(void)
{
	atomic_store(&tc_cap.active, 0);
	atomic_store(&W.state, ST_CLOSED);
	W.threaded = false;
	W.armed = false;
	tc_cap.mt = false;
}

void tc_cap_shutdown(void)
{
	close_trace(false);
}

void tc_cap_pcontrol(int level)
{
	atomic_store(&tc_cap.paused, level == 0);
	set_active();
}

/* ---- set-up ------------------------------------------------------------ */

static uint64_t env_u64(const char *name, uint64_t def, uint64_t lo, uint64_t hi)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		goto bad;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	}
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' && end[1] == 'B' ? 2 : 1;
	if (*end || v < lo || v > hi)
		goto bad;
	return v;
bad:
	if (tc_cap.rank == 0)
		cap_warn("ignoring %s='%s' (expected %" PRIu64 "..%" PRIu64 ")", name, s, lo, hi);
	return def;
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
	char buf[PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0777) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static void read_cmdline(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cmdline", "re");
	size_t n = 0;

	out[0] = '\0';
	if (!f)
		return;
	n = fread(out, 1, len - 1, f);
	fclose(f);
	out[n] = '\0';
	while (n > 0 && out[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n; i++)
		if (out[i] == '\0')
			out[i] = ' ';
}

static void job_id(char *out, size_t len)
{
	static const char *const vars[] = {
		"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "JOB_ID", "COBALT_JOBID",
		"FLUX_JOB_ID", "OMPI_MCA_orte_ess_jobid", "PMIX_NAMESPACE",
	};
	out[0] = '\0';
	for (size_t i = 0; i < TC_ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) {
			snprintf(out, len, "%s", v);
			return;
		}
	}
}

/* ---- the trace directory: owned by one job ------------------------------ */

#define TC_CAP_JOB_FILE "tracecluster.job"

/* Whether dir holds a job's traces: rank files, or the job file of one. */
static bool dir_taken(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool taken = false;

	if (!d)
		return false;
	while (!taken && (de = readdir(d)) != NULL)
		taken = !strcmp(de->d_name, TC_CAP_JOB_FILE) ||
			(!strncmp(de->d_name, "rank-", 5) && strstr(de->d_name, ".tcr"));
	closedir(d);
	return taken;
}

/*
 * Claim dir for this job by creating its job file, exclusively: who wrote
 * here, so that another job finds the directory taken. Returns 0, 1 when
 * dir holds another job's traces, -1 (errno) on failure.
 */
static int claim_dir(const char *dir, const char *job)
{
	char path[PATH_MAX], host[256] = "", when[64] = "";
	time_t now = time(NULL);
	struct tm tm;
	int fd;

	if (dir_taken(dir))
		return 1;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, TC_CAP_JOB_FILE) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno == EEXIST ? 1 : -1;
	gethostname(host, sizeof(host) - 1);
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	dprintf(fd, "job %s\npid %ld\nhost %s\nranks %d\nstart %s\nwriter tracecluster-capture "
		TC_VERSION "\n", *job ? job : "-", (long)getpid(), host, (int)tc_cap.size, when);
	close(fd);
	return 0;
}

/*
 * A fresh subdirectory of dir claimed for job: dir/base-K (numbered: from
 * K = 1; otherwise dir/base first, then base-2, ...), K the first for
 * which mkdir(2) creates it, so that jobs choosing at once each get their
 * own. Its path goes to out.
 */
static int claim_fresh(const char *dir, const char *base, bool numbered, const char *job,
		       char *out, size_t len, struct tc_error *err)
{
	for (int k = 1; k < 100000; k++) {
		int n = k == 1 && !numbered ? snprintf(out, len, "%s/%s", dir, base)
					    : snprintf(out, len, "%s/%s-%d", dir, base, k), rc;
		if (n < 0 || (size_t)n >= len)
			return tc_error_set(err, TC_ERR, dir, -1, "path too long");
		if (mkdir(out, 0777) < 0) {
			if (errno == EEXIST)
				continue;
			return tc_error_sys(err, out, "create directory");
		}
		if ((rc = claim_dir(out, job)) == 0)
			return 0;
		if (rc < 0)
			return tc_error_sys(err, out, "create the job file in");
	}
	return tc_error_set(err, TC_ERR, dir, -1, "no fresh subdirectory could be made");
}

/*
 * Rank 0: the directory the job writes to. dir itself when it holds no
 * other job's traces; else a fresh subdirectory named after the batch job
 * (job-ID) or the time and pid (run-YYYYMMDD-HHMMSS-PID): a trace is never
 * overwritten or mixed with another job's.
 */
static int choose_dir(const char *dir, char *out, size_t len, bool *moved,
		      struct tc_error *err)
{
	char job[128], base[200];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	*moved = false;
	job_id(job, sizeof(job));
	if (make_dirs(dir) < 0)
		return tc_error_sys(err, dir, "create directory");
	rc = claim_dir(dir, job);
	if (rc < 0)
		return tc_error_sys(err, dir, "create the job file in");
	if (rc == 0) {
		if ((size_t)snprintf(out, len, "%s", dir) >= len)
			return tc_error_set(err, TC_ERR, dir, -1, "path too long");
		return 0;
	}
	if (*job) {
		size_t k = (size_t)snprintf(base, sizeof(base), "job-%s", job);
		for (size_t i = 4; i < k && i < sizeof(base); i++)
			if (!(isalnum((unsigned char)base[i]) || base[i] == '.' || base[i] == '-' ||
			      base[i] == '_'))
				base[i] = '_';
	} else {
		localtime_r(&now, &tm);
		snprintf(base, sizeof(base), "run-%04d%02d%02d-%02d%02d%02d-%ld", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)getpid());
	}
	if ((rc = claim_fresh(dir, base, false, job, out, len, err)) == 0)
		*moved = true;
	return rc;
}

/*
 * Rank 0 of a world started by MPI_Comm_spawn: the directory its ranks
 * write to is dir/spawn-N, N the first number for which mkdir(2) creates
 * the directory (atomic, so worlds spawned at once each get their own),
 * claimed like a job's own directory. The parent job's files in dir are
 * never touched, and there is no warning: dir is the parent job's.
 */
static int choose_spawn_dir(const char *dir, char *out, size_t len, struct tc_error *err)
{
	char job[128];

	job_id(job, sizeof(job));
	if (make_dirs(dir) < 0)
		return tc_error_sys(err, dir, "create directory");
	return claim_fresh(dir, "spawn", true, job, out, len, err);
}

static int open_trace(const char *dir, uint64_t realtime0, size_t block, int level,
		      struct tc_error *err)
{
	struct tc_raw_header h;
	struct tc_raw_writer_opts o;

	memset(&h, 0, sizeof(h));
	memset(&o, 0, sizeof(o));
	/* rank 0 made it; on a file system of its own a node makes its own */
	if (make_dirs(dir) < 0)
		return tc_error_sys(err, dir, "create directory");
	if ((size_t)snprintf(W.path, sizeof(W.path), "%s/rank-%05d.tcr", dir, (int)tc_cap.rank) >=
	    sizeof(W.path))
		return tc_error_set(err, TC_ERR, dir, -1, "path too long");
	h.rank = tc_cap.rank;
	h.world_size = tc_cap.size;
	h.start_time_ns = realtime0;
	h.pid = (uint32_t)getpid();
	h.stack_depth = (uint32_t)tc_cap.depth;
	job_id(h.job_id, sizeof(h.job_id));
	gethostname(h.host, sizeof(h.host) - 1);
	snprintf(h.clock, sizeof(h.clock), "CLOCK_MONOTONIC");
	read_cmdline(h.program, sizeof(h.program));
	snprintf(h.writer, sizeof(h.writer), "tracecluster-capture " TC_VERSION);
	o.block_bytes = block;
	o.level = level ? level : -1; /* 0: stored blocks */
	/* a killed rank must leave its blocks under the real name (and the
	 * temporary name of lib/file.c would be made with xalloc) */
	o.atomic = false;
	o.exclusive = true; /* never another job's file, never through a symlink */
	return tc_raw_writer_open(&W.w, W.path, &h, &o, err);
}

/*
 * The stack walker: TRACECLUSTER_UNWIND=cfi (default), libunwind,
 * backtrace or fp. cfi falls back on libunwind, else backtrace(3), for
 * the frames it cannot walk.
 */
static void init_unwind(void)
{
	const char *s = getenv("TRACECLUSTER_UNWIND");
	void *h;

	if (s && !strcmp(s, "fp")) {
		tc_cap.unwind = TC_UNWIND_FP;
		return;
	}
	tc_cap.unwind = TC_UNWIND_BACKTRACE;
	if (s && !strcmp(s, "backtrace"))
		return;
	/* RTLD_LOCAL: libunwind's _Unwind_* must not replace libgcc's for
	 * the application (C++ exceptions) */
	h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		*(void **)&tc_cap.unw_backtrace = dlsym(h, "unw_backtrace");
		if (tc_cap.unw_backtrace)
			tc_cap.unwind = TC_UNWIND_LIBUNWIND;
	}
	if (s && !strcmp(s, "libunwind")) {
		if (tc_cap.unwind != TC_UNWIND_LIBUNWIND && tc_cap.rank == 0)
			cap_warn("libunwind.so.8 not found; using backtrace(3)");
		return;
	}
	if (tc_unwind_cfi_init())
		tc_cap.unwind = TC_UNWIND_CFI;
}

/*
 * Calls timed at entry alone (tc_cap_end): with TRACECLUSTER_DURATIONS=
 * blocking (the default) those that return at once by the standard's
 * definition, outside MPI-IO and communicator management: the nonblocking
 * starts (I-forms, persistent inits, Start, R-forms of one-sided
 * operations), the test family, Iprobe/Improbe, Request_free, Cancel and
 * the partitioned Pready/Parrived. With TRACECLUSTER_DURATIONS=all every
 * call is timed at entry and exit.
 */
static void init_durations(void)
{
	static const unsigned also[] = {
		TC_OP_TEST, TC_OP_TESTALL, TC_OP_TESTANY, TC_OP_TESTSOME, TC_OP_IPROBE,
		TC_OP_IMPROBE, TC_OP_REQUEST_FREE, TC_OP_CANCEL, TC_OP_WIN_TEST,
		TC_OP_PREADY, TC_OP_PREADY_RANGE, TC_OP_PREADY_LIST, TC_OP_PARRIVED,
	};
	const char *s = getenv("TRACECLUSTER_DURATIONS");

	for (unsigned op = 0; op < TC_OP_MAX; op++)
		atomic_store_explicit(&tc_cap.dur[op], 0, memory_order_relaxed);
	if (s && !strcmp(s, "all"))
		return;
	if (s && *s && strcmp(s, "blocking") && tc_cap.rank == 0)
		cap_warn("ignoring TRACECLUSTER_DURATIONS='%s' (expected blocking or all)", s);
	for (unsigned op = 0; op < TC_OP_MAX; op++) {
		enum tc_op_kind k = tc_op_kind(op);
		if ((tc_op_flags(op) & TC_OPF_NB) && k != TC_K_IO && k != TC_K_COMM)
			atomic_store_explicit(&tc_cap.dur[op], TC_CAP_DUR_UNKNOWN,
					      memory_order_relaxed);
	}
	for (size_t i = 0; i < TC_ARRAY_SIZE(also); i++)
		atomic_store_explicit(&tc_cap.dur[also[i]], TC_CAP_DUR_UNKNOWN, memory_order_relaxed);
}

/*
 * The estimate moves half way down towards a shorter sample (the first
 * calls are slow, their caches cold) and an eighth of the way up towards a
 * longer one, counting it at most twice the estimate: a call that was
 * preempted or waited for a page fault shifts it little.
 */
uint64_t tc_cap_dur_sample(unsigned op, uint64_t t0)
{
	uint64_t t1 = tc_cap_clock(), d = t1 > t0 ? t1 - t0 : 0;
	uint32_t e = atomic_load_explicit(&tc_cap.dur[op], memory_order_relaxed);

	if (e != TC_CAP_DUR_UNKNOWN) {
		int64_t old = (int64_t)e - 1;
		if (d > (uint64_t)old * 2)
			d = (uint64_t)old * 2;
		d = (uint64_t)(old + ((int64_t)d - old) / ((int64_t)d < old ? 2 : 8));
	}
	if (d > UINT32_MAX - 2)
		d = UINT32_MAX - 2;
	atomic_store_explicit(&tc_cap.dur[op], (uint32_t)d + 1, memory_order_relaxed);
	return t1;
}

static void emit_base_comms(void)
{
	struct tc_comm c;
	int32_t *all = tc_cap_calloc((size_t)tc_cap.size, sizeof(int32_t));

	if (!all)
		return;
	for (int32_t i = 0; i < tc_cap.size; i++)
		all[i] = i;
	memset(&c, 0, sizeof(c));
	c.id = TC_COMM_WORLD;
	c.parent = TC_COMM_WORLD;
	c.size = (uint32_t)tc_cap.size;
	c.members = all;
	tc_cap_emit_comm(&c);
	c.id = TC_COMM_SELF;
	c.size = 1;
	c.members = &tc_cap.rank;
	tc_cap_emit_comm(&c);
	free(all);
}

static void online_start(bool traced);
static void writer_sync(void);

/* One clock read as two reads in a row see it, ns: the median of a few. */
static uint32_t clock_cost(void)
{
	uint32_t d[15];

	for (size_t i = 0; i < TC_ARRAY_SIZE(d); i++) {
		uint64_t a = tc_cap_clock(), b = tc_cap_clock();
		d[i] = (uint32_t)TC_MIN(b - a, (uint64_t)UINT32_MAX);
	}
	qsort(d, TC_ARRAY_SIZE(d), sizeof(*d), u32_cmp);
	return d[TC_ARRAY_SIZE(d) / 2];
}

/* The shim's setup in MPI_Init: its directory, files, tables and writer
 * thread. False when the directory could not be chosen (rank 0's
 * choice, broadcast: false on every rank alike); true otherwise, on a
 * rank whose own file failed too, which has made every collective the
 * others make. */
static bool setup(uint64_t t0, uint64_t realtime0, int provided)
{
	const char *dir;
	size_t block;
	struct tc_error err;
	int rc, v[2], first, nfail, level;
	sigset_t all, old;
	MPI_Comm parent = MPI_COMM_NULL;

	tc_cap.t0 = t0;
	tc_cap.clock_ns = clock_cost();
	tc_cap.mt = provided == MPI_THREAD_MULTIPLE;
	PMPI_Comm_rank(MPI_COMM_WORLD, &v[0]);
	PMPI_Comm_size(MPI_COMM_WORLD, &v[1]);
	tc_cap.rank = v[0];
	tc_cap.size = v[1];
	/* a world started by MPI_Comm_spawn writes beside its parent job */
	PMPI_Comm_get_parent(&parent);

	dir = getenv("TRACECLUSTER_DIR");
	if (!dir || !*dir)
		dir = TC_CAP_DEFAULT_DIR;
	tc_cap.depth = (int)env_u64("TRACECLUSTER_STACK_DEPTH", TC_CAP_DEFAULT_DEPTH, 0,
				    TC_CAP_MAX_DEPTH);
	block = (size_t)env_u64("TRACECLUSTER_BUFFER", TC_CAP_DEFAULT_BLOCK, 4096, 32u << 20);
	W.flush_ms = env_u64("TRACECLUSTER_FLUSH_MS", TC_CAP_DEFAULT_FLUSH_MS, 0, 3600 * 1000);
	level = (int)env_u64("TRACECLUSTER_COMPRESS", 1, 0, 9);
	W.threaded = env_u64("TRACECLUSTER_THREAD", 1, 0, 1) != 0;
	init_unwind();
	init_durations();

	/* rank 0 chooses the directory (the job's own), every rank takes it */
	tc_error_clear(&err);
	{
		struct { int rc, moved; char path[PATH_MAX]; } pick;
		bool moved = false;
		memset(&pick, 0, sizeof(pick));
		if (tc_cap.rank == 0 && parent != MPI_COMM_NULL) {
			pick.rc = choose_spawn_dir(dir, pick.path, sizeof(pick.path), &err);
		} else if (tc_cap.rank == 0) {
			pick.rc = choose_dir(dir, pick.path, sizeof(pick.path), &moved, &err);
			pick.moved = moved;
		}
		PMPI_Bcast(&pick, (int)sizeof(pick), MPI_BYTE, 0, MPI_COMM_WORLD);
		if (pick.rc) {
			if (tc_cap.rank == 0) {
				char msg[1200];
				tc_error_format(&err, msg, sizeof(msg));
				cap_warn("%s (%d of %d ranks); tracing disabled", msg,
					 (int)tc_cap.size, (int)tc_cap.size);
			}
			return false;
		}
		if (pick.moved && tc_cap.rank == 0)
			cap_warn("'%s' holds another job's traces; this job writes to '%s'", dir,
				 pick.path);
		snprintf(W.dir, sizeof(W.dir), "%s", pick.path);
	}
	rc = open_trace(W.dir, realtime0, block, level, &err);

	/* one warning for the whole job: the lowest failing rank reports how
	 * many ranks failed; a rank out of memory warns for itself */
	v[0] = rc && rc != TC_ERR_NOMEM ? tc_cap.rank : INT_MAX;
	v[1] = rc && rc != TC_ERR_NOMEM ? 1 : 0;
	PMPI_Allreduce(MPI_IN_PLACE, &v[0], 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	PMPI_Allreduce(MPI_IN_PLACE, &v[1], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	first = v[0];
	nfail = v[1];
	if (rc) {
		char msg[1200];
		tc_error_format(&err, msg, sizeof(msg));
		if (rc == TC_ERR_NOMEM && stop_recording())
			cap_warn("%s; tracing stopped", msg);
		else if (first == tc_cap.rank)
			cap_warn("%s (%d of %d ranks); tracing disabled", msg, nfail, (int)tc_cap.size);
		/* the others vote on the in-job clustering: this rank says no */
		online_start(false);
		return true;
	}

	tc_tables_init();
	tc_sites_init();
	sem_init(&W.work, 0, 0);
	sem_init(&W.freed, 0, 0);
	sem_init(&W.done, 0, 0);
	pthread_atfork(NULL, NULL, atfork_child);
	if (W.threaded) {
		/* the writer thread never takes the signals we handle */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		if (pthread_create(&W.thread, NULL, writer_main, NULL) != 0)
			W.threaded = false;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	atomic_store(&W.state, ST_RUNNING);
	/* the writer thread's batches made now, not when the writer falls
	 * behind: the same allocations on every rank however loaded the
	 * machine is */
	if (W.threaded)
		prealloc_batches();
	handover(0);
	install_handlers();
	atexit(at_exit);
	/* before any record; a rank whose file failed votes no above */
	online_start(true);
	emit_base_comms();
	set_active();
	return true;
}

void tc_cap_setup(unsigned op, uint64_t t0, uint64_t realtime0, int provided, void *ra)
{
	if (tc_cap.initialised)
		return;
	tc_cap.initialised = true;
	/* The ranks leave MPI_Init together: the shim's setup takes each rank
	 * a different time (milliseconds with many ranks per core), and a
	 * rank let go early would record as its own computing the time it
	 * waits for a core while the others still set up (NPB CG, 16 ranks
	 * on 2 cores: a 0.5 ms phase recorded as 9 ms), its calls after
	 * MPI_Init starting earlier than theirs. A rank whose own file
	 * failed joins the barrier too; none does when the directory could
	 * not be chosen. */
	if (setup(t0, realtime0, provided))
		PMPI_Barrier(MPI_COMM_WORLD);

	/* the Init event itself */
	if (tc_cap_enter()) {
		struct tc_rec r;
		tc_cap_begin(&r, op, t0, ra);
		/* the event ends after the setup above: that is the shim's time
		 * in MPI_Init (its files, tables, writer thread, collectives:
		 * milliseconds with many ranks per core), not the program's
		 * computing before its next call */
		r.ev.t_end = tc_cap_clock() - tc_cap.t0;
		if (op == TC_OP_INIT_THREAD) {
			r.ev.fields |= TC_F_COUNT;
			r.ev.count = (uint64_t)provided;
		}
		tc_cap_commit(&r);
		tc_cap_leave();
	}
}

void tc_cap_finalize(uint64_t t0, uint64_t t1, int rc, void *ra)
{
	if (tc_cap_enter()) {
		struct tc_rec r;
		tc_cap_begin(&r, TC_OP_FINALIZE, t0, ra);
		r.ev.t_end = t1 - tc_cap.t0;
		if (rc != MPI_SUCCESS) {
			r.ev.fields |= TC_F_RESULT;
			r.ev.result = rc;
		}
		tc_cap_commit(&r);
		tc_cap_leave();
	}
	close_trace(true);
}

/* ---- in-job clustering (TRACECLUSTER_ONLINE) ------------------------------ */

/* Symbol sym of the plugin beside the shim (or TRACECLUSTER_ONLINE_LIB),
 * loaded now; NULL with a warning on rank 0. */
static void *online_plugin(const char *sym)
{
	const char *env = getenv("TRACECLUSTER_ONLINE_LIB");
	char path[PATH_MAX];
	Dl_info info;
	void *h, *fn;

	if (env && *env) {
		snprintf(path, sizeof(path), "%s", env);
	} else {
		const char *slash;
		if (!dladdr((void *)online_plugin, &info) || !info.dli_fname)
			return NULL;
		slash = strrchr(info.dli_fname, '/');
		snprintf(path, sizeof(path), "%.*slibtracecluster-online.so",
			 slash ? (int)(slash - info.dli_fname + 1) : 0, info.dli_fname);
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		if (tc_cap.rank == 0)
			cap_warn("TRACECLUSTER_ONLINE: cannot load %s (%s); the raw files stay", path,
				 dlerror());
		return NULL;
	}
	fn = dlsym(h, sym);
	if (!fn && tc_cap.rank == 0)
		cap_warn("TRACECLUSTER_ONLINE: %s has no %s; the raw files stay", path, sym);
	return fn;
}

static void online_args(struct tc_online_args *a, const char *mode, int traced)
{
	memset(a, 0, sizeof(*a));
	a->abi = TC_ONLINE_ABI;
	a->dir = W.dir;
	a->mode = mode;
	a->keep = getenv("TRACECLUSTER_ONLINE_KEEP");
	a->rank = (int)tc_cap.rank;
	a->size = (int)tc_cap.size;
	a->traced = traced;
	a->quiet = env_u64("TRACECLUSTER_QUIET", 0, 0, 1) != 0;
	a->tracer_sum = tc_cap_tracer_mean(&a->tracer_n);
	for (unsigned op = 1; op < TC_ONLINE_OPS && op < TC_OP_MAX; op++) {
		uint64_t ns;
		if (!tc_cap_op_mean(op, &ns))
			continue;
		a->tracer_op_ns[op] = (uint32_t)ns;
		a->tracer_op_calls[op] = TC_MIN(atomic_load(&tc_cap.calls[op]), TC_TRACER_CALLS_MAX);
	}
	a->tracer_sum *= a->tracer_n;
}

/* Whether TRACECLUSTER_ONLINE names a mode that runs while the job does. */
static bool online_from_init(const char *mode)
{
	return mode && !strncmp(mode, "chameleon", 9) && (!mode[9] || mode[9] == ':');
}

/*
 * MPI_Init with TRACECLUSTER_ONLINE=chameleon[:K]: load the plugin and
 * let it fill the hooks; every rank arms them or none does (under
 * MPI_THREAD_MULTIPLE none does: other threads would record while the
 * plugin runs its collectives; nor when a rank does not trace, traced
 * false, whose file failed: every rank calls this once).
 */
static void online_start(bool traced)
{
	const char *mode = getenv("TRACECLUSTER_ONLINE");
	struct tc_online_args a;
	tc_online_start_fn fn = NULL;
	/* the vote, least over the ranks: 0 a rank does not trace, 1 a rank
	 * has no plugin (online_plugin warns if rank 0 is one), 2 every rank
	 * can start */
	int ok;

	if (!online_from_init(mode))
		return;
	if (traced && !tc_cap.mt)
		*(void **)&fn = online_plugin(TC_ONLINE_START_SYMBOL);
	ok = !traced ? 0 : fn ? 2 : 1;
	PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (ok < 2) {
		if (tc_cap.rank == 0 && tc_cap.mt)
			cap_warn("TRACECLUSTER_ONLINE=%s: not with MPI_THREAD_MULTIPLE; the raw "
				 "files stay", mode);
		else if (tc_cap.rank == 0 && !ok)
			cap_warn("TRACECLUSTER_ONLINE=%s: not every rank traces; no clustering in "
				 "the job", mode);
		return;
	}
	sem_init(&W.synced, 0, 0);
	online_args(&a, mode, 1);
	memset(&W.hooks, 0, sizeof(W.hooks));
	W.hooks.sync = writer_sync;
	if (fn(&a, &W.hooks) == 0)
		W.armed = true;
}

/* Wait until the writer has handed every committed record to the tap. */
static void writer_sync(void)
{
	struct batch *b;

	if (!W.threaded) {
		b = atomic_load(&W.cur);
		if (b)
			write_slots(b);
		return;
	}
	atomic_store(&W.sync_req, 1);
	sem_post(&W.work);
	while (sem_wait(&W.synced) < 0 && errno == EINTR)
		;
}

/* After a committed event (application thread, outside the lock). */
static void online_after(const struct tc_event *ev)
{
	int ans, call;

	if (ev->op >= TC_ONLINE_OPS || !W.hooks.ops[ev->op] || !(ev->fields & TC_F_COMM) ||
	    atomic_load(&W.state) != ST_RUNNING)
		return;
	/* paused is fine (nothing to record); a rank that stopped is not */
	call = !atomic_load(&W.stopped) && !atomic_load(&W.failed) && !atomic_load(&W.wstop)
		       ? TC_ONLINE_CALL_OK : 0;
	if (atomic_load(&W.recording))
		call |= TC_ONLINE_CALL_RECORDED;
	ans = W.hooks.at_collective(W.hooks.ctx, ev, call);
	if (ans & TC_ONLINE_OFF) {
		W.armed = false;
		atomic_store(&W.suppress, 0);
		set_active();
		return;
	}
	atomic_store(&W.suppress, !(ans & TC_ONLINE_WRITE));
}

/*
 * MPI_Finalize with TRACECLUSTER_ONLINE set: the trace is finished first
 * (the MPI_Finalize event ends here, before the clustering and the MPI
 * library's own finalize), then every rank runs the plugin, which
 * clusters over MPI and writes the global trace; the caller then calls
 * PMPI_Finalize. Returns false when no online clustering is asked for.
 * Every rank takes the same path (the plugin's first step is collective),
 * so a rank that could not trace still joins in.
 */
bool tc_cap_online_finalize(uint64_t t0, void *ra)
{
	const char *mode = getenv("TRACECLUSTER_ONLINE");
	struct tc_online_args a;
	tc_online_fn fn;
	int ok, all_ok;

	if (!mode || !*mode || !tc_cap.initialised)
		return false;
	ok = atomic_load(&W.state) == ST_RUNNING && !atomic_load(&W.failed) &&
	     !atomic_load(&W.stopped);
	tc_cap_finalize(t0, tc_cap_clock(), MPI_SUCCESS, ra);
	/* chameleon that did not start: every rank knows alike */
	if (online_from_init(mode) && !W.hooks.ctx)
		return true;
	*(void **)&fn = online_plugin(TC_ONLINE_SYMBOL);
	/* every rank must have the plugin, or none runs it */
	all_ok = fn != NULL;
	PMPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all_ok)
		return true;
	online_args(&a, mode, ok && !atomic_load(&W.failed));
	a.state = W.hooks.ctx;
	W.armed = false;
	fn(&a);
	return true;
}
