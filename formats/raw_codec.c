/*
 * raw_codec.c - record encoding of the raw format (formats/raw.md §4).
 */
#include "lib/compat.h"
#include "formats/raw_internal.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/varint.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

void tc_raw_pack_block_header(uint8_t out[TC_RAW_BLOCK_HEADER],
			      const struct tc_raw_block_header *h)
{
	out[0] = 'T';
	out[1] = 'B';
	out[2] = h->type;
	out[3] = h->encoding;
	tc_put_le32(out + 4, h->stored_len);
	tc_put_le32(out + 8, h->raw_len);
	tc_put_le32(out + 12, h->records);
	tc_put_le64(out + 16, h->base_time);
	tc_put_le32(out + 24, h->seq);
	tc_put_le32(out + 28, h->crc);
}

bool tc_raw_unpack_block_header(const uint8_t in[TC_RAW_BLOCK_HEADER],
				struct tc_raw_block_header *h)
{
	if (in[0] != 'T' || in[1] != 'B')
		return false;
	h->type = in[2];
	h->encoding = in[3];
	h->stored_len = tc_get_le32(in + 4);
	h->raw_len = tc_get_le32(in + 8);
	h->records = tc_get_le32(in + 12);
	h->base_time = tc_get_le64(in + 16);
	h->seq = tc_get_le32(in + 24);
	h->crc = tc_get_le32(in + 28);
	return true;
}

uint32_t tc_raw_block_crc(const uint8_t hdr[TC_RAW_BLOCK_HEADER],
			  const uint8_t *payload, size_t len)
{
	return libdeflate_crc32(libdeflate_crc32(0, hdr, TC_RAW_BLOCK_HEADER - 4), payload, len);
}

uint8_t *tc_raw_put_string(uint8_t *p, const char *s, size_t len)
{
	if (len > TC_RAW_MAX_STRING)
		len = TC_RAW_MAX_STRING;
	p = tc_varint_put(p, len);
	memcpy(p, s, len);
	return p + len;
}

const uint8_t *tc_raw_get_string(const uint8_t *p, const uint8_t *end,
				 char *out, size_t outlen)
{
	uint64_t n;

	p = tc_varint_get(p, end, &n);
	if (!p || n > TC_RAW_MAX_STRING || n > (uint64_t)(end - p))
		return NULL;
	if (outlen) {
		size_t k = n < outlen ? (size_t)n : outlen - 1;
		memcpy(out, p, k);
		out[k] = '\0';
	}
	return p + n;
}

/*
 * Peers are stored relative to the writing rank, so a stencil's
 * neighbours encode to the same small numbers on every rank. Special
 * peers (negative) take the codes 1..3, real peers zigzag(peer - rank) + 4.
 */
static inline uint64_t enc_peer(int32_t peer, int32_t rank)
{
	if (peer < 0)
		return (uint64_t)(-(int64_t)peer);
	return tc_zigzag((int64_t)peer - rank) + 4;
}

static inline bool dec_peer(uint64_t v, int32_t rank, int32_t *peer)
{
	int64_t p;

	if (v == 0)
		return false;
	if (v < 4) {
		*peer = -(int32_t)v;
		return true;
	}
	p = tc_unzigzag(v - 4) + rank;
	if (p < 0 || p > INT32_MAX)
		return false;
	*peer = (int32_t)p;
	return true;
}

size_t tc_raw_event_max_size(const struct tc_event *ev)
{
	size_t n = 32 * TC_VARINT_MAX;

	if (ev->fields & TC_F_COMPL)
		n += (size_t)ev->ncompl * 4 * TC_VARINT_MAX;
	if (ev->fields & TC_F_SCOUNTS)
		n += (size_t)ev->nscounts * TC_VARINT_MAX;
	if (ev->fields & TC_F_RCOUNTS)
		n += (size_t)ev->nrcounts * TC_VARINT_MAX;
	return n;
}

uint8_t *tc_raw_encode_event(uint8_t *p, const struct tc_event *ev,
			     struct tc_raw_delta *d)
{
	uint32_t f = ev->fields & TC_F_ALL;
	uint64_t end = ev->t_end >= ev->t_start ? ev->t_end : ev->t_start;

