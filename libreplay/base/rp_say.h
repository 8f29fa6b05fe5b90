/* rp_say.h: the runtime's messages: one line on stderr, by write(2) alone, so that
 * signal handlers and a program whose stdio is in any state may say something. */
#ifndef RP_SAY_H
#define RP_SAY_H

#include <stdarg.h>
#include <stdbool.h>

/* prefix then the formatted message and a newline: true if it was written. */
bool rp_vsay(const char *prefix, const char *fmt, va_list ap);
/* "libreplay: <message>" on stderr, one line, one write(2): true if it was written. */
bool rp_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "libreplay: <message>" on stderr, then abort. */
_Noreturn void rp_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
