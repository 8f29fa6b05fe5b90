/* pt_cond.c: condition variables are sched's (FIFO, no spurious wakeups of their
 * own) plus the clock of timed waits. Waiting is a cancellation point: a cancelled
 * waiter exits with the mutex held, as POSIX says, so that its cleanup handler can
 * unlock it. A signal sent to a waiter runs its handler in the wait, with the mutex
 * released (glibc's handler runs in a futex wait), and the wait goes on; taking the
 * mutex back is a mutex wait, which runs the handlers of signals sent meanwhile
 * before or while it waits. */
#include "pthread/pt_impl.h"

#include <string.h>

static struct pt_cond *pc(pthread_cond_t *c)
{
	return (struct pt_cond *)c;
}

int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
	memset(c, 0, sizeof *c);
	if (attr)
		pc(c)->clock = *(const int *)attr >> PT_CA_CLOCK_SHIFT;
	return 0;
}

int pthread_cond_destroy(pthread_cond_t *c)
{
	return sched_cond_destroy(&pc(c)->c);
}

int pthread_cond_signal(pthread_cond_t *c)
{
	pc(c)->seq++;
	RP_RACE_SYNC(c, RP_RACE_RELEASE);
	return PT_SYNC(sched_cond_signal(&pc(c)->c));
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	pc(c)->seq++;
	RP_RACE_SYNC(c, RP_RACE_RELEASE);
	return PT_SYNC(sched_cond_broadcast(&pc(c)->c));
}

/* Take m back after the wait, all its recursion levels, as a mutex wait that runs
 * the handlers of signals sent meanwhile before or while it waits (pt_mutex.c). */
static int relock(struct pt_thread *self, pthread_mutex_t *m, unsigned depth)
{
	struct sched_mutex *s = (struct sched_mutex *)m;
	int err = pt_mutex_wait_lock(self, m, NULL, CLOCK_REALTIME, false);
	if (!err && depth > 1)
		s->count = depth;
	if (!err)
		RP_RACE_SYNC(m, RP_RACE_ACQUIRE | RP_RACE_LOCKED);
	return err;
}

static int wait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *deadline,
		clockid_t clk, bool timed)
{
	struct pt_thread *self = pt_self();
	struct sched_mutex *s = (struct sched_mutex *)m;
	unsigned depth = s->count;
	int err;
	pt_testcancel(self);
	pt_mutex_releasing(m);
	for (;;) {
		unsigned seq = pc(c)->seq;
		pt_wait_begin(self, PT_WAIT_COND);
		if (s->count && s->owner == sched_thread_id(sched_current()))
			RP_RACE_SYNC(m, RP_RACE_RELEASE | RP_RACE_UNLOCKED);
		err = sched_cond_wait_unlocked(&pc(c)->c, s, timed ? deadline : NULL, clk);
		RP_RACE_SYNC(c, RP_RACE_ACQUIRE); /* what the signaller did before */
		self->waiting = PT_WAIT_NONE;
		if (err == EPERM || err == EINVAL)
			return err; /* m was not released */
		if (err != PT_ESIGNALED) {
			int r = relock(self, m, depth);
			err = err ? err : r;
			break;
		}
		/* A signal for a handler: it runs in the wait with the mutex released, as
		 * glibc's does, and the wait goes on, unless the condvar was signalled
		 * meanwhile (a wakeup glibc's waiter could have taken) or a cancellation
		 * came. */
		pt_signals_check(self);
		err = relock(self, m, depth);
		if (err || pc(c)->seq != seq || pt_cancel_due(self))
			break;
	}
	int taken = pt_mutex_taken(m, true);
	pt_wait_end(self, err == PT_EINTERRUPTED || pt_cancel_due(self));
	return taken ? taken : err;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	return PT_SYNC(wait(c, m, NULL, CLOCK_REALTIME, false));
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
	return PT_SYNC(wait(c, m, abstime, pc(c)->clock, true));
}

int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
			   const struct timespec *abstime)
{
	if (!pt_clock_ok(clk))
		return EINVAL;
	return PT_SYNC(wait(c, m, abstime, clk, true));
}
