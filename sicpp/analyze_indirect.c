/*
 * analyze_indirect.c: where an indirect jump may go. A dispatch of gcc's (tagged
 * notrack; or through a jump table, of absolute entries or, in PIC code, of 32-bit
 * offsets from its own start; or a computed goto through a table of &&labels) stays
 * in its function; any other may be a tail call through a pointer, and may stay too
 * if its function takes a label's address. The labels it may reach behind it become
 * counting targets.
 */
#include "analyze_int.h"

#include <ctype.h>
#include <string.h>

/* Does statement s end a straight line of code: a label some jump or address names,
 * or inline asm? The labels gcc writes for -g (.LVL, .LBB, .LBE, .LBI: DWARF's
 * locations and scopes) are named only by debug sections: code runs through them. */
static bool ends_straight_line(struct analysis *an, const struct stmt *s)
{
	if (s->foreign)
		return true;
	if (s->kind != ST_LABEL)
		return false;
	const struct sym *y = sym_find(an, s->name);
	return !y || y->branch_ref || y->addr_taken || y->is_func || y->asm_ref || y->landing_pad;
}

/* Is the register operand ("%rax") named in this operand list at position k? */
static bool op_is(const struct stmt *s, int k, const char *what)
{
	return s->nops > k && !strcmp(s->ops[k], what);
}

/* Is `name` a jump table: a label of data whose entries (up to the next label or
 * section change) name code labels only, besides the table itself (`.long .L5-.L4`)?
 * A table of function pointers, a pointer variable (`jmp *fp(%rip)`) or data set at
 * run time is not one. */
static bool is_jump_table(struct analysis *an, const char *name)
{
	struct sym *t = sym_find(an, name);
	if (!t || t->is_func || t->def < 0 || an->sect[t->def] < 0 || an->sect_exec[an->sect[t->def]])
		return false;
	struct asm_file *f = an->f;
	int entries = 0;
	for (int k = t->def + 1; k < f->n && an->sect[k] == an->sect[t->def]; k++) {
		const struct stmt *s = &f->st[k];
		if (s->kind == ST_LABEL || s->foreign)
			break;
		if (s->kind != ST_DIRECTIVE)
			continue;
		if (!strcmp(s->name, ".align") || !strcmp(s->name, ".p2align") || !strcmp(s->name, ".balign"))
			continue;
		if (strcmp(s->name, ".quad") && strcmp(s->name, ".long") && strcmp(s->name, ".int"))
			break;
		for (const char *e = s->args; *e; e += *e == ',') {
			while (isspace((unsigned char)*e))
				e++;
			char label[256];
			size_t n = strcspn(e, "-+, \t");
			if (n == 0 || n >= sizeof label)
				return false;
			memcpy(label, e, n);
			label[n] = '\0';
			if (!is_code_label(an, sym_find(an, label)))
				return false;
			e += n;
			if (*e == '-') { /* only "label" or "label-table" */
				size_t m = strlen(name);
				if (strncmp(e + 1, name, m) || (e[1 + m] && e[1 + m] != ','))
					return false;
				e += 1 + m;
			}
			if (*e && *e != ',')
				return false;
			entries++;
		}
	}
	return entries > 0;
}

/* The name of a general register without its size: "ax" for %rax/%eax/%ax/%al, "8"
 * for %r8/%r8d/%r8w/%r8b; "" if op is not a register. */
static void register_family(const char *op, char fam[4])
{
	fam[0] = '\0';
	if (op[0] != '%')
		return;
	const char *r = op + 1;
	size_t n = strlen(r);
	if (r[0] == 'r' && isdigit((unsigned char)r[1])) {
		snprintf(fam, 4, "%.*s", (int)strspn(r + 1, "0123456789"), r + 1);
		return;
	}
	if ((r[0] == 'r' || r[0] == 'e') && n == 3)
		r++, n--;
	if (n == 2 && (r[1] == 'l' || r[1] == 'h') && strchr("abcd", r[0]))
		snprintf(fam, 4, "%cx", r[0]); /* al, ah */
	else if (n == 3 && r[2] == 'l')
		snprintf(fam, 4, "%.2s", r); /* sil, dil, spl, bpl */
	else if (n == 2)
		snprintf(fam, 4, "%s", r);
}

static bool same_register(const char *a, const char *b)
{
	char fa[4], fb[4];
	register_family(a, fa);
	register_family(b, fb);
	return fa[0] && !strcmp(fa, fb);
}

/* Is the last instruction of the function before statement `before` that writes the
 * register `base` a `leaq .Ltable(%rip), %base` of a jump table? (gcc hoists it out
 * of loops.) `jump` is the indirect jump, for its function. */
