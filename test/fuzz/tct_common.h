/*
 * tct_common.h - one global trace target body for the three forms
 * (fuzz_tct_text.c, fuzz_tct_json.c, fuzz_tct_bin.c): parse in memory,
 * write back, and expand a few ranks, bounded.
 */
#ifndef TC_FUZZ_TCT_COMMON_H
#define TC_FUZZ_TCT_COMMON_H

#include "lib/compat.h"
#include "test/fuzz/fuzz.h"
#include "formats/tct.h"
#include "lib/error.h"
#include "lib/event.h"
#include "lib/merge.h"
#include "lib/ranklist.h"
#include "lib/strbuf.h"

/* Events expanded per rank at most: enough to walk every node of a
 * trace the fuzzer builds, little enough to stay fast. */
#define FUZZ_EXPAND_MAX 4096

static void fuzz_expand(const struct tc_gtrace *g, int32_t rank)
{
	struct tc_gtrace_iter it;
	struct tc_event ev;
	unsigned n = 0;

	if (tc_gtrace_iter_init(&it, g, rank))
		return;
	while (n++ < FUZZ_EXPAND_MAX && tc_gtrace_iter_next(&it, &ev))
		;
	tc_gtrace_iter_release(&it);
}

static int fuzz_tct(const uint8_t *data, size_t size, int form)
{
	struct tc_strbuf out = TC_STRBUF_INIT;
	struct tc_gtrace *g;
	struct tc_error err;

	if (tc_tct_parse((const char *)data, size, "fuzz", &g, &err))
		return 0;
	tc_tct_format(g, form, &out);
	tc_strbuf_release(&out);
	if (g->ranks.nruns) {
		fuzz_expand(g, g->ranks.runs[0].start);
		fuzz_expand(g, g->world_size - 1);
	}
	tc_gtrace_free(&g);
	return 0;
}

#endif