	p = tc_varint_put(p, ev->op);
	p = tc_varint_put(p, f);
	p = tc_varint_put(p, ev->callsite == TC_NO_CALLSITE ? 0 : (uint64_t)ev->callsite + 1);
	p = tc_svarint_put(p, (int64_t)(ev->t_start - d->prev_start));
	p = tc_varint_put(p, end - ev->t_start);
	d->prev_start = ev->t_start;

	if (f & TC_F_COMM)
		p = tc_varint_put(p, ev->comm);
	if (f & TC_F_PEER)
		p = tc_varint_put(p, enc_peer(ev->peer, d->rank));
	if (f & TC_F_TAG)
		p = tc_svarint_put(p, ev->tag);
	if (f & TC_F_RPEER) {
		p = tc_varint_put(p, enc_peer(ev->rpeer, d->rank));
		p = tc_svarint_put(p, ev->rtag);
	}
	if (f & TC_F_COUNT)
		p = tc_varint_put(p, ev->count);
	if (f & TC_F_DTYPE) {
		p = tc_varint_put(p, ev->dtype);
		p = tc_varint_put(p, ev->dtype_size);
	}
	if (f & TC_F_BYTES)
		p = tc_varint_put(p, ev->bytes);
	if (f & TC_F_REDOP)
		p = tc_varint_put(p, ev->redop);
	if (f & TC_F_ROOT)
		p = tc_varint_put(p, enc_peer(ev->root, d->rank));
	if (f & TC_F_COLOR) {
		p = tc_svarint_put(p, ev->color);
		p = tc_svarint_put(p, ev->key);
	}
	if (f & TC_F_REQUEST) {
		p = tc_svarint_put(p, (int64_t)(ev->request - d->prev_request));
		d->prev_request = ev->request;
	}
	if (f & TC_F_NEWCOMM)
		p = tc_varint_put(p, ev->newcomm);
	if (f & TC_F_FILE) {
		p = tc_varint_put(p, ev->file);
		p = tc_varint_put(p, ev->offset);
	}
	if (f & TC_F_RESULT)
		p = tc_svarint_put(p, ev->result);
	if (f & TC_F_COMPL) {
		p = tc_varint_put(p, ev->ncompl);
		for (uint32_t i = 0; i < ev->ncompl; i++) {
			const struct tc_completion *c = &ev->compl[i];
			p = tc_svarint_put(p, (int64_t)(c->request - d->prev_request));
			p = tc_varint_put(p, enc_peer(c->source, d->rank));
			p = tc_svarint_put(p, c->tag);
			p = tc_varint_put(p, c->bytes);
		}
	}
	if (f & TC_F_SCOUNTS) {
		p = tc_varint_put(p, ev->nscounts);
		for (uint32_t i = 0; i < ev->nscounts; i++)
			p = tc_varint_put(p, ev->scounts[i]);
	}
	if (f & TC_F_RCOUNTS) {
		p = tc_varint_put(p, ev->nrcounts);
		for (uint32_t i = 0; i < ev->nrcounts; i++)
			p = tc_varint_put(p, ev->rcounts[i]);
	}
	return p;
}

void tc_raw_scratch_release(struct tc_raw_scratch *s)
{
	free(s->compl);
	free(s->scounts);
	free(s->rcounts);
	memset(s, 0, sizeof(*s));
}

/* Decoders of one varint: bounds-checked, or (ROOMY) for a record that
 * starts far enough from its block's end that it cannot run past it. */
#define GET(v)                                                          \
	do {                                                            \
		p = roomy ? tc_varint_get_roomy(p, end, &(v))           \
			  : tc_varint_get(p, end, &(v));                \
		if (TC_UNLIKELY(!p))                                    \
			goto truncated;                                 \
	} while (0)
#define SGET(v)                                                         \
	do {                                                            \
		uint64_t u_;                                            \
		GET(u_);                                                \
		(v) = tc_unzigzag(u_);                                  \
	} while (0)
#define FIT32(v)                                                \
	do {                                                    \
		if ((v) > UINT32_MAX)                           \
			goto range;                             \
	} while (0)
#define SFIT32(v)                                               \
	do {                                                    \
		if ((v) < INT32_MIN || (v) > INT32_MAX)         \
			goto range;                             \
	} while (0)
/* A field into dst: an unsigned or signed one that must fit 32 bits, a
 * peer (relative to the rank); v, sv and d are the decoder's. */
