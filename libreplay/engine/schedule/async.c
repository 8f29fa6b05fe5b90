/*
 * async.c: signals from outside the process (SIGINT from a terminal, SIGTERM or SIGUSR1
 * from another process, SIGALRM from alarm or setitimer, a timer_create timer's
 * signal, SIGCHLD) that reach a handler of the program (docs/inputs.md). The kernel
 * delivers one at a moment no record names. The recording holds it (rp_async_arrived,
 * from the trampoline of the program's handler, signals/sig_action.c) and delivers it
 * at the next point a replay can find again, as a time slice's tick is deferred
 * (record.c), and logs that point with the siginfo (a SIGNAL_AT input):
 *
 * - the running thread's next counting point whose pc the replay can stop at: the
 *   arrival makes its counter run out at its next counting point (or, in foreign code,
 *   at the first one after it comes back), and the overflow delivers
 *   (rp_async_overflow, whatever drives this run's preemptions). Where the arrival
 *   cannot touch the counter (the scheduler runs, the thread is inside its own
 *   preemption, the host runs), the next thread switched in or resumed gets it
 *   (thread.c, the signals layer's sig_resumed), or the next tick (record.c) tries
 *   again. Logged as (thread, count, pc); the replay's counter runs out at that
 *   count and the overflow there delivers it again (replay.c);
 * - while every thread waits: the idle wait holds the program's signals until it
 *   waits (ppoll's mask), so one that comes ends it, and is delivered after it (or
 *   before it, if one was due already). Logged with the scheduler's question position
 *   (decide.c), where the replay, which never waits, delivers it when every thread
 *   waits and that question is next.
 *
 * Delivering is the signals layer's (rp_async_hook): it queues the signal for one
 * thread (the running one, unless it blocks it), wakes or interrupts it as a signal
 * another thread sent would, and the running thread runs its handlers at once
 * (rp_resumed_hook) with the siginfo the kernel gave, which the log keeps. The
 * replay delivers only what the log says: the signals its own timers raise, or
 * anyone sends it, are dropped by the trampoline.
 */
#include "engine/core.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>

/* Held signals, oldest first: written by the trampoline (a signal handler), taken by
 * take_held with every signal blocked. Standard signals the kernel merged already; a
 * program that lets more than this many real-time ones come before its next counting
 * point loses the rest, said once. */
#define RP_ASYNC_HELD 64
static siginfo_t held[RP_ASYNC_HELD];
static volatile sig_atomic_t nheld, dropped_said;


bool rp_async_defers(void)
{
	return rp_writer && rp_scheduling && !rp_replaying;
}

/* The running thread t, interrupted at uc, reaches a counting point soon: its
 * counter becomes 1 there (the count stays: the offset moves), as a deferred tick
 * does (record.c); false where that cannot be arranged (the caller has checked that
 * t may be: not the scheduler's code, not inside its own preemption). Only where the
 * counter in uc is surely the thread's: at an instruction
 * of the program a preemption may stop at, or at a counting point's branch. In
 * foreign code the count is in __sic_home, but a signal that interrupts a handler of
 * the runtime (a recording's breakpoint, before it counts its own depth) finds a
 * stale one there: only the time slice's tick, which no such handler runs under,
 * moves it (foreign). */
bool rp_overflow_next(struct rp_thread *t, ucontext_t *uc, bool foreign)
{
	uintptr_t pc = rp_pc_of(uc);
	uint64_t *r15 = (uint64_t *)&uc->uc_mcontext.gregs[REG_R15];
	if (rp_sic_pc_preemptible(pc)) {
		if (*r15 > 1) {
			/* right after a publish (movq %r15, __sic_home): the reload after the
			 * call must find this counter */
			if (__sic_home == *r15)
				__sic_home = 1;
			t->offset -= *r15 - 1;
			*r15 = 1;
		}
		return true;
	}
	if (rp_sic_pc_instrumented(pc))
		return rp_overflow_soon(t, uc); /* at a counting point's branch */
	/* Foreign code: the count is in __sic_home, reloaded when the call returns
	 * (record.c's preempt_at_next_count says when that holds). */
	if (!foreign || !rp_sic_count_at_home(pc, *r15) || __sic_home <= 1)
		return false;
	t->offset -= __sic_home - 1;
	__sic_home = 1;
	return true;
}

static void overflow_soon(ucontext_t *uc, bool foreign)
{
	struct rp_thread *t = rp_cur;
	if (!uc || !rp_scheduling || t->tid == 0 || t->tick_depth || sched_busy() || rp_idling ||
	    rp_dying)
		return;
	if (rp_overflow_next(t, uc, foreign))
		t->async_soon = true;
}

void rp_async_tick(ucontext_t *uc)
{
	if (rp_async_due)
		overflow_soon(uc, true);
}

void rp_async_arrived(const siginfo_t *si, ucontext_t *uc)
{
	/* (The trampoline runs with the time slice's SIGPROF blocked: a tick in the C
	 * library it calls, this copy's memcpy say, would take the count from a stale
	 * __sic_home when the signal interrupted the program's own code.) */
	if (nheld < RP_ASYNC_HELD) {
		held[nheld] = *si;
		nheld = nheld + 1;
	} else if (!dropped_said) {
		dropped_said = 1;
		static const char msg[] = "libreplay: more than 64 signals from outside came before "
					  "the program could take them; the rest are dropped\n";
		rp_fd_say(msg, sizeof msg - 1);
	}
	rp_async_due = 1;
	overflow_soon(uc, false);
}

