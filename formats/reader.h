/*
 * reader.h - one streaming interface over every trace format.
 *
 * A struct tc_reader gives the header of one rank's stream and reads its
 * records into the callbacks of struct tc_read_ops (formats/raw.h). The
 * raw format is the first backend; readers of other tools' formats (one
 * file per rank, or one global file expanded per rank) add their own
 * vtable. Commands only ever see this interface.
 */
#ifndef TC_FORMATS_READER_H
#define TC_FORMATS_READER_H

#include "lib/compat.h"
#include "formats/raw.h"

struct tc_error;

enum tc_format {
	TC_FMT_AUTO = 0,   /* detect from the content */
	TC_FMT_RAW,        /* tracecluster raw files (formats/raw.md) */
	TC_FMT_SCALATRACE, /* ScalaTrace V2 global trace (formats/scalatrace.md) */
	TC_FMT_DUMPI,      /* SST DUMPI per-rank files (formats/dumpi.md) */
	TC_FMT_OTF2,       /* OTF2 archive, e.g. from Score-P (formats/otf2.md) */
};

struct tc_reader_vtab {
	const char *name;
	const struct tc_raw_header *(*header)(void *impl);
	int (*read)(void *impl, const struct tc_read_ops *ops, void *ctx,
		    struct tc_raw_stats *stats, struct tc_error *err);
	void (*close)(void *impl);
};

struct tc_reader {
	const struct tc_reader_vtab *vt;
	void *impl;
};

/* Wrap an implementation (steals impl; returns new). */
struct tc_reader *tc_reader_wrap(const struct tc_reader_vtab *vt, void *impl);
/*
 * Open rank stream `index` of path (0 for formats with one file per rank;
 * the world rank for a ScalaTrace global trace) as format fmt
 * (TC_FMT_AUTO detects it from the first bytes: raw magic, DUMPI magic,
 * OTF2 anchor file, or a first line "RANKS:"). For an OTF2 anchor file
 * `index` is the MPI rank.
 */
int tc_reader_open(struct tc_reader **out, const char *path, enum tc_format fmt,
		   uint32_t index, unsigned flags, struct tc_error *err);
const struct tc_raw_header *tc_reader_header(const struct tc_reader *r);
/* Stream every record to ops; stats (optional) says what was seen. */
int tc_reader_read(struct tc_reader *r, const struct tc_read_ops *ops, void *ctx,
		   struct tc_raw_stats *stats, struct tc_error *err);
void tc_reader_close(struct tc_reader **r);
const char *tc_reader_format_name(const struct tc_reader *r);

/* Parse "auto", "raw", "scalatrace", "dumpi", "otf2"; returns -1 for an unknown name. */
int tc_format_from_name(const char *name);
/* "raw", "scalatrace", "dumpi", "otf2" ("auto" for TC_FMT_AUTO). */
const char *tc_format_name(enum tc_format fmt);
/* Detect the format of the file at path from its first bytes; TC_FMT_RAW
 * when nothing matches (so the raw reader's "bad magic" is the error).
 * A DUMPI .meta file is TC_FMT_DUMPI. Returns -1 with err filled when
 * the file cannot be read. */
int tc_format_detect(const char *path, struct tc_error *err);

#endif
