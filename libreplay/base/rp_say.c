/* rp_say.c: the runtime's one-line messages (rp_say.h). */
#include "base/rp_say.h"
#include "base/rp_fd.h"
#include "base/rp_syscall.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool rp_vsay(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];
	size_t p = strlen(prefix);
	if (p > sizeof buf / 2)
		p = sizeof buf / 2;
	memcpy(buf, prefix, p);
	int n = vsnprintf(buf + p, sizeof buf - p - 1, fmt, ap);
	if (n < 0)
		n = 0;
	if (n > (int)(sizeof buf - p - 2))
		n = (int)(sizeof buf - p - 2);
	n += (int)p;
	buf[n++] = '\n';
	/* One write(2): this may run inside a signal handler or with stdio in any state.
	 * To the stderr the program started with, even if it closed its own. */
	return rp_fd_say(buf, (size_t)n) >= 0;
}

bool rp_say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool said = rp_vsay("libreplay: ", fmt, ap);
	va_end(ap);
	return said;
}

_Noreturn void rp_fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool said = rp_vsay("libreplay: ", fmt, ap);
	va_end(ap);
	if (!said)
		rp_exit_group(127);
	abort();
}
