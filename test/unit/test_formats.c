/*
 * Unit tests of the readers of other tools' formats (ScalaTrace V2,
 * SST DUMPI), format detection and trace-set discovery.
 *
 * Fixtures are written here or read from testdata/ (run from the top of
 * the source tree, as make check does).
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "formats/foreign.h"
#include "formats/raw.h"
#include "formats/reader.h"
#include "formats/traceset.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/pool.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_EV 512

/* What a read collected. */
struct got {
	struct tc_event ev[MAX_EV];
	struct tc_completion compl[MAX_EV][4];
	size_t n;
	size_t sites, comms;
};

static int on_event(void *ctx, const struct tc_event *ev)
{
	struct got *g = ctx;

	if (g->n < MAX_EV) {
		g->ev[g->n] = *ev;
		for (uint32_t i = 0; i < ev->ncompl && i < 4; i++)
			g->compl[g->n][i] = ev->compl[i];
		g->ev[g->n].compl = NULL;
		g->ev[g->n].scounts = g->ev[g->n].rcounts = NULL;
	}
	g->n++;
	return 0;
}

static int on_callsite(void *ctx, const struct tc_callsite *cs)
{
	(void)cs;
	((struct got *)ctx)->sites++;
	return 0;
}

static int on_comm(void *ctx, const struct tc_comm *c)
{
	(void)c;
	((struct got *)ctx)->comms++;
	return 0;
}

static const struct tc_read_ops ops = { on_event, on_callsite, on_comm };

