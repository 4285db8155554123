/*
 * Unit tests of the varint codec, the CRC, event records and raw files.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "formats/raw.h"
#include "formats/raw_internal.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/ranklist.h"
#include "lib/varint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

TEST(varint_roundtrip)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 255, 300, 16383, 16384,
					 (1 << 21) - 1, 1 << 21, UINT32_MAX, (1ULL << 56) - 1, 1ULL << 63, UINT64_MAX };
	uint8_t buf[TC_VARINT_MAX];

	for (size_t i = 0; i < TC_ARRAY_SIZE(vals); i++) {
		uint8_t *e = tc_varint_put(buf, vals[i]);
		uint64_t out = 0;
		const uint8_t *p = tc_varint_get(buf, e, &out);
		CHECK(p == e);
		CHECK_EQ_U64(out, vals[i]);
		CHECK_EQ_U64((size_t)(e - buf), tc_varint_len(vals[i]));
		/* the roomy decoder reads the same from a buffer with room */
		out = 0;
		memset(e, 0xff, (size_t)(buf + sizeof(buf) - e));
		CHECK(tc_varint_get_roomy(buf, buf + sizeof(buf), &out) == e);
		CHECK_EQ_U64(out, vals[i]);
	}
}

TEST(varint_known_bytes)
{
	uint8_t buf[TC_VARINT_MAX];
	uint8_t *e = tc_varint_put(buf, 300);

	/* LEB128 of 300 is ac 02 */
	CHECK_EQ_U64(e - buf, 2);
	CHECK_EQ_U64(buf[0], 0xac);
	CHECK_EQ_U64(buf[1], 0x02);
	e = tc_varint_put(buf, UINT64_MAX);
	CHECK_EQ_U64(e - buf, 10);
	CHECK_EQ_U64(buf[9], 0x01);
}

TEST(varint_rejects_truncated_and_overlong)
{
	uint8_t buf[12];
	uint64_t v;
	const uint8_t *p;

	tc_varint_put(buf, 1ULL << 40);
	/* cut one byte short */
	p = tc_varint_get(buf, buf + tc_varint_len(1ULL << 40) - 1, &v);
	CHECK(p == NULL);
	/* empty input */
	CHECK(tc_varint_get(buf, buf, &v) == NULL);
	/* eleven continuation bytes: longer than any 64-bit value */
	memset(buf, 0xff, sizeof(buf));
	CHECK(tc_varint_get(buf, buf + sizeof(buf), &v) == NULL);
	/* ten bytes whose last carries bits beyond 64 */
	memset(buf, 0x80, 9);
	buf[9] = 0x02;
	CHECK(tc_varint_get(buf, buf + 10, &v) == NULL);
}

TEST(zigzag)
{
	CHECK_EQ_U64(tc_zigzag(0), 0);
	CHECK_EQ_U64(tc_zigzag(-1), 1);
	CHECK_EQ_U64(tc_zigzag(1), 2);
	CHECK_EQ_U64(tc_zigzag(-2), 3);
	CHECK_EQ_U64(tc_zigzag(INT64_MIN), UINT64_MAX);
	for (int64_t v = -1000; v <= 1000; v += 7)
		CHECK_EQ_I64(tc_unzigzag(tc_zigzag(v)), v);
	CHECK_EQ_I64(tc_unzigzag(tc_zigzag(INT64_MAX)), INT64_MAX);
	CHECK_EQ_I64(tc_unzigzag(tc_zigzag(INT64_MIN)), INT64_MIN);
}

TEST(crc32_known_vector)
{
	/* the CRC-32 check value of "123456789" */
	uLong c = crc32(0L, Z_NULL, 0);
	c = crc32(c, (const Bytef *)"123456789", 9);
	CHECK_EQ_U64(c, 0xCBF43926u);
}

TEST(block_header_crc_covers_header_and_payload)
{
	struct tc_raw_block_header h = { 'E', 1, 10, 20, 3, 12345, 7, 0 }, g;
	uint8_t hb[TC_RAW_BLOCK_HEADER];
	uint8_t payload[10] = "abcdefghi";
	uint32_t c1, c2;

	tc_raw_pack_block_header(hb, &h);
	CHECK(tc_raw_unpack_block_header(hb, &g));
	CHECK_EQ_U64(g.stored_len, 10);
	CHECK_EQ_U64(g.raw_len, 20);
	CHECK_EQ_U64(g.records, 3);
	CHECK_EQ_U64(g.base_time, 12345);
	CHECK_EQ_U64(g.seq, 7);
	c1 = tc_raw_block_crc(hb, payload, sizeof(payload));
	hb[12] ^= 1; /* record count */
	c2 = tc_raw_block_crc(hb, payload, sizeof(payload));
	CHECK(c1 != c2);
	hb[12] ^= 1;
	payload[3] ^= 0x10;
	CHECK(tc_raw_block_crc(hb, payload, sizeof(payload)) != c1);
	hb[0] = 'X';
	CHECK(!tc_raw_unpack_block_header(hb, &g));
}

