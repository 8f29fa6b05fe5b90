/*
 * session.c: a session of the program under libreplay: started from main() before
 * the program's main runs as green thread 1 (recording, replaying, or neither), and
 * ended by exit or by a fatal signal, whose handler writes the log's END (or checks
 * the recording's), prints the crash report and dies of the same signal. The
 * helpers every room shares are in core/core.c.
 */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- the end ---------------------------------------------------------------------------- */

/* The program ends: the recording's END, or the replay's check of it. */
static void finish(int how, int value, const ucontext_t *uc)
{
	if (rp_replaying)
		rp_replay_check_end(how, value, uc);
	else
		rp_record_end(how, value, uc);
}

/* Set once the log has its END (or the replay has checked it): exit's handler and
 * _exit, whichever comes first, end the log; the other stands aside. */
static bool ended;
static bool forked;

static void end_log(int how, int value)
{
	if (ended)
		return;
	ended = true;
	rp_record_stop_timer();
	rp_races_end();
	finish(how, value, NULL);
	rp_record_close();
}

static void on_exit_handler(int status, void *arg)
{
	end_log(RP_LOG_EXITED, status & 0xff);
}

/* _exit, _Exit, quick_exit, syscall(SYS_exit_group): the process ends without exit's
 * handlers, so on_exit_handler never runs; the log gets the same END with the status
 * (the replay checks it the same way), then the caller goes to the kernel. Nothing in
 * a child of fork() (the log is the parent's), nor outside a session. */
bool rp_session_logged(void)
{
	return rp_opts.mode != RP_MODE_OFF && rp_session_started && !forked && !ended;
}

void rp_session_exit_now(int status)
{
	char why[16];
	snprintf(why, sizeof why, "exit:%d", status & 0xff);
	rp_trace_end(why, NULL); /* its own exit handler is skipped too (a child has none) */
	if (rp_session_logged())
		end_log(RP_LOG_EXITED, status & 0xff);
}

/* An exec about to replace the process image: END says so (the replay checks it).
 * Recording, the log and the trace are whole before the exec and end there, but the
 * exec may still fail (ENOEXEC, E2BIG, ETXTBSY, ENOMEM: after the checks pt_exec.c
 * can make): the log is marked first and stays open (close-on-exec, as its lock),
 * and a failed exec takes the END back, the time slice on again (an ITIMER_PROF
 * outlives an exec: it is off meanwhile). */
static bool exec_pending;

void rp_session_exec_begin(void)
{
	if (!rp_session_logged() || rp_replaying || !rp_writer)
		return;
	rp_record_stop_timer();
	exec_pending = rp_record_mark();
	if (!exec_pending)
		rp_record_resume_timer();
}

void rp_session_exec_now(void)
{
	rp_trace_end("exec", NULL);
	if (!rp_session_logged())
		return;
	if (!exec_pending) {
		end_log(RP_LOG_EXECED, 0);
		return;
	}
	ended = true;
	finish(RP_LOG_EXECED, 0, NULL);
}

void rp_session_exec_failed(void)
{
	if (!exec_pending)
		return;
	exec_pending = false;
	ended = false;
	if (!rp_record_rewind()) { /* the END stays: the log cannot go on */
		ended = true;
		rp_record_close();
		return;
	}
	rp_trace_resume();
	rp_record_resume_timer();
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};

#define RP_CRASH_STACK_SIZE (256u << 10) /* the crash report's libunwind needs some */

static int fatal_onstack; /* SA_ONSTACK once the crash stack is set up */

static void on_fatal(int sig, siginfo_t *si, void *ucv)
{
	rp_dying = 1;
	rp_record_stop_timer();
	rp_races_end(); /* a failing run's races: how many, the first (--races) */
	finish(RP_LOG_SIGNALED, sig, ucv);
	rp_crash(sig, si, ucv);
	rp_crash_reraise(sig);
}

void rp_session_fatal(int sig, siginfo_t *si, void *ucv)
{
	on_fatal(sig, si, ucv);
}

/* ---- the other signals that end a process -------------------------------------------- */

/* Catchable signals whose default action ends the process (signal(7)), the faults
 * above aside. While the program leaves one at SIG_DFL the runtime's handler stands
 * in (the signals layer keeps it there and shows the program SIG_DFL): the log gets
 * END with the signal, then the process dies of it. A program's own handler runs
 * instead, as always. Real-time signals too, but SIGRTMIN+6 and +7, the runtime's. */