static bool dead_end(struct analysis *an, int k);

static bool loads_jump_table(struct analysis *an, int before, int jump, const char *base)
{
	for (int k = before - 1; k >= 0 && an->fn[k] == an->fn[jump]; k--) {
		const struct stmt *s = &an->f->st[k];
		if (s->kind != ST_INSN || s->foreign || s->nops == 0)
			continue;
		if (!same_register(s->ops[s->nops - 1], base))
			continue;
		if (dead_end(an, k))
			continue; /* an epilogue's popq: the value leaves with the function */
		if (strcmp(s->ops[s->nops - 1], base))
			return false; /* a part of it written: not what we know */
		if (strcmp(s->name, "leaq") != 0 || s->nops != 2 || !strstr(s->ops[0], "(%rip)"))
			return false;
		char name[256];
		size_t n = strcspn(s->ops[0], "(+-");
		if (n >= sizeof name)
			return false;
		memcpy(name, s->ops[0], n);
		name[n] = '\0';
		return is_jump_table(an, name);
	}
	return false;
}

/* Does the straight line after statement k leave the function (a return, a tail
 * jump, a trap) before any label or branch within it, so what k writes reaches no
 * other code of the function? */
static bool dead_end(struct analysis *an, int k)
{
	for (int i = k + 1; i < an->f->n && an->sect[i] == an->sect[k]; i++) {
		const struct stmt *s = &an->f->st[i];
		if (s->kind == ST_LABEL || s->foreign)
			return false;
		if (s->kind != ST_INSN)
			continue;
		char buf[256];
		const char *t;
		const struct sym *y;
		switch (s->info.cls) {
		case IC_RET:
		case IC_STOP:
			return true;
		case IC_JMP:
			t = branch_target(s, buf, sizeof buf);
			y = t ? sym_find(an, t) : NULL;
			return t && (!y || y->def < 0 || y->is_func);
		case IC_OTHER:
			break;
		default:
			return false;
		}
	}
	return false;
}

/* Does an instruction maybe write a register other than through its last operand
 * (multiplies, divides, sign extensions of rax, string instructions, cmpxchg...)? */
static bool writes_implicitly(const struct stmt *s)
{
	static const char *const w[] = {"mul", "imul", "div", "idiv", "cqto", "cltq", "cwtl",
					"cltd", "cwtd", "cpuid", "rdtsc", "rdtscp", "cmpxchg",
					"xgetbv", "syscall", "xchg", "xadd", "lods", "rdrand",
					"rdpid", "rdseed", NULL};
	if (s->info.string_op || !s->info.known)
		return true;
	for (const char *const *p = w; *p; p++)
		if (!strncmp(s->name, *p, strlen(*p)))
			return true;
	return false;
}

/* `jmp *%reg` right after `movq (%base,%idx,8), %reg` (or `movq table(,%idx,8), %reg`)
 * in the same straight line, where the table is a jump table: a computed goto's
 * dispatch through a static table of &&labels (Lua's and CPython's interpreters:
 * the table's address is hoisted into a callee-saved register). Nothing between the
 * load and the jump may write reg. */
static bool loads_label_table_entry(struct analysis *an, int i, const char *reg)
{
	for (int k = i - 1; k >= 0; k--) {
		const struct stmt *s = &an->f->st[k];
		if (ends_straight_line(an, s))
			return false;
		if (s->kind != ST_INSN)
			continue;
		bool writes = s->nops && same_register(s->ops[s->nops - 1], reg);
		if (!writes) {
			if (s->info.cls != IC_OTHER || writes_implicitly(s))
				return false;
			continue;
		}
		if (strcmp(s->name, "movq") || s->nops != 2 || strcmp(s->ops[1], reg))
			return false;
		const char *m = s->ops[0];
		size_t n = strcspn(m, "(");
		if (!m[n] || !strstr(m + n, ",8)"))
			return false;
		if (n == 0) { /* (%base,%idx,8) */
			char base[16];
			size_t b = strcspn(m + 1, ",)");
			if (b >= sizeof base || m[1 + b] != ',' || m[1] != '%')
				return false;
			memcpy(base, m + 1, b);
			base[b] = '\0';
			return loads_jump_table(an, k, i, base);
		}
		char name[256]; /* table(,%idx,8) */
		if (n >= sizeof name || strncmp(m + n, "(,%", 3))
			return false;
		memcpy(name, m, n);
		name[n] = '\0';
		return is_jump_table(an, name);
	}
	return false;
}

