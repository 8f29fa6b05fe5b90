/*
 * analyze.c: sections, symbols, functions and branch directions, then the plan of
 * what to insert where (struct stmt_plan). The rules are in docs/sic.md; in short:
 *
 *  - every cycle of the control-flow graph must pass a counting point. A cycle either
 *    takes a backward jump (target earlier in the same section), a jump across sections,
 *    an indirect jump, a tail jump, or a call. We count at the targets of the first two
 *    (once per label, as late in the label's straight-line block as needed to find dead
 *    flags) and at the site of the others, but not at calls that no cycle of the file's
 *    call graph passes, nor at a label every cycle through which already counts;
 *  - calls that may reach foreign code publish the count in __sic_home before and
 *    reload it after; functions foreign code may call check r15 against it on entry;
 *  - a call or tail jump to a function named in it goes to the callee's direct entry
 *    after that check, the count in r15, unless the callee could be the wrong one or
 *    the code has debug info (direct_callee).
 *
 * analyze.c reads the input (sections, symbols, references, functions, tail jumps) and
 * drives the plan; the rules' parts are in analyze_flags.c (flag liveness),
 * analyze_calls.c (returns, direct entries, entry checks, the call graph and leaves),
 * analyze_indirect.c (where indirect jumps go), analyze_loops.c (the counts at jump
 * targets, and the pruning) and hunt.c (spin-waits, the table of memory accesses).
 */