#define GETU32(dst)                                             \
	do {                                                    \
		GET(v);                                         \
		FIT32(v);                                       \
		(dst) = (uint32_t)v;                            \
	} while (0)
#define GETS32(dst)                                             \
	do {                                                    \
		SGET(sv);                                       \
		SFIT32(sv);                                     \
		(dst) = (int32_t)sv;                            \
	} while (0)
#define GETPEER(dst)                                            \
	do {                                                    \
		GET(v);                                         \
		if (!dec_peer(v, d->rank, &(dst)))              \
			goto range;                             \
	} while (0)

static const uint8_t *get_counts(const uint8_t *p, const uint8_t *end,
				 uint64_t **arr, size_t *alloc, uint32_t *n,
				 const char **why)
{
	uint64_t cnt;

	p = tc_varint_get(p, end, &cnt);
	if (!p) {
		*why = "truncated count array";
		return NULL;
	}
	/* every element takes at least one byte: a hostile count cannot
	 * make us allocate more than the block holds */
	if (cnt > TC_RAW_MAX_ARRAY || cnt > (uint64_t)(end - p)) {
		*why = "count array longer than its block";
		return NULL;
	}
	TC_ALLOC_GROW(*arr, cnt, *alloc);
	for (uint64_t i = 0; i < cnt; i++) {
		p = tc_varint_get(p, end, &(*arr)[i]);
		if (!p) {
			*why = "truncated count array";
			return NULL;
		}
	}
	*n = (uint32_t)cnt;
	return p;
}

/* Bytes a record's fixed part can take at most: the five varints every
 * record has and the optional fields' eighteen, TC_VARINT_MAX each. A
 * record that starts this far from its block's end is decoded without
 * bounds checks up to its arrays; so is a completion (four varints) that
 * starts 4 * TC_VARINT_MAX bytes from it. */
#define ROOMY_RECORD (23 * TC_VARINT_MAX)
#define ROOMY_COMPLETION (4 * TC_VARINT_MAX)

static inline __attribute__((always_inline)) const uint8_t *
decode_completion(const uint8_t *p, const uint8_t *end, struct tc_completion *c,
		  const struct tc_raw_delta *d, const bool roomy, const char **why)
{
	uint64_t v;
	int64_t sv;

	SGET(sv);
	c->request = d->prev_request + (uint64_t)sv;
	GETPEER(c->source);
	GETS32(c->tag);
	GET(c->bytes);
	return p;

truncated:
	*why = "truncated event record";
	return NULL;
range:
	*why = "event field out of range";
	return NULL;
}

/*
 * Decode one record into ev, which holds its defaults (tc_event_init) or
 * the event decoded into it before: the fields that event had and this
 * one has not are set back to their defaults first, so that a run of
 * events of one kind costs no stores for the fields none of them has.
 */
static inline __attribute__((always_inline)) const uint8_t *
decode_event(const uint8_t *p, const uint8_t *end, struct tc_event *ev, struct tc_raw_delta *d,
	     struct tc_raw_scratch *s, const bool roomy, const char **why)
{
	uint64_t v, op, f, count = 0;
	int64_t sv;

	GET(op);
	if (op == 0 || op >= TC_OP_MAX) {
		*why = "bad op number";
		return NULL;
	}
	GET(f);
	if (f & ~(uint64_t)TC_F_ALL) {
		*why = "unknown event field bits";
		return NULL;
	}
	if (ev->fields & ~(uint32_t)f)
		tc_event_init(ev);
	ev->op = (uint32_t)op;
	ev->fields = (uint32_t)f;
	GET(v);
	if (v > UINT32_MAX) {
		*why = "bad call-site id";
		return NULL;
	}
	ev->callsite = v ? (uint32_t)(v - 1) : TC_NO_CALLSITE;
	SGET(sv);
	ev->t_start = d->prev_start + (uint64_t)sv;
	d->prev_start = ev->t_start;
	GET(v);
	ev->t_end = ev->t_start + v;

