/* sched_sem_post.c: add one unit, or hand it straight to the first waiter. */
#include "sched_impl.h"

int sched_sem_post(struct sched_sem *s)
{
	int err = 0;
	sched_enter();
	if (!sched_wakeup(&s->waiters)) {
		if (s->value >= SCHED_SEM_VALUE_MAX)
			err = EOVERFLOW;
		else
			s->value++;
	}
	sched_leave();
	return err;
}
