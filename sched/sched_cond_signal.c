/* sched_cond_signal.c */
#include "sched_impl.h"

int sched_cond_signal(struct sched_cond *c)
{
	sched_enter();
	sched_wakeup(&c->waiters);
	sched_leave();
	return 0;
}
