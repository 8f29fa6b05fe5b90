/* sched_forked.c: the child of fork() has one thread, the one that forked (POSIX).
 * Every other thread is left where it stood and never runs again: off the run
 * queue, the deadline lists, the event list and any wait queue (so no unlock, post
 * or signal in the child can wake it), and off the thread list (kept on
 * sched_g.abandoned, as teardown keeps its own). Its stack stays mapped, as a real
 * fork keeps a vanished thread's memory, and a mutex it held stays held. Threads
 * that exited and wait to be joined stay joinable. */
#include "sched_impl.h"

void sched_forked(void)
{
	if (!sched_g.running)
		return;
	sched_enter();
	struct sched_thread *cur = sched_g.cur, *t, *next;
	sched_g.rq_head = sched_g.rq_tail = NULL;
	for (t = sched_g.all_head; t; t = next) {
		next = t->all_next;
		if (t == cur || t->state == SCHED_EXITED)
			continue;
		sched_timer_remove(t);
		wq_remove(t);
		t->state = SCHED_ABANDONED;
		t->rq_next = NULL;
		if (t->all_prev)
			t->all_prev->all_next = t->all_next;
		else
			sched_g.all_head = t->all_next;
		if (t->all_next)
			t->all_next->all_prev = t->all_prev;
		else
			sched_g.all_tail = t->all_prev;
		t->all_prev = NULL;
		t->all_next = sched_g.abandoned;
		sched_g.abandoned = t;
		sched_g.live--;
	}
	sched_g.forked = true;
	sched_leave();
}

bool sched_in_forked_child(void)
{
	return sched_g.forked;
}