static void full_event(struct tc_event *ev, struct tc_completion *compl, uint64_t *sc,
		       uint64_t *rc)
{
	tc_event_init(ev);
	ev->op = TC_OP_ALLTOALLV;
	ev->fields = TC_F_ALL;
	ev->callsite = 42;
	ev->t_start = 1000000007;
	ev->t_end = 1000000999;
	ev->comm = 5;
	ev->peer = 3;
	ev->tag = -1;
	ev->rpeer = TC_ANY_SOURCE;
	ev->rtag = 77;
	ev->count = 1ULL << 40;
	ev->dtype = TC_DT_DOUBLE;
	ev->dtype_size = 8;
	ev->bytes = 123456789;
	ev->redop = TC_RED_SUM;
	ev->root = 0;
	ev->color = TC_UNDEFINED;
	ev->key = -5;
	ev->request = 99;
	ev->newcomm = 6;
	ev->file = 2;
	ev->offset = 1ULL << 33;
	ev->result = 15;
	compl[0] = (struct tc_completion){ 98, 7, 3, 4096 };
	compl[1] = (struct tc_completion){ 100, TC_PEER_NONE, 0, 0 };
	ev->compl = compl;
	ev->ncompl = 2;
	for (int i = 0; i < 4; i++) {
		sc[i] = (uint64_t)i * 1000;
		rc[i] = (uint64_t)(4 - i);
	}
	ev->scounts = sc;
	ev->nscounts = 4;
	ev->rcounts = rc;
	ev->nrcounts = 4;
}

static bool same_event(const struct tc_event *a, const struct tc_event *b)
{
	if (a->op != b->op || a->fields != b->fields || a->callsite != b->callsite ||
	    a->t_start != b->t_start || a->t_end != b->t_end || a->comm != b->comm ||
	    a->peer != b->peer || a->tag != b->tag || a->rpeer != b->rpeer ||
	    a->rtag != b->rtag || a->count != b->count || a->dtype != b->dtype ||
	    a->dtype_size != b->dtype_size || tc_event_bytes(a) != tc_event_bytes(b) ||
	    a->redop != b->redop || a->root != b->root || a->color != b->color ||
	    a->key != b->key || a->request != b->request || a->newcomm != b->newcomm ||
	    a->file != b->file || a->offset != b->offset || a->result != b->result ||
	    a->ncompl != b->ncompl || a->nscounts != b->nscounts || a->nrcounts != b->nrcounts)
		return false;
	for (uint32_t i = 0; i < a->ncompl; i++)
		if (memcmp(&a->compl[i], &b->compl[i], sizeof(a->compl[i])))
			return false;
	/* the arrays are NULL when empty */
	return (!a->nscounts || !memcmp(a->scounts, b->scounts, a->nscounts * sizeof(uint64_t))) &&
	       (!a->nrcounts || !memcmp(a->rcounts, b->rcounts, a->nrcounts * sizeof(uint64_t)));
}

TEST(event_record_roundtrip_every_field)
{
	struct tc_event ev, out;
	struct tc_completion compl[2];
	uint64_t sc[4], rc[4];
	uint8_t buf[1024];
	struct tc_raw_delta d = { 3, 1000000000, 90 }, d2 = d;
	struct tc_raw_scratch s = { 0 };
	const char *why = NULL;
	uint8_t *e;
	const uint8_t *p;

	full_event(&ev, compl, sc, rc);
	CHECK(tc_raw_event_max_size(&ev) <= sizeof(buf));
	e = tc_raw_encode_event(buf, &ev, &d);
	p = tc_raw_decode_event(buf, e, &out, &d2, &s, &why);
	CHECK(p == e);
	CHECK(same_event(&ev, &out));
	CHECK_EQ_U64(d.prev_start, d2.prev_start);
	CHECK_EQ_U64(d.prev_request, d2.prev_request);
	/* every strict prefix of the record is rejected, never over-read */
	for (uint8_t *cut = buf; cut < e; cut++) {
		struct tc_raw_delta d3 = { 3, 1000000000, 90 };
		CHECK(tc_raw_decode_event(buf, cut, &out, &d3, &s, &why) == NULL);
	}
	tc_raw_scratch_release(&s);
}

