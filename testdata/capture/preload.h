/*
 * preload.h - what the test helpers preloaded before the capture shim
 * (failalloc.c, slowstart.c) share: the world rank, rank lists, and
 * whether code lies in a given module. Static functions, one copy per
 * helper.
 */
#ifndef TC_TESTDATA_PRELOAD_H
#define TC_TESTDATA_PRELOAD_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* This process's world rank, from OMPI_COMM_WORLD_RANK (Open MPI) or
 * PMI_RANK (MPICH); -1 when neither is set. */
static int world_rank(void)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");

	if (!r)
		r = getenv("PMI_RANK");
	return r ? atoi(r) : -1;
}

/* Whether rank is in the list "R,R,..." (no list: every rank). */
static bool listed(const char *list, int rank)
{
	if (!list || !*list)
		return true;
	while (*list) {
		char *end;
		long v = strtol(list, &end, 10);
		if (end == list)
			return false;
		if (v == rank)
			return true;
		list = *end == ',' ? end + 1 : end;
	}
	return false;
}

/* Whether the code at pc lies in a module whose file name has name in
 * it; info describes that module. */
static bool in_module(const void *pc, const char *name, Dl_info *info)
{
	return dladdr(pc, info) && info->dli_fname && strstr(info->dli_fname, name);
}

#endif
