/* sym.h: PCs of a recorded executable to function, file and line (libbfd). */
#ifndef RP_SYM_H
#define RP_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rp_sym;

struct rp_sym_loc {
	const char *func; /* NULL when no symbol covers the PC */
	uint64_t off;     /* pc - the function's start */
	const char *file; /* NULL without debug information */
	unsigned line;    /* the PC's own line, in an inlined function's code too */
	const char *inlined;   /* the innermost function inlined at the PC, or NULL */
	const char *call_file; /* with inlined: where func calls the (outermost) */
	unsigned call_line;    /* inlined function */
	/* A PC in a shared object the log names (rp_sym_objects): its name (the last part
	 * of its path), NULL in the executable. unread: its file is not at the recorded
	 * path with the recorded build-id, and off is the PC's offset in the object
	 * (func NULL). nowhere: in neither the executable nor an object the log names
	 * (one the program dlopen()ed later). */
	const char *object;
	bool unread, nowhere;
};

struct rp_lines;
/* lines.c: the DWARF line table of an open bfd (a bfd *), gdb's way: where rows
 * share an address, an is_stmt row wins. NULL if out of memory. */
struct rp_lines *rp_lines_open(void *abfd);
bool rp_lines_find(struct rp_lines *l, uint64_t pc, const char **file, unsigned *line);
void rp_lines_close(struct rp_lines *l);

/* Open an executable. 0, or -1 with a one-line message in err. */
int rp_sym_open(const char *path, struct rp_sym **out, char *err, size_t errlen);
/* Its NT_GNU_BUILD_ID: the length (0 if it has none), copied to buf (max bytes). */
size_t rp_sym_build_id(struct rp_sym *s, uint8_t *buf, size_t max);
/* The objects an OBJECTS input (its text: docs/log-format.md, kind 40) names, for the
 * PCs outside the executable: each looked up, when a PC is in it, in its own file,
 * found at the recorded path with the recorded build-id. Once for each such input. */
void rp_sym_objects(struct rp_sym *s, const char *note, size_t len);
/* pc is an offset from the load base, as the log stores it (= the link-time address
 * of a PIE; a non-PIE loads at its link-time addresses, base 0). The strings last
 * until rp_sym_close. */
void rp_sym_lookup(struct rp_sym *s, uint64_t pc, struct rp_sym_loc *loc);
void rp_sym_close(struct rp_sym *s);
/* "func+0xoff (file:line)", or with an inlined function "func+0xoff (file:line in
 * inlined, inlined at file:line)"; base: file names without their directories. In a
 * shared object "object!func+0xoff (file:line)", "(object+0xoff)" where its file was
 * not read. */
void rp_sym_format(const struct rp_sym_loc *loc, bool base, char *buf, size_t len);

#endif
