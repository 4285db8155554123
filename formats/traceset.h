/*
 * traceset.h - the rank streams of a trace, checked and read in parallel.
 *
 * tc_traceset_open finds the rank streams a path holds: a directory of
 * raw files (*.tcr), a directory with a DUMPI .meta file (one stream per
 * PREFIX-NNNN.bin), a ScalaTrace global trace or a directory holding one
 * (one stream per rank, all in the same file, told apart by `index`), or
 * a single file of any format. It reads every header on the pool, sorts
 * the streams by rank and notes what is wrong with the set as a whole:
 * world sizes that disagree, missing ranks, ranks present twice.
 * tc_traceset_check turns the first problem into an error; commands that
 * can work with a partial set report them instead.
 */
#ifndef TC_FORMATS_TRACESET_H
#define TC_FORMATS_TRACESET_H

#include "lib/compat.h"
#include "formats/raw.h"
#include "formats/reader.h"

#include <stdatomic.h>

struct tc_error;
struct tc_pool;

/* What the set keeps of a file's header (struct tc_raw_header without its
 * long strings: a set of 65,536 files holds one copy of each distinct
 * host and writer, not 1.5 KB per file). */
struct tc_traceset_hdr {
	int32_t rank;
	int32_t world_size;
	uint64_t start_time_ns;
	uint32_t pid;
	uint32_t stack_depth;
	uint32_t flags;
	const char *host;          /* shared by the files that name the same */
	const char *writer;
	const char *clock;         /* the clock of its times (raw files: the
				    * header's; "" when it names none) */
};

struct tc_traceset_file {
	char *path;
	enum tc_format format;     /* detected or forced */
	uint32_t index;            /* rank stream inside the file (0: one per file;
				    * the world rank in a ScalaTrace trace) */
	struct tc_traceset_hdr hdr;
	uint64_t file_bytes;       /* a shared file's size is split between its streams */
};

struct tc_traceset {
	char *dir;
	unsigned flags;            /* TC_RAW_SALVAGE, passed to every read */
	enum tc_format format;     /* as asked (TC_FMT_AUTO: per file) */
	struct tc_traceset_file *files; /* sorted by rank, then path */
	size_t nfiles;
	int32_t world_size;        /* of the first file; 0 if none */
	int32_t *missing;          /* ranks below world_size with no file */
	size_t nmissing;
	int32_t *duplicates;       /* ranks with more than one file */
	size_t nduplicates;
	size_t nworld_mismatch;    /* files whose world size differs */
	int32_t ranks;             /* distinct ranks present */
	struct tc_strtab *strings; /* the hosts, writers and clocks of hdr (private) */
	/* optional: tc_traceset_each adds 1 per file read (for progress) */
	atomic_uint_least64_t *progress;
};

/* Returns 0 and a new set, or fills err (unreadable dir, no files, a file
 * whose header cannot be read). */
int tc_traceset_open(struct tc_traceset **out, const char *path, unsigned flags,
		     struct tc_pool *pool, struct tc_error *err);
/*
 * Like tc_traceset_open with a forced format (TC_FMT_AUTO detects): in a
 * directory, TC_FMT_RAW takes the *.tcr files, TC_FMT_DUMPI the rank files
 * of its .meta file, TC_FMT_SCALATRACE its ScalaTrace traces; a file is
 * read as that format. A format that does not fit is an error.
 */
int tc_traceset_open_format(struct tc_traceset **out, const char *path,
			    enum tc_format fmt, unsigned flags, struct tc_pool *pool,
			    struct tc_error *err);
/* Whether file f's start time and times are a host's clock, which the
 * host's other ranks share: a raw file's (the capture shim's), with its
 * host and clock named, not a synthetic set's. */
bool tc_traceset_host_clock(const struct tc_traceset_file *f);
/* The skews of the set's ranks (lib/skew.h), world_size of them in a new
 * array, from their files' start times and st[i].first_end (the reads'
 * statistics, in file order), when the set holds one file for every rank
 * of the world, recorded on one host on one clock (tc_traceset_host_clock);
 * else NULL. */
uint64_t *tc_traceset_skews(const struct tc_traceset *ts, const struct tc_raw_stats *st);
/* The concurrency of the ranks in their compute gaps on their host's
 * clock (lib/skew.h tc_gap_concurrency), of a set whose skews are known
 * (tc_traceset_skews): reads the files again on the pool. Fills *ns (a
 * new array) and *n, or leaves them NULL and 0 when the set has more
 * than TC_CONC_MAX_GAPS gaps; returns 0, or the error of the lowest
 * file that failed. */
