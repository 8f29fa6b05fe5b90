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
 *    other than its own stack frame gets a label, listed in sic_memops (the atomic
 *    ones in sic_atomics too). The hunting scheduler stops a thread at one of them
 *    with a hardware breakpoint: a preemption between a load and the store that
 *    depends on it, where no counting point is.
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

/* 0: no memory access we list; 1: a memory access; 2: an atomic one. */
static int memop_kind(const struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	if (!is_code(an, i) || s->info.cls != IC_OTHER || s->info.string_op || an->plan[i].nopreempt)
		return 0;
	if (starts(s->name, "lea") || starts(s->name, "nop") || starts(s->name, "prefetch") ||
	    starts(s->name, "clflush") || starts(s->name, "clwb"))
		return 0;
	bool mem = false;
	for (int k = 0; k < s->nops; k++)
		if (is_mem(s->ops[k]) && !is_stack(s->ops[k]))
			mem = true;
	if (!mem)
		return 0;
	return is_atomic(s) ? 2 : 1;
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
	if (starts(n, "mov"))
		return is_mem(dst) ? SPIN_NO : SPIN_READS; /* a load, or a constant; not a store */
	static const char *const alu[] = {"lea", "add", "sub", "inc", "dec", "and", "or", "xor",
					  "not", "neg", "shl", "shr", "sar", "set", NULL};
	for (const char *const *p = alu; *p; p++)
		if (starts(n, *p))
			return s->nops && is_mem(dst) ? SPIN_NO : SPIN_COMPUTES;
	return SPIN_NO;
}

/* Is the loop from label statement d to the backward branch at i a spin-wait: only
 * loads, compares and branches (every pass the same until memory changes), or a
 * retried atomic (and what computes its operands)? Not if it pauses (the pause
 * yields already) or calls, stores, or leaves by any other backward jump. */
static bool spin_loop(struct analysis *an, int d, int i)
{
	const struct asm_file *f = an->f;
	bool computes = false, retries = false;
	int n = 0;
	for (int k = d + 1; k < i; k++) {
		const struct stmt *s = &f->st[k];
		if (s->foreign || an->sect[k] != an->sect[i])
			return false;
		if (s->kind == ST_DIRECTIVE && !strcmp(s->name, ".size"))
			return false;
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
			continue;
		}
		if (s->info.cls != IC_OTHER)
			return false;
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
	return n > 0 && (!computes || retries);
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

void plan_hunt(struct analysis *an)
{
	struct asm_file *f = an->f;
	for (int i = 0; i < f->n; i++) {
		struct stmt *s = &f->st[i];
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
		an->n_memops += an->plan[i].memop != 0;
		if (s->info.cls != IC_JCC && s->info.cls != IC_JMP)
			continue;
		char buf[256];
		const char *t = branch_target(s, buf, sizeof buf);
		const struct sym *y = t ? sym_find(an, t) : NULL;
		if (y && y->def >= 0 && !y->is_func && y->def < i && an->sect[y->def] == an->sect[i] &&
		    spin_loop(an, y->def, i)) {
			an->plan[i].spin_edge = true;
			an->n_spin++;
		}
	}
}
