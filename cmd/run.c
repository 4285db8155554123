/*
 * run.c - tracecluster run: run an MPI launcher line with the capture
 * shim preloaded and the trace directory set.
 *
 * The shim reaches the ranks through the environment: LD_PRELOAD and the
 * TRACECLUSTER_* variables are set for the launcher, which passes its
 * environment on to the ranks it starts (MPICH's Hydra and Slurm's srun
 * do so for every variable; for Open MPI's mpirun the variables are also
 * named in OMPI_MCA_mca_base_env_list, or given as -x options when the
 * line has -x options of its own, which makes mpirun forward them to
 * remote nodes).
 */
#include "lib/compat.h"
#include "cmd/cmd.h"
#include "cmd/mpikind.h"
#include "cluster/cluster.h"
#include "lib/event.h"

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
/* where make install puts the shims: the installed binary is built with
 * LIBDIR (cmd/module.mk); the build tree's looks next to itself only */
#ifndef TC_LIBDIR
#define TC_LIBDIR ""
#endif


static const char run_usage[] =
	"usage: tracecluster run [-o DIR] [-d N] [-b BYTES] [--mpi auto|openmpi|mpich]\n"
	"                        [--shim PATH] [-f] [--] COMMAND [ARGS]\n"
	"\n"
	"Run COMMAND, an MPI launcher line such as 'mpirun -np 4 ./app' or\n"
	"'srun ./app', with the capture shim preloaded: every rank writes its\n"
	"events to DIR/rank-NNNNN.tcr. Exits with COMMAND's exit status.\n"
	"\n"
	"  -o, --output DIR   trace directory (default $TRACECLUSTER_DIR, else\n"
	"                     ./tracecluster-trace)\n"
	"  -d, --depth N      stack frames per call site (default 8)\n"
	"  -b, --buffer BYTES bytes of encoded events per block (default 64K)\n"
	"      --mpi M        the MPI the job uses, for the shim built against it:\n"
	"                     auto (default: from the launcher's name, else from\n"
	"                     the libraries the program links), openmpi or mpich\n"
	"      --shim PATH    the capture library (default: the one for the job's\n"
	"                     MPI: next to tracecluster, in ../lib, or in the\n"
	"                     LIBDIR tracecluster was installed with)\n"
	"      --online M[:K] cluster in the job with mode M into DIR/global.tct\n"
	"                     (TRACECLUSTER_ONLINE): at MPI_Finalize (callpath,\n"
	"                     callpath-param, reference, kfarthest, kmedoid,\n"
	"                     dynamic), or at marker calls while the job runs\n"
	"                     (chameleon: non-leads stop writing in its L state)\n"
	"      --keep K       with --online, the raw files kept: leads (default), all\n"
	"                     or none\n"
	"      --marker OP[@CALLSITE]|auto\n"
	"                     with --online chameleon, the marker: a blocking\n"
	"                     collective over all ranks (default auto: agreed in\n"
	"                     the job from each rank's timestep loop)\n"
	"      --call-frequency N\n"
	"                     with --online chameleon, act at every Nth marker call\n"
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

/* Whether word is one of Open MPI's options that pass a variable (-x). */
static bool is_x_option(const char *word)
{
	return !strcmp(word, "-x") || !strcmp(word, "--x");
}

/* The variables passed to the ranks, and the line that passes them. */
struct fwd {
	char **names;
	size_t n;
	char **cmd;      /* the words, or a copy with -x options (owned) */
	bool own_cmd;
};

static void fwd_free(struct fwd *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	if (f->own_cmd)
		free(f->cmd);
	memset(f, 0, sizeof(*f));
}

/*
 * The launcher line that passes the shim's variables to the ranks:
 * LD_PRELOAD and every TRACECLUSTER_* variable, set in this process's
 * environment, which the launcher's local ranks inherit. Open MPI's
 * mpirun forwards to other nodes only the variables named in
 * OMPI_MCA_mca_base_env_list or given with -x, and refuses a line that
 * uses both ("You have attempted to pass environment variables to Open
 * MPI with both the -x method and by setting the MCA parameter"): when
 * the line runs Open MPI's launcher (told by its name, after any wrapper
 * such as timeout or env) with -x options of its own, the variables are
 * given as -x options after the launcher's name, else named in the list.
 * false when out of memory.
 */
