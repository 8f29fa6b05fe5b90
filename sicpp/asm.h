/*
 * sicpp: the software-instruction-counter assembly post-processor.
 *
 * The pipeline is parse -> classify -> analyze -> rewrite:
 *   parse.c     splits gcc's x86-64 AT&T assembly into statements (struct stmt)
 *   classify.c  the table that says what each mnemonic does to control flow and flags
 *   analyze.c   sections, labels, functions, branch directions, and the plan of what
 *               to insert where, with analyze_flags.c (flag liveness), analyze_calls.c,
 *               analyze_indirect.c and analyze_loops.c
 *   cfi.c       tracks the .cfi state so out-of-line stubs unwind correctly
 *   rewrite.c   emits the instrumented assembly and the runtime's tables
 *
 * Nothing here knows about threads or logs: see docs/sic.md for the contract with
 * the runtime (libreplay/sic_rt.S).
 */
#ifndef SICPP_ASM_H
#define SICPP_ASM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* EFLAGS status bits, as a mask. */
enum {
	FL_CF = 1 << 0,
	FL_PF = 1 << 1,
	FL_AF = 1 << 2,
	FL_ZF = 1 << 3,
	FL_SF = 1 << 4,
	FL_OF = 1 << 5,
	FL_ALL = 0x3f,
	/* What "incq %r15" writes: everything but CF. */
	FL_INC = FL_ALL & ~FL_CF,
};

enum stmt_kind {
	ST_BLANK,     /* empty line or comment only */
	ST_LABEL,     /* "name:" */
	ST_DIRECTIVE, /* ".name args" */
	ST_INSN,      /* "[prefixes] mnemonic operands" */
};

enum insn_class {
	IC_OTHER,   /* falls through */
	IC_JMP,     /* unconditional jump */
	IC_JCC,     /* conditional jump (jcc, jrcxz, loop*) */
	IC_CALL,
	IC_RET,
	IC_STOP,    /* ud2, hlt, int3: does not fall through */
	IC_BAD,     /* far transfers, iret, sysret...: refused */
};

/* What a mnemonic does, from the table in classify.c. */
struct insn_info {
	enum insn_class cls;
	uint8_t reads;  /* status flags it may read */
	uint8_t writes; /* status flags it leaves defined-or-undefined (kills) */
	bool known;     /* false: not in the table; reads are then assumed FL_ALL */
	bool string_op; /* movs/stos/lods/cmps/scas/ins/outs: interruptible with rep */
};

#define MAX_OPS 4

struct stmt {
	int line;             /* 1-based line of the input */
	enum stmt_kind kind;
	char *text;           /* the statement's own text, trimmed, comment kept out */
	char *name;           /* label name, directive (with dot) or mnemonic */
	char *args;           /* directive arguments or raw operand text ("" if none) */
	char *prefix;         /* instruction prefixes, space separated ("" if none) */
	int nops;
	char *ops[MAX_OPS];   /* operands split at top-level commas */
	bool foreign;         /* inside #APP/#NO_APP, .intel_syntax or .code16/32 */
	bool in_app;          /* inside #APP/#NO_APP: inline assembly */
	struct insn_info info; /* ST_INSN only */
};

struct asm_file {
	const char *path;
	struct stmt *st;
	int n, cap;
	char *raw_lines;      /* owned copies live in st[]; this is just the buffer */
};

/* parse.c */
int asm_parse(struct asm_file *f, const char *path, FILE *in, char *err, size_t errlen);
void asm_free(struct asm_file *f);
/* Split one line into statements appended to f (exposed for the unit tests). */
int asm_parse_line(struct asm_file *f, const char *line, int lineno, bool foreign);
/* The C source position of statement i, from the .file/.loc directives before it
 * (gcc -g): "app.c:12", or "" when unknown. */
const char *asm_source_pos(const struct asm_file *f, int i, char *buf, size_t len);

/* classify.c */
struct insn_info classify(const char *mnemonic, const char *prefix, int nops, char **ops);
/* Status flags a condition code ("e", "nz", "le", ...) reads; -1 if not a condition. */
int cc_reads(const char *cc);
/* Does an operand name %r15 (or its 32/16/8-bit parts)? */
bool mentions_r15(const char *s);

/* errors: "path:line: message" on stderr; the caller exits non-zero. */
void sicpp_error(const struct asm_file *f, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
