/* preempt.c: a preemption taken in a signal handler (record.c's tick, replay.c's
 * trap): the thread is switched out with the interrupted context, and when it runs
 * again the signals other threads sent it meanwhile are delivered first. */
#include "engine/core.h"

#include <signal.h>

static void unblock(int sig)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	rp_sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* Switch away from a signal handler; the thread resumes here, returns, and sigreturn
 * puts it back where it was interrupted (with the counter the replay loaded). */
void rp_preempt_from_signal(ucontext_t *uc, int sig)
{
	int tid = rp_cur->tid;
	rp_debug_preempt_begin(tid);
	rp_preempt_uc = uc;
	unblock(sig);
	sched_preempt();
	rp_preempt_uc = NULL; /* consumed by on_switch, or no switch happened */
	rp_debug_preempt_end(tid);
	if (rp_resumed_hook)
		rp_resumed_hook((uint64_t *)&uc->uc_mcontext.gregs[REG_R15]);
	/* Where it resumes (also when no switch happened, which on_switch does not see):
	 * a tick there before it moves is no progress, not a second PREEMPT. */
	struct rp_thread *t = rp_cur;
	t->resumed_from_signal = true;
	t->resume_count = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	t->resume_pc = rp_pc_of(uc);
	/* The next preemption may be at this very PC (at a later count, after signal
	 * handlers, or in a log with a repeated position). The replay's trap that
	 * stopped the thread here set RF in the frame, which would let the breakpoint
	 * armed here pass once: clear it. */
	if (rp_bp_armed_pc() && rp_bp_armed_pc() == rp_pc_of(uc))
		uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)0x10000;
}
