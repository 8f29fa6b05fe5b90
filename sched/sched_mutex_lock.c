/* sched_mutex_lock.c: take a mutex, waiting in line if it is held. */
#include "sched_impl.h"

int sched_mutex_acquire(struct sched_mutex *m, const struct timespec *deadline,
			clockid_t clk)
{
	struct sched_thread *cur = sched_g.cur;
	int slot, err;
	uint64_t ns;
	if (m->count == 0) {
		m->owner = cur->id;
		m->count = 1;
		held_add(cur, m);
		return 0;
	}
	if (m->owner == cur->id) {
		int type = sched_mutex_type(m);
		if (type == SCHED_MUTEX_RECURSIVE) {
			if (m->count == UINT_MAX)
				return EAGAIN;
			m->count++;
			return 0;
		}
		if (type == SCHED_MUTEX_ERRORCHECK)
			return EDEADLK;
		/* NORMAL: wait for ever (or until the deadline), as glibc does */
	}
	/* POSIX: the deadline need not be checked when the lock is free. */
	if ((err = sched_deadline(deadline, clk, &slot, &ns)))
		return err;
	/* 0: the unlocker handed the mutex over (sched_mutex_release) */
	return sched_wait(&m->waiters, slot, ns, SCHED_WAIT_MUTEX, m);
}

int sched_mutex_lock(struct sched_mutex *m)
{
	sched_enter();
	int err = sched_mutex_acquire(m, NULL, 0);
	sched_leave();
	return err;
}

int sched_mutex_timedlock(struct sched_mutex *m, const struct timespec *deadline,
			  clockid_t clk)
{
	sched_enter();
	int err = sched_mutex_acquire(m, deadline, clk);
	sched_leave();
	return err;
}
