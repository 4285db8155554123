/*
 * run.c - tracecluster run: run an MPI launcher line with the capture
 * shim preloaded and the trace directory set.
 *
 * The shim reaches the ranks through the environment: LD_PRELOAD and the
 * TRACECLUSTER_* variables are set for the launcher, which passes its
 * environment on to the ranks it starts (MPICH's Hydra and Slurm's srun
 * do so for every variable; for Open MPI's mpirun the variables are also
 * named in OMPI_MCA_mca_base_env_list, which makes mpirun forward them to
 * remote nodes).
 */
#include "lib/compat.h"
#include "cmd/cmd.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHIM "libtracecluster-capture.so"

static const char run_usage[] =
	"usage: tracecluster run [-o DIR] [-d N] [-b BYTES] [--shim PATH] [-f] [--]\n"
	"                        COMMAND [ARGS]\n"
	"\n"
	"Run COMMAND, an MPI launcher line such as 'mpirun -np 4 ./app' or\n"
	"'srun ./app', with the capture shim preloaded: every rank writes its\n"
	"events to DIR/rank-NNNNN.tcr. Exits with COMMAND's exit status.\n"
	"\n"
	"  -o, --output DIR   trace directory (default $TRACECLUSTER_DIR, else\n"
	"                     ./tracecluster-trace)\n"
	"  -d, --depth N      stack frames per call site (default 8)\n"
	"  -b, --buffer BYTES bytes of encoded events per block (default 64K)\n"
	"      --shim PATH    the capture library (default: " SHIM "\n"
	"                     next to tracecluster or in ../lib)\n"
	"  -f, --force        remove an earlier job's rank files and job file in DIR\n"
	"  -h, --help         this help\n";

/* Append "name" to a ';'-separated list variable unless it is there. */
static void env_list_add(const char *var, const char *name)
{
	const char *cur = getenv(var);
	char *buf;
	size_t n;

	if (!cur || !*cur) {
		setenv(var, name, 1);
		return;
	}
	for (const char *p = cur; (p = strstr(p, name)) != NULL; p++) {
		size_t k = strlen(name);
		if ((p == cur || p[-1] == ';') && (p[k] == ';' || p[k] == '\0' || p[k] == '='))
			return;
	}
	n = strlen(cur) + strlen(name) + 2;
	buf = malloc(n);
	if (!buf)
		return;
	snprintf(buf, n, "%s;%s", cur, name);
	setenv(var, buf, 1);
	free(buf);
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The shim: --shim, $TRACECLUSTER_SHIM, next to the executable, ../lib. */
static int find_shim(const char *opt, char *out, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;
	const char *env = getenv("TRACECLUSTER_SHIM");

	if (opt || (env && *env)) {
		const char *p = opt ? opt : env;
		if (!realpath(p, out) || !readable(out)) {
			tc_errorf("cannot use shim '%s': %s", p, strerror(errno ? errno : ENOENT));
			return -1;
		}
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(out, len, "%s/%s", exe, SHIM) < len && readable(out))
				return 0;
			if ((size_t)snprintf(out, len, "%s/../lib/%s", exe, SHIM) < len &&
			    realpath(out, exe) && readable(exe)) {
				snprintf(out, len, "%s", exe);
				return 0;
			}
		}
	}
	tc_errorf("cannot find %s (built only where mpicc is found); give --shim PATH", SHIM);
	return -1;
}

