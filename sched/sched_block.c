/* sched_block.c: wait on a wait queue, for the pthread layer's own objects. */
#include "sched_impl.h"

/* Block on q as kind (obj: what sched_thread_info reports) until woken or the deadline;
 * shared with sched_wait_event. */
int sched_block_as(struct sched_waitq *q, const struct timespec *deadline, clockid_t clk,
		   enum sched_wait_kind kind, const void *obj)
{
	int slot;
	uint64_t ns;
	int err = sched_deadline(deadline, clk, &slot, &ns);
	if (err)
		return err;
	sched_enter();
	err = sched_wait(q, slot, ns, kind, obj);
	sched_leave();
	return err;
}

int sched_block(struct sched_waitq *q, const struct timespec *deadline, clockid_t clk)
{
	return sched_block_as(q, deadline, clk, q ? SCHED_WAIT_QUEUE : SCHED_WAIT_SLEEP, q);
}
