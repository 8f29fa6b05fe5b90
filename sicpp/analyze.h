/* analyze.h: what sicpp learns about a file before it rewrites it. */
#ifndef SICPP_ANALYZE_H
#define SICPP_ANALYZE_H

#include "asm.h"

/* f's direct entry, right after its entry check: what an instrumented caller calls, with
 * the count in r15 (docs/sic.md, "Direct entries"). */
#define SIC_DIRECT_SUFFIX ".sic_direct"
/* f's entry for calls from another file, which do not count at the call: the link
 * resolves it (docs/sic.md, "Calls between files"). */
#define SIC_XCALL_SUFFIX ".sic_xcall"

struct sym {
	char *name;
	int def;          /* statement index of its label, -1 if not defined here */
	bool is_func;     /* .type name, @function */
	bool global;      /* .globl / .weak */
	bool weak;        /* .weak: a definition elsewhere may win at link time */
	bool addr_taken;  /* referenced other than as a direct call or jump target */
	bool has_tail;    /* (functions) leaves by a jump to another function or an indirect jump */
	bool tail_target; /* (functions) reached by a tail jump from this file */
	bool tails_keep;  /* (functions) every tail jump goes to a function of this file whose
			   * returns keep the count in r15, as its own do (mark_tails_keep) */
	bool count_target;/* (labels) target of a backward or cross-section jump */
	bool branch_ref;  /* (labels) named by a direct jump */
	bool asm_ref;     /* named inside inline assembly (asm goto) */
	bool landing_pad; /* (labels) where the unwinder lands (.gcc_except_table) */
	bool back_window; /* (loop heads) no count, and the straight line after writes
			   * memory: the jumps back to it are listed in sic_repeats */
	bool aliased;     /* named by .set/.equ/.equiv/.weakref/.symver here: not a plain
			   * global function another file could define */
	bool direct;      /* (functions defined here) has a direct entry after its entry
			   * check (direct_name()): instrumented callers jump there */
	bool moved;       /* (-g, direct) its entry check is moved to the start of .text, in front
			   * of every body (dwarf.c): the ELF symbol is there, the body follows
			   * its direct entry */
	bool xline;       /* (moved, a global no leaf) its cross-file entry's count is a thunk
			   * at the end of .text with a line row of f's entry and a range of
			   * its DWARF (dwarf.c), not in its moved check: a `step` into it
			   * from another file stops there, in f */
	bool shim;        /* (not defined here) called or jumped to at its direct entry:
			   * this file carries the weak shim for a callee that has none */
	bool xshim;       /* (not defined here) called at its cross-file entry (SIC_XCALL_SUFFIX):
			   * this file carries the weak shim that counts, for a callee that
			   * has none */
	bool leaf;        /* (functions defined here, their cold parts included) no call, no
			   * tail jump, no indirect jump that may leave, no inline asm, no
			   * landing pad: part of no recursion, so every way in counts and
			   * its returns do not (docs/sic.md, "Where it counts") */
	bool has_asm;     /* (functions defined here) inline asm in one of its parts */
	int scc;          /* (functions defined here) strongly connected component of the
			   * direct-call graph; two functions share one iff each may call
			   * the other through direct calls of this file */
};

enum count_kind {
	CNT_NONE = 0,
	CNT_FAST, /* incq %r15; jz stub: the flags it writes are dead */
	CNT_SAFE, /* xchg/lea/jrcxz: preserves every flag */
};

/* stmt_plan.memop: sic_memops, and which other tables list it. MEMOP_REPEAT alone is a
 * jump back to a loop head with no count that writes memory (struct sym.back_window). */
enum { MEMOP_ACCESS = 1, MEMOP_ATOMIC = 2, MEMOP_REPEAT = 4 };

