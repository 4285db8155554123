/*
 * mpikind.c - which MPI a launcher line runs on: the capture shim and the
 * replay program must be the ones built against it.
 */
#include "lib/compat.h"
#include "cmd/mpikind.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tc_mpi_name(enum tc_mpi_kind k)
{
	return k == TC_MPI_OPENMPI ? "openmpi" : k == TC_MPI_MPICH ? "mpich" : "unknown";
}

bool tc_mpi_parse(const char *s, enum tc_mpi_kind *k)
{
	if (!strcmp(s, "auto"))
		*k = TC_MPI_UNKNOWN;
	else if (!strcmp(s, "openmpi"))
		*k = TC_MPI_OPENMPI;
	else if (!strcmp(s, "mpich"))
		*k = TC_MPI_MPICH;
	else
		return false;
	return true;
}

/* The MPI a launcher or program file belongs to, from its resolved name
 * (mpirun.openmpi, mpiexec.hydra, ...) or, for an ELF program, from the
 * libraries it needs (libmpi.so.40: Open MPI; libmpich.so: MPICH). */
static enum tc_mpi_kind mpi_of_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (strstr(base, "mpich") || strstr(base, "hydra"))
		return TC_MPI_MPICH;
	if (strstr(base, "openmpi") || strstr(base, "orterun") || strstr(base, "prterun") ||
	    strstr(base, "prun"))
		return TC_MPI_OPENMPI;
	return TC_MPI_UNKNOWN;
}

/* Read len bytes at off; false past the end of the file. */
static bool pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	return off <= (uint64_t)INT64_MAX && pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

static enum tc_mpi_kind mpi_of_needed(const char *name)
{
	if (!strncmp(name, "libmpich", 8) || !strncmp(name, "libmpicxx", 9) ||
	    !strncmp(name, "libmpifort", 10))
		return TC_MPI_MPICH;
	/* libopen-rte, libopen-pal: not every libopen-* (OTF2's is
	 * libopen-trace-format2) */
	if (!strncmp(name, "libmpi.so", 9) || !strncmp(name, "libmpi_", 7) ||
	    !strncmp(name, "libopen-rte", 11) || !strncmp(name, "libopen-pal", 11) ||
	    !strncmp(name, "liboshmem", 9))
		return TC_MPI_OPENMPI;
	return TC_MPI_UNKNOWN;
}

/* The MPI the DT_NEEDED entries of an ELF64 file name; every read is
 * checked, any oddity gives TC_MPI_UNKNOWN. */
static enum tc_mpi_kind mpi_of_elf(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Shdr dyn, str;
	enum tc_mpi_kind kind = TC_MPI_UNKNOWN;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return TC_MPI_UNKNOWN;
	if (!pread_all(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shnum > 4096)
		goto out;
	for (unsigned i = 0; i < eh.e_shnum && kind == TC_MPI_UNKNOWN; i++) {
		if (!pread_all(fd, &dyn, sizeof(dyn), eh.e_shoff + (uint64_t)i * sizeof(dyn)))
			goto out;
		if (dyn.sh_type != SHT_DYNAMIC || dyn.sh_link >= eh.e_shnum ||
		    !pread_all(fd, &str, sizeof(str),
			       eh.e_shoff + (uint64_t)dyn.sh_link * sizeof(str)))
			continue;
		for (uint64_t k = 0; k < dyn.sh_size / sizeof(Elf64_Dyn) && k < 4096; k++) {
			Elf64_Dyn d;
			char name[64];
			if (!pread_all(fd, &d, sizeof(d), dyn.sh_offset + k * sizeof(d)) ||
			    d.d_tag == DT_NULL)
				break;
			if (d.d_tag != DT_NEEDED || d.d_un.d_val >= str.sh_size)
				continue;
			memset(name, 0, sizeof(name));
			if (pread(fd, name, sizeof(name) - 1, (off_t)(str.sh_offset + d.d_un.d_val)) <= 0)
				continue;
			if ((kind = mpi_of_needed(name)) != TC_MPI_UNKNOWN)
				break;
		}
	}
out:
	close(fd);
	return kind;
}

/* word as an executable file: itself when it has a '/', else from PATH. */
static bool resolve_exe(const char *word, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(word, '/'))
		return realpath(word, out) && access(out, X_OK) == 0;
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n && (size_t)snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, word) < sizeof(buf) &&
		    access(buf, X_OK) == 0 && realpath(buf, out) && strlen(out) < len)
			return true;
		p += n + (e ? 1 : 0);
		if (!e)
			break;
	}
	return false;
}

enum tc_mpi_kind tc_mpi_of_program(const char *word)
{
	char exe[PATH_MAX];
	struct stat st;
	enum tc_mpi_kind k;

	if (!resolve_exe(word, exe, sizeof(exe)) || stat(exe, &st) < 0 || !S_ISREG(st.st_mode))
		return TC_MPI_UNKNOWN;
	if ((k = mpi_of_name(exe)) != TC_MPI_UNKNOWN)
		return k;
	return mpi_of_elf(exe);
}

enum tc_mpi_kind tc_mpi_launcher_of(const char *word)
{
	char exe[PATH_MAX];

	if (!resolve_exe(word, exe, sizeof(exe)))
		return TC_MPI_UNKNOWN;
	return mpi_of_name(exe);
}

enum tc_mpi_kind tc_mpi_detect(char *const *words, int n)
{
	for (int i = 0; i < n; i++) {
		enum tc_mpi_kind k;
		if (words[i][0] != '-' && (k = tc_mpi_of_program(words[i])) != TC_MPI_UNKNOWN)
			return k;
	}
	return TC_MPI_UNKNOWN;
}
