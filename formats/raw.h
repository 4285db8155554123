/*
 * raw.h - the raw per-rank event file (rank-NNNNN.tcr).
 *
 * Specified in formats/raw.md and tracecluster-raw(5). A file is a 16-byte
 * file header followed by blocks; each block has a 32-byte header carrying
 * its type, lengths, record count and a CRC-32, and a payload that is
 * either stored or raw-deflate compressed. Event records are delta and
 * varint encoded, each block decodable on its own.
 *
 * The writer is used by the capture shim and by synth; the reader streams
 * records to callbacks and never holds more than one block.
 */
#ifndef TC_FORMATS_RAW_H
#define TC_FORMATS_RAW_H

#include "lib/compat.h"
#include "lib/event.h"

struct tc_error;
struct tc_event;
struct tc_callsite;
struct tc_comm;

#define TC_RAW_MAGIC "\211TCRAW\r\n"   /* 8 bytes */
#define TC_RAW_MAGIC_LEN 8
#define TC_RAW_VERSION_MAJOR 1
#define TC_RAW_VERSION_MINOR 1
#define TC_RAW_FILE_HEADER 16
#define TC_RAW_BLOCK_HEADER 32
/* Hard caps: anything larger in a file is corruption, not data. */
#define TC_RAW_MAX_BLOCK (64u << 20)
#define TC_RAW_MAX_STRING 4096u
#define TC_RAW_MAX_FRAMES 256u
#define TC_RAW_MAX_ARRAY (1u << 24)

enum tc_raw_block_type {
	TC_BLK_HEADER = 'H',
	TC_BLK_EVENTS = 'E',
	TC_BLK_CALLSITES = 'C',
	TC_BLK_COMMS = 'M',
	TC_BLK_TRAILER = 'Z',
};

struct tc_raw_header {
	int32_t rank;
	int32_t world_size;
	uint64_t start_time_ns;   /* wall clock (ns since the epoch) at time 0 */
	uint32_t pid;
	uint32_t stack_depth;     /* frames captured per call site */
	uint32_t flags;
	char job_id[128];         /* batch job id, or "" */
	char host[256];
	char clock[32];           /* clock source of event times */
	char program[1024];       /* command line of the traced program */
	char writer[64];          /* "tracecluster-capture 0.1.0", "tracecluster-synth 0.1.0" */
	uint16_t version_major;   /* filled by the reader */
	uint16_t version_minor;
};

/* Totals written in the trailer block at a clean close. */
struct tc_raw_trailer {
	uint64_t events;
	uint64_t blocks;          /* blocks before the trailer */
	uint64_t dropped;         /* events the writer could not record */
	uint64_t t_last;          /* largest t_end */
	/* the writer's own time outside a call's recorded start and end
	 * (its entry before the one, all it does after the other), ns per
	 * event, mean (0: not measured); the compute gaps of the file hold
	 * it besides the program's computing */
	uint64_t tracer_ns;
	/* the same per op for the ops measured, TC_TRACER_OPS at most (those
	 * of the most calls), by op: its mean and the calls it stands for
	 * (tracer_ns is the means weighted by the calls) */
	struct tc_tracer_op tracer_op[TC_TRACER_OPS];
	unsigned ntracer_op;
};

/* ---- writer ----------------------------------------------------------- */

/* The tracer's ns per call in the gaps over several files: their
 * trailers' tracer_ns weighted by their events, added in file order (the
 * same order gives the same bytes). A file that did not measure it, or
 * whose value is beyond TC_TRACER_NS_MAX (a damaged trailer), counts as
 * none; the mean is 0 when none did. */
struct tc_tracer_mean {
	double sum, events;
};
void tc_tracer_mean_add(struct tc_tracer_mean *m, uint64_t tracer_ns, uint64_t events);
uint64_t tc_tracer_mean_get(const struct tc_tracer_mean *m);
/* The same per op: each op's means over the files weighted by their calls
 * (an op's calls summed), in file order. */
struct tc_tracer_ops {
	double sum[TC_OP_MAX], calls[TC_OP_MAX];
};
void tc_tracer_ops_add(struct tc_tracer_ops *m, const struct tc_tracer_op *ops, size_t n);
/* The TC_TRACER_OPS of ops[0..n) of the most calls (ops reordered), by op,
 * into out; returns how many. */
size_t tc_tracer_ops_most(struct tc_tracer_op *ops, size_t n, struct tc_tracer_op *out);
/* The ops measured, by op, into out (TC_OP_MAX at most); returns how many. */
size_t tc_tracer_ops_get(const struct tc_tracer_ops *m, struct tc_tracer_op *out);

struct tc_raw_writer;

struct tc_raw_writer_opts {
	int level;              /* deflate level 1-9; 0 = default (1); < 0 stores blocks */
	size_t block_bytes;     /* seal a block at this many encoded bytes (default 256 KiB) */
	bool atomic;            /* write PATH.tmp.XXXXXX and rename at close */
	bool exclusive;         /* not atomic: fail if PATH exists or is a symlink */
};

