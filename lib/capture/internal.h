/*
 * internal.h - private declarations of the capture shim (lib/capture/).
 *
 * The shim is a PMPI interposer: every wrapped MPI function (C binding in
 * wrap_c.c, Fortran bindings in wrap_f.c) calls one tcw_* function of
 * record.c, which calls the PMPI_ function and records one event. An
 * event is built on the stack and committed into a batch (capture.c); a
 * writer thread encodes full batches with the raw writer, which compresses
 * and writes blocks off the application's threads.
 *
 * Hot-path rules: no malloc per call (scratch buffers grow and stay), one
 * uncontended lock only under MPI_THREAD_MULTIPLE, one CLOCK_MONOTONIC
 * read for a call that cannot block and two for one that can (see
 * tc_cap_end; an op's first calls and a sample of the later ones read
 * it once more, after the record, for the shim's own time), one cached
 * stack walk.
 */
#ifndef TC_CAPTURE_INTERNAL_H
#define TC_CAPTURE_INTERNAL_H

#include "lib/compat.h"
#include "lib/event.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

/* Symbols the application links against; everything else stays hidden. */
#define TC_CAP_API __attribute__((visibility("default")))
#define TC_RA() __builtin_return_address(0)

#define TC_CAP_GAP_ALL 16
#define TC_CAP_GAP_SAMPLE_BITS 4
#define TC_CAP_GAP_SAMPLE (1u << TC_CAP_GAP_SAMPLE_BITS)

#define TC_CAP_MAX_DEPTH 32
#define TC_CAP_DEFAULT_DEPTH 8
#define TC_CAP_DEFAULT_DIR "tracecluster-trace"

/* ---- global state (capture.c) ---------------------------------------- */

enum tc_unwind { TC_UNWIND_CFI, TC_UNWIND_LIBUNWIND, TC_UNWIND_BACKTRACE, TC_UNWIND_FP };

struct tc_cap_state {
	atomic_int active;       /* events are recorded */
	atomic_int paused;       /* MPI_Pcontrol(0) */
	bool mt;                 /* MPI_THREAD_MULTIPLE: take the lock */
	bool initialised;        /* setup ran (even if tracing failed) */
	int depth;               /* frames per call site, 0 = none */
	enum tc_unwind unwind;
	int (*unw_backtrace)(void **, int);
	int skip;                /* frames of the shim above the call site */
	int32_t rank, size;
	uint64_t t0;             /* CLOCK_MONOTONIC ns at time 0 */
	/* per op: 0 timed at entry and exit; else timed at entry alone, with
	 * the estimated duration + 1, or TC_CAP_DUR_UNKNOWN (tc_cap_end) */
	_Atomic uint32_t dur[TC_OP_MAX];
	/* the shim's time after a call's end (its stack, call site and
	 * queueing), in the compute gap that follows, per op (tc_cap_commit,
	 * under the lock), in two strata: the op's first TC_CAP_GAP_ALL
	 * calls, each measured (timed in full whatever the op), and a random
	 * sample of the later ones (of an op timed at exit one in
	 * TC_CAP_GAP_SAMPLE, of one timed at entry alone those timed in
	 * full); the op's mean (tc_cap_op_mean) is the first calls' time and
	 * the sample's mean for each later call (without a sample the first
	 * calls' median: the first of each call site costs the most), to
	 * which tc_cap_op_mean adds the means of the time before the start
	 * and after this sample's end (pre_*, tail_*: the wrapper's entry
	 * and return); calls[op] counts the op's calls recorded, by which the ops' means
	 * are weighted (tc_cap_tracer_mean) */
	struct tc_cap_tracer_op {
		uint64_t first_sum, later_sum, later_n;
		uint32_t first[TC_CAP_GAP_ALL], first_n;
	} tracer[TC_OP_MAX];
	/* the wrapper's time before a call's start (its entry up to the
	 * clock read that starts the call: one recorded call in
	 * TC_CAP_GAP_SAMPLE, drawn at entry), per op */
	_Atomic uint64_t pre_sum[TC_OP_MAX], pre_n[TC_OP_MAX];
	/* the wrapper's time after the clock read that ended a sample of
	 * tracer[op] until it returns (unlocking, leaving: tc_cap_leave),
	 * less one clock read, which the calls not sampled do not make */
	_Atomic uint64_t tail_sum[TC_OP_MAX], tail_n[TC_OP_MAX];
	uint32_t clock_ns;       /* one clock read, ns (median of a few) */
	_Atomic uint64_t calls[TC_OP_MAX];
	pthread_mutex_t lock;
};

