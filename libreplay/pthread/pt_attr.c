/* pt_attr.c: thread attributes (struct pt_attr inside pthread_attr_t), the defaults
 * pthread_create uses without them, and pthread_getattr_np. Used: the detach state
 * and the stack (size, or the caller's own). Kept and reported but without effect:
 * guard size (sched maps one guard page below every stack it maps), scope, inherit,
 * policy and priority, the signal mask (one kernel thread: the mask is the
 * process's), CPU affinity. */
#include "pthread/pt_impl.h"

#include <string.h>
#include <unistd.h>

struct pt_attr pt_default_attr = {
	.stacksize = SCHED_DEFAULT_STACK_SIZE,
	.guardsize = 4096,
	.detachstate = PTHREAD_CREATE_JOINABLE,
	.scope = PTHREAD_SCOPE_SYSTEM,
	.inheritsched = PTHREAD_INHERIT_SCHED,
	.policy = SCHED_OTHER,
};

int pthread_attr_init(pthread_attr_t *attr)
{
	struct pt_attr *a = pt_attr(attr);
	memset(attr, 0, sizeof *attr);
	a->guardsize = (size_t)sysconf(_SC_PAGESIZE);
	a->detachstate = PTHREAD_CREATE_JOINABLE;
	a->scope = PTHREAD_SCOPE_SYSTEM;
	a->inheritsched = PTHREAD_INHERIT_SCHED;
	a->policy = SCHED_OTHER;
	return 0;
}

int pthread_attr_destroy(pthread_attr_t *attr)
{
	return 0;
}

int pthread_attr_setdetachstate(pthread_attr_t *attr, int state)
{
	if (state != PTHREAD_CREATE_JOINABLE && state != PTHREAD_CREATE_DETACHED)
		return EINVAL;
	pt_attr(attr)->detachstate = state;
	return 0;
}

int pthread_attr_getdetachstate(const pthread_attr_t *attr, int *state)
{
	*state = ((const struct pt_attr *)attr)->detachstate;
	return 0;
}

int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size)
{
	if (size < SCHED_MIN_STACK_SIZE)
		return EINVAL;
	pt_attr(attr)->stacksize = size;
	return 0;
}

int pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size)
{
	size_t s = ((const struct pt_attr *)attr)->stacksize;
	*size = s ? s : pt_default_attr.stacksize;
	return 0;
}

int pthread_attr_setstack(pthread_attr_t *attr, void *addr, size_t size)
{
	if (size < SCHED_MIN_STACK_SIZE)
		return EINVAL;
	pt_attr(attr)->stacksize = size;
	pt_attr(attr)->stacktop = (char *)addr + size;
	return 0;
}

int pthread_attr_getstack(const pthread_attr_t *attr, void **addr, size_t *size)
{
	const struct pt_attr *a = (const struct pt_attr *)attr;
	pthread_attr_getstacksize(attr, size);
	*addr = a->stacktop ? (char *)a->stacktop - *size : NULL;
	return 0;
}

/* The address is the top of the stack, as in glibc. */
int pthread_attr_setstackaddr(pthread_attr_t *attr, void *addr)
{
	pt_attr(attr)->stacktop = addr;
	return 0;
}

int pthread_attr_getstackaddr(const pthread_attr_t *attr, void **addr)
{
	*addr = ((const struct pt_attr *)attr)->stacktop;
	return 0;
}

int pthread_attr_setguardsize(pthread_attr_t *attr, size_t size)
{
	pt_attr(attr)->guardsize = size;
	return 0;
}

int pthread_attr_getguardsize(const pthread_attr_t *attr, size_t *size)
{
	*size = ((const struct pt_attr *)attr)->guardsize;
	return 0;
}

int pthread_attr_setscope(pthread_attr_t *attr, int scope)
{
	if (scope == PTHREAD_SCOPE_PROCESS)
		return ENOTSUP; /* as in glibc */
	if (scope != PTHREAD_SCOPE_SYSTEM)
		return EINVAL;
	pt_attr(attr)->scope = scope;
	return 0;
}

int pthread_attr_getscope(const pthread_attr_t *attr, int *scope)
{
	*scope = ((const struct pt_attr *)attr)->scope;
	return 0;
}

