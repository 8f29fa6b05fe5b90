/*
 * analyze_loops.c: the counting points at jump targets, most of them loop heads: the
 * labels that backward jumps or jumps across sections reach (sym.count_target), those
 * indirect jumps may reach behind them, and those inline assembly names. Each gets one
 * as late in its straight-line block as it takes to find the flags dead; then those
 * that every cycle through them already passes another counting point at are dropped
 * (docs/sic.md, "Where it counts"), and a loop head left without one whose straight
 * line writes memory is marked for the hunting scheduler (sym.back_window).
 */
#include "analyze_int.h"

#include <stdlib.h>
#include <string.h>

/* Put a counting point for label index d as late in its straight-line block as it
 * takes to find the flags dead; if they never are, the flag-preserving sequence goes
 * right after the label. */
static int place_target_count(struct analysis *an, int d)
{
	struct asm_file *f = an->f;
	int first = -1;
	for (int i = d + 1, seen = 0; i < f->n && seen < 16; i++) {
		struct stmt *s = &f->st[i];
		if (an->sect[i] != an->sect[d])
			break;
		if (s->kind == ST_DIRECTIVE && !strcmp(s->name, ".size"))
			break;
		if (s->foreign) {
			/* Count before inline asm (a spin loop's `pause`): the rewriter puts
			 * the count ahead of the #APP line. */
			if (first < 0)
				first = i;
			break;
		}
		if (s->kind != ST_INSN)
			continue;
		if (first < 0)
			first = i;
		if (an->plan[i].count) /* another target's count already covers this spot */
			return -1;
		/* The linker rewrites a TLS access sequence by its exact bytes: nothing
		 * may go between its lea and its call (count before it, at the latest). */
		if (strstr(s->args, "@tlsgd") || strstr(s->args, "@tlsld") || strstr(s->args, "@TLSDESC"))
			break;
		if (!flags_live(an, i, FL_INC)) {
			an->plan[i].count = CNT_FAST;
			return i;
		}
		seen++;
		if (s->info.cls != IC_OTHER || s->info.string_op)
			break;
	}
	if (first < 0 || an->plan[first].count)
		return -1;
	an->plan[first].count = flags_live(an, first, FL_INC) ? CNT_SAFE : CNT_FAST;
	return first;
}

/* ---- fewer counting points ------------------------------------------------- */

/* A loop's body often has several labels that backward jumps reach, each counting,
 * where one count on every cycle would do. Within one function (its cold parts
 * included), a counting point placed for a label is dropped when no cycle of the
 * function's control-flow graph passes it without passing another counting point:
 * the search from its successors that stops at counted statements never comes back
 * to it. Calls are edges to the next instruction (a call that returns passed the
 * callee's return, which counts, or it counts itself: a call to a leaf; the cycles
 * through calls are the call graph's, analyze_calls.c); a call that surely passes a
 * count (its own, a cross-file entry's, or all of its callee's returns) ends a path. Exceptional edges need none: the unwinder and longjmp are entered by calls
 * to foreign code, which count. Counts at a label inline assembly names stay. */
struct cfg {
	int *next;        /* the next statement of the same section, -1 at its end */
	int *ij_first;    /* per symbol: its function's address-taken code labels in */
	int *ij;          /* ij[ij_first[k] .. ij_first[k + 1]) */
	int *stack;
	int *seen;
	bool *ret_counted; /* a call whose callee's returns all count (call_returns_counted) */
	int gen;
};

static void cfg_build(struct analysis *an, struct cfg *g)
{
	struct asm_file *f = an->f;
	int n = f->n, ns = an->nsyms;
	g->next = xcalloc(n, sizeof *g->next);
	int *last = xcalloc(an->nsect + 1, sizeof *last);
	for (int k = 0; k <= an->nsect; k++)
		last[k] = -1;
	for (int i = n - 1; i >= 0; i--) {
		int sc = an->sect[i] + 1;
		g->next[i] = last[sc];
		last[sc] = i;
	}
	free(last);
	g->ij_first = xcalloc(ns + 1, sizeof *g->ij_first);
	int *owner_of = xcalloc(ns, sizeof *owner_of);
	for (int k = 0; k < ns; k++) {
		const struct sym *t = &an->syms[k];
		owner_of[k] = -1;
		if (t->addr_taken && is_code_label(an, t) && !f->st[t->def].foreign && owner_at(an, t->def)) {
			owner_of[k] = (int)(owner_at(an, t->def) - an->syms);
			g->ij_first[owner_of[k] + 1]++;
		}
	}
	for (int k = 0; k < ns; k++)
		g->ij_first[k + 1] += g->ij_first[k];
	g->ij = xcalloc(g->ij_first[ns], sizeof *g->ij);
	int *fill = xcalloc(ns, sizeof *fill);
	for (int k = 0; k < ns; k++)
		if (owner_of[k] >= 0)
			g->ij[g->ij_first[owner_of[k]] + fill[owner_of[k]]++] = an->syms[k].def;
	free(fill);
	free(owner_of);
	g->stack = xcalloc(n, sizeof *g->stack);
	g->seen = xcalloc(n, sizeof *g->seen);
	g->ret_counted = xcalloc(n, sizeof *g->ret_counted);
	for (int i = 0; i < n; i++)
		g->ret_counted[i] = call_returns_counted(an, i);
}

