/* pt_rwlock.c: read-write locks are sched's: FIFO, so neither readers nor writers
 * starve, whatever kind the attributes ask for (accepted and kept, not used). The
 * timed calls check the deadline first, as glibc's do. A signal sent to a waiter
 * runs its handler in the wait, which goes on (at the end of the queue), as in
 * glibc. */
#include "pthread/pt_impl.h"

#include <string.h>

static struct sched_rwlock *rw(pthread_rwlock_t *l)
{
	return (struct sched_rwlock *)l;
}

/* --races' happens-before (docs/races.md), as ThreadSanitizer's: a writer's unlock
 * releases into the lock's clock, a reader's into a second one (the lock's address
 * + 1); a reader acquires the writers' clock alone (two readers are not ordered: what
 * they write under a read lock may race), a writer both. */
static void race_locked(pthread_rwlock_t *l, bool write)
{
	RP_RACE_SYNC(l, RP_RACE_ACQUIRE | RP_RACE_LOCKED);
	if (write)
		RP_RACE_SYNC((char *)l + 1, RP_RACE_ACQUIRE);
}

static void race_unlock(pthread_rwlock_t *l)
{
	struct sched_rwlock *s = rw(l);
	bool write = s->writer && s->wowner == sched_thread_id(sched_current());
	if (write || s->readers)
		RP_RACE_SYNC(write ? (char *)l : (char *)l + 1, RP_RACE_RELEASE);
	RP_RACE_SYNC(l, RP_RACE_UNLOCKED);
}

/* A read (write false) or write lock, waiting as signals expect: pending handlers
 * run first, and a signal sent while it waits runs its handler there and the wait
 * goes on (as pt_mutex_wait_lock). */
static int take(pthread_rwlock_t *l, bool write, const struct timespec *deadline, clockid_t clk)
{
	struct pt_thread *self = pt_self();
	for (;;) {
		pt_signals_check(self);
		self->waiting = PT_WAIT_RWLOCK;
		int err = write ? (deadline ? sched_rwlock_timedwrlock(rw(l), deadline, clk)
					    : sched_rwlock_wrlock(rw(l)))
				: (deadline ? sched_rwlock_timedrdlock(rw(l), deadline, clk)
					    : sched_rwlock_rdlock(rw(l)));
		self->waiting = PT_WAIT_NONE;
		if (!err)
			race_locked(l, write);
		if (err != PT_ESIGNALED)
			return err;
	}
}

int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr)
{
	memset(l, 0, sizeof *l);
	return 0;
}

int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	return sched_rwlock_destroy(rw(l));
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	return PT_SYNC(take(l, false, NULL, CLOCK_REALTIME));
}

static int tryrdlock_call(pthread_rwlock_t *l)
{
	int err = sched_rwlock_tryrdlock(rw(l));
	if (!err)
		race_locked(l, false);
	return pt_try_failed(err);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	return PT_SYNC(tryrdlock_call(l));
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	if (!pt_nsec_ok(abstime))
		return EINVAL;
	return PT_SYNC(take(l, false, abstime, CLOCK_REALTIME));
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk, const struct timespec *abstime)
{
	if (!pt_clock_ok(clk) || !pt_nsec_ok(abstime))
		return EINVAL;
	return PT_SYNC(take(l, false, abstime, clk));
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	return PT_SYNC(take(l, true, NULL, CLOCK_REALTIME));
}

static int trywrlock_call(pthread_rwlock_t *l)
{
	int err = sched_rwlock_trywrlock(rw(l));
	if (!err)
		race_locked(l, true);
	return pt_try_failed(err);
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	return PT_SYNC(trywrlock_call(l));
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	if (!pt_nsec_ok(abstime))
		return EINVAL;
	return PT_SYNC(take(l, true, abstime, CLOCK_REALTIME));
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk, const struct timespec *abstime)
{
	if (!pt_clock_ok(clk) || !pt_nsec_ok(abstime))
		return EINVAL;
	return PT_SYNC(take(l, true, abstime, clk));
}

int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	race_unlock(l);
	return PT_SYNC(sched_rwlock_unlock(rw(l)));
}

/* pthread_rwlockattr_t: an int holding the kind. */
int pthread_rwlockattr_init(pthread_rwlockattr_t *a)
{
	memset(a, 0, sizeof *a);
	return 0;
}

int pthread_rwlockattr_destroy(pthread_rwlockattr_t *a)
{
	return 0;
}

int pthread_rwlockattr_setkind_np(pthread_rwlockattr_t *a, int kind)
{
	if (kind != PTHREAD_RWLOCK_PREFER_READER_NP && kind != PTHREAD_RWLOCK_PREFER_WRITER_NP &&
	    kind != PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP)
		return EINVAL;
	*(int *)a = kind << PT_RA_KIND_SHIFT;
	return 0;
}

int pthread_rwlockattr_getkind_np(const pthread_rwlockattr_t *a, int *kind)
{
	*kind = *(const int *)a >> PT_RA_KIND_SHIFT;
	return 0;
}

int pthread_rwlockattr_setpshared(pthread_rwlockattr_t *a, int pshared)
{
	return pt_pshared(pshared, "pthread_rwlockattr_setpshared");
}

int pthread_rwlockattr_getpshared(const pthread_rwlockattr_t *a, int *pshared)
{
	*pshared = PTHREAD_PROCESS_PRIVATE;
	return 0;
}

PT_ALIAS(__pthread_rwlock_init, pthread_rwlock_init);
PT_ALIAS(__pthread_rwlock_destroy, pthread_rwlock_destroy);
PT_ALIAS(__pthread_rwlock_rdlock, pthread_rwlock_rdlock);
PT_ALIAS(__pthread_rwlock_tryrdlock, pthread_rwlock_tryrdlock);
PT_ALIAS(__pthread_rwlock_wrlock, pthread_rwlock_wrlock);
PT_ALIAS(__pthread_rwlock_trywrlock, pthread_rwlock_trywrlock);
PT_ALIAS(__pthread_rwlock_unlock, pthread_rwlock_unlock);
