/*
 * Unit tests of the byte encoding in JSON strings (lib/json.h): valid
 * UTF-8 is kept, every other byte becomes one of U+EF80..U+EFFF, text
 * that already holds those characters is encoded too, and decoding gives
 * back the bytes; through a whole document written and loaded again.
 */
#include "lib/compat.h"
#include "test/unit/unit.h"
#include "lib/error.h"
#include "lib/json.h"

#include <stdlib.h>
#include <string.h>

/* Encode s[0..n), expect want[0..wn) (NULL: the input unchanged), check
 * it is valid UTF-8 to a JSON parser and decodes back to s. */
static void round_trip(const char *s, size_t n, const char *want, size_t wn)
{
	size_t en, dn;
	char *e = tc_json_escape(s, n, &en), *d;
	struct tc_json *v;

	if (!want)
		want = s, wn = n;
	CHECK_EQ_U64(en, wn);
	CHECK(en == wn && !memcmp(e, want, wn));
	d = tc_json_unescape(e, en, &dn);
	CHECK_EQ_U64(dn, n);
	CHECK(dn == n && !memcmp(d, s, n));
	v = tc_json_strn(s, n);
	CHECK(v != NULL);
	tc_json_free(v);
	free(e);
	free(d);
}

#define RT(s, want) round_trip(s, sizeof(s) - 1, want, sizeof(want) - 1)
#define RT_SAME(s) round_trip(s, sizeof(s) - 1, NULL, 0)

TEST(json_escape_keeps_valid_utf8)
{
	RT_SAME("");
	RT_SAME("/usr/lib/libmpi.so.40");
	RT_SAME("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");       /* 2, 3, 4 bytes */
	RT_SAME("\xed\x9f\xbf \xee\x80\x80 \xef\xbf\xbd");            /* U+D7FF U+E000 U+FFFD */
	RT_SAME("\xee\xbd\xbf \xef\x80\x80 \xf4\x8f\xbf\xbf");        /* U+EF7F U+F000 U+10FFFF */
}

TEST(json_escape_invalid_bytes)
{
	RT("\xff", "\xee\xbf\xbf");
	RT("a\x80z", "a\xee\xbe\x80z");
	RT("/tmp/\xfe\xff/a.out", "/tmp/\xee\xbf\xbe\xee\xbf\xbf/a.out");
	/* a lone continuation byte, then a valid character */
	RT("\xbf\xc3\xa9", "\xee\xbe\xbf\xc3\xa9");
	/* surrogates and code points above U+10FFFF are not UTF-8 */
	RT("\xed\xa0\x80", "\xee\xbf\xad\xee\xbe\xa0\xee\xbe\x80");
	RT("\xf4\x90\x80\x80", "\xee\xbf\xb4\xee\xbe\x90\xee\xbe\x80\xee\xbe\x80");
	RT("\xf8\x88\x80\x80\x80", "\xee\xbf\xb8\xee\xbe\x88\xee\xbe\x80\xee\xbe\x80\xee\xbe\x80");
}

TEST(json_escape_truncated_sequences)
{
	RT("\xc3", "\xee\xbf\x83");
	RT("\xe2\x82", "\xee\xbf\xa2\xee\xbe\x82");
	RT("\xe2\x82x", "\xee\xbf\xa2\xee\xbe\x82x");
	RT("\xf0\x9f\x98", "\xee\xbf\xb0\xee\xbe\x9f\xee\xbe\x98");
	/* a lead byte cut short by another lead byte */
	RT("\xe2\xc3\xa9", "\xee\xbf\xa2\xc3\xa9");
}

TEST(json_escape_overlong_encodings)
{
	RT("\xc0\xaf", "\xee\xbf\x80\xee\xbe\xaf");                       /* '/' */
	RT("\xc1\xbf", "\xee\xbf\x81\xee\xbe\xbf");
	RT("\xe0\x80\xaf", "\xee\xbf\xa0\xee\xbe\x80\xee\xbe\xaf");
	RT("\xf0\x80\x80\xaf", "\xee\xbf\xb0\xee\xbe\x80\xee\xbe\x80\xee\xbe\xaf");
}

