/*
 * foreign.h - readers of other tools' trace formats, behind struct
 * tc_reader (formats/reader.h).
 *
 * Used by reader.c (format detection and tc_reader_open) and traceset.c
 * (which files and rank streams a path holds); commands never include it.
 *
 *   ScalaTrace V2 global trace (formats/scalatrace.md): one text file
 *   holding every rank; rank stream `index` is world rank `index`,
 *   expanded from the compressed trace while it is read.
 *
 *   SST DUMPI (formats/dumpi.md): one binary file per rank plus an ASCII
 *   .meta file naming the prefix and the number of processes.
 *
 *   OTF2 (formats/otf2.md), read through the OTF2 library: an anchor
 *   file (traces.otf2) beside its definitions and a traces/ directory;
 *   rank stream `index` is MPI rank `index`.
 */
#ifndef TC_FORMATS_FOREIGN_H
#define TC_FORMATS_FOREIGN_H

#include "lib/compat.h"

struct tc_error;
struct tc_reader;

/* Hard caps of the ScalaTrace parser: larger is corruption, not data. */
#define TC_ST_MAX_FILE ((uint64_t)1 << 31)   /* bytes of text */
#define TC_ST_MAX_WORLD (1 << 24)            /* ranks */
#define TC_ST_MAX_EVENTS ((uint64_t)1 << 32) /* expanded events per rank */

/* Whether the first bytes of a file look like a ScalaTrace V2 trace. */
bool tc_scalatrace_probe(const void *buf, size_t len);
/* Parse (or find in the process-wide cache) the trace at path and give
 * its world size: the number of rank streams it holds. With
 * TC_RAW_SALVAGE in flags a damaged trace keeps the events before the
 * damage. */
int tc_scalatrace_world(const char *path, unsigned flags, int32_t *world,
			struct tc_error *err);
/* Open rank stream `rank` of the trace at path (returns new in *out). */
int tc_scalatrace_open(struct tc_reader **out, const char *path, uint32_t rank,
		       unsigned flags, struct tc_error *err);

#define TC_DUMPI_MAGIC "\377\252\335DUMPI"   /* 8 bytes */
#define TC_DUMPI_MAGIC_LEN 8

/* What a DUMPI .meta file says. */
struct tc_dumpi_meta {
	int32_t numprocs;
	char prefix[256];       /* fileprefix= */
	char host[256];
};

bool tc_dumpi_probe(const void *buf, size_t len);
/* Whether buf starts like a DUMPI .meta file (key=value lines with
 * numprocs= and fileprefix=). */
bool tc_dumpi_meta_probe(const void *buf, size_t len);
int tc_dumpi_read_meta(const char *path, struct tc_dumpi_meta *m, struct tc_error *err);
/* The rank a DUMPI file name encodes ("PREFIX-0042.bin" is 42), or -1. */
int32_t tc_dumpi_file_rank(const char *path);
/*
 * Open one DUMPI .bin file (index 0): the world size comes from the
 * .meta file beside it (PREFIX.meta), the rank from the file name. Given
 * a .meta file, open the file of rank `index` instead.
 */
int tc_dumpi_open(struct tc_reader **out, const char *path, uint32_t index, unsigned flags,
		  struct tc_error *err);
/* "MPI_Isend" for DUMPI function id 8 (NULL past the table). */
const char *tc_dumpi_function_name(unsigned id);

/* Whether the first bytes of a file look like an OTF2 anchor file. */
bool tc_otf2_probe(const void *buf, size_t len);
/* The number of MPI ranks of the OTF2 archive whose anchor file is path
 * (its global definitions are parsed once and cached). */
int tc_otf2_world(const char *path, int32_t *world, struct tc_error *err);
/* Bytes of rank `rank`'s event and definition files plus its share of
 * the anchor and global definitions (0 when unknown). */
uint64_t tc_otf2_stream_bytes(const char *path, uint32_t rank);
/* Open rank stream `rank` of the archive (returns new in *out). */
int tc_otf2_open(struct tc_reader **out, const char *path, uint32_t rank, unsigned flags,
		 struct tc_error *err);

#endif
