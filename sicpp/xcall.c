/*
 * xcall.c: calls between files (docs/sic.md, "Calls between files"). A call to
 * another file's function goes to its cross-file entry, f.sic_xcall, and does not
 * count at the call. What this file writes for them:
 *
 *  - for each global function of this file that has a direct entry, is no leaf and
 *    whose address the file takes, the thunk f.sic_xcall: it counts and jumps to the
 *    direct entry (any other's f.sic_xcall is its entry check's count, right before
 *    the direct entry, as a leaf's: rewrite.c; a caller through a pointer, which
 *    passes the token to the entry check, would pay for it there);
 *  - for each other file's function called so, a weak shim of that name (one copy per
 *    linked module) that counts, publishes the count and passes the token to f, for
 *    a callee that defines none (foreign code, a weak function, an object built
 *    otherwise);
 *  - the facts sicc's link step needs to point f.sic_xcall at the direct entry itself
 *    where that is safe: which functions have a count there it may skip (no leaf's),
 *    which are called so, and which other files'
 *    functions each function with a direct entry reaches through calls that do not
 *    count (the file's own uncounted calls, then one to another file). In the section
 *    .sic_xcalls, not loaded: the linker puts every linked object's together.
 *
 * The count in the thunks and shims calls __sic_overflow, which takes no preemption:
 * their PCs lie outside sic_ranges, and a replay's count that runs out there goes on
 * to the next counting point, as in the flag-preserving form's stubs.
 */
#include "analyze_int.h"
#include "rewrite.h"
#include "xcall.h"

#include <stdlib.h>
#include <string.h>

static int xlabel;

/* decq %r15, and __sic_overflow when it reached zero: no stub, no preemption. */
static void emit_inline_count(FILE *o)
{
	fprintf(o, "\tdecq\t%%r15\n\tjnz\t.Lsic_xc_%d\n\tcall\t" SIC_OVERFLOW "\n.Lsic_xc_%d:\n", xlabel, xlabel);
	xlabel++;
}

static void emit_thunks(FILE *o, struct analysis *an)
{
	for (int k = 0; k < an->nsyms; k++) {
		struct sym *y = &an->syms[k];
		if (!gets_xcall_thunk(y))
			continue;
		char direct[256];
		direct_name(y, direct, sizeof direct);
		fprintf(o, "\t.section\t.text.sic_xcall,\"ax\",@progbits\n");
		fprintf(o, "\t.globl\t%s" SIC_XCALL_SUFFIX "\n\t.hidden\t%s" SIC_XCALL_SUFFIX "\n%s" SIC_XCALL_SUFFIX ":\n",
			y->name, y->name, y->name);
		fprintf(o, "\t.cfi_startproc\n");
		emit_inline_count(o);
		fprintf(o, "\tjmp\t%s\n\t.cfi_endproc\n", direct);
		an->n_xthunks++;
	}
}

static void emit_xshims(FILE *o, struct analysis *an)
{
	for (int k = 0; k < an->nsyms; k++) {
		const struct sym *y = &an->syms[k];
		if (!y->xshim)
			continue;
		fprintf(o, "\t.section\t.text.sic_xcall.%s,\"axG\",@progbits,%s" SIC_XCALL_SUFFIX ",comdat\n",
			y->name, y->name);
		fprintf(o, "\t.weak\t%s" SIC_XCALL_SUFFIX "\n\t.hidden\t%s" SIC_XCALL_SUFFIX "\n%s" SIC_XCALL_SUFFIX ":\n",
			y->name, y->name, y->name);
		fprintf(o, "\t.cfi_startproc\n");
		emit_inline_count(o);
		fprintf(o, "\tmovq\t%%r15, " SIC_HOME "(%%rip)\n\tmovq\t$" SIC_TOKEN ", %%r15\n\tjmp\t%s@PLT\n"
			   "\t.cfi_endproc\n", y->name);
		an->n_shims++;
	}
}

/* The function a direct call at statement i enters, if it is one of this file's (a
 * name defined here as a function), as its owner (foo for foo.cold). */
static const struct sym *callee_here(struct analysis *an, int i)
{
	char buf[256];
	const char *t = branch_target(&an->f->st[i], buf, sizeof buf);
	const struct sym *y = t ? sym_find(an, t) : NULL;
	return y && y->is_func && y->def >= 0 ? owner(an, y) : NULL;
}

/* "T f": f's cross-file entry has a count a link may skip; "X f": this file calls f at
 * its cross-file entry; "R f g h ...":
 * f has a direct entry, and g, h ... are other files' functions that f reaches through
 * this file's calls that do not count, then one call to them. */