/* Is the indirect jump at statement i the dispatch of one of gcc's switch jump tables
 * or a computed goto, which stays in its function (so it needs no count published for
 * a callee)?
 *  - tagged `notrack` (-fcf-protection): gcc tags switches and computed gotos, never a
 *    tail call, whose target must start with endbr64;
 *  - `jmp *.Ltable(,%reg,8)`, .Ltable a jump table (non-PIC tables), or
 *    `leaq .Ltable(%rip), %base` ... `jmp *(%base,%reg,8)` (the same in a PIE);
 *  - `movslq (%base,%idx,4), %reg; addq %base, %reg; jmp *%reg`: a table of 32-bit
 *    offsets from its own start, which only jump tables are (PIC/PIE tables).
 * Anything else may be a tail call through a pointer. */
static bool is_switch_dispatch(struct analysis *an, int i)
{
	const struct stmt *j = &an->f->st[i];
	if (j->info.cls != IC_JMP || j->nops != 1 || j->ops[0][0] != '*')
		return false;
	if (strstr(j->prefix, "notrack"))
		return true;
	const char *op = j->ops[0] + 1;
	if (op[0] == '.' || isalpha((unsigned char)op[0])) {
		char name[256];
		size_t n = strcspn(op, "(+-");
		if (n >= sizeof name || strncmp(op + n, "(,%", 3))
			return false; /* not indexed: a pointer in memory */
		memcpy(name, op, n);
		name[n] = '\0';
		return is_jump_table(an, name);
	}
	if (op[0] == '(' && op[1] == '%') {
		char base[16];
		size_t n = strcspn(op + 1, ",)");
		if (n >= sizeof base || op[1 + n] != ',' || !strstr(op, ",8)"))
			return false;
		memcpy(base, op + 1, n);
		base[n] = '\0';
		return loads_jump_table(an, i, i, base);
	}
	if (op[0] != '%')
		return false;
	if (loads_label_table_entry(an, i, op))
		return true;
	/* The two instructions before it, in the same straight line. */
	int add = -1, load = -1;
	for (int k = i - 1; k >= 0 && load < 0; k--) {
		const struct stmt *s = &an->f->st[k];
		if (ends_straight_line(an, s))
			return false;
		if (s->kind != ST_INSN)
			continue;
		if (add < 0)
			add = k;
		else
			load = k;
	}
	if (add < 0 || load < 0)
		return false;
	const struct stmt *a = &an->f->st[add], *l = &an->f->st[load];
	if (strcmp(a->name, "addq") != 0 || !op_is(a, 1, op) || a->nops != 2)
		return false;
	const char *base = a->ops[0];
	char want[64];
	if (strcmp(l->name, "movslq") != 0 || !op_is(l, 1, op) || l->nops != 2)
		return false;
	snprintf(want, sizeof want, "(%s,", base);
	if (strncmp(l->ops[0], want, strlen(want)) != 0 || !strstr(l->ops[0], ",4)"))
		return false;
	return loads_jump_table(an, load, i, base);
}

/* Can the indirect jump at statement i reach a label of its own function: does the
 * function take the address of one of its labels (jump tables, &&label)? Outside a
 * function: does the file take any? */
static bool may_stay(struct analysis *an, int i)
{
	const struct sym *fn = owner_at(an, i);
	for (int k = 0; k < an->nsyms; k++) {
		const struct sym *t = &an->syms[k];
		if (t->addr_taken && is_code_label(an, t) && !an->f->st[t->def].foreign &&
		    (!fn || owner_at(an, t->def) == fn))
			return true;
	}
	return false;
}

/* Where the indirect jump at statement i goes (enum ijump). */
enum ijump indirect_jump_kind(struct analysis *an, int i)
{
	if (is_switch_dispatch(an, i))
		return IJ_STAYS;
	return may_stay(an, i) ? IJ_EITHER : IJ_LEAVES;
}

/* The labels an indirect jump at statement i may reach that lie behind it (or in
 * another section) become counting targets. */
void mark_indirect_targets(struct analysis *an, int i)
{
	const struct sym *fn = owner_at(an, i);
	for (int k = 0; k < an->nsyms; k++) {
		struct sym *t = &an->syms[k];
		if (!t->addr_taken || t->is_func || t->def < 0 || an->sect[t->def] < 0 ||
		    !an->sect_exec[an->sect[t->def]] || an->f->st[t->def].foreign)
			continue;
		if (fn && owner_at(an, t->def) != fn)
			continue;
		if (an->sect[t->def] != an->sect[i] || t->def < i)
			t->count_target = true;
	}
}
