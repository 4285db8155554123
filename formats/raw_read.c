/*
 * raw_read.c - the streaming raw event file reader.
 *
 * Reads one block at a time with pread(2), checks its header against hard
 * caps and its CRC before trusting anything in it, inflates it and decodes
 * its records straight into the callbacks. Every size read from the file
 * is checked against what the file and the block can hold.
 */
#include "lib/compat.h"
#include "formats/raw.h"
#include "formats/raw_internal.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/varint.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

#define TC_MAX_WORLD (1 << 24)

struct tc_raw_reader {
	int fd;
	char *path;
	unsigned flags;
	struct tc_raw_header hdr;
	uint64_t size;        /* file size */
	uint64_t data_off;    /* first block after the header block */
	uint8_t *zbuf;
	size_t zalloc;
	uint8_t *raw;
	size_t rawalloc;
	struct libdeflate_decompressor *zs;
	/* the bytes last read ahead: [win_off, win_off + win_len); a
	 * READ_WINDOW once the events are read, HEAD_WINDOW before */
	bool readahead;
	uint8_t *win;
	uint64_t win_off;
	size_t win_len;
	struct tc_raw_scratch scratch;
	/* call-site decoding */
	struct tc_frame *frames;
	size_t frames_alloc;
	struct tc_strbuf_lite { char *p; size_t len, alloc; } strs;
	int32_t *members;
	size_t members_alloc;
	int32_t *edges;
	size_t edges_alloc;
};

bool tc_raw_probe(const void *buf, size_t len)
{
	return len >= TC_RAW_MAGIC_LEN && !memcmp(buf, TC_RAW_MAGIC, TC_RAW_MAGIC_LEN);
}

static int pread_all(struct tc_raw_reader *r, void *buf, size_t n, uint64_t off,
		     struct tc_error *err)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t k = pread(r->fd, p, n, (off_t)off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return tc_error_sys(err, r->path, "read");
		}
		if (k == 0)
			return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
					    "unexpected end of file");
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* Blocks are read ahead a window at a time: a block's header and payload,
 * and the small blocks after them, cost one system call, not two each.
 * Before the events are read (opening reads just the header) the window
 * is small: the file header and the header block in one call. */
#define READ_WINDOW ((size_t)64 << 10)
#define HEAD_WINDOW ((size_t)4 << 10)

static int read_at(struct tc_raw_reader *r, void *buf, size_t n, uint64_t off,
		   struct tc_error *err)
{
	size_t want, cap;
	ssize_t k;

	if (off >= r->win_off && off - r->win_off <= r->win_len &&
	    n <= r->win_len - (size_t)(off - r->win_off)) {
		memcpy(buf, r->win + (off - r->win_off), n);
		return 0;
	}
	cap = r->readahead ? READ_WINDOW : HEAD_WINDOW;
	if (n >= cap / 2 || off >= r->size)
		return pread_all(r, buf, n, off, err);
	want = r->size - off < cap ? (size_t)(r->size - off) : cap;
	if (!r->win)
		r->win = tc_xmalloc(READ_WINDOW);
	r->win_len = 0;
	r->win_off = off;
	while (r->win_len < want) {
		k = pread(r->fd, r->win + r->win_len, want - r->win_len, (off_t)(off + r->win_len));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return tc_error_sys(err, r->path, "read");
		if (k == 0)
			break;
		r->win_len += (size_t)k;
	}
	if (r->win_len < n)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)(off + r->win_len),
				    "unexpected end of file");
	memcpy(buf, r->win, n);
	return 0;
}

/* Blocks are whole raw-deflate streams of known decoded length: one call
 * of libdeflate's whole-buffer decompressor, which must fill out exactly
 * and use every stored byte. */
static int inflate_payload(struct tc_raw_reader *r, const uint8_t *in, size_t len,
			   uint8_t *out, size_t outlen)
{
	size_t used = 0;

	if (!r->zs) {
		r->zs = libdeflate_alloc_decompressor();
		if (!r->zs)
			return -1;
	}
	if (libdeflate_deflate_decompress_ex(r->zs, in, len, out, outlen, &used, NULL) !=
	    LIBDEFLATE_SUCCESS)
		return -1;
	return used == len ? 0 : -1;
}


/*
 * Load and check the block at off. On success *payload points to the
 * decoded bytes (h->raw_len of them) and *next is the offset after it.
 */
