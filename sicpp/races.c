/*
 * races.c: what sicpp adds for the race detector of the replay (docs/races.md).
 *
 *  - In every build, the anchors: labels listed in order in sic_anchors, a section
 *    that is not loaded (like debug information: no cost at run time). One at every
 *    label of code, at every section switch to code, after every jump (its encoding,
 *    rel8 or rel32, depends on the distance), before every memory access of
 *    sic_memops, every call (memcpy/memmove/memset too) and every rep string
 *    instruction. Two builds of the same assembly, one with the race checks and one
 *    without, have the same anchors in the same order, and between two anchors the
 *    same bytes: a pc of one maps to the other by (the anchor before it, the offset
 *    past it). The replay of a recording made with the ordinary build runs the race
 *    build (sicc --races) and maps the log's pcs through the two tables.
 *  - With --races, before each of those: a call to the checker, which counts nothing
 *    (the counting points are the ordinary build's, so a thread's counts are the
 *    same), keeps every register and the flags, and steps over the red zone.
 *
 * The checkers' arguments (races.h; the runtime's engine/races/races.c reads them):
 * RACE_ACCESS takes the address in %rdi, the size and kind in %rsi, the access's pc
 * (its anchor) in %rdx; RACE_RANGE (memcpy, memset, a string instruction) the
 * destination, the source (0: none) and the length in %rdi, %rsi, %rdx, as memcpy
 * takes them, and the pc in %rcx; RACE_CALL the call's pc (its anchor) in %rdi.
 */
#include "races.h"

#include <ctype.h>
#include <string.h>

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool is_mem(const char *op)
{
	return op[0] != '%' && op[0] != '$';
}

static bool is_stack(const char *op)
{
	if (strstr(op, "(%rsp"))
		return true;
	return op[0] == '-' && strstr(op, "(%rbp)");
}

/* The operand sicpp listed the access for (hunt.c's mem_operand): -1 if none. */
static int mem_index(const struct stmt *s)
{
	for (int k = 0; k < s->nops; k++)
		if (is_mem(s->ops[k]) && !is_stack(s->ops[k]))
			return k;
	return -1;
}

/* Width in bytes of a register operand, 0 if it names none we know. */
static int reg_width(const char *r)
{
	if (r[0] != '%')
		return 0;
	r++;
	if (starts(r, "zmm"))
		return 64;
	if (starts(r, "ymm"))
		return 32;
	if (starts(r, "xmm"))
		return 16;
	if (starts(r, "st"))
		return 0;
	size_t n = strlen(r);
	if (r[0] == 'r' && isdigit((unsigned char)r[1])) { /* r8 r8d r8w r8b */
		char c = r[n - 1];
		return c == 'd' ? 4 : c == 'w' ? 2 : c == 'b' ? 1 : 8;
	}
	if (r[0] == 'r')
		return 8;
	if (r[0] == 'e')
		return 4;
	if (n == 2 && (r[1] == 'l' || r[1] == 'h'))
		return 1;
	if (n == 3 && r[2] == 'l') /* sil dil bpl spl */
		return 1;
	if (n == 2)
		return 2;
	return 0;
}

static int suffix_width(char c)
{
	return c == 'b' ? 1 : c == 'w' ? 2 : c == 'l' ? 4 : c == 'q' ? 8 : 0;
}

/* How many bytes the access touches: from its mnemonic and its other operands. */
static int access_size(const struct stmt *s, int mi)
{
	const char *n = s->name;
	size_t len = strlen(n);
	/* movzbl, movswq, movslq: the first suffix is the memory's. */
	if ((starts(n, "movz") || starts(n, "movs")) && len == 6 && suffix_width(n[4]) && suffix_width(n[5]))
		return suffix_width(n[4]);
	bool vec = false;
	for (int k = 0; k < s->nops; k++)
		if (k != mi && strstr(s->ops[k], "mm"))
			vec = true;
	if (vec) {
		int w = 0;
		for (int k = 0; k < s->nops; k++)
			if (k != mi && reg_width(s->ops[k]) > w)
				w = reg_width(s->ops[k]);
		if (len >= 2 && !strcmp(n + len - 2, "ss"))
			return 4;
		if (len >= 2 && !strcmp(n + len - 2, "sd"))
			return 8;
		if (!strcmp(n, "movq") || !strcmp(n, "vmovq") || strstr(n, "movlp") || strstr(n, "movhp"))
			return 8;
		if (!strcmp(n, "movd") || !strcmp(n, "vmovd"))
			return 4;
		return w ? w : 16;
	}
	for (int k = 0; k < s->nops; k++)
		if (k != mi && reg_width(s->ops[k]))
			return reg_width(s->ops[k]);
	if (starts(n, "fld") || starts(n, "fst") || starts(n, "fild") || starts(n, "fist"))
		return n[len - 1] == 't' ? 10 : n[len - 1] == 'l' || n[len - 1] == 'q' ? 8 : n[len - 1] == 's' ? 4 : 2;
	if (len > 1 && suffix_width(n[len - 1]))
		return suffix_width(n[len - 1]);
	return 8;
}

