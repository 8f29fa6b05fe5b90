/*
 * analyze_calls.c: calls and returns in the plan (docs/sic.md, "Where it counts", and
 * "Foreign code and the counter" for the token and direct entries):
 *
 *  - which functions' returns publish the count and which pass the token back, and
 *    which calls then need no reload;
 *  - direct entries: which functions of the file get one, which calls and tail jumps
 *    go to their callee's (direct_callee), the C library functions called most;
 *  - entry checks;
 *  - the direct-call graph: its strongly connected components, the leaf functions,
 *    and which calls must count.
 */
#include "analyze_int.h"
#include "scc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- returns --------------------------------------------------------------- */

/* Functions foreign code may call: exported, or their address escapes. */
static bool foreign_callable(const struct sym *fn)
{
	return fn->is_func && fn->def >= 0 && (fn->global || fn->addr_taken);
}

/* Functions whose returns publish the count and pass the token: every caller of
 * theirs reloads the count after the call. */
bool returns_publish(const struct sym *fn)
{
	return foreign_callable(fn) || fn->has_tail || fn->tail_target;
}

/* A return that publishes the count leaves it in r15 too, where its caller reloads it
 * (or, calling a function of this file that returns so, needs not: returns_count).
 * But a leaf's whose address this file takes passes the token back: a foreign caller
 * that calls one in a loop without touching r15 (a comparator, a callback) then takes
 * its fast entry every time, where it would take the slow one, ~30 instructions more,
 * from the second call on (docs/sic.md); and so does a return outside any function.
 * Any other keeps the count in r15. A leaf whose address stays in the file is called
 * by name, by foreign code rarely in a loop, while the file's own calls to it (Lua's
 * lua_pushvalue, lua_type...) then need no reload. A function whose address is taken
 * but that is no leaf is called mostly by the program itself (sqlite's method tables),
 * through a pointer, where the caller reloads anyway, or by name, then needing no
 * reload; the token back saved only a foreign loop's slow entry (glibc's qsort and
 * bsearch take it anyway). */
bool returns_token(const struct sym *fn)
{
	return !fn || (fn->leaf && fn->addr_taken);
}

/* Does a direct call to fn, defined here, come back with the count in r15, so that
 * the caller need not reload it? When every way out of fn is a return of its own that
 * keeps it there: no tail jump, whose callee may return in fn's place with the token. */
bool returns_count(struct analysis *an, const struct sym *fn)
{
	fn = owner(an, fn);
	return fn->is_func && fn->def >= 0 && !returns_token(fn) && (!fn->has_tail || fn->tails_keep);
}

static bool names_target(const struct stmt *s, const char *t);

/* Is statement i a jump that may leave its function (a tail jump): through a pointer
 * that does not stay in it, or to a function, or to a name not defined here? Its
 * target's symbol in *target (NULL: none, or not known here), when target is given. */
bool tail_jump(struct analysis *an, int i, struct sym **target)
{
	const struct stmt *s = &an->f->st[i];
	if (!is_code(an, i) || (s->info.cls != IC_JMP && s->info.cls != IC_JCC))
		return false;
	char buf[256];
	const char *t = branch_target(s, buf, sizeof buf);
	struct sym *y = t ? sym_find(an, t) : NULL;
	if (target)
		*target = y;
	return (!t && indirect_jump_kind(an, i) != IJ_STAYS) || (t && (!y || y->def < 0 || y->is_func));
}

/* The function a tail jump at statement i surely enters, if its returns are this
 * file's to know: one defined here, named itself, not weak nor an alias (a definition
 * elsewhere may win), and in a shared object's code not global (interposed). NULL for
 * a jump through a pointer or out of the file. */
static struct sym *tail_callee(struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	char buf[256];
	const char *t = branch_target(s, buf, sizeof buf);
	struct sym *y = t ? sym_find(an, t) : NULL;
	if (!y || !y->is_func || y->def < 0 || y->weak || y->aliased || (an->pic && y->global) ||
	    !names_target(s, t))
		return NULL;
	return (struct sym *)owner(an, y);
}

/* Which functions' tail jumps all come back with the count in r15 (tails_keep), so a
 * direct call to one needs no reload (returns_count) though it jumps out: every tail
 * jump goes to a function of this file that is no leaf (whose returns pass the token)
 * and whose tail jumps do the same, and so on (sqlite's B-tree and pager: functions
 * that end by jumping to another). The largest such set: start from every function
 * and drop those with a tail jump through a pointer, out of the file, or to a function
 * dropped, until none drops (a cycle of tail jumps between such functions comes back
 * only by their returns). */