static int load_block(struct tc_raw_reader *r, uint64_t off, struct tc_raw_block_header *h,
		      const uint8_t **payload, uint64_t *next, struct tc_error *err)
{
	uint8_t hb[TC_RAW_BLOCK_HEADER];
	int rc;

	if (r->size - off < TC_RAW_BLOCK_HEADER)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
				    "truncated block header (%" PRIu64 " of %d bytes)",
				    r->size - off, TC_RAW_BLOCK_HEADER);
	rc = read_at(r, hb, sizeof(hb), off, err);
	if (rc)
		return rc;
	if (!tc_raw_unpack_block_header(hb, h))
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
				    "bad block magic");
	if (h->encoding > TC_ENC_DEFLATE)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off + 3,
				    "unknown block encoding %u", h->encoding);
	if (h->stored_len > TC_RAW_MAX_BLOCK || h->raw_len > TC_RAW_MAX_BLOCK)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off + 4,
				    "absurd block size (%u stored, %u decoded bytes)",
				    h->stored_len, h->raw_len);
	if (h->encoding == TC_ENC_STORED && h->stored_len != h->raw_len)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off + 4,
				    "stored block lengths differ");
	if (h->records > h->raw_len)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off + 12,
				    "absurd record count %u for %u bytes", h->records,
				    h->raw_len);
	if (r->size - off - TC_RAW_BLOCK_HEADER < h->stored_len)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
				    "truncated block (needs %u bytes, file has %" PRIu64 ")",
				    h->stored_len, r->size - off - TC_RAW_BLOCK_HEADER);
	/* one byte more, so that an empty block still has a payload pointer:
	 * callers compute payload + length, undefined on NULL */
	TC_ALLOC_GROW(r->zbuf, (size_t)h->stored_len + 1, r->zalloc);
	rc = read_at(r, r->zbuf, h->stored_len, off + TC_RAW_BLOCK_HEADER, err);
	if (rc)
		return rc;
	if (tc_raw_block_crc(hb, r->zbuf, h->stored_len) != h->crc)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
				    "block checksum mismatch");
	if (h->encoding == TC_ENC_DEFLATE) {
		TC_ALLOC_GROW(r->raw, (size_t)h->raw_len + 1, r->rawalloc);
		if (inflate_payload(r, r->zbuf, h->stored_len, r->raw, h->raw_len))
			return tc_error_set(err, TC_ERR_FORMAT, r->path,
					    (int64_t)off + TC_RAW_BLOCK_HEADER,
					    "corrupt compressed block");
		*payload = r->raw;
	} else {
		*payload = r->zbuf;
	}
	*next = off + TC_RAW_BLOCK_HEADER + h->stored_len;
	return 0;
}

static int decode_header(struct tc_raw_reader *r, const uint8_t *p, const uint8_t *end,
			 uint64_t off, struct tc_error *err)
{
	struct tc_raw_header *h = &r->hdr;
	uint64_t v[6];

	for (int i = 0; i < 6; i++) {
		p = tc_varint_get(p, end, &v[i]);
		if (!p)
			goto bad;
	}
	if (v[1] == 0 || v[1] > TC_MAX_WORLD)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
				    "absurd world size %" PRIu64, v[1]);
	if (v[0] >= v[1])
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
				    "rank %" PRIu64 " outside world of %" PRIu64, v[0], v[1]);
	h->rank = (int32_t)v[0];
	h->world_size = (int32_t)v[1];
	h->start_time_ns = v[2];
	h->pid = (uint32_t)v[3];
	h->stack_depth = (uint32_t)v[4];
	h->flags = (uint32_t)v[5];
	if (!(p = tc_raw_get_string(p, end, h->job_id, sizeof(h->job_id))) ||
	    !(p = tc_raw_get_string(p, end, h->host, sizeof(h->host))) ||
	    !(p = tc_raw_get_string(p, end, h->clock, sizeof(h->clock))) ||
	    !(p = tc_raw_get_string(p, end, h->program, sizeof(h->program))) ||
	    !(p = tc_raw_get_string(p, end, h->writer, sizeof(h->writer))))
		goto bad;
	/* later minor versions may append fields: ignore the rest */
	return 0;
bad:
	return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
			    "malformed header block");
}