TEST(event_record_minimal_is_small)
{
	struct tc_event ev;
	struct tc_raw_delta d = { 0, 0, 0 };
	uint8_t buf[64];
	uint8_t *e;

	tc_event_init(&ev);
	ev.op = TC_OP_BARRIER;
	ev.callsite = 1;
	ev.t_start = 100;
	ev.t_end = 150;
	e = tc_raw_encode_event(buf, &ev, &d);
	/* op, fields, call site, start delta 100 (zigzag: two bytes), duration */
	CHECK_EQ_U64(e - buf, 6);
}

TEST(event_record_rejects_bad_op_and_bits)
{
	uint8_t buf[16] = { 0 }, *p = buf;
	struct tc_event out;
	struct tc_raw_delta d = { 0, 0, 0 };
	struct tc_raw_scratch s = { 0 };
	const char *why = NULL;

	p = tc_varint_put(p, 0); /* op 0 */
	CHECK(tc_raw_decode_event(buf, p, &out, &d, &s, &why) == NULL);
	p = buf;
	p = tc_varint_put(p, TC_OP_SEND);
	p = tc_varint_put(p, 1u << 30); /* unknown field bit */
	p = tc_varint_put(p, 0);
	p = tc_varint_put(p, 0);
	p = tc_varint_put(p, 0);
	CHECK(tc_raw_decode_event(buf, p, &out, &d, &s, &why) == NULL);
	CHECK(why != NULL);
	tc_raw_scratch_release(&s);
}

TEST(peer_relative_encoding_specials)
{
	static const int32_t peers[] = { 0, 1, 5, 1000000, TC_ANY_SOURCE, TC_PROC_NULL };
	for (size_t i = 0; i < TC_ARRAY_SIZE(peers); i++) {
		struct tc_event ev, out;
		struct tc_raw_delta d = { 7, 0, 0 }, d2 = d;
		struct tc_raw_scratch s = { 0 };
		uint8_t buf[128] = { 0 }, *e;
		const char *why;
		tc_event_init(&ev);
		ev.op = TC_OP_RECV;
		ev.fields = TC_F_PEER | TC_F_ROOT;
		ev.peer = peers[i];
		ev.root = peers[i];
		e = tc_raw_encode_event(buf, &ev, &d);
		CHECK(tc_raw_decode_event(buf, e, &out, &d2, &s, &why) == e);
		CHECK_EQ_I64(out.peer, peers[i]);
		CHECK_EQ_I64(out.root, peers[i]);
		tc_raw_scratch_release(&s);
	}
}

/* A block's records against the same records decoded one by one. */
struct block_check {
	const uint8_t *buf;
	const size_t *at;  /* record offsets, one more than records */
	struct tc_raw_delta d;
	struct tc_raw_scratch s;
	uint32_t n, bad;
};

static int check_block_event(void *p, const struct tc_event *ev)
{
	struct block_check *c = p;
	struct tc_event one;
	const char *why;
	const uint8_t *e = tc_raw_decode_event(c->buf + c->at[c->n], c->buf + c->at[c->n + 1],
					       &one, &c->d, &c->s, &why);

	/* bytes compared as stored, not only as tc_event_bytes reads it */
	if (!e || !same_event(ev, &one) || ev->bytes != one.bytes)
		c->bad++;
	c->n++;
	return 0;
}

TEST(event_block_equals_records_decoded_one_by_one)
{
	/* events whose field sets grow and shrink from one to the next, so
	 * that fields set by one must read as defaults in the next, with
	 * values of every varint length; the block is long enough that its
	 * records are decoded without bounds checks but for the last ones */
	enum { N = 600 };
	struct tc_completion compl[2];
	uint64_t sc[4], rc[4];
	size_t *at = malloc((N + 1) * sizeof(*at));
	uint8_t *buf = malloc(N * 512), *p = buf, *exact;
	struct tc_raw_delta d = { 3, 1000, 0 }, d2 = d;
	struct tc_raw_scratch s = { 0 };
	struct block_check c = { NULL, at, d, { 0 }, 0, 0 };
	uint64_t nev = 0, x = 88172645463325252ull;
	uint32_t where = 0;
	const char *why = NULL;

	for (uint32_t i = 0; i < N; i++) {
		struct tc_event ev;
		full_event(&ev, compl, sc, rc);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ev.fields = (uint32_t)(i % 5 == 4 ? TC_F_ALL : x & TC_F_ALL);
		if (!(ev.fields & TC_F_BYTES))
			ev.bytes = ev.count * ev.dtype_size;
		ev.count = x >> (x & 63);
		ev.tag = (int32_t)(x >> 40) - (1 << 23);
		ev.t_start = 1000 + (uint64_t)i * (x & 0xfffff);
		ev.t_end = ev.t_start + (x >> 44);
		CHECK(tc_raw_event_max_size(&ev) <= 512);
		at[i] = (size_t)(p - buf);
		p = tc_raw_encode_event(p, &ev, &d);
	}
	at[N] = (size_t)(p - buf);
	/* a copy of the exact length: an over-read shows under ASan */
	exact = malloc(at[N]);
	memcpy(exact, buf, at[N]);
	c.buf = exact;
	CHECK(at[N] > 2000);
	CHECK(tc_raw_decode_block(exact, exact + at[N], N, &d2, &s, check_block_event, &c, &nev,
				  &where, &why) == 0);
	CHECK_EQ_U64(nev, N);
	CHECK_EQ_U64(c.n, N);
	CHECK_EQ_U64(c.bad, 0);
	CHECK_EQ_U64(d2.prev_start, d.prev_start);
	CHECK_EQ_U64(d2.prev_request, d.prev_request);
	/* cut anywhere in the last record: an error at that record */
	d2 = (struct tc_raw_delta){ 3, 1000, 0 };
	nev = 0;
	CHECK(tc_raw_decode_block(exact, exact + at[N] - 1, N, &d2, &s, NULL, NULL, &nev, &where,
				  &why) == -1);
	CHECK_EQ_U64(where, N - 1);
	CHECK_EQ_U64(nev, N - 1);
	tc_raw_scratch_release(&s);
	tc_raw_scratch_release(&c.s);
	free(exact);
	free(buf);
	free(at);
}

