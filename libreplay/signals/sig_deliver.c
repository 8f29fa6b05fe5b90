/* sig_deliver.c: signals one thread of the program sends another. All green
 * threads share one kernel thread, so the kernel cannot aim a signal at one of them:
 * the layer keeps each thread's mask and queue and runs the handler itself, in the
 * target thread, at a point that depends only on the program's calls (so a replay
 * runs it at the same instruction count):
 *
 * - at once, if the target is the sender (pthread_kill(pthread_self(), ...), raise);
 * - when the target unblocks it (pthread_sigmask, sigsuspend);
 * - if the target is blocked in a sleep or sem_wait, that wait ends (EINTR) and the
 *   handler runs first; in a condition variable wait (with the mutex released), a
 *   mutex or rwlock wait or a join, the handler runs and the wait goes on, as in
 *   glibc; in a blocking system call (io_park.c) or a futex wait (io_futex.c), the call
 *   fails with EINTR after the handler or, with SA_RESTART where Linux restarts it,
 *   waits again; sigwait-style calls and pause take or run it. An ignored signal
 *   (SIG_IGN, or SIG_DFL and ignored by default) ends no wait;
 * - otherwise at the target's next delivery point: the start and the end of a
 *   cancellation point, the end of any other blocking call of the layer,
 *   sched_yield, pthread_testcancel, pthread_mutex_lock (also before it waits), the
 *   rwlock locks (before they wait), or when it resumes from a preemption (a thread
 *   that computes without calling anything: the handler runs where the time slice
 *   interrupted it, as a kernel's signal would; the replay resumes it at the same
 *   count and runs it there again).
 * An SA_ONSTACK handler runs on the target's own alternate stack (sig_altstack.c). */
#include "signals/signals.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* A bound on queued real-time signals per thread, as RLIMIT_SIGPENDING bounds
 * the kernel's (EAGAIN beyond). */
#define PT_SIGQ_MAX 1024

static unsigned queued(const struct pt_thread *pt)
{
	unsigned n = 0;
	for (const struct pt_sigq *q = pt->sigq; q; q = q->next)
		n++;
	return n;
}

/* Queue info for pt; false if it cannot be (the bound reached, no memory: err). A
 * standard signal already pending is not queued twice; real-time ones queue. */
static bool enqueue(struct pt_thread *pt, const siginfo_t *info, int *err)
{
	int sig = info->si_signo;
	uint64_t bit = pt_sigbit(sig);
	if ((pt->sigpending & bit) && sig < SIGRTMIN)
		return true;
	if (queued(pt) >= PT_SIGQ_MAX) {
		*err = EAGAIN;
		return false;
	}
	struct pt_sigq *q = calloc(1, sizeof *q);
	if (!q) {
		*err = ENOMEM;
		return false;
	}
	q->info = *info;
	struct pt_sigq **end = &pt->sigq;
	while (*end)
		end = &(*end)->next;
	*end = q;
	pt->sigpending |= bit;
	pt_signals_queued++;
	/* The layers below deliver through these: set before the first signal is
	 * pending, the only time they are called. */
	pt_deliver_hook = sig_deliver;
	rp_resumed_hook = sig_resumed;
	return true;
}

/* t, not running (or waiting while the scheduler idles), got sig: wake or interrupt
 * it if that is due. */
static void notify(struct sched_thread *t, struct pt_thread *pt, int sig)
{
	uint64_t bit = pt_sigbit(sig);
	if (pt->waiting == PT_WAIT_SIGNAL) {
		if (pt->sigwaiting & bit)
			sched_wake_one(&pt->sigwaitq); /* it alone waits there */
	} else if (!(pt->sigmask & bit) && sig_interrupts(sig)) {
		/* Sleeps and semaphore waits end with EINTR, system calls as io_call
		 * and io_futex say; in a join, a mutex or a condvar wait (without its
		 * mutex) the handler runs and the wait goes on, as in glibc; an
		 * ignored signal interrupts nothing. */
		pt_interrupt(t, pt, PT_ESIGNALED);
	}
}

int sig_send(struct sched_thread *t, struct pt_thread *pt, int sig, int code,
		   union sigval value)
{
	siginfo_t info;
	memset(&info, 0, sizeof info);
	info.si_signo = sig;
	info.si_code = code;
	info.si_pid = getpid();
	info.si_uid = getuid();
	info.si_value = value;
	int err = 0;
	if (!enqueue(pt, &info, &err))
		return err;
	if (t == sched_current())
		pt_signals_check(pt);
	else
		notify(t, pt, sig);
	return 0;
}

/* Who takes a signal from outside, as the kernel picks a thread of a process: one
 * waiting for it in sigwait or sigsuspend, else the running thread (running: at a
 * counting point) unless it blocks it, else the first thread that does not, else
 * the first thread (pending there until it unblocks it). Depends only on the
 * threads' state, the same in a replay at the same point. */
static struct sched_thread *async_target(int sig, bool running)
{
	uint64_t bit = pt_sigbit(sig);
	struct sched_thread *cur = sched_current(), *first = NULL, *open = NULL;
	for (struct sched_thread *t = sched_thread_next(NULL); t; t = sched_thread_next(t)) {
		struct pt_thread *pt = sched_thread_id(t) ? pt_find(t) : NULL;
		if (!pt || pt->exited)
			continue;
		if (pt->waiting == PT_WAIT_SIGNAL && (pt->sigwaiting & bit))
			return t;
		if (!first)
			first = t;
		if (!open && !(pt->sigmask & bit))
			open = t;
	}
	struct pt_thread *self = running && sched_thread_id(cur) ? pt_find(cur) : NULL;
	if (self && !self->exited && !(self->sigmask & bit))
		return cur;
	return open ? open : first;
}