#define TC_CONC_MAX_GAPS ((size_t)1 << 24)
int tc_traceset_concurrency(const struct tc_traceset *ts, struct tc_pool *pool, uint64_t **ns,
			    size_t *n, struct tc_error *err);
/* Open the rank stream of file i. */
int tc_traceset_open_file(const struct tc_traceset *ts, size_t i, struct tc_reader **r,
			  struct tc_error *err);
void tc_traceset_free(struct tc_traceset **ts);
/* 0 when the set is complete and consistent, else fills err. */
int tc_traceset_check(const struct tc_traceset *ts, struct tc_error *err);

/* "DIR/rank-00042.tcr" into buf. */
void tc_raw_rank_path(char *buf, size_t len, const char *dir, int32_t rank);

/*
 * Read every file on the pool: fn(file index, reader, ctx) is called on a
 * worker with an open reader for that file; per-file results belong in
 * ctx at that index, so the caller can reduce them in index order.
 * Returns 0, or the error of the lowest-indexed file that failed.
 */
typedef int (*tc_traceset_fn)(size_t index, struct tc_reader *r, void *ctx,
			      struct tc_error *err);
int tc_traceset_each(const struct tc_traceset *ts, struct tc_pool *pool,
		     tc_traceset_fn fn, void *ctx, struct tc_error *err);

/* ---- summary statistics (info) -------------------------------------- */

struct tc_file_stats {
	uint64_t events;
	uint64_t blocks;
	uint64_t file_bytes;
	uint64_t raw_bytes;       /* decoded payload bytes */
	uint64_t t_first, t_last; /* min t_start, max t_end, ns since file start */
	uint64_t abs_first, abs_last; /* the same on the wall clock */
	uint64_t op_counts[256];
	uint64_t msg_bytes;       /* bytes of all events */
	uint64_t *sigs;           /* distinct call-site signatures, sorted */
	size_t nsigs;
	uint64_t dropped;
	uint64_t tracer_ns;       /* the trailer's: the tracer's ns per event in the gaps */
	struct tc_tracer_op tracer_op[TC_TRACER_OPS]; /* and per op, by op */
	unsigned ntracer_op;
	bool has_trailer;
	uint64_t bad_blocks, bad_bytes;
	char salvage_msg[160];
};

/* Returns new array of ts->nfiles stats (free with tc_file_stats_free). */
int tc_traceset_stats(const struct tc_traceset *ts, struct tc_pool *pool,
		      struct tc_file_stats **out, struct tc_error *err);
void tc_file_stats_free(struct tc_file_stats *st, size_t n);
/* tc_traceset_stats on this process alone into st (ts->nfiles entries,
 * zeroed by the caller), whatever remote is set. */
int tc_traceset_stats_local(const struct tc_traceset *ts, struct tc_pool *pool,
			    struct tc_file_stats *st, struct tc_error *err);
/* Where tc_traceset_stats gets its statistics when other processes read
 * shares of the set (tracecluster-mpi, as formats/load.h's
 * tc_load_remote): stats() fills st for every file of ts, or returns the
 * error of the lowest-indexed file that failed. NULL: plain reading. */
struct tc_stats_remote {
	int (*stats)(void *self, const struct tc_traceset *ts, struct tc_pool *pool,
		     struct tc_file_stats *st, struct tc_error *err);
	void *self;
};
void tc_traceset_set_stats_remote(const struct tc_stats_remote *remote);

/*
 * Reading the files' headers when a set is opened, shared the same way:
 * headers() fills every file's hdr and file_bytes (path, format and
 * index are set), or returns the error of the lowest-indexed file that
 * failed. NULL: plain reading.
 */
struct tc_headers_remote {
	int (*headers)(void *self, struct tc_traceset *ts, struct tc_pool *pool,
		       struct tc_error *err);
	void *self;
};
void tc_traceset_set_headers_remote(const struct tc_headers_remote *remote);
/* The headers of files [first, first + n) of ts on this process; on
 * failure the lowest failing file's error, its index in *bad (may be
 * NULL). */
int tc_traceset_headers_local(struct tc_traceset *ts, size_t first, size_t n,
			      struct tc_pool *pool, size_t *bad, struct tc_error *err);
/* File i's header as another process read it (strings copied). */
void tc_traceset_set_header(struct tc_traceset *ts, size_t i, const struct tc_traceset_hdr *h,
			    uint64_t file_bytes);
/* Free the strings of a set view that is not a whole set (tcmpi). */
void tc_traceset_release_strings(struct tc_traceset *ts);

#endif