extern struct tc_cap_state tc_cap;

/*
 * Allocation in the shim (capture.c): never fatal. A failure stops
 * recording on this rank for good with one warning (tc_cap_nomem) and
 * returns NULL; tc_cap_realloc then leaves p as it was. Callers keep their
 * tables consistent and go on; nothing is recorded any more, so what they
 * would have recorded does not matter.
 */
void tc_cap_nomem(size_t n);
void *tc_cap_malloc(size_t n);
void *tc_cap_calloc(size_t nmemb, size_t size);
void *tc_cap_realloc(void *p, size_t n);
char *tc_cap_strdup(const char *s);
/* Grow p (*alloc elements of size bytes) to at least n elements; returns
 * the new array, or p as it was (and *alloc unchanged) on failure. */
void *tc_cap_grow(void *p, size_t *alloc, size_t n, size_t size);
/* Make room for n elements in array p of alloc elements: false on failure. */
#define TC_CAP_GROW(p, n, alloc)                                                      \
	((size_t)(n) <= (alloc) ||                                                    \
	 ((p) = tc_cap_grow((p), &(alloc), (size_t)(n), sizeof(*(p))), (size_t)(n) <= (alloc)))

/* Thread-local nesting guard: non-zero while a wrapper records. */
extern __thread int tc_cap_nest __attribute__((tls_model("initial-exec")));
/* Thread-local probe of the wrapper's own time outside [t_start, t_end]
 * (tc_cap.pre_*, tc_cap.tail_*): entry, the clock at a sampled
 * call's entry (0: not sampled); mark, the clock read that ended the
 * sample of its time after t_end, with its op (0: none). The time is
 * taken inside the C wrapper: a Fortran binding's conversions of handles
 * and statuses around it stay in the gaps, as they are in an untraced
 * run's MPI library, which converts them too. */
struct tc_cap_probe {
	uint64_t entry, mark;
	unsigned op;
};
extern __thread struct tc_cap_probe tc_cap_probe __attribute__((tls_model("initial-exec")));
void tc_cap_tail(void);
/* A probe longer than this, ns, saw the thread lose its core (the
 * wrapper's entry and exit take well under a microsecond): the time is
 * another task's, which an untraced run would lose in its compute
 * alike, not the wrapper's, and the sample is left out. */
#define TC_CAP_PROBE_MAX 10000u

/* Thread-local generator choosing the calls timed in full (tc_cap_end)
 * and the later calls whose tracer time is sampled (tc_cap_commit);
 * seeded per rank and thread at its first draw (tc_cap_tick_seed), so
 * that the ranks do not all draw the same calls. */
extern __thread uint32_t tc_cap_tick __attribute__((tls_model("initial-exec")));
uint32_t tc_cap_tick_seed(void);

static inline uint32_t tc_cap_tick_next(void)
{
	uint32_t t = tc_cap_tick;

	if (TC_UNLIKELY(!t))
		t = tc_cap_tick_seed();
	return tc_cap_tick = t * 1664525u + 1013904223u;
}

static inline uint64_t tc_cap_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Enter a wrapper: true when this call is to be recorded. A call made
 * while another wrapper of the same thread records (Fortran calling C,
 * an MPI library calling MPI_ internally) is passed through unrecorded.
 */
static inline bool tc_cap_enter(void)
{
	if (TC_UNLIKELY(tc_cap_nest) ||
	    TC_UNLIKELY(!atomic_load_explicit(&tc_cap.active, memory_order_relaxed)))
		return false;
	tc_cap_nest = 1;
	/* one call in TC_CAP_GAP_SAMPLE times the wrapper up to its start */
	if (TC_UNLIKELY(!(tc_cap_tick_next() >> (32 - TC_CAP_GAP_SAMPLE_BITS))))
		tc_cap_probe.entry = tc_cap_clock();
	return true;
}

static inline void tc_cap_leave(void)
{
	if (TC_UNLIKELY(tc_cap_probe.mark))
		tc_cap_tail();
	tc_cap_probe.entry = 0;
	tc_cap_nest = 0;
}

static inline void tc_cap_lock(void)
{
	if (tc_cap.mt)
		pthread_mutex_lock(&tc_cap.lock);
}

static inline void tc_cap_unlock(void)
{
	if (tc_cap.mt)
		pthread_mutex_unlock(&tc_cap.lock);
}

/* ---- one record in progress ------------------------------------------ */

