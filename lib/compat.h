/*
 * compat.h - included first by every .c file of tracecluster.
 *
 * Feature macros, the fixed-width integer types, and the attributes the
 * rest of the code relies on.
 */
#ifndef TC_COMPAT_H
#define TC_COMPAT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>

#if defined(__GNUC__)
#define TC_NORETURN __attribute__((noreturn))
#define TC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TC_UNUSED __attribute__((unused))
#define TC_LIKELY(x) __builtin_expect(!!(x), 1)
#define TC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TC_NORETURN
#define TC_PRINTF(f, a)
#define TC_UNUSED
#define TC_LIKELY(x) (x)
#define TC_UNLIKELY(x) (x)
#endif

#define TC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define TC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TC_MAX(a, b) ((a) > (b) ? (a) : (b))

#define TC_VERSION "0.1.0"

#endif /* TC_COMPAT_H */
