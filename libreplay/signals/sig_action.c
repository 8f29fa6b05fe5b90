/* sig_action.c: the program's handlers, behind a trampoline.
 *
 * A signal the process sends itself (raise, kill(getpid()), pthread_kill, sigqueue)
 * arrives at the call that sent it, the same in the replay; a fault arrives at its
 * instruction. Any other signal (SIGINT from a terminal, SIGTERM or SIGUSR1 from
 * another process, SIGALRM from alarm or setitimer, a timer_create timer's, SIGCHLD)
 * arrives at a moment no log record names. Recording, the trampoline of the program's
 * handler holds it (rp_async_arrived) and the engine delivers it at the next point a
 * replay can find again, logged (engine/schedule/async.c), through sig_async
 * (sig_deliver.c); a replay delivers only the log's, and drops the ones that come
 * (its own timers fire again), but a request to end from outside ends it.
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

/* A replay delivers the recording's signals from outside where the log says; one
 * that comes now is not the recording's (its timers fire again, or someone sends it):
 * dropped. A terminal's or another process's request to end (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT) ends the replay instead, so that Ctrl-C stops it. */
static void replay_outside(int sig, const siginfo_t *si)
{
	bool timer = si->si_code == SI_TIMER || (sig == SIGALRM && si->si_code == SI_KERNEL) ||
		     sig == SIGVTALRM || sig == SIGCHLD;
	bool end = sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
	if (timer || !end)
		return;
	char msg[200];
	const char *name = sigabbrev_np(sig);
	snprintf(msg, sizeof msg, "libreplay: signal %d (SIG%s) from outside ends the replay\n", sig,
		 name ? name : "?");
	say(msg);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	rp_sigaction(sig, &dfl, NULL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	rp_sigprocmask(SIG_UNBLOCK, &one, NULL);
	rp_syscall(SYS_tgkill, (pid_t)rp_syscall(SYS_getpid), (pid_t)rp_syscall(SYS_gettid), sig);
}

static void trampoline(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	bool self = (si->si_code == SI_USER || si->si_code == SI_TKILL || si->si_code == SI_QUEUE) &&
		    si->si_pid == in_real_pid();
	if (!self && rp_replaying) {
		replay_outside(sig, si);
		errno = saved;
		return;
	}
	if (!self && rp_async_defers()) {
		/* Held, and delivered where a replay can deliver it again (async.c). */
		rp_async_arrived(si, uc);
		errno = saved;
		return;
	}
	/* Sent through the kernel by the process itself, or nothing is recorded (a fork
	 * child): the handler runs here, as the kernel would run it. */
	struct sigaction a = user[sig];
	if (a.sa_flags & SA_RESETHAND) { /* the kernel's flag, which the trampoline holds */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
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
	const struct sigaction *give = act;
	if (handler) {
		mine = *act;
		mine.sa_flags |= SA_SIGINFO;
		mine.sa_flags &= ~SA_ONSTACK; /* the trampoline switches (sig_altstack.c) */
		/* A signal from outside runs the handler later (async.c), which resets it
		 * then (sig_deliver.c); the kernel must keep the trampoline meanwhile. */
		mine.sa_flags &= ~SA_RESETHAND;
		if (rp_bp_traps_sigill())
			sigdelset(&mine.sa_mask, SIGILL); /* a trap in the handler must not kill */
		/* No time slice's tick inside: one in the C library the trampoline calls
		 * (errno's address, memcpy) would take the interrupted thread's count from
		 * __sic_home, stale when the program's own code was interrupted (its count
		 * is in the signal frame); the tick comes when the trampoline returns. */
		sigaddset(&mine.sa_mask, SIGPROF);
		mine.sa_sigaction = trampoline;
		give = &mine;
		/* Where signals from outside are delivered (async.c), and the handlers run. */
		pt_deliver_hook = sig_deliver;
		rp_resumed_hook = sig_resumed;
		rp_async_hook = sig_async;
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
 * their signals are held and logged as above when they reach a handler, the old
 * value is recorded (sig_timer.c). */
int setitimer(__itimer_which_t which, const struct itimerval *v, struct itimerval *old)
{
	if (which == ITIMER_PROF && runtime_on() && v) {
		fputs("libreplay: setitimer(ITIMER_PROF): the profiling timer is the recorder's "
		      "time slice; not available to the program\n", stderr);
		errno = EINVAL;
		return -1;
	}
	int rc = (int)rp_syscall(SYS_setitimer, which, v, old);
	return old ? sig_timer_input(SIG_T_SETITIMER, rc, old, sizeof *old) : rc;
}
