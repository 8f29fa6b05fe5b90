/* races.h: the anchors every build carries and the race build's checks (races.c). */
#ifndef SICPP_RACES_H
#define SICPP_RACES_H

#include "analyze.h"

/* The checkers the race build calls (libreplay/engine/races/races_rt.S). */
#define RACE_ACCESS "__race_access"
#define RACE_RANGE  "__race_range"
#define RACE_FREE   "__race_free"
#define RACE_ALLOC  "__race_alloc"
#define RACE_CALL   "__race_call"
/* RACE_ACCESS's %esi: the size in bytes (low byte), and what the access is. */
#define RACE_WRITE  0x100
#define RACE_ATOMIC 0x200

/* Does statement i get an anchor (and, in a race build, a check) right before it? */
bool races_anchor_before(const struct analysis *an, int i);
/* ...or right after it (labels of code, jumps)? */
bool races_anchor_after(const struct analysis *an, int i);
/* Is statement i a section switch into an executable section or an alignment there?
 * Then an anchor is due before the next instruction of code, unless a label's comes
 * first: not right after the directive, which may switch to a section with no code
 * (gcc's ".section .note.GNU-stack,"x"" for nested functions, discarded at link). */
bool races_anchor_due(const struct analysis *an, int i);
/* The race build's check before statement i, whose anchor is .Lsic_an_<anchor>;
 * rsp_cfa: the frame's CFA is computed from %rsp here. */
void races_emit_check(FILE *o, const struct analysis *an, int i, int anchor, bool rsp_cfa);

/* A call to malloc, calloc or realloc: an anchor (and in a race build, the check that
 * the block is new) after it, once the count is back in %r15. */
bool races_alloc_after(const struct analysis *an, int i);
void races_emit_alloc(FILE *o, const struct analysis *an, bool rsp_cfa);

#endif
