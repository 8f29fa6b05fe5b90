/* sym.h: PCs of a recorded executable to function, file and line (libbfd). */
#ifndef RP_SYM_H
#define RP_SYM_H

#include <stddef.h>
#include <stdint.h>

struct rp_sym;

struct rp_sym_loc {
	const char *func; /* NULL when no symbol covers the PC */
	uint64_t off;     /* pc - the function's start */
	const char *file; /* NULL without debug information */
	unsigned line;
};

/* Open an executable. 0, or -1 with a one-line message in err. */
int rp_sym_open(const char *path, struct rp_sym **out, char *err, size_t errlen);
/* Its NT_GNU_BUILD_ID: the length (0 if it has none), copied to buf (max bytes). */
size_t rp_sym_build_id(struct rp_sym *s, uint8_t *buf, size_t max);
/* pc is an offset from the load base, as the log stores it (= the link-time address
 * of a PIE; a non-PIE loads at its link-time addresses, base 0). The strings last
 * until rp_sym_close. */
void rp_sym_lookup(struct rp_sym *s, uint64_t pc, struct rp_sym_loc *loc);
void rp_sym_close(struct rp_sym *s);

#endif
