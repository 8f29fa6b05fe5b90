/* sched_barrier_destroy.c */
#include "sched_impl.h"

int sched_barrier_destroy(struct sched_barrier *b)
{
	sched_enter();
	int err = wq_first(&b->waiters) ? EBUSY : 0;
	sched_leave();
	return err;
}
