/* crash_sym.h: function names from an object's symbol tables, for crash.c (crash_sym.c).
 * Async-signal-safe. */
#ifndef RP_CRASH_SYM_H
#define RP_CRASH_SYM_H

#include <stddef.h>
#include <stdint.h>

/* The function of the ELF file at path whose symbol holds address `at` (its link-time
 * address: the offset from the object's load base): 1 with its name (no version) and
 * start, 0 if no symbol holds it, -1 if the file cannot be opened. The .symtab is
 * asked first, then the .dynsym. */
int rp_crash_sym_file(const char *path, uintptr_t at, char *name, size_t len, uintptr_t *start);
/* DIR/.build-id/NN/REST.debug for a build id: where Debian's -dbg packages install an
 * object's detached debug file. Empty if it does not fit in len. */
void rp_crash_debug_path(char *out, size_t len, const char *dir, const unsigned char *id,
			 size_t idlen);
/* crash.c: the first frame at or above the signal frame uc whose pc is in [lo, hi),
 * by libunwind; 0 if none, or without libunwind. */
#include <ucontext.h>
uintptr_t rp_crash_first_frame_in(ucontext_t *uc, uintptr_t lo, uintptr_t hi);

#endif