static bool forward_env(char **words, int n, struct fwd *f)
{
	extern char **environ;
	static const char prefix[] = "TRACECLUSTER_";
	size_t nv = 1;
	bool use_x = false;
	int at = 0;

	memset(f, 0, sizeof(*f));
	for (char **e = environ; *e; e++)
		nv += !strncmp(*e, prefix, sizeof(prefix) - 1);
	if (!(f->names = calloc(nv, sizeof(*f->names))) ||
	    !(f->names[f->n++] = strdup("LD_PRELOAD")))
		goto nomem;
	for (char **e = environ; *e && f->n < nv; e++) {
		const char *eq = strchr(*e, '=');
		if (strncmp(*e, prefix, sizeof(prefix) - 1) || !eq)
			continue;
		if (!(f->names[f->n++] = strndup(*e, (size_t)(eq - *e))))
			goto nomem;
	}
	/* the launcher: the first word of Open MPI's launcher's name, after
	 * any wrapper (timeout, env, nice) */
	for (; at < n; at++)
		if (words[at][0] != '-' && tc_mpi_launcher_of(words[at]) == TC_MPI_OPENMPI)
			break;
	for (int i = at + 1; i < n && !use_x; i++)
		use_x = is_x_option(words[i]);
	if (!use_x) {
		for (size_t i = 0; i < f->n; i++)
			env_list_add("OMPI_MCA_mca_base_env_list", f->names[i]);
		f->cmd = words;
		return true;
	}
	if (!(f->cmd = calloc((size_t)n + 2 * f->n + 1, sizeof(*f->cmd))))
		goto nomem;
	f->own_cmd = true;
	for (int i = 0; i <= at; i++)
		f->cmd[i] = words[i];
	for (size_t i = 0; i < f->n; i++) {
		f->cmd[at + 1 + 2 * i] = "-x";
		f->cmd[at + 2 + 2 * i] = f->names[i];
	}
	for (int i = at + 1; i < n; i++)
		f->cmd[2 * f->n + (size_t)i] = words[i];
	return true;
nomem:
	tc_errorf("out of memory");
	fwd_free(f);
	return false;
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* dir/rel/SHIM into out when readable. */
static bool shim_at(const char *dir, const char *rel, char *out, size_t len)
{
	char buf[PATH_MAX];

	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s%s", dir, rel, SHIM) >= sizeof(buf) ||
	    !realpath(buf, out) || strlen(out) >= len)
		return false;
	return readable(out);
}

/*
 * The shim: --shim, $TRACECLUSTER_SHIM, else the one for the job's MPI:
 * next to the executable (the build tree: the Open MPI shim, MPICH's in
 * mpich/), in ../lib (an installed tree), or in the LIBDIR it was
 * installed to (Open MPI's in LIBDIR, MPICH's in LIBDIR/tracecluster/mpich/).
 */
static int find_shim(const char *opt, enum tc_mpi_kind kind, char *out, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;
	const char *env = getenv("TRACECLUSTER_SHIM");
	bool mpich = kind == TC_MPI_MPICH;

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
			if (shim_at(exe, mpich ? "mpich/" : "", out, len) ||
			    shim_at(exe, mpich ? "../lib/tracecluster/mpich/" : "../lib/", out, len))
				return 0;
		}
	}
	if (*TC_LIBDIR && shim_at(TC_LIBDIR, mpich ? "tracecluster/mpich/" : "", out, len))
		return 0;
	tc_errorf("cannot find the %s shim %s (built only where %s is found); give --shim PATH",
		  mpich ? "MPICH" : "Open MPI", SHIM, mpich ? "mpicc.mpich" : "mpicc");
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