/* What the rewriter inserts around statement i. */
struct stmt_plan {
	uint8_t count;       /* enum count_kind, inserted before the statement */
	bool home_store;     /* movq %r15, __sic_home before it (after the count) */
	bool token;          /* ...then movq $SIC_TOKEN, %r15: "the caller is instrumented" */
	bool home_reload;    /* movq __sic_home, %r15 after it */
	bool entry_check;    /* a function's entry check goes after this statement */
	bool landing_reload; /* (a landing pad's label) reload the count if r15 holds the token */
	bool entry_count;    /* (with entry_check) a leaf's entry check counts on its fast path,
			      * after the load and before the direct entry */
	bool ret_store;      /* a return that publishes the count */
	bool ret_token;      /* ...and passes the token back (returns_token): else the count stays */
	bool direct;         /* a call or tail jump to the callee's direct entry, the count
			      * in r15: the target becomes direct_name(callee) */
	bool xcall;          /* (with direct) a call to another file's function that does not
			      * count here: the target becomes its SIC_XCALL_SUFFIX entry, which
			      * counts or not as the link decides (docs/sic.md) */
	bool nopreempt;      /* the instruction's own PC must not take a preemption */
	/* hunt.c: */
	bool pause;          /* a pause: becomes a jump through a stub calling __sic_pause */
	bool spin_edge;      /* the backward branch of a spin-wait: through such a stub */
	uint8_t memop;       /* MEMOP_*: accesses memory beyond its frame (sic_memops) */
	bool loop_exit;      /* a conditional backward branch: (target, next) in sic_loops */
};

struct analysis {
	struct asm_file *f;
	int *sect;           /* per statement: section id, -1 before any */
	int nsect;
	char **sect_name;
	bool *sect_exec;
	int *fn;             /* per statement: index into syms of the enclosing function, -1 */
	struct sym *syms;
	int nsyms, capsyms;
	int *hash;           /* open addressing into syms */
	int hashcap;
	struct stmt_plan *plan;
	bool already_instrumented; /* the input carries our note: pass it through */
	bool pic;            /* reach the runtime through the GOT/PLT */
	bool debug_info;     /* compiled with -g (.loc, .debug_* sections): direct entries only
			      * for functions whose check moves (dwarf.c), so that gdb's
			      * `break f` sees every call */
	char **dw_repl;      /* (-g) per statement, the DWARF text that replaces it, or NULL */
	char *dw_tail;       /* (-g) the range lists, written after everything; NULL: the
			      * DWARF stays as it was and no check moves */
	int dw_text0;        /* (with dw_tail) the .Ltext0 label, where the moved checks go */
	int dw_etext;        /* (with dw_tail) the .Letext0 label, where the line thunks go
			      * (sym.xline); -1: none */
	/* scratch for the flag analysis */
	int *visit;
	uint8_t *visit_mask;
	int visit_gen;
	int budget;
	/* statistics for --stats and the tests */
	int n_fast, n_safe, n_entry, n_calls_local, n_calls_foreign, n_calls_uncounted, n_pruned;
	int n_calls_pure;     /* calls to libc_pure functions: no count */
	int n_pause, n_spin, n_memops;
	int n_calls_direct, n_jumps_direct, n_direct_entries, n_shims;
	int n_calls_xcall, n_xthunks; /* calls to other files' functions that count at their
			      * cross-file entry; this file's functions with such an entry that
			      * the link may resolve to the direct entry */
	int n_leaves, n_leaf_entries, n_leaf_calls; /* leaf functions; their entry checks that
			      * count; calls to them that count at the call only for that */
	int n_moved_checks;   /* (-g) entry checks moved in front of .text (dwarf.c) */
};

/* 0 on success; -1 after printing a file:line error. */
int analyze(struct analysis *an, struct asm_file *f, bool pic);
void analysis_free(struct analysis *an);
struct sym *sym_find(struct analysis *an, const char *name);
/* Flags of mask that may be read from the boundary before statement i onwards. */
uint8_t flags_live(struct analysis *an, int i, uint8_t mask);
/* Is this statement code we instrument (an instruction in an executable section,
 * outside inline asm and foreign syntax blocks)? */
bool is_code(const struct analysis *an, int i);
/* hunt.c: yields at spin-waits, the table of memory accesses (after analyze's plan). */
void plan_hunt(struct analysis *an);
/* Does the straight line after label statement d write memory beyond the frame? */
bool hunt_line_writes(struct analysis *an, int d);
/* The symbol a call or jump to sym's direct entry names: "f.sic_direct" for a global
 * function (hidden: within one linked module), ".Lsic_direct.f" for a static one. */
void direct_name(const struct sym *y, char *buf, size_t len);
/* (-g) Does fn, whose check moved, count at the start of its body, where every caller
 * enters (a leaf's count, its cross-file entry's)? */
bool counts_in_body(const struct sym *fn);
/* The symbol a direct branch names ("foo" for "foo@PLT"); NULL for indirect ones. */
const char *branch_target(const struct stmt *s, char *buf, size_t len);

#endif
