/* sched_rwlock_destroy.c */
#include "sched_impl.h"

int sched_rwlock_destroy(struct sched_rwlock *l)
{
	sched_enter();
	int err = l->writer || l->readers || wq_first(&l->waiters) ? EBUSY : 0;
	sched_leave();
	return err;
}
