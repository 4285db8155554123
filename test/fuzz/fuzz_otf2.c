/*
 * fuzz_otf2.c - the OTF2 reader (formats/otf2_read.c, through the OTF2
 * library): an archive is several files, so the input is a small
 * container of them (test/fuzz/otf2-pack.py writes it from an archive):
 *
 *   repeated: u8 name length, name, u32 little-endian data length, data
 *
 * Names are relative paths of [A-Za-z0-9._-] parts, no "..", at most two
 * levels (traces.otf2, traces.def, traces/0.evt, ...). The files go into
 * a fresh temporary directory; the anchor traces.otf2 is opened, the world
 * read and the first ranks decoded, then the directory is removed.
 */
#include "lib/compat.h"
#include "test/fuzz/fuzz.h"
#include "formats/foreign.h"
#include "formats/reader.h"
#include "lib/error.h"

#include <sys/stat.h>

#define MAX_FILES 64

static bool name_ok(const char *s)
{
	int slashes = 0;

	if (!*s || *s == '/' || strstr(s, "..") || strstr(s, "//"))
		return false;
	for (const char *p = s; *p; p++) {
		if (*p == '/') {
			if (++slashes > 1 || !p[1])
				return false;
		} else if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-')) {
			return false;
		}
	}
	return true;
}

/* Unpack data into dir; the names written go to names[] (relative). */
static size_t unpack(const uint8_t *data, size_t size, const char *dir,
		     char names[MAX_FILES][256])
{
	size_t at = 0, n = 0;

	while (n < MAX_FILES && at < size) {
		char path[4096];
		uint32_t len;
		size_t nl = data[at++];
		FILE *f;
		if (nl == 0 || nl > size - at)
			break;
		memcpy(names[n], data + at, nl);
		names[n][nl] = '\0';
		at += nl;
		if (size - at < 4)
			break;
		len = (uint32_t)data[at] | (uint32_t)data[at + 1] << 8 | (uint32_t)data[at + 2] << 16 |
		      (uint32_t)data[at + 3] << 24;
		at += 4;
		if (len > size - at || !name_ok(names[n]))
			break;
		{
			char *slash = strchr(names[n], '/');
			if (slash) {
				*slash = '\0';
				snprintf(path, sizeof(path), "%s/%s", dir, names[n]);
				mkdir(path, 0700);
				*slash = '/';
			}
		}
		snprintf(path, sizeof(path), "%s/%s", dir, names[n]);
		f = fopen(path, "wbx");
		if (!f)
			break;
		fwrite(data + at, 1, len, f);
		fclose(f);
		at += len;
		n++;
	}
	return n;
}

/* The OTF2 library leaks its archive object when OTF2_Reader_Open fails on
 * a damaged anchor (its own error path; test/lsan.supp says the same for
 * the sanitizer builds): not a finding of this target. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libopen-trace-format2.so\n";
}

/* It also allocates what the anchor's counts ask (a 90-byte anchor asked
 * for 32 GB) before reading them: an allocation that fails must come back
 * as NULL, which it handles, and make fuzz runs this target with
 * -malloc_limit_mb=65536; memory actually used is still held to the RSS
 * limit. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static void read_rank(const char *path, uint32_t rank)
{
	struct tc_reader *r;
	struct tc_error err;

	if (tc_otf2_open(&r, path, rank, 0, &err))
		return;
	tc_reader_header(r);
	tc_reader_read(r, &fuzz_ops, NULL, NULL, &err);
	tc_reader_close(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char names[MAX_FILES][256];
	const char *tmp = getenv("TMPDIR");
	char dir[4096], anchor[4200];
	struct tc_error err;
	int32_t world;
	size_t n;

	snprintf(dir, sizeof(dir), "%s/tc-fuzz-otf2-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return 0;
	n = unpack(data, size, dir, names);
	snprintf(anchor, sizeof(anchor), "%s/traces.otf2", dir);
	if (!tc_otf2_world(anchor, &world, &err))
		for (int32_t k = 0; k < world && k < 4; k++)
			read_rank(anchor, (uint32_t)k);
	/* remove the files, the subdirectories, the directory */
	for (size_t i = n; i-- > 0;) {
		char path[4400];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	for (size_t i = 0; i < n; i++) {
		char path[4400], *slash = strchr(names[i], '/');
		if (!slash)
			continue;
		*slash = '\0';
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		rmdir(path);
	}
	rmdir(dir);
	return 0;
}
