/* sched_rwlock_unlock.c: release a read or the write lock, and grant the waiters
 * at the head of the queue what they can now have. */
#include "sched_impl.h"

/* From the head: one writer if nobody holds the lock, or every reader up to the
 * first writer if no writer holds it. */
void sched_rwlock_grant(struct sched_rwlock *l)
{
	struct sched_thread *t;
	while (!l->writer && (t = wq_first(&l->waiters))) {
		if (t->wait_kind == SCHED_WAIT_WRLOCK) {
			if (l->readers)
				break;
			sched_wakeup(&l->waiters);
			l->writer = 1;
			l->wowner = t->id;
			break;
		}
		sched_wakeup(&l->waiters);
		l->readers++;
		t->rdlocks++;
	}
}

int sched_rwlock_unlock(struct sched_rwlock *l)
{
	struct sched_thread *cur = sched_g.cur;
	int err = 0;
	sched_enter();
	if (l->writer) {
		if (l->wowner != cur->id) {
			err = EPERM;
			goto out;
		}
		l->writer = 0;
		l->wowner = 0;
	} else if (l->readers) {
		l->readers--;
		if (cur->rdlocks)
			cur->rdlocks--;
	} else {
		err = EPERM;
		goto out;
	}
	sched_rwlock_grant(l);
out:
	sched_leave();
	return err;
}
