/* rp_syscall.c: rp_syscall, the runtime's syscall(2) (rp_syscall.h). */
#include "base/rp_syscall.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>

volatile char rp_audit_selector;
bool rp_audit_lapsed;
bool rp_audit_on;

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

void rp_exit(int status)
{
	/* The definition after this executable's: the C library's (the pthread layer's
	 * exit is in the executable, which RTLD_NEXT skips). */
	static void (*libc_exit)(int);
	if (!libc_exit)
		libc_exit = (void (*)(int))dlsym(RTLD_NEXT, "exit");
	if (libc_exit)
		libc_exit(status);
	rp_exit_group(status);
}

/* The kernel's struct sigaction on x86-64 (not glibc's: the restorer comes before a
 * 64-bit mask). */
struct k_sigaction {
	void *handler;
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

#define K_SA_RESTORER 0x04000000

void rp_sigaction_restorer(void); /* rp_restorer.S */

int rp_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct k_sigaction k, ko;
	if (act) {
		memset(&k, 0, sizeof k);
		k.handler = (void *)act->sa_handler;
		k.flags = (unsigned long)act->sa_flags | K_SA_RESTORER;
		k.restorer = rp_sigaction_restorer;
		memcpy(&k.mask, &act->sa_mask, sizeof k.mask);
	}
	long r = rp_raw_syscall(SYS_rt_sigaction, sig, act ? (long)&k : 0, old ? (long)&ko : 0,
				sizeof k.mask, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	if (old) {
		memset(old, 0, sizeof *old);
		old->sa_handler = (void (*)(int))ko.handler;
		old->sa_flags = (int)ko.flags;
		old->sa_restorer = ko.restorer;
		memcpy(&old->sa_mask, &ko.mask, sizeof ko.mask);
	}
	return 0;
}