TEST(ranklist_runs)
{
	struct tc_ranklist rl;
	int32_t all[10], out[10];
	int32_t odd[] = { 9, 0, 2, 4, 6, 3 };

	for (int i = 0; i < 10; i++)
		all[i] = i;
	tc_ranklist_init(&rl);
	tc_ranklist_from_array(&rl, all, 10);
	CHECK_EQ_U64(rl.nruns, 1);
	CHECK_EQ_U64(rl.count, 10);
	CHECK(tc_ranklist_contains(&rl, 9));
	CHECK(!tc_ranklist_contains(&rl, 10));
	tc_ranklist_from_array(&rl, odd, 6);
	CHECK_EQ_U64(rl.count, 6);
	tc_ranklist_expand(&rl, out);
	CHECK(!memcmp(out, odd, sizeof(odd)));
	CHECK(tc_ranklist_contains(&rl, 4));
	CHECK(!tc_ranklist_contains(&rl, 5));
	tc_ranklist_release(&rl);
}

struct collect {
	uint64_t n, sum_start;
	uint32_t last_op;
	uint64_t sig;
	uint32_t comm_size;
	int32_t comm_member2;
	char sym[64];
};

static int c_event(void *p, const struct tc_event *ev)
{
	struct collect *c = p;
	c->n++;
	c->sum_start += ev->t_start;
	c->last_op = ev->op;
	return 0;
}

static int c_site(void *p, const struct tc_callsite *cs)
{
	struct collect *c = p;
	c->sig = cs->signature;
	if (cs->nframes > 1)
		snprintf(c->sym, sizeof(c->sym), "%s", cs->frames[1].symbol);
	return 0;
}

static int c_comm(void *p, const struct tc_comm *cm)
{
	struct collect *c = p;
	c->comm_size = cm->size;
	c->comm_member2 = cm->size > 2 ? tc_comm_member(cm, 2) : -1;
	return 0;
}

/* tracer_ns: the trailer's optional field (0: not written); ops[0..nops):
 * the same per op (op, ns, calls; calls 0: none) */
static void write_file_ops(const char *path, uint64_t nev, size_t block_bytes, uint64_t tracer_ns,
			   const uint64_t (*ops)[3], size_t nops)
{
	struct tc_raw_header h = { 0 };
	struct tc_raw_writer_opts o = { 6, block_bytes, true };
	struct tc_raw_writer *w;
	struct tc_error err;
	struct tc_frame fr[2] = { { "/usr/lib/libfoo.so", 0x1234, "foo+0x4" },
				  { "app", 0x99, "main+0x10" } };
	struct tc_callsite cs = { 0, 0, 2, fr };
	int32_t mem[] = { 0, 2, 4, 6 };
	struct tc_comm cm = { 2, 0, TC_OP_COMM_SPLIT, 4, mem, 0, { 0 }, 0 };

	h.rank = 2;
	h.world_size = 8;
	snprintf(h.host, sizeof(h.host), "node1");
	snprintf(h.clock, sizeof(h.clock), "test");
	cs.signature = tc_stack_signature(fr, 2);
	CHECK(tc_raw_writer_open(&w, path, &h, &o, &err) == 0);
	CHECK(tc_raw_writer_callsite(w, &cs, &err) == 0);
	CHECK(tc_raw_writer_comm(w, &cm, &err) == 0);
	for (uint64_t i = 0; i < nev; i++) {
		struct tc_event ev;
		tc_event_init(&ev);
		ev.op = (i % 3) ? TC_OP_ISEND : TC_OP_WAITALL;
		ev.fields = TC_F_PEER | TC_F_TAG | TC_F_COUNT;
		ev.callsite = 0;
		ev.peer = (int32_t)(i % 8);
		ev.tag = 5;
		ev.count = i;
		ev.t_start = i * 100;
		ev.t_end = i * 100 + 10;
		CHECK(tc_raw_writer_event(w, &ev, &err) == 0);
	}
	tc_raw_writer_set_tracer_ns(w, tracer_ns);
	for (size_t i = 0; i < nops; i++)
		tc_raw_writer_set_tracer_op(w, (unsigned)ops[i][0], ops[i][1], ops[i][2]);
	CHECK(tc_raw_writer_close(&w, &err) == 0);
}

