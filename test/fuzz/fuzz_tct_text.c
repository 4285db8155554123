/*
 * fuzz_tct_text.c - the global trace reader (formats/tct.c), seeded with
 * the text form; written back in that form and expanded (tct_common.h).
 */
#include "lib/compat.h"
#include "test/fuzz/tct_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_tct(data, size, TC_TCT_TEXT);
}
