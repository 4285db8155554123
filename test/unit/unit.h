/*
 * unit.h - a minimal unit-test harness printing TAP.
 *
 *   TEST(name) { CHECK(expr); CHECK_EQ_U64(a, b); }
 *
 * Each TEST is one test case; main() (in unit.c) runs them all and prints
 * "ok N name" or "not ok N name" with the failed checks as # comments.
 */
#ifndef TC_UNIT_H
#define TC_UNIT_H

#include "lib/compat.h"
#include <stdio.h>

struct unit_case {
	const char *name;
	void (*fn)(void);
	struct unit_case *next;
};

void unit_register(struct unit_case *c);
void unit_fail(const char *file, int line, const char *fmt, ...) TC_PRINTF(3, 4);
/* A scratch directory for the test binary (removed at exit). */
const char *unit_tmpdir(void);

struct tc_synth_opts;
/* Write the synthetic trace set of o (validated here) as raw files, one
 * per rank (host "nodeR%2"), into the new directory name under the scratch
 * directory; returns its path (valid until the next call). */
const char *unit_synth_set(const char *name, struct tc_synth_opts *o);

#define TEST(name)                                                       \
	static void test_##name(void);                                   \
	static struct unit_case case_##name = { #name, test_##name, NULL }; \
	__attribute__((constructor)) static void reg_##name(void)        \
	{                                                                \
		unit_register(&case_##name);                             \
	}                                                                \
	static void test_##name(void)

#define CHECK(expr)                                                      \
	do {                                                             \
		if (!(expr))                                             \
			unit_fail(__FILE__, __LINE__, "%s", #expr);      \
	} while (0)

#define CHECK_EQ_U64(a, b)                                               \
	do {                                                             \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);         \
		if (a_ != b_)                                            \
			unit_fail(__FILE__, __LINE__, "%s == %s: %" PRIu64 " != %" PRIu64, \
				  #a, #b, a_, b_);                       \
	} while (0)

#define CHECK_EQ_I64(a, b)                                               \
	do {                                                             \
		int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);            \
		if (a_ != b_)                                            \
			unit_fail(__FILE__, __LINE__, "%s == %s: %" PRId64 " != %" PRId64, \
				  #a, #b, a_, b_);                       \
	} while (0)

#define CHECK_STR(a, b)                                                  \
	do {                                                             \
		const char *a_ = (a), *b_ = (b);                         \
		if (!a_ || !b_ || strcmp(a_, b_))                        \
			unit_fail(__FILE__, __LINE__, "%s == %s: '%s' != '%s'", \
				  #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

#endif
