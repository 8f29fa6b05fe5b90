/* sched_join.c: wait for a thread to exit, take its value, free it. */
#include "sched_impl.h"

static int join(struct sched_thread *t, void **retval, const struct timespec *deadline,
		clockid_t clk)
{
	struct sched_thread *cur = sched_g.cur;
	int slot, err;
	uint64_t ns;
	if (t == cur)
		return EDEADLK;
	if (t->detached || t->joiner)
		return EINVAL;
	if (t->state != SCHED_EXITED) {
		if ((err = sched_deadline(deadline, clk, &slot, &ns)))
			return err;
		t->joiner = cur;
		err = sched_wait(&t->joinq, slot, ns, SCHED_WAIT_JOIN, t);
		t->joiner = NULL;
		if (err)
			return err;
	}
	if (retval)
		*retval = t->retval;
	sched_free_thread(t);
	return 0;
}

int sched_join(struct sched_thread *t, void **retval)
{
	sched_enter();
	int err = join(t, retval, NULL, 0);
	sched_leave();
	return err;
}

int sched_timedjoin(struct sched_thread *t, void **retval, const struct timespec *deadline,
		    clockid_t clk)
{
	sched_enter();
	int err = join(t, retval, deadline, clk);
	sched_leave();
	return err;
}