int pthread_attr_setinheritsched(pthread_attr_t *attr, int inherit)
{
	if (inherit != PTHREAD_INHERIT_SCHED && inherit != PTHREAD_EXPLICIT_SCHED)
		return EINVAL;
	pt_attr(attr)->inheritsched = inherit;
	return 0;
}

int pthread_attr_getinheritsched(const pthread_attr_t *attr, int *inherit)
{
	*inherit = ((const struct pt_attr *)attr)->inheritsched;
	return 0;
}

int pthread_attr_setschedpolicy(pthread_attr_t *attr, int policy)
{
	if (policy != SCHED_OTHER && policy != SCHED_FIFO && policy != SCHED_RR)
		return EINVAL;
	pt_attr(attr)->policy = policy;
	return 0;
}

int pthread_attr_getschedpolicy(const pthread_attr_t *attr, int *policy)
{
	*policy = ((const struct pt_attr *)attr)->policy;
	return 0;
}

int pthread_attr_setschedparam(pthread_attr_t *attr, const struct sched_param *param)
{
	struct pt_attr *a = pt_attr(attr);
	if (param->sched_priority < sched_get_priority_min(a->policy) ||
	    param->sched_priority > sched_get_priority_max(a->policy))
		return EINVAL;
	a->param = *param;
	return 0;
}

int pthread_attr_getschedparam(const pthread_attr_t *attr, struct sched_param *param)
{
	*param = ((const struct pt_attr *)attr)->param;
	return 0;
}

int pthread_attr_setsigmask_np(pthread_attr_t *attr, const sigset_t *set)
{
	struct pt_attr *a = pt_attr(attr);
	a->flags &= ~PT_ATTR_SIGMASK;
	a->sigmask = 0;
	if (!set)
		return 0;
	for (int sig = 1; sig < _NSIG; sig++)
		if (sigismember(set, sig) == 1)
			a->sigmask |= UINT64_C(1) << (sig - 1);
	a->flags |= PT_ATTR_SIGMASK;
	return 0;
}

int pthread_attr_getsigmask_np(const pthread_attr_t *attr, sigset_t *set)
{
	const struct pt_attr *a = (const struct pt_attr *)attr;
	sigemptyset(set);
	if (!(a->flags & PT_ATTR_SIGMASK))
		return PTHREAD_ATTR_NO_SIGMASK_NP;
	for (int sig = 1; sig < _NSIG; sig++)
		if (a->sigmask & UINT64_C(1) << (sig - 1))
			sigaddset(set, sig);
	return 0;
}

int pthread_attr_setaffinity_np(pthread_attr_t *attr, size_t size, const cpu_set_t *set)
{
	return 0;
}

/* No affinity set: every CPU, as glibc reports it. */
int pthread_attr_getaffinity_np(const pthread_attr_t *attr, size_t size, cpu_set_t *set)
{
	memset(set, 0xff, size);
	return 0;
}

int pthread_getattr_default_np(pthread_attr_t *attr)
{
	*pt_attr(attr) = pt_default_attr;
	return 0;
}

/* What pthread_create uses without attributes: the stack size and guard size. */
int pthread_setattr_default_np(const pthread_attr_t *attr)
{
	const struct pt_attr *a = (const struct pt_attr *)attr;
	if (a->stacktop || (a->stacksize && a->stacksize < SCHED_MIN_STACK_SIZE))
		return EINVAL;
	if (a->stacksize)
		pt_default_attr.stacksize = a->stacksize;
	pt_default_attr.guardsize = a->guardsize;
	return 0;
}

/* The thread's actual stack, detach state and scheduling settings. */
int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
	struct sched_thread_info info;
	struct pt_thread *pt = pt_find(pt_sched(thread));
	struct pt_attr *a = pt_attr(attr);
	pthread_attr_init(attr);
	sched_thread_info(pt_sched(thread), &info);
	a->stacktop = info.stack_hi;
	a->stacksize = (size_t)((char *)info.stack_hi - (char *)info.stack_lo);
	a->detachstate = info.detached ? PTHREAD_CREATE_DETACHED : PTHREAD_CREATE_JOINABLE;
	if (pt) {
		if (pt->user_stack)
			a->guardsize = 0;
		a->policy = pt->policy;
		a->param = pt->param;
	}
	return 0;
}
