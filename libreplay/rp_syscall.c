/* rp_syscall.c: rp_syscall, the runtime's syscall(2) (rp_syscall.h). */
#include "rp_syscall.h"

#include <stdarg.h>

long rp_syscall(long nr, ...)
{
	va_list ap;
	va_start(ap, nr);
	/* As syscall(2) does: six argument registers, whatever the call takes. */
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
	long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
	va_end(ap);
	long r = rp_raw_syscall(nr, a, b, c, d, e, f);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
