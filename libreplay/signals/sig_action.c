/* sig_action.c: signals the replay cannot reproduce are said out loud.
 *
 * A signal the process sends itself (raise, kill(getpid()), pthread_kill, sigqueue)
 * arrives at the call that sent it, the same in the replay; a fault arrives at its
 * instruction. Any other signal (SIGINT from a terminal, SIGTERM or SIGUSR1 from
 * another process, SIGALRM from alarm or setitimer, SIGCHLD) arrives at a moment no
 * log record names, so a handler that ran for one cannot run at the same point in
 * the replay. Recording, the program's handlers for such signals run behind a
 * trampoline that, when one arrives, says so on stderr and logs an ASYNC_SIGNAL
 * input; a replay of that log refuses to start (engine/schedule/replay.c) instead of diverging.
 * SIGPROF and SIGRTMIN+7 are the runtime's (time slice, replay breakpoint): a
 * program's handler for them, or setitimer(ITIMER_PROF), fails with EINVAL and a note.
 * A handler may be preempted like any instrumented code, so the kernel must not
 * run it on its alternate stack (one per kernel thread: a second green thread's
 * signal would reuse it under the first one's frames): the kernel gets SA_ONSTACK
 * only for faults (a stack overflow handler needs it); the trampoline runs the
 * handler on the green thread's own alternate stack (sig_altstack.c).
 * signal() and sigaction() are covered; sigset/bsd_signal/sysv_signal are not. */
#include "signals/signals.h"
#include "inputs/inputs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>


/* The program's own handler for each signal whose kernel handler is the trampoline. */
static struct sigaction user[_NSIG];


/* The runtime schedules in every run of a program (with --no-record too: only the log
 * is left out); not in a unit test, which starts no session. */
static bool runtime_on(void)
{
	return rp_opts.log_path != NULL;
}

static bool runtime_signal(int sig)
{
	return sig == SIGPROF || sig == SIGRTMIN + 6 || sig == SIGRTMIN + 7;
}

static const char *runtime_signal_name(int sig)
{
	return sig == SIGPROF ? "SIGPROF" : sig == SIGRTMIN + 6 ? "SIGRTMIN+6" : "SIGRTMIN+7";
}

/* Faults come from an instruction of the process: as deterministic as the code. */
static bool fault_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	       sig == SIGTRAP || sig == SIGSYS;
}

static void say(const char *msg)
{
	rp_fd_say(msg, strlen(msg));
}

static void trampoline(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	bool self = (si->si_code == SI_USER || si->si_code == SI_TKILL || si->si_code == SI_QUEUE) &&
		    si->si_pid == in_real_pid();
	if (!self) {
		char msg[300];
		const char *name = sigabbrev_np(sig);
		snprintf(msg, sizeof msg, "libreplay: signal %d (SIG%s) from %s reached the program's "
			 "handler; %s\n", sig, name ? name : "?",
			 si->si_code == SI_KERNEL || si->si_code == SI_TIMER ? "a timer or the kernel" :
			 "outside the process",
			 rp_replaying ? "the recording had no such signal here, the replay may diverge" :
			 "replaying a signal from outside is not supported: this recording will not replay");
		say(msg);
		if (!rp_replaying)
			rp_async_signal(sig, si->si_code, si->si_pid,
					rp_sic_pc_instrumented((uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP]));
	}
	struct sigaction a = user[sig];
	if (a.sa_flags & SA_RESETHAND) { /* the kernel has reset its handler already */
		user[sig].sa_handler = SIG_DFL;
		user[sig].sa_flags &= ~SA_SIGINFO;
	}
	errno = saved;
	if (!(a.sa_flags & SA_SIGINFO) && (a.sa_handler == SIG_DFL || a.sa_handler == SIG_IGN))
		return;
	/* On the running green thread's alternate stack, if SA_ONSTACK asks. */
	struct pt_thread *pt = pt_find(sched_current());
	if (pt)
		sig_run_handler(pt, &a, sig, si, uc);
	else if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
}