void sig_async(const siginfo_t *si, bool running)
{
	int sig = si->si_signo;
	if (sig <= 0 || sig > 64)
		return;
	struct sched_thread *t = async_target(sig, running);
	struct pt_thread *pt = t ? pt_find(t) : NULL;
	int err;
	if (!pt || !enqueue(pt, si, &err))
		return; /* (no thread left, or its queue full: as the kernel drops it) */
	/* The running thread runs its handlers next (rp_resumed_hook, the caller's). */
	if (!(running && t == sched_current()))
		notify(t, pt, sig);
}

/* Unlink the first queued signal whose bit is in set, lowest signal number first. */
static struct pt_sigq *unqueue(struct pt_thread *pt, uint64_t set)
{
	uint64_t ready = pt->sigpending & set;
	if (!ready)
		return NULL;
	int sig = __builtin_ctzll(ready) + 1;
	struct pt_sigq **p = &pt->sigq;
	while ((*p)->info.si_signo != sig)
		p = &(*p)->next;
	struct pt_sigq *q = *p;
	*p = q->next;
	pt_signals_queued--;
	pt->sigpending &= ~pt_sigbit(sig);
	for (struct pt_sigq *r = pt->sigq; r; r = r->next)
		if (r->info.si_signo == sig)
			pt->sigpending |= pt_sigbit(sig); /* more of a real-time signal */
	return q;
}

bool sig_take(struct pt_thread *self, uint64_t set, siginfo_t *info)
{
	struct pt_sigq *q = unqueue(self, set);
	if (!q)
		return false;
	if (info)
		*info = q->info;
	free(q);
	return true;
}

static bool ignored_by_default(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH;
}

bool sig_interrupts(int sig)
{
	struct sigaction sa;
	if (sigaction(sig, NULL, &sa) != 0)
		return true;
	return sa.sa_handler != SIG_IGN && !(sa.sa_handler == SIG_DFL && ignored_by_default(sig));
}

/* The default action of a signal nobody handles: nothing for those whose default
 * is to be ignored, else what the kernel does (end the process, stop it). */
static void default_action(int sig)
{
	if (ignored_by_default(sig))
		return;
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	rp_sigprocmask(SIG_UNBLOCK, &one, NULL);
	rp_syscall(SYS_tgkill, (pid_t)rp_syscall(SYS_getpid), (pid_t)rp_syscall(SYS_gettid), sig);
}

static uint64_t mask_bits(const sigset_t *set)
{
	uint64_t m = 0;
	for (int sig = 1; sig < _NSIG && sig <= 64; sig++)
		if (sigismember(set, sig) == 1)
			m |= pt_sigbit(sig);
	return m;
}

/* Run one signal's disposition in self, as the kernel would on return to it. */
static enum pt_handled deliver(struct pt_thread *self, siginfo_t *info)
{
	int sig = info->si_signo;
	struct sigaction sa;
	sigaction(sig, NULL, &sa);
	if (sa.sa_handler == SIG_IGN)
		return PT_HANDLED_NONE;
	if (sa.sa_handler == SIG_DFL) {
		default_action(sig);
		return PT_HANDLED_NONE;
	}
	uint64_t saved = self->sigmask;
	self->sigmask |= mask_bits(&sa.sa_mask);
	if (!(sa.sa_flags & SA_NODEFER))
		self->sigmask |= pt_sigbit(sig);
	if (sa.sa_flags & SA_RESETHAND) {
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
	}
	int saved_errno = errno; /* a handler may change errno: the kernel's restore it */
	ucontext_t uc; /* where the thread is: in the layer, about to return */
	if (sa.sa_flags & SA_SIGINFO)
		getcontext(&uc);
	sig_run_handler(self, &sa, sig, info, sa.sa_flags & SA_SIGINFO ? &uc : NULL);
	errno = saved_errno;
	/* As sigreturn does, whatever the handler did to the mask. */
	self->sigmask = saved;
	return sa.sa_flags & SA_RESTART ? PT_HANDLED_RESTART : PT_HANDLED_NORESTART;
}

enum pt_handled sig_deliver(struct pt_thread *self)
{
	/* A handler may send more, or unblock some: look again after each. The first
	 * handler decides about the interrupted call, as the kernel's first one does. */
	enum pt_handled first = PT_HANDLED_NONE;
	struct pt_sigq *q;
	while ((q = unqueue(self, ~self->sigmask))) {
		siginfo_t info = q->info;
		free(q);
		enum pt_handled h = deliver(self, &info);
		if (first == PT_HANDLED_NONE)
			first = h;
	}
	return first;
}

void sig_resumed(uint64_t *counter)
{
	rp_async_counter_soon(counter); /* a signal from outside due: delivered soon */
	if (!pt_signals_queued || sched_thread_id(sched_current()) == 0)
		return;
	struct pt_thread *self = pt_find(sched_current());
	if (!self || !(self->sigpending & ~self->sigmask))
		return;
	/* The handlers are entered from here as from foreign code: they take the count
	 * from __sic_home and leave it there when they return. The interrupted code
	 * may have published its count already (before a call): home stays equal to
	 * the counter. */
	__sic_home = *counter;
	sig_deliver(self);
	*counter = __sic_home;
}
