/* sched_wait_event.c: wait for an event outside the scheduler (a descriptor becoming
 * ready); the event_ready hook decides, asked at every scheduling point. */
#include "sched_impl.h"

int sched_wait_event(const void *obj, const struct timespec *deadline, clockid_t clk)
{
	return sched_block_as(&sched_g.events, deadline, clk, SCHED_WAIT_EVENT, obj);
}

/* In waiting order; a thread woken here leaves the list, so take its successor first. */
void sched_poll_events(void)
{
	struct sched_thread *t, *next;
	for (t = sched_g.events.head; t; t = next) {
		next = t->wq_next;
		if (sched_g.hooks.event_ready(t, t->wait_obj)) {
			wq_remove(t);
			sched_timer_remove(t);
			t->wake_status = 0;
			rq_push(t);
		}
	}
}
