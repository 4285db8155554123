/*
 * mpireplay.c - run tracecluster-replay under an MPI launcher and read
 * its JSON result (see mpireplay.h).
 */
#include "lib/compat.h"
#include "cmd/mpireplay.h"
#include "lib/error.h"
#include "lib/json.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define REPLAY_EXE "tracecluster-replay"
#define REPLAY_EXE_MPICH "tracecluster-replay.mpich"
#define MAX_WORDS 64

/* dir/name into out when it is an executable file not built against
 * another MPI than mpi (TC_MPI_UNKNOWN: any) */
static bool replay_at(const char *dir, const char *name, enum tc_mpi_kind mpi, char *out,
		      size_t len)
{
	enum tc_mpi_kind k;

	if ((size_t)snprintf(out, len, "%s/%s", dir, name) >= len || access(out, X_OK) != 0)
		return false;
	k = tc_mpi_of_program(out);
	return mpi == TC_MPI_UNKNOWN || k == TC_MPI_UNKNOWN || k == mpi;
}

/*
 * The replay program for the MPI: beside this executable (MPICH's, in the
 * build tree, in mpich/), else on PATH. Under MPICH: the MPICH build
 * (tracecluster-replay.mpich), else a tracecluster-replay built against
 * MPICH (where MPICH is the one MPI, the default build is).
 */
static void find_replay(enum tc_mpi_kind mpi, char *out, size_t len)
{
	char exe[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	bool mpich = mpi == TC_MPI_MPICH;

	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/'))) {
			*slash = '\0';
			if ((mpich && (replay_at(exe, "mpich/" REPLAY_EXE, mpi, out, len) ||
				       replay_at(exe, REPLAY_EXE_MPICH, mpi, out, len))) ||
			    replay_at(exe, REPLAY_EXE, mpi, out, len))
				return;
		}
	}
	if (mpich && tc_mpi_of_program(REPLAY_EXE_MPICH) == TC_MPI_UNKNOWN &&
	    tc_mpi_of_program(REPLAY_EXE) == TC_MPI_MPICH)
		snprintf(out, len, "%s", REPLAY_EXE);
	else
		snprintf(out, len, "%s", mpich ? REPLAY_EXE_MPICH : REPLAY_EXE);
}

int tc_mpireplay_run(const struct tc_mpireplay *r, const char *trace, double *t,
		     struct tc_error *err)
{
	char replay[4096], np[16], *words, *argv[MAX_WORDS + 12];
	struct tc_strbuf out;
	struct tc_json *doc = NULL, *v;
	int fd[2], st, argc = 0, rc = -1;
	pid_t pid;

	words = strdup(r->launcher ? r->launcher : "mpirun");
	if (!words)
		return tc_error_set(err, TC_ERR_NOMEM, NULL, -1, "out of memory");
	for (char *w = strtok(words, " \t"); w && argc < MAX_WORDS; w = strtok(NULL, " \t"))
		argv[argc++] = w;
	find_replay(r->mpi != TC_MPI_UNKNOWN ? r->mpi : tc_mpi_detect(argv, argc), replay,
		    sizeof(replay));
	snprintf(np, sizeof(np), "%" PRId32, r->np);
	argv[argc++] = "-np";
	argv[argc++] = np;
	argv[argc++] = replay;
	argv[argc++] = "--json";
	argv[argc++] = "-q";
	if (r->compute) {
		argv[argc++] = "--compute";
		argv[argc++] = (char *)r->compute;
	} else {
		argv[argc++] = "--no-compute";
	}
	argv[argc++] = (char *)trace;
	argv[argc] = NULL;
	tc_strbuf_init(&out);
	if (pipe(fd)) {
		tc_error_set(err, TC_ERR_IO, NULL, -1, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		tc_error_set(err, TC_ERR_IO, NULL, -1, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "tracecluster: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		ssize_t n;
		tc_strbuf_grow(&out, 4096);
		n = read(fd[0], out.buf + out.len, 4096);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		out.len += (size_t)n;
		out.buf[out.len] = '\0';
	}
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		tc_error_set(err, TC_ERR_IO, trace, -1, "the replay on MPI ranks (%s -np %s %s) failed",
			     argv[0], np, replay);
		goto out;
	}
	doc = tc_json_load_buf(out.buf ? out.buf : "", out.len, trace, err);
	if (!doc)
		goto out;
	v = tc_json_get(doc, "makespan_s");
	if (!v || !tc_json_is_number(v)) {
		tc_error_set(err, TC_ERR_FORMAT, trace, -1, "the replay on MPI ranks gave no makespan");
		goto out;
	}
	*t = tc_json_number_value(v);
	rc = 0;
out:
	tc_json_free(doc);
	tc_strbuf_release(&out);
	free(words);
	return rc;
}
