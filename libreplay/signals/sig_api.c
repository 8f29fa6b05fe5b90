/* sig_api.c: signal masks and signals sent within the program. Each thread has its
 * own mask (pthread_sigmask; new threads inherit their creator's); the kernel's
 * mask, which all green threads share, follows the last pthread_sigmask call, so
 * signals from outside the process are blocked as the program last asked.
 * pthread_kill, pthread_sigqueue, raise and kill aimed at our own process go through
 * the layer's queues (sig_deliver.c); sigwait, sigwaitinfo, sigtimedwait, sigsuspend and pause wait
 * for them, blocking only the calling thread, and also take a signal the kernel
 * holds pending (one the program sent the process with kill, say). */
#include "signals/signals.h"
#include "inputs/inputs.h"

#include <dlfcn.h>

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The runtime's own signals (engine/schedule/record.c, engine/schedule/replay.c): the preemption tick and the
 * replay's breakpoint. Blocking them would stop recording or replay. */
static void keep_runtime_signals(sigset_t *set)
{
	sigdelset(set, SIGPROF);
	sigdelset(set, SIGRTMIN + 6);
	sigdelset(set, SIGRTMIN + 7);
}

static uint64_t bits_of(const sigset_t *set)
{
	uint64_t m = 0;
	for (int sig = 1; sig < _NSIG && sig <= 64; sig++)
		if (sigismember(set, sig) == 1)
			m |= pt_sigbit(sig);
	return m;
}

static void set_of(uint64_t m, sigset_t *set)
{
	sigemptyset(set);
	for (int sig = 1; sig < _NSIG && sig <= 64; sig++)
		if (m & pt_sigbit(sig))
			sigaddset(set, sig);
}

/* Signals no mask holds back. */
static const uint64_t unblockable = 1ull << (SIGKILL - 1) | 1ull << (SIGSTOP - 1);

/* The kernel's mask: the thread's (bits), but the runtime's signals and the replay's
 * trap byte's SIGILL (the thread's mask holds it, not the kernel's). */
static void kernel_mask(uint64_t bits)
{
	sigset_t kernel;
	set_of(bits, &kernel);
	keep_runtime_signals(&kernel);
	if (rp_bp_traps_sigill())
		sigdelset(&kernel, SIGILL); /* the thread's mask holds it, not the kernel's */
	if (rp_audit_on)
		sigdelset(&kernel, SIGSYS); /* --syscall-audit's trap (engine/ending/audit.c) */
	int saved = errno;
	rp_sigprocmask(SIG_SETMASK, &kernel, NULL);
	errno = saved;
}