int tc_raw_open(struct tc_raw_reader **out, const char *path, unsigned flags,
		struct tc_error *err)
{
	struct tc_raw_reader *r;
	uint8_t fh[TC_RAW_FILE_HEADER];
	struct stat st;
	struct tc_raw_block_header h;
	const uint8_t *payload;
	uint64_t next;
	int rc;

	*out = NULL;
	r = tc_xcalloc(1, sizeof(*r));
	r->path = tc_xstrdup(path);
	r->flags = flags;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		rc = tc_error_sys(err, path, "open");
		goto fail;
	}
	if (fstat(r->fd, &st) < 0) {
		rc = tc_error_sys(err, path, "stat");
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = tc_error_set(err, TC_ERR_FORMAT, path, -1, "not a regular file");
		goto fail;
	}
	r->size = (uint64_t)st.st_size;
	if (r->size < TC_RAW_FILE_HEADER) {
		rc = tc_error_set(err, TC_ERR_FORMAT, path, 0,
				  r->size ? "truncated file header" : "empty file");
		goto fail;
	}
	rc = read_at(r, fh, sizeof(fh), 0, err);
	if (rc)
		goto fail;
	if (!tc_raw_probe(fh, sizeof(fh))) {
		rc = tc_error_set(err, TC_ERR_FORMAT, path, 0,
				  "not a tracecluster raw trace (bad magic)");
		goto fail;
	}
	r->hdr.version_major = (uint16_t)(fh[8] | fh[9] << 8);
	r->hdr.version_minor = (uint16_t)(fh[10] | fh[11] << 8);
	if (r->hdr.version_major != TC_RAW_VERSION_MAJOR) {
		rc = tc_error_set(err, TC_ERR_VERSION, path, 8,
				  "unsupported format version %u.%u (this reader knows %d.x)",
				  r->hdr.version_major, r->hdr.version_minor,
				  TC_RAW_VERSION_MAJOR);
		goto fail;
	}
	rc = load_block(r, TC_RAW_FILE_HEADER, &h, &payload, &next, err);
	if (rc)
		goto fail;
	if (h.type != TC_BLK_HEADER) {
		rc = tc_error_set(err, TC_ERR_FORMAT, path, TC_RAW_FILE_HEADER,
				  "first block is not a header block");
		goto fail;
	}
	rc = decode_header(r, payload, payload + h.raw_len, TC_RAW_FILE_HEADER, err);
	if (rc)
		goto fail;
	r->data_off = next;
	*out = r;
	return 0;
fail:
	tc_raw_close(&r);
	return rc;
}

const struct tc_raw_header *tc_raw_get_header(const struct tc_raw_reader *r)
{
	return &r->hdr;
}

/* The caller's event callback behind one that keeps the first event's
 * end (struct tc_raw_stats first_end), for the block holding it. */
struct first_ctx {
	int (*event)(void *ctx, const struct tc_event *ev);
	void *ctx;
	uint64_t *first_end;
	bool seen;
};

static int first_event(void *c, const struct tc_event *ev)
{
	struct first_ctx *f = c;

	if (!f->seen) {
		*f->first_end = ev->t_end;
		f->seen = true;
	}
	return f->event ? f->event(f->ctx, ev) : 0;
}

static int decode_events(struct tc_raw_reader *r, const struct tc_raw_block_header *h,
			 const uint8_t *p, uint64_t off, const struct tc_read_ops *ops,
			 void *ctx, struct tc_raw_stats *st, struct tc_error *err)
{
	struct tc_raw_delta d = { r->hdr.rank, h->base_time, 0 };
	struct first_ctx f = { ops ? ops->event : NULL, ctx, &st->first_end, false };
	const char *why = NULL;
	uint32_t at = 0;
	bool first = !st->events;
	int rc = tc_raw_decode_block(p, p + h->raw_len, h->records, &d, &r->scratch,
				     first ? first_event : f.event, first ? (void *)&f : ctx,
				     &st->events, &at, &why);

	if (rc == -1 && at == h->records)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off, "%s", why);
	if (rc == -1)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
				    "%s (record %u of block)", why, at);
	return rc;
}

