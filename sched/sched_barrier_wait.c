/* sched_barrier_wait.c: wait until `count` threads have arrived; the last one is
 * the serial thread. */
#include "sched_impl.h"

int sched_barrier_wait(struct sched_barrier *b)
{
	int err;
	sched_enter();
	if (b->count == 0) {
		err = EINVAL;
	} else if (++b->arrived == b->count) {
		/* The next round starts now, before the woken threads even run. */
		b->arrived = 0;
		while (sched_wakeup(&b->waiters))
			;
		err = SCHED_BARRIER_SERIAL_THREAD;
	} else {
		err = sched_wait(&b->waiters, -1, 0, SCHED_WAIT_BARRIER, b);
	}
	sched_leave();
	return err;
}