/* The held signals, into out (at most RP_ASYNC_HELD), with every signal blocked
 * meanwhile (the trampoline adds to them); rp_async_due is cleared. */
static size_t take_held(siginfo_t *out)
{
	sigset_t all, old;
	sigfillset(&all);
	rp_sigprocmask(SIG_BLOCK, &all, &old);
	size_t n = (size_t)nheld;
	memcpy(out, held, n * sizeof *out);
	nheld = 0;
	rp_async_due = 0;
	rp_sigprocmask(SIG_SETMASK, &old, NULL);
	return n;
}

static void log_at(uint32_t tid, uint8_t where, uint64_t count, uint64_t pc, const siginfo_t *si)
{
	uint8_t v[RP_SIGNAL_AT_LEN];
	v[0] = where;
	memcpy(v + 1, &count, 8);
	memcpy(v + 9, &pc, 8);
	memcpy(v + 17, si, sizeof *si);
	if (rp_writer)
		rp_log_input(rp_writer, tid, RP_INPUT_SIGNAL_AT, v, sizeof v);
}

/* The counter the thread goes on with after a delivery at count now, as this run's
 * preemptions want it (its offset set to match): 1 to look again at the next counting
 * point (again), else what a counting run arms, 1 for a deferred tick's preemption,
 * or a fresh one. */
static uint64_t go_on(struct rp_thread *t, uint64_t now, bool again)
{
	uint64_t counter = 0;
	t->offset = now;
	if (again || t->preempt_soon)
		counter = 1;
	else if (rp_counting)
		rp_up.count_arm(t, &counter);
	else
		counter = rp_sic_start_value();
	t->offset = now + counter;
	return counter;
}

uint64_t rp_async_overflow(uintptr_t stub_ret)
{
	struct rp_thread *t = rp_cur;
	uint64_t now = t->offset; /* the counter is 0 */
	uintptr_t pc = rp_stub_resume_pc(stub_ret);
	t->async_soon = false;
	if (!rp_async_due || !rp_async_defers() || t->tid == 0 || rp_dying)
		return go_on(t, now, false); /* (made to run out for a signal taken since) */
	siginfo_t got[RP_ASYNC_HELD];
	if (!rp_async_hook) { /* (no handler was ever installed: nothing to run) */
		take_held(got);
		return go_on(t, now, false);
	}
	if (!pc || !rp_sic_pc_preemptible(pc)) {
		t->async_soon = true;
		return go_on(t, now, true); /* a pc no replay stops at: the next point */
	}
	t->tick_depth++; /* its counter is 0 and __sic_home stale until it goes on */
	size_t n = take_held(got);
	for (size_t i = 0; i < n; i++) {
		log_at((uint32_t)t->tid, RP_STOP_EXACT, now, pc - rp_exe_base, &got[i]);
		rp_async_hook(&got[i], true);
	}
	if (rp_writer)
		rp_log_maybe_flush(rp_writer, rp_mono_ns());
	t->tick_depth--;
	uint64_t counter = go_on(t, now, false);
	if (rp_resumed_hook)
		rp_resumed_hook(&counter); /* its handlers, from here */
	return counter;
}

/* Every thread waits: deliver what is held, at this question of the scheduler's. */
static void deliver_idle(void)
{
	siginfo_t got[RP_ASYNC_HELD];
	size_t n = take_held(got);
	for (size_t i = 0; i < n && rp_async_hook; i++) {
		log_at((uint32_t)rp_cur->tid, RP_STOP_IDLE, rp_questions_asked(), 0, &got[i]);
		rp_async_hook(&got[i], false);
	}
}

/* ---- idling ------------------------------------------------------------------------------ */

volatile sig_atomic_t rp_idling;
static sigset_t idle_mask; /* the mask to wait with, while holding (holding) */
static bool holding;

bool rp_idle_begin(void)
{
	if (rp_writer) /* a SIGKILL while every thread waits loses nothing */
		rp_log_sync(rp_writer);
	holding = rp_async_defers() && rp_async_hook;
	if (holding) {
		sigset_t all;
		sigfillset(&all);
		rp_sigprocmask(SIG_BLOCK, &all, &idle_mask);
		if (rp_async_due) {
			rp_sigprocmask(SIG_SETMASK, &idle_mask, NULL);
			holding = false;
			deliver_idle();
			return false;
		}
	}
	rp_idling = 1;
	return true;
}

const sigset_t *rp_idle_mask(void)
{
	return holding ? &idle_mask : NULL;
}

void rp_idle_end(void)
{
	rp_idling = 0;
	if (!holding)
		return;
	holding = false;
	rp_sigprocmask(SIG_SETMASK, &idle_mask, NULL);
	if (rp_async_due)
		deliver_idle();
}

/* sched's idle_outside: every thread is blocked with nothing to wait for, but a
 * thread waits for a signal (sigsuspend, pause): one from outside may come
 * (to a handler, or with its default action, which ends the process). Recording,
 * wait for it; replaying, the log says whether it came here (or ended the recording,
 * or a --timeout did). */
bool rp_async_idle_outside(void)
{
	if (!rp_signal_waiters)
		return false;
	if (rp_replaying) {
		rp_up.idle_hang_check();
		rp_replay_idle_stop();
		return rp_replay_async_idle();
	}
	if (!rp_async_defers())
		return false;
	if (!rp_idle_begin())
		return true;
	while (rp_raw_syscall(SYS_ppoll, 0, 0, 0, (long)rp_idle_mask(), 8, 0) == -EINTR &&
	       !rp_async_due)
		rp_up.idle_hang_check();
	rp_idle_end();
	return true;
}
