/* cfi.h: the call-frame state at a point of a function, as its .cfi directives say.
 *
 * The out-of-line stubs live in their own section, so their FDE describes the frame
 * exactly as it is at the counting points that jump to each: one FDE for the file's
 * stubs, a row (the change from the run before) for each run of stubs of one frame. */
#ifndef SICPP_CFI_H
#define SICPP_CFI_H

#include <stdbool.h>
#include <stdio.h>

#define CFI_NREGS 17 /* DWARF x86-64: 0..15 general registers, 16 the return address */

enum cfi_rule { CR_SAME = 0, CR_OFFSET, CR_ESCAPE, CR_REGISTER };

struct cfi_reg {
	enum cfi_rule rule;
	long off;         /* CR_OFFSET: saved at CFA+off; CR_REGISTER: in register off */
	char *escape;     /* CR_ESCAPE: the raw .cfi_escape bytes */
};

struct cfi_state {
	bool in_proc;     /* between .cfi_startproc and .cfi_endproc */
	bool known;       /* false after a directive we cannot model */
	char cfa_reg[64]; /* as written ("7", "%rsp", "6"...) */
	long cfa_off;
	char *cfa_escape; /* DW_CFA_def_cfa_expression, raw bytes */
	struct cfi_reg reg[CFI_NREGS];
};

struct cfi_tracker {
	struct cfi_state cur;
	struct cfi_state stack[16]; /* .cfi_remember_state */
	int depth;
};

void cfi_init(struct cfi_tracker *t);
/* Feed one directive (name with the dot, raw arguments). Returns false if it was not
 * a .cfi directive. */
bool cfi_feed(struct cfi_tracker *t, const char *name, const char *args);
/* Deep copy, and free of a copy. */
void cfi_copy(struct cfi_state *dst, const struct cfi_state *src);
void cfi_release(struct cfi_state *s);
/* Is the CFA computed from %rsp (so a change of %rsp must be described)? */
bool cfi_cfa_is_rsp(const struct cfi_state *s);
/* Write the directives that rebuild state s right after a .cfi_startproc (none for
 * what the CIE says: CFA = rsp + 8). */
void cfi_emit(FILE *out, const struct cfi_state *s);
/* Do a and b describe the same frame (the CFA and every register's rule)? */
bool cfi_equal(const struct cfi_state *a, const struct cfi_state *b);
/* Write the directives that turn state from into state to (rows of one FDE). */
void cfi_emit_delta(FILE *out, const struct cfi_state *from, const struct cfi_state *to);

#endif
