/* sched_cond_wait.c: release the mutex, wait for a signal, take the mutex back (or,
 * sched_cond_wait_unlocked, leave that to the caller). */
#include "sched_impl.h"

/* Release m (every recursion level: *depth had) and wait. EPERM and EINVAL come
 * before m is released (*depth 0). */
static int release_and_wait(struct sched_cond *c, struct sched_mutex *m,
			    const struct timespec *deadline, clockid_t clk, unsigned *depth)
{
	int slot, err;
	uint64_t ns;
	*depth = 0;
	if (sched_mutex_type(m) != SCHED_MUTEX_NORMAL &&
	    (m->count == 0 || m->owner != sched_g.cur->id))
		return EPERM;
	if ((err = sched_deadline(deadline, clk, &slot, &ns)))
		return err;
	*depth = m->count ? m->count : 1;
	if (m->count)
		m->count = 1;
	sched_mutex_release(m);
	return sched_wait(&c->waiters, slot, ns, SCHED_WAIT_COND, c);
}

static int cond_wait(struct sched_cond *c, struct sched_mutex *m,
		     const struct timespec *deadline, clockid_t clk)
{
	unsigned depth;
	int err = release_and_wait(c, m, deadline, clk, &depth);
	if (!depth)
		return err;
	/* All recursion levels come back. */
	int relock = sched_mutex_acquire(m, NULL, 0);
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

int sched_cond_wait_unlocked(struct sched_cond *c, struct sched_mutex *m,
			     const struct timespec *deadline, clockid_t clk)
{
	unsigned depth;
	sched_enter();
	int err = release_and_wait(c, m, deadline, clk, &depth);
	sched_leave();
	return err;
}