static int decode_callsites(struct tc_raw_reader *r, const struct tc_raw_block_header *h,
			    const uint8_t *p, uint64_t off, const struct tc_read_ops *ops,
			    void *ctx, struct tc_error *err)
{
	const uint8_t *end = p + h->raw_len;

	for (uint32_t i = 0; i < h->records; i++) {
		struct tc_callsite cs;
		uint64_t id, nf;
		size_t *offs_mod, *offs_sym;

		p = tc_varint_get(p, end, &id);
		if (!p || id > UINT32_MAX - 1 || end - p < 8)
			goto bad;
		cs.id = (uint32_t)id;
		cs.signature = tc_get_le64(p);
		p += 8;
		p = tc_varint_get(p, end, &nf);
		if (!p || nf > TC_RAW_MAX_FRAMES)
			goto bad;
		TC_ALLOC_GROW(r->frames, nf + 1, r->frames_alloc);
		r->strs.len = 0;
		offs_mod = tc_xmalloc(sizeof(size_t) * 2 * (nf + 1));
		offs_sym = offs_mod + nf + 1;
		for (uint64_t k = 0; k < nf; k++) {
			for (int which = 0; which < 3; which++) {
				if (which == 1) {
					p = tc_varint_get(p, end, &r->frames[k].offset);
					if (!p)
						break;
					continue;
				}
				{
					uint64_t n;
					const uint8_t *q = tc_varint_get(p, end, &n);
					if (!q || n > TC_RAW_MAX_STRING || n > (uint64_t)(end - q)) {
						p = NULL;
						break;
					}
					TC_ALLOC_GROW(r->strs.p, r->strs.len + n + 1, r->strs.alloc);
					(which == 0 ? offs_mod : offs_sym)[k] = r->strs.len;
					memcpy(r->strs.p + r->strs.len, q, n);
					r->strs.len += n;
					r->strs.p[r->strs.len++] = '\0';
					p = q + n;
				}
			}
			if (!p)
				break;
		}
		if (!p) {
			free(offs_mod);
			goto bad;
		}
		for (uint64_t k = 0; k < nf; k++) {
			r->frames[k].module = r->strs.p + offs_mod[k];
			r->frames[k].symbol = r->strs.p + offs_sym[k];
		}
		free(offs_mod);
		cs.nframes = (uint32_t)nf;
		cs.frames = r->frames;
		if (ops && ops->callsite && ops->callsite(ctx, &cs))
			return TC_ERR_STOP;
	}
	if (p != end)
		goto bad;
	return 0;
bad:
	return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
			    "malformed call-site block");
}

/* If the member run at *p is ranks 0 .. size-1, step over it. */
static bool identity_run(const uint8_t **p, const uint8_t *end, uint32_t size)
{
	int64_t start, stride;
	uint64_t len;
	const uint8_t *q;

	if (!(q = tc_svarint_get(*p, end, &start)) || !(q = tc_varint_get(q, end, &len)) ||
	    !(q = tc_svarint_get(q, end, &stride)) || start != 0 || len != size ||
	    (stride != 1 && size > 1))
		return false;
	*p = q;
	return true;
}

/* The graph topology of a communicator record (minor version 1 on):
 * varint flags (bit 0 graph, bit 1 weighted), then with a graph varint
 * in- and out-degree, the sources, the destinations (ranks of the
 * communicator) and the weights, svarints. NULL when malformed. */
static const uint8_t *decode_graph(struct tc_raw_reader *r, const uint8_t *p,
				   const uint8_t *end, struct tc_comm *c)
{
	uint64_t flags, nin, nout;
	size_t n;

	if (!(p = tc_varint_get(p, end, &flags)) || flags > 3 || flags == 2)
		return NULL;
	if (!flags)
		return p;
	if (!(p = tc_varint_get(p, end, &nin)) || !(p = tc_varint_get(p, end, &nout)) ||
	    nin > TC_RAW_MAX_ARRAY || nout > TC_RAW_MAX_ARRAY)
		return NULL;
	n = (size_t)(nin + nout) * (flags & 2 ? 2 : 1);
	if (n > (size_t)(end - p)) /* each takes a byte at least */
		return NULL;
	TC_ALLOC_GROW(r->edges, n + 1, r->edges_alloc);
	for (size_t i = 0; i < n; i++) {
		int64_t v;
		bool rank = i < nin + nout;
		if (!(p = tc_svarint_get(p, end, &v)) || v < 0 || v > INT32_MAX ||
		    (rank && v >= c->size))
			return NULL;
		r->edges[i] = (int32_t)v;
	}
	c->graph = true;
	c->weighted = (flags & 2) != 0;
	c->nin = (uint32_t)nin;
	c->nout = (uint32_t)nout;
	c->edges = r->edges;
	return p;
}