/* Does the instruction write its memory operand? The destination is the last operand
 * in AT&T syntax; compares, tests and pushes only read it. */
static bool writes_memory(const struct stmt *s, int mi)
{
	const char *n = s->name;
	if (starts(n, "cmp") && !starts(n, "cmpxchg"))
		return false;
	if (starts(n, "test") || starts(n, "push") || starts(n, "ucomis") || starts(n, "comis") ||
	    starts(n, "vucomis") || starts(n, "vcomis") || starts(n, "fld") || starts(n, "fild") ||
	    starts(n, "fcom") || starts(n, "fadd") || starts(n, "fmul") || starts(n, "fsub") ||
	    starts(n, "fdiv") || starts(n, "jmp") || starts(n, "call"))
		return false;
	if (starts(n, "bt") && strlen(n) <= 3)
		return false;
	return mi == s->nops - 1;
}

/* Does the instruction access memory atomically (a lock prefix, xchg with memory)? */
static bool atomic_access(const struct stmt *s)
{
	const char *p = strstr(s->prefix, "lock");
	return p || starts(s->name, "xchg");
}

static bool is_string_insn(const struct stmt *s)
{
	return s->info.string_op && (starts(s->name, "movs") || starts(s->name, "stos")) && s->nops == 0;
}

/* A call (or tail jump) to one of names, through the PLT or not: its index, or -1. */
static int calls_one_of(const struct stmt *s, const char *const *names, bool tail)
{
	if (!(s->info.cls == IC_CALL || (tail && s->info.cls == IC_JMP)) || s->nops != 1)
		return -1;
	const char *t = s->ops[0];
	for (int k = 0; names[k]; k++) {
		size_t n = strlen(names[k]);
		if (!strncmp(t, names[k], n) && (t[n] == '\0' || t[n] == '@'))
			return k;
	}
	return -1;
}

/* memcpy, memmove or memset (*set), checked before the call as a range. */
static bool is_mem_call(const struct stmt *s, bool *set)
{
	static const char *const names[] = {"memcpy", "memmove", "__memcpy_chk", "__memmove_chk",
					    "memset", "__memset_chk", NULL};
	int k = calls_one_of(s, names, true);
	*set = k >= 4;
	return k >= 0;
}

/* free(): the block is written by it (a use after free of another thread races it). */
static bool is_free_call(const struct stmt *s)
{
	static const char *const names[] = {"free", NULL};
	return calls_one_of(s, names, true) >= 0;
}

/* malloc, calloc, realloc: the block they return is new (races_alloc_after). */
static bool is_alloc_call(const struct stmt *s)
{
	static const char *const names[] = {"malloc", "calloc", "realloc", NULL};
	return calls_one_of(s, names, false) >= 0;
}

bool races_anchor_before(const struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	bool set;
	if (!is_code(an, i))
		return false;
	return (an->plan[i].memop & MEMOP_ACCESS) || is_mem_call(s, &set) || is_string_insn(s) ||
	       is_free_call(s) || s->info.cls == IC_CALL;
}

/* Save what the call sequence uses, past the red zone: the site may be in a leaf.
 * Where the frame's CFA is computed from %rsp, say that it moved, so that a debugger
 * or libunwind stopped in the checker walks back through the program's frames. */
static void open_call(FILE *o, bool rsp_cfa)
{
	fprintf(o, "\tleaq\t-128(%%rsp), %%rsp\n\tpushq\t%%rdi\n\tpushq\t%%rsi\n"
		   "\tpushq\t%%rdx\n\tpushq\t%%rcx\n");
	if (rsp_cfa)
		fprintf(o, "\t.cfi_adjust_cfa_offset\t160\n");
}

static void close_call(FILE *o, bool pic, bool rsp_cfa, const char *routine)
{
	if (pic)
		fprintf(o, "\tcall\t*%s@GOTPCREL(%%rip)\n", routine);
	else
		fprintf(o, "\tcall\t%s\n", routine);
	fprintf(o, "\tpopq\t%%rcx\n\tpopq\t%%rdx\n\tpopq\t%%rsi\n\tpopq\t%%rdi\n"
		   "\tleaq\t128(%%rsp), %%rsp\n");
	if (rsp_cfa)
		fprintf(o, "\t.cfi_adjust_cfa_offset\t-160\n");
}

