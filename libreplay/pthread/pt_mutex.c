/* pt_mutex.c: mutexes are sched's (normal, recursive, error-checking), plus robust
 * ones: each thread lists the robust mutexes it holds, and when it exits holding one
 * the mutex is marked owner-dead and handed on; the next owner gets EOWNERDEAD and
 * either calls pthread_mutex_consistent or, by unlocking, makes it unusable for good
 * (ENOTRECOVERABLE). Priority protocols are accepted and ignored (no priorities). */
#include "pthread/pt_impl.h"

#include <stdlib.h>
#include <string.h>

static struct sched_mutex *sm(pthread_mutex_t *m)
{
	return (struct sched_mutex *)m;
}

static bool robust(pthread_mutex_t *m)
{
	return sm(m)->type & PT_MUTEX_ROBUST;
}

static int robust_add(struct pt_thread *self, pthread_mutex_t *m)
{
	if (self->nrobust == self->robust_cap) {
		unsigned n = self->robust_cap ? 2 * self->robust_cap : 8;
		pthread_mutex_t **r = realloc(self->robust, n * sizeof *r);
		if (!r)
			return EAGAIN;
		self->robust = r;
		self->robust_cap = n;
	}
	self->robust[self->nrobust++] = m;
	return 0;
}

static void robust_remove(struct pt_thread *self, pthread_mutex_t *m)
{
	for (unsigned i = self->nrobust; i-- > 0;) {
		if (self->robust[i] == m) {
			memmove(&self->robust[i], &self->robust[i + 1],
				(self->nrobust - i - 1) * sizeof *self->robust);
			self->nrobust--;
			return;
		}
	}
}

int pt_mutex_taken(pthread_mutex_t *m, bool first)
{
	struct sched_mutex *s = sm(m);
	if (!robust(m))
		return 0;
	if (s->type & PT_MUTEX_NOTRECOVERABLE) {
		sched_mutex_unlock(s); /* passes it on: every waiter learns the same */
		return ENOTRECOVERABLE;
	}
	if (first && robust_add(pt_self(), m)) {
		sched_mutex_unlock(s);
		return EAGAIN;
	}
	return s->type & PT_MUTEX_OWNERDEAD ? EOWNERDEAD : 0;
}

/* A condvar wait is about to release the mutex entirely. */
void pt_mutex_releasing(pthread_mutex_t *m)
{
	if (robust(m))
		robust_remove(pt_self(), m);
}

void pt_robust_release_all(struct pt_thread *self)
{
	while (self->nrobust > 0) {
		struct sched_mutex *s = sm(self->robust[--self->nrobust]);
		s->type |= PT_MUTEX_OWNERDEAD;
		s->count = 1; /* every recursion level */
		sched_mutex_unlock(s);
	}
	free(self->robust);
	self->robust = NULL;
	self->robust_cap = 0;
}

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
	int a = attr ? *(const int *)attr : 0;
	int type = a & PT_MA_TYPE_MASK;
	int err = sched_mutex_init(sm(m), type == PTHREAD_MUTEX_ADAPTIVE_NP ? 0 : type);
	if (!err)
		sm(m)->type |= a & PT_MA_ROBUST;
	return err;
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
	return sched_mutex_destroy(sm(m));
}

int pt_mutex_wait_lock(struct pt_thread *self, pthread_mutex_t *m, const struct timespec *deadline,
		       clockid_t clk, bool timed)
{
	for (;;) {
		/* As glibc's, whose handler runs at the system call that waits. */
		pt_signals_check(self);
		self->waiting = PT_WAIT_MUTEX;
		int err = timed ? sched_mutex_timedlock(sm(m), deadline, clk) : sched_mutex_lock(sm(m));
		self->waiting = PT_WAIT_NONE;
		if (err != PT_ESIGNALED)
			return err;
	}
}

static int lock(pthread_mutex_t *m, const struct timespec *deadline, clockid_t clk, bool timed)
{
	if (sm(m)->type & PT_MUTEX_NOTRECOVERABLE)
		return ENOTRECOVERABLE;
	int err;
	if (sm(m)->count == 0) /* free: no wait */
		err = timed ? sched_mutex_timedlock(sm(m), deadline, clk) : sched_mutex_lock(sm(m));
	else
		err = pt_mutex_wait_lock(pt_self(), m, deadline, clk, timed);
	err = err ? err : pt_mutex_taken(m, sm(m)->count == 1);
	if (!err || err == EOWNERDEAD) /* (--races: happens-before) */
		RP_RACE_SYNC(m, RP_RACE_ACQUIRE | RP_RACE_LOCKED);
	if (pt_signals_queued) /* a delivery point; the test keeps the common case cheap */
		pt_signals_check(pt_self());
	return err;
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
	return PT_SYNC(lock(m, NULL, CLOCK_REALTIME, false));
}

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	return PT_SYNC(lock(m, abstime, CLOCK_REALTIME, true));
}

int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abstime)
{
	if (!pt_clock_ok(clk))
		return EINVAL;
	return PT_SYNC(lock(m, abstime, clk, true));
}

static int mutex_trylock_call(pthread_mutex_t *m)
{
	if (sm(m)->type & PT_MUTEX_NOTRECOVERABLE)
		return ENOTRECOVERABLE;
	int err = sched_mutex_trylock(sm(m));
	err = err ? pt_try_failed(err) : pt_mutex_taken(m, sm(m)->count == 1);
	if (!err || err == EOWNERDEAD)
		RP_RACE_SYNC(m, RP_RACE_ACQUIRE | RP_RACE_LOCKED);
	return err;
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
	return PT_SYNC(mutex_trylock_call(m));
}

static int mutex_unlock_call(pthread_mutex_t *m)
{
	struct sched_mutex *s = sm(m);
	if (s->count && s->owner == sched_thread_id(sched_current()))
		RP_RACE_SYNC(m, RP_RACE_RELEASE | RP_RACE_UNLOCKED);
	if (!robust(m))
		return sched_mutex_unlock(s);
	/* Robust mutexes check their owner whatever their type, as in glibc. */
	if (s->count == 0 || s->owner != sched_thread_id(sched_current()))
		return EPERM;
	if (s->count == 1) {
		robust_remove(pt_self(), m);
		if (s->type & PT_MUTEX_OWNERDEAD)
			s->type = (s->type & ~PT_MUTEX_OWNERDEAD) | PT_MUTEX_NOTRECOVERABLE;
	}
	return sched_mutex_unlock(s);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	return PT_SYNC(mutex_unlock_call(m));
}

int pthread_mutex_consistent(pthread_mutex_t *m)
{
	struct sched_mutex *s = sm(m);
	if (!robust(m) || !(s->type & PT_MUTEX_OWNERDEAD) || s->count == 0 ||
	    s->owner != sched_thread_id(sched_current()))
		return EINVAL;
	s->type &= ~PT_MUTEX_OWNERDEAD;
	return 0;
}

int pthread_mutex_getprioceiling(const pthread_mutex_t *m, int *prioceiling)
{
	*prioceiling = 0;
	return 0;
}

int pthread_mutex_setprioceiling(pthread_mutex_t *m, int prioceiling, int *old)
{
	*old = 0;
	return 0;
}

PT_ALIAS(__pthread_mutex_init, pthread_mutex_init);
PT_ALIAS(__pthread_mutex_destroy, pthread_mutex_destroy);
PT_ALIAS(__pthread_mutex_lock, pthread_mutex_lock);
PT_ALIAS(__pthread_mutex_trylock, pthread_mutex_trylock);
PT_ALIAS(__pthread_mutex_unlock, pthread_mutex_unlock);