static void write_file_tracer(const char *path, uint64_t nev, size_t block_bytes,
			      uint64_t tracer_ns)
{
	write_file_ops(path, nev, block_bytes, tracer_ns, NULL, 0);
}

static void write_file(const char *path, uint64_t nev, size_t block_bytes)
{
	write_file_tracer(path, nev, block_bytes, 0);
}

/* Read path back into c and st (header checked); false if it cannot be. */
static bool read_back(const char *path, struct collect *c, struct tc_raw_stats *st)
{
	const struct tc_read_ops ops = { c_event, c_site, c_comm };
	struct tc_raw_reader *r;
	struct tc_error err;
	bool ok;

	memset(c, 0, sizeof(*c));
	if (tc_raw_open(&r, path, 0, &err))
		return false;
	CHECK_EQ_I64(tc_raw_get_header(r)->rank, 2);
	CHECK_EQ_I64(tc_raw_get_header(r)->world_size, 8);
	CHECK_STR(tc_raw_get_header(r)->host, "node1");
	ok = tc_raw_read(r, &ops, c, st, &err) == 0;
	tc_raw_close(&r);
	return ok;
}

TEST(raw_file_roundtrip_many_blocks)
{
	char path[512];
	struct tc_raw_stats st;
	struct collect c;
	const uint64_t n = 20000;

	snprintf(path, sizeof(path), "%s/a.tcr", unit_tmpdir());
	write_file(path, n, 4096);
	CHECK(read_back(path, &c, &st));
	CHECK_EQ_U64(c.n, n);
	CHECK_EQ_U64(c.sum_start, 100 * (n * (n - 1) / 2));
	CHECK(st.has_trailer);
	CHECK_EQ_U64(st.trailer.events, n);
	CHECK(st.blocks > 10);
	CHECK_STR(c.sym, "main+0x10");
	CHECK_EQ_U64(c.comm_size, 4);
	CHECK_EQ_I64(c.comm_member2, 4);
}

/* The trailer's optional fifth field: read back when written, 0 when not
 * (a file of a writer before it has four). */
TEST(raw_trailer_tracer_ns)
{
	char path[512];
	struct tc_raw_stats st;
	struct collect c;
	const uint64_t want[] = { 0, 1, 1234, 1ull << 40 };

	for (size_t i = 0; i < TC_ARRAY_SIZE(want); i++) {
		snprintf(path, sizeof(path), "%s/tr%zu.tcr", unit_tmpdir(), i);
		write_file_tracer(path, 100, 4096, want[i]);
		CHECK(read_back(path, &c, &st));
		CHECK(st.has_trailer);
		CHECK_EQ_U64(st.trailer.events, 100);
		CHECK_EQ_U64(c.n, 100);
		CHECK_EQ_U64(st.trailer.tracer_ns, want[i]);
	}
}

/* The trailer's optional sixth field, the tracer's time per op: read back
 * by op, with the mean 0 too; an op set to 0 calls is none; of more than
 * TC_TRACER_OPS ops those of the most calls are kept; the files' means per
 * op are weighted by their calls. */