/* Returns 0 and a new writer in *out, or a negative code with err filled. */
int tc_raw_writer_open(struct tc_raw_writer **out, const char *path,
		       const struct tc_raw_header *hdr,
		       const struct tc_raw_writer_opts *opts, struct tc_error *err);
int tc_raw_writer_event(struct tc_raw_writer *w, const struct tc_event *ev,
			struct tc_error *err);
/* Define (or redefine, e.g. with symbols added) call site cs->id. */
int tc_raw_writer_callsite(struct tc_raw_writer *w, const struct tc_callsite *cs,
			   struct tc_error *err);
int tc_raw_writer_comm(struct tc_raw_writer *w, const struct tc_comm *c,
		       struct tc_error *err);
/* Count an event that could not be recorded (reported in the trailer). */
void tc_raw_writer_drop(struct tc_raw_writer *w, uint64_t n);
/* The tracer's time per event inside the compute gaps (the trailer's
 * tracer_ns; not written when 0). */
void tc_raw_writer_set_tracer_ns(struct tc_raw_writer *w, uint64_t ns);
/* The tracer's mean time in the gaps after the calls of op, ns, over its
 * calls (the trailer's tracer_op; not written when calls is 0). */
void tc_raw_writer_set_tracer_op(struct tc_raw_writer *w, unsigned op, uint64_t ns,
				 uint64_t calls);
/* Seal and write every pending block. */
int tc_raw_writer_flush(struct tc_raw_writer *w, struct tc_error *err);
/* Flush, write the trailer, close (and rename when atomic); frees *w and
 * sets it to NULL, also on failure. */
int tc_raw_writer_close(struct tc_raw_writer **w, struct tc_error *err);
/* Close without a trailer and remove the temporary file when atomic. */
void tc_raw_writer_abort(struct tc_raw_writer **w);
uint64_t tc_raw_writer_events(const struct tc_raw_writer *w);

struct tc_synth_opts;
/* Write rank's records of the synthetic workload o (lib/synth.h) as the
 * raw file path with header hdr; *events (may be NULL): the events
 * written. On failure nothing is left at path when opts->atomic. */
int tc_raw_write_synth(const char *path, const struct tc_raw_header *hdr,
		       const struct tc_raw_writer_opts *opts, const struct tc_synth_opts *o,
		       int32_t rank, uint64_t *events, struct tc_error *err);

/* ---- reader ----------------------------------------------------------- */

/*
 * Callbacks of a streaming read. Each may be NULL. Pointers are borrowed
 * and valid during the call only. A non-zero return stops the read, which
 * then returns TC_ERR_STOP.
 */
struct tc_read_ops {
	int (*event)(void *ctx, const struct tc_event *ev);
	int (*callsite)(void *ctx, const struct tc_callsite *cs);
	int (*comm)(void *ctx, const struct tc_comm *c);
};

enum {
	TC_RAW_SALVAGE = 1u << 0, /* skip damaged blocks and a truncated tail */
};

/* What a read saw, for reports; filled by tc_raw_read. */
struct tc_raw_stats {
	uint64_t events;
	uint64_t blocks;
	uint64_t bad_blocks;      /* damaged blocks skipped (salvage) */
	uint64_t bad_bytes;       /* bytes skipped (salvage) */
	int64_t first_error;      /* offset of the first damage, -1 if none */
	char first_error_msg[160];
	bool has_trailer;
	struct tc_raw_trailer trailer;
	uint64_t file_bytes;
	uint64_t payload_bytes;   /* stored payload bytes of all good blocks */
	uint64_t raw_bytes;       /* decoded payload bytes of all good blocks */
	uint64_t first_end;       /* the end of the first event read, ns since the
				   * file's start (its MPI_Init's); 0: none read */
};

/* The tracer's time in the gaps of files whose statistics are st[0..n),
 * in file order: returns the mean (tc_tracer_mean), and in a new array
 * *ops (TC_OP_MAX entries, the caller frees it) the means per op, *nops
 * of them (tc_tracer_ops). */
uint64_t tc_tracer_of_stats(const struct tc_raw_stats *st, size_t n, struct tc_tracer_op **ops,
			    size_t *nops);

struct tc_raw_reader;

/* Open path and read its file header and header block. */
int tc_raw_open(struct tc_raw_reader **out, const char *path, unsigned flags,
		struct tc_error *err);
const struct tc_raw_header *tc_raw_get_header(const struct tc_raw_reader *r);
/* Stream every record to ops. */
int tc_raw_read(struct tc_raw_reader *r, const struct tc_read_ops *ops, void *ctx,
		struct tc_raw_stats *stats, struct tc_error *err);
void tc_raw_close(struct tc_raw_reader **r);

/* Whether the first bytes of a file are the raw magic. */
bool tc_raw_probe(const void *buf, size_t len);

#endif