static int decode_comms(struct tc_raw_reader *r, const struct tc_raw_block_header *h,
			const uint8_t *p, uint64_t off, const struct tc_read_ops *ops,
			void *ctx, struct tc_error *err)
{
	const uint8_t *end = p + h->raw_len;

	for (uint32_t i = 0; i < h->records; i++) {
		struct tc_comm c;
		uint64_t v[5], total = 0, nd;
		size_t k = 0;

		memset(&c, 0, sizeof(c));
		for (int j = 0; j < 5; j++) {
			p = tc_varint_get(p, end, &v[j]);
			if (!p)
				goto bad;
		}
		if (v[0] > UINT32_MAX || v[1] > UINT32_MAX || v[2] >= TC_OP_MAX ||
		    v[3] > (uint64_t)r->hdr.world_size || v[4] > v[3])
			goto bad;
		c.id = (uint32_t)v[0];
		c.parent = (uint32_t)v[1];
		c.creator = (uint32_t)v[2];
		c.size = (uint32_t)v[3];
		if (v[4] == 1 && identity_run(&p, end, c.size)) {
			/* the world and its copies: no array, so that reading a
			 * set of P ranks costs O(P), not O(P^2) */
			total = c.size;
			v[4] = 0;
		} else {
			TC_ALLOC_GROW(r->members, c.size + 1, r->members_alloc);
			c.members = r->members;
		}
		for (uint64_t j = 0; j < v[4]; j++) {
			int64_t start, stride;
			uint64_t len;
			if (!(p = tc_svarint_get(p, end, &start)) ||
			    !(p = tc_varint_get(p, end, &len)) ||
			    !(p = tc_svarint_get(p, end, &stride)))
				goto bad;
			total += len;
			if (total > c.size)
				goto bad;
			for (uint64_t m = 0; m < len; m++) {
				int64_t rank = start + stride * (int64_t)m;
				if (rank < 0 || rank >= r->hdr.world_size)
					goto bad;
				r->members[k++] = (int32_t)rank;
			}
		}
		if (total != c.size)
			goto bad;
		p = tc_varint_get(p, end, &nd);
		if (!p || nd > 8)
			goto bad;
		c.ndims = (uint32_t)nd;
		for (uint64_t j = 0; j < nd; j++) {
			int64_t dv;
			if (!(p = tc_svarint_get(p, end, &dv)) || dv < 0 || dv > INT32_MAX)
				goto bad;
			c.dims[j] = (int32_t)dv;
		}
		p = tc_varint_get(p, end, &v[0]);
		if (!p || v[0] > UINT32_MAX)
			goto bad;
		c.periods = (uint32_t)v[0];
		if (r->hdr.version_minor >= 1 && !(p = decode_graph(r, p, end, &c)))
			goto bad;
		if (ops && ops->comm && ops->comm(ctx, &c))
			return TC_ERR_STOP;
	}
	if (p != end)
		goto bad;
	return 0;
bad:
	return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
			    "malformed communicator block");
}

static int decode_trailer(struct tc_raw_reader *r, const struct tc_raw_block_header *h,
			  const uint8_t *p, uint64_t off, struct tc_raw_stats *st,
			  struct tc_error *err)
{
	const uint8_t *end = p + h->raw_len;
	uint64_t v[4];

	for (int i = 0; i < 4; i++) {
		p = tc_varint_get(p, end, &v[i]);
		if (!p)
			return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
					    "malformed trailer block");
	}
	st->trailer.events = v[0];
	st->trailer.blocks = v[1];
	st->trailer.dropped = v[2];
	st->trailer.t_last = v[3];
	/* optional fifth field: the tracer's time per event in the gaps */
	st->trailer.tracer_ns = 0;
	st->trailer.ntracer_op = 0;
	if (p < end && !(p = tc_varint_get(p, end, &st->trailer.tracer_ns)))
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off,
				    "malformed trailer block");
	/* optional sixth: the same per op, ops ascending, none twice */
	if (p < end) {
		struct tc_tracer_op all[TC_OP_MAX];
		uint64_t k, op, ns, calls, prev = 0;
		if (!(p = tc_varint_get(p, end, &k)) || k > TC_OP_MAX)
			goto bad;
		for (uint64_t i = 0; i < k; i++) {
			if (!(p = tc_varint_get(p, end, &op)) || !(p = tc_varint_get(p, end, &ns)) ||
			    !(p = tc_varint_get(p, end, &calls)) || !op || op >= TC_OP_MAX ||
			    (i && op <= prev) || !calls || calls > TC_TRACER_CALLS_MAX ||
			    ns > TC_TRACER_NS_MAX)
				goto bad;
			all[i] = (struct tc_tracer_op){ (uint32_t)op, (uint32_t)ns, calls };
			prev = op;
		}
		st->trailer.ntracer_op = tc_tracer_ops_most(all, (size_t)k, st->trailer.tracer_op);
	}
	st->has_trailer = true;
	return 0;
