/*
 * hunt.c: what sicpp adds for the runtime's schedulers beyond counting (docs/sic.md,
 * "Spin-waits and memory accesses"):
 *
 *  - yields at spin-waits: a `pause` (gcc's `rep nop` for _mm_pause and
 *    __builtin_ia32_pause, or inline asm holding nothing but a pause) becomes a jump
 *    to a stub that calls __sic_pause, where the runtime lets another green thread
 *    run; a loop that only re-reads memory (loads, compares, branches: it can end
 *    only when another thread writes) or retries an atomic (xchg, lock-prefixed) takes
 *    its backward branch through such a stub. On one core a spinning thread can do
 *    nothing useful until another runs.
 *  - the table of memory accesses: every instruction that may read or write memory
 *    other than its own stack frame gets a label, listed in sic_memops; the atomic
 *    ones in sic_atomics too, and in sic_repeats those that access what an earlier
 *    instruction of the same straight line did (the same operand, its registers
 *    unchanged: a load, then the store that depends on it; a check, then the use),
 *    and the jumps back to a loop head that has no count but writes memory (a load
 *    at the loop's bottom, the store at its top: struct sym.back_window).
 *    The hunting scheduler stops a thread at one of them with a hardware breakpoint:
 *    a preemption between two accesses to one location, where no counting point is,
 *    which is where an atomicity violation's window is.
 *  - the loops: for each conditional backward branch, its target (the loop's head) and
 *    the instruction after it (where the loop is left), in sic_loops; the hunting
 *    scheduler stops a thread where the loop it is in ends.
 *
 * Only the plan is made here (struct stmt_plan: pause, spin_edge, memop); rewrite.c
 * emits it.
 */
#include "analyze.h"

#include <string.h>

/* Longest loop body (instructions) still examined as a spin-wait. */
#define SPIN_MAX_INSNS 24

static bool has_prefix(const struct stmt *s, const char *p)
{
	size_t n = strlen(p);
	for (const char *q = s->prefix; (q = strstr(q, p)); q += n)
		if ((q == s->prefix || q[-1] == ' ') && (q[n] == ' ' || q[n] == '\0'))
			return true;
	return false;
}

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* pause, or rep nop (the same encoding, what gcc writes for _mm_pause). */
static bool is_pause_insn(const struct stmt *s)
{
	return s->kind == ST_INSN && s->nops == 0 &&
	       (!strcmp(s->name, "pause") || (!strcmp(s->name, "nop") && has_prefix(s, "rep")));
}

/* Does the operand name memory (not a register, an immediate or a label)? */
static bool is_mem(const char *op)
{
	return op[0] != '%' && op[0] != '$';
}

/* A segment-relative operand, "%fs:x@tpoff" or "%fs:(%rax)": thread-local memory, which
 * is_mem does not count (no access is listed for the hunting scheduler there). */
static bool is_seg_mem(const char *op)
{
	return op[0] == '%' && op[1] && op[2] == 's' && op[3] == ':';
}

/* A local of the frame: rsp-based, or below rbp (gcc -O0 keeps locals at -N(%rbp)). */
static bool is_stack(const char *op)
{
	if (strstr(op, "(%rsp"))
		return true;
	return op[0] == '-' && strstr(op, "(%rbp)");
}

static bool is_atomic(const struct stmt *s)
{
	if (has_prefix(s, "lock"))
		return true;
	if (!starts(s->name, "xchg"))
		return false;
	for (int k = 0; k < s->nops; k++)
		if (is_mem(s->ops[k]))
			return true;
	return false;
}

/* The memory operand of a listed access (the first one not on the stack). */
static const char *mem_operand(const struct stmt *s)
{
	for (int k = 0; k < s->nops; k++)
		if (is_mem(s->ops[k]) && !is_stack(s->ops[k]))
			return s->ops[k];
	return NULL;
}

/* Which general register ("%eax", "%r8d", "%al" ...) a name is: 0..15, -1 if none. */
static int gpr(const char *r)
{
	static const char *const names[16][4] = {
		{"rax", "eax", "ax", "al"},   {"rcx", "ecx", "cx", "cl"},   {"rdx", "edx", "dx", "dl"},
		{"rbx", "ebx", "bx", "bl"},   {"rsp", "esp", "sp", "spl"},  {"rbp", "ebp", "bp", "bpl"},
		{"rsi", "esi", "si", "sil"},  {"rdi", "edi", "di", "dil"},  {"r8", "r8d", "r8w", "r8b"},
		{"r9", "r9d", "r9w", "r9b"},  {"r10", "r10d", "r10w", "r10b"}, {"r11", "r11d", "r11w", "r11b"},
		{"r12", "r12d", "r12w", "r12b"}, {"r13", "r13d", "r13w", "r13b"},
		{"r14", "r14d", "r14w", "r14b"}, {"r15", "r15d", "r15w", "r15b"}};
	if (r[0] != '%')
		return -1;
	for (int k = 0; k < 16; k++)
		for (int j = 0; j < 4; j++)
			if (!strcmp(r + 1, names[k][j]))
				return k;
	if (!strcmp(r + 1, "ah") || !strcmp(r + 1, "ch") || !strcmp(r + 1, "dh") || !strcmp(r + 1, "bh"))
		return r[1] == 'a' ? 0 : r[1] == 'c' ? 1 : r[1] == 'd' ? 2 : 3;
	return -1;
}

