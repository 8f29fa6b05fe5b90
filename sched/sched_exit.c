/* sched_exit.c: end the calling thread. */
#include "sched_impl.h"

#include <stdlib.h>

_Noreturn void sched_exit(void *retval)
{
	sched_enter();
	struct sched_thread *self = sched_g.cur;
	if (self == &sched_g.host) {
		fputs("sched: sched_exit called outside sched_run_main\n", stderr);
		abort();
	}
	if (sched_g.hooks.on_thread_exit)
		sched_g.hooks.on_thread_exit(self);
	self->retval = retval;
	self->state = SCHED_EXITED;
	sched_g.live--;
	if (self->detached) {
		/* Freed by the next thread to run: this stack is in use until the switch. */
		self->rq_next = sched_g.dead;
		sched_g.dead = self;
	} else {
		while (sched_wakeup(&self->joinq))
			;
	}
	if (sched_g.live == 0)
		sched_finish(0); /* main called sched_exit, and was the last */
	sched_schedule();
	abort(); /* an exited thread is never resumed */
}
