/*
 * rewrite.c: write the instrumented file. The hot path of a counting point is
 *
 *	decq	%r15            # the counter runs down; zero means "call the runtime"
 *	jz	.Lsic_ov_N      # to an out-of-line stub in .text.sic_stubs
 *
 * and where the flags it would write are live, the flag-preserving form
 *
 *	xchgq	%rcx, %r15
 *	loop	.Lsic_rt_N      # rcx-1, jump if not zero: touches no flag
 *	jmp	.Lsic_ov_N
 * .Lsic_rt_N:
 *	xchgq	%rcx, %r15
 *
 * A stub (an entry of a run shared by the counting points of one frame) calls the
 * runtime, which returns to the counting point itself; the stubs' FDE, one a file with
 * a row where the frame changes, rebuilt from the .cfi state at each counting point,
 * lets debuggers stopped in a stub unwind. The runtime's
 * tables follow the code: sic_ranges (instrumented code), sic_nopreempt (PCs inside
 * our own sequences and rep string instructions) and the .note.libreplay marker.
 */
#include "rewrite.h"
#include "cfi.h"
#include "dwarf.h"
#include "races.h"
#include "xcall.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum stub_kind { STUB_OVERFLOW, STUB_OVERFLOW_SAFE, STUB_FOREIGN, STUB_YIELD };

struct stub {
	enum stub_kind kind;
	int id;
	struct cfi_state cfi;
	bool has_cfi;
	const char *fn; /* the enclosing function, to name the stub after it */
	bool calls;     /* ...which makes a call: gcc keeps nothing in its red zone */
	char *back;     /* STUB_YIELD: where it jumps back to */
};

struct rw {
	FILE *out;
	struct analysis *an;
	const struct rewrite_opts *opts;
	struct cfi_tracker cfi;
	struct stub *stubs;
	int nstubs, capstubs;
	int next_id;
	int nnp;         /* nopreempt labels */
	int nmemops;     /* memory access labels (hunt.c) */
	int nanchors;    /* sic_anchors (races.c) */
	bool anchor_due; /* before the next instruction of code (races_anchor_due) */
	struct labels { int *v; int n, cap; } atomics, repeats; /* which memops are */
	struct labels checked; /* --races: anchors with a check before them */
	struct loop { char *head; int exit; } *loops;          /* sic_loops */
	int nloops, caploops;
	int nranges;
	bool in_range;
	const char *cur_fn;
	bool cur_calls;  /* cur_fn makes a call (not a leaf) */
	int *moved_id;   /* (-g) per symbol: the id of its moved entry check (dwarf.c) */
	const bool *calls; /* per symbol: the function makes a call (function_calls) */
};

static int new_id(struct rw *w)
{
	return w->next_id++;
}

