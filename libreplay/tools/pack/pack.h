/* pack.h: replay-pack's parts (replay-pack.c, elf.c). */
#ifndef RP_PACK_H
#define RP_PACK_H

#include <stdbool.h>
#include <stddef.h>

#define PACK_BUILD_ID_MAX 64

/* elf.c: the NT_GNU_BUILD_ID of the ELF file at path as hex into hex (2 *
 * PACK_BUILD_ID_MAX + 1 bytes), "-" if it has none: 0, or -1 with why in err (cannot
 * open, not an ELF file). */
int pack_build_id(const char *path, char *hex, char *err, size_t errlen);
/* Rewrite the file's PT_INTERP, in place, to interp (*had: it has one; a static
 * executable has none): 0, or -1 with why in err (no room: the new path must fit the
 * old one's bytes). */
int pack_set_interp(const char *path, const char *interp, bool *had, char *err, size_t errlen);
/* Replace every whole NUL-terminated occurrence of the string from in the file with
 * to (no longer; padded with NULs), in place: *count of them. 0, or -1 with why in err. */
int pack_patch_string(const char *path, const char *from, const char *to, int *count, char *err,
		      size_t errlen);

#endif
