/* sched_sleep.c: wait for time to pass (relative, or until an absolute deadline). */
#include "sched_impl.h"

int sched_sleep(const struct timespec *duration)
{
	if (!duration || duration->tv_sec < 0 || duration->tv_nsec < 0 ||
	    duration->tv_nsec >= 1000000000)
		return EINVAL;
	uint64_t ns = UINT64_MAX;
	if ((uint64_t)duration->tv_sec < UINT64_MAX / 1000000000u - 1)
		ns = (uint64_t)duration->tv_sec * 1000000000u + (uint64_t)duration->tv_nsec;
	sched_enter();
	uint64_t now = sched_g.hooks.now_ns(CLOCK_MONOTONIC);
	uint64_t deadline = now + ns < now ? UINT64_MAX : now + ns;
	int err = sched_wait(NULL, SCHED_SLOT_MONOTONIC, deadline, SCHED_WAIT_SLEEP, NULL);
	sched_leave();
	return err == ETIMEDOUT ? 0 : err; /* the deadline is a sleep's normal end */
}

int sched_sleep_until(const struct timespec *deadline, clockid_t clk)
{
	int slot;
	uint64_t ns;
	int err = deadline ? sched_deadline(deadline, clk, &slot, &ns) : EINVAL;
	if (err)
		return err;
	sched_enter();
	err = sched_wait(NULL, slot, ns, SCHED_WAIT_SLEEP, NULL);
	sched_leave();
	return err == ETIMEDOUT ? 0 : err;
}
