/* sched_sem_wait.c: take one unit, waiting in line for a post if there is none. */
#include "sched_impl.h"

static int take(struct sched_sem *s, const struct timespec *deadline, clockid_t clk)
{
	int slot, err;
	uint64_t ns;
	if (s->value > 0) {
		s->value--;
		return 0;
	}
	if ((err = sched_deadline(deadline, clk, &slot, &ns)))
		return err;
	/* 0: a post handed its unit to us (sched_sem_post) */
	return sched_wait(&s->waiters, slot, ns, SCHED_WAIT_SEM, s);
}

int sched_sem_wait(struct sched_sem *s)
{
	sched_enter();
	int err = take(s, NULL, 0);
	sched_leave();
	return err;
}

int sched_sem_timedwait(struct sched_sem *s, const struct timespec *deadline, clockid_t clk)
{
	sched_enter();
	int err = take(s, deadline, clk);
	sched_leave();
	return err;
}