void mark_tails_keep(struct analysis *an)
{
	struct asm_file *f = an->f;
	for (int k = 0; k < an->nsyms; k++) {
		struct sym *y = &an->syms[k];
		y->tails_keep = y->is_func && y->def >= 0 && owner(an, y) == y && !returns_token(y);
	}
	for (bool changed = true; changed;) {
		changed = false;
		for (int i = 0; i < f->n; i++) {
			if (an->fn[i] < 0)
				continue;
			struct sym *fn = (struct sym *)owner(an, &an->syms[an->fn[i]]);
			if (!fn->tails_keep || !tail_jump(an, i, NULL))
				continue;
			struct sym *g = tail_callee(an, i);
			if (!g || !g->tails_keep) {
				fn->tails_keep = false;
				changed = true;
			}
		}
	}
}

/* A direct call to a function that keeps the count in r15 all the way back. */
bool local_call(const struct sym *fn)
{
	return fn && fn->is_func && fn->def >= 0 && !returns_publish(fn);
}

/* ---- direct entries -------------------------------------------------------- */

/* A name gas and the linker take as it is, with a suffix added. */
static bool plain_name(const char *n)
{
	if (!*n || (n[0] == '.' && n[1] == 'L') || isdigit((unsigned char)n[0]))
		return false;
	for (const char *p = n; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '$')
			return false;
	return true;
}

void direct_name(const struct sym *y, char *buf, size_t len)
{
	snprintf(buf, len, y->global || y->def < 0 ? "%s" SIC_DIRECT_SUFFIX : ".Lsic_direct.%s", y->name);
}

/* Does fn, defined here, get a direct entry after its entry check (docs/sic.md,
 * "Direct entries")? Not when a definition elsewhere may win (weak), nor when it may be
 * interposed (global in a shared object's code), nor main (renamed), nor an alias. */
bool gets_direct_entry(struct analysis *an, const struct sym *fn)
{
	return fn->is_func && fn->def >= 0 && returns_publish(fn) && owner(an, fn) == fn &&
	       an->sect[fn->def] >= 0 && an->sect_exec[an->sect[fn->def]] && !an->f->st[fn->def].foreign &&
	       !fn->weak && !fn->aliased && !(an->pic && fn->global) && strcmp(fn->name, "main") &&
	       strlen(fn->name) < 200 && plain_name(fn->name);
}

/* C library functions a program calls most, which are never instrumented: a call to
 * one passes the token itself (two instructions) rather than through the shim (three).
 * A program that defines one of its own still gets it right: its entry check takes the
 * token. Those marked pure call nothing of the program's (no callback, no thread
 * switch) and return: no cycle of the program passes a call to one, so the call needs
 * no count, and a function whose only calls go to them is still a leaf (mark_leaves);
 * the call keeps the count in r15 (pure_call_keeps_count), so a program's own
 * definition of one in another file is entered by its slow path, which counts (and its
 * fast path counts too, for a caller that passes the token). Not the allocator's: a
 * program's own malloc may take a lock. */
static const struct libc_fn {
	const char *name;
	bool pure;
} libc_fns[] = {
	{"memcpy", true}, {"memmove", true}, {"memset", true}, {"memcmp", true},
	{"memchr", true}, {"strlen", true}, {"strnlen", true}, {"strcmp", true},
	{"strncmp", true}, {"strchr", true}, {"strrchr", true}, {"strcpy", true},
	{"strncpy", true}, {"strcat", true}, {"strspn", true}, {"strcspn", true},
	{"strstr", true}, {"malloc", false}, {"calloc", false}, {"realloc", false},
	{"free", false}, {"__ctype_b_loc", true}, {"__ctype_tolower_loc", true},
	{"__ctype_toupper_loc", true}, {"__errno_location", true},
	/* formatting and parsing numbers (Lua's tostring and tonumber) */
	{"snprintf", true}, {"strtod", true}, {"localeconv", true},
};

static const struct libc_fn *libc_fn(const char *n)
{
	for (size_t k = 0; k < sizeof libc_fns / sizeof libc_fns[0]; k++)
		if (!strcmp(n, libc_fns[k].name))
			return &libc_fns[k];
	return NULL;
}

static bool libc_hot(const char *n)
{
	return libc_fn(n) != NULL;
}

