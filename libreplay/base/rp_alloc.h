/* rp_alloc.h: the runtime's own memory, apart from the program's.
 *
 * Recording and replaying allocate different things (a log writer, a log reader), so
 * if they used the program's heap the program would see different addresses in the
 * two runs. Everything of the session comes from one private mapping far from the
 * program's heap and mmap area instead. Not thread-safe (one kernel thread); never
 * called from signal handlers. */
#ifndef RP_ALLOC_H
#define RP_ALLOC_H

#include <stddef.h>

void *rp_malloc(size_t n);
void *rp_calloc(size_t n, size_t size);
void *rp_realloc(void *p, size_t n);
void rp_free(void *p);
char *rp_strdup(const char *s);
/* The session cannot get memory for what: one line naming it and the address-space
 * limit if there is one (ulimit -v), then exit RP_EXIT_NOMEM. */
#define RP_EXIT_NOMEM 2 /* as session.h's RP_EXIT_USAGE: the session cannot run */
_Noreturn void rp_fatal_memory(const char *what);

#endif