static struct stub *add_stub(struct rw *w, enum stub_kind kind, int id)
{
	if (w->nstubs == w->capstubs) {
		w->capstubs = w->capstubs ? 2 * w->capstubs : 256;
		w->stubs = realloc(w->stubs, w->capstubs * sizeof *w->stubs);
		if (!w->stubs) {
			fputs("sicpp: out of memory\n", stderr);
			exit(2);
		}
	}
	struct stub *s = &w->stubs[w->nstubs++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->id = id;
	s->fn = w->cur_fn;
	s->calls = w->cur_calls;
	s->has_cfi = w->cfi.cur.in_proc && w->cfi.cur.known;
	if (s->has_cfi)
		cfi_copy(&s->cfi, &w->cfi.cur);
	return s;
}

/* Mark the next instruction's PC as one where no preemption may be taken. */
static void nopreempt(struct rw *w)
{
	fprintf(w->out, ".Lsic_np_%d:\n", w->nnp++);
}

/* movq %r15, __sic_home: the count, published. A shared object (--pic) reaches
 * __sic_home, which the executable defines, through the GOT, with %rax saved below
 * the stack pointer: it is published only right before a call, a jump to another
 * function or a return, where that word is dead (the callee's to use). */
static void emit_home_store(struct rw *w)
{
	if (!w->an->pic) {
		fprintf(w->out, "\tmovq\t%%r15, " SIC_HOME "(%%rip)\n");
		return;
	}
	fprintf(w->out, "\tmovq\t%%rax, -8(%%rsp)\n\tmovq\t" SIC_HOME "@GOTPCREL(%%rip), %%rax\n"
		"\tmovq\t%%r15, (%%rax)\n\tmovq\t-8(%%rsp), %%rax\n");
}

/* movq __sic_home, %r15, its first instruction marked nopreempt by the caller (the
 * GOT's form loads the address into r15 first: no preemption there either). */
static void emit_home_load(struct rw *w)
{
	if (!w->an->pic) {
		fprintf(w->out, "\tmovq\t" SIC_HOME "(%%rip), %%r15\n");
		return;
	}
	fprintf(w->out, "\tmovq\t" SIC_HOME "@GOTPCREL(%%rip), %%r15\n");
	nopreempt(w);
	fprintf(w->out, "\tmovq\t(%%r15), %%r15\n");
}

/* A call or jump to a runtime routine: through the GOT in a shared object (a PLT
 * stub's lazy binding would not keep every register and the flags). */
static void emit_runtime_transfer(struct rw *w, const char *insn, const char *routine)
{
	if (w->an->pic)
		fprintf(w->out, "\t%s\t*%s@GOTPCREL(%%rip)\n", insn, routine);
	else
		fprintf(w->out, "\t%s\t%s\n", insn, routine);
}

static void emit_stmt(struct rw *w, const struct stmt *s);
static void range_open(struct rw *w);
static void range_close(struct rw *w);

static void emit_count(struct rw *w, enum count_kind k)
{
	int id = new_id(w);
	if (k == CNT_FAST) {
		fprintf(w->out, "\tdecq\t%%r15\n");
		nopreempt(w);
		fprintf(w->out, "\tjz\t.Lsic_ov_%d\n.Lsic_rt_%d:\n", id, id);
		add_stub(w, STUB_OVERFLOW, id);
	} else {
		fprintf(w->out, "\txchgq\t%%rcx, %%r15\n");
		nopreempt(w);
		fprintf(w->out, "\tloop\t.Lsic_rt_%d\n", id);
		nopreempt(w);
		fprintf(w->out, "\tjmp\t.Lsic_ov_%d\n.Lsic_rt_%d:\n", id, id);
		nopreempt(w);
		fprintf(w->out, "\txchgq\t%%rcx, %%r15\n");
		add_stub(w, STUB_OVERFLOW_SAFE, id);
	}
}

/* An instrumented caller passes the token in r15 and the count in __sic_home; any
 * other r15 means a foreign caller, whose r15 the slow path saves and restores. */
static void emit_entry_check(struct rw *w, const struct sym *fn, bool count)
{
	int id = new_id(w);
	nopreempt(w);
	fprintf(w->out, "\tcmpq\t$" SIC_TOKEN ", %%r15\n");
	nopreempt(w);
	fprintf(w->out, "\tjne\t.Lsic_fe_%d\n", id);
	nopreempt(w);
	emit_home_load(w);
	/* A leaf's count is its cross-file entry too (xcall.c): callers of other files
	 * come here with the count in r15, as the fast path goes on. */
	if (count)
		emit_xcall_label(w->out, fn);
	if (count) /* a leaf's: its returns do not count (analyze_calls.c, plan_entry_check) */
		emit_count(w, CNT_FAST);
	fprintf(w->out, ".Lsic_fb_%d:\n", id);
	add_stub(w, STUB_FOREIGN, id);
	if (fn && fn->direct) {
		/* The direct entry: instrumented callers come here with the count in r15.
		 * Global but hidden (one linked module), of no type and no size, so that
		 * debuggers keep naming these PCs after the function. */
		char name[256];
		direct_name(fn, name, sizeof name);
		if (fn->global)
			fprintf(w->out, "\t.globl\t%s\n\t.hidden\t%s\n", name, name);
		fprintf(w->out, "%s:\n", name);
	}
}

/* -g code (dwarf.c): the entry checks that move in front of every body of .text, where
 * no line row points, each a range of its function's DWARF after the body's, ending in
 * a jump to the body; they run in the frame the CIE describes, so one FDE without rows
 * covers them all (their leaves' counts included). The
 * ELF symbol is here: foreign callers and pointers come here; the direct entry is the
 * body's start (emit_moved_body). */
static void emit_moved_checks(struct rw *w, const bool *calls)
{
	struct analysis *an = w->an;
	FILE *o = w->out;
	bool open = false;
	for (int i = 0; i < an->f->n; i++) {
		const struct stmt *s = &an->f->st[i];
		struct sym *fn = s->kind == ST_LABEL ? sym_find(an, s->name) : NULL;
		if (!fn || fn->def != i || !fn->moved)
			continue;
		if (!open) {
			fprintf(o, "\t.cfi_startproc\n");
			cfi_feed(&w->cfi, ".cfi_startproc", "");
			open = true;
		}
		bool endbr = false;
		for (int k = i + 1; k < an->f->n; k++)
			if (an->f->st[k].kind == ST_INSN) {
				endbr = !strcmp(an->f->st[k].name, "endbr64");
				break;
			}
		int id = new_id(w);
		w->moved_id[fn - an->syms] = id;
		w->cur_fn = fn->name;
		w->cur_calls = calls[fn - an->syms];
		range_open(w);
		fprintf(o, "%s:\n.Lsic_cs.%s:\n", fn->name, fn->name);
		if (endbr)
			fprintf(o, "\tendbr64\n");
		nopreempt(w);
		fprintf(o, "\tcmpq\t$" SIC_TOKEN ", %%r15\n");
		nopreempt(w);
		fprintf(o, "\tjne\t.Lsic_fe_%d\n", id);
		nopreempt(w);
		emit_home_load(w);
		for (int k = i; k < an->f->n && an->fn[k] == fn - an->syms && !counts_in_body(fn) && !fn->xline; k++)
			if (an->plan[k].entry_check) {
				if (an->plan[k].entry_count) {
					emit_xcall_label(o, fn); /* (as emit_entry_check's) */
					emit_count(w, CNT_FAST);
				}
				break;
			}
		fprintf(o, "\tjmp\t.Lsic_fb_%d\n.Lsic_ce.%s:\n", id, fn->name);
		add_stub(w, STUB_FOREIGN, id);
		range_close(w);
	}
	if (open) {
		fprintf(o, "\t.cfi_endproc\n");
		cfi_feed(&w->cfi, ".cfi_endproc", "");
	}
	w->cur_fn = NULL;
}

/* -g code: the cross-file entries whose count a link may keep (sym.xline), at the end
 * of .text: each a line row of its function's entry (not a statement: `break FILE:LINE`
 * keeps its one location) and a range of its DWARF, so that a `step` into it from
 * another file stops there, in the function at the line a gcc build's entry shows, and
 * the next step goes on through the same line into the body; the count calls
 * __sic_overflow in place (outside sic_ranges: no preemption there, as in xcall.c's
 * thunks) and jumps to the direct entry. In the frame the CIE describes. */
static void emit_line_thunks(struct rw *w)
{
	struct analysis *an = w->an;
	FILE *o = w->out;
	bool open = false;
	for (int k = 0; k < an->nsyms; k++) {
		const struct sym *fn = &an->syms[k];
		if (!fn->xline)
			continue;
		const struct stmt *loc = &an->f->st[dwarf_entry_loc(an, fn)];
		char file[32], line[32], col[32] = "0";
		if (sscanf(loc->args, "%31s %31s %31s", file, line, col) < 2)
			continue; /* cannot happen: gcc's .loc names a file and a line */
		if (!open) {
			fprintf(o, "\t.cfi_startproc\n");
			cfi_feed(&w->cfi, ".cfi_startproc", "");
			open = true;
		}
		char direct[256];
		direct_name(fn, direct, sizeof direct);
		int id = new_id(w);
		fprintf(o, "\t.loc %s %s %s is_stmt 0\n", file, line, isdigit((unsigned char)col[0]) ? col : "0");
		fprintf(o, "\t.globl\t%s" SIC_XCALL_SUFFIX "\n\t.hidden\t%s" SIC_XCALL_SUFFIX "\n%s" SIC_XCALL_SUFFIX ":\n",
			fn->name, fn->name, fn->name);
		fprintf(o, ".Lsic_xs.%s:\n\tdecq\t%%r15\n\tjnz\t.Lsic_xl_%d\n", fn->name, id);
		emit_runtime_transfer(w, "call", SIC_OVERFLOW);
		fprintf(o, ".Lsic_xl_%d:\n\tjmp\t%s\n.Lsic_xe.%s:\n", id, direct, fn->name);
		an->n_xthunks++;
	}
	if (open) {
		fprintf(o, "\t.cfi_endproc\n");
		cfi_feed(&w->cfi, ".cfi_endproc", "");
	}
}

/* The body of a function whose check moved: at its start, where its ELF symbol was,
 * the foreign path's way in and the direct entry, under a name of its own for
 * symbolizers (perf, valgrind, replay-dump: f.sic_direct, a function whose size runs to
 * the body's end). At the start, not after gcc's endbr64 and first line rows: gdb puts
 * `break f` there when f makes no frame (the endbr64 of -fcf-protection included), and
 * every call must pass it. */
static void emit_moved_body(struct rw *w, const struct sym *fn)
{
	char name[256];
	direct_name(fn, name, sizeof name);
	fprintf(w->out, ".Lsic_fb_%d:\n", w->moved_id[fn - w->an->syms]);
	if (fn->global)
		fprintf(w->out, "\t.globl\t%s\n\t.hidden\t%s\n", name, name);
	else
		fprintf(w->out, "%s" SIC_DIRECT_SUFFIX ":\n", fn->name);
	fprintf(w->out, "%s:\n", name);
	if (counts_in_body(fn))
		emit_xcall_label(w->out, fn); /* its count follows gcc's first line rows */
}

/* -g code whose checks moved: the statements that change. A moved function's label
 * goes with its check; its .size covers the check, and its body gets a size of its own;
 * the checks follow .Ltext0. Returns true when s was written here. */
static bool moved_stmt(struct rw *w, const struct stmt *s)
{
	struct analysis *an = w->an;
	if (s->kind == ST_LABEL && s - an->f->st == an->dw_text0) {
		emit_stmt(w, s);
		emit_moved_checks(w, w->calls);
		return true;
	}
	if (s->kind == ST_LABEL && s - an->f->st == an->dw_etext) {
		range_close(w);
		emit_line_thunks(w);
		emit_stmt(w, s);
		return true;
	}
	if (s->kind == ST_LABEL) {
		struct sym *fn = sym_find(an, s->name);
		if (!fn || !fn->moved || fn->def != s - an->f->st)
			return false;
		emit_moved_body(w, fn);
		return true;
	}
	if (s->kind != ST_DIRECTIVE || strcmp(s->name, ".size") || !s->args)
		return false;
	char name[256];
	size_t n = strcspn(s->args, ", \t");
	if (n >= sizeof name)
		return false;
	memcpy(name, s->args, n);
	name[n] = 0;
	struct sym *fn = sym_find(an, name);
	if (!fn || !fn->moved)
		return false;
	fprintf(w->out, "\t.size\t%s, .Lsic_ce.%s - %s\n", name, name, name);
	fprintf(w->out, "\t.type\t%s" SIC_DIRECT_SUFFIX ", @function\n", name);
	fprintf(w->out, "\t.size\t%s" SIC_DIRECT_SUFFIX ", . - %s" SIC_DIRECT_SUFFIX "\n", name, name);
	return true;
}

/* A call or tail jump to the callee's direct entry (analyze_calls.c's direct_callee). */
static void emit_direct_transfer(struct rw *w, const struct stmt *s, bool xcall)
{
	char buf[256], name[256];
	const char *t = branch_target(s, buf, sizeof buf);
	struct sym *y = t ? sym_find(w->an, t) : NULL;
	if (!y) { /* cannot happen: the plan named it */
		emit_stmt(w, s);
		return;
	}
	direct_name(y, name, sizeof name);
	if (xcall) /* another file's function, at its cross-file entry (xcall.c) */
		snprintf(name, sizeof name, "%s" SIC_XCALL_SUFFIX, y->name);
	bool plt = strstr(s->ops[0], "@PLT") && name[0] != '.';
	fprintf(w->out, "\t%s%s%s\t%s%s\n", s->prefix, *s->prefix ? " " : "", s->name, name, plt ? "@PLT" : "");
}

/* The weak shim of each callee of another file called at its direct entry: it does
 * what the caller did before it knew of direct entries (publish the count, pass the
 * token) and jumps to the callee. An instrumented definition's own direct entry, strong,
 * wins at link time; a foreign callee (libc, a library or object gcc built, a weak or
 * interposable function) is reached through the shim. One copy per linked module
 * (a COMDAT group named after it); it references the callee, so an archive member that
 * defines it is still pulled in. */
static void emit_shims(struct rw *w)
{
	FILE *o = w->out;
	for (int k = 0; k < w->an->nsyms; k++) {
		const struct sym *y = &w->an->syms[k];
		if (!y->shim)
			continue;
		char name[256];
		direct_name(y, name, sizeof name);
		fprintf(o, "\t.section\t.text.sic_direct.%s,\"axG\",@progbits,%s,comdat\n", y->name, name);
		/* No type nor size: the linker gives the winning definition those of the
		 * first one it saw, and a direct entry inside a function must have none. */
		fprintf(o, "\t.weak\t%s\n\t.hidden\t%s\n%s:\n", name, name, name);
		fprintf(o, "\t.cfi_startproc\n\tmovq\t%%r15, " SIC_HOME "(%%rip)\n"
			   "\tmovq\t$" SIC_TOKEN ", %%r15\n\tjmp\t%s@PLT\n\t.cfi_endproc\n", y->name);
		w->an->n_shims++;
	}
}

/* At a landing pad: the unwinder restored the r15 of the call that threw, the token
 * (docs/sic.md, "Exceptions"); the count is in __sic_home. Flags are dead there. */
static void emit_landing_reload(struct rw *w)
{
	int id = new_id(w);
	nopreempt(w);
	fprintf(w->out, "\tcmpq\t$" SIC_TOKEN ", %%r15\n");
	nopreempt(w);
	fprintf(w->out, "\tjne\t.Lsic_lp_%d\n", id);
	nopreempt(w);
	emit_home_load(w);
	fprintf(w->out, ".Lsic_lp_%d:\n", id);
}

/* A pause, or the backward branch of a spin-wait (hunt.c): through a stub that calls
 * __sic_pause (the runtime lets another thread run), then on to back. A pause's
 * branch is a jmp to the stub, which comes back right after it. */
static void emit_yield(struct rw *w, const struct stmt *s, bool pause)
{
	int id = new_id(w);
	char back[300];
	struct stub *st;
	if (pause) {
		fprintf(w->out, "\tjmp\t.Lsic_py_%d\n.Lsic_pr_%d:\n", id, id);
		snprintf(back, sizeof back, ".Lsic_pr_%d", id);
	} else {
		fprintf(w->out, "\t%s%s%s\t.Lsic_py_%d\n", s->prefix, *s->prefix ? " " : "", s->name, id);
		snprintf(back, sizeof back, "%s", s->ops[0]);
	}
	st = add_stub(w, STUB_YIELD, id);
	st->back = strdup(back);
	if (!st->back) {
		fputs("sicpp: out of memory\n", stderr);
		exit(2);
	}
}

static void add_label(struct labels *l, int label)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof *l->v);
		if (!l->v) {
			fputs("sicpp: out of memory\n", stderr);
			exit(2);
		}
	}
	l->v[l->n++] = label;
}