/* The general registers (a mask of gpr numbers) the operand names: a register, or those
 * of a memory operand's address. */
static unsigned operand_gprs(const char *op)
{
	unsigned m = 0;
	for (const char *p = strchr(op, '%'); p; p = strchr(p + 1, '%')) {
		char name[8];
		size_t n = 0;
		while (n + 1 < sizeof name && (p[n] == '%' || (p[n] >= 'a' && p[n] <= 'z') ||
					       (p[n] >= '0' && p[n] <= '9')))
			n++, name[n - 1] = p[n - 1];
		name[n] = '\0';
		if (gpr(name) >= 0)
			m |= 1u << gpr(name);
	}
	return m;
}

/* Does the operand's address use register k? */
static bool uses_gpr(const char *op, int k)
{
	return operand_gprs(op) >> k & 1;
}

/* The straight line's accesses so far, for sic_repeats: an access repeats one of them
 * if it has the same operand text and no register of its address was written since. */
#define LINE_MAX_OPS 32
struct line {
	const char *ops[LINE_MAX_OPS];
	int n;
};

static bool line_has(const struct line *l, const char *op)
{
	for (int k = 0; k < l->n; k++)
		if (!strcmp(l->ops[k], op))
			return true;
	return false;
}

/* Statement s writes its last operand, a register: accesses through it are new. */
static void line_written(struct line *l, const struct stmt *s)
{
	if (!s->nops || starts(s->name, "cmp") || starts(s->name, "test"))
		return;
	int k = gpr(s->ops[s->nops - 1]);
	if (k < 0)
		return;
	int j = 0;
	for (int i = 0; i < l->n; i++)
		if (!uses_gpr(l->ops[i], k))
			l->ops[j++] = l->ops[i];
	l->n = j;
}

/* 0: no memory access we list; else RP_MEMOP_ACCESS, with ATOMIC if it is one. */
static int memop_kind(const struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	if (!is_code(an, i) || s->info.cls != IC_OTHER || s->info.string_op || an->plan[i].nopreempt)
		return 0;
	if (starts(s->name, "lea") || starts(s->name, "nop") || starts(s->name, "prefetch") ||
	    starts(s->name, "clflush") || starts(s->name, "clwb"))
		return 0;
	if (!mem_operand(s))
		return 0;
	return MEMOP_ACCESS | (is_atomic(s) ? MEMOP_ATOMIC : 0);
}

/* One instruction of a loop body, for spin_loop. */
enum spin_insn { SPIN_NO, SPIN_READS, SPIN_COMPUTES, SPIN_RETRIES, SPIN_PAUSES };

static enum spin_insn spin_insn(const struct stmt *s)
{
	const char *n = s->name;
	const char *dst = s->nops ? s->ops[s->nops - 1] : "";
	if (is_pause_insn(s))
		return SPIN_PAUSES;
	if (s->info.string_op)
		return SPIN_NO;
	if (is_atomic(s) || starts(n, "cmpxchg"))
		return SPIN_RETRIES;
	if (starts(n, "nop") || starts(n, "cmp") || starts(n, "test"))
		return SPIN_READS;
	bool store = is_mem(dst) || is_seg_mem(dst);
	if (starts(n, "mov"))
		return store ? SPIN_NO : SPIN_READS; /* a load, or a constant; not a store */
	static const char *const alu[] = {"lea", "add", "sub", "inc", "dec", "and", "or", "xor",
					  "not", "neg", "shl", "shr", "sar", "set", NULL};
	for (const char *const *p = alu; *p; p++)
		if (starts(n, *p))
			return s->nops && store ? SPIN_NO : SPIN_COMPUTES;
	return SPIN_NO;
}

/* The general registers (a mask of gpr numbers) an instruction of a spin_loop
 * candidate writes: its last operand's; both of xchg's and xadd's; cmpxchg's %rax too
 * (and cmpxchg8b's and 16b's %rdx); none of a compare's. */
