#include "compat.h"
#include "json.h"
#include "error.h"

#include <jansson.h>
#include <stdlib.h>

#define J(v) ((json_t *)(v))
#define T(v) ((struct tc_json *)(v))

struct tc_json *tc_json_object(void) { return T(json_object()); }
struct tc_json *tc_json_array(void) { return T(json_array()); }
struct tc_json *tc_json_int(int64_t v) { return T(json_integer((json_int_t)v)); }
struct tc_json *tc_json_real(double v) { return T(json_real(v)); }
struct tc_json *tc_json_str(const char *s) { return T(json_string(s ? s : "")); }
struct tc_json *tc_json_bool(bool v) { return T(json_boolean(v)); }
struct tc_json *tc_json_null(void) { return T(json_null()); }

struct tc_json *tc_json_uint(uint64_t v)
{
	if (v > (uint64_t)INT64_MAX)
		return T(json_real((double)v));
	return T(json_integer((json_int_t)v));
}

void tc_json_set(struct tc_json *obj, const char *key, struct tc_json *val)
{
	json_object_set_new(J(obj), key, J(val));
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

struct tc_json *tc_json_load_file(const char *path, struct tc_error *err)
{
	json_error_t je;
	json_t *v = json_load_file(path, 0, &je);

	if (!v)
		tc_error_set(err, TC_ERR_FORMAT, path, -1, "line %d: %s", je.line, je.text);
	return T(v);
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
	return T(v);
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
