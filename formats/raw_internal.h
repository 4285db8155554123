/*
 * raw_internal.h - encoding shared by the raw writer and reader.
 */
#ifndef TC_FORMATS_RAW_INTERNAL_H
#define TC_FORMATS_RAW_INTERNAL_H

#include "lib/compat.h"
#include "formats/raw.h"

struct tc_event;

/* Block encodings (fourth byte of a block header). */
enum { TC_ENC_STORED = 0, TC_ENC_DEFLATE = 1 };

struct tc_raw_block_header {
	uint8_t type;
	uint8_t encoding;
	uint32_t stored_len;
	uint32_t raw_len;
	uint32_t records;
	uint64_t base_time;
	uint32_t seq;
	uint32_t crc;
};

/* Delta state of an event block; reset at every block start. */
struct tc_raw_delta {
	int32_t rank;
	uint64_t prev_start;
	uint64_t prev_request;
};

void tc_raw_pack_block_header(uint8_t out[TC_RAW_BLOCK_HEADER],
			      const struct tc_raw_block_header *h);
/* Unpack; returns false when the magic bytes are wrong. */
bool tc_raw_unpack_block_header(const uint8_t in[TC_RAW_BLOCK_HEADER],
				struct tc_raw_block_header *h);
/* CRC-32 of the first 28 header bytes followed by the payload. */
uint32_t tc_raw_block_crc(const uint8_t hdr[TC_RAW_BLOCK_HEADER],
			  const uint8_t *payload, size_t len);

/* Upper bound of the encoded size of ev. */
size_t tc_raw_event_max_size(const struct tc_event *ev);
uint8_t *tc_raw_encode_event(uint8_t *p, const struct tc_event *ev,
			     struct tc_raw_delta *d);

/* Scratch arrays the decoder fills; grown as needed, capped by input. */
struct tc_raw_scratch {
	struct tc_completion *compl;
	size_t compl_alloc;
	uint64_t *scounts;
	size_t scounts_alloc;
	uint64_t *rcounts;
	size_t rcounts_alloc;
};

void tc_raw_scratch_release(struct tc_raw_scratch *s);
/*
 * Decode one event at p. Returns the byte after it, or NULL with *why set
 * to a static message when the record is malformed.
 */
const uint8_t *tc_raw_decode_event(const uint8_t *p, const uint8_t *end,
				   struct tc_event *ev, struct tc_raw_delta *d,
				   struct tc_raw_scratch *s, const char **why);

/*
 * Decode the records of an event block, [p, end), handing each to cb
 * (NULL: none) and counting them in *nev. Returns 0; TC_ERR_STOP when cb
 * asked to stop; -1 with *why set and *at the index of the bad record
 * (records for bytes left after the last one).
 */
int tc_raw_decode_block(const uint8_t *p, const uint8_t *end, uint32_t records,
			struct tc_raw_delta *d, struct tc_raw_scratch *s,
			int (*cb)(void *, const struct tc_event *), void *ctx, uint64_t *nev,
			uint32_t *at, const char **why);

uint8_t *tc_raw_put_string(uint8_t *p, const char *s, size_t len);
const uint8_t *tc_raw_get_string(const uint8_t *p, const uint8_t *end,
				 char *out, size_t outlen);

static inline void tc_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t tc_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void tc_put_le64(uint8_t *p, uint64_t v)
{
	tc_put_le32(p, (uint32_t)v);
	tc_put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint64_t tc_get_le64(const uint8_t *p)
{
	return (uint64_t)tc_get_le32(p) | (uint64_t)tc_get_le32(p + 4) << 32;
}

#endif