static bool ending_signal(int sig)
{
	switch (sig) {
	case SIGHUP: case SIGINT: case SIGQUIT: case SIGUSR1: case SIGUSR2: case SIGPIPE:
	case SIGALRM: case SIGTERM: case SIGSTKFLT: case SIGXCPU: case SIGXFSZ: case SIGVTALRM:
	case SIGIO: case SIGPWR:
		return true;
	default:
		return sig >= SIGRTMIN && sig <= SIGRTMAX && sig != SIGRTMIN + 6 && sig != SIGRTMIN + 7;
	}
}

static bool self_sent(const siginfo_t *si)
{
	return (si->si_code == SI_USER || si->si_code == SI_TKILL || si->si_code == SI_QUEUE) &&
	       si->si_pid == (pid_t)rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

/* A signal from outside deferred out of a writer call: the writer raises it again,
 * from this process, and it must still count as from outside. */
static volatile sig_atomic_t deferred_outside;

static void on_ending(int sig, siginfo_t *si, void *ucv)
{
	/* Inside a writer call (a preemption being logged): after it, again. */
	if (rp_writer && rp_log_busy(rp_writer)) {
		if (!self_sent(si))
			deferred_outside = sig;
		rp_log_defer_signal(rp_writer, sig);
		return;
	}
	bool outside = !self_sent(si) || deferred_outside == sig;
	deferred_outside = 0;
	if (rp_dying)
		rp_session_die_of(sig);
	rp_dying = 1;
	rp_record_stop_timer();
	if (rp_replaying && outside)
		rp_session_die_of(sig); /* stopping a replay (^C): it ends here, the log has no say */
	if (!rp_replaying && rp_writer && outside)
		rp_record_signal_stop(sig, ucv); /* where: the replay stops there too */
	finish(RP_LOG_SIGNALED, sig, ucv);
	char why[16] = "SIG";
	const char *abbrev = sigabbrev_np(sig);
	strncat(why, abbrev ? abbrev : "?", sizeof why - 4);
	rp_trace_end(why, ucv);
	rp_session_die_of(sig);
}

/* The handler that stands in for SIG_DFL (signals layer): true and *sa filled for a
 * signal that ends the process, while recording or replaying. */
bool rp_session_default_action(int sig, struct sigaction *sa)
{
	if (rp_opts.mode == RP_MODE_OFF || !rp_session_started)
		return false;
	bool fatal = false;
	for (size_t k = 0; k < sizeof fatal_signals / sizeof fatal_signals[0]; k++)
		fatal |= fatal_signals[k] == sig;
	if (!fatal && !ending_signal(sig))
		return false;
	memset(sa, 0, sizeof *sa);
	sa->sa_sigaction = fatal ? on_fatal : on_ending;
	sa->sa_flags = SA_SIGINFO | SA_RESTART | (fatal ? SA_RESETHAND | SA_NODEFER | fatal_onstack : SA_NODEFER);
	sigemptyset(&sa->sa_mask);
	return true;
}

bool rp_session_is_default_action(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && (sa->sa_sigaction == on_fatal || sa->sa_sigaction == on_ending);
}

/* ---- starting a session ----------------------------------------------------------------- */

/* A child of fork() is not what the log describes: it runs on unrecorded, with no
 * time slice, and leaves the log, the breakpoint and the trace to the parent. The
 * thread that forked goes on with a fresh counter that does not run out (it was armed
 * for the parent's next record or slice; its count is published, fork() being a
 * call out of instrumented code). */
void rp_session_forked(void)
{
	forked = true;
	rp_bp_forget();
	rp_record_forget();
	rp_replay_forget();
	rp_trace_forget();
	rp_counting = false;
	rp_hang_due = 0;
	if (rp_cur->tid != 0) {
		uint64_t now = rp_cur->offset - __sic_home;
		__sic_home = rp_sic_start_value();
		rp_cur->offset = now + __sic_home;
		rp_cur->preempt_soon = rp_cur->soon = false;
		rp_cur->soon_pc = rp_cur->exit_pc = 0;
	}
}

/* Called from main() before the program's main runs as green thread 1. */
/* The rooms below reach the ones above through rp_up (core.h): filled before anything
 * runs that could use it (the thread hooks, the flags that send an overflow up). */
static void rooms_join(void)
{
	rp_up = (struct rp_room_hooks){
		.replay_overflow = rp_replay_overflow,
		.hang_overflow = rp_hang_overflow,
		.count_overflow = rp_count_overflow,
		.record_overflow = rp_record_overflow,
		.async_overflow = rp_async_overflow,
		.count_thread_created = rp_count_thread_created,
		.replay_thread_exit = rp_replay_thread_exit,
		.count_switched = rp_count_switched,
		.replay_arm = rp_replay_arm,
		.count_arm = rp_count_arm,
		.debug_switched = rp_debug_switched,
		.outcome = rp_outcome,
		.outcome_same = rp_outcome_same,
		.idle_hang_check = rp_idle_hang_check,
		.count_trap = rp_count_trap,
		.count_replay_priorities = rp_count_replay_priorities,
	};
}

/* The signals that end the process and are at their default action now: held (added
 * to the mask; *was gets the mask as it was) while the session starts. */
static void hold_ending(sigset_t *was)
{
	sigset_t held;
	sigemptyset(&held);
	for (int sig = 1; sig < _NSIG; sig++) {
		struct sigaction now;
		if (ending_signal(sig) && rp_sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_DFL)
			sigaddset(&held, sig);
	}
	rp_raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, (long)&held, (long)was, _NSIG / 8, 0, 0);
}

