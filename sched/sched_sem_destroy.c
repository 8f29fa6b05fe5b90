/* sched_sem_destroy.c */
#include "sched_impl.h"

int sched_sem_destroy(struct sched_sem *s)
{
	sched_enter();
	int err = wq_first(&s->waiters) ? EBUSY : 0;
	sched_leave();
	return err;
}
