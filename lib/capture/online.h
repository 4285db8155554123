/*
 * online.h - what the capture shim hands the in-job clustering plugin
 * (libtracecluster-online.so, cmd/mpi/online.c) at MPI_Finalize when
 * TRACECLUSTER_ONLINE asks for it. The shim stays small: the plugin, with
 * the analysis library, is loaded only then.
 */
#ifndef TC_CAPTURE_ONLINE_H
#define TC_CAPTURE_ONLINE_H

#define TC_ONLINE_ABI 1
#define TC_ONLINE_SYMBOL "tracecluster_online_run"

struct tc_online_args {
	int abi;                /* TC_ONLINE_ABI */
	const char *dir;        /* the job's trace directory */
	const char *mode;       /* TRACECLUSTER_ONLINE: MODE[:K] */
	const char *keep;       /* TRACECLUSTER_ONLINE_KEEP: leads (default), all, none */
	int rank, size;         /* in MPI_COMM_WORLD */
	int traced;             /* this rank's raw file is complete */
	int quiet;              /* no report line on standard error */
};

/* Called by every rank, before PMPI_Finalize; uses PMPI only. Returns 0
 * when the global trace was written; never aborts the job. */
typedef int (*tc_online_fn)(const struct tc_online_args *args);

#endif
