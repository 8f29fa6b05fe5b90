/* pt_join.c: pthread_join and glibc's try/timed/clock variants (a cancellation
 * point). The joined thread's record goes with it. */
#include "pthread/pt_impl.h"

enum { JOIN_WAIT, JOIN_TRY };

static int join(pthread_t thread, void **retval, int mode, const struct timespec *deadline,
		clockid_t clk)
{
	struct sched_thread *t = pt_sched(thread);
	struct pt_thread *self = pt_self();
	void *value;
	int err;
	int id = t ? sched_thread_id(t) : -1;
	if (t == sched_current())
		return EDEADLK;
	if (mode == JOIN_TRY) {
		struct sched_thread_info info;
		sched_thread_info(t, &info);
		if (info.state != SCHED_EXITED)
			return EBUSY; /* glibc looks no further either */
		err = sched_join(t, &value);
	} else {
		for (;;) {
			pt_testcancel(self);
			pt_wait_begin(self, PT_WAIT_JOIN);
			err = deadline ? sched_timedjoin(t, &value, deadline, clk)
				       : sched_join(t, &value);
			if (err != PT_ESIGNALED)
				break;
			/* A signal: its handlers run in the wait, as in glibc (at the
			 * next pt_testcancel), and the join goes on. */
			self->waiting = PT_WAIT_NONE;
		}
		/* Interrupted: t stays joinable. */
		pt_wait_end(self, err == PT_EINTERRUPTED);
	}
	if (err)
		return err;
	if (rp_races_on) /* everything the thread did happens before the join returns */
		rp_race_thread_joined(id);
	if (retval)
		*retval = value;
	return 0;
}

/* The record of t, looked up while t still exists. */
static struct pt_thread *record(pthread_t thread)
{
	struct pt_thread *pt = pt_find(pt_sched(thread));
	return pt && pt->id > 1 ? pt : NULL;
}

static int join_and_forget(pthread_t thread, void **retval, int mode,
			   const struct timespec *deadline, clockid_t clk)
{
	struct pt_thread *pt = record(thread);
	int err = join(thread, retval, mode, deadline, clk);
	if (!err && pt)
		pt_release(pt);
	return err;
}

int pthread_join(pthread_t thread, void **retval)
{
	return PT_SYNC(join_and_forget(thread, retval, JOIN_WAIT, NULL, CLOCK_REALTIME));
}

int pthread_tryjoin_np(pthread_t thread, void **retval)
{
	return PT_SYNC(pt_try_failed(join_and_forget(thread, retval, JOIN_TRY, NULL, CLOCK_REALTIME)));
}

int pthread_timedjoin_np(pthread_t thread, void **retval, const struct timespec *abstime)
{
	return PT_SYNC(join_and_forget(thread, retval, JOIN_WAIT, abstime, CLOCK_REALTIME));
}

int pthread_clockjoin_np(pthread_t thread, void **retval, clockid_t clk,
			 const struct timespec *abstime)
{
	if (!pt_clock_ok(clk))
		return EINVAL;
	return PT_SYNC(join_and_forget(thread, retval, JOIN_WAIT, abstime, clk));
}
