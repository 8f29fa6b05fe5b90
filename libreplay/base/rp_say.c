/* rp_say.c: the runtime's one-line messages (rp_say.h). */
#include "base/rp_say.h"
#include "base/rp_syscall.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool rp_vsay(const char *prefix, const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
	if (n < 0)
		n = 0;
	if (n > (int)sizeof buf - 2)
		n = sizeof buf - 2;
	buf[n++] = '\n';
	/* write(2): this may run inside a signal handler or with stdio in any state */
	return rp_sys_write(2, prefix, strlen(prefix)) >= 0 && rp_sys_write(2, buf, n) >= 0;
}

_Noreturn void rp_fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool said = rp_vsay("libreplay: ", fmt, ap);
	va_end(ap);
	if (!said)
		_exit(127);
	abort();
}