void races_emit_check(FILE *o, const struct analysis *an, int i, int anchor, bool rsp_cfa)
{
	const struct stmt *s = &an->f->st[i];
	bool set;
	if (!is_code(an, i))
		return;
	if (s->info.cls == IC_CALL) {
		/* The call's site, for the detector's shadow stack of each thread: a cell
		 * keeps the stack of its access, which a report names for the earlier one
		 * (the frame is gone by then). No hook at returns: a frame whose call site
		 * has %rsp below the thread's is over (a longjmp too). */
		open_call(o, rsp_cfa);
		fprintf(o, "\tleaq\t.Lsic_an_%d(%%rip), %%rdi\n", anchor);
		close_call(o, an->pic, rsp_cfa, RACE_CALL);
	}
	if (an->plan[i].memop & MEMOP_ACCESS) { /* (MEMOP_REPEAT alone: a jump back) */
		int mi = mem_index(s);
		if (mi < 0)
			return;
		unsigned kind = (unsigned)access_size(s, mi);
		if (atomic_access(s))
			kind |= RACE_ATOMIC;
		else if (writes_memory(s, mi))
			kind |= RACE_WRITE;
		/* The address first: the operand's registers are still the program's
		 * (pushes move %rsp only, and sicpp lists no rsp-based operand). */
		open_call(o, rsp_cfa);
		fprintf(o, "\tleaq\t%s, %%rdi\n", s->ops[mi][0] == '*' ? s->ops[mi] + 1 : s->ops[mi]);
		fprintf(o, "\tmovl\t$%u, %%esi\n\tleaq\t.Lsic_an_%d(%%rip), %%rdx\n", kind, anchor);
		close_call(o, an->pic, rsp_cfa, RACE_ACCESS);
	} else if (is_mem_call(s, &set)) {
		/* memcpy(dst, src, n) and memset(dst, c, n): %rdi, %rsi, %rdx as called. */
		open_call(o, rsp_cfa);
		if (set)
			fprintf(o, "\txorl\t%%esi, %%esi\n");
		fprintf(o, "\tleaq\t.Lsic_an_%d(%%rip), %%rcx\n", anchor);
		close_call(o, an->pic, rsp_cfa, RACE_RANGE);
	} else if (is_free_call(s)) {
		open_call(o, rsp_cfa);
		fprintf(o, "\tleaq\t.Lsic_an_%d(%%rip), %%rcx\n", anchor);
		close_call(o, an->pic, rsp_cfa, RACE_FREE);
	} else if (is_string_insn(s)) {
		/* rep movs/stos: %rcx elements from %rsi to %rdi, forwards (gcc clears DF).
		 * leaq, not shl: the flags are the program's. */
		int w = suffix_width(s->name[strlen(s->name) - 1]);
		bool rep = strstr(s->prefix, "rep") != NULL;
		open_call(o, rsp_cfa);
		if (starts(s->name, "stos"))
			fprintf(o, "\txorl\t%%esi, %%esi\n");
		if (rep)
			fprintf(o, "\tleaq\t(,%%rcx,%d), %%rdx\n", w ? w : 1);
		else
			fprintf(o, "\tmovl\t$%d, %%edx\n", w ? w : 1);
		fprintf(o, "\tleaq\t.Lsic_an_%d(%%rip), %%rcx\n", anchor);
		close_call(o, an->pic, rsp_cfa, RACE_RANGE);
	}
}

bool races_alloc_after(const struct analysis *an, int i)
{
	return is_code(an, i) && is_alloc_call(&an->f->st[i]);
}

void races_emit_alloc(FILE *o, const struct analysis *an, bool rsp_cfa)
{
	open_call(o, rsp_cfa);
	fprintf(o, "\tmovq\t%%rax, %%rdi\n");
	close_call(o, an->pic, rsp_cfa, RACE_ALLOC);
}

bool races_anchor_after(const struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	if (s->foreign)
		return false;
	if (s->kind == ST_LABEL)
		return is_code(an, i) || (an->sect[i] >= 0 && an->sect_exec[an->sect[i]]);
	return is_code(an, i) && (s->info.cls == IC_JMP || s->info.cls == IC_JCC);
}

bool races_anchor_due(const struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	if (s->foreign || s->kind != ST_DIRECTIVE || an->sect[i] < 0 || !an->sect_exec[an->sect[i]])
		return false;
	return !strcmp(s->name, ".p2align") || !strcmp(s->name, ".align") ||
	       !strcmp(s->name, ".balign") || !strcmp(s->name, ".text") ||
	       !strcmp(s->name, ".section") || !strcmp(s->name, ".previous") ||
	       !strcmp(s->name, ".popsection") || !strcmp(s->name, ".pushsection");
}
