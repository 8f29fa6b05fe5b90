/* pt_cancel.c: deferred cancellation. pthread_cancel marks the thread; it acts on
 * the request at the next cancellation point it reaches (pthread_testcancel,
 * pthread_join, pthread_cond_*wait, sem_*wait, the sleep family, sigwait and its
 * kin, sigsuspend, pause, the blocking system calls of io_rw.c, io_socket.c,
 * io_poll.c and io_epoll.c), or, if it is
 * blocked in one, when pthread_cancel wakes it there (sched_interrupt); from a condvar
 * wait it takes the mutex back and exits with it held.
 * PTHREAD_CANCEL_ASYNCHRONOUS is accepted and acted on like deferred, except that a
 * thread cancelling itself, or enabling asynchronous cancellation with a request
 * pending, exits at once. */
#include "pthread/pt_impl.h"

#include <stdio.h>

_Noreturn void pt_act_cancel(struct pt_thread *self)
{
	self->cancel_pending = false;
	pthread_exit(PTHREAD_CANCELED);
}

/* Is a thread blocked as kind in the call pt->waiting names? */
static bool blocked_in(enum pt_wait waiting, enum sched_wait_kind kind, int status)
{
	static const enum sched_wait_kind kinds[] = {
		[PT_WAIT_NONE] = SCHED_WAIT_NONE,
		[PT_WAIT_COND] = SCHED_WAIT_COND,
		[PT_WAIT_JOIN] = SCHED_WAIT_JOIN,
		[PT_WAIT_SEM] = SCHED_WAIT_SEM,
		[PT_WAIT_SLEEP] = SCHED_WAIT_SLEEP,
		[PT_WAIT_IO] = SCHED_WAIT_EVENT,
		[PT_WAIT_SIGNAL] = SCHED_WAIT_QUEUE,
		[PT_WAIT_FUTEX] = SCHED_WAIT_QUEUE,
		[PT_WAIT_MUTEX] = SCHED_WAIT_MUTEX,
		[PT_WAIT_RWLOCK] = SCHED_WAIT_RDLOCK, /* or WRLOCK: below */
	};
	bool signal = status == PT_ESIGNALED;
	if (waiting == PT_WAIT_NONE)
		return false;
	/* A futex, mutex or rwlock wait is no cancellation point: only a signal ends it. */
	if ((waiting == PT_WAIT_FUTEX || waiting == PT_WAIT_MUTEX || waiting == PT_WAIT_RWLOCK) &&
	    !signal)
		return false;
	if (waiting == PT_WAIT_RWLOCK)
		return kind == SCHED_WAIT_RDLOCK || kind == SCHED_WAIT_WRLOCK;
	return kind == kinds[waiting];
}

bool pt_interrupt(struct sched_thread *t, struct pt_thread *pt, int status)
{
	struct sched_thread_info info;
	sched_thread_info(t, &info);
	/* Not blocked in the call itself: it will see the request when the call returns
	 * (or, for a signal, before a mutex wait: pt_mutex_wait_lock). */
	if (info.state != SCHED_BLOCKED || !blocked_in(pt->waiting, info.wait_kind, status))
		return false;
	return sched_interrupt(t, status) == 0;
}

int pthread_cancel(pthread_t thread)
{
	struct sched_thread *t = pt_sched(thread);
	struct pt_thread *pt = pt_find(t);
	if (!pt)
		return ESRCH;
	if (pt->exited || pt->exiting)
		return 0;
	pt->cancel_pending = true;
	if (pt->cancel_disabled)
		return 0;
	if (t == sched_current()) {
		if (pt->cancel_async)
			pt_act_cancel(pt);
		return 0;
	}
	pt_interrupt(t, pt, PT_EINTERRUPTED);
	return 0;
}

void pthread_testcancel(void)
{
	struct pt_thread *self = pt_self();
	pt_testcancel(self);
	pt_signals_check(self);
}

int pthread_setcancelstate(int state, int *oldstate)
{
	if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE)
		return EINVAL;
	struct pt_thread *self = pt_self();
	if (oldstate)
		*oldstate = self->cancel_disabled ? PTHREAD_CANCEL_DISABLE : PTHREAD_CANCEL_ENABLE;
	self->cancel_disabled = state == PTHREAD_CANCEL_DISABLE;
	if (self->cancel_async)
		pt_testcancel(self);
	return 0;
}

int pthread_setcanceltype(int type, int *oldtype)
{
	if (type != PTHREAD_CANCEL_DEFERRED && type != PTHREAD_CANCEL_ASYNCHRONOUS)
		return EINVAL;
	struct pt_thread *self = pt_self();
	if (oldtype)
		*oldtype = self->cancel_async ? PTHREAD_CANCEL_ASYNCHRONOUS
					      : PTHREAD_CANCEL_DEFERRED;
	self->cancel_async = type == PTHREAD_CANCEL_ASYNCHRONOUS;
	if (self->cancel_async)
		pt_testcancel(self);
	return 0;
}
