#include "compat.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*fail_hook)(size_t n);

void tc_xalloc_set_fail(void (*fn)(size_t n))
{
	fail_hook = fn;
}

static TC_NORETURN void oom(size_t n)
{
	/* a hook that does not return (it jumps out) keeps the process alive */
	if (fail_hook)
		fail_hook(n);
	fprintf(stderr, "tracecluster: out of memory (allocating %zu bytes)\n", n);
	abort();
}

void *tc_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *tc_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(tc_st_mult(nmemb, size));
	return p;
}

void *tc_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *tc_xstrdup(const char *s)
{
	return tc_xstrndup(s, strlen(s));
}

char *tc_xstrndup(const char *s, size_t n)
{
	char *p = tc_xmalloc(tc_st_add(n, 1));
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

size_t tc_st_mult(size_t a, size_t b)
{
	size_t r;
	if (__builtin_mul_overflow(a, b, &r)) {
		fprintf(stderr, "tracecluster: size overflow: %zu * %zu\n", a, b);
		abort();
	}
	return r;
}

size_t tc_st_add(size_t a, size_t b)
{
	size_t r;
	if (__builtin_add_overflow(a, b, &r)) {
		fprintf(stderr, "tracecluster: size overflow: %zu + %zu\n", a, b);
		abort();
	}
	return r;
}
