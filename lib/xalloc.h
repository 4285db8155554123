/*
 * xalloc.h - allocation that never returns NULL (out of memory is fatal),
 * and overflow-checked size arithmetic for sizes read from files.
 */
#ifndef TC_XALLOC_H
#define TC_XALLOC_H

#include <stddef.h>

void *tc_xmalloc(size_t n);
void *tc_xcalloc(size_t nmemb, size_t size);
void *tc_xrealloc(void *p, size_t n);
char *tc_xstrdup(const char *s);
char *tc_xstrndup(const char *s, size_t n);
/* Returns a * b, dying with a message if the product overflows size_t. */
size_t tc_st_mult(size_t a, size_t b);
size_t tc_st_add(size_t a, size_t b);
/*
 * Called with the size when an allocation fails, before the message and
 * abort(); a hook that returns changes nothing. Code that must outlive
 * running out of memory (the in-job clustering plugin, loaded into the
 * application) jumps out of it to a point it set up (setjmp).
 */
void tc_xalloc_set_fail(void (*fn)(size_t n));

/*
 * Grow array p (of *alloc elements) so that it holds at least n elements;
 * doubles capacity. The element size comes from the pointer type.
 */
#define TC_ALLOC_GROW(p, n, alloc)                                          \
	do {                                                                \
		if ((size_t)(n) > (size_t)(alloc)) {                        \
			size_t tc_na_ = (size_t)(alloc) ? (size_t)(alloc) : 8; \
			while (tc_na_ < (size_t)(n))                        \
				tc_na_ = tc_st_mult(tc_na_, 2);              \
			(p) = tc_xrealloc((p), tc_st_mult(tc_na_, sizeof(*(p)))); \
			(alloc) = tc_na_;                                   \
		}                                                           \
	} while (0)

#endif
