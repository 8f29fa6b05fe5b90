/* sicc_link.h: sicc's link step (sicc_link.c). */
#ifndef SICPP_SICC_LINK_H
#define SICPP_SICC_LINK_H

/* The linker flags that point each cross-file entry of the program just linked at
 * output, whose count no cycle of uncounted calls needs, at its direct entry
 * (-Wl,--defsym=f.sic_xcall=f.sic_direct); *count of them, NULL if none. */
char **sicc_link_defsyms(const char *output, int *count);

#endif