static void cfg_free(struct cfg *g)
{
	free(g->next), free(g->ij_first), free(g->ij), free(g->stack), free(g->seen), free(g->ret_counted);
}

/* The successors of statement i, into out (at most 2, or a function's indirect
 * targets through ind and nind); returns how many are in out. */
static int cfg_succ(struct analysis *an, struct cfg *g, int i, int out[2], const int **ind, int *nind)
{
	const struct stmt *s = &an->f->st[i];
	*nind = 0;
	if (s->kind != ST_INSN || s->foreign) {
		out[0] = g->next[i];
		return out[0] >= 0;
	}
	if (!is_code(an, i))
		return 0;
	char buf[256];
	const char *t;
	struct sym *y;
	int n = 0;
	switch (s->info.cls) {
	case IC_OTHER:
	case IC_CALL:
		out[n] = g->next[i];
		return out[n] >= 0;
	case IC_JCC:
		if (g->next[i] >= 0)
			out[n++] = g->next[i];
		/* fall through */
	case IC_JMP:
		t = branch_target(s, buf, sizeof buf);
		if (!t) {
			const struct sym *fn = owner_at(an, i);
			if (fn) {
				int k = (int)(fn - an->syms);
				*ind = g->ij + g->ij_first[k];
				*nind = g->ij_first[k + 1] - g->ij_first[k];
			}
			return n;
		}
		y = sym_find(an, t);
		if (y && y->def >= 0 && !y->is_func)
			out[n++] = y->def;
		return n;
	default:
		return 0;
	}
}

/* Does a path from statement k's successors come back to k without passing a
 * counting point, inside k's function? */
static bool on_uncounted_cycle(struct analysis *an, struct cfg *g, int k)
{
	const struct sym *fn = owner_at(an, k);
	int sp = 0, v = k;
	g->gen++;
	for (;;) {
		int out[2];
		const int *ind = NULL;
		int nind;
		int n = cfg_succ(an, g, v, out, &ind, &nind);
		for (int j = 0; j < n + nind; j++) {
			int w = j < n ? out[j] : ind[j - n];
			if (w == k)
				return true;
			/* A call to a function of this file whose returns all count passes a
			 * count. A call to another file's cross-file entry passes one too
			 * (the entry's, or the callee's return's: cross_file_call), but
			 * where the callee is foreign (the C library's time()) that count
			 * is the caller's shim's, outside sic_ranges, where no time slice
			 * can end: a loop of such calls keeps a count of its own, or its
			 * thread is never preempted (tests/schedule's time_loop). */
			if (g->seen[w] == g->gen || an->plan[w].count || owner_at(an, w) != fn ||
			    g->ret_counted[w])
				continue;
			g->seen[w] = g->gen;
			g->stack[sp++] = w;
		}
		if (!sp)
			return false;
		v = g->stack[--sp];
	}
}

static void prune_counts(struct analysis *an, const bool *removable)
{
	struct asm_file *f = an->f;
	struct cfg g = {0};
	cfg_build(an, &g);
	/* The flag-preserving form first: it costs the most. */
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < f->n; k++) {
			uint8_t c = an->plan[k].count;
			if (!removable[k] || !c || (pass == 0) != (c == CNT_SAFE) || !owner_at(an, k))
				continue;
			an->plan[k].count = CNT_NONE;
			/* (at a call whose callee's returns count, every cycle through it
			 * passes one) */
			if (!g.ret_counted[k] && on_uncounted_cycle(an, &g, k))
				an->plan[k].count = c;
			else
				an->n_pruned++;
		}
	cfg_free(&g);
}

/* The counting points at the targets of jumps (sym.count_target, and the labels inline
 * assembly names), then the pruning; loop heads left without one that write memory
 * get sym.back_window. */
void plan_target_counts(struct analysis *an)
{
	struct asm_file *f = an->f;
	bool *removable = xcalloc(f->n, sizeof *removable);
	int *placed = xcalloc(an->nsyms ? an->nsyms : 1, sizeof *placed);
	for (int k = 0; k < an->nsyms; k++) {
		struct sym *y = &an->syms[k];
		placed[k] = -1;
		if (y->asm_ref && !y->is_func && y->def >= 0 && !f->st[y->def].foreign &&
		    an->sect[y->def] >= 0 && an->sect_exec[an->sect[y->def]])
			y->count_target = true;
		if (y->count_target) {
			placed[k] = place_target_count(an, y->def);
			if (placed[k] >= 0 && !y->asm_ref)
				removable[placed[k]] = true;
		}
	}
	prune_counts(an, removable);
	/* A loop head whose count went and whose straight line writes memory: the jumps
	 * back to it become places the hunting scheduler may stop at (plan_hunt), between
	 * a read at the loop's bottom and the write it feeds at the top (a pop from a
	 * shared list: docs/sic.md), where the count was a place before. */
	for (int k = 0; k < an->nsyms; k++)
		if (placed[k] >= 0 && an->plan[placed[k]].count == CNT_NONE &&
		    hunt_line_writes(an, an->syms[k].def))
			an->syms[k].back_window = true;
	free(placed);
	free(removable);
}