bool libc_pure(const char *n)
{
	const struct libc_fn *c = libc_fn(n);
	return c && c->pure;
}

/* C library functions that end the run or jump away (abort, exit, a failed assert).
 * In -g code a call to one counts at the call, not in the caller's weak shim, whose
 * count lies outside sic_ranges: going back from where a replay ends in one (reverse
 * commands from a SIGABRT: tests/gdb/ends.sh) needs the last count in the program. */
static bool ends_run(const char *n)
{
	static const char *const names[] = {
		"abort", "exit", "_exit", "_Exit", "quick_exit", "__assert_fail", "__assert_perror_fail",
		"raise", "longjmp", "siglongjmp", "__longjmp_chk", "__stack_chk_fail", "__chk_fail",
		"__fortify_fail",
	};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
		if (!strcmp(n, names[k]))
			return true;
	return false;
}

/* Does the call or jump s, to t, name t itself (or its PLT entry), not t+8 or
 * t@GOTPCREL? */
static bool names_target(const struct stmt *s, const char *t)
{
	const char *rest = s->ops[0] + strlen(t);
	return !strcmp(rest, "") || !strcmp(rest, "@PLT");
}

/* Is the call at statement i one to a libc_pure function, not defined in this file? */
bool pure_call(struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	char buf[256];
	const char *t = branch_target(s, buf, sizeof buf);
	if (!t || !libc_pure(t) || !names_target(s, t))
		return false;
	const struct sym *y = sym_find(an, t);
	return !y || y->def < 0;
}

/* Does the call at statement i, to a libc_pure function, keep the count in r15 rather
 * than pass the token? It still publishes the count and reloads it after: a tick in
 * the callee finds the count in __sic_home, where it may arm the next counting point
 * (record.c), and a program's own definition of the function, in another file, takes
 * its slow entry, which loads the count from there and counts, and returns it there.
 * The C library's keeps r15 as every callee does and calls nothing of ours: the token
 * told an instrumented callee that the caller is ours, which no pure callee needs. */
bool pure_call_keeps_count(struct analysis *an, int i)
{
	return pure_call(an, i);
}

/* May the call or tail jump at statement i go to its callee's direct entry, with the
 * count in r15? A callee of this file if it has one; a callee of another file in a
 * position-dependent or PIE object (a shared object's calls to global functions may be
 * interposed: they keep the token), through the weak shim this file then carries. */
struct sym *direct_callee(struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	char buf[256];
	const char *t = branch_target(s, buf, sizeof buf);
	if (!t || tls_call(s, t) || strlen(t) >= 200 || !plain_name(t) || !strcmp(t, "main"))
		return NULL;
	/* The hunting scheduler finds the program's call to a synchronization function
	 * (libreplay's pthread_* and sem_*) by the token protocol's bytes before the call
	 * (libreplay/engine/hunt/count.c, call_site): a preemption there comes before the call. */
	if (!strncmp(t, "pthread_", 8) || !strncmp(t, "sem_", 4))
		return NULL;
	if (libc_hot(t) || !names_target(s, t))
		return NULL;
	struct sym *y = sym_find(an, t);
	if (!y)
		return NULL;
	if (y->def >= 0)
		return y->direct ? y : NULL;
	if (y->weak || y->aliased || an->pic)
		return NULL;
	return y;
}

/* A call to another file's function at its direct entry (never in a shared object's
 * code: direct_callee keeps the token there) goes to the callee's cross-file entry,
 * f.sic_xcall, and does not count at the call: the entry counts, the callee's object
 * defining it at its entry check's count (a leaf's, or one added for this) or as a
 * thunk that counts and jumps to the direct entry; the link (sicc, which sees the whole program's direct calls) points it
 * at the direct entry itself where no cycle of uncounted calls passes the callee, whose
 * returns then count as those of a function of the caller's file do; and a callee
 * without one (foreign, weak, built otherwise) is reached through the caller's weak
 * shim, which counts and passes the token. Every way counts where the call did before,
 * or the callee's return does (docs/sic.md, "Calls between files"). */
bool cross_file_call(struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	if (s->info.cls != IC_CALL)
		return false;
	/* From -g code too: a callee built -g counts at the start of its body when it is a
	 * leaf (counts_in_body), any other in a thunk with a line row of its entry, which
	 * the link points at the direct entry where no cycle needs the count: where gdb's
	 * `step` into it stops, in it, at the line a gcc build's entry shows. */
	const struct sym *y = direct_callee(an, i);
	return y && y->def < 0 && strlen(y->name) < 200 && !(an->debug_info && ends_run(y->name));
}

