/* sched_thread_yield.c: let the other runnable threads run first. */
#include "sched_impl.h"

void sched_thread_yield(void)
{
	sched_enter();
	sched_expire();
	if (sched_g.rq_head) {
		rq_push(sched_g.cur);
		sched_switch_to(rq_pick(sched_g.cur));
		sched_reap();
	} else {
		sched_go_on();
	}
	sched_leave();
}

/* The same, but the thread that has waited longest runs, whatever the priorities (a
 * spin-wait's yield: libreplay's __sic_pause). Without priorities, sched_thread_yield. */
void sched_thread_yield_fifo(void)
{
	sched_enter();
	sched_expire();
	if (sched_g.rq_head) {
		rq_push(sched_g.cur);
		sched_switch_to(rq_pop());
		sched_reap();
	} else {
		sched_go_on();
	}
	sched_leave();
}
