/*
 * raw_write.c - the raw event file writer.
 *
 * Events are encoded into an in-memory block; when it holds block_bytes
 * bytes it is sealed: compressed with raw deflate, given its header and
 * CRC, and written with write(2). Pending call-site and communicator
 * records are written before the event block that follows them, so a
 * streaming reader knows a call site before its first use. Every sealed
 * block is complete on disk, so a killed process leaves a file readable up
 * to its last block.
 *
 * Out of memory is an error here, not fatal (the capture shim must not end
 * the application it traces): a record that cannot be buffered fails with
 * TC_ERR_NOMEM and leaves the writer as it was, so it can still be closed
 * with its trailer; a block that cannot be compressed is stored.
 */
#include "lib/compat.h"
#include "formats/raw.h"
#include "formats/raw_internal.h"
#include "lib/error.h"
#include "lib/file.h"
#include "lib/event.h"
#include "lib/ranklist.h"
#include "lib/varint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <libdeflate.h>

struct wbuf {
	uint8_t *p;
	size_t len, alloc;
	uint32_t records;
};

struct tc_raw_writer {
	int fd;
	char *path;       /* final name */
	char *tmp;        /* temporary name when atomic, else NULL */
	int level;
	size_t block_bytes;
	int32_t rank;
	struct wbuf ev, cs, cm;
	struct tc_raw_delta delta;
	uint64_t block_base;  /* prev_start at the start of the event block */
	uint32_t seq;
	uint64_t events, dropped, t_last;
	uint64_t tracer_ns;  /* the trailer's optional fifth field (0: none) */
	uint64_t tracer_op[TC_OP_MAX][2]; /* its optional sixth: ns, calls (0: none) */
	unsigned tracer_ops; /* ops with calls there */
	uint8_t *zbuf;
	size_t zalloc;
	struct libdeflate_compressor *zs;  /* made at the first block compressed */
	bool failed;
	uint64_t off;     /* bytes written, up to the end of the last whole block */
};

static int nomem(struct tc_error *err, size_t n)
{
	return tc_error_set(err, TC_ERR_NOMEM, NULL, -1, "out of memory (allocating %zu bytes)", n);
}

/*
 * A buffer's first allocation. The table buffers (call sites, communicators)
 * are emptied whenever an event block is sealed, and when that happens
 * depends on the events' time fields, so a buffer that started small grew
 * or not with the machine's timing; the shim's allocations then differed
 * between runs of one program. Tables of up to this many bytes between two
 * blocks (nearly every program's) now cost one allocation, whatever the timing.
 */
#define WBUF_FIRST 4096

/* Room for extra more bytes in b; b stays as it was if there is no memory. */
static int wbuf_reserve(struct wbuf *b, size_t extra, struct tc_error *err)
{
	size_t need = b->len + extra, na = b->alloc ? b->alloc : WBUF_FIRST;
	uint8_t *p;

	if (need <= b->alloc)
		return 0;
	while (na < need)
		na *= 2;
	p = realloc(b->p, na);
	if (!p)
		return nomem(err, na);
	b->p = p;
	b->alloc = na;
	return 0;
}

