/* sched_preempt.c: the time slice is over (called from libreplay's signal handler).
 * Like sched_thread_yield, but async-signal-safe: no reaping (free), no stdio; the
 * hooks it calls (timeout_expired, event_ready, on_switch, on_resume; sleeper_turn, and
 * then idle or idle_events while a sleeper's turn lasts) must be safe there too. */
#include "sched_impl.h"

bool sched_preempt(void)
{
	if (sched_g.busy || !sched_g.running || sched_g.cur == &sched_g.host)
		return false;
	/* A signal arriving between the test and here ran a whole preemption and came
	 * back: the state is consistent again. */
	sched_enter();
	sched_expire();
	struct sched_thread *cur = sched_g.cur, *next = NULL;
	if (sched_sleeper_due(cur))
		sched_sleeper_turn(cur);
	if (sched_g.rq_head) {
		/* The tail of its priority: the next of the same or a higher one runs. */
		rq_push(cur);
		next = rq_pick(NULL);
	}
	if (next && next != cur) {
		sched_switch_to(next);
	} else {
		cur->state = SCHED_RUNNING;
		sched_go_on();
	}
	sched_leave();
	return true;
}
