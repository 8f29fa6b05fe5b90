/* sched_wake.c: make waiters of a wait queue runnable (no switch happens). */
#include "sched_impl.h"

struct sched_thread *sched_wake_one(struct sched_waitq *q)
{
	sched_enter();
	struct sched_thread *t = sched_wakeup(q);
	sched_leave();
	return t;
}

int sched_wake_all(struct sched_waitq *q)
{
	int n = 0;
	sched_enter();
	while (sched_wakeup(q))
		n++;
	sched_leave();
	return n;
}
