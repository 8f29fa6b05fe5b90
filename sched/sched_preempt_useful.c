/* sched_preempt_useful.c: would a preemption now change anything? */
#include "sched_impl.h"

/* False when no other thread of the same or a higher priority is runnable and no thread
 * waits for a deadline or an event: then sched_preempt would resume the current thread
 * and ask nothing. Deterministic: it depends only on the scheduler's state, never on
 * time. */
bool sched_others_runnable(void)
{
	return sched_g.rq_head != NULL;
}

bool sched_deadline_waiters(void)
{
	return sched_g.timers[SCHED_SLOT_MONOTONIC] || sched_g.timers[SCHED_SLOT_REALTIME];
}

bool sched_preempt_useful(void)
{
	if (sched_g.timers[SCHED_SLOT_MONOTONIC] || sched_g.timers[SCHED_SLOT_REALTIME] ||
	    sched_g.events.head)
		return true;
	if (!sched_g.priorities || !sched_g.rq_head)
		return sched_g.rq_head != NULL;
	for (struct sched_thread *t = sched_g.rq_head; t; t = t->rq_next)
		if (t->prio >= sched_g.cur->prio)
			return true;
	return false;
}
