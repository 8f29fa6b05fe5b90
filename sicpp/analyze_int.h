/* analyze_int.h: what the analysis's files share: analyze.c (sections, symbols, the
 * input's checks, the driver), analyze_calls.c (returns, direct entries, entry checks,
 * the direct-call graph and leaves), analyze_indirect.c (where indirect jumps go),
 * analyze_loops.c (the counts at jump targets, and the pruning), analyze_flags.c (flag
 * liveness). Private to them; the rest of sicpp uses analyze.h. */
#ifndef SICPP_ANALYZE_INT_H
#define SICPP_ANALYZE_INT_H

#include "analyze.h"

/* ---- analyze.c --------------------------------------------------------------------- */

/* calloc that exits on failure. */
void *xcalloc(size_t n, size_t sz);
/* The function fn is part of: foo for foo.cold, else fn itself. */
const struct sym *owner(struct analysis *an, const struct sym *fn);
/* The function statement i belongs to, with foo.cold counted as foo; NULL outside one. */
const struct sym *owner_at(struct analysis *an, int i);
/* A call of a TLS access sequence, which the linker rewrites: nothing goes around it. */
bool tls_call(const struct stmt *s, const char *target);
/* A label (not a function) of an executable section. */
bool is_code_label(struct analysis *an, const struct sym *y);

/* ---- analyze_calls.c --------------------------------------------------------------- */

/* Do fn's returns publish the count (every caller of fn reloads it)? */
bool returns_publish(const struct sym *fn);
/* Does a return that publishes the count pass the token back too (fn NULL: outside any
 * function)? */
bool returns_token(const struct sym *fn);
/* Does a direct call to fn, defined here, come back with the count in r15? */
bool returns_count(struct analysis *an, const struct sym *fn);
/* A direct call to a function that keeps the count in r15 all the way back. */
bool pure_call_keeps_count(struct analysis *an, int i);
bool local_call(const struct sym *fn);
/* Does fn, defined here, get a direct entry after its entry check? */
bool gets_direct_entry(struct analysis *an, const struct sym *fn);
/* A C library function that calls nothing of the program and returns. */
bool libc_pure(const char *n);
/* Is the call at statement i one to a libc_pure function not defined in this file? */
bool pure_call(struct analysis *an, int i);
/* The callee whose direct entry the call or tail jump at statement i may go to; NULL. */
struct sym *direct_callee(struct analysis *an, int i);
/* Is the call at statement i one to another file's function at its direct entry, which
 * counts at the callee's cross-file entry rather than at the call? */
bool cross_file_call(struct analysis *an, int i);
/* May sicc's link step point fn's cross-file entry, whose count precedes its direct
 * entry, at the direct entry (fn, defined here, is no leaf)? */
bool xcall_skippable(const struct sym *fn);
/* Is fn's cross-file entry a thunk (else the count on its entry check's fast path)? */
bool gets_xcall_thunk(const struct sym *fn);
/* Plan the entry check of the function labelled at statement label. */
void plan_entry_check(struct analysis *an, int label, bool leaf);
/* Set sym.scc: the direct-call graph's strongly connected components. */
void call_graph_sccs(struct analysis *an);
/* Set sym.leaf and n_leaves. */
void mark_leaves(struct analysis *an);
void mark_tails_keep(struct analysis *an);
bool tail_jump(struct analysis *an, int i, struct sym **target);
/* Is statement i's function a leaf? */
bool in_leaf(struct analysis *an, int i);
/* Must the call at statement i count (token: it passes the token)? */
bool call_counts(struct analysis *an, int i, bool token);
bool call_returns_counted(struct analysis *an, int i);

/* ---- analyze_indirect.c ------------------------------------------------------------ */

/* Where an indirect jump goes: it stays in its function (a switch, a computed goto),
 * surely leaves it (a tail call through a pointer), or either, as far as we can see. */
enum ijump { IJ_STAYS, IJ_LEAVES, IJ_EITHER };

enum ijump indirect_jump_kind(struct analysis *an, int i);
/* The labels the indirect jump at statement i may reach that lie behind it (or in
 * another section) become counting targets. */
void mark_indirect_targets(struct analysis *an, int i);

/* ---- analyze_loops.c --------------------------------------------------------------- */

/* The counting points at the targets of jumps (sym.count_target, and the labels inline
 * assembly names), then the pruning; loop heads left without one that write memory
 * get sym.back_window. */
void plan_target_counts(struct analysis *an);

/* ---- analyze_flags.c --------------------------------------------------------------- */

/* A counting point at statement i itself, in the form the flags there allow. */
void plan_site_count(struct analysis *an, int i);

#endif
