/*
 * json.h - the one adapter over Jansson.
 *
 * Builds documents with sorted keys and writes them compactly (one line)
 * or indented. Jansson's types stay out of every other header.
 *
 * Strings are bytes: a byte that is not part of valid UTF-8 is written as
 * the character U+EF00 + byte (U+EF80..U+EFFF), and those characters in
 * the text are themselves written byte by byte, so the output is valid
 * UTF-8 and loading gives back the same bytes (formats/tct.md, "Bytes
 * that are not UTF-8"). Strings and keys of a loaded document are decoded.
 */
#ifndef TC_JSON_H
#define TC_JSON_H

#include "compat.h"
#include <stdio.h>

struct tc_json; /* a Jansson value */

struct tc_json *tc_json_object(void);  /* returns new */
struct tc_json *tc_json_array(void);   /* returns new */
struct tc_json *tc_json_int(int64_t v);
struct tc_json *tc_json_uint(uint64_t v); /* above INT64_MAX: a real */
struct tc_json *tc_json_real(double v);
struct tc_json *tc_json_str(const char *s);   /* NULL: "" */
struct tc_json *tc_json_strn(const char *s, size_t n);
struct tc_json *tc_json_bool(bool v);
struct tc_json *tc_json_null(void);
/* Set/append steal the value. */
void tc_json_set(struct tc_json *obj, const char *key, struct tc_json *val);
void tc_json_append(struct tc_json *arr, struct tc_json *val);
void tc_json_set_int(struct tc_json *obj, const char *key, int64_t v);
void tc_json_set_uint(struct tc_json *obj, const char *key, uint64_t v);
void tc_json_set_real(struct tc_json *obj, const char *key, double v);
void tc_json_set_str(struct tc_json *obj, const char *key, const char *s);
void tc_json_set_bool(struct tc_json *obj, const char *key, bool v);
void tc_json_free(struct tc_json *v);

enum { TC_JSON_COMPACT = 0, TC_JSON_PRETTY = 1 };
/* Write v and a newline. Returns 0 or -1 on a write error. */
int tc_json_write(const struct tc_json *v, FILE *f, int style);
/* Returns new string (caller frees). */
char *tc_json_dumps(const struct tc_json *v, int style);

/* The encoding of bytes in JSON strings, as the functions above and below
 * apply it. Each returns a new NUL-terminated string, its length in
 * *outlen when outlen is not NULL. */
char *tc_json_escape(const char *s, size_t n, size_t *outlen);
char *tc_json_unescape(const char *s, size_t n, size_t *outlen);

/* ---- reading ---- */
/* Parse a file; returns new or NULL with err filled (line in offset). */
struct tc_error;
struct tc_json *tc_json_load_file(const char *path, struct tc_error *err);
/* Borrowed lookups; NULL when absent or of another type. */
struct tc_json *tc_json_get(const struct tc_json *obj, const char *key);
size_t tc_json_array_size(const struct tc_json *arr);
struct tc_json *tc_json_array_get(const struct tc_json *arr, size_t i);
bool tc_json_is_int(const struct tc_json *v);
int64_t tc_json_int_value(const struct tc_json *v);
const char *tc_json_str_value(const struct tc_json *v);

/* Parse a buffer (duplicate keys rejected); returns new or NULL with err
 * filled (name as the path, line in the message). */
struct tc_json *tc_json_load_buf(const char *buf, size_t len, const char *name,
				 struct tc_error *err);
bool tc_json_is_number(const struct tc_json *v);   /* integer or real */
double tc_json_number_value(const struct tc_json *v);
bool tc_json_is_array(const struct tc_json *v);
bool tc_json_is_object(const struct tc_json *v);
bool tc_json_is_null(const struct tc_json *v);
size_t tc_json_object_size(const struct tc_json *obj);
/* The key of member i in iteration order (borrowed), or NULL. */
const char *tc_json_object_key_at(const struct tc_json *obj, size_t i);

#endif