bad:
	return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)off, "malformed trailer block");
}

/* Find the next offset after off that starts a block with a valid CRC. */
static uint64_t resync(struct tc_raw_reader *r, uint64_t off)
{
	uint8_t buf[65536];
	struct tc_error e;

	for (uint64_t pos = off + 1; pos + TC_RAW_BLOCK_HEADER <= r->size;) {
		size_t n = (size_t)TC_MIN((uint64_t)sizeof(buf), r->size - pos);
		if (read_at(r, buf, n, pos, NULL))
			return r->size;
		for (size_t i = 0; i + 1 < n; i++) {
			struct tc_raw_block_header h;
			const uint8_t *payload;
			uint64_t next;
			if (buf[i] != 'T' || buf[i + 1] != 'B')
				continue;
			if (load_block(r, pos + i, &h, &payload, &next, &e) == 0)
				return pos + i;
		}
		pos += n > 1 ? n - 1 : 1;
	}
	return r->size;
}

int tc_raw_read(struct tc_raw_reader *r, const struct tc_read_ops *ops, void *ctx,
		struct tc_raw_stats *stats, struct tc_error *err)
{
	struct tc_raw_stats local;
	struct tc_raw_stats *st = stats ? stats : &local;
	uint64_t off = r->data_off;
	uint32_t expect_seq = 1;
	bool salvage = r->flags & TC_RAW_SALVAGE;
	struct tc_error berr;

	memset(st, 0, sizeof(*st));
	st->first_error = -1;
	st->file_bytes = r->size;
	st->blocks = 1;
	r->readahead = true;
	while (off < r->size) {
		struct tc_raw_block_header h;
		const uint8_t *payload;
		uint64_t next, before = st->events;
		int rc;

		tc_error_clear(&berr);
		rc = load_block(r, off, &h, &payload, &next, &berr);
		if (!rc && h.seq != expect_seq && !salvage)
			rc = tc_error_set(&berr, TC_ERR_FORMAT, r->path, (int64_t)off,
					  "block out of sequence (%u, expected %u)", h.seq,
					  expect_seq);
		if (!rc && st->has_trailer)
			rc = tc_error_set(&berr, TC_ERR_FORMAT, r->path, (int64_t)off,
					  "data after the trailer block");
		if (!rc) {
			switch (h.type) {
			case TC_BLK_EVENTS:
				rc = decode_events(r, &h, payload, off, ops, ctx, st, &berr);
				break;
			case TC_BLK_CALLSITES:
				rc = decode_callsites(r, &h, payload, off, ops, ctx, &berr);
				break;
			case TC_BLK_COMMS:
				rc = decode_comms(r, &h, payload, off, ops, ctx, &berr);
				break;
			case TC_BLK_TRAILER:
				rc = decode_trailer(r, &h, payload, off, st, &berr);
				break;
			default:
				rc = tc_error_set(&berr, TC_ERR_FORMAT, r->path, (int64_t)off + 2,
						  "unknown block type 0x%02x", h.type);
			}
		}
		if (rc == TC_ERR_STOP)
			return rc;
		if (rc) {
			uint64_t to;
			if (!salvage) {
				if (err)
					*err = berr;
				return rc;
			}
			if (st->first_error < 0) {
				st->first_error = (int64_t)off;
				tc_error_format(&berr, st->first_error_msg,
						sizeof(st->first_error_msg));
			}
			/* events of a block that failed half way were delivered;
			 * count the block as bad all the same */
			(void)before;
			to = resync(r, off);
			st->bad_blocks++;
			st->bad_bytes += to - off;
			off = to;
			continue;
		}
		st->blocks++;
		st->payload_bytes += h.stored_len;
		st->raw_bytes += h.raw_len;
		expect_seq = h.seq + 1;
		off = next;
	}
	if (!st->has_trailer && !salvage)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)r->size,
				    "file ends without a trailer block (truncated; --salvage reads what is complete)");
	if (st->has_trailer && st->bad_blocks == 0 && st->trailer.events != st->events && !salvage)
		return tc_error_set(err, TC_ERR_FORMAT, r->path, (int64_t)r->size,
				    "trailer counts %" PRIu64 " events, blocks hold %" PRIu64,
				    st->trailer.events, st->events);
	return 0;
}

