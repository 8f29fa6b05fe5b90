/* sched_current.c: who runs. */
#include "sched_impl.h"

struct sched_thread *sched_current(void)
{
	return sched_g.cur;
}

int sched_thread_id(const struct sched_thread *t)
{
	return t->id;
}

enum sched_state sched_thread_state(const struct sched_thread *t)
{
	return t->state;
}