void rp_session_start(int *argc, char ***argv, struct sched_hooks *h)
{
	rooms_join();
	rp_core_start();
	rp_session_fatal_hook = rp_session_fatal; /* breakpoint.c's SIGILL not the trap's */
	rp_threads_init(h);
	rp_decide_hooks(h);
	h->sleeper_turn = rp_count_sleeper_turn; /* --hunt's, recorded or replayed */
	if (rp_opts.mode == RP_MODE_OFF) {
		rp_crash_init(); /* a deadlock's or a hang's report has the backtraces too */
		rp_objects_started();
		rp_count_start(); /* the same preemptions, no log */
		rp_record_schedule();
		return;
	}
	/* The log exists from rp_record_start on, its handlers for the signals that end a
	 * process only from the end of this function (loading libunwind alone can take
	 * 100 ms): a signal between them left a log of its header alone, whose replay ran
	 * on unrecorded and ended otherwise. Held until the handlers are there, such a
	 * signal is delivered then, and the log gets its END like any later one. */
	sigset_t was;
	hold_ending(&was);
	if (rp_opts.mode == RP_MODE_RECORD) {
		rp_record_start(*argc, *argv);
		rp_count_start();
		rp_record_schedule();
	} else {
		rp_replay_start(argc, argv);
		if (rp_opts.races)
			rp_races_start();
		rp_debug_clock_start();
	}
	on_exit(on_exit_handler, NULL);
	rp_crash_init();
	/* What rp_crash_init loaded (libunwind and its libraries) is the recording's too:
	 * noted, for the replay's check and for replay-pack. */
	if (rp_opts.mode == RP_MODE_RECORD)
		rp_objects_record();
	rp_objects_started();
	/* A stack overflow faults with no stack left to run a handler on: the fatal
	 * handlers run on a stack of their own, so the log still gets its END and the
	 * report is printed. (Only they: a preemption must stay on its thread's stack.) */
	static stack_t alt;
	alt.ss_size = RP_CRASH_STACK_SIZE;
	alt.ss_sp = rp_malloc(alt.ss_size);
	fatal_onstack = alt.ss_sp && rp_raw_syscall(SYS_sigaltstack, (long)&alt, 0, 0, 0, 0, 0) == 0
				? SA_ONSTACK : 0;
	for (size_t k = 0; k < sizeof fatal_signals / sizeof fatal_signals[0]; k++)
		if (fatal_signals[k] != SIGILL || rp_bp_kind() != RP_BP_SOFTWARE) /* the trap's */
			rp_install_handler(fatal_signals[k], on_fatal, SA_RESETHAND | SA_NODEFER | fatal_onstack);
	/* The others that end the process, where the program left the default (not
	 * where it ignores one: nohup's SIGHUP stays ignored). */
	for (int sig = 1; sig < _NSIG; sig++) {
		struct sigaction now;
		if (ending_signal(sig) && rp_sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_DFL)
			rp_install_handler(sig, on_ending, SA_NODEFER);
	}
	rp_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&was, 0, _NSIG / 8, 0, 0);
}