static char *write_tmp(const char *name, const char *text)
{
	size_t len = strlen(unit_tmpdir()) + strlen(name) + 2;
	char *path = tc_xmalloc(len);
	FILE *f;

	snprintf(path, len, "%s/%s", unit_tmpdir(), name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

/* Read rank stream `rank` of path (format detected) into g. */
static int read_rank(const char *path, uint32_t rank, struct got *g, struct tc_error *err)
{
	struct tc_reader *r;
	int rc;

	memset(g, 0, sizeof(*g));
	tc_error_clear(err);
	rc = tc_reader_open(&r, path, TC_FMT_AUTO, rank, 0, err);
	if (rc)
		return rc;
	rc = tc_reader_read(r, &ops, g, NULL, err);
	tc_reader_close(&r);
	return rc;
}

/* ---- formats and detection ----------------------------------------------- */

TEST(format_names)
{
	CHECK_EQ_I64(tc_format_from_name("auto"), TC_FMT_AUTO);
	CHECK_EQ_I64(tc_format_from_name("raw"), TC_FMT_RAW);
	CHECK_EQ_I64(tc_format_from_name("scalatrace"), TC_FMT_SCALATRACE);
	CHECK_EQ_I64(tc_format_from_name("dumpi"), TC_FMT_DUMPI);
	CHECK_EQ_I64(tc_format_from_name("otf2"), TC_FMT_OTF2);
	CHECK_EQ_I64(tc_format_from_name("vtf"), -1);
	CHECK_STR(tc_format_name(TC_FMT_OTF2), "otf2");
	CHECK_STR(tc_format_name(TC_FMT_SCALATRACE), "scalatrace");
	CHECK_STR(tc_format_name(TC_FMT_DUMPI), "dumpi");
	CHECK_STR(tc_format_name(TC_FMT_RAW), "raw");
}

TEST(format_detection_from_content)
{
	struct tc_error err;
	char *st = write_tmp("st.trace", "RANKS: 1 -1 0 1 0\nEVENT0: 1084 400\n\n");
	char *meta = write_tmp("m.meta", "hostname=h\nnumprocs=2\nfileprefix=m\n");
	char *junk = write_tmp("junk", "hello world\n");
	char *du = write_tmp("x-0000.bin", TC_DUMPI_MAGIC "and more");

	CHECK_EQ_I64(tc_format_detect(st, &err), TC_FMT_SCALATRACE);
	CHECK_EQ_I64(tc_format_detect(meta, &err), TC_FMT_DUMPI);
	CHECK_EQ_I64(tc_format_detect(du, &err), TC_FMT_DUMPI);
	/* unknown content: the raw reader's "bad magic" is the answer */
	CHECK_EQ_I64(tc_format_detect(junk, &err), TC_FMT_RAW);
	CHECK_EQ_I64(tc_format_detect("/nonexistent/file", &err), -1);
	CHECK(tc_dumpi_meta_probe("numprocs=4\nfileprefix=t\n", 24));
	CHECK(!tc_dumpi_meta_probe("numprocs=4\n", 11));
	CHECK(!tc_dumpi_meta_probe("RANKS: 1 -1 0 4 1\n", 18));
	free(st);
	free(meta);
	free(junk);
	free(du);
}

/* ---- ScalaTrace ------------------------------------------------------------ */

TEST(scalatrace_multi_list_ranklists)
{
	/* lists {0,4} x {0,1,2}: ranks 0 1 2 4 5 6; then 3 and 7 */
	char *p = write_tmp("rl.st",
			    "RANKS: 1 -2 0 2 4 3 1\nEVENT0: 1084 400100\n\n"
			    "RANKS: 2 -1 3 1 0 -1 7 1 0\nEVENT1: 1010 400200\n10 2 \n\n");
	struct got g;
	struct tc_error err;
	int32_t world = 0;

	CHECK_EQ_I64(tc_scalatrace_world(p, 0, &world, &err), 0);
	CHECK_EQ_I64(world, 8);
	CHECK_EQ_I64(read_rank(p, 5, &g, &err), 0);
	CHECK_EQ_U64(g.n, 1);
	CHECK_EQ_U64(g.ev[0].op, TC_OP_INIT);
	CHECK_EQ_I64(read_rank(p, 7, &g, &err), 0);
	CHECK_EQ_U64(g.n, 1);
	CHECK_EQ_U64(g.ev[0].op, TC_OP_BARRIER);
	CHECK_EQ_U64(g.ev[0].comm, TC_COMM_WORLD);
	CHECK((g.ev[0].fields & TC_F_COMM) != 0);
	CHECK_EQ_I64(read_rank(p, 3, &g, &err), 0);
	CHECK_EQ_U64(g.n, 1);
	/* no rank 8 in a world of 8 */
	{
		struct tc_reader *r;
		CHECK_EQ_I64(tc_reader_open(&r, p, TC_FMT_SCALATRACE, 8, 0, &err), TC_ERR_USAGE);
		CHECK(r == NULL);
	}
	free(p);
}

TEST(scalatrace_peers_values_loops_and_times)
{
	/*
	 * 3 ranks. A loop of 3 iterations over two events; the send's COUNT
	 * list (1 2) cycles per occurrence, its DEST is relative (+2), the
	 * receive is from any source; gaps and durations are the COMP/COMM
	 * means keyed by the previous event's signature (microseconds).
	 */
	char *p = write_tmp("loop.st",
		"RANKS: 1 -1 0 3 1\nEVENT0: 1084 400100\n\n"
		"RANKS: 1 -1 0 3 1\nEVENT1: 1113 400200\n"
		"COMP 4b-0: 400100 (3 7.00 0 7.00 0 7.00){0.00 7.00 7.00 7.00 9.00 3}\n"
		"COMP 4b-1: 400300 (6 2.50 0 2.00 1 3.00){0.00 2.00 2.50 3.00 4.00 6}\n"
		"COMM 4b-0: 400100 (3 1.00 0 1.00 0 1.00){0.00 1.00 1.00 1.00 2.00 3}\n"
		"LOOP0: iter: ( 3 )[ 1 -1 0 3 1 ] mem: ( 2 )[ 1 -1 0 3 1 ]\n"
		"10 2 \n12 1 2 \n14 3 \n1a 2 \n1b 0 \n\n"
		"RANKS: 1 -1 0 3 1\nEVENT1: 1102 400300\n"
		"10 2 \n12 4 \n14 10 \n1b 5 \n2b 2147483647 \n\n"
		"RANKS: 1 -1 0 3 1\nEVENT3: 1045 400400\n\n");
	struct got g;
	struct tc_error err;
	char *q;

	/* EVENT numbers must run in sequence */
	CHECK_EQ_I64(read_rank(p, 0, &g, &err), TC_ERR_FORMAT);
	CHECK(strstr(err.msg, "line 17: EVENT1 out of sequence (expected EVENT2)") != NULL);
	free(p);
	p = write_tmp("loop2.st",
		"RANKS: 1 -1 0 3 1\nEVENT0: 1084 400100\n\n"
		"RANKS: 1 -1 0 3 1\nEVENT1: 1113 400200\n"
		"COMP 4b-0: 400100 (3 7.00 0 7.00 0 7.00){0.00 7.00 7.00 7.00 9.00 3}\n"
		"COMP 4b-1: 400300 (6 2.50 0 2.00 1 3.00){0.00 2.00 2.50 3.00 4.00 6}\n"
		"COMM 4b-0: 400100 (3 1.00 0 1.00 0 1.00){0.00 1.00 1.00 1.00 2.00 3}\n"
		"LOOP0: iter: ( 3 )[ 1 -1 0 3 1 ] mem: ( 2 )[ 1 -1 0 3 1 ]\n"
		"10 2 \n12 1 2 \n14 3 \n1a 2 \n1b 0 \n\n"
		"RANKS: 1 -1 0 3 1\nEVENT2: 1102 400300\n"
		"10 2 \n12 4 \n14 10 \n1b 5 \n2b 2147483647 \n\n"
		"RANKS: 1 -1 0 3 1\nEVENT3: 1045 400400\n\n");
	CHECK_EQ_I64(read_rank(p, 1, &g, &err), 0);
	CHECK_EQ_U64(g.n, 8);
	CHECK_EQ_U64(g.sites, 4);
	CHECK_EQ_U64(g.ev[1].op, TC_OP_SEND);
	CHECK_EQ_I64(g.ev[1].peer, 0);            /* (1 + 2) % 3 */
	CHECK_EQ_U64(g.ev[1].count, 1);
	CHECK_EQ_U64(g.ev[3].count, 2);
	CHECK_EQ_U64(g.ev[5].count, 1);
	CHECK_EQ_U64(g.ev[1].dtype, TC_DT_INT);
	CHECK_EQ_U64(tc_event_bytes(&g.ev[3]), 8);
	CHECK_EQ_U64(g.ev[2].op, TC_OP_RECV);
	CHECK_EQ_I64(g.ev[2].peer, TC_ANY_SOURCE);
	CHECK_EQ_U64(g.ev[2].dtype, TC_DT_DOUBLE);
	CHECK_EQ_I64(g.ev[2].tag, 5);
	CHECK_EQ_U64(g.ev[7].op, TC_OP_FINALIZE);
	/* the first send: 7 us after MPI_Init, lasting 1 us */
	CHECK_EQ_U64(g.ev[1].t_start, 7000);
	CHECK_EQ_U64(g.ev[1].t_end, 8000);
	/* later sends follow the receive: 2.5 us gap, no duration keyed */
	CHECK_EQ_U64(g.ev[3].t_start, g.ev[2].t_end + 2500);
	CHECK_EQ_U64(g.ev[3].t_end, g.ev[3].t_start);
	for (size_t i = 1; i < g.n; i++)
		CHECK(g.ev[i].t_start >= g.ev[i - 1].t_end);
	/* the same trace read twice gives the same stream */
	{
		struct got *h = tc_xmalloc(sizeof(*h));
		CHECK_EQ_I64(read_rank(p, 1, h, &err), 0);
		CHECK_EQ_U64(h->n, g.n);
		CHECK_EQ_U64(h->ev[5].count, 1);
		CHECK_EQ_U64(h->ev[6].t_end, g.ev[6].t_end);
		free(h);
	}
	q = p;
	free(q);
}

TEST(scalatrace_nested_loop_counts_cycle)
{
	/* outer loop of 2 over the inner loop; the inner loop runs 2 times,
	 * then 3 times: 5 barriers in all, then one allreduce per outer
	 * iteration */
	char *p = write_tmp("nest.st",
		"RANKS: 1 -1 0 1 0\nEVENT0: 1084 400100\n\n"
		"RANKS: 1 -1 0 1 0\nEVENT1: 1010 400200\n"
		"LOOP0: iter: ( 2 )[ 1 -1 0 1 0 ] mem: ( 2 )[ 1 -1 0 1 0 ]\n"
		"LOOP1: iter: ( 2 3 )[ 1 -1 0 1 0 ] mem: ( 1 )[ 1 -1 0 1 0 ]\n"
		"10 2 \n\n"
		"RANKS: 1 -1 0 1 0\nEVENT2: 1004 400300\n10 2 \n12 1 \n14 3 \n18 1 \n\n"
		"RANKS: 1 -1 0 1 0\nEVENT3: 1045 400400\n\n");
	struct got g;
	struct tc_error err;
	size_t barriers = 0;

	CHECK_EQ_I64(read_rank(p, 0, &g, &err), 0);
	CHECK_EQ_U64(g.n, 1 + 5 + 2 + 1);
	for (size_t i = 0; i < g.n; i++)
		barriers += g.ev[i].op == TC_OP_BARRIER;
	CHECK_EQ_U64(barriers, 5);
	CHECK_EQ_U64(g.ev[3].op, TC_OP_ALLREDUCE);
	CHECK_EQ_U64(g.ev[3].redop, TC_RED_MAX);
	CHECK_EQ_U64(g.ev[7].op, TC_OP_ALLREDUCE);
	free(p);
}

TEST(scalatrace_requests_and_vectors)
{
	/* two receives then a waitall of the last two requests (offsets
	 * 9998 9999 of ScalaTrace's request ring); a vector parameter */
	char *p = write_tmp("req.st",
		"RANKS: 1 -1 0 2 1\nEVENT0: 1090 400100\n"
		"10 2 \n12 3 \n14 3 \n1b 1 \n2b 1 \n\n"
		"RANKS: 1 -1 0 2 1\nEVENT1: 1090 400200\n"
		"10 2 \n12 5 \n14 3 \n1b 1 \n2b 1 \n\n"
		"RANKS: 1 -1 0 2 1\nEVENT2: 1149 400300\n12 2 \nc 9998 9999 \n\n"
		"RANKS: 1 -1 0 2 1\nEVENT3: 1006 400400\n10 2 \n14 3 \n"
		"3 ( 1 2 )[ 1 -1 0 1 0 ]\n3 ( 3 4 )[ 1 -1 1 1 0 ]\n1 5 6 \n\n");
	struct got g;
	struct tc_error err;

	CHECK_EQ_I64(read_rank(p, 1, &g, &err), 0);
	CHECK_EQ_U64(g.n, 4);
	CHECK_EQ_U64(g.ev[0].request, 1);
	CHECK_EQ_U64(g.ev[1].request, 2);
	CHECK_EQ_I64(g.ev[0].peer, 0);
	CHECK_EQ_U64(g.ev[2].op, TC_OP_WAITALL);
	CHECK_EQ_U64(g.ev[2].ncompl, 2);
	CHECK_EQ_U64(g.compl[2][0].request, 1);
	CHECK_EQ_U64(g.compl[2][1].request, 2);
	CHECK_EQ_I64(g.compl[2][1].source, 0);
	CHECK_EQ_U64(g.compl[2][1].bytes, 20);
	CHECK_EQ_U64(g.ev[3].op, TC_OP_ALLTOALLV);
	CHECK_EQ_U64(g.ev[3].nscounts, 2);
	CHECK_EQ_U64(g.ev[3].nrcounts, 2);
	CHECK((g.ev[3].fields & (TC_F_SCOUNTS | TC_F_RCOUNTS)) == (TC_F_SCOUNTS | TC_F_RCOUNTS));
	free(p);
}

static void expect_error(const char *name, const char *text, int code, const char *msg)
{
	char *p = write_tmp(name, text);
	struct got g;
	struct tc_error err;
	int rc = read_rank(p, 0, &g, &err);

	CHECK_EQ_I64(rc, code);
	if (!strstr(err.msg, msg))
		unit_fail(__FILE__, __LINE__, "%s: '%s' does not contain '%s'", name, err.msg, msg);
	free(p);
}

TEST(scalatrace_malformed_input_is_one_clear_error)
{
	expect_error("e1", "RANKS: 1 -1 0\nEVENT0: 1084 1\n\n", TC_ERR_FORMAT,
		     "line 1: bad ranklist: list 1 is cut short");
	expect_error("e2", "RANKS: 1 -1 0 2 1 9\nEVENT0: 1084 1\n\n", TC_ERR_FORMAT,
		     "line 1: bad ranklist: 1 numbers after the last list");
	expect_error("e3", "RANKS: 1 -1 -5 2 1\nEVENT0: 1084 1\n\n", TC_ERR_FORMAT,
		     "line 1: bad ranklist: rank -5 out of range");
	expect_error("e4", "RANKS: 1 -1 0 99999999 1\nEVENT0: 1084 1\n\n", TC_ERR_FORMAT,
		     "line 1: bad ranklist");
	expect_error("e5", "RANKS: 1 -1 0 2 1\nEVENT0: 1084 1\n", TC_ERR_FORMAT,
		     "line 2: truncated: the last event is not ended by a blank line");
	expect_error("e6", "RANKS: 1 -1 0 2 1\nEVENT0: 10", TC_ERR_FORMAT,
		     "line 2: truncated: the file ends inside a line");
	expect_error("e7", "RANKS: 1 -1 0 2 1\n10 2\n\n", TC_ERR_FORMAT,
		     "line 1: event without an EVENT line");
	expect_error("e8", "RANKS: 1 -1 0 2 1\nEVENT0: 77 1\n\n", TC_ERR_FORMAT,
		     "line 2: unknown operation code 77");
	expect_error("e9", "RANKS: 1 -1 0 2 1\nEVENT0: 1113 1\n2b ( 1 )[ 1 -1 0 2 1\n\n",
		     TC_ERR_FORMAT, "line 3: bad ranklist: missing ']'");
	expect_error("e10", "RANKS: 1 -1 0 2 1\nEVENT0: 1113 1\nzz 1\n\n", TC_ERR_FORMAT,
		     "line 3: unrecognised line");
	expect_error("e11", "RANKS: 1 -1 0 1 0\nEVENT0: 1010 1\n"
		     "LOOP0: iter: ( 2 )[ 1 -1 0 1 0 ] mem: ( 5 )[ 1 -1 0 1 0 ]\n\n",
		     TC_ERR_FORMAT, "line 1: rank 0: loop body runs past the end of the trace");
	expect_error("e12", "RANKS: 1 -1 0 1 0\nEVENT0: 1010 1\n"
		     "LOOP0: iter: ( 2 )[ 1 -1 0 1 0 ]\n\n", TC_ERR_FORMAT,
		     "line 3: expected 'mem:' in a loop");
	expect_error("e13", "RANKS: 1 -1 0 1 0\nEVENT0: 1010 1\n"
		     "COMP 4b-0: 1 (3 x 0 1 0 1){}\n\n", TC_ERR_FORMAT, "line 3: bad histogram");
	expect_error("e15", "RANKS: 1 -40 0 2 1\nEVENT0: 1084 1\n\n", TC_ERR_FORMAT,
		     "line 1: bad ranklist: depth marker -40");
}

TEST(scalatrace_empty_file)
{
	char *p = write_tmp("empty.st", "");
	struct tc_reader *r;
	struct tc_error err;

	CHECK_EQ_I64(tc_reader_open(&r, p, TC_FMT_SCALATRACE, 0, 0, &err), TC_ERR_FORMAT);
	CHECK(strstr(err.msg, "empty file") != NULL);
	free(p);
}

TEST(scalatrace_hostile_mutations_never_crash)
{
	/* cut the chain fixture at every length and flip bytes: each read
	 * either succeeds or fails cleanly (run under the sanitizers) */
	FILE *f = fopen("testdata/scalatrace/chain4.st", "r");
	char *buf = tc_xmalloc(1 << 16), *p;
	size_t len;
	unsigned seed = 12345;

	if (!f) {
		unit_fail(__FILE__, __LINE__, "testdata/scalatrace/chain4.st missing (run from the top)");
		free(buf);
		return;
	}
	len = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	buf[len] = '\0';
	for (int it = 0; it < 120; it++) {
		char *m = tc_xmalloc(len + 1);
		struct got *g = tc_xmalloc(sizeof(*g));
		struct tc_error err;
		size_t cut = it < 40 ? len * (size_t)it / 40 : len;
		int rc;

		memcpy(m, buf, len + 1);
		m[cut] = '\0';
		for (int k = 0; it >= 40 && k < 1 + it % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			m[(seed >> 8) % len] = "0123456789 -()[]\n9x"[(seed >> 20) % 19];
		}
		p = write_tmp("mut.st", m);
		rc = read_rank(p, (uint32_t)(it % 4), g, &err);
		CHECK(rc == 0 || rc == TC_ERR_FORMAT || rc == TC_ERR_USAGE);
		if (rc)
			CHECK(err.msg[0] != '\0');
		free(p);
		free(g);
		free(m);
	}
	free(buf);
}

/* ---- DUMPI ------------------------------------------------------------------ */

TEST(dumpi_function_table_matches_funclabels)
{
	static const struct {
		unsigned id;
		const char *name;
	} want[] = {
		{ 0, "MPI_Send" }, { 1, "MPI_Recv" }, { 8, "MPI_Isend" }, { 12, "MPI_Irecv" },
		{ 13, "MPI_Wait" }, { 18, "MPI_Waitall" }, { 33, "MPI_Sendrecv" },
		{ 52, "MPI_Barrier" }, { 65, "MPI_Allreduce" }, { 81, "MPI_Comm_size" },
		{ 82, "MPI_Comm_rank" }, { 86, "MPI_Comm_split" }, { 99, "MPI_Cart_create" },
		{ 124, "MPI_Init" }, { 125, "MPI_Finalize" }, { 128, "MPI_Pcontrol" },
		{ 155, "MPI_Alltoallw" }, { 156, "MPI_Exscan" }, { 171, "MPI_Init_thread" },
		{ 230, "MPI_File_open" }, { 251, "MPI_File_write_all" }, { 281, "MPI_File_sync" },
		{ 289, "MPIO_Testsome" }, { 290, "MPI_ALL_FUNCTIONS" }, { 291, "Function_enter" },
		{ 292, "Function_exit" }, { 293, "END_OF_STREAM" },
	};

	for (size_t i = 0; i < TC_ARRAY_SIZE(want); i++)
		CHECK_STR(tc_dumpi_function_name(want[i].id), want[i].name);
	CHECK(tc_dumpi_function_name(294) == NULL);
}

TEST(dumpi_file_names_and_meta)
{
	struct tc_dumpi_meta m;
	struct tc_error err;
	char *p;

	CHECK_EQ_I64(tc_dumpi_file_rank("dir/ring-0003.bin"), 3);
	CHECK_EQ_I64(tc_dumpi_file_rank("a-b-12345.bin"), 12345);
	CHECK_EQ_I64(tc_dumpi_file_rank("ring.bin"), -1);
	CHECK_EQ_I64(tc_dumpi_file_rank("ring-00x1.bin"), -1);
	CHECK_EQ_I64(tc_dumpi_file_rank("ring-0001.meta"), -1);
	p = write_tmp("t.meta", "hostname=h1\nnumprocs=16\nusername=u\nfileprefix=run\n");
	CHECK_EQ_I64(tc_dumpi_read_meta(p, &m, &err), 0);
	CHECK_EQ_I64(m.numprocs, 16);
	CHECK_STR(m.prefix, "run");
	CHECK_STR(m.host, "h1");
	free(p);
	p = write_tmp("u.meta", "numprocs=0\nfileprefix=run\n");
	CHECK_EQ_I64(tc_dumpi_read_meta(p, &m, &err), TC_ERR_FORMAT);
	CHECK(strstr(err.msg, "line 1: bad numprocs") != NULL);
	free(p);
	p = write_tmp("v.meta", "numprocs=3\n");
	CHECK_EQ_I64(tc_dumpi_read_meta(p, &m, &err), TC_ERR_FORMAT);
	CHECK(strstr(err.msg, "no fileprefix= line") != NULL);
	free(p);
	p = write_tmp("w.meta", "numprocs=3\nfileprefix=../x\n");
	CHECK_EQ_I64(tc_dumpi_read_meta(p, &m, &err), TC_ERR_FORMAT);
	free(p);
}

TEST(dumpi_ring_fixture_fields)
{
	struct got g;
	struct tc_error err;
	struct tc_reader *r;

	CHECK_EQ_I64(read_rank("testdata/dumpi/ring/ring-0001.bin", 0, &g, &err), 0);
	CHECK_EQ_U64(g.n, 17);
	CHECK_EQ_U64(g.sites, 2);
	CHECK_EQ_U64(g.comms, 1);
	CHECK_EQ_U64(g.ev[0].op, TC_OP_INIT);
	CHECK_EQ_U64(g.ev[0].t_start, 1005000);      /* wall time after the bias */
	CHECK_EQ_U64(g.ev[1].op, TC_OP_IRECV);
	CHECK_EQ_I64(g.ev[1].peer, 0);
	CHECK_EQ_I64(g.ev[1].tag, 5);
	CHECK_EQ_U64(g.ev[1].count, 8);
	CHECK_EQ_U64(g.ev[1].dtype, TC_DT_INT);
	CHECK_EQ_U64(g.ev[1].request, 1);
	CHECK_EQ_U64(g.ev[3].op, TC_OP_WAITALL);
	CHECK_EQ_U64(g.ev[3].ncompl, 2);
	CHECK_EQ_U64(g.compl[3][0].request, 1);
	CHECK_EQ_I64(g.compl[3][0].source, 0);
	CHECK_EQ_U64(g.compl[3][0].bytes, 32);
	CHECK_EQ_U64(g.compl[3][1].request, 2);
	CHECK_EQ_I64(g.compl[3][1].source, TC_PEER_NONE);   /* a send */
	CHECK_EQ_U64(g.ev[10].op, TC_OP_ALLREDUCE);
	CHECK_EQ_U64(g.ev[10].redop, TC_RED_SUM);
	CHECK_EQ_U64(g.ev[10].dtype, TC_DT_DOUBLE);
	CHECK_EQ_U64(g.ev[11].op, TC_OP_COMM_SPLIT);
	CHECK_EQ_I64(g.ev[11].color, 1);
	CHECK_EQ_U64(g.ev[11].newcomm, 4);
	CHECK_EQ_U64(g.ev[12].op, TC_OP_BCAST);
	CHECK_EQ_U64(g.ev[12].comm, 4);
	CHECK_EQ_U64(g.ev[13].op, TC_OP_GATHER);
	CHECK_EQ_U64(g.ev[14].op, TC_OP_SEND);
	CHECK_EQ_U64(g.ev[14].dtype, TC_DT_DERIVED);
	CHECK_EQ_U64(g.ev[14].dtype_size, 16);        /* from the size table */
	CHECK_EQ_U64(g.ev[15].op, TC_OP_RECV);
	CHECK_EQ_I64(g.ev[15].peer, TC_ANY_SOURCE);
	CHECK_EQ_I64(g.compl[15][0].source, 0);        /* the status says who */
	CHECK_EQ_U64(g.ev[16].op, TC_OP_FINALIZE);
	CHECK_EQ_I64(tc_reader_open(&r, "testdata/dumpi/ring/ring-0001.bin", TC_FMT_DUMPI, 0, 0,
				    &err), 0);
	if (r) {
		CHECK_EQ_I64(tc_reader_header(r)->rank, 1);
		CHECK_EQ_I64(tc_reader_header(r)->world_size, 2);
		CHECK_STR(tc_reader_header(r)->host, "fixture-host");
		CHECK_STR(tc_reader_format_name(r), "dumpi");
		tc_reader_close(&r);
	}
	/* the .meta file names the rank files */
	CHECK_EQ_I64(tc_reader_open(&r, "testdata/dumpi/ring/ring.meta", TC_FMT_AUTO, 1, 0, &err), 0);
	if (r) {
		CHECK_EQ_I64(tc_reader_header(r)->rank, 1);
		tc_reader_close(&r);
	}
}

TEST(dumpi_old_layout_and_damage)
{
	struct got g;
	struct tc_error err;
	struct tc_reader *r;
	struct tc_raw_stats rs;

	CHECK_EQ_I64(read_rank("testdata/dumpi/old/old-0000.bin", 0, &g, &err), 0);
	CHECK_EQ_U64(g.n, 5);
	CHECK_EQ_U64(g.ev[1].op, TC_OP_IRECV);
	CHECK_EQ_I64(g.ev[1].peer, TC_ANY_SOURCE);
	CHECK_EQ_U64(g.ev[2].ncompl, 1);
	CHECK_EQ_U64(g.compl[2][0].bytes, 12);
	CHECK_EQ_I64(read_rank("testdata/dumpi/badmagic/bad-0000.bin", 0, &g, &err), TC_ERR_FORMAT);
	CHECK(strstr(err.msg, "bad magic") != NULL);
	CHECK_EQ_I64(err.offset, 0);
	CHECK_EQ_I64(read_rank("testdata/dumpi/absurd/absurd-0000.bin", 0, &g, &err), TC_ERR_FORMAT);
	CHECK(strstr(err.msg, "absurd array length 2147483647") != NULL);
	CHECK(err.offset > 8);
	CHECK_EQ_I64(read_rank("testdata/dumpi/truncated/trunc-0000.bin", 0, &g, &err),
		     TC_ERR_FORMAT);
	CHECK(strstr(err.msg, "truncated") != NULL);
	/* salvage keeps the records before the cut */
	CHECK_EQ_I64(tc_reader_open(&r, "testdata/dumpi/truncated/trunc-0000.bin", TC_FMT_AUTO, 0,
				    TC_RAW_SALVAGE, &err), 0);
	if (r) {
		memset(&g, 0, sizeof(g));
		CHECK_EQ_I64(tc_reader_read(r, &ops, &g, &rs, &err), 0);
		CHECK(g.n >= 4);
		CHECK(!rs.has_trailer);
		CHECK_EQ_U64(rs.bad_blocks, 1);
		CHECK(rs.first_error >= 8);
		tc_reader_close(&r);
	}
}

TEST(dumpi_hostile_mutations_never_crash)
{
	FILE *f = fopen("testdata/dumpi/ring/ring-0000.bin", "rb");
	uint8_t *buf = tc_xmalloc(8192);
	size_t len;
	unsigned seed = 777;
	char path[512];

	if (!f) {
		unit_fail(__FILE__, __LINE__, "testdata/dumpi/ring missing (run from the top)");
		free(buf);
		return;
	}
	len = fread(buf, 1, 8192, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/mut-0000.bin", unit_tmpdir());
	for (int it = 0; it < 150; it++) {
		uint8_t *m = tc_xmalloc(len);
		struct got *g = tc_xmalloc(sizeof(*g));
		struct tc_error err;
		struct tc_reader *r;
		size_t n = len;
		int rc;

		memcpy(m, buf, len);
		for (int k = 0; k < 1 + it % 5; k++) {
			seed = seed * 1103515245u + 12345u;
			m[8 + (seed >> 8) % (len - 8)] = (uint8_t)(seed >> 16);
		}
		if (it % 3 == 0)
			n = len * (size_t)(it % 10 + 1) / 11;
		f = fopen(path, "wb");
		if (f) {
			fwrite(m, 1, n, f);
			fclose(f);
		}
		memset(g, 0, sizeof(*g));
		rc = tc_reader_open(&r, path, TC_FMT_DUMPI, 0, it % 2 ? TC_RAW_SALVAGE : 0, &err);
		if (!rc) {
			rc = tc_reader_read(r, &ops, g, NULL, &err);
			tc_reader_close(&r);
		}
		CHECK(rc == 0 || rc == TC_ERR_FORMAT);
		free(g);
		free(m);
	}
	free(buf);
}

/* ---- trace sets ------------------------------------------------------------------ */

TEST(traceset_discovers_streams_of_every_format)
{
	struct tc_pool *pool = tc_pool_new(2);
	struct tc_traceset *ts;
	struct tc_error err;

	CHECK_EQ_I64(tc_traceset_open(&ts, "testdata/scalatrace/chain4.st", 0, pool, &err), 0);
	if (ts) {
		CHECK_EQ_U64(ts->nfiles, 4);
		CHECK_EQ_I64(ts->world_size, 4);
		for (size_t i = 0; i < ts->nfiles; i++) {
			CHECK_EQ_I64(ts->files[i].hdr.rank, (int64_t)i);
			CHECK_EQ_U64(ts->files[i].index, i);
			CHECK_EQ_U64(ts->files[i].format, TC_FMT_SCALATRACE);
		}
		CHECK_EQ_I64(tc_traceset_check(ts, &err), 0);
		tc_traceset_free(&ts);
	}
	CHECK_EQ_I64(tc_traceset_open(&ts, "testdata/dumpi/ring", 0, pool, &err), 0);
	if (ts) {
		CHECK_EQ_U64(ts->nfiles, 2);
		CHECK_EQ_I64(ts->files[1].hdr.rank, 1);
		CHECK_EQ_U64(ts->files[1].format, TC_FMT_DUMPI);
		CHECK_EQ_I64(tc_traceset_check(ts, &err), 0);
		tc_traceset_free(&ts);
	}
	CHECK_EQ_I64(tc_traceset_open(&ts, "testdata/dumpi/ring/ring.meta", 0, pool, &err), 0);
	if (ts) {
		CHECK_EQ_U64(ts->nfiles, 2);
		tc_traceset_free(&ts);
	}
	/* a forced format that does not fit is an error, not a guess */
	CHECK(tc_traceset_open_format(&ts, "testdata/dumpi/ring", TC_FMT_SCALATRACE, 0, pool,
				      &err) != 0);
	CHECK(strstr(err.msg, "no ScalaTrace trace") != NULL);
	CHECK(tc_traceset_open_format(&ts, "testdata/scalatrace/chain4.st", TC_FMT_DUMPI, 0, pool,
				      &err) != 0);
	tc_pool_free(pool);
}