struct tc_rec {
	struct tc_event ev;
	bool timed;               /* t_end read off the clock, not estimated */
	int nframes;
	void *frames[TC_CAP_MAX_DEPTH];
};

/* Unwind with backtrace(3) or frame pointers (sites.c). */
int tc_sites_unwind(void **buf, int max);
/* The cached CFI walker (unwind.c): frames, or -1 where it cannot walk. */
bool tc_unwind_cfi_init(void);
int tc_unwind_cfi(void **buf, int max);
/* The walker behind TC_UNWIND_CFI: libunwind or backtrace(3). */
static inline int tc_unwind_fallback(void **buf, int max)
{
	return tc_cap.unw_backtrace ? tc_cap.unw_backtrace(buf, max) : tc_sites_unwind(buf, max);
}
/* Capture when the shim's own frames were more than expected (sites.c). */
int tc_sites_capture_slow(void **out, void *ra);

/*
 * Capture up to tc_cap.depth return addresses, the first being ra (the
 * return address into the application). Inlined into the recording
 * functions so that the shim adds as few frames as possible to unwind.
 */
static inline __attribute__((always_inline)) int tc_cap_stack(void **out, void *ra)
{
	void *buf[TC_CAP_MAX_DEPTH + 8];
	int depth = tc_cap.depth, want = depth + tc_cap.skip, n, i;

	if (depth == 1) {
		out[0] = ra;
		return 1;
	}
	if (TC_LIKELY(tc_cap.unwind == TC_UNWIND_CFI)) {
		n = tc_unwind_cfi(buf, want);
		if (n < 0)
			n = tc_unwind_fallback(buf, want);
	} else if (tc_cap.unwind == TC_UNWIND_LIBUNWIND) {
		n = tc_cap.unw_backtrace(buf, want);
	} else {
		n = tc_sites_unwind(buf, want);
	}
	for (i = 0; i < n && buf[i] != ra; i++)
		;
	/* not found, or found so late that the stack may go on beyond
	 * the buffer: unwind again with room for more shim frames */
	if (i == n || (n == want && n - i < depth))
		return tc_sites_capture_slow(out, ra);
	n = TC_MIN(n - i, depth);
	for (int k = 0; k < n; k++)
		out[k] = buf[i + k];
	return n;
}

#define TC_CAP_DUR_UNKNOWN UINT32_MAX
/* one call in 2^TC_CAP_DUR_SAMPLE_BITS timed at entry alone is timed in full */
#define TC_CAP_DUR_SAMPLE_BITS 6

/* Time a sampled call in full and update the estimate of op (capture.c). */
uint64_t tc_cap_dur_sample(unsigned op, uint64_t t0);

/*
 * The end time of a call of op that started at t0. A call that can block
 * reads the clock. One that cannot (TRACECLUSTER_DURATIONS=blocking, the
 * default: tc_cap.dur[op] != 0) takes its start plus the duration of its
 * function estimated from the calls timed in full: the op's first
 * TC_CAP_GAP_ALL, then one in 64 drawn at random (a linear congruential
 * generator per thread; a fixed period would keep drawing the same call
 * of a loop). A vDSO clock read saved on most such calls.
 */
static inline __attribute__((always_inline)) uint64_t tc_cap_end(unsigned op, uint64_t t0,
								   bool *timed)
{
	uint32_t d = atomic_load_explicit(&tc_cap.dur[op], memory_order_relaxed);

	*timed = true;
	if (TC_LIKELY(d == 0))
		return tc_cap_clock();
	tc_cap_tick_next();
	/* the op's first calls are timed in full: the shim's time after
	 * them is measured (tc_cap_commit) */
	if (TC_LIKELY(d != TC_CAP_DUR_UNKNOWN) &&
	    TC_LIKELY(tc_cap_tick >> (32 - TC_CAP_DUR_SAMPLE_BITS)) &&
	    TC_LIKELY(atomic_load_explicit(&tc_cap.calls[op], memory_order_relaxed) >=
		      TC_CAP_GAP_ALL)) {
		*timed = false;
		return t0 + d - 1;
	}
	return tc_cap_dur_sample(op, t0);
}

/*
 * Start a record after the PMPI call returned: set times (t_start = t0,
 * t_end = now, see tc_cap_end), capture the stack above ra,
 * then take the lock. Only the fields the writer always reads are
 * initialised: fill r->ev and set the matching TC_F_* bits, then
 * tc_cap_commit.
 */