/* Make dir (and parents); refuse one holding rank files unless force. */
static int prepare_dir(const char *dir, bool force, char *abs, size_t len)
{
	char buf[PATH_MAX], file[PATH_MAX + 256];
	size_t n = strlen(dir);
	DIR *d;
	struct dirent *de;
	int nfiles = 0;

	if (n == 0 || n >= sizeof(buf)) {
		tc_errorf("bad output directory '%s'", dir);
		return -1;
	}
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) < 0 && errno != EEXIST)
			goto fail;
		*p = '/';
	}
	if (mkdir(buf, 0777) < 0 && errno != EEXIST)
		goto fail;
	if (!realpath(dir, abs) || strlen(abs) >= len)
		goto fail;
	d = opendir(abs);
	if (!d)
		goto fail;
	while ((de = readdir(d)) != NULL) {
		size_t k = strlen(de->d_name);
		/* the rank files and the job file of an earlier job */
		if ((strncmp(de->d_name, "rank-", 5) || k < 9 || strcmp(de->d_name + k - 4, ".tcr")) &&
		    strcmp(de->d_name, "tracecluster.job"))
			continue;
		if (!force) {
			nfiles++;
			continue;
		}
		if ((size_t)snprintf(file, sizeof(file), "%s/%s", abs, de->d_name) >= sizeof(file))
			continue;
		if (unlink(file) < 0) {
			tc_errorf("cannot remove '%s': %s", file, strerror(errno));
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	if (nfiles) {
		tc_errorf("'%s' already holds another job's trace (%d files; use --force to "
			  "replace it)", abs, nfiles);
		return -1;
	}
	return 0;
fail:
	tc_errorf("cannot create directory '%s': %s", dir, strerror(errno));
	return -1;
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "output", required_argument, NULL, 'o' },
		{ "depth", required_argument, NULL, 'd' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "shim", required_argument, NULL, 0x2001 },
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = getenv("TRACECLUSTER_DIR"), *shim_opt = NULL;
	const char *depth = NULL, *buffer = NULL;
	char shim[PATH_MAX], absdir[PATH_MAX];
	bool force = false;
	struct sigaction ign, old_int, old_quit;
	pid_t pid;
	int c, rc, status;
	uint64_t v;

	if (!dir || !*dir)
		dir = "tracecluster-trace";
	while ((c = getopt_long(argc, argv, "+o:d:b:f" TC_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return tc_print_help(run_usage);
		case 'o':
			dir = optarg;
			break;
		case 'd':
			if ((rc = tc_parse_u64("run", "--depth", optarg, &v)))
				return rc;
			if (v > 32)
				return tc_usage_error("run", "--depth: at most 32 frames");
			depth = optarg;
			break;
		case 'b':
			buffer = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 0x2001:
			shim_opt = optarg;
			break;
		default:
			if ((rc = tc_cmd_option("run", c, optarg, argv)))
				return rc;
		}
	}
	if (optind >= argc)
		return tc_usage_error("run", "missing COMMAND");
	if (find_shim(shim_opt, shim, sizeof(shim)) < 0)
		return TC_EXIT_FAIL;
	if (prepare_dir(dir, force, absdir, sizeof(absdir)) < 0)
		return TC_EXIT_FAIL;

	{
		const char *pre = getenv("LD_PRELOAD");
		size_t n = strlen(shim) + (pre ? strlen(pre) : 0) + 2;
		char *val = malloc(n);
		if (!val)
			return TC_EXIT_FAIL;
		if (pre && *pre && !strstr(pre, shim))
			snprintf(val, n, "%s:%s", shim, pre);
		else
			snprintf(val, n, "%s", pre && *pre ? pre : shim);
		setenv("LD_PRELOAD", val, 1);
		free(val);
	}
	setenv("TRACECLUSTER_DIR", absdir, 1);
	env_list_add("OMPI_MCA_mca_base_env_list", "LD_PRELOAD");
	env_list_add("OMPI_MCA_mca_base_env_list", "TRACECLUSTER_DIR");
	if (depth)
		setenv("TRACECLUSTER_STACK_DEPTH", depth, 1);
	if (buffer)
		setenv("TRACECLUSTER_BUFFER", buffer, 1);
	if (getenv("TRACECLUSTER_STACK_DEPTH"))
		env_list_add("OMPI_MCA_mca_base_env_list", "TRACECLUSTER_STACK_DEPTH");
	if (getenv("TRACECLUSTER_BUFFER"))
		env_list_add("OMPI_MCA_mca_base_env_list", "TRACECLUSTER_BUFFER");

	fflush(stdout);
	/* the launcher handles ^C and ^\ for the job; we wait for it */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0) {
		tc_errorf("cannot fork: %s", strerror(errno));
		return TC_EXIT_FAIL;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "tracecluster: cannot run '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			tc_errorf("cannot wait for '%s': %s", argv[optind], strerror(errno));
			return TC_EXIT_FAIL;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
