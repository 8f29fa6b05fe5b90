/* sched_cond_broadcast.c */
#include "sched_impl.h"

int sched_cond_broadcast(struct sched_cond *c)
{
	sched_enter();
	while (sched_wakeup(&c->waiters))
		;
	sched_leave();
	return 0;
}