/* At exit, before the log is closed (registered after the session's own exit
 * handler, so it runs first): a signal still pending goes into the log. */
static void flush_at_exit(void)
{
	rp_async_signal_flush();
}

/* The runtime's handler that stands in for SIG_DFL (session.c: it writes END, then the
 * process dies of the signal) shows as SIG_DFL. */
static void as_default(struct sigaction *sa)
{
	if (sa && rp_session_is_default_action(sa)) {
		memset(sa, 0, sizeof *sa);
		sa->sa_handler = SIG_DFL;
	}
}

/* Puts `give` in place for sig, keeping the program's act as its own (what the
 * trampoline calls; in place before the trampoline can run), and reports the previous
 * action as the program knows it: its own handler, not the trampoline or a stand-in. */
static int install(int sig, const struct sigaction *act, const struct sigaction *give,
		   struct sigaction *old)
{
	struct sigaction prev, prev_user = user[sig];
	if (act)
		user[sig] = *act;
	if (rp_sigaction(sig, give, &prev) != 0) {
		user[sig] = prev_user;
		return -1;
	}
	if (prev.sa_flags & SA_SIGINFO && prev.sa_sigaction == trampoline)
		prev = prev_user;
	as_default(&prev);
	if (old)
		*old = prev;
	return 0;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	/* glibc keeps its two internal signals (cancellation, setxid) to itself. */
	if (sig == SIGRTMIN - 2 || sig == SIGRTMIN - 1) {
		errno = EINVAL;
		return -1;
	}
	if (sig == SIGILL && rp_bp_sigill_action(act, old))
		return 0; /* the replay's trap byte raises it: its handler calls the program's */
	bool handler = act && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
	if (runtime_on() && sig > 0 && sig < _NSIG && runtime_signal(sig) && handler) {
		rp_say("a handler for %s: the signal is the recorder's own "
				"(time slice, breakpoint or --timeout); not available to the program",
			runtime_signal_name(sig));
		errno = EINVAL;
		return -1;
	}
	struct sigaction stand_in, mine;
	if (act && act->sa_handler == SIG_DFL && sig_session_on() && sig > 0 && sig < _NSIG &&
	    rp_session_default_action(sig, &stand_in))
		return install(sig, act, &stand_in, old);
	if (!sig_session_on() || sig <= 0 || sig >= _NSIG || fault_signal(sig)) {
		int rc = rp_sigaction(sig, act, old);
		if (rc == 0)
			as_default(old);
		return rc;
	}
	static bool at_exit;
	const struct sigaction *give = act;
	if (handler) {
		mine = *act;
		mine.sa_flags |= SA_SIGINFO;
		mine.sa_flags &= ~SA_ONSTACK; /* the trampoline switches (sig_altstack.c) */
		if (rp_bp_traps_sigill())
			sigdelset(&mine.sa_mask, SIGILL); /* a trap in the handler must not kill */
		mine.sa_sigaction = trampoline;
		give = &mine;
		if (!at_exit)
			at_exit = atexit(flush_at_exit) == 0;
	}
	return install(sig, act, give, old);
}

/* BSD semantics, as glibc's signal(): the handler stays, system calls restart. */
sighandler_t signal(int sig, sighandler_t fn)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sig > 0 && sig < _NSIG)
		sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* ITIMER_PROF raises SIGPROF, the recorder's. ITIMER_REAL and ITIMER_VIRTUAL work;
 * their signals are reported as above when they reach a handler. */
int setitimer(__itimer_which_t which, const struct itimerval *v, struct itimerval *old)
{
	if (which == ITIMER_PROF && runtime_on() && v) {
		fputs("libreplay: setitimer(ITIMER_PROF): the profiling timer is the recorder's "
		      "time slice; not available to the program\n", stderr);
		errno = EINVAL;
		return -1;
	}
	return (int)rp_syscall(SYS_setitimer, which, v, old);
}