static inline __attribute__((always_inline)) void tc_cap_begin(struct tc_rec *r, unsigned op,
								uint64_t t0, void *ra)
{
	uint64_t t1 = tc_cap_end(op, t0, &r->timed);

	r->ev.op = op;
	r->ev.fields = 0;
	r->ev.callsite = TC_NO_CALLSITE;
	r->ev.t_start = t0 - tc_cap.t0;
	r->ev.t_end = t1 - tc_cap.t0;
	r->ev.ncompl = r->ev.nscounts = r->ev.nrcounts = 0;
	r->nframes = tc_cap.depth ? tc_cap_stack(r->frames, ra) : 0;
	tc_cap_lock();
}


/* Resolve the call site, queue the event (copying its arrays), unlock. */
void tc_cap_commit(struct tc_rec *r);
/* The shim's mean time per call in the gaps after the calls of op, ns
 * (TC_TRACER_NS_MAX at most); false when none was measured. */
bool tc_cap_op_mean(unsigned op, uint64_t *ns);
/* The same over every op, their means weighted by their calls (0: none
 * measured); *calls (if not NULL) the calls of the ops measured. */
uint64_t tc_cap_tracer_mean(uint64_t *calls);

/* Init/Init_thread/Finalize/Abort (capture.c). */
void tc_cap_setup(unsigned op, uint64_t t0, uint64_t realtime0,
		  int provided, void *ra);
void tc_cap_finalize(uint64_t t0, uint64_t t1, int rc, void *ra);
/* MPI_Finalize under TRACECLUSTER_ONLINE: finish the trace and cluster
 * in the job (false: not asked for; the caller then calls PMPI_Finalize
 * either way). */
bool tc_cap_online_finalize(uint64_t t0, void *ra);
/* Stop tracing and close the file now (MPI_Abort, exit without Finalize). */
void tc_cap_shutdown(void);
/* MPI_Pcontrol: level 0 pauses recording, anything else resumes it. */
void tc_cap_pcontrol(int level);

/* Queue a communicator record (capture.c); copies c and its members. */
void tc_cap_emit_comm(const struct tc_comm *c);
/* Queue a call-site record; cs stays owned by sites.c until the end. */
void tc_cap_emit_callsite(const struct tc_callsite *cs);

/* ---- call sites (sites.c) --------------------------------------------- */

void tc_sites_init(void);
/* Call-site id of a captured stack (under the lock); TC_NO_CALLSITE if none. */
uint32_t tc_sites_lookup(void *const *frames, int n);
/* Symbolise every site and hand the records with symbols to emit(). */
void tc_sites_symbolise(void (*emit)(const struct tc_callsite *cs, void *ctx), void *ctx);
void tc_sites_release(void);

/* Symbol of module+offset as "func+0x1c" into buf ("" if unknown); elfsym.c */
void tc_elf_symbolise(const char *module, uint64_t offset, char *buf, size_t len);
void tc_elf_release(void);

/* ---- communicators, requests, datatypes (tables.c) -------------------- */

struct tc_comm_info {
	MPI_Comm handle;
	uint32_t id;
	uint32_t refs;           /* table + outstanding requests */
	int32_t size;            /* local group size */
	int32_t rsize;           /* remote group size (intercomm), else size */
	int myrank;              /* rank of this process in comm */
	int32_t *peers;          /* rank -> world rank for peers (remote group
	                          * of an intercomm); NULL for MPI_COMM_WORLD */
	int32_t *members;        /* local group as world ranks; NULL for world */
	bool degs;               /* indeg/outdeg known (first neighbourhood collective) */
	int32_t indeg, outdeg;   /* topology neighbours (neighbourhood collectives) */
};

/* Without memory recording stops (tc_cap_nomem), so the tables go unused. */
void tc_tables_init(void);
void tc_tables_release(void);

/* The record of comm (registered lazily if unknown); never NULL. */
struct tc_comm_info *tc_comm_get(MPI_Comm comm);
/* World rank of comm rank r; MPI_ANY_SOURCE/MPI_PROC_NULL map to TC_*. */
int32_t tc_comm_peer(const struct tc_comm_info *ci, int r);
/*
 * Register newcomm, created from parent by op, write its tc_comm record
 * (with the Cartesian topology if ndims > 0) and return its id.
 */
uint32_t tc_comm_new(MPI_Comm newcomm, uint32_t parent, unsigned op, int ndims,
		     const int *dims, const int *periods);