static unsigned gprs_written(const struct stmt *s)
{
	const char *n = s->name;
	if (starts(n, "test") || starts(n, "nop") || (starts(n, "cmp") && !starts(n, "cmpxchg")))
		return 0;
	unsigned m = starts(n, "cmpxchg") ? 1u : 0u;
	if (starts(n, "cmpxchg8b") || starts(n, "cmpxchg16b"))
		m |= 1u << 2;
	int first = starts(n, "xchg") || starts(n, "xadd") ? 0 : s->nops - 1;
	for (int k = first; k >= 0 && k < s->nops; k++)
		if (gpr(s->ops[k]) >= 0)
			m |= 1u << gpr(s->ops[k]);
	return m;
}

/* The general registers the instruction's memory operands compute their address from
 * (none of lea's or nop's: they read no memory). */
static unsigned address_gprs(const struct stmt *s)
{
	unsigned m = 0;
	if (starts(s->name, "lea") || starts(s->name, "nop"))
		return 0;
	for (int k = 0; k < s->nops; k++)
		if (is_mem(s->ops[k]) || is_seg_mem(s->ops[k]))
			m |= operand_gprs(s->ops[k]);
	return m;
}

/* The general registers the instruction reads: every operand's, but the destination
 * of a mov, lea or set (which only writes it) when that is a register. */
static unsigned gprs_read(const struct stmt *s)
{
	bool writes_only = starts(s->name, "mov") || starts(s->name, "lea") || starts(s->name, "set");
	unsigned m = 0;
	for (int k = 0; k < s->nops; k++)
		if (k != s->nops - 1 || !writes_only || is_mem(s->ops[k]) || is_seg_mem(s->ops[k]))
			m |= operand_gprs(s->ops[k]);
	return m;
}

/* Is the loop from label statement d to the backward branch at i a spin-wait: only
 * loads, compares and branches (every pass the same until memory changes), or a
 * retried atomic (and what computes its operands)? Not if it pauses (the pause
 * yields already) or calls, stores, or leaves by any other backward jump; nor, unless
 * it retries an atomic (a failed compare-and-swap reloads what it compares), if it
 * walks: an address it reads through comes from a register the loop writes, and not
 * afresh on every pass, from memory or constants alone, before the read (`movq
 * 16(%rbx), %rbx` in a hash chain's walk is a load, but each pass reads another node;
 * `movq %rdx, %rax; movzbl (%rdi,%rdx), %edx` follows an index: such loops end
 * without another thread). */
static bool spin_loop(struct analysis *an, int d, int i)
{
	const struct asm_file *f = an->f;
	bool computes = false, retries = false;
	int n = 0;
	/* written: registers the body writes; fresh: those it has written so far on this
	 * pass, before anything in the body branches or is jumped to, from nothing the pass
	 * before left (a stale register); carried: registers an address uses where they
	 * may still hold what the pass before left */
	unsigned written = 0, fresh = 0, carried = 0;
	for (int k = d + 1; k < i; k++)
		if (f->st[k].kind == ST_INSN)
			written |= gprs_written(&f->st[k]);
	bool straight = true;
	for (int k = d + 1; k < i; k++) {
		const struct stmt *s = &f->st[k];
		if (s->foreign || an->sect[k] != an->sect[i])
			return false;
		if (s->kind == ST_DIRECTIVE && !strcmp(s->name, ".size"))
			return false;
		if (s->kind == ST_LABEL) { /* a jump's target; not gcc's DWARF labels (.LVL3) */
			const struct sym *y = sym_find(an, s->name);
			if (!y || y->branch_ref || y->is_func)
				straight = false;
		}
		if (s->kind != ST_INSN)
			continue;
		if (++n > SPIN_MAX_INSNS)
			return false;
		if (s->info.cls == IC_JCC || s->info.cls == IC_JMP) {
			char buf[256];
			const char *t = branch_target(s, buf, sizeof buf);
			const struct sym *y = t ? sym_find(an, t) : NULL;
			if (!strcmp(s->name, "loop") || !y || y->def < 0 || y->is_func ||
			    an->sect[y->def] != an->sect[i] || (y->def < k && y->def != d))
				return false; /* indirect, a call out, or another loop */
			straight = false;
			continue;
		}
		if (s->info.cls != IC_OTHER)
			return false;
		carried |= address_gprs(s) & ~fresh;
		/* from a stale register: stale too; after a branch, fresh on some paths only */
		unsigned w = gprs_written(s);
		if (gprs_read(s) & written & ~fresh)
			fresh &= ~w;
		else if (straight)
			fresh |= w;
		switch (spin_insn(s)) {
		case SPIN_NO:
		case SPIN_PAUSES:
			return false;
		case SPIN_READS:
			break;
		case SPIN_COMPUTES:
			computes = true;
			break;
		case SPIN_RETRIES:
			retries = true;
			break;
		}
	}
	return n > 0 && (!computes || retries) && (retries || !(carried & written));
}