TEST(json_escape_embedded_nul)
{
	RT_SAME("a\0b");
	RT("\0\xff\0", "\0\xee\xbf\xbf\0");
}

TEST(json_escape_text_that_looks_like_an_escape)
{
	/* U+EF80 and U+EFFF are written byte by byte, so they come back */
	RT("\xee\xbe\x80", "\xee\xbf\xae\xee\xbe\xbe\xee\xbe\x80");
	RT("x\xee\xbf\xbfy", "x\xee\xbf\xae\xee\xbe\xbf\xee\xbe\xbfy");
	/* the encoding of byte 0xff next to a real 0xff */
	RT("\xee\xbf\xbf\xff", "\xee\xbf\xae\xee\xbe\xbf\xee\xbe\xbf\xee\xbf\xbf");
	/* a cut-off U+EF80, and neighbours of the range kept as they are */
	RT("\xee\xbe", "\xee\xbf\xae\xee\xbe\xbe");
	RT_SAME("\xee\xbd\xbf\xef\x80\x80");
	/* a backslash sequence is ordinary text */
	RT_SAME("\\udcff \\xff");
}

TEST(json_document_round_trip)
{
	const char *path;
	char file[512];
	struct tc_error err;
	struct tc_json *o = tc_json_object(), *a = tc_json_array(), *back;
	static const char *strs[] = { "\xff", "ok", "\xee\xbe\x80", "\xc3\xa9\xe9", "" };
	char *txt;
	FILE *f;

	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++)
		tc_json_append(a, tc_json_str(strs[i]));
	tc_json_set(o, "list", a);
	tc_json_set_str(o, "prog\xff", "/bin/\x80\x81");
	txt = tc_json_dumps(o, TC_JSON_COMPACT);
	CHECK(txt != NULL);
	tc_error_clear(&err);
	back = tc_json_load_buf(txt, strlen(txt), "doc", &err);
	CHECK(back != NULL);
	if (back) {
		const struct tc_json *l = tc_json_get(back, "list");
		CHECK_EQ_U64(tc_json_array_size(l), 5);
		for (size_t i = 0; i < 5; i++)
			CHECK_STR(tc_json_str_value(tc_json_array_get(l, i)), strs[i]);
		CHECK_STR(tc_json_str_value(tc_json_get(back, "prog\xff")), "/bin/\x80\x81");
		CHECK_EQ_U64(tc_json_object_size(back), 2);
		tc_json_free(back);
	}
	/* the same through a file */
	path = unit_tmpdir();
	snprintf(file, sizeof(file), "%s/doc.json", path);
	f = fopen(file, "w");
	CHECK(f != NULL);
	if (f) {
		CHECK(tc_json_write(o, f, TC_JSON_PRETTY) == 0);
		fclose(f);
		back = tc_json_load_file(file, &err);
		CHECK(back != NULL);
		CHECK_STR(tc_json_str_value(tc_json_get(back, "prog\xff")), "/bin/\x80\x81");
		tc_json_free(back);
	}
	free(txt);
	tc_json_free(o);
}

TEST(json_load_keys_decoding_to_one_key)
{
	/* "\xc3\xa9" as a character and as two encoded bytes: one key twice */
	static const char doc[] = "{\"a\": 1, \"k\": {\"\xc3\xa9\": 2, \"\\uefc3\\uefa9\": 3}}";
	struct tc_error err;
	struct tc_json *v;

	tc_error_clear(&err);
	v = tc_json_load_buf(doc, sizeof(doc) - 1, "doc", &err);
	CHECK(v == NULL);
	CHECK(err.code != 0);
	tc_json_free(v);
}