	if (f & TC_F_COMM)
		GETU32(ev->comm);
	if (f & TC_F_PEER)
		GETPEER(ev->peer);
	if (f & TC_F_TAG)
		GETS32(ev->tag);
	if (f & TC_F_RPEER) {
		GETPEER(ev->rpeer);
		GETS32(ev->rtag);
	}
	/* count and size in registers: their product is the usual bytes */
	if (f & TC_F_COUNT) {
		GET(count);
		ev->count = count;
	}
	if (f & TC_F_DTYPE) {
		uint64_t size;
		GETU32(ev->dtype);
		GET(size);
		FIT32(size);
		ev->dtype_size = (uint32_t)size;
		if (!(f & TC_F_BYTES))
			ev->bytes = count * size;
	}
	if (f & TC_F_BYTES)
		GET(ev->bytes);
	/* groups of fields most events lack: one test for each group */
	if (f & (TC_F_REDOP | TC_F_ROOT | TC_F_COLOR)) {
		if (f & TC_F_REDOP)
			GETU32(ev->redop);
		if (f & TC_F_ROOT)
			GETPEER(ev->root);
		if (f & TC_F_COLOR) {
			GETS32(ev->color);
			GETS32(ev->key);
		}
	}
	if (f & TC_F_REQUEST) {
		SGET(sv);
		ev->request = d->prev_request + (uint64_t)sv;
		d->prev_request = ev->request;
	}
	if (f & (TC_F_NEWCOMM | TC_F_FILE | TC_F_RESULT)) {
		if (f & TC_F_NEWCOMM)
			GETU32(ev->newcomm);
		if (f & TC_F_FILE) {
			GETU32(ev->file);
			GET(ev->offset);
		}
		if (f & TC_F_RESULT)
			GETS32(ev->result);
	}
	if (f & TC_F_COMPL) {
		uint64_t n;
		GET(n);
		/* each completion takes at least four bytes */
		if (n > TC_RAW_MAX_ARRAY || n > (uint64_t)(end - p) / 4) {
			*why = "completion list longer than its block";
			return NULL;
		}
		TC_ALLOC_GROW(s->compl, n, s->compl_alloc);
		if (roomy && (uint64_t)(end - p) >= n * ROOMY_COMPLETION) {
			for (uint64_t i = 0; i < n && p; i++)
				p = decode_completion(p, end, &s->compl[i], d, true, why);
		} else {
			for (uint64_t i = 0; i < n && p; i++)
				p = decode_completion(p, end, &s->compl[i], d, false, why);
		}
		if (!p)
			return NULL;
		ev->ncompl = (uint32_t)n;
		ev->compl = s->compl;
	}
	if (f & (TC_F_SCOUNTS | TC_F_RCOUNTS)) {
		if (f & TC_F_SCOUNTS) {
			p = get_counts(p, end, &s->scounts, &s->scounts_alloc, &ev->nscounts, why);
			if (!p)
				return NULL;
			ev->scounts = s->scounts;
		}
		if (f & TC_F_RCOUNTS) {
			p = get_counts(p, end, &s->rcounts, &s->rcounts_alloc, &ev->nrcounts, why);
			if (!p)
				return NULL;
			ev->rcounts = s->rcounts;
		}
	}
	return p;

truncated:
	*why = "truncated event record";
	return NULL;
range:
	*why = "event field out of range";
	return NULL;
}

const uint8_t *tc_raw_decode_event(const uint8_t *p, const uint8_t *end,
				   struct tc_event *ev, struct tc_raw_delta *d,
				   struct tc_raw_scratch *s, const char **why)
{
	tc_event_init(ev);
	return decode_event(p, end, ev, d, s, false, why);
}

int tc_raw_decode_block(const uint8_t *p, const uint8_t *end, uint32_t records,
			struct tc_raw_delta *d, struct tc_raw_scratch *s,
			int (*cb)(void *, const struct tc_event *), void *ctx, uint64_t *nev,
			uint32_t *at, const char **why)
{
	struct tc_event ev;
	uint32_t i;
	int rc = 0;

	tc_event_init(&ev);
	for (i = 0; i < records; i++) {
		p = end - p >= ROOMY_RECORD ? decode_event(p, end, &ev, d, s, true, why)
					    : decode_event(p, end, &ev, d, s, false, why);
		if (!p) {
			*at = i;
			rc = -1;
			break;
		}
		if (cb && cb(ctx, &ev)) {
			i++;
			rc = TC_ERR_STOP;
			break;
		}
	}
	*nev += i;
	if (!rc && p != end) {
		*at = records;
		*why = "event block has trailing bytes";
		return -1;
	}
	return rc;
}
