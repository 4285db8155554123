/*
 * mpireplay.c - run tracecluster-replay under an MPI launcher and read
 * its JSON result (see mpireplay.h).
 */
#include "lib/compat.h"
#include "cmd/mpireplay.h"
#include "lib/error.h"
#include "cmd/cmd.h"
#include "lib/json.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <poll.h>
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

/* Whether a line of the replay program's says why it failed, rather than
 * warning before it (or as it ran) of something it went on with. */
static bool is_reason(const char *text, size_t len)
{
	static const char warn[] = "warning: ", skip[] = " of operations not replayed";

	return !(len >= sizeof(warn) - 1 && !memcmp(text, warn, sizeof(warn) - 1)) &&
	       !memmem(text, len, skip, sizeof(skip) - 1);
}

/*
 * Why a replay failed, from what its processes wrote on standard error:
 * the first line of the replay program's own ("tracecluster-replay: ...",
 * the same from every rank stuck or refused) that is not a warning it
 * went on after, else its first line of any kind, else the launcher's
 * first line that says something (not its rules of dashes). NULL:
 * nothing. *len: the reason's length (it ends at a newline).
 */
static const char *fail_reason(const char *text, size_t *len)
{
	static const char me[] = REPLAY_EXE ": ";
	const char *mine = NULL, *first = NULL;
	size_t mine_len = 0;

	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		const char *p = memmem(l, n, me, sizeof(me) - 1);
		if (p) {
			const char *r = p + sizeof(me) - 1;
			size_t rn = n - (size_t)(r - l);
			if (is_reason(r, rn)) {
				*len = rn;
				return r;
			}
			if (!mine) {
				mine = r;
				mine_len = rn;
			}
		} else if (!first && strspn(l, "- \t\r") < n) {
			first = l;
		}
		l += n + (l[n] == '\n');
	}
	if (mine) {
		*len = mine_len;
		return mine;
	}
	if (first)
		*len = strcspn(first, "\n");
	return first;
}

/* Read fd[0] (standard output) and fd[1] (standard error) of the child to
 * their ends, into out and errs. */
static void read_both(const int *fd, struct tc_strbuf *out, struct tc_strbuf *errs)
{
	struct pollfd pf[2] = { { fd[0], POLLIN, 0 }, { fd[1], POLLIN, 0 } };
	struct tc_strbuf *to[2] = { out, errs };
	int open_n = 2;

	while (open_n > 0) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;
			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			tc_strbuf_grow(to[i], 4096);
			n = read(pf[i].fd, to[i]->buf + to[i]->len, 4096);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				pf[i].fd = -1;
				open_n--;
				continue;
			}
			to[i]->len += (size_t)n;
			to[i]->buf[to[i]->len] = '\0';
		}
	}
}

int tc_mpireplay_run(const struct tc_mpireplay *r, const char *trace, double *t,
		     struct tc_error *err)
{
	char replay[4096], np[16], tmo[16], *words, *argv[MAX_WORDS + 14];
	struct tc_strbuf out, errs;
	struct tc_json *doc = NULL, *v;
	int fd[2], efd[2], st, argc = 0, rc = -1;
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
	if (r->timeout_s) {
		snprintf(tmo, sizeof(tmo), "%u", r->timeout_s);
		argv[argc++] = "--timeout";
		argv[argc++] = tmo;
	}
	argv[argc++] = (char *)trace;
	argv[argc] = NULL;
	tc_strbuf_init(&out);
	tc_strbuf_init(&errs);
	if (pipe(fd)) {
		tc_error_set(err, TC_ERR_IO, NULL, -1, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	if (pipe(efd)) {
		close(fd[0]);
		close(fd[1]);
		tc_error_set(err, TC_ERR_IO, NULL, -1, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		close(efd[0]);
		close(efd[1]);
		tc_error_set(err, TC_ERR_IO, NULL, -1, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		dup2(efd[1], STDERR_FILENO);
		close(fd[0]);
		close(fd[1]);
		close(efd[0]);
		close(efd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "tracecluster: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	close(efd[1]);
	read_both((int[]){ fd[0], efd[0] }, &out, &errs);
	close(fd[0]);
	close(efd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (errs.len && (tc_g.verbosity > 0 || (WIFEXITED(st) && !WEXITSTATUS(st))))
		fputs(errs.buf, stderr);  /* warnings of a replay that ran; all with -v */
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		size_t n = 0;
		const char *why = errs.len ? fail_reason(errs.buf, &n) : NULL;
		if (r->what)
			tc_error_set(err, TC_ERR_IO, r->what_path, -1, "the replay of %s on %s MPI "
				     "ranks failed%s%.*s", r->what, np, why ? ": " : "",
				     (int)TC_MIN(n, 600), why ? why : "");
		else
			tc_error_set(err, TC_ERR_IO, trace, -1, "the replay on MPI ranks (%s -np %s "
				     "%s) failed%s%.*s", argv[0], np, replay, why ? ": " : "",
				     (int)TC_MIN(n, 600), why ? why : "");
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
	tc_strbuf_release(&errs);
	free(words);
	return rc;
}
