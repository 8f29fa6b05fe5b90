/* xcall.h: what a file writes for calls between files (xcall.c). */
#ifndef SICPP_XCALL_H
#define SICPP_XCALL_H

#include <stdio.h>

#include "analyze.h"

/* The thunks of this file's cross-file entries, the weak shims of other files', and
 * the facts for sicc's link step (section .sic_xcalls). */
void emit_xcalls(FILE *o, struct analysis *an);

#endif