void tc_raw_close(struct tc_raw_reader **rp)
{
	struct tc_raw_reader *r = *rp;

	if (!r)
		return;
	*rp = NULL;
	if (r->fd >= 0)
		close(r->fd);
	if (r->zs)
		libdeflate_free_decompressor(r->zs);
	free(r->zbuf);
	free(r->raw);
	free(r->win);
	tc_raw_scratch_release(&r->scratch);
	free(r->frames);
	free(r->strs.p);
	free(r->members);
	free(r->edges);
	free(r->path);
	free(r);
}

static int tracer_op_calls_cmp(const void *a, const void *b)
{
	const struct tc_tracer_op *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

static int tracer_op_cmp(const void *a, const void *b)
{
	const struct tc_tracer_op *x = a, *y = b;

	return x->op < y->op ? -1 : x->op > y->op;
}

size_t tc_tracer_ops_most(struct tc_tracer_op *ops, size_t n, struct tc_tracer_op *out)
{
	if (n > TC_TRACER_OPS)
		qsort(ops, n, sizeof(*ops), tracer_op_calls_cmp);
	n = TC_MIN(n, (size_t)TC_TRACER_OPS);
	memcpy(out, ops, n * sizeof(*ops));
	qsort(out, n, sizeof(*out), tracer_op_cmp);
	return n;
}

void tc_tracer_ops_add(struct tc_tracer_ops *m, const struct tc_tracer_op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!ops[i].op || ops[i].op >= TC_OP_MAX || !ops[i].calls ||
		    ops[i].calls > TC_TRACER_CALLS_MAX || ops[i].ns > TC_TRACER_NS_MAX)
			continue;
		m->sum[ops[i].op] += (double)ops[i].ns * (double)ops[i].calls;
		m->calls[ops[i].op] += (double)ops[i].calls;
	}
}

size_t tc_tracer_ops_get(const struct tc_tracer_ops *m, struct tc_tracer_op *out)
{
	size_t n = 0;

	for (unsigned op = 0; op < TC_OP_MAX; op++) {
		if (!(m->calls[op] > 0))
			continue;
		out[n].op = op;
		out[n].ns = (uint32_t)(m->sum[op] / m->calls[op] + 0.5);
		out[n].calls = m->calls[op] < (double)TC_TRACER_CALLS_MAX ? (uint64_t)m->calls[op]
									  : TC_TRACER_CALLS_MAX;
		n++;
	}
	return n;
}

uint64_t tc_tracer_of_stats(const struct tc_raw_stats *st, size_t n, struct tc_tracer_op **ops,
			    size_t *nops)
{
	struct tc_tracer_mean m = { 0, 0 };
	struct tc_tracer_ops *acc = tc_xcalloc(1, sizeof(*acc));

	for (size_t i = 0; i < n; i++) {
		tc_tracer_mean_add(&m, st[i].has_trailer ? st[i].trailer.tracer_ns : 0, st[i].events);
		if (st[i].has_trailer)
			tc_tracer_ops_add(acc, st[i].trailer.tracer_op,
					  TC_MIN(st[i].trailer.ntracer_op, TC_TRACER_OPS));
	}
	*ops = tc_xcalloc(TC_OP_MAX, sizeof(**ops));
	*nops = tc_tracer_ops_get(acc, *ops);
	free(acc);
	return tc_tracer_mean_get(&m);
}

void tc_tracer_mean_add(struct tc_tracer_mean *m, uint64_t tracer_ns, uint64_t events)
{
	if (!tracer_ns || !events || tracer_ns > TC_TRACER_NS_MAX)
		return;
	m->sum += (double)tracer_ns * (double)events;
	m->events += (double)events;
}

uint64_t tc_tracer_mean_get(const struct tc_tracer_mean *m)
{
	return m->events > 0 ? (uint64_t)(m->sum / m->events + 0.5) : 0;
}
