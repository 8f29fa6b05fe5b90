/* sched_mutex_unlock.c: release a mutex, handing it to the first waiter. */
#include "sched_impl.h"

int sched_mutex_release(struct sched_mutex *m)
{
	struct sched_thread *t;
	int type = sched_mutex_type(m);
	if (type != SCHED_MUTEX_NORMAL && (m->count == 0 || m->owner != sched_g.cur->id))
		return EPERM;
	if (m->count == 0)
		return 0;
	if (type == SCHED_MUTEX_RECURSIVE && m->count > 1) {
		m->count--;
		return 0;
	}
	sched_held_drop(m->owner, m);
	/* Handed over, not released: the waiter cannot lose it to a later locker. */
	if ((t = sched_wakeup(&m->waiters))) {
		m->owner = t->id;
		m->count = 1;
		held_add(t, m);
	} else {
		m->owner = 0;
		m->count = 0;
	}
	return 0;
}

int sched_mutex_unlock(struct sched_mutex *m)
{
	sched_enter();
	int err = sched_mutex_release(m);
	sched_leave();
	return err;
}
