/* dwarf.h: -g code's direct entries, by rewriting gcc's DWARF (dwarf.c). */
#ifndef SICPP_DWARF_H
#define SICPP_DWARF_H

#include "analyze.h"

/* The attribute that pads a subprogram's DIE to its old size after its DW_AT_low_pc and
 * DW_AT_high_pc became DW_AT_ranges (vendor range, DW_FORM_block1 of 11 zero bytes). */
#define SIC_DW_AT_PAD "0x3b1c"

/* In a file compiled with -g: rewrite the DWARF so that the functions whose entry check
 * can move to the start of .text get direct entries (sym.moved, sym.direct), and fill
 * analysis.dw_repl, dw_tail and dw_text0 for the rewriter. Leaves the file as it was
 * (no direct entries) when the DWARF is not what it expects. */
void dwarf_plan(struct analysis *an);
/* The statement of the last .loc before fn's first instruction (the line row gdb gives
 * its entry), -1 if none. */
int dwarf_entry_loc(const struct analysis *an, const struct sym *fn);

#endif
