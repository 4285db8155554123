#include "compat.h"
#include "json.h"
#include "error.h"
#include "xalloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define J(v) ((json_t *)(v))
#define T(v) ((struct tc_json *)(v))

struct tc_json *tc_json_object(void) { return T(json_object()); }
struct tc_json *tc_json_array(void) { return T(json_array()); }
struct tc_json *tc_json_int(int64_t v) { return T(json_integer((json_int_t)v)); }
struct tc_json *tc_json_real(double v) { return T(json_real(v)); }
struct tc_json *tc_json_bool(bool v) { return T(json_boolean(v)); }
struct tc_json *tc_json_null(void) { return T(json_null()); }

struct tc_json *tc_json_uint(uint64_t v)
{
	if (v > (uint64_t)INT64_MAX)
		return T(json_real((double)v));
	return T(json_integer((json_int_t)v));
}

/*
 * Byte strings in JSON strings (formats/tct.md, "Bytes that are not
 * UTF-8"). A byte b that does not start a valid UTF-8 sequence becomes the
 * character U+EF00 + b (U+EF80..U+EFFF, private use). The encoded
 * characters U+EF80..U+EFFF themselves are written byte by byte the same
 * way, so every U+EF80..U+EFFF in a document stands for one byte and
 * decoding gives back exactly the bytes that were encoded.
 */
#define ESC_BASE 0xEF00u
#define ESC_LEAD 0xEE   /* UTF-8 of U+EF80..U+EFFF: EE BE|BF 80..BF */

/* Length of the strict UTF-8 sequence at p (no overlong forms, no
 * surrogates, at most U+10FFFF) and its code point, or 0 when invalid. */
static size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp)
{
	uint32_t c = p[0], min;
	size_t len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF)
		len = 2, c &= 0x1F, min = 0x80;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, c &= 0x0F, min = 0x800;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

static bool is_escape_cp(uint32_t c)
{
	return c >= ESC_BASE + 0x80 && c <= ESC_BASE + 0xFF;
}

/* Whether s[0..n) is copied as it is: valid UTF-8 with no U+EF80..U+EFFF. */
static bool plain_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;

	for (size_t i = 0; i < n;) {
		size_t k;
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if (!(k = utf8_seq(p + i, n - i, &c)) || is_escape_cp(c))
			return false;
		i += k;
	}
	return true;
}

char *tc_json_escape(const char *s, size_t n, size_t *outlen)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = tc_xmalloc(n * 3 + 1), *o = out;
	uint32_t c;

	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(p + i, n - i, &c);
		if (k && !is_escape_cp(c)) {
			memcpy(o, p + i, k);
			o += k;
			i += k;
			continue;
		}
		/* an invalid byte, or one byte of U+EF80..U+EFFF (all >= 0x80) */
		c = ESC_BASE + p[i++];
		*o++ = (char)(0xE0 | c >> 12);
		*o++ = (char)(0x80 | (c >> 6 & 0x3F));
		*o++ = (char)(0x80 | (c & 0x3F));
	}
	*o = '\0';
	if (outlen)
		*outlen = (size_t)(o - out);
	return out;
}

/* Whether s[0..n) holds an encoded byte. */
static bool has_escape(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i + 2 < n; i++)
		if (p[i] == ESC_LEAD && (p[i + 1] & 0xFE) == 0xBE && (p[i + 2] & 0xC0) == 0x80)
			return true;
	return false;
}

char *tc_json_unescape(const char *s, size_t n, size_t *outlen)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = tc_xmalloc(n + 1), *o = out;

	for (size_t i = 0; i < n;) {
		if (i + 2 < n && p[i] == ESC_LEAD && (p[i + 1] & 0xFE) == 0xBE &&
		    (p[i + 2] & 0xC0) == 0x80) {
			uint32_t c = 0xE000u | (uint32_t)(p[i + 1] & 0x3F) << 6 | (p[i + 2] & 0x3F);
			*o++ = (char)(c - ESC_BASE);
			i += 3;
		} else {
			*o++ = (char)p[i++];
		}
	}
	*o = '\0';
	if (outlen)
		*outlen = (size_t)(o - out);
	return out;
}

struct tc_json *tc_json_strn(const char *s, size_t n)
{
	json_t *v;
	char *e;

	if (plain_utf8(s, n))
		return T(json_stringn(s, n));
	e = tc_json_escape(s, n, &n);
	v = json_stringn(e, n);
	free(e);
	return T(v);
}

struct tc_json *tc_json_str(const char *s)
{
	return s ? tc_json_strn(s, strlen(s)) : tc_json_strn("", 0);
}

void tc_json_set(struct tc_json *obj, const char *key, struct tc_json *val)
{
	char *e;

	if (plain_utf8(key, strlen(key))) {
		json_object_set_new(J(obj), key, J(val));
		return;
	}
	e = tc_json_escape(key, strlen(key), NULL);
	json_object_set_new(J(obj), e, J(val));
	free(e);
}

void tc_json_append(struct tc_json *arr, struct tc_json *val)
{
	json_array_append_new(J(arr), J(val));
}