/* A loop: its head (the backward branch's target) and where it is left (after it). */
static void add_loop(struct rw *w, const char *head)
{
	if (w->nloops == w->caploops) {
		w->caploops = w->caploops ? 2 * w->caploops : 64;
		w->loops = realloc(w->loops, w->caploops * sizeof *w->loops);
		if (!w->loops) {
			fputs("sicpp: out of memory\n", stderr);
			exit(2);
		}
	}
	w->loops[w->nloops].head = strdup(head);
	w->loops[w->nloops].exit = w->nloops;
	if (!w->loops[w->nloops].head) {
		fputs("sicpp: out of memory\n", stderr);
		exit(2);
	}
	fprintf(w->out, ".Lsic_lx_%d:\n", w->nloops++);
}

/* A table of memory access labels: the section, then one offset each. */
static void emit_memop_table(FILE *o, const char *name, const struct labels *l)
{
	if (!l->n)
		return;
	fprintf(o, "\t.section\t%s,\"a\",@progbits\n\t.p2align 2\n", name);
	for (int k = 0; k < l->n; k++)
		fprintf(o, "\t.long\t.Lsic_mo_%d - .\n", l->v[k]);
}

static void range_open(struct rw *w)
{
	if (!w->in_range) {
		fprintf(w->out, ".Lsic_rs_%d:\n", w->nranges);
		w->in_range = true;
	}
}