/* "MODE[:K]" with a mode the in-job clustering runs (cmd/mpi/online.c). */
static bool online_mode_ok(const char *s)
{
	static const char *const modes[] = { "callpath", "callpath-param", "reference",
					     "kfarthest", "kmedoid", "dynamic", "chameleon" };
	const char *colon = strchr(s, ':');
	size_t len = colon ? (size_t)(colon - s) : strlen(s);

	if (colon) {
		char *end;
		unsigned long long k;
		errno = 0;
		k = strtoull(colon + 1, &end, 10);
		if (errno || *end || !k || k > UINT32_MAX || colon[1] == '-')
			return false;
	}
	for (size_t i = 0; i < TC_ARRAY_SIZE(modes); i++)
		if (strlen(modes[i]) == len && !strncmp(s, modes[i], len))
			return true;
	return false;
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		TC_COMMON_LONGOPTS,
		{ "output", required_argument, NULL, 'o' },
		{ "depth", required_argument, NULL, 'd' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "shim", required_argument, NULL, 0x2001 },
		{ "mpi", required_argument, NULL, 0x2002 },
		{ "online", required_argument, NULL, 0x2003 },
		{ "keep", required_argument, NULL, 0x2004 },
		{ "marker", required_argument, NULL, 0x2005 },
		{ "call-frequency", required_argument, NULL, 0x2006 },
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = getenv("TRACECLUSTER_DIR"), *shim_opt = NULL;
	const char *depth = NULL, *buffer = NULL, *online = NULL, *keep = NULL;
	const char *marker = NULL, *freq = NULL;
	enum tc_mpi_kind mpi = TC_MPI_UNKNOWN;
	char shim[PATH_MAX], absdir[PATH_MAX];
	bool force = false;
	struct sigaction ign, old_int, old_quit;
	struct fwd fwd;
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
		case 0x2002:
			if (!tc_mpi_parse(optarg, &mpi))
				return tc_usage_error("run", "--mpi: expected auto, openmpi or mpich, got "
						      "'%s'", optarg);
			break;
		case 0x2003:
			if (!online_mode_ok(optarg))
				return tc_usage_error("run", "--online: expected MODE[:K] of callpath, "
						      "callpath-param, reference, kfarthest, kmedoid, "
						      "dynamic or chameleon, got '%s'", optarg);
			online = optarg;
			break;
		case 0x2004:
			if (strcmp(optarg, "leads") && strcmp(optarg, "all") && strcmp(optarg, "none"))
				return tc_usage_error("run", "--keep: expected leads, all or none, got "
						      "'%s'", optarg);
			keep = optarg;
			break;
		case 0x2005: {
			uint32_t op;
			uint64_t site;
			if (strcmp(optarg, "auto") &&
			    (tc_chameleon_parse_marker(optarg, &op, &site) ||
			     tc_op_kind(op) != TC_K_COLL || (tc_op_flags(op) & (TC_OPF_NB | TC_OPF_NEIGH))))
				return tc_usage_error("run", "--marker: expected OP[@CALLSITE] of a "
						      "blocking collective, or auto, got '%s'", optarg);
			marker = optarg;
			break;
		}
		case 0x2006: {
			char *end;
			unsigned long long f;
			errno = 0;
			f = strtoull(optarg, &end, 10);
			if (errno || *end || !f || f > UINT32_MAX || optarg[0] == '-')
				return tc_usage_error("run", "--call-frequency: expected a count >= 1, "
						      "got '%s'", optarg);
			freq = optarg;
			break;
		}
			break;
		default:
			if ((rc = tc_cmd_option("run", c, optarg, argv)))
				return rc;
		}
	}
	if (optind >= argc)
		return tc_usage_error("run", "missing COMMAND");
	if (keep && !online)
		return tc_usage_error("run", "--keep is for --online");
	if ((marker || freq) && (!online || strncmp(online, "chameleon", 9)))
		return tc_usage_error("run", "--marker and --call-frequency are for --online "
				      "chameleon");
	if (mpi == TC_MPI_UNKNOWN)   /* auto */
		mpi = tc_mpi_detect(argv + optind, argc - optind);
	if (find_shim(shim_opt, mpi, shim, sizeof(shim)) < 0)
		return TC_EXIT_FAIL;
	if (tc_g.verbosity > 0)
		fprintf(stderr, "tracecluster run: MPI %s, shim %s\n", tc_mpi_name(mpi), shim);
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
	if (depth)
		setenv("TRACECLUSTER_STACK_DEPTH", depth, 1);
	if (buffer)
		setenv("TRACECLUSTER_BUFFER", buffer, 1);
	if (online)
		setenv("TRACECLUSTER_ONLINE", online, 1);
	if (keep)
		setenv("TRACECLUSTER_ONLINE_KEEP", keep, 1);
	if (marker)
		setenv("TRACECLUSTER_ONLINE_MARKER", marker, 1);
	if (freq)
		setenv("TRACECLUSTER_ONLINE_FREQ", freq, 1);
	if (!forward_env(argv + optind, argc - optind, &fwd))
		return TC_EXIT_FAIL;

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
		fwd_free(&fwd);
		return TC_EXIT_FAIL;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(fwd.cmd[0], fwd.cmd);
		fprintf(stderr, "tracecluster: cannot run '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			tc_errorf("cannot wait for '%s': %s", argv[optind], strerror(errno));
			fwd_free(&fwd);
			return TC_EXIT_FAIL;
		}
	}
	fwd_free(&fwd);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