static void emit_facts(FILE *o, struct analysis *an)
{
	struct asm_file *f = an->f;
	int ns = an->nsyms;
	/* Edges of the calls that count nowhere on the way: from a function (its owner)
	 * to one of this file's, or (to = -1 - k) to another file's k. */
	int ne = 0, cap = 64;
	int *from = xcalloc(cap, sizeof *from), *to = xcalloc(cap, sizeof *to);
	bool any = false;
	for (int i = 0; i < f->n; i++) {
		if (!is_code(an, i) || f->st[i].info.cls != IC_CALL || an->fn[i] < 0 || an->plan[i].count)
			continue;
		int src = (int)(owner(an, &an->syms[an->fn[i]]) - an->syms), dst;
		if (an->plan[i].xcall) {
			char buf[256];
			const char *t = branch_target(&f->st[i], buf, sizeof buf);
			const struct sym *y = t ? sym_find(an, t) : NULL;
			if (!y)
				continue;
			dst = -1 - (int)(y - an->syms);
			any = true;
		} else {
			const struct sym *y = callee_here(an, i);
			if (!y || pure_call(an, i))
				continue;
			dst = (int)(y - an->syms);
		}
		if (ne == cap) {
			cap *= 2;
			from = realloc(from, cap * sizeof *from);
			to = realloc(to, cap * sizeof *to);
			if (!from || !to) {
				fputs("sicpp: out of memory\n", stderr);
				exit(2);
			}
		}
		from[ne] = src, to[ne++] = dst;
	}
	bool thunks = false;
	for (int k = 0; k < ns; k++)
		thunks |= xcall_skippable(&an->syms[k]);
	if (!any && !thunks) {
		free(from), free(to);
		return;
	}
	int *first = xcalloc(ns + 1, sizeof *first), *adj = xcalloc(ne ? ne : 1, sizeof *adj);
	int *fill = xcalloc(ns ? ns : 1, sizeof *fill);
	for (int e = 0; e < ne; e++)
		first[from[e] + 1]++;
	for (int k = 0; k < ns; k++)
		first[k + 1] += first[k];
	for (int e = 0; e < ne; e++)
		adj[first[from[e]] + fill[from[e]]++] = to[e];
	int *seen = xcalloc(ns ? ns : 1, sizeof *seen), *named = xcalloc(ns ? ns : 1, sizeof *named);
	int *stack = xcalloc(ns ? ns : 1, sizeof *stack), gen = 0;
	fprintf(o, "\t.section\t.sic_xcalls,\"\",@progbits\n");
	for (int k = 0; k < ns; k++) {
		const struct sym *fn = &an->syms[k];
		if (xcall_skippable(fn))
			fprintf(o, "\t.ascii\t\"T %s\\n\"\n", fn->name);
		if (fn->xshim)
			fprintf(o, "\t.ascii\t\"X %s\\n\"\n", fn->name);
		if (!fn->direct || !fn->global)
			continue;
		/* Which other files' functions fn reaches without a count on the way. */
		gen++;
		int sp = 0;
		bool open = false;
		stack[sp++] = k;
		seen[k] = gen;
		while (sp) {
			int v = stack[--sp];
			for (int e = first[v]; e < first[v + 1]; e++) {
				int w = adj[e];
				if (w < 0) {
					w = -1 - w;
					if (named[w] == gen)
						continue;
					named[w] = gen;
					if (!open)
						fprintf(o, "\t.ascii\t\"R %s", fn->name);
					open = true;
					fprintf(o, " %s", an->syms[w].name);
				} else if (seen[w] != gen) {
					seen[w] = gen;
					stack[sp++] = w;
				}
			}
		}
		if (open)
			fprintf(o, "\\n\"\n");
	}
	free(from), free(to), free(first), free(adj), free(fill), free(seen), free(named), free(stack);
}

void emit_xcall_label(FILE *o, const struct sym *fn)
{
	if (fn && fn->direct && fn->global)
		fprintf(o, "\t.globl\t%s" SIC_XCALL_SUFFIX "\n\t.hidden\t%s" SIC_XCALL_SUFFIX "\n%s" SIC_XCALL_SUFFIX ":\n",
			fn->name, fn->name, fn->name);
}

void emit_xcalls(FILE *o, struct analysis *an)
{
	xlabel = 0; /* one file's labels: the same in every rewrite of it (both builds) */
	emit_thunks(o, an);
	emit_xshims(o, an);
	emit_facts(o, an);
}