bool xcall_skippable(const struct sym *fn)
{
	return fn->direct && fn->global && !fn->leaf && !libc_pure(fn->name);
}

/* Where a function that may lose its cross-file entry's count has it: a thunk (a jump
 * more for calls that keep it), or, when this file does not take its address, on its
 * entry check's fast path as a leaf's (two instructions more for a caller that passes
 * the token, which mostly calls through a pointer: rare for such a function). */
bool gets_xcall_thunk(const struct sym *fn)
{
	return xcall_skippable(fn) && fn->addr_taken;
}

/* In -g code (dwarf.c) a call to a function whose check moved comes to its body's start
 * (the direct entry) or through the check, without a line row, which jumps there: gdb's
 * `step` into the function stops only where a call lands at that start. So a leaf's
 * count, which is also its cross-file entry's, goes there, after gcc's first line rows,
 * for every caller, and no call to it counts; f.sic_xcall is the direct entry. A
 * global function of another kind has its cross-file entry's count in a thunk with a
 * line row of its entry (sym.xline, rewrite.c), which the link mostly skips
 * (sicc_link.c). */
bool counts_in_body(const struct sym *fn)
{
	return fn->moved && fn->global && (fn->leaf || libc_pure(fn->name));
}

/* The entry check goes right after the function's label, its .cfi_startproc and its
 * endbr64, and before any label a jump could reach: a loop back to the first
 * instruction must not run the check again. */
void plan_entry_check(struct analysis *an, int label, bool leaf)
{
	struct asm_file *f = an->f;
	int pos = label;
	for (int k = label + 1; k < f->n; k++) {
		struct stmt *s = &f->st[k];
		if (s->foreign)
			break; /* inline asm first: the check goes before it */
		if (s->kind == ST_DIRECTIVE) {
			/* after gcc's first line rows (-g): at the check, gdb shows the line
			 * it shows at a gcc build's entry */
			if (!strcmp(s->name, ".cfi_startproc") || !strcmp(s->name, ".loc"))
				pos = k;
			continue;
		}
		if (s->kind == ST_LABEL) {
			struct sym *y = sym_find(an, s->name);
			if (y && (y->branch_ref || y->addr_taken))
				break;
			continue;
		}
		if (s->kind == ST_INSN) {
			if (!strcmp(s->name, "endbr64")) {
				pos = k;
				an->plan[k].nopreempt = true;
			}
			break;
		}
	}
	an->plan[pos].entry_check = true;
	an->n_entry++;
	/* A leaf's returns do not count: a foreign caller that left the token in r15
	 * (qsort calling a comparator in a loop) counts here. Callers of ours counted at
	 * the call and come to the direct entry, after this count; the slow path counts
	 * in __sic_foreign_entry and comes back after it too. */
	an->plan[pos].entry_count = leaf;
	an->n_leaf_entries += leaf;
}

/* ---- the direct-call graph ------------------------------------------------ */

/* The function a direct call at statement i surely enters, if it is one of this
 * file's: defined here, not weak (a strong definition elsewhere would win), and in a
 * shared object's code not global (another module's may interpose). */
static struct sym *local_callee(struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	char buf[256];
	const char *t = branch_target(s, buf, sizeof buf);
	if (!t || tls_call(s, t))
		return NULL;
	struct sym *y = sym_find(an, t);
	if (!y || !y->is_func || y->def < 0 || y->weak || (an->pic && y->global) ||
	    an->sect[y->def] < 0 || !an->sect_exec[an->sect[y->def]] || an->f->st[y->def].foreign)
		return NULL;
	return y;
}

/* The strongly connected components of the graph whose nodes are this file's
 * functions and whose edges are their direct calls to local_callee()s (scc.c). Sets
 * sym.scc; -1 for other symbols. */
void call_graph_sccs(struct analysis *an)
{
	struct asm_file *f = an->f;
	int n = an->nsyms, ne = 0;
	int *from = xcalloc(f->n, sizeof *from), *to = xcalloc(f->n, sizeof *to);
	for (int i = 0; i < f->n; i++) {
		if (!is_code(an, i) || f->st[i].info.cls != IC_CALL)
			continue;
		const struct sym *c = owner_at(an, i);
		struct sym *y = local_callee(an, i);
		if (c && y) {
			from[ne] = (int)(c - an->syms);
			to[ne++] = (int)(owner(an, y) - an->syms);
		}
	}
	bool *root = xcalloc(n, sizeof *root);
	int *comp = xcalloc(n, sizeof *comp);
	for (int k = 0; k < n; k++)
		root[k] = an->syms[k].is_func && an->syms[k].def >= 0;
	scc(n, ne, from, to, root, comp, xcalloc);
	for (int k = 0; k < n; k++)
		an->syms[k].scc = comp[k];
	free(from), free(to), free(root), free(comp);
}

