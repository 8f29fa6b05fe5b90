/* pt_cond.c: condition variables are sched's (FIFO, no spurious wakeups of their
 * own) plus the clock of timed waits. Waiting is a cancellation point: a cancelled
 * waiter exits with the mutex held, as POSIX says, so that its cleanup handler can
 * unlock it. */
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
	return sched_cond_signal(&pc(c)->c);
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	return sched_cond_broadcast(&pc(c)->c);
}

static int wait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *deadline,
		clockid_t clk, bool timed)
{
	struct pt_thread *self = pt_self();
	struct sched_mutex *s = (struct sched_mutex *)m;
	pt_testcancel(self);
	pt_mutex_releasing(m);
	pt_wait_begin(self, PT_WAIT_COND);
	int err = timed ? sched_cond_timedwait(&pc(c)->c, s, deadline, clk)
			: sched_cond_wait(&pc(c)->c, s);
	/* Unless EPERM (not the owner), the mutex is ours again. */
	int taken = err == EPERM ? 0 : pt_mutex_taken(m, true);
	pt_wait_end(self, err == PT_EINTERRUPTED);
	if (err == PT_ESIGNALED)
		err = 0; /* the handler ran: a spurious wakeup, as POSIX allows */
	return taken ? taken : err;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	return wait(c, m, NULL, CLOCK_REALTIME, false);
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
	return wait(c, m, abstime, pc(c)->clock, true);
}

int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
			   const struct timespec *abstime)
{
	if (!pt_clock_ok(clk))
		return EINVAL;
	return wait(c, m, abstime, clk, true);
}
