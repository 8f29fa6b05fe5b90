/* sched_preempt_useful.c: would a preemption now change anything? */
#include "sched_impl.h"

/* False when no other thread is runnable and no thread waits for a deadline or an
 * event: then sched_preempt would resume the current thread and ask nothing. Deterministic: it
 * depends only on the scheduler's state, never on time. */
bool sched_preempt_useful(void)
{
	return sched_g.rq_head || sched_g.timers[SCHED_SLOT_MONOTONIC] ||
	       sched_g.timers[SCHED_SLOT_REALTIME] || sched_g.events.head;
}
