/* sched_preempt.c: the time slice is over (called from libreplay's signal handler).
 * Like sched_thread_yield, but async-signal-safe: no reaping (free), no stdio; the
 * hooks it calls (timeout_expired, event_ready, on_switch, on_resume) must be safe
 * there too. */
#include "sched_impl.h"

bool sched_preempt(void)
{
	if (sched_g.busy || !sched_g.running || sched_g.cur == &sched_g.host)
		return false;
	/* A signal arriving between the test and here ran a whole preemption and came
	 * back: the state is consistent again. */
	sched_enter();
	sched_expire();
	if (sched_g.rq_head) {
		rq_push(sched_g.cur);
		sched_switch_to(rq_pick(sched_g.cur));
	} else {
		sched_go_on();
	}
	sched_leave();
	return true;
}
