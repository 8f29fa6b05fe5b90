/* sched_cond_wait.c: release the mutex, wait for a signal, take the mutex back. */
#include "sched_impl.h"

static int cond_wait(struct sched_cond *c, struct sched_mutex *m,
		     const struct timespec *deadline, clockid_t clk)
{
	int slot, err, relock;
	uint64_t ns;
	if (sched_mutex_type(m) != SCHED_MUTEX_NORMAL &&
	    (m->count == 0 || m->owner != sched_g.cur->id))
		return EPERM;
	if ((err = sched_deadline(deadline, clk, &slot, &ns)))
		return err;
	/* All recursion levels go, and come back. */
	unsigned depth = m->count ? m->count : 1;
	if (m->count)
		m->count = 1;
	sched_mutex_release(m);
	err = sched_wait(&c->waiters, slot, ns, SCHED_WAIT_COND, c);
	relock = sched_mutex_acquire(m, NULL, 0);
	if (!relock)
		m->count = depth;
	return err ? err : relock;
}

int sched_cond_wait(struct sched_cond *c, struct sched_mutex *m)
{
	sched_enter();
	int err = cond_wait(c, m, NULL, 0);
	sched_leave();
	return err;
}

int sched_cond_timedwait(struct sched_cond *c, struct sched_mutex *m,
			 const struct timespec *deadline, clockid_t clk)
{
	sched_enter();
	int err = cond_wait(c, m, deadline, clk);
	sched_leave();
	return err;
}