static void range_close(struct rw *w)
{
	if (w->in_range) {
		fprintf(w->out, ".Lsic_re_%d:\n", w->nranges++);
		w->in_range = false;
	}
}

static bool is_section_switch(const struct stmt *s)
{
	static const char *const d[] = {".text", ".data", ".bss", ".section", ".pushsection",
					".popsection", ".previous", ".subsection", NULL};
	if (s->kind != ST_DIRECTIVE)
		return false;
	for (const char *const *p = d; *p; p++)
		if (!strcmp(s->name, *p))
			return true;
	return false;
}

/* Write text with the word "main" replaced by __sic_main. */
static void put_renamed(FILE *out, const char *text)
{
	const char *p = text;
	bool quoted = false;
	while (*p) {
		if (quoted && *p == '\\' && p[1]) { /* an escape: copy it whole */
			fputc(*p++, out);
			fputc(*p++, out);
			continue;
		}
		if (*p == '"')
			quoted = !quoted;
		if (!quoted && !strncmp(p, "main", 4) &&
		    (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.' || p[-1] == '$')) &&
		    !(isalnum((unsigned char)p[4]) || p[4] == '_' || p[4] == '.' || p[4] == '$')) {
			fputs(SIC_MAIN, out);
			p += 4;
			continue;
		}
		fputc(*p++, out);
	}
}

static void emit_stmt(struct rw *w, const struct stmt *s)
{
	if (s->foreign || s->kind == ST_BLANK) {
		fprintf(w->out, "%s\n", s->text);
		return;
	}
	if (s->kind != ST_LABEL)
		fputc('\t', w->out);
	if (w->opts->rename_main && strstr(s->text, "main"))
		put_renamed(w->out, s->text);
	else
		fputs(s->text, w->out);
	fputc('\n', w->out);
}

/* A stub's name for debuggers: the counter stub of fn (the frame is fn's). */
static void stub_name(FILE *o, const struct stub *s)
{
	if (s->fn && !strchr(s->fn, '"'))
		fprintf(o, "\"%s.sic_stub.%d\":\n", s->fn, s->id);
}

/* A call of routine from a stub with a frame of its own, stepping over the red zone
 * (the site may be a leaf's that keeps data below the stack pointer) and back. */
static void emit_call_past_red_zone(struct rw *w, const struct stub *s, const char *routine)
{
	FILE *o = w->out;
	bool adjust = s->has_cfi && cfi_cfa_is_rsp(&s->cfi);
	fprintf(o, "\tleaq\t-128(%%rsp), %%rsp\n");
	if (adjust)
		fprintf(o, "\t.cfi_adjust_cfa_offset 128\n");
	emit_runtime_transfer(w, "call", routine);
	fprintf(o, "\tleaq\t128(%%rsp), %%rsp\n");
	if (adjust)
		fprintf(o, "\t.cfi_adjust_cfa_offset -128\n");
}

/* The stubs' FDE (one a file, emit_stubs): open it if need be, and a row from the state
 * after the last one, *cur, to s's frame. A stub without CFI goes after it. */
static void stub_row(struct rw *w, const struct stub *s, bool *open, struct cfi_state *cur)
{
	if (!s->has_cfi)
		return;
	if (!*open) {
		fprintf(w->out, "\t.cfi_startproc\n");
		*open = true;
	}
	cfi_emit_delta(w->out, cur, &s->cfi);
	cfi_release(cur);
	cfi_copy(cur, &s->cfi);
}

/* A pause's or a spin-wait's stub: like the overflow's, past the red zone, every
 * register kept; it comes back by a jump. */
static void emit_yield_stub(struct rw *w, const struct stub *s, bool *open, struct cfi_state *cur)
{
	FILE *o = w->out;
	stub_row(w, s, open, cur);
	fprintf(o, ".Lsic_py_%d:\n", s->id);
	stub_name(o, s);
	emit_call_past_red_zone(w, s, SIC_PAUSE);
	fprintf(o, "\tjmp\t%s\n", s->back);
}

/* The flag-preserving form's stub: it swaps the counter back into r15 around the
 * call, so it returns to itself (__sic_overflow) and jumps back. */
static void emit_safe_stub(struct rw *w, const struct stub *s, bool *open, struct cfi_state *cur)
{
	FILE *o = w->out;
	stub_row(w, s, open, cur);
	fprintf(o, ".Lsic_ov_%d:\n", s->id);
	stub_name(o, s);
	fprintf(o, "\txchgq\t%%rcx, %%r15\n");
	emit_call_past_red_zone(w, s, SIC_OVERFLOW);
	fprintf(o, "\txchgq\t%%rcx, %%r15\n\tjmp\t.Lsic_rt_%d\n", s->id);
}

/* The overflow stubs of counting points (docs/sic.md, "Stubs"), shared: the counting
 * points of one frame state (the same CFI at each, anywhere in the file) jump into one
 * run of entries, each a `decq %r15` (3 bytes), that ends in the runtime's call and a
 * table of where each goes back to, the last entry's first:
 *	.Lsic_ov_A:  decq  %r15             # entered here: r15 = -2 at the call
 *	.Lsic_ov_B:  decq  %r15             # here: -1
 *	.Lsic_ov_C:  leaq  -128(%rsp), %rsp  # here: 0 (no leaq if none of the counting
 *	             call  __sic_overflow_far #  points is a leaf's: _near)
 *	             .long .Lsic_rt_C - .    # the table, read at the call's return
 *	             .long .Lsic_rt_B - .    # address - 4 * r15
 *	             .long .Lsic_rt_A - .
 * The counter is zero when a counting point jumps here and the flags are dead there, so
 * the runtime reads which entry it was from r15. A run is at most SLED_MAX entries
 * long: an overflow passes the entries after its own (one cycle each). Every entry of a
 * run has the same frame: one FDE covers all the runs of the file (and the
 * foreign-entry stubs, at the CIE's frame, before them), a row per run. */
#define SLED_MAX 64

static bool far_stub(const struct stub *s)
{
	return !s->calls;
}

/* Write the run of stubs v[0..n): entries, the call, the table. */
static void emit_sled(struct rw *w, struct stub *const *v, int n, bool far)
{
	FILE *o = w->out;
	for (int k = 0; k < n; k++) {
		fprintf(o, ".Lsic_ov_%d:\n", v[k]->id);
		stub_name(o, v[k]);
		if (k < n - 1)
			fprintf(o, "\tdecq\t%%r15\n");
	}
	if (far) {
		fprintf(o, "\tleaq\t-128(%%rsp), %%rsp\n");
		if (v[0]->has_cfi && cfi_cfa_is_rsp(&v[0]->cfi))
			fprintf(o, "\t.cfi_adjust_cfa_offset 128\n");
	}
	emit_runtime_transfer(w, "call", far ? SIC_OVERFLOW_FAR : SIC_OVERFLOW_NEAR);
	for (int k = n - 1; k >= 0; k--)
		fprintf(o, "\t.long\t.Lsic_rt_%d - .\n", v[k]->id);
}

/* The overflow stubs with CFI (cfi) or without, in runs by frame state; *open says
 * whether the stubs' FDE is open, *cur its state after the last row. */
static void emit_overflow_stubs(struct rw *w, bool cfi, bool *open, struct cfi_state *cur)
{
	int n = 0;
	struct stub **all = malloc((w->nstubs + 1) * sizeof *all);
	struct stub **run = malloc((SLED_MAX + 1) * sizeof *run);
	if (!all || !run) {
		fputs("sicpp: out of memory\n", stderr);
		exit(2);
	}
	for (int k = 0; k < w->nstubs; k++)
		if (w->stubs[k].kind == STUB_OVERFLOW)
			all[n++] = &w->stubs[k];
	{
		for (int k = 0; k < n; k++) {
			struct stub *s = all[k];
			if (!s || s->has_cfi != cfi)
				continue;
			/* the run: s and the next stubs of the same frame, up to SLED_MAX */
			int m = 0;
			bool far = false;
			for (int j = k; j < n && m < SLED_MAX; j++) {
				struct stub *t = all[j];
				if (!t || t->has_cfi != s->has_cfi || (s->has_cfi && !cfi_equal(&t->cfi, &s->cfi)))
					continue;
				run[m++] = t;
				far |= far_stub(t);
				all[j] = NULL;
			}
			stub_row(w, s, open, cur);
			emit_sled(w, run, m, far);
			if (s->has_cfi && far && cfi_cfa_is_rsp(cur))
				cur->cfa_off += 128; /* the row after the leaq */
		}
	}
	free(all);
	free(run);
}

static void emit_stubs(struct rw *w)
{
	FILE *o = w->out;
	bool open = false;
	struct cfi_state cur = {.known = true, .cfa_reg = "7", .cfa_off = 8}; /* the CIE's */
	fprintf(o, "\t.section\t.text.sic_stubs,\"ax\",@progbits\n");
	/* Foreign-entry stubs run at a function's entry, the frame the CIE describes: the
	 * stubs' FDE begins with them, without rows. */
	for (int k = 0; k < w->nstubs; k++) {
		const struct stub *s = &w->stubs[k];
		if (s->kind != STUB_FOREIGN)
			continue;
		if (!open)
			fprintf(o, "\t.cfi_startproc\n");
		open = true;
		fprintf(o, ".Lsic_fe_%d:\n", s->id);
		fprintf(o, "\tleaq\t.Lsic_fb_%d(%%rip), %%r11\n", s->id);
		emit_runtime_transfer(w, "jmp", SIC_FOREIGN_ENTRY);
	}
	/* the stubs with CFI in the FDE, a row each where the frame changes; then those
	 * without */
	for (int pass = 0; pass < 2; pass++) {
		emit_overflow_stubs(w, pass == 0, &open, &cur);
		for (int k = 0; k < w->nstubs; k++) {
			const struct stub *s = &w->stubs[k];
			if (s->has_cfi != (pass == 0))
				continue;
			if (s->kind == STUB_YIELD)
				emit_yield_stub(w, s, &open, &cur);
			else if (s->kind == STUB_OVERFLOW_SAFE)
				emit_safe_stub(w, s, &open, &cur);
		}
		if (open)
			fprintf(o, "\t.cfi_endproc\n");
		open = false;
	}
	cfi_release(&cur);
}

static void emit_tables(struct rw *w)
{
	FILE *o = w->out;
	fprintf(o, "\t.section\t.note.libreplay,\"a\",@note\n\t.p2align 2\n");
	fprintf(o, "\t.long\t10\n\t.long\t4\n\t.long\t0x%x\n\t.asciz\t\"libreplay\"\n", SIC_NOTE_TYPE);
	fprintf(o, "\t.p2align 2\n\t.long\t%d\n", SIC_ABI_VERSION);
	fprintf(o, "\t.section\tsic_ranges,\"a\",@progbits\n\t.p2align 2\n");
	for (int k = 0; k < w->nranges; k++)
		fprintf(o, "\t.long\t.Lsic_rs_%d - .\n\t.long\t.Lsic_re_%d - .\n", k, k);
	fprintf(o, "\t.section\tsic_nopreempt,\"a\",@progbits\n\t.p2align 2\n");
	for (int k = 0; k < w->nnp; k++)
		fprintf(o, "\t.long\t.Lsic_np_%d - .\n", k);
	if (w->an->pic && w->nranges && !w->nnp) /* the registration names both tables */
		fprintf(o, "\t.long\t.Lsic_rs_0 - .\n");
	if (w->opts->races) /* the race build's mark (engine/races/races_report.c) */
		fprintf(o, "\t.section\tsic_race_build,\"R\",@progbits\n\t.byte\t1\n");
	if (w->nanchors) { /* not loaded: no cost at run time (races.c) */
		fprintf(o, "\t.section\tsic_anchors,\"R\",@progbits\n\t.p2align 3\n");
		for (int k = 0; k < w->nanchors; k++)
			fprintf(o, "\t.quad\t.Lsic_an_%d\n", k);
	}
	if (w->checked.n) { /* the race build's: (a check's start, its anchor) pairs */
		fprintf(o, "\t.section\tsic_anchor_checks,\"R\",@progbits\n\t.p2align 3\n");
		for (int k = 0; k < w->checked.n; k++)
			fprintf(o, "\t.quad\t.Lsic_ac_%d, .Lsic_an_%d\n", w->checked.v[k], w->checked.v[k]);
	}
	if (w->nmemops) {
		fprintf(o, "\t.section\tsic_memops,\"a\",@progbits\n\t.p2align 2\n");
		for (int k = 0; k < w->nmemops; k++)
			fprintf(o, "\t.long\t.Lsic_mo_%d - .\n", k);
	}
	emit_memop_table(o, "sic_atomics", &w->atomics);
	emit_memop_table(o, "sic_repeats", &w->repeats);
	if (w->nloops) {
		fprintf(o, "\t.section\tsic_loops,\"a\",@progbits\n\t.p2align 2\n");
		for (int k = 0; k < w->nloops; k++)
			fprintf(o, "\t.long\t%s - .\n\t.long\t.Lsic_lx_%d - .\n", w->loops[k].head, k);
	}
}

/* In a shared object (--pic), the module's tables reach the runtime through a
 * constructor every such object carries in one COMDAT group, so that a linked module
 * (a .so, or an executable of -fPIC objects) keeps one copy: it registers the
 * module's sic_ranges and sic_nopreempt with __sic_register_module before any other
 * constructor of the module runs (priority 100), and takes them back at unload. */
static void emit_module_registration(struct rw *w)
{
	static const char grp[] = SIC_MODULE_CTOR;
	FILE *o = w->out;
	fprintf(o, "\t.hidden\t__start_sic_ranges, __stop_sic_ranges, "
		   "__start_sic_nopreempt, __stop_sic_nopreempt\n");
	fprintf(o, "\t.section\t.text.%s,\"axG\",@progbits,%s,comdat\n", grp, grp);
	fprintf(o, "\t.weak\t%s, %s_fini\n\t.hidden\t%s, %s_fini\n", grp, grp, grp, grp);
	fprintf(o, "\t.type\t%s, @function\n%s:\n", grp, grp);
	fprintf(o, "\tleaq\t__start_sic_ranges(%%rip), %%rdi\n\tleaq\t__stop_sic_ranges(%%rip), %%rsi\n"
		   "\tleaq\t__start_sic_nopreempt(%%rip), %%rdx\n\tleaq\t__stop_sic_nopreempt(%%rip), %%rcx\n");
	emit_runtime_transfer(w, "jmp", SIC_REGISTER_MODULE);
	fprintf(o, "\t.size\t%s, .-%s\n", grp, grp);
	fprintf(o, "\t.type\t%s_fini, @function\n%s_fini:\n", grp, grp);
	fprintf(o, "\tleaq\t__start_sic_ranges(%%rip), %%rdi\n");
	emit_runtime_transfer(w, "jmp", SIC_UNREGISTER_MODULE);
	fprintf(o, "\t.size\t%s_fini, .-%s_fini\n", grp, grp);
	fprintf(o, "\t.section\t.init_array.00100,\"awG\",@init_array,%s,comdat\n"
		   "\t.p2align 3\n\t.quad\t%s\n", grp, grp);
	fprintf(o, "\t.section\t.fini_array.00100,\"awG\",@fini_array,%s,comdat\n"
		   "\t.p2align 3\n\t.quad\t%s_fini\n", grp, grp);
}

/* Which functions (by symbol) make a call in compiled code (not in inline asm): gcc
 * and clang keep data in the red zone, below the stack pointer, only in leaf
 * functions (those that make no call), so a stub of any other needs no leaq. */
static bool *function_calls(const struct analysis *an)
{
	bool *calls = calloc(an->nsyms ? an->nsyms : 1, sizeof *calls);
	if (!calls) {
		fputs("sicpp: out of memory\n", stderr);
		exit(2);
	}
	for (int i = 0; i < an->f->n; i++) {
		const struct stmt *s = &an->f->st[i];
		if (s->kind == ST_INSN && !s->foreign && s->info.cls == IC_CALL && an->fn[i] >= 0)
			calls[an->fn[i]] = true;
	}
	return calls;
}

int rewrite(FILE *out, struct analysis *an, const struct rewrite_opts *opts)
{
	struct asm_file *f = an->f;
	if (an->already_instrumented) {
		for (int i = 0; i < f->n; i++) {
			const struct stmt *s = &f->st[i];
			/* Statements of one line were split; write each back on its own line. */
			fprintf(out, "%s%s\n", s->kind == ST_LABEL || s->kind == ST_BLANK ? "" : "\t", s->text);
		}
		return ferror(out) ? -1 : 0;
	}
	struct rw w = {.out = out, .an = an, .opts = opts};
	bool *calls = function_calls(an);
	w.calls = calls;
	cfi_init(&w.cfi);
	w.moved_id = calloc(an->nsyms ? an->nsyms : 1, sizeof *w.moved_id);
	if (!w.moved_id) {
		fputs("sicpp: out of memory\n", stderr);
		exit(2);
	}
	for (int i = 0; i < f->n; i++) {
		const struct stmt *s = &f->st[i];
		const struct stmt_plan *p = &an->plan[i];
		if (an->dw_repl && an->dw_repl[i]) { /* DWARF rewritten (dwarf.c) */
			fputs(an->dw_repl[i], out);
			continue;
		}
		if (an->dw_tail && moved_stmt(&w, s))
			continue;
		if (s->foreign || is_section_switch(s))
			range_close(&w);
		w.cur_fn = an->fn[i] >= 0 ? an->syms[an->fn[i]].name : NULL;
		w.cur_calls = an->fn[i] >= 0 && calls[an->fn[i]];
		if (w.cur_fn && w.opts->rename_main && !strcmp(w.cur_fn, "main"))
			w.cur_fn = SIC_MAIN;
		if (s->kind == ST_DIRECTIVE && !s->foreign)
			cfi_feed(&w.cfi, s->name, s->args);
		if (s->foreign && p->count)
			emit_count(&w, p->count); /* a loop head at inline asm (a pause) */
		if (is_code(an, i)) {
			range_open(&w);
			if (w.anchor_due && s->kind == ST_INSN) {
				fprintf(out, ".Lsic_an_%d:\n", w.nanchors++);
				w.anchor_due = false;
			}
			if (p->count)
				emit_count(&w, p->count);
			if (p->home_store || p->ret_store)
				emit_home_store(&w);
			if (p->token || p->ret_token)
				fprintf(out, "\tmovq\t$" SIC_TOKEN ", %%r15\n");
			if (p->nopreempt || p->token || p->ret_store)
				nopreempt(&w); /* r15 holds the token (a return: the count just published) */
			if (races_anchor_before(an, i)) {
				if (opts->races) {
					/* Where the check begins: a preemption recorded at the
					 * access stops the race build before its check, so that
					 * the check (an atomic's acquire) comes after the others'
					 * steps as the access does (sic_anchor_checks). */
					fprintf(out, ".Lsic_ac_%d:\n", w.nanchors);
					add_label(&w.checked, w.nanchors);
					races_emit_check(out, an, i, w.nanchors,
							 w.cfi.cur.in_proc && w.cfi.cur.known && cfi_cfa_is_rsp(&w.cfi.cur));
				}
				fprintf(out, ".Lsic_an_%d:\n", w.nanchors++);
			}
			if (p->memop) {
				if (p->memop & MEMOP_ATOMIC)
					add_label(&w.atomics, w.nmemops);
				if (p->memop & MEMOP_REPEAT)
					add_label(&w.repeats, w.nmemops);
				fprintf(out, ".Lsic_mo_%d:\n", w.nmemops++);
			}
		}
		if (p->pause || p->spin_edge)
			emit_yield(&w, s, p->pause);
		else if (p->direct)
			emit_direct_transfer(&w, s, p->xcall);
		else
			emit_stmt(&w, s);
		if (races_anchor_after(an, i)) {
			fprintf(out, ".Lsic_an_%d:\n", w.nanchors++);
			w.anchor_due = false;
		}
		if (races_anchor_due(an, i))
			w.anchor_due = true;
		if (p->loop_exit) {
			char head[256];
			add_loop(&w, branch_target(s, head, sizeof head));
		}
		if (p->home_reload) {
			nopreempt(&w);
			emit_home_load(&w);
		}
		if (races_alloc_after(an, i)) {
			if (opts->races)
				races_emit_alloc(out, an, w.cfi.cur.in_proc && w.cfi.cur.known &&
							       cfi_cfa_is_rsp(&w.cfi.cur));
			fprintf(out, ".Lsic_an_%d:\n", w.nanchors++);
		}
		if (p->landing_reload) {
			range_open(&w);
			emit_landing_reload(&w);
		}
		if (p->entry_check && an->fn[i] >= 0 && an->syms[an->fn[i]].moved) {
			/* its check went in front of .text; its body has its labels, and a
			 * leaf's count here, where every caller comes */
			if (p->entry_count && counts_in_body(&an->syms[an->fn[i]])) {
				range_open(&w);
				emit_count(&w, CNT_FAST);
			}
		} else if (p->entry_check) {
			/* A caller in foreign code (qsort calling a comparator) passes no
			 * counting point of ours between two calls: the slow path counts
			 * (__sic_foreign_entry), and so does a leaf's fast path (its returns
			 * do not). An instrumented caller counted at its call. */
			range_open(&w);
			emit_entry_check(&w, an->fn[i] >= 0 ? &an->syms[an->fn[i]] : NULL, p->entry_count);
		}
	}
	range_close(&w);
	emit_stubs(&w);
	emit_shims(&w);
	emit_xcalls(out, an);
	emit_tables(&w);
	if (an->dw_tail)
		fputs(an->dw_tail, out);
	if (an->pic && w.nranges) /* an object of data alone registers nothing */
		emit_module_registration(&w);
	for (int k = 0; k < w.nstubs; k++) {
		cfi_release(&w.stubs[k].cfi);
		free(w.stubs[k].back);
	}
	free(w.stubs);
	free(calls);
	free(w.moved_id);
	free(w.atomics.v);
	free(w.repeats.v);
	free(w.checked.v);
	for (int k = 0; k < w.nloops; k++)
		free(w.loops[k].head);
	free(w.loops);
	cfi_release(&w.cfi.cur);
	return ferror(out) ? -1 : 0;
}
