/* pt_signal.c: signals with one kernel thread. The signal mask is the process's:
 * pthread_sigmask changes it for every green thread. A signal sent to the calling
 * thread is raised; sending one to another green thread would need delivering it
 * when that thread next runs, which the layer cannot see: ENOTSUP, said on stderr. */
#include "pt_impl.h"

#include <stdio.h>
#include <unistd.h>

/* The runtime's own signals (libreplay/replay.c): the preemption tick and the
 * replay's breakpoint. Blocking them would stop recording or replay. */
static void keep_runtime_signals(sigset_t *set)
{
	sigdelset(set, SIGPROF);
	sigdelset(set, SIGRTMIN + 7);
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;
	if (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
		return EINVAL;
	if (set && how != SIG_UNBLOCK) {
		copy = *set;
		keep_runtime_signals(&copy);
		set = &copy;
	}
	int saved = errno;
	int err = sigprocmask(how, set, old) ? errno : 0;
	errno = saved;
	return err;
}

static int check(pthread_t thread, int sig)
{
	struct pt_thread *pt = pt_find(pt_sched(thread));
	if (sig < 0 || sig >= _NSIG)
		return EINVAL;
	if (pt && pt->exited)
		return ESRCH;
	if (sig == 0 || pt_sched(thread) == sched_current())
		return 0;
	fprintf(stderr, "libreplay: signal %d sent to another thread (%d): not supported, "
			"green threads share one kernel thread\n",
		sig, sched_thread_id(pt_sched(thread)));
	return ENOTSUP;
}

int pthread_kill(pthread_t thread, int sig)
{
	int err = check(thread, sig);
	if (err || sig == 0)
		return err;
	int saved = errno;
	err = raise(sig) ? errno : 0;
	errno = saved;
	return err;
}

int pthread_sigqueue(pthread_t thread, int sig, const union sigval value)
{
	int err = check(thread, sig);
	if (err || sig == 0)
		return err;
	int saved = errno;
	err = sigqueue(getpid(), sig, value) ? errno : 0;
	errno = saved;
	return err;
}