/* Leaf functions: no call (a TLS access's included), no tail jump nor indirect jump
 * that may leave, no inline asm, no landing pad, in any of their parts (foo.cold is
 * foo's). Such a function is part of no recursion and nothing runs on top of it, so
 * its returns need no count when every way into it counts: calls count at the call,
 * tail jumps at the jump, foreign callers at the entry check (docs/sic.md). */
void mark_leaves(struct analysis *an)
{
	struct asm_file *f = an->f;
	bool *not_leaf = xcalloc(an->nsyms ? an->nsyms : 1, sizeof *not_leaf);
	bool *asm_in = xcalloc(an->nsyms ? an->nsyms : 1, sizeof *asm_in);
	for (int i = 0; i < f->n; i++) {
		const struct stmt *s = &f->st[i];
		if (an->fn[i] < 0)
			continue;
		bool out = s->foreign || (s->kind == ST_INSN && s->info.cls == IC_CALL && !pure_call(an, i));
		if (s->kind == ST_LABEL && !s->foreign) {
			const struct sym *y = sym_find(an, s->name);
			out |= y && (y->landing_pad || y->asm_ref);
		}
		if (out)
			not_leaf[owner(an, &an->syms[an->fn[i]]) - an->syms] = true;
		if (s->foreign)
			asm_in[owner(an, &an->syms[an->fn[i]]) - an->syms] = true;
	}
	for (int k = 0; k < an->nsyms; k++) {
		struct sym *y = &an->syms[k];
		y->leaf = y->is_func && y->def >= 0 && !not_leaf[k] && !y->has_tail && owner(an, y) == y &&
			  an->sect[y->def] >= 0 && an->sect_exec[an->sect[y->def]] && !f->st[y->def].foreign;
		an->n_leaves += y->leaf;
		y->has_asm = asm_in[k];
	}
	free(not_leaf);
	free(asm_in);
}

/* Is statement i's function a leaf? */
bool in_leaf(struct analysis *an, int i)
{
	const struct sym *fn = owner_at(an, i);
	return fn && fn->leaf;
}

/* Does the direct call at statement i come back only through a counting point? So
 * when it enters a function of this file that is no leaf, all of whose returns count,
 * and that holds no inline asm (a ret there would not count): if it comes back, it
 * passed one of them (or the count of a tail jump out). The loop counts' pruning
 * (analyze_loops.c) stops there as at a counting point. */
bool call_returns_counted(struct analysis *an, int i)
{
	const struct stmt *s = &an->f->st[i];
	if (s->kind != ST_INSN || s->foreign || s->info.cls != IC_CALL || !is_code(an, i))
		return false;
	struct sym *callee = local_callee(an, i);
	if (!callee)
		return false;
	const struct sym *y = owner(an, callee);
	return y->is_func && !y->leaf && !y->has_asm;
}

/* Must a call at statement i count? Not when it enters a function of this file that
 * cannot come back to its caller through direct calls alone (another component of
 * the call graph) and is no leaf: every cycle of the program passes a backward jump,
 * a return of a function that is no leaf, an entry of a leaf, an indirect or foreign
 * call or a tail jump (all counted), or goes down a chain of direct calls back to a
 * function already on it, which is a cycle of the call graph, inside one component,
 * whose calls count (docs/sic.md, "Where it counts"). A leaf's return does not count:
 * every call to one does, at the call, or on the leaf's entry check's fast path when
 * the call passes the token (code compiled with -g), which it surely enters. */
bool call_counts(struct analysis *an, int i, bool token)
{
	const struct sym *c = owner_at(an, i);
	const struct sym *callee = local_callee(an, i);
	if (!c || !callee)
		return true;
	const struct sym *y = owner(an, callee);
	if (counts_in_body(y))
		return false; /* it counts where it starts */
	if (c->scc < 0 || c->scc == y->scc)
		return true;
	if (!y->leaf || (token && callee == y && returns_publish(y)))
		return false;
	an->n_leaf_calls++;
	return true;
}
