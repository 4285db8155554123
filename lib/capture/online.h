/*
 * online.h - what the capture shim and the in-job clustering plugin
 * (libtracecluster-online.so, cmd/mpi/) hand each other when
 * TRACECLUSTER_ONLINE asks for clustering in the job. The shim stays
 * small: the plugin, with the analysis library, is loaded only then.
 *
 * Two ways in:
 *   - at MPI_Finalize (every mode over whole traces): the shim finishes
 *     the raw file and calls TC_ONLINE_SYMBOL, which reads it back;
 *   - from MPI_Init on (chameleon, which clusters at marker calls while
 *     the job runs, dissertation ch. 5): the shim calls TC_ONLINE_START
 *     symbol once, which fills struct tc_online_hooks. From then on the
 *     writer thread hands every record it writes to the hooks (tap), and
 *     the application thread calls at_collective after each blocking
 *     collective whose op is marked in ops[].
 */
#ifndef TC_CAPTURE_ONLINE_H
#define TC_CAPTURE_ONLINE_H

#include "lib/event.h"

#include <stdint.h>

#define TC_ONLINE_ABI 4
#define TC_ONLINE_SYMBOL "tracecluster_online_run"
#define TC_ONLINE_START_SYMBOL "tracecluster_online_start"
#define TC_ONLINE_OPS 256

struct tc_online_args {
	int abi;                /* TC_ONLINE_ABI */
	const char *dir;        /* the job's trace directory */
	const char *mode;       /* TRACECLUSTER_ONLINE: MODE[:K] */
	const char *keep;       /* TRACECLUSTER_ONLINE_KEEP: leads (default), all, none */
	int rank, size;         /* in MPI_COMM_WORLD */
	int traced;             /* this rank's raw file is complete */
	int quiet;              /* no report line on standard error */
	void *state;            /* at finalize: the hooks' ctx of a started plugin */
	/* the shim's time after calls' recorded ends so far: its mean
	 * (tracer_ns) times the calls of the ops measured, and those calls
	 * (tracer_ns is sum / n; n 0: none) */
	uint64_t tracer_sum, tracer_n;
	/* the same per op: the mean after its calls, ns, and its calls
	 * (0: not measured) */
	uint32_t tracer_op_ns[TC_ONLINE_OPS];
	uint64_t tracer_op_calls[TC_ONLINE_OPS];
};

/* What at_collective is told of the call (bits). */
enum {
	TC_ONLINE_CALL_OK = 1,       /* this rank records as it should (pausing
	                              * is fine, running out of memory is not) */
	TC_ONLINE_CALL_RECORDED = 2, /* the call's event is in the trace (not
	                              * paused by MPI_Pcontrol) */
};

/* at_collective's answer (bits). */
enum {
	TC_ONLINE_WRITE = 1,    /* the events that follow go to the raw file */
	TC_ONLINE_OFF = 2,      /* the plugin gave up (on every rank alike):
	                         * no more hooks, every event written */
};

struct tc_online_hooks {
	void *ctx;
	/* the tap: every record the writer takes, in file order (writer
	 * thread); events are handed over whether written or not */
	void (*on_event)(void *ctx, const struct tc_event *ev);
	void (*on_callsite)(void *ctx, const struct tc_callsite *cs);
	void (*on_comm)(void *ctx, const struct tc_comm *c);
	/*
	 * After a blocking collective with ops[op] set, on any communicator
	 * (application thread; ev is its event, the call site resolved even
	 * while recording is paused; call: TC_ONLINE_CALL_* bits). May
	 * change ops[]. Returns TC_ONLINE_WRITE / _OFF bits.
	 */
	int (*at_collective)(void *ctx, const struct tc_event *ev, int call);
	unsigned char ops[TC_ONLINE_OPS];
	/* Filled by the shim: returns once the tap has seen every record
	 * committed so far (the collective's own included). */
	void (*sync)(void);
};

/* Called by every rank, before PMPI_Finalize; uses PMPI only. Returns 0
 * when the global trace was written; never aborts the job. */
typedef int (*tc_online_fn)(const struct tc_online_args *args);
/* Called by every rank at MPI_Init (after the shim's set-up); 0 when the
 * hooks are filled (agreed over the world: every rank returns alike). */
typedef int (*tc_online_start_fn)(const struct tc_online_args *args,
				  struct tc_online_hooks *hooks);

#endif
