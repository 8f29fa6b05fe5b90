/* sched_mutex_destroy.c */
#include "sched_impl.h"

int sched_mutex_destroy(struct sched_mutex *m)
{
	sched_enter();
	int err = m->count || wq_first(&m->waiters) ? EBUSY : 0;
	sched_leave();
	return err;
}
