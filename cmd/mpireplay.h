/*
 * mpireplay.h - run tracecluster-replay (the replay on real MPI ranks,
 * cmd/mpi/) from a command: accuracy --replay mpi. The tracecluster
 * command itself never links MPI; it starts the launcher.
 */
#ifndef TC_CMD_MPIREPLAY_H
#define TC_CMD_MPIREPLAY_H

#include "lib/compat.h"
#include "cmd/mpikind.h"

struct tc_error;

struct tc_mpireplay {
	const char *launcher;     /* "mpirun" or a command line (split at blanks) */
	enum tc_mpi_kind mpi;     /* the launcher's MPI; TC_MPI_UNKNOWN: from
				   * its name or libraries, else Open MPI */
	const char *compute;      /* "spin", "sleep" or NULL: --no-compute */
	int32_t np;
	unsigned timeout_s;       /* the replay's watchdog (--timeout); 0: its default */
	const char *what;         /* a failure names the replay "of WHAT" and
				   * what_path, not the launcher line and the
				   * file; NULL: those */
	const char *what_path;
};

/*
 * Replay trace (a trace set or a .tct file) on r->np ranks and put the
 * makespan in seconds in *t. The replay program is the one built against
 * the launcher's MPI: tracecluster-replay (Open MPI, or the build's one
 * MPI) or tracecluster-replay.mpich (else a tracecluster-replay that links
 * MPICH), beside this executable (in the build tree, MPICH's in mpich/),
 * else on PATH. Returns 0, or -1 with err filled (the replay program not
 * found, the launcher failed, no result): a replay that fails is named
 * with the first line its ranks wrote about it (why the trace is refused,
 * where the ranks are stuck), the launcher's own output being kept out
 * of the way (shown with -v).
 */
int tc_mpireplay_run(const struct tc_mpireplay *r, const char *trace, double *t,
		     struct tc_error *err);

#endif