TEST(raw_trailer_tracer_ops)
{
	static const uint64_t two[][3] = {
		{ TC_OP_WAITALL, 2000, 10 }, { TC_OP_ISEND, 300, 20 }, { TC_OP_RECV, 50, 7 },
		{ TC_OP_RECV, 0, 0 },
	};
	uint64_t many[TC_TRACER_OPS + 8][3];
	struct tc_tracer_op got[TC_OP_MAX];
	struct tc_tracer_ops *m = calloc(1, sizeof(*m));
	char path[512];
	struct tc_raw_stats st;
	struct collect c;

	snprintf(path, sizeof(path), "%s/ops.tcr", unit_tmpdir());
	write_file_ops(path, 100, 4096, 0, two, TC_ARRAY_SIZE(two));
	CHECK(read_back(path, &c, &st));
	CHECK(st.has_trailer);
	CHECK_EQ_U64(st.trailer.tracer_ns, 0);
	CHECK_EQ_U64(st.trailer.ntracer_op, 2);
	CHECK_EQ_U64(st.trailer.tracer_op[0].op, TC_OP_ISEND < TC_OP_WAITALL ? TC_OP_ISEND
									      : TC_OP_WAITALL);
	for (unsigned i = 0; i < st.trailer.ntracer_op; i++) {
		const struct tc_tracer_op *t = &st.trailer.tracer_op[i];
		CHECK(t->op == TC_OP_ISEND || t->op == TC_OP_WAITALL);
		CHECK_EQ_U64(t->ns, t->op == TC_OP_ISEND ? 300 : 2000);
		CHECK_EQ_U64(t->calls, t->op == TC_OP_ISEND ? 20 : 10);
	}
	/* two files: ISEND 300 x 20 and 600 x 10 is 400 over 30 calls */
	tc_tracer_ops_add(m, st.trailer.tracer_op, st.trailer.ntracer_op);
	{
		struct tc_tracer_op more = { TC_OP_ISEND, 600, 10 };
		tc_tracer_ops_add(m, &more, 1);
	}
	CHECK_EQ_U64(tc_tracer_ops_get(m, got), 2);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ_U64(got[i].ns, got[i].op == TC_OP_ISEND ? 400 : 2000);
		CHECK_EQ_U64(got[i].calls, got[i].op == TC_OP_ISEND ? 30 : 10);
	}
	/* more ops than kept: the ones of the most calls, by op */
	for (size_t i = 0; i < TC_ARRAY_SIZE(many); i++) {
		many[i][0] = 1 + i;
		many[i][1] = 10 * (1 + i);
		many[i][2] = i < 8 ? 1 : 100 + i;
	}
	write_file_ops(path, 100, 4096, 77, many, TC_ARRAY_SIZE(many));
	CHECK(read_back(path, &c, &st));
	CHECK_EQ_U64(st.trailer.tracer_ns, 77);
	CHECK_EQ_U64(st.trailer.ntracer_op, TC_TRACER_OPS);
	for (unsigned i = 0; i < st.trailer.ntracer_op; i++) {
		CHECK_EQ_U64(st.trailer.tracer_op[i].op, 9 + i);
		CHECK_EQ_U64(st.trailer.tracer_op[i].ns, 10 * (9 + i));
	}
	free(m);
}

/* The files' mean: weighted by events; unmeasured and damaged values
 * (beyond TC_TRACER_NS_MAX) count as none. */
TEST(tracer_mean_weights_and_skips)
{
	struct tc_tracer_mean m = { 0, 0 };

	CHECK_EQ_U64(tc_tracer_mean_get(&m), 0);
	tc_tracer_mean_add(&m, 0, 1000);
	tc_tracer_mean_add(&m, TC_TRACER_NS_MAX + 1, 1000);
	tc_tracer_mean_add(&m, 500, 0);
	CHECK_EQ_U64(tc_tracer_mean_get(&m), 0);
	tc_tracer_mean_add(&m, 100, 3);
	tc_tracer_mean_add(&m, 300, 1);
	CHECK_EQ_U64(tc_tracer_mean_get(&m), 150);
	tc_tracer_mean_add(&m, TC_TRACER_NS_MAX, 4);
	CHECK_EQ_U64(tc_tracer_mean_get(&m), (600 + 4 * TC_TRACER_NS_MAX + 4) / 8);
}

/* Communicator records: every member list read back as written. */
static const int32_t comm_m0[] = { 0, 2, 4, 6, 7, 8, 9 };
static const int32_t comm_m1[] = { 5, 5, 5, 3, 1, 9, 0, 8, 4 };
static const int32_t comm_m2[] = { 9 };
static const int32_t comm_m3[] = { 3, 2, 1, 0, 0, 1, 2, 3 };
static const struct { const int32_t *m; uint32_t n; } comm_lists[] = {
	{ comm_m0, 7 }, { comm_m1, 9 }, { comm_m2, 1 }, { comm_m3, 8 }, { NULL, 6 }, { NULL, 0 },
};

struct comms_seen {
	size_t n;
	bool ok;
};

static int c_comm_members(void *p, const struct tc_comm *cm)
{
	struct comms_seen *c = p;
	size_t i = c->n++;

	if (i >= TC_ARRAY_SIZE(comm_lists) || cm->size != comm_lists[i].n) {
		c->ok = false;
		return 0;
	}
	for (uint32_t k = 0; k < cm->size; k++)
		if (tc_comm_member(cm, k) != (comm_lists[i].m ? comm_lists[i].m[k] : (int32_t)k))
			c->ok = false;
	return 0;
}

