/* sched_rwlock_wrlock.c: take the write lock (FIFO policy: see green.h). */
#include "sched_impl.h"

static bool may_write(struct sched_rwlock *l)
{
	if (!l->writer && l->waiters.head)
		sched_rwlock_grant(l); /* a waiter that timed out may have unblocked others */
	return !l->writer && !l->readers && !wq_first(&l->waiters);
}

static int wrlock(struct sched_rwlock *l, const struct timespec *deadline, clockid_t clk)
{
	struct sched_thread *cur = sched_g.cur;
	int slot, err;
	uint64_t ns;
	if (l->writer && l->wowner == cur->id)
		return EDEADLK;
	if (may_write(l)) {
		l->writer = 1;
		l->wowner = cur->id;
		return 0;
	}
	if ((err = sched_deadline(deadline, clk, &slot, &ns)))
		return err;
	/* 0: granted by sched_rwlock_grant */
	err = sched_wait(&l->waiters, slot, ns, SCHED_WAIT_WRLOCK, l);
	if (err)
		sched_rwlock_grant(l);
	return err;
}

int sched_rwlock_wrlock(struct sched_rwlock *l)
{
	sched_enter();
	int err = wrlock(l, NULL, 0);
	sched_leave();
	return err;
}

int sched_rwlock_timedwrlock(struct sched_rwlock *l, const struct timespec *deadline,
			     clockid_t clk)
{
	sched_enter();
	int err = wrlock(l, deadline, clk);
	sched_leave();
	return err;
}

int sched_rwlock_trywrlock(struct sched_rwlock *l)
{
	int err = EBUSY;
	sched_enter();
	if (may_write(l)) {
		l->writer = 1;
		l->wowner = sched_g.cur->id;
		err = 0;
	}
	sched_leave();
	return err;
}
