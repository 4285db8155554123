/*
 * mpikind.h - which MPI a launcher line runs on (tracecluster run's shim,
 * accuracy --replay mpi's replay program).
 */
#ifndef TC_CMD_MPIKIND_H
#define TC_CMD_MPIKIND_H

#include "lib/compat.h"

enum tc_mpi_kind { TC_MPI_UNKNOWN, TC_MPI_OPENMPI, TC_MPI_MPICH };

/* "openmpi", "mpich" or "unknown" */
const char *tc_mpi_name(enum tc_mpi_kind k);

/* A --mpi argument: auto (TC_MPI_UNKNOWN: tell from the launcher),
 * openmpi or mpich into *k; false for anything else. */
bool tc_mpi_parse(const char *s, enum tc_mpi_kind *k);

/* The MPI of one program (a name with a '/', else found on PATH), from its
 * resolved name or its libraries; TC_MPI_UNKNOWN when neither tells. */
enum tc_mpi_kind tc_mpi_of_program(const char *word);

/*
 * The MPI of a launcher line: the first of words[0..n) that is an
 * executable (a name with a '/', else found on PATH) whose resolved name
 * (mpirun.openmpi, mpiexec.hydra, ...) or, for an ELF program, whose
 * libraries (libmpi.so.40: Open MPI; libmpich.so: MPICH) tell: the
 * launcher, else the program it starts. TC_MPI_UNKNOWN when none does.
 */
enum tc_mpi_kind tc_mpi_detect(char *const *words, int n);
/* The MPI whose launcher word is, told by its resolved name alone
 * (mpirun.openmpi, orterun, mpiexec.hydra, ...): a program linked
 * against an MPI is no launcher. */
enum tc_mpi_kind tc_mpi_launcher_of(const char *word);

#endif