TEST(raw_file_comm_members_roundtrip)
{
	char path[512];
	struct tc_raw_header h = { 0 };
	struct tc_raw_writer_opts o = { 1, 4096, false };
	struct tc_raw_writer *w;
	struct tc_raw_reader *r;
	struct tc_raw_stats st;
	struct tc_error err;
	struct comms_seen c = { 0, true };
	const struct tc_read_ops ops = { NULL, NULL, c_comm_members };

	snprintf(path, sizeof(path), "%s/comms.tcr", unit_tmpdir());
	h.rank = 0;
	h.world_size = 10;
	CHECK(tc_raw_writer_open(&w, path, &h, &o, &err) == 0);
	for (size_t i = 0; i < TC_ARRAY_SIZE(comm_lists); i++) {
		struct tc_comm cm = { (uint32_t)i + 2, 0, TC_OP_COMM_SPLIT, comm_lists[i].n,
				      comm_lists[i].m, 0, { 0 }, 0 };
		CHECK(tc_raw_writer_comm(w, &cm, &err) == 0);
	}
	CHECK(tc_raw_writer_close(&w, &err) == 0);
	CHECK(tc_raw_open(&r, path, 0, &err) == 0);
	CHECK(tc_raw_read(r, &ops, &c, &st, &err) == 0);
	CHECK_EQ_U64(c.n, TC_ARRAY_SIZE(comm_lists));
	CHECK(c.ok);
	tc_raw_close(&r);
}

/* Graph topologies: each rank's view read back as written (none, an
 * empty one, unweighted, weighted); an out-of-range edge is refused. */
static const int32_t graph_e1[] = { 3, 1, 2, 2 };          /* in 3,1; out 2,2 */
static const int32_t graph_e2[] = { 0, 4, 1, 9, 8, 0 };    /* in 0; out 4,1; weights */
static const struct tc_comm graph_comms[] = {
	{ 2, 0, TC_OP_COMM_DUP, 5, NULL, 0, { 0 }, 0, false, false, 0, 0, NULL },
	{ 3, 0, TC_OP_DIST_GRAPH_CREATE, 5, NULL, 0, { 0 }, 0, true, false, 0, 0, NULL },
	{ 4, 0, TC_OP_DIST_GRAPH_CREATE_ADJACENT, 5, NULL, 0, { 0 }, 0, true, false, 2, 2,
	  graph_e1 },
	{ 5, 2, TC_OP_GRAPH_CREATE, 5, NULL, 0, { 0 }, 0, true, true, 1, 2, graph_e2 },
};

static int c_comm_graph(void *p, const struct tc_comm *cm)
{
	struct comms_seen *c = p;
	size_t i = c->n++;
	const struct tc_comm *w = &graph_comms[i < TC_ARRAY_SIZE(graph_comms) ? i : 0];

	if (i >= TC_ARRAY_SIZE(graph_comms) || cm->id != w->id || cm->graph != w->graph ||
	    cm->weighted != w->weighted || cm->nin != w->nin || cm->nout != w->nout ||
	    tc_comm_edge_words(cm) != tc_comm_edge_words(w) ||
	    (tc_comm_edge_words(w) &&
	     memcmp(cm->edges, w->edges, tc_comm_edge_words(w) * sizeof(*w->edges))))
		c->ok = false;
	return 0;
}

static int write_graphs(const char *path, const struct tc_comm *extra)
{
	struct tc_raw_header h = { 0 };
	struct tc_raw_writer_opts o = { -1, 4096, false };
	struct tc_raw_writer *w;
	struct tc_error err;

	h.rank = 1;
	h.world_size = 5;
	if (tc_raw_writer_open(&w, path, &h, &o, &err))
		return -1;
	for (size_t i = 0; i < TC_ARRAY_SIZE(graph_comms); i++)
		CHECK(tc_raw_writer_comm(w, &graph_comms[i], &err) == 0);
	if (extra)
		CHECK(tc_raw_writer_comm(w, extra, &err) == 0);
	return tc_raw_writer_close(&w, &err);
}

TEST(raw_file_comm_graph_roundtrip)
{
	char path[512];
	struct tc_raw_reader *r;
	struct tc_raw_stats st;
	struct tc_error err;
	struct comms_seen c = { 0, true };
	const struct tc_read_ops ops = { NULL, NULL, c_comm_graph };
	const int32_t bad_e[] = { 0, 5 };  /* destination 5 of a 5-rank communicator */
	struct tc_comm bad = { 6, 0, TC_OP_DIST_GRAPH_CREATE, 5, NULL, 0, { 0 }, 0,
			       true, false, 1, 1, bad_e };

	snprintf(path, sizeof(path), "%s/graphs.tcr", unit_tmpdir());
	CHECK(write_graphs(path, NULL) == 0);
	CHECK(tc_raw_open(&r, path, 0, &err) == 0);
	CHECK_EQ_I64(tc_raw_get_header(r)->version_minor, TC_RAW_VERSION_MINOR);
	CHECK(tc_raw_read(r, &ops, &c, &st, &err) == 0);
	CHECK_EQ_U64(c.n, TC_ARRAY_SIZE(graph_comms));
	CHECK(c.ok);
	tc_raw_close(&r);

	CHECK(write_graphs(path, &bad) == 0);
	c.n = 0;
	CHECK(tc_raw_open(&r, path, 0, &err) == 0);
	CHECK(tc_raw_read(r, &ops, &c, &st, &err) == TC_ERR_FORMAT);
	CHECK(strstr(err.msg, "malformed communicator block") != NULL);
	tc_raw_close(&r);
}

