/* rewrite.h: emit the instrumented assembly from a parsed, analysed file. */
#ifndef SICPP_REWRITE_H
#define SICPP_REWRITE_H

#include "analyze.h"

struct rewrite_opts {
	bool rename_main;   /* main -> __sic_main, so libreplay's main() runs first */
	bool races;         /* the race build: checks before memory accesses (races.c) */
};

/* Names shared with the runtime (libreplay/sic_rt.S). */
#define SIC_HOME          "__sic_home"
#define SIC_OVERFLOW      "__sic_overflow"
#define SIC_OVERFLOW_FAR  "__sic_overflow_far"
#define SIC_OVERFLOW_NEAR "__sic_overflow_near"
#define SIC_FOREIGN_ENTRY "__sic_foreign_entry"
#define SIC_PAUSE         "__sic_pause"
#define SIC_MAIN          "__sic_main"
/* Shared objects (--pic): the runtime's registration of a module's tables, and the
 * COMDAT constructor each object carries to call it. */
#define SIC_REGISTER_MODULE   "__sic_register_module"
#define SIC_UNREGISTER_MODULE "__sic_unregister_module"
#define SIC_MODULE_CTOR       "__sic_module_tables"
/* What %r15 holds while an instrumented caller is calling out: a value no foreign
 * code has in r15 by chance (not a user-space pointer, not a small number). It fits
 * a sign-extended imm32 so that setting and testing it are single instructions. */
#define SIC_TOKEN         "-0x61a53f22"
#define SIC_NOTE_TYPE     0x53494331 /* "SIC1" */
#define SIC_ABI_VERSION   1

int rewrite(FILE *out, struct analysis *an, const struct rewrite_opts *opts);

#endif
