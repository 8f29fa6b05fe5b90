/* signals.h: the signals layer's own interface (docs/pthread.md, "Signals"): signals
 * one green thread sends another, kept per thread (pthread/pt_impl.h's struct pt_thread:
 * mask, pending set, queue) and delivered by the layer at points that depend only on
 * the program's calls, so a replay runs each handler at the same instruction count.
 * Above the pthread layer: it uses its thread table and cancellation; the pthread
 * layer reaches its delivery through pt_deliver_hook, the engine through
 * rp_resumed_hook (both set by sig_send when it queues the first signal). */
#ifndef SIG_SIGNALS_H
#define SIG_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/session.h"
#include "pthread/pt_impl.h"

/* Recording or replaying (the flags were parsed: unit tests never parse them). */
static inline bool sig_session_on(void)
{
	return rp_opts.log_path && rp_opts.mode != RP_MODE_OFF;
}

/* sig_altstack.c: run a handler (sa's) for sig in self, on self's alternate signal
 * stack when sa has SA_ONSTACK and self has one (sigaltstack) it is not on yet.
 * uc: the context a SA_SIGINFO handler gets. */
void sig_run_handler(struct pt_thread *self, const struct sigaction *sa, int sig,
		     siginfo_t *info, void *uc) PT_HIDDEN;
/* sig_onstack.S: fn(sig, info, uc) with the stack pointer at top. */
void sig_call_on_stack(void *fn, int sig, siginfo_t *info, void *uc, void *top) PT_HIDDEN;

/* sig_timer.c: a timer call's result (rc, and the len bytes it wrote at value) as an
 * input: recording, logged and returned; replaying, the recorded one returned (value
 * filled, errno set), a different call a divergence. */
enum sig_timer_call { SIG_T_ALARM = 1, SIG_T_GETITIMER, SIG_T_SETITIMER, SIG_T_GETTIME,
		      SIG_T_SETTIME /* (kept: timer_settime is not wrapped) */, SIG_T_GETOVERRUN };
int sig_timer_input(enum sig_timer_call call, int rc, void *value, size_t len) PT_HIDDEN;

/* sig_deliver.c */
/* Queue a signal for pt (thread t) and wake or interrupt t if that is due; if t is the
 * caller, deliver at once what is unblocked. A standard signal already pending is not
 * queued twice; real-time ones queue. ENOMEM, EAGAIN (too many queued). */
int sig_send(struct sched_thread *t, struct pt_thread *pt, int sig, int code,
	     union sigval value) PT_HIDDEN;
/* A signal from outside, delivered where the log says (rp_async_hook, engine/
 * schedule/async.c): queued for the thread the kernel would pick (running: the running
 * thread is at a counting point and runs its handlers next), which is woken or
 * interrupted as sig_send does. */
void sig_async(const siginfo_t *si, bool running) PT_HIDDEN;
/* Does sig, sent to a thread blocked in a call, end the call? Not if it is ignored
 * (SIG_IGN, or SIG_DFL for a signal whose default is to ignore it). */
bool sig_interrupts(int sig) PT_HIDDEN;
/* Run the handlers of the pending signals self does not block, lowest number first
 * (pt_deliver_hook). */
enum pt_handled sig_deliver(struct pt_thread *self) PT_HIDDEN;
/* Take the lowest pending signal in set off self's queue; false if none. */
bool sig_take(struct pt_thread *self, uint64_t set, siginfo_t *info) PT_HIDDEN;
/* The running thread resumes from a preemption with its counter at *counter
 * (rp_resumed_hook). */
void sig_resumed(uint64_t *counter);

#endif
