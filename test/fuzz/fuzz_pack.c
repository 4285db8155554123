/*
 * fuzz_pack.c - a rank's trace as tracecluster-mpi hands it between
 * processes (lib/pack.h, tc_rank_trace_unpack): whatever the bytes, they
 * are refused or read into a trace that every reader can walk, and that
 * packs into bytes that read back whole.
 */
#include "lib/compat.h"
#include "cluster/signature.h"
#include "lib/event.h"
#include "lib/pack.h"
#include "lib/rsd.h"
#include "lib/strbuf.h"
#include "lib/trace.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tc_unpack u;
	struct tc_rank_trace *t;
	struct tc_rsd_iter it;
	struct tc_rsd_info info;
	struct tc_signatures sig;
	struct tc_event ev;
	struct tc_strbuf sb = TC_STRBUF_INIT;
	uint64_t n = 0;

	tc_unpack_init(&u, data, size);
	t = tc_rank_trace_unpack(&u);
	if (!t)
		return 0;
	/* bounded: a loop count may claim more events than any trace has */
	tc_rsd_iter_init(&it, t->seq);
	while (n < 100000 && tc_rsd_iter_next(&it, &ev))
		n++;
	tc_rsd_iter_release(&it);
	tc_rsd_info(t->seq, &info);
	tc_rsd_format(t->seq, &sb, TC_RSD_FMT_SHAPE);
	tc_strbuf_reset(&sb);
	if (n < 100000)
		tc_signatures_compute(t, &sig);
	{
		struct tc_unpack v;
		struct tc_rank_trace *t2;
		tc_rank_trace_pack(t, &sb);
		tc_unpack_init(&v, sb.buf, sb.len);
		t2 = tc_rank_trace_unpack(&v);
		if (!t2 || !tc_unpack_done(&v))
			abort();
		tc_rank_trace_free(&t2);
	}
	tc_strbuf_release(&sb);
	tc_rank_trace_free(&t);
	return 0;
}
