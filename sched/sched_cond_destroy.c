/* sched_cond_destroy.c */
#include "sched_impl.h"

int sched_cond_destroy(struct sched_cond *c)
{
	sched_enter();
	int err = wq_first(&c->waiters) ? EBUSY : 0;
	sched_leave();
	return err;
}