static int write_all(struct tc_raw_writer *w, const uint8_t *p, size_t n,
		     struct tc_error *err)
{
	while (n) {
		ssize_t k = write(w->fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			w->failed = true;
			return tc_error_sys(err, w->tmp ? w->tmp : w->path, "write");
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A block's header and payload with one writev(2): a process killed
 * while writing (a scheduler's SIGKILL after its SIGTERM) leaves whole
 * blocks, not a header without its payload; a short write (a full disk)
 * goes on with write_all. */
static int write_whole(struct tc_raw_writer *w, const uint8_t *hdr, size_t hlen,
		       const uint8_t *payload, size_t plen, struct tc_error *err)
{
	struct iovec iov[2] = { { (void *)hdr, hlen }, { (void *)payload, plen } };
	ssize_t k;

	do
		k = writev(w->fd, iov, plen ? 2 : 1);
	while (k < 0 && errno == EINTR);
	if (k < 0) {
		w->failed = true;
		return tc_error_sys(err, w->tmp ? w->tmp : w->path, "write");
	}
	if ((size_t)k < hlen)
		return write_all(w, hdr + k, hlen - (size_t)k, err) ||
		       write_all(w, payload, plen, err) ? TC_ERR_IO : 0;
	return write_all(w, payload + ((size_t)k - hlen), plen - ((size_t)k - hlen), err);
}

/*
 * Raw deflate of a whole block in one call (libdeflate: about twice as
 * fast as zlib at level 1 on event blocks, and smaller); -1 when it would
 * not be smaller, or out of memory: the block is stored instead.
 */
static int compress_payload(struct tc_raw_writer *w, const uint8_t *in, size_t len,
			    const uint8_t **out, size_t *outlen)
{
	size_t n;

	if (!w->zs && !(w->zs = libdeflate_alloc_compressor(w->level)))
		return -1;
	if (len > w->zalloc) {
		uint8_t *z = realloc(w->zbuf, len);
		if (!z)
			return -1;
		w->zbuf = z;
		w->zalloc = len;
	}
	/* 0 when the output does not fit in len - 1 bytes: not worth it */
	n = libdeflate_deflate_compress(w->zs, in, len, w->zbuf, len - 1);
	if (!n)
		return -1;
	*out = w->zbuf;
	*outlen = n;
	return 0;
}

static int write_block(struct tc_raw_writer *w, uint8_t type, const uint8_t *payload,
		       size_t len, uint32_t records, uint64_t base_time,
		       struct tc_error *err)
{
	struct tc_raw_block_header h = { 0 };
	uint8_t hdr[TC_RAW_BLOCK_HEADER];
	const uint8_t *stored = payload;
	size_t stored_len = len;
	int rc;

	if (w->failed)
		return tc_error_set(err, TC_ERR_IO, w->path, -1, "writer failed earlier");
	if (len > TC_RAW_MAX_BLOCK)
		return tc_error_set(err, TC_ERR, w->path, -1, "block too large (%zu bytes)", len);
	h.type = type;
	h.encoding = TC_ENC_STORED;
	if (w->level > 0 && type != TC_BLK_HEADER && len > 0) {
		const uint8_t *z;
		size_t zlen;
		if (compress_payload(w, payload, len, &z, &zlen) == 0) {
			stored = z;
			stored_len = zlen;
			h.encoding = TC_ENC_DEFLATE;
		}
	}
	h.stored_len = (uint32_t)stored_len;
	h.raw_len = (uint32_t)len;
	h.records = records;
	h.base_time = base_time;
	h.seq = w->seq++;
	tc_raw_pack_block_header(hdr, &h);
	h.crc = tc_raw_block_crc(hdr, stored, stored_len);
	tc_raw_pack_block_header(hdr, &h);
	rc = write_whole(w, hdr, sizeof(hdr), stored, stored_len, err);
	if (rc) {
		/* a full disk: leave the file ending on its last whole block
		 * (and give its space back to the other ranks) */
		if (ftruncate(w->fd, (off_t)w->off) < 0)
			w->failed = true;
		return rc;
	}
	w->off += sizeof(hdr) + stored_len;
	return 0;
}

static int seal_tables(struct tc_raw_writer *w, struct tc_error *err)
{
	int rc = 0;

	if (w->cs.records) {
		rc = write_block(w, TC_BLK_CALLSITES, w->cs.p, w->cs.len, w->cs.records, 0, err);
		w->cs.len = 0;
		w->cs.records = 0;
	}
	if (!rc && w->cm.records) {
		rc = write_block(w, TC_BLK_COMMS, w->cm.p, w->cm.len, w->cm.records, 0, err);
		w->cm.len = 0;
		w->cm.records = 0;
	}
	return rc;
}

static int seal_events(struct tc_raw_writer *w, struct tc_error *err)
{
	int rc = seal_tables(w, err);

	if (rc || !w->ev.records)
		return rc;
	rc = write_block(w, TC_BLK_EVENTS, w->ev.p, w->ev.len, w->ev.records,
			 w->block_base, err);
	w->ev.len = 0;
	w->ev.records = 0;
	/* the next block decodes on its own: its base is where we are now */
	w->block_base = w->delta.prev_start;
	w->delta.prev_request = 0;
	return rc;
}

static size_t encode_header(uint8_t *p0, const struct tc_raw_header *h)
{
	uint8_t *p = p0;

	p = tc_varint_put(p, (uint64_t)h->rank);
	p = tc_varint_put(p, (uint64_t)h->world_size);
	p = tc_varint_put(p, h->start_time_ns);
	p = tc_varint_put(p, h->pid);
	p = tc_varint_put(p, h->stack_depth);
	p = tc_varint_put(p, h->flags);
	p = tc_raw_put_string(p, h->job_id, strnlen(h->job_id, sizeof(h->job_id)));
	p = tc_raw_put_string(p, h->host, strnlen(h->host, sizeof(h->host)));
	p = tc_raw_put_string(p, h->clock, strnlen(h->clock, sizeof(h->clock)));
	p = tc_raw_put_string(p, h->program, strnlen(h->program, sizeof(h->program)));
	p = tc_raw_put_string(p, h->writer, strnlen(h->writer, sizeof(h->writer)));
	return (size_t)(p - p0);
}

int tc_raw_writer_open(struct tc_raw_writer **out, const char *path,
		       const struct tc_raw_header *hdr,
		       const struct tc_raw_writer_opts *opts, struct tc_error *err)
{
	struct tc_raw_writer *w;
	uint8_t fh[TC_RAW_FILE_HEADER] = { 0 };
	uint8_t hb[2048];
	size_t hlen;
	const char *name;

	*out = NULL;
	if (hdr->rank < 0 || hdr->world_size <= 0 || hdr->rank >= hdr->world_size)
		return tc_error_set(err, TC_ERR_USAGE, path, -1,
				    "rank %d outside world of %d", hdr->rank, hdr->world_size);
	w = calloc(1, sizeof(*w));
	if (w)
		w->path = strdup(path);
	if (!w || !w->path) {
		free(w);
		return nomem(err, sizeof(*w) + strlen(path) + 1);
	}
	w->level = 1;
	if (opts && opts->level < 0)
		w->level = 0;
	else if (opts && opts->level > 0)
		w->level = opts->level > 9 ? 9 : opts->level;
	w->block_bytes = opts && opts->block_bytes ? opts->block_bytes : 256 * 1024;
	if (w->block_bytes > TC_RAW_MAX_BLOCK / 2)
		w->block_bytes = TC_RAW_MAX_BLOCK / 2;
	w->rank = hdr->rank;
	w->delta.rank = hdr->rank;
	if (opts && opts->atomic) {
		w->fd = tc_tmp_create(path, &w->tmp, err);
		name = w->tmp ? w->tmp : path;
	} else {
		name = w->path;
		w->fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC |
				   (opts && opts->exclusive ? O_EXCL | O_NOFOLLOW : O_TRUNC), 0644);
	}
	if (w->fd < 0) {
		if (!opts || !opts->atomic)
			tc_error_sys(err, name, "create");
		free(w->tmp);
		free(w->path);
		free(w);
		return TC_ERR_IO;
	}
	memcpy(fh, TC_RAW_MAGIC, TC_RAW_MAGIC_LEN);
	fh[8] = TC_RAW_VERSION_MAJOR;
	fh[9] = 0;
	fh[10] = TC_RAW_VERSION_MINOR;
	fh[11] = 0;
	hlen = encode_header(hb, hdr);
	if (write_all(w, fh, sizeof(fh), err) || (w->off = sizeof(fh), false) ||
	    write_block(w, TC_BLK_HEADER, hb, hlen, 1, 0, err)) {
		tc_raw_writer_abort(&w);
		return TC_ERR_IO;
	}
	*out = w;
	return 0;
}

int tc_raw_writer_event(struct tc_raw_writer *w, const struct tc_event *ev,
			struct tc_error *err)
{
	size_t need = tc_raw_event_max_size(ev);
	uint8_t *p;

	if (!tc_op_valid(ev->op))
		return tc_error_set(err, TC_ERR_USAGE, w->path, -1, "bad op number %u", ev->op);
	if (need > TC_RAW_MAX_BLOCK / 2)
		return tc_error_set(err, TC_ERR_USAGE, w->path, -1, "event too large");
	if (w->ev.len && w->ev.len + need > TC_RAW_MAX_BLOCK / 2) {
		int rc = seal_events(w, err);
		if (rc)
			return rc;
	}
	if (wbuf_reserve(&w->ev, need, err))
		return TC_ERR_NOMEM;
	p = tc_raw_encode_event(w->ev.p + w->ev.len, ev, &w->delta);
	w->ev.len = (size_t)(p - w->ev.p);
	w->ev.records++;
	w->events++;
	if (ev->t_end > w->t_last)
		w->t_last = ev->t_end;
	if (w->ev.len >= w->block_bytes)
		return seal_events(w, err);
	return 0;
}

int tc_raw_writer_callsite(struct tc_raw_writer *w, const struct tc_callsite *cs,
			   struct tc_error *err)
{
	size_t need = 64;
	uint32_t nf = cs->nframes > TC_RAW_MAX_FRAMES ? TC_RAW_MAX_FRAMES : cs->nframes;
	uint8_t *p;

	for (uint32_t i = 0; i < nf; i++) {
		const struct tc_frame *fr = &cs->frames[i];
		need += 3 * TC_VARINT_MAX + TC_MIN(strlen(fr->module ? fr->module : ""), TC_RAW_MAX_STRING) +
			TC_MIN(strlen(fr->symbol ? fr->symbol : ""), TC_RAW_MAX_STRING);
	}
	if (wbuf_reserve(&w->cs, need, err))
		return TC_ERR_NOMEM;
	p = w->cs.p + w->cs.len;
	p = tc_varint_put(p, cs->id);
	tc_put_le64(p, cs->signature);
	p += 8;
	p = tc_varint_put(p, nf);
	for (uint32_t i = 0; i < nf; i++) {
		const struct tc_frame *fr = &cs->frames[i];
		const char *m = fr->module ? fr->module : "";
		const char *s = fr->symbol ? fr->symbol : "";
		p = tc_raw_put_string(p, m, strlen(m));
		p = tc_varint_put(p, fr->offset);
		p = tc_raw_put_string(p, s, strlen(s));
	}
	w->cs.len = (size_t)(p - w->cs.p);
	w->cs.records++;
	return 0;
}

static size_t put_run(const struct tc_run *r, uint8_t **p)
{
	if (p) {
		*p = tc_svarint_put(*p, r->start);
		*p = tc_varint_put(*p, r->len);
		*p = tc_svarint_put(*p, r->stride);
	}
	return 1;
}

/*
 * The members of c as the runs of tc_ranklist_from_array (0..size-1 when
 * members is NULL), without a list in memory: counted, and written at *p
 * when p is not NULL.
 */
static size_t member_runs(const struct tc_comm *c, uint8_t **p)
{
	struct tc_run run = { 0, c->size, 1 };
	size_t n = 0;

	if (c->members) {
		run.len = 0;
		for (uint32_t i = 0; i < c->size; i++) {
			if (run.len && tc_ranklist_extend(&run, c->members[i]))
				continue;
			if (run.len)
				n += put_run(&run, p);
			run.start = c->members[i];
			run.len = 1;
			run.stride = 1;
		}
	}
	if (run.len)
		n += put_run(&run, p);
	return n;
}

int tc_raw_writer_comm(struct tc_raw_writer *w, const struct tc_comm *c,
		       struct tc_error *err)
{
	uint8_t *p;
	uint32_t nd = c->ndims > 8 ? 8 : c->ndims;
	size_t nruns = member_runs(c, NULL), nedges = tc_comm_edge_words(c);

	if (wbuf_reserve(&w->cm, (11 + 3 * nruns + nd + nedges) * TC_VARINT_MAX, err))
		return TC_ERR_NOMEM;
	p = w->cm.p + w->cm.len;
	p = tc_varint_put(p, c->id);
	p = tc_varint_put(p, c->parent);
	p = tc_varint_put(p, c->creator);
	p = tc_varint_put(p, c->size);
	p = tc_varint_put(p, nruns);
	member_runs(c, &p);
	p = tc_varint_put(p, nd);
	for (uint32_t i = 0; i < nd; i++)
		p = tc_svarint_put(p, c->dims[i]);
	p = tc_varint_put(p, c->periods);
	/* minor version 1: the graph topology */
	p = tc_varint_put(p, (c->graph ? 1u : 0u) | (c->graph && c->weighted ? 2u : 0u));
	if (c->graph) {
		p = tc_varint_put(p, c->nin);
		p = tc_varint_put(p, c->nout);
		for (size_t i = 0; i < nedges; i++)
			p = tc_svarint_put(p, c->edges[i]);
	}
	w->cm.len = (size_t)(p - w->cm.p);
	w->cm.records++;
	return 0;
}

void tc_raw_writer_drop(struct tc_raw_writer *w, uint64_t n)
{
	w->dropped += n;
}

void tc_raw_writer_set_tracer_ns(struct tc_raw_writer *w, uint64_t ns)
{
	w->tracer_ns = ns;
}

void tc_raw_writer_set_tracer_op(struct tc_raw_writer *w, unsigned op, uint64_t ns,
				 uint64_t calls)
{
	/* what readers take: an op, a second at most, calls they can count */
	if (!op || op >= TC_OP_MAX)
		return;
	if (calls > TC_TRACER_CALLS_MAX)
		calls = TC_TRACER_CALLS_MAX;
	w->tracer_ops += (unsigned)!w->tracer_op[op][1] - (unsigned)!calls;
	w->tracer_op[op][0] = calls ? TC_MIN(ns, TC_TRACER_NS_MAX) : 0;
	w->tracer_op[op][1] = calls;
}

uint64_t tc_raw_writer_events(const struct tc_raw_writer *w)
{
	return w->events;
}

int tc_raw_writer_flush(struct tc_raw_writer *w, struct tc_error *err)
{
	return seal_events(w, err);
}

static void writer_free(struct tc_raw_writer *w)
{
	libdeflate_free_compressor(w->zs);
	free(w->zbuf);
	free(w->ev.p);
	free(w->cs.p);
	free(w->cm.p);
	free(w->tmp);
	free(w->path);
	free(w);
}

int tc_raw_writer_close(struct tc_raw_writer **wp, struct tc_error *err)
{
	struct tc_raw_writer *w = *wp;
	uint8_t tb[(6 + 3 * TC_OP_MAX) * TC_VARINT_MAX], *p = tb;
	int rc;

	if (!w)
		return 0;
	*wp = NULL;
	rc = seal_events(w, err);
	if (!rc) {
		p = tc_varint_put(p, w->events);
		p = tc_varint_put(p, w->seq); /* blocks before the trailer */
		p = tc_varint_put(p, w->dropped);
		p = tc_varint_put(p, w->t_last);
		/* optional: readers of minor version 1 before it read four */
		if (w->tracer_ns || w->tracer_ops)
			p = tc_varint_put(p, w->tracer_ns);
		/* optional too, the same per op: readers before it stop at
		 * the fifth */
		if (w->tracer_ops) {
			p = tc_varint_put(p, w->tracer_ops);
			for (unsigned op = 0; op < TC_OP_MAX; op++) {
				if (!w->tracer_op[op][1])
					continue;
				p = tc_varint_put(p, op);
				p = tc_varint_put(p, w->tracer_op[op][0]);
				p = tc_varint_put(p, w->tracer_op[op][1]);
			}
		}
		rc = write_block(w, TC_BLK_TRAILER, tb, (size_t)(p - tb), 1, 0, err);
	}
	if (w->tmp) {
		if (rc)
			tc_tmp_abort(w->fd, &w->tmp);
		else
			rc = tc_tmp_commit(w->fd, &w->tmp, w->path, err);
	} else if (close(w->fd) < 0 && !rc) {
		rc = tc_error_sys(err, w->path, "close");
	}
	writer_free(w);
	return rc;
}

void tc_raw_writer_abort(struct tc_raw_writer **wp)
{
	struct tc_raw_writer *w = *wp;

	if (!w)
		return;
	*wp = NULL;
	close(w->fd);
	if (w->tmp)
		unlink(w->tmp);
	writer_free(w);
}