void tc_json_set_int(struct tc_json *o, const char *k, int64_t v) { tc_json_set(o, k, tc_json_int(v)); }
void tc_json_set_uint(struct tc_json *o, const char *k, uint64_t v) { tc_json_set(o, k, tc_json_uint(v)); }
void tc_json_set_real(struct tc_json *o, const char *k, double v) { tc_json_set(o, k, tc_json_real(v)); }
void tc_json_set_str(struct tc_json *o, const char *k, const char *s) { tc_json_set(o, k, tc_json_str(s)); }
void tc_json_set_bool(struct tc_json *o, const char *k, bool v) { tc_json_set(o, k, tc_json_bool(v)); }

void tc_json_free(struct tc_json *v)
{
	if (v)
		json_decref(J(v));
}

static size_t flags_for(int style)
{
	size_t f = JSON_SORT_KEYS | JSON_REAL_PRECISION(10);
	if (style == TC_JSON_PRETTY)
		f |= JSON_INDENT(2);
	else
		f |= JSON_COMPACT;
	return f;
}

int tc_json_write(const struct tc_json *v, FILE *f, int style)
{
	if (json_dumpf(J(v), f, flags_for(style)) < 0)
		return -1;
	return fputc('\n', f) == EOF ? -1 : 0;
}

char *tc_json_dumps(const struct tc_json *v, int style)
{
	return json_dumps(J(v), flags_for(style));
}

/* Decode the encoded bytes of every string and key of a loaded document in
 * place. Returns 0, or -1 with err filled when two keys of one object
 * decode to the same bytes. */
static int unescape_tree(json_t *v, const char *name, struct tc_error *err)
{
	const char *key;
	json_t *val;
	size_t i, n;

	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		n = json_string_length(v);
		if (has_escape(s, n)) {
			char *d = tc_json_unescape(s, n, &n);
			json_string_setn_nocheck(v, d, n);
			free(d);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, val)
			if (unescape_tree(val, name, err))
				return -1;
	} else if (json_is_object(v)) {
		bool keys = false;
		json_t *old;
		int rc = 0;
		json_object_foreach(v, key, val) {
			if (unescape_tree(val, name, err))
				return -1;
			keys = keys || has_escape(key, strlen(key));
		}
		if (!keys)
			return 0;
		/* rebuild with the decoded keys, keeping their order */
		old = json_copy(v);
		json_object_clear(v);
		json_object_foreach(old, key, val) {
			char *d = tc_json_unescape(key, strlen(key), NULL);
			if (json_object_get(v, d))
				rc = tc_error_set(err, TC_ERR_FORMAT, name, -1,
						  "duplicate object key (after decoding bytes)");
			else
				json_object_set_nocheck(v, d, val);
			free(d);
			if (rc)
				break;
		}
		json_decref(old);
		return rc ? -1 : 0;
	}
	return 0;
}

/* Decode a parsed document; NULL with err filled when it cannot be. */
static json_t *loaded(json_t *v, const char *name, struct tc_error *err)
{
	if (v && unescape_tree(v, name, err)) {
		json_decref(v);
		return NULL;
	}
	return v;
}

struct tc_json *tc_json_load_file(const char *path, struct tc_error *err)
{
	json_error_t je;
	json_t *v = json_load_file(path, 0, &je);

	if (!v)
		tc_error_set(err, TC_ERR_FORMAT, path, -1, "line %d: %s", je.line, je.text);
	return T(loaded(v, path, err));
}

struct tc_json *tc_json_get(const struct tc_json *obj, const char *key)
{
	return json_is_object(J(obj)) ? T(json_object_get(J(obj), key)) : NULL;
}

size_t tc_json_array_size(const struct tc_json *arr)
{
	return json_array_size(J(arr));
}

struct tc_json *tc_json_array_get(const struct tc_json *arr, size_t i)
{
	return T(json_array_get(J(arr), i));
}

bool tc_json_is_int(const struct tc_json *v)
{
	return json_is_integer(J(v));
}

int64_t tc_json_int_value(const struct tc_json *v)
{
	return (int64_t)json_integer_value(J(v));
}

const char *tc_json_str_value(const struct tc_json *v)
{
	return json_string_value(J(v));
}

struct tc_json *tc_json_load_buf(const char *buf, size_t len, const char *name,
				 struct tc_error *err)
{
	json_error_t je;
	json_t *v = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);

	if (!v)
		tc_error_set(err, TC_ERR_FORMAT, name, -1, "line %d: %s", je.line, je.text);
	return T(loaded(v, name, err));
}

bool tc_json_is_number(const struct tc_json *v)
{
	return json_is_number(J(v));
}

double tc_json_number_value(const struct tc_json *v)
{
	return json_number_value(J(v));
}

bool tc_json_is_array(const struct tc_json *v)
{
	return json_is_array(J(v));
}

bool tc_json_is_object(const struct tc_json *v)
{
	return json_is_object(J(v));
}

bool tc_json_is_null(const struct tc_json *v)
{
	return json_is_null(J(v));
}

size_t tc_json_object_size(const struct tc_json *obj)
{
	return json_object_size(J(obj));
}

const char *tc_json_object_key_at(const struct tc_json *obj, size_t i)
{
	const char *key;
	json_t *val;
	size_t k = 0;

	json_object_foreach(J(obj), key, val) {
		(void)val;
		if (k++ == i)
			return key;
	}
	return NULL;
}