/* Main's mask is the one the process started with. */
__attribute__((constructor(104))) static void main_mask(void)
{
	sigset_t set;
	if (rp_sigprocmask(SIG_SETMASK, NULL, &set) == 0)
		pt_self()->sigmask = bits_of(&set);
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	if (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
		return EINVAL;
	struct pt_thread *self = pt_self();
	if (old)
		set_of(self->sigmask, old);
	if (!set)
		return 0;
	sigset_t copy = *set;
	keep_runtime_signals(&copy);
	uint64_t bits = bits_of(&copy) & ~unblockable;
	if (how == SIG_BLOCK)
		self->sigmask |= bits;
	else if (how == SIG_UNBLOCK)
		self->sigmask &= ~bits;
	else
		self->sigmask = bits;
	kernel_mask(self->sigmask);
	/* Unblocked signals pending for this thread are delivered before we return. */
	pt_signals_check(self);
	return 0;
}

/* glibc's sigprocmask is its pthread_sigmask for the calling thread; ours too, so a
 * program that blocks signals with it blocks them for its green thread, and cannot
 * block the runtime's own. */
int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int err = pthread_sigmask(how, set, old);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int sigpending(sigset_t *set)
{
	if (sched_thread_id(sched_current()) == 0)
		return (int)rp_syscall(SYS_rt_sigpending, set, _NSIG / 8);
	sigset_t kernel;
	if (rp_syscall(SYS_rt_sigpending, &kernel, _NSIG / 8))
		return -1;
	set_of(pt_self()->sigpending | bits_of(&kernel), set);
	return 0;
}

/* The record of a thread that may receive a signal; ESRCH if it is gone. */
static int target(pthread_t thread, int sig, struct pt_thread **out)
{
	if (sig < 0 || sig >= _NSIG)
		return EINVAL;
	struct pt_thread *pt = pt_find(pt_sched(thread));
	if (!pt)
		return ESRCH;
	/* Exited, not joined: its id is still valid; the signal goes nowhere (glibc 2.34
	 * and later: 0, not ESRCH). */
	*out = pt->exited ? NULL : pt;
	return 0;
}

/* Has the program a handler for sig? If not, the kernel acts for us (default action:
 * the whole process is concerned; ignored: nothing happens). */
static bool handled(int sig)
{
	struct sigaction sa;
	return sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL &&
	       sa.sa_handler != SIG_IGN;
}

static int kernel_raise(int sig)
{
	int saved = errno;
	int err = rp_syscall(SYS_tgkill, (pid_t)rp_syscall(SYS_getpid), (pid_t)rp_syscall(SYS_gettid), sig)
			  ? errno : 0;
	errno = saved;
	return err;
}

static int send(pthread_t thread, int sig, int code, union sigval value)
{
	struct pt_thread *pt;
	struct sched_thread *t = pt_sched(thread);
	/* The caller always has a record (pt_self makes one for a thread the layer
	 * did not create). */
	if (t == sched_current() && sig > 0 && sig < _NSIG)
		pt_self();
	int err = target(thread, sig, &pt);
	if (err || sig == 0 || !pt)
		return err;
	/* The runtime itself (outside the run), or a signal only the kernel can act on
	 * for the caller: straight to it, as glibc does. */
	if (sched_thread_id(sched_current()) == 0 || (t == sched_current() && !handled(sig)))
		return kernel_raise(sig);
	return sig_send(t, pt, sig, code, value);
}

int pthread_kill(pthread_t thread, int sig)
{
	return send(thread, sig, SI_TKILL, (union sigval){0});
}

int pthread_sigqueue(pthread_t thread, int sig, const union sigval value)
{
	return send(thread, sig, SI_QUEUE, value);
}

int raise(int sig)
{
	int err = send(pthread_self(), sig, SI_TKILL, (union sigval){0});
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* The thread a signal sent to the whole process goes to: one waiting for it in
 * sigwait, else the caller if it does not block it, else the first that does not
 * (in id order), else the caller (it stays pending there). */
static struct sched_thread *process_target(int sig)
{
	uint64_t bit = pt_sigbit(sig);
	struct sched_thread *cur = sched_current(), *free_one = NULL;
	for (struct sched_thread *t = sched_thread_next(NULL); t; t = sched_thread_next(t)) {
		struct pt_thread *pt = pt_find(t);
		struct sched_thread_info info;
		sched_thread_info(t, &info);
		if (!pt || pt->exited || info.state == SCHED_EXITED)
			continue;
		if (pt->waiting == PT_WAIT_SIGNAL && (pt->sigwaiting & bit))
			return t;
		if (!free_one && !(pt->sigmask & bit))
			free_one = t;
	}
	if (!(pt_self()->sigmask & bit))
		return cur;
	return free_one ? free_one : cur;
}

/* A signal sent to our own process (kill, sigqueue): one of its threads takes it, as
 * the kernel would choose one (deterministically here). 0 or -1 with errno when the
 * layer delivered it; TO_KERNEL when the kernel must act (another process, a signal
 * with its default action or ignored, no green thread running). */
#define TO_KERNEL 1
static int send_to_process(pid_t real, int sig, int code, union sigval value)
{
	bool self = real == (pid_t)rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
	if (!self || sig <= 0 || sig >= _NSIG || sched_thread_id(sched_current()) == 0 ||
	    pt_in_scheduler())
		return TO_KERNEL;
	struct sched_thread *t = process_target(sig);
	struct pt_thread *pt = pt_find(t);
	if (!handled(sig) && !(pt->waiting == PT_WAIT_SIGNAL && (pt->sigwaiting & pt_sigbit(sig))))
		return TO_KERNEL; /* its default action, or ignored */
	int err = sig_send(t, pt, sig, code, value);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* tgkill with the recorded ids the program saw (in_ids.c). To our own process and
 * kernel thread (gettid: every green thread has the one) it is raise(): the calling
 * green thread's masks and queue; anything else is the kernel's. */
int tgkill(pid_t tgid, pid_t tid, int sig)
{
	pid_t real_tgid = in_real_id(tgid), real_tid = in_real_id(tid);
	if (real_tgid != (pid_t)rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0) ||
	    real_tid != (pid_t)rp_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0) || sig <= 0 ||
	    sig >= _NSIG || sched_thread_id(sched_current()) == 0 || pt_in_scheduler())
		return (int)rp_syscall(SYS_tgkill, real_tgid, real_tid, sig);
	return raise(sig);
}

/* A signal to one other process (a child, most often) is an effect on the world, like
 * making a child (pt_fork.c): recording, it is sent and its result logged; replaying,
 * the logged result comes back and nothing is sent (the replay made no child, and the
 * pid may be another process's now). Groups (pid 0, below -1) and -1 go to the kernel. */
static bool to_other_process(pid_t pid, pid_t real)
{
	return pid > 0 && real != (pid_t)rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

int kill(pid_t pid, int sig)
{
	/* getpid() gives the program the recorded pid in a replay (in_ids.c); the kernel
	 * wants the real one. */
	pid_t real = pid < -1 ? -in_real_id(-pid) : in_real_id(pid);
	int r;
	if (to_other_process(pid, real)) {
		if (pt_outside_replay(PT_CALL_KILL, &r))
			return r;
		r = (int)rp_syscall(SYS_kill, real, sig);
		pt_outside_record(PT_CALL_KILL, r, errno);
		return r;
	}
	r = send_to_process(real, sig, SI_USER, (union sigval){0});
	return r == TO_KERNEL ? (int)rp_syscall(SYS_kill, real, sig) : r;
}

int sigqueue(pid_t pid, int sig, const union sigval value)
{
	pid_t real = in_real_id(pid);
	int r;
	bool other = to_other_process(pid, real);
	if (other && pt_outside_replay(PT_CALL_SIGQUEUE, &r))
		return r;
	if (!other && (r = send_to_process(real, sig, SI_QUEUE, value)) != TO_KERNEL)
		return r;
	static int (*libc_sigqueue)(pid_t, int, const union sigval);
	if (!libc_sigqueue)
		libc_sigqueue = (int (*)(pid_t, int, const union sigval))dlsym(RTLD_NEXT, "sigqueue");
	if (!libc_sigqueue)
		rp_fatal("cannot find the C library's sigqueue");
	r = libc_sigqueue(real, sig, value);
	if (other)
		pt_outside_record(PT_CALL_SIGQUEUE, r, errno);
	return r;
}

/* Is sigsuspend or pause to go to the kernel? When the caller is the only thread,
 * only a signal from outside (a timer, say) can end the wait: the kernel's wait is
 * the right one, unless such signals are logged (recording: delivered where the log
 * says, engine/schedule/async.c) or come from the log (replaying): then the thread
 * waits as any other, and the scheduler, every thread blocked, waits for the signal
 * (or, replaying, takes it from the log). */
static bool alone(void)
{
	struct sched_thread *cur = sched_current();
	if (sched_thread_id(cur) == 0 || pt_in_scheduler())
		return true;
	if (rp_async_defers() || rp_replaying)
		return false;
	for (struct sched_thread *t = sched_thread_next(NULL); t; t = sched_thread_next(t)) {
		struct sched_thread_info info;
		sched_thread_info(t, &info);
		if (t != cur && info.state != SCHED_EXITED)
			return false;
	}
	return true;
}

/* Wait until a signal in `set` is pending for self (or deadline, on MONOTONIC: EAGAIN).
 * A cancellation point. Returns 0 or EAGAIN. */
static int wait_for(struct pt_thread *self, uint64_t set, const struct timespec *deadline)
{
	while (!(self->sigpending & set)) {
		pt_testcancel(self);
		self->sigwaiting = set;
		pt_wait_begin(self, PT_WAIT_SIGNAL);
		int err = sched_block(&self->sigwaitq, deadline, CLOCK_MONOTONIC);
		self->waiting = PT_WAIT_NONE;
		if (err == PT_EINTERRUPTED)
			pt_testcancel(self);
		if (err == ETIMEDOUT && !(self->sigpending & set))
			return EAGAIN;
	}
	return 0;
}

/* Take a signal of `set`: the thread's own first, then one the kernel holds. */
static bool take(struct pt_thread *self, const sigset_t *set, siginfo_t *info)
{
	if (sig_take(self, bits_of(set), info))
		return true;
	static const struct timespec now = {0, 0};
	int saved = errno;
	int sig = (int)rp_syscall(SYS_rt_sigtimedwait, set, info, &now, _NSIG / 8);
	errno = saved;
	return sig > 0;
}

/* sigtimedwait with timeout NULL: wait for ever. */
int sigtimedwait(const sigset_t *restrict set, siginfo_t *restrict info,
		 const struct timespec *restrict timeout)
{
	siginfo_t local;
	if (!info)
		info = &local;
	if (sched_thread_id(sched_current()) == 0)
		return (int)rp_syscall(SYS_rt_sigtimedwait, set, info, timeout, _NSIG / 8);
	if (timeout && (!pt_nsec_ok(timeout) || timeout->tv_sec < 0)) {
		errno = EINVAL;
		return -1;
	}
	struct pt_thread *self = pt_self();
	struct timespec deadline;
	if (timeout)
		pt_deadline_in(timeout->tv_sec, timeout->tv_nsec, &deadline);
	pt_testcancel(self);
	while (!take(self, set, info)) {
		if (wait_for(self, bits_of(set), timeout ? &deadline : NULL) == EAGAIN &&
		    !take(self, set, info)) {
			errno = EAGAIN;
			return -1;
		}
	}
	pt_signals_check(self);
	return info->si_signo;
}

int sigwaitinfo(const sigset_t *restrict set, siginfo_t *restrict info)
{
	return sigtimedwait(set, info, NULL);
}

int sigwait(const sigset_t *restrict set, int *restrict sig)
{
	int saved = errno;
	int r = sigtimedwait(set, NULL, NULL);
	int err = r < 0 ? errno : 0;
	errno = saved;
	if (r > 0)
		*sig = r;
	return err;
}

int sigsuspend(const sigset_t *mask)
{
	sigset_t copy = *mask;
	keep_runtime_signals(&copy);
	if (alone())
		return (int)rp_syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
	struct pt_thread *self = pt_self();
	uint64_t saved = self->sigmask;
	self->sigmask = bits_of(&copy) & ~unblockable;
	pt_testcancel(self);
	/* The kernel's mask is the last mask set (pthread_sigmask): this one while it
	 * waits, so that a signal from outside it lets through comes (to a handler, or
	 * its default action) and every thread blocked waits for it (rp_signal_waiters:
	 * not a deadlock). */
	kernel_mask(self->sigmask);
	rp_signal_waiters++;
	wait_for(self, ~self->sigmask, NULL);
	rp_signal_waiters--;
	sig_deliver(self);
	self->sigmask = saved;
	kernel_mask(saved);
	errno = EINTR;
	return -1;
}

int pause(void)
{
	sigset_t mask;
	set_of(pt_self()->sigmask, &mask);
	return sigsuspend(&mask);
}
