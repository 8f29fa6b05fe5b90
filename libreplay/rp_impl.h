/* rp_impl.h: libreplay's internal interface. */
#ifndef RP_IMPL_H
#define RP_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libreplay.h"

/* The counter's start in normal runs: counting down from 2^62 never reaches zero, and
 * a foreign library's r15 is very unlikely to equal such a value. */
#define RP_SIC_BASE (UINT64_C(1) << 62)

/* sic_rt.S */
extern uint64_t __sic_home;
extern uint64_t *__sic_side_base, *__sic_side_top, *__sic_side_end;
uint64_t rp_sic_call(void *fn, uint64_t a, uint64_t b, uint64_t c);

/* sic.c */
void rp_sic_init(void);
uint64_t rp_sic_overflow_c(void);
_Noreturn void rp_sic_side_overflow(void);
_Noreturn void rp_sic_side_corrupt(void);
bool rp_sic_pc_instrumented(uintptr_t pc);
bool rp_sic_pc_preemptible(uintptr_t pc);
size_t rp_sic_nranges(void);
extern uint64_t rp_sic_xsave_size;

/* diagnostics: "libreplay: <message>" on stderr, then abort. */
_Noreturn void rp_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
