/* pt_sched.c: yielding, and the per-thread settings green threads have no use for:
 * scheduling policy and priority (kept and reported, never used: the scheduler is
 * FIFO), CPU affinity (accepted; one kernel thread runs them all), concurrency. */
#include "pthread/pt_impl.h"

/* (pthread_yield: <pthread.h> redirects it here.) The thread that has waited longest
 * runs next, whatever the priorities --hunt gives: a program yields to wait for another
 * thread (a spin on a flag, a try-lock loop), and with priorities the two highest of
 * three yielding to each other would never let the third, which they wait for, run. */
int sched_yield(void)
{
	sched_thread_yield_fifo();
	pt_signals_check(pt_self());
	return 0;
}

static int check_param(int policy, const struct sched_param *param)
{
	if (policy != SCHED_OTHER && policy != SCHED_FIFO && policy != SCHED_RR &&
	    policy != SCHED_BATCH && policy != SCHED_IDLE)
		return EINVAL;
	if (param->sched_priority < sched_get_priority_min(policy) ||
	    param->sched_priority > sched_get_priority_max(policy))
		return EINVAL;
	return 0;
}

int pthread_setschedparam(pthread_t thread, int policy, const struct sched_param *param)
{
	struct pt_thread *pt = pt_find(pt_sched(thread));
	int err = check_param(policy, param);
	if (err)
		return err;
	if (!pt)
		return ESRCH;
	pt->policy = policy;
	pt->param = *param;
	return 0;
}

int pthread_getschedparam(pthread_t thread, int *policy, struct sched_param *param)
{
	struct pt_thread *pt = pt_find(pt_sched(thread));
	if (!pt)
		return ESRCH;
	*policy = pt->policy;
	*param = pt->param;
	return 0;
}

int pthread_setschedprio(pthread_t thread, int prio)
{
	struct pt_thread *pt = pt_find(pt_sched(thread));
	if (!pt)
		return ESRCH;
	struct sched_param param = {.sched_priority = prio};
	int err = check_param(pt->policy, &param);
	if (!err)
		pt->param = param;
	return err;
}

static int concurrency;

int pthread_setconcurrency(int level)
{
	if (level < 0)
		return EINVAL;
	concurrency = level;
	return 0;
}

int pthread_getconcurrency(void)
{
	return concurrency;
}

int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set)
{
	return 0;
}

/* The process's affinity: the one kernel thread's. */
int pthread_getaffinity_np(pthread_t thread, size_t size, cpu_set_t *set)
{
	int saved = errno;
	int err = sched_getaffinity(0, size, set) ? errno : 0;
	errno = saved;
	return err;
}

/* Green threads share one kernel thread's CPU time: none has a clock of its own. */
int pthread_getcpuclockid(pthread_t thread, clockid_t *clk)
{
	return ENOENT;
}
