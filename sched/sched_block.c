/* sched_block.c: wait on a wait queue, for the pthread layer's own objects. */
#include "sched_impl.h"

int sched_block(struct sched_waitq *q, const struct timespec *deadline, clockid_t clk)
{
	int slot;
	uint64_t ns;
	int err = sched_deadline(deadline, clk, &slot, &ns);
	if (err)
		return err;
	sched_enter();
	err = sched_wait(q, slot, ns, q ? SCHED_WAIT_QUEUE : SCHED_WAIT_SLEEP, q);
	sched_leave();
	return err;
}