static uint64_t file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	if (!f)
		return 0;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return (uint64_t)n;
}

TEST(raw_file_truncated_is_an_error_and_salvageable)
{
	char path[512];
	struct tc_raw_reader *r;
	struct tc_raw_stats st;
	struct tc_error err;
	struct collect c = { 0 };
	const struct tc_read_ops ops = { c_event, NULL, NULL };
	uint64_t size;

	snprintf(path, sizeof(path), "%s/t.tcr", unit_tmpdir());
	write_file(path, 20000, 4096);
	size = file_size(path);
	CHECK(truncate(path, (off_t)(size - 1000)) == 0);
	CHECK(tc_raw_open(&r, path, 0, &err) == 0);
	CHECK(tc_raw_read(r, &ops, &c, &st, &err) == TC_ERR_FORMAT);
	CHECK(err.offset > 0);
	CHECK(strstr(err.msg, "truncated") != NULL);
	tc_raw_close(&r);

	memset(&c, 0, sizeof(c));
	CHECK(tc_raw_open(&r, path, TC_RAW_SALVAGE, &err) == 0);
	CHECK(tc_raw_read(r, &ops, &c, &st, &err) == 0);
	CHECK(!st.has_trailer);
	CHECK(c.n > 15000 && c.n < 20000);
	CHECK_EQ_U64(c.n, st.events);
	tc_raw_close(&r);
}

TEST(raw_file_flipped_byte_skips_one_block_in_salvage)
{
	char path[512];
	struct tc_raw_reader *r;
	struct tc_raw_stats st;
	struct tc_error err;
	struct collect c = { 0 };
	const struct tc_read_ops ops = { c_event, NULL, NULL };
	FILE *f;
	uint64_t size;
	int ch;

	snprintf(path, sizeof(path), "%s/f.tcr", unit_tmpdir());
	write_file(path, 20000, 4096);
	size = file_size(path);
	f = fopen(path, "r+b");
	CHECK(f != NULL);
	fseek(f, (long)(size / 2), SEEK_SET);
	ch = fgetc(f);
	fseek(f, (long)(size / 2), SEEK_SET);
	fputc(ch ^ 0x5a, f);
	fclose(f);

	CHECK(tc_raw_open(&r, path, 0, &err) == 0);
	CHECK(tc_raw_read(r, &ops, &c, &st, &err) == TC_ERR_FORMAT);
	CHECK(err.offset > 0 && (uint64_t)err.offset <= size / 2);
	tc_raw_close(&r);

	memset(&c, 0, sizeof(c));
	CHECK(tc_raw_open(&r, path, TC_RAW_SALVAGE, &err) == 0);
	CHECK(tc_raw_read(r, &ops, &c, &st, &err) == 0);
	CHECK_EQ_U64(st.bad_blocks, 1);
	CHECK(st.has_trailer);
	CHECK(c.n < 20000 && c.n > 18000);
	tc_raw_close(&r);
}

TEST(raw_open_rejects_bad_magic_and_future_version)
{
	char path[512];
	struct tc_raw_reader *r = NULL;
	struct tc_error err;
	FILE *f;

	snprintf(path, sizeof(path), "%s/m.tcr", unit_tmpdir());
	write_file(path, 10, 4096);
	f = fopen(path, "r+b");
	fseek(f, 8, SEEK_SET);
	fputc(2, f); /* major version 2 */
	fclose(f);
	CHECK(tc_raw_open(&r, path, 0, &err) == TC_ERR_VERSION);
	CHECK_EQ_I64(err.offset, 8);
	CHECK(r == NULL);
	f = fopen(path, "r+b");
	fputc('X', f);
	fclose(f);
	CHECK(tc_raw_open(&r, path, 0, &err) == TC_ERR_FORMAT);
	CHECK_EQ_I64(err.offset, 0);
	snprintf(path, sizeof(path), "%s/does-not-exist.tcr", unit_tmpdir());
	CHECK(tc_raw_open(&r, path, 0, &err) == TC_ERR_IO);
}
