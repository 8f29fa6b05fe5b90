/* sched_mutex_trylock.c */
#include "sched_impl.h"

int sched_mutex_trylock(struct sched_mutex *m)
{
	int err = 0;
	sched_enter();
	if (m->count == 0) {
		m->owner = sched_g.cur->id;
		m->count = 1;
		held_add(sched_g.cur, m);
	} else if (m->owner == sched_g.cur->id && sched_mutex_type(m) == SCHED_MUTEX_RECURSIVE) {
		if (m->count == UINT_MAX)
			err = EAGAIN;
		else
			m->count++;
	} else {
		err = EBUSY;
	}
	sched_leave();
	return err;
}
