/*
 * internal.h - shared by the sources of align/ only.
 */
#ifndef TC_ALIGN_INTERNAL_H
#define TC_ALIGN_INTERNAL_H

#include "lib/compat.h"

/*
 * The function name of a frame: its symbol without the offset
 * ("f+0x1c" -> "f"), or "MODULE@0xOFFSET" (the module's base name) when
 * the frame has no symbol. Returns new.
 */
char *tc_fn_name(const char *symbol, const char *module, uint64_t offset);

struct tc_aseq_frame;
/* Hash of a frame's function name into seed as runs compare it: the
 * name, or for an unsymbolised frame of the main program its offset
 * (tc_module_key: not the program's file name). */
uint64_t tc_frame_fn_hash(const struct tc_aseq_frame *f, uint64_t seed);

#endif