#include "analyze_int.h"
#include "dwarf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);
	if (!p) {
		fputs("sicpp: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

static unsigned hash_str(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

struct sym *sym_find(struct analysis *an, const char *name)
{
	if (!an->hashcap)
		return NULL;
	for (unsigned h = hash_str(name) & (an->hashcap - 1);; h = (h + 1) & (an->hashcap - 1)) {
		int k = an->hash[h];
		if (k < 0)
			return NULL;
		if (strcmp(an->syms[k].name, name) == 0)
			return &an->syms[k];
	}
}

static struct sym *sym_get(struct analysis *an, const char *name)
{
	struct sym *s = sym_find(an, name);
	if (s)
		return s;
	if (2 * (an->nsyms + 1) > an->hashcap) {
		int cap = an->hashcap ? 2 * an->hashcap : 1024;
		free(an->hash);
		an->hash = xcalloc(cap, sizeof *an->hash);
		memset(an->hash, -1, cap * sizeof *an->hash);
		an->hashcap = cap;
		for (int k = 0; k < an->nsyms; k++) {
			unsigned h = hash_str(an->syms[k].name) & (cap - 1);
			while (an->hash[h] >= 0)
				h = (h + 1) & (cap - 1);
			an->hash[h] = k;
		}
	}
	if (an->nsyms == an->capsyms) {
		an->capsyms = an->capsyms ? 2 * an->capsyms : 256;
		an->syms = realloc(an->syms, an->capsyms * sizeof *an->syms);
		if (!an->syms) {
			fputs("sicpp: out of memory\n", stderr);
			exit(2);
		}
	}
	int k = an->nsyms++;
	memset(&an->syms[k], 0, sizeof an->syms[k]);
	an->syms[k].name = strdup(name);
	an->syms[k].def = -1;
	unsigned h = hash_str(name) & (an->hashcap - 1);
	while (an->hash[h] >= 0)
		h = (h + 1) & (an->hashcap - 1);
	an->hash[h] = k;
	return &an->syms[k];
}

/* ---- sections ----------------------------------------------------------- */

static int section_id(struct analysis *an, const char *name, const char *flags)
{
	for (int k = 0; k < an->nsect; k++)
		if (strcmp(an->sect_name[k], name) == 0)
			return k;
	an->sect_name = realloc(an->sect_name, (an->nsect + 1) * sizeof *an->sect_name);
	an->sect_exec = realloc(an->sect_exec, (an->nsect + 1) * sizeof *an->sect_exec);
	an->sect_name[an->nsect] = strdup(name);
	bool exec = strcmp(name, ".text") == 0 || strncmp(name, ".text.", 6) == 0;
	if (flags && flags[0] == '"')
		exec = strchr(flags, 'x') != NULL;
	an->sect_exec[an->nsect] = exec;
	return an->nsect++;
}

/* Follow .text/.data/.section/.pushsection/.popsection/.previous. */
static void track_sections(struct analysis *an)
{
	struct asm_file *f = an->f;
	int cur = -1, prev = -1;
	int stack[64], sp = 0;
	for (int i = 0; i < f->n; i++) {
		struct stmt *s = &f->st[i];
		if (s->kind == ST_DIRECTIVE && !s->foreign) {
			const char *d = s->name;
			int next = -2;
			if (!strcmp(d, ".text") || !strcmp(d, ".data") || !strcmp(d, ".bss"))
				next = section_id(an, d, NULL);
			else if ((!strcmp(d, ".section") || !strcmp(d, ".pushsection")) && s->nops > 0) {
				if (!strcmp(d, ".pushsection") && sp < 64)
					stack[sp++] = cur;
				next = section_id(an, s->ops[0], s->nops > 1 ? s->ops[1] : NULL);
			} else if (!strcmp(d, ".popsection") && sp > 0) {
				next = stack[--sp];
			} else if (!strcmp(d, ".previous")) {
				next = prev;
			}
			if (next != -2) {
				prev = cur;
				cur = next;
			}
		}
		an->sect[i] = cur;
	}
}

/* ---- symbols and references --------------------------------------------- */

/* DWARF names code labels (.LFB, .LVL, .LBB ...) to describe the code: that takes no
 * address a program could jump to or call, and must not keep a function's entry
 * check out of the function's DWARF range (gdb could not step into it). */
static bool in_debug_section(const struct analysis *an, int i)
{
	return an->sect[i] >= 0 && !strncmp(an->sect_name[an->sect[i]], ".debug", 6);
}

/* The C++ (and -fexceptions) call-site tables: which code ranges land where. */
static bool in_except_table(const struct analysis *an, int i)
{
	return an->sect[i] >= 0 && !strncmp(an->sect_name[an->sect[i]], ".gcc_except_table", 17);
}

static bool is_ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '.';
}

/* Call fn for every symbol-like word in text; registers and numbers are skipped. */
static void for_each_ident(const char *text, void (*fn)(struct analysis *, const char *),
			   struct analysis *an)
{
	const char *p = text;
	while (*p) {
		if (*p == '%') { /* register */
			p++;
			while (isalnum((unsigned char)*p))
				p++;
			continue;
		}
		if (*p == '"') { /* string literal */
			p++;
			while (*p && *p != '"')
				p += (*p == '\\' && p[1]) ? 2 : 1;
			if (*p)
				p++;
			continue;
		}
		if (isdigit((unsigned char)*p)) {
			while (isalnum((unsigned char)*p))
				p++;
			continue;
		}
		if (is_ident_start((unsigned char)*p)) {
			const char *q = p;
			while (isalnum((unsigned char)*q) || *q == '_' || *q == '.' || *q == '$')
				q++;
			char name[512];
			size_t n = q - p;
			if (n < sizeof name && !(n == 1 && *p == '.')) {
				memcpy(name, p, n);
				name[n] = '\0';
				fn(an, name);
			}
			p = q;
			if (*p == '@') /* @PLT, @GOTPCREL... */
				while (*p && (isalnum((unsigned char)*p) || *p == '@'))
					p++;
			continue;
		}
		p++;
	}
}

static void mark_addr_taken(struct analysis *an, const char *name)
{
	sym_get(an, name)->addr_taken = true;
}

/* Named in inline asm: its address escapes, and asm goto may jump to it from code we
 * cannot see, in any direction. */
static void mark_asm_ref(struct analysis *an, const char *name)
{
	struct sym *y = sym_get(an, name);
	y->addr_taken = true;
	y->asm_ref = true;
}

const char *branch_target(const struct stmt *s, char *buf, size_t len)
{
	if (s->nops != 1 || s->ops[0][0] == '*')
		return NULL;
	const char *o = s->ops[0];
	size_t n = 0;
	while (o[n] && o[n] != '@' && o[n] != '+' && o[n] != '-' && !isspace((unsigned char)o[n]))
		n++;
	if (n == 0 || n >= len)
		return NULL;
	memcpy(buf, o, n);
	buf[n] = '\0';
	return buf;
}

/* A call that is part of a TLS access sequence (general or local dynamic:
 * `leaq x@tlsgd(%rip), %rdi ... call __tls_get_addr@PLT`; descriptors:
 * `call *x@TLSCALL(%rax)`). The linker rewrites these byte patterns, so nothing may
 * be inserted; nor needs to be: the callee is ld.so's, keeps %r15 (callee-saved) and
 * returns to the next instruction, so it is no counting point. */
bool tls_call(const struct stmt *s, const char *target)
{
	return (target && !strcmp(target, "__tls_get_addr")) ||
	       (s->nops == 1 && strstr(s->ops[0], "@TLSCALL"));
}

static bool is_data_directive(const char *d)
{
	static const char *const data[] = {".quad", ".long", ".int", ".word", ".short",
					   ".byte", ".8byte", ".4byte", ".2byte", ".value",
					   ".set", ".equ", ".equiv", ".uleb128", ".sleb128",
					   ".reloc", ".dc.a", ".dc.l", ".dc.q", NULL};
	for (const char *const *p = data; *p; p++)
		if (!strcmp(d, *p))
			return true;
	return false;
}

bool is_code(const struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	return s->kind == ST_INSN && !s->foreign && an->sect[i] >= 0 && an->sect_exec[an->sect[i]];
}

/* foo.cold is the cold part of foo: it returns for foo. */
const struct sym *owner(struct analysis *an, const struct sym *fn)
{
	const char *cold = strstr(fn->name, ".cold");
	if (!cold)
		return fn;
	char parent[512];
	snprintf(parent, sizeof parent, "%.*s", (int)(cold - fn->name), fn->name);
	const struct sym *p = sym_find(an, parent);
	return p ? p : fn;
}

/* The function statement i belongs to, with foo.cold counted as foo. */
const struct sym *owner_at(struct analysis *an, int i)
{
	return an->fn[i] >= 0 ? owner(an, &an->syms[an->fn[i]]) : NULL;
}

/* Code labels (not functions) of an executable section named in data: a jump table's
 * entries, or an address taken with &&label. */
bool is_code_label(struct analysis *an, const struct sym *y)
{
	return y && !y->is_func && y->def >= 0 && an->sect[y->def] >= 0 &&
	       an->sect_exec[an->sect[y->def]];
}

static bool reg_is_r15(const char *r)
{
	return !strcmp(r, "15") || !strcmp(r, "%r15") || !strcmp(r, "r15");
}

/* Refuse what we cannot instrument faithfully; name the C line when gcc -g told. */
#define REFUSE(...)                                                                    \
	do {                                                                           \
		char pos_[512], msg_[1024];                                            \
		snprintf(msg_, sizeof msg_, __VA_ARGS__);                              \
		asm_source_pos(f, i, pos_, sizeof pos_);                               \
		sicpp_error(f, s->line, "%s%s%s%s", msg_, *pos_ ? " (at " : "", pos_,  \
			    *pos_ ? ")" : "");                                         \
		return -1;                                                             \
	} while (0)

static int check_input(struct analysis *an)
{
	struct asm_file *f = an->f;
	for (int i = 0; i < f->n; i++) {
		struct stmt *s = &f->st[i];
		if (s->foreign) {
			if (mentions_r15(s->text))
				REFUSE("%s uses %%r15, which holds the instruction counter",
				       s->in_app ? "inline assembly" : "assembly");
			/* A function written in Intel syntax or 32-bit mode is code we would
			 * leave uninstrumented without a word: refuse it. */
			if (!s->in_app && (strstr(s->text, ".cfi_startproc") ||
					   (strstr(s->text, ".type") && strstr(s->text, "function"))))
				REFUSE("function outside AT&T 64-bit syntax (.intel_syntax or .code32): "
				       "compile with the default -masm=att");
			continue;
		}
		if (s->kind == ST_DIRECTIVE) {
			if ((!strncmp(s->name, ".cfi_offset", 11) || !strcmp(s->name, ".cfi_rel_offset") ||
			     !strcmp(s->name, ".cfi_register")) && s->nops > 0 && reg_is_r15(s->ops[0]))
				REFUSE("code saves %%r15: compile with -ffixed-r15");
			if (!strcmp(s->name, ".cpu") || !strcmp(s->name, ".thumb") || !strcmp(s->name, ".arm") ||
			    !strcmp(s->name, ".option") ||
			    (!strcmp(s->name, ".arch") && (strstr(s->args, "arm") || strstr(s->args, "rv"))))
				REFUSE("not x86-64 assembly (%s)", s->name);
			continue;
		}
		if (s->kind != ST_INSN)
			continue;
		if (mentions_r15(s->args))
			REFUSE("instruction uses %%r15, which holds the instruction counter: "
			       "compile with -ffixed-r15");
		if (strchr(s->args, '[') || strstr(s->args, " PTR"))
			REFUSE("not AT&T syntax: '%s'", s->text);
		if (!strcmp(s->name, "pushl") || !strcmp(s->name, "popl") || !strcmp(s->name, "retl") ||
		    !strcmp(s->name, "calll") || strstr(s->args, "(%esp") || strstr(s->args, "(%ebp"))
			REFUSE("32-bit x86 assembly; sicpp handles x86-64 only");
		if (s->args[0] && !strchr(s->args, '%') && !strchr(s->args, '$') && s->nops >= 2 &&
		    !s->info.known)
			REFUSE("not x86-64 AT&T assembly: '%s'", s->text);
		if (s->info.cls == IC_BAD && is_code(an, i))
			REFUSE("unsupported control transfer '%s'", s->name);
	}
	return 0;
}

/* Landing pads: the third field of each call-site record of gcc's LSDA (between
 * .LLSDACSB<n> and .LLSDACSE<n>: start, length, landing pad or 0, action). The
 * unwinder jumps there, so no jump of ours does: the table takes no address a
 * program jumps to. */
static void mark_landing_pads(struct analysis *an)
{
	struct asm_file *f = an->f;
	int field = -1; /* inside a call-site table: uleb128 fields seen */
	for (int i = 0; i < f->n; i++) {
		struct stmt *s = &f->st[i];
		if (s->foreign || !in_except_table(an, i)) {
			if (s->kind != ST_BLANK)
				field = -1;
			continue;
		}
		if (s->kind == ST_LABEL) {
			if (!strncmp(s->name, ".LLSDACSB", 9))
				field = 0;
			else if (!strncmp(s->name, ".LLSDACSE", 9))
				field = -1;
			continue;
		}
		if (field < 0 || s->kind != ST_DIRECTIVE || strcmp(s->name, ".uleb128"))
			continue;
		if (field++ % 4 != 2 || s->nops != 1)
			continue;
		char label[256];
		size_t n = strcspn(s->ops[0], "-+ ");
		if (n == 0 || n >= sizeof label)
			continue;
		memcpy(label, s->ops[0], n);
		label[n] = '\0';
		if (is_ident_start((unsigned char)label[0]))
			sym_get(an, label)->landing_pad = true;
	}
}

/* ---- the plan --------------------------------------------------------------- */

int analyze(struct analysis *an, struct asm_file *f, bool pic)
{
	memset(an, 0, sizeof *an);
	an->f = f;
	an->pic = pic;
	an->sect = xcalloc(f->n, sizeof *an->sect);
	an->fn = xcalloc(f->n, sizeof *an->fn);
	an->plan = xcalloc(f->n, sizeof *an->plan);
	an->visit = xcalloc(f->n, sizeof *an->visit);
	an->visit_mask = xcalloc(f->n, sizeof *an->visit_mask);

	for (int i = 0; i < f->n; i++) {
		struct stmt *s = &f->st[i];
		if (s->kind == ST_INSN)
			s->info = classify(s->name, s->prefix, s->nops, s->ops);
		if (s->kind == ST_DIRECTIVE && !strcmp(s->name, ".section") && s->nops &&
		    !strcmp(s->ops[0], ".note.libreplay"))
			an->already_instrumented = true;
	}
	if (an->already_instrumented)
		return 0;
	track_sections(an);
	if (check_input(an) < 0)
		return -1;

	/* Definitions, types, bindings, references. */
	for (int i = 0; i < f->n; i++) {
		struct stmt *s = &f->st[i];
		if (s->foreign) {
			for_each_ident(s->text, s->in_app ? mark_asm_ref : mark_addr_taken, an);
			continue;
		}
		if (s->kind == ST_LABEL) {
			struct sym *y = sym_get(an, s->name);
			y->def = i;
		} else if (s->kind == ST_DIRECTIVE) {
			const char *d = s->name;
			if (!strcmp(d, ".type") && s->nops == 2 &&
			    (strstr(s->ops[1], "function") || strstr(s->ops[1], "FUNC")))
				sym_get(an, s->ops[0])->is_func = true;
			else if ((!strcmp(d, ".weakref") || !strcmp(d, ".symver")) && s->nops >= 1)
				sym_get(an, s->ops[0])->aliased = true;
			else if (!strcmp(d, ".globl") || !strcmp(d, ".global") || !strcmp(d, ".weak"))
				for (int k = 0; k < s->nops; k++) {
					struct sym *y = sym_get(an, s->ops[k]);
					y->global = true;
					y->weak |= !strcmp(d, ".weak");
				}
			else if (is_data_directive(d) && !in_debug_section(an, i) && !in_except_table(an, i)) {
				if ((!strcmp(d, ".set") || !strcmp(d, ".equ") || !strcmp(d, ".equiv")) && s->nops >= 1)
					sym_get(an, s->ops[0])->aliased = true;
				if ((!strcmp(d, ".set") || !strcmp(d, ".equ")) && s->nops == 2)
					for_each_ident(s->ops[1], mark_addr_taken, an);
				else
					for_each_ident(s->args, mark_addr_taken, an);
			}
		} else if (s->kind == ST_INSN) {
			char buf[256];
			bool direct = (s->info.cls == IC_JMP || s->info.cls == IC_JCC || s->info.cls == IC_CALL) &&
				      branch_target(s, buf, sizeof buf);
			if (!direct)
				for_each_ident(s->args, mark_addr_taken, an);
			else if (s->info.cls != IC_CALL)
				sym_get(an, buf)->branch_ref = true;
			else
				sym_get(an, buf); /* a callee it may call at its direct entry */
		}
	}

	mark_landing_pads(an);

	/* Which function each statement belongs to; tail jumps. */
	int cur = -1;
	for (int i = 0; i < f->n; i++) {
		struct stmt *s = &f->st[i];
		if (s->kind == ST_LABEL && !s->foreign) {
			struct sym *y = sym_find(an, s->name);
			if (y && y->is_func)
				cur = (int)(y - an->syms);
		}
		if (s->kind == ST_DIRECTIVE && !strcmp(s->name, ".size") && cur >= 0 && s->nops &&
		    !strcmp(s->ops[0], an->syms[cur].name)) {
			an->fn[i] = cur;
			cur = -1;
			continue;
		}
		an->fn[i] = cur;
	}
	for (int i = 0; i < f->n; i++) {
		struct sym *y;
		if (!tail_jump(an, i, &y))
			continue;
		if (an->fn[i] >= 0) {
			struct sym *fn = &an->syms[an->fn[i]];
			fn->has_tail = true;
			/* foo.cold is part of foo: foo's callers must reload too. */
			((struct sym *)owner(an, fn))->has_tail = true;
		}
		if (y && y->is_func)
			y->tail_target = true;
	}

	call_graph_sccs(an);
	mark_leaves(an);
	mark_tails_keep(an);
	for (int k = 0; k < an->nsect && !an->debug_info; k++)
		an->debug_info = !strncmp(an->sect_name[k], ".debug_", 7);
	for (int i = 0; i < f->n && !an->debug_info; i++)
		an->debug_info = f->st[i].kind == ST_DIRECTIVE && !f->st[i].foreign && !strcmp(f->st[i].name, ".loc");
	if (an->debug_info)
		dwarf_plan(an); /* direct entries where the check can move out of gdb's way */
	for (int k = 0; k < an->nsyms && !an->debug_info; k++)
		if ((an->syms[k].direct = gets_direct_entry(an, &an->syms[k])))
			an->n_direct_entries++;

	/* Counting points, home traffic, entry checks. */
	for (int i = 0; i < f->n; i++) {
		struct stmt *s = &f->st[i];
		if (s->kind == ST_LABEL && !s->foreign) {
			struct sym *y = sym_find(an, s->name);
			/* Every function whose callers pass the token loads the count on entry
			 * (and counts there when the caller is foreign). */
			if (y && y->is_func && returns_publish(y) && owner(an, y) == y && an->sect[i] >= 0 &&
			    an->sect_exec[an->sect[i]])
				plan_entry_check(an, i, y->leaf || libc_pure(y->name) ||
							(xcall_skippable(y) && !gets_xcall_thunk(y)));
			/* The unwinder lands here with the r15 of the call that threw: the
			 * token it passed (the count is in __sic_home). */
			if (y && y->landing_pad && is_code_label(an, y))
				an->plan[i].landing_reload = true;
			continue;
		}
		if (!is_code(an, i))
			continue;
		char buf[256];
		const char *t = branch_target(s, buf, sizeof buf);
		struct sym *y = t ? sym_find(an, t) : NULL;
		switch (s->info.cls) {
		case IC_CALL:
			if (tls_call(s, t))
				break;
			if (pure_call(an, i)) /* nothing of ours on top: no cycle through it */
				an->n_calls_pure++;
			else if (cross_file_call(an, i))
				an->n_calls_xcall++; /* counts at the callee's cross-file entry */
			else if (call_counts(an, i, !local_call(y) && !direct_callee(an, i)))
				plan_site_count(an, i);
			else
				an->n_calls_uncounted++;
			if (local_call(y)) {
				an->n_calls_local++;
			} else if ((y = direct_callee(an, i))) {
				/* The count stays in r15; the callee's return publishes it, and
				 * a callee of this file's that keeps it there needs no reload. */
				an->plan[i].direct = true;
				an->plan[i].home_reload = !returns_count(an, y);
				an->plan[i].xcall = cross_file_call(an, i);
				y->xshim |= an->plan[i].xcall;
				y->shim |= y->def < 0 && !an->plan[i].xcall;
				an->n_calls_direct++;
			} else {
				an->plan[i].home_store = an->plan[i].home_reload = true;
				an->plan[i].token = !pure_call_keeps_count(an, i);
				an->n_calls_foreign++;
			}
			break;
		case IC_JMP:
		case IC_JCC:
			if (!t) {
				/* Indirect: a switch, a computed goto, or a tail call through a
				 * pointer. Its targets in this function are among the labels
				 * whose address is taken; count at those behind it (or in
				 * another section), as for a direct jump. A tail call counts at
				 * the jump, as a direct one does: a callee of ours counts on
				 * entry only when its caller is foreign.
				 * One that surely leaves publishes the count and passes the
				 * token, as a direct tail jump does. One that may also stay
				 * publishes the count and keeps it in r15 (a label of ours
				 * needs it there); a callee of ours then takes the slow entry,
				 * which knows a body's tail call from a foreign caller
				 * (__sic_foreign_entry). */
				mark_indirect_targets(an, i);
				enum ijump k = indirect_jump_kind(an, i);
				if (k != IJ_STAYS)
					plan_site_count(an, i);
				an->plan[i].home_store = k != IJ_STAYS;
				an->plan[i].token = k == IJ_LEAVES;
			} else if (!y || y->def < 0 || y->is_func) {
				/* Tail jump: publish the count, and pass the token if it is
				 * surely taken (a jcc may fall through and stay here). */
				plan_site_count(an, i);
				struct sym *d = direct_callee(an, i);
				if (d) {
					an->plan[i].direct = true;
					d->shim |= d->def < 0;
					an->n_jumps_direct++;
				} else {
					an->plan[i].home_store = true;
					an->plan[i].token = s->info.cls == IC_JMP;
				}
			} else if (an->sect[y->def] != an->sect[i] || y->def < i) {
				y->count_target = true;
			}
			break;
		case IC_RET:
			/* Unwinding recursion runs each level's exit code at one count,
			 * and `f(); f();` passes no other counting point: a return is a
			 * counting point too (flags are dead there), but a leaf's, whose
			 * every entry counts. */
			if (!in_leaf(an, i))
				plan_site_count(an, i);
			/* A return outside any function: no local call can reach it. */
			an->plan[i].ret_store = an->fn[i] < 0 || returns_publish(owner(an, &an->syms[an->fn[i]]));
			an->plan[i].ret_token = an->plan[i].ret_store && returns_token(owner_at(an, i));
			break;
		default:
			if (s->info.string_op && strstr(s->prefix, "rep"))
				an->plan[i].nopreempt = true;
			break;
		}
	}
	plan_target_counts(an);
	plan_hunt(an);
	for (int i = 0; i < f->n; i++) {
		if (an->plan[i].count == CNT_FAST)
			an->n_fast++;
		else if (an->plan[i].count == CNT_SAFE)
			an->n_safe++;
	}
	return 0;
}

void analysis_free(struct analysis *an)
{
	for (int k = 0; k < an->nsyms; k++)
		free(an->syms[k].name);
	for (int k = 0; k < an->nsect; k++)
		free(an->sect_name[k]);
	free(an->syms);
	free(an->hash);
	free(an->sect_name);
	free(an->sect_exec);
	free(an->sect);
	free(an->fn);
	free(an->plan);
	free(an->visit);
	free(an->visit_mask);
	for (int i = 0; an->dw_repl && i < an->f->n; i++)
		free(an->dw_repl[i]);
	free(an->dw_repl);
	free(an->dw_tail);
	memset(an, 0, sizeof *an);
}
