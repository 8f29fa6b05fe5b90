/* sched_detach.c: nobody will join this thread: free it when it exits. */
#include "sched_impl.h"

int sched_detach(struct sched_thread *t)
{
	int err = 0;
	sched_enter();
	if (t->detached || t->joiner)
		err = EINVAL;
	else if (t->state == SCHED_EXITED)
		sched_free_thread(t);
	else
		t->detached = true;
	sched_leave();
	return err;
}
