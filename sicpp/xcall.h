/* xcall.h: what a file writes for calls between files (xcall.c). */
#ifndef SICPP_XCALL_H
#define SICPP_XCALL_H

#include <stdio.h>

#include "analyze.h"

/* The thunks of this file's cross-file entries, the weak shims of other files', and
 * the facts for sicc's link step (section .sic_xcalls). */
void emit_xcalls(FILE *o, struct analysis *an);
/* f.sic_xcall, where fn's entry check counts right before its direct entry (a leaf's,
 * or a global function's whose address its file does not take): call it just before
 * that count. Nothing for a function without a direct entry or a static one. */
void emit_xcall_label(FILE *o, const struct sym *fn);

#endif
