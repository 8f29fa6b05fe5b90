/* sched_rwlock_rdlock.c: take a read lock (FIFO policy: see green.h). */
#include "sched_impl.h"

/* A reader that already holds a read lock does not queue behind a waiting writer:
 * the writer waits for it, so queueing would deadlock a recursive read lock. */
static bool may_read(struct sched_rwlock *l, struct sched_thread *cur)
{
	if (!l->writer && l->waiters.head)
		sched_rwlock_grant(l); /* a waiter that timed out may have unblocked others */
	return !l->writer && (!wq_first(&l->waiters) || cur->rdlocks > 0);
}

static int rdlock(struct sched_rwlock *l, const struct timespec *deadline, clockid_t clk)
{
	struct sched_thread *cur = sched_g.cur;
	int slot, err;
	uint64_t ns;
	if (l->writer && l->wowner == cur->id)
		return EDEADLK;
	if (may_read(l, cur)) {
		l->readers++;
		cur->rdlocks++;
		return 0;
	}
	if ((err = sched_deadline(deadline, clk, &slot, &ns)))
		return err;
	/* 0: granted by sched_rwlock_grant, which counted us */
	err = sched_wait(&l->waiters, slot, ns, SCHED_WAIT_RDLOCK, l);
	if (err)
		sched_rwlock_grant(l);
	return err;
}

int sched_rwlock_rdlock(struct sched_rwlock *l)
{
	sched_enter();
	int err = rdlock(l, NULL, 0);
	sched_leave();
	return err;
}

int sched_rwlock_timedrdlock(struct sched_rwlock *l, const struct timespec *deadline,
			     clockid_t clk)
{
	sched_enter();
	int err = rdlock(l, deadline, clk);
	sched_leave();
	return err;
}

int sched_rwlock_tryrdlock(struct sched_rwlock *l)
{
	int err = EBUSY;
	sched_enter();
	if (may_read(l, sched_g.cur)) {
		l->readers++;
		sched_g.cur->rdlocks++;
		err = 0;
	}
	sched_leave();
	return err;
}
