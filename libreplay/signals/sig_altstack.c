/* sig_altstack.c: sigaltstack per green thread. The kernel keeps one alternate
 * signal stack per kernel thread, and every green thread shares that one: the layer
 * keeps each thread's own (struct pt_thread) and runs an SA_ONSTACK handler there
 * when it delivers one (sig_deliver.c, and the trampoline of signals from outside,
 * sig_action.c), as the kernel would in a thread of its own: unless it runs there
 * already, and with SS_AUTODISARM the stack disarmed while the handler runs; when
 * the handler returns, the thread's setting is what it was (sigreturn restores it).
 * A handler on it may be preempted like any code: its frames stay on that thread's
 * stack. Faults (SIGSEGV of a stack overflow) are the kernel's to deliver: outside a
 * session the kernel gets the program's stack too; in one it keeps the runtime's,
 * where a fault handler with SA_ONSTACK runs (engine/session/session.c). */
#include "signals/signals.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31) /* <linux/signal.h>'s */
#endif
/* The kernel's least size (sigaltstack(2): ENOMEM below it). */
#define ALT_MIN_SIZE 2048u

static char *stack_pointer(void)
{
	return __builtin_frame_address(0);
}

static bool on_alt(const struct pt_thread *pt, const char *sp)
{
	return pt->alt_on && sp >= pt->alt_sp && sp < pt->alt_sp + pt->alt_size;
}

int sigaltstack(const stack_t *ss, stack_t *old)
{
	struct pt_thread *self = pt_self();
	bool on = on_alt(self, stack_pointer());
	stack_t was = {.ss_sp = self->alt_sp, .ss_size = self->alt_size,
		       .ss_flags = !self->alt_on ? SS_DISABLE
				 : (on ? SS_ONSTACK : 0) | (self->alt_autodisarm ? (int)SS_AUTODISARM : 0)};
	if (ss) {
		int mode = (int)((unsigned)ss->ss_flags & ~SS_AUTODISARM);
		if (on) {
			errno = EPERM;
			return -1;
		}
		if (mode != 0 && mode != SS_ONSTACK && mode != SS_DISABLE) {
			errno = EINVAL;
			return -1;
		}
		if (mode != SS_DISABLE && ss->ss_size < ALT_MIN_SIZE) {
			errno = ENOMEM;
			return -1;
		}
		long r = sig_session_on() ? 0 : rp_raw_syscall(SYS_sigaltstack, (long)ss, 0, 0, 0, 0, 0);
		if (r < 0) {
			errno = (int)-r;
			return -1;
		}
		self->alt_on = mode != SS_DISABLE;
		self->alt_autodisarm = self->alt_on && ((unsigned)ss->ss_flags & SS_AUTODISARM);
		self->alt_sp = self->alt_on ? ss->ss_sp : NULL;
		self->alt_size = self->alt_on ? ss->ss_size : 0;
	}
	if (old)
		*old = was;
	return 0;
}

void sig_run_handler(struct pt_thread *self, const struct sigaction *sa, int sig, siginfo_t *info,
		     void *uc)
{
	void *fn = sa->sa_flags & SA_SIGINFO ? (void *)sa->sa_sigaction : (void *)sa->sa_handler;
	/* What sigreturn gives back, whatever the handler set (the kernel keeps it in
	 * the frame's uc_stack). */
	struct pt_thread was = *self;
	if (!(sa->sa_flags & SA_ONSTACK) || !self->alt_on || on_alt(self, stack_pointer())) {
		if (sa->sa_flags & SA_SIGINFO)
			sa->sa_sigaction(sig, info, uc);
		else
			sa->sa_handler(sig);
	} else {
		if (self->alt_autodisarm)
			self->alt_on = false;
		sig_call_on_stack(fn, sig, info, uc, was.alt_sp + was.alt_size);
	}
	self->alt_on = was.alt_on;
	self->alt_autodisarm = was.alt_autodisarm;
	self->alt_sp = was.alt_sp;
	self->alt_size = was.alt_size;
}