/* Inline asm holding nothing but a pause (asm volatile("pause")): statement index of
 * that pause, or -1. from is the block's #APP line. */
static int lone_asm_pause(const struct asm_file *f, int from, int *end)
{
	int found = -1, insns = 0;
	int k = from + 1;
	for (; k < f->n && f->st[k].in_app; k++) {
		const char *t = f->st[k].text;
		while (*t == ' ' || *t == '\t')
			t++;
		if (!strncmp(t, "#NO_APP", 7))
			break;
		if (!*t || *t == '#')
			continue;
		insns++;
		char norm[32];
		size_t n = 0;
		for (; *t && *t != '#' && n + 1 < sizeof norm; t++)
			if (*t != ' ' && *t != '\t' && *t != ';')
				norm[n++] = *t;
		norm[n] = '\0';
		if (!strcmp(norm, "pause") || !strcmp(norm, "repnop"))
			found = k;
	}
	*end = k;
	return insns == 1 ? found : -1;
}

/* A label code may jump to (not gcc's DWARF labels, .LVL3 and the like, which only
 * name a place for the debugger). */
static bool jump_target(struct analysis *an, const struct stmt *s)
{
	if (s->kind != ST_LABEL)
		return false;
	const struct sym *y = sym_find(an, s->name);
	return !y || y->branch_ref || y->addr_taken || y->is_func || y->count_target;
}

/* Does the straight line after label statement d write memory beyond the frame (a
 * store, an instruction with a memory destination, an atomic) before it ends? */
bool hunt_line_writes(struct analysis *an, int d)
{
	struct asm_file *f = an->f;
	for (int i = d + 1; i < f->n; i++) {
		const struct stmt *s = &f->st[i];
		if (jump_target(an, s) || s->foreign)
			return false;
		if (s->kind != ST_INSN || !is_code(an, i))
			continue;
		if (s->info.cls != IC_OTHER && s->info.cls != IC_JCC)
			return false;
		if (!memop_kind(an, i))
			continue;
		const char *dst = s->ops[s->nops - 1];
		if (is_atomic(s) || (is_mem(dst) && !is_stack(dst) && !starts(s->name, "cmp") &&
				     !starts(s->name, "test")))
			return true;
	}
	return false;
}

void plan_hunt(struct analysis *an)
{
	struct asm_file *f = an->f;
	struct line line = {.n = 0};
	for (int i = 0; i < f->n; i++) {
		struct stmt *s = &f->st[i];
		/* Another straight line after a label code may jump to, a jump, a call or a
		 * return (a conditional branch's fall-through goes on). */
		if (jump_target(an, s) || s->foreign ||
		    (s->kind == ST_INSN && s->info.cls != IC_OTHER && s->info.cls != IC_JCC))
			line.n = 0;
		if (s->foreign) {
			int end;
			if (s->in_app && !strncmp(s->text, "#APP", 4)) {
				int p = lone_asm_pause(f, i, &end);
				if (p >= 0 && an->sect[p] >= 0 && an->sect_exec[an->sect[p]]) {
					an->plan[p].pause = true;
					an->n_pause++;
				}
				i = end;
			}
			continue;
		}
		if (!is_code(an, i))
			continue;
		if (is_pause_insn(s)) {
			an->plan[i].pause = true;
			an->n_pause++;
			continue;
		}
		an->plan[i].memop = (uint8_t)memop_kind(an, i);
		if (an->plan[i].memop) {
			const char *op = mem_operand(s);
			if (line_has(&line, op))
				an->plan[i].memop |= MEMOP_REPEAT;
			else if (line.n < LINE_MAX_OPS)
				line.ops[line.n++] = op;
			an->n_memops++;
		}
		if (s->kind == ST_INSN)
			line_written(&line, s);
		if (s->info.cls != IC_JCC && s->info.cls != IC_JMP)
			continue;
		char buf[256];
		const char *t = branch_target(s, buf, sizeof buf);
		const struct sym *y = t ? sym_find(an, t) : NULL;
		bool backward = y && y->def >= 0 && !y->is_func && y->def < i && an->sect[y->def] == an->sect[i];
		if (y && y->back_window && is_code(an, i) && (backward || an->sect[y->def] != an->sect[i])) {
			/* back to a loop head with no count that writes memory (analyze_loops.c) */
			if (!an->plan[i].memop)
				an->n_memops++;
			an->plan[i].memop |= MEMOP_REPEAT;
		}
		if (backward && s->info.cls == IC_JCC && strcmp(s->name, "loop") != 0)
			an->plan[i].loop_exit = true; /* its fall-through leaves the loop */
		if (backward && spin_loop(an, y->def, i)) {
			an->plan[i].spin_edge = true;
			an->n_spin++;
		}
	}
}
