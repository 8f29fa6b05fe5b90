/* pt_spin.c: spinlocks. A green thread spinning would never let the holder run, so
 * pthread_spin_lock yields to the scheduler while another thread holds the lock. The
 * int holds the owner's id + 1 (0: free), so relocking by the owner is EDEADLK
 * instead of a hang nobody could report. */
#include "pthread/pt_impl.h"

static int me(void)
{
	return sched_thread_id(sched_current()) + 1;
}

int pthread_spin_init(pthread_spinlock_t *l, int pshared)
{
	*l = 0;
	return 0;
}

int pthread_spin_destroy(pthread_spinlock_t *l)
{
	return 0;
}

static int spin_lock_call(pthread_spinlock_t *l)
{
	int self = me();
	if (*l == self)
		return EDEADLK;
	while (*l)
		sched_thread_yield_fifo(); /* the holder may wait longest: sched_yield's why */
	*l = self;
	RP_RACE_SYNC(l, RP_RACE_ACQUIRE | RP_RACE_LOCKED);
	return 0;
}

int pthread_spin_lock(pthread_spinlock_t *l)
{
	return PT_SYNC(spin_lock_call(l));
}

static int spin_trylock_call(pthread_spinlock_t *l)
{
	if (*l)
		return pt_try_failed(EBUSY);
	*l = me();
	RP_RACE_SYNC(l, RP_RACE_ACQUIRE | RP_RACE_LOCKED);
	return 0;
}

int pthread_spin_trylock(pthread_spinlock_t *l)
{
	return PT_SYNC(spin_trylock_call(l));
}

static int spin_unlock_call(pthread_spinlock_t *l)
{
	RP_RACE_SYNC(l, RP_RACE_RELEASE | RP_RACE_UNLOCKED);
	*l = 0;
	return 0;
}

int pthread_spin_unlock(pthread_spinlock_t *l)
{
	return PT_SYNC(spin_unlock_call(l));
}