/* Forget comm (MPI_Comm_free); returns its id. */
uint32_t tc_comm_forget(MPI_Comm comm);
void tc_comm_unref(struct tc_comm_info *ci);

/* Datatype number and size of dt (TC_DT_DERIVED + n for derived). */
void tc_dtype(MPI_Datatype dt, uint32_t *num, uint32_t *size);
uint32_t tc_redop(MPI_Op op);

/* MPI-IO files: file-local ids. */
uint32_t tc_file_new(MPI_File fh);
uint32_t tc_file_id(MPI_File fh);
uint32_t tc_file_forget(MPI_File fh);

/* RMA windows: file-local ids and the world rank of each window rank. */
struct tc_win_info {
	uint32_t id;
	uint32_t comm_id;        /* communicator it was created over, UINT32_MAX
	                          * if unknown */
	int32_t size;
	int32_t *peers;          /* window rank -> world rank */
};

/* Register w, created over the communicator comm_id; returns borrowed. */
const struct tc_win_info *tc_win_new(MPI_Win w, uint32_t comm_id);
/* The record of w (learnt now if unknown); never NULL; returns borrowed. */
const struct tc_win_info *tc_win_get(MPI_Win w);
/* World rank of window rank r (MPI_PROC_NULL maps to TC_PROC_NULL). */
int32_t tc_win_peer(const struct tc_win_info *wi, int r);
void tc_win_forget(MPI_Win w);

/* Requests. */
enum tc_req_kind { TC_REQ_OTHER, TC_REQ_SEND, TC_REQ_RECV, TC_REQ_COLL };

struct tc_req_info {
	uint64_t id;             /* 0: unknown to the shim */
	uint8_t kind;            /* enum tc_req_kind */
	uint8_t persistent;
	uint8_t active;          /* persistent: started and not completed */
	uint32_t op;             /* op that created it */
	struct tc_comm_info *comm; /* referenced; NULL for unknown requests */
	uint32_t comm_id;
	int32_t peer, tag;       /* as recorded (world rank) */
	uint64_t count;
	uint32_t dtype, dtype_size;
};

/* Register a new request and return its id (sequential from 1). */
uint64_t tc_req_new(MPI_Request h, unsigned op, enum tc_req_kind kind, bool persistent,
		    struct tc_comm_info *ci, const struct tc_event *ev);
/* The same with a given id (Imrecv takes the id of its message). */
uint64_t tc_req_new_id(MPI_Request h, uint64_t id, unsigned op, enum tc_req_kind kind,
		       bool persistent, struct tc_comm_info *ci, const struct tc_event *ev);
/*
 * Messages of Mprobe/Improbe (op): register m with a new id from the
 * request sequence and ev's comm, peer, tag; its received bytes go in
 * ev->count with dtype_size 1. tc_msg_peek copies the info of m (false if
 * unknown), tc_msg_done forgets it once Mrecv/Imrecv took it.
 */
uint64_t tc_msg_new(MPI_Message m, unsigned op, struct tc_comm_info *ci,
		    const struct tc_event *ev);
bool tc_msg_peek(MPI_Message m, struct tc_req_info *out);
void tc_msg_done(MPI_Message m, uint64_t id);
/*
 * Copy the info of the request with handle h into *out without removing
 * it. Among several requests with the same handle (Open MPI returns one
 * handle for many completed-at-once requests) the oldest one not yet
 * claimed with this stamp is taken and marked. Returns false if unknown.
 */
bool tc_req_peek(MPI_Request h, uint32_t stamp, struct tc_req_info *out);
/* A fresh claim stamp for tc_req_peek. */
uint32_t tc_req_stamp(void);
/* The request (h, id) completed: remove it (or deactivate if persistent). */
void tc_req_done(MPI_Request h, uint64_t id);
/* Mark a persistent request started. */
void tc_req_start(MPI_Request h, uint64_t id);
/* Remove (h, id) whatever its state (MPI_Request_free). */
void tc_req_forget(MPI_Request h, uint64_t id);

/* ---- per-thread scratch (record.c) ------------------------------------ */

struct tc_scratch {
	struct tc_completion *compl;
	size_t compl_alloc;
	uint64_t *scounts, *rcounts;
	size_t scounts_alloc, rcounts_alloc;
	struct tc_req_info *reqs;
	size_t reqs_alloc;
	MPI_Status *statuses;
	size_t statuses_alloc;
	MPI_Request *handles;
	size_t handles_alloc;
};

struct tc_scratch *tc_scratch_get(void);

#endif
