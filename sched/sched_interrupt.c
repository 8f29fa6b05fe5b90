/* sched_interrupt.c: end a blocked thread's wait early (pthread_cancel needs it). */
#include "sched_impl.h"

int sched_interrupt(struct sched_thread *t, int status)
{
	if (!t || !status)
		return EINVAL;
	sched_enter();
	int err = ESRCH;
	/* A barrier counts its arrivals: leaving one early would break the round. */
	if (t->state == SCHED_BLOCKED && t->wait_kind != SCHED_WAIT_BARRIER) {
		wq_remove(t);
		sched_timer_remove(t);
		t->wake_status = status;
		rq_push(t);
		err = 0;
	}
	sched_leave();
	return err;
}
