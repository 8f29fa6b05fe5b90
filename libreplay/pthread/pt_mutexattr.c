/* pt_mutexattr.c: pthread_mutexattr_t is an int: the type in the low bits, then the
 * robust flag, the protocol and the priority ceiling (see pt_impl.h). Process-shared
 * mutexes are refused: green threads live in one process. */
#include "pthread/pt_impl.h"

#include <stdio.h>

static int *ma(pthread_mutexattr_t *a)
{
	return (int *)a;
}

static int get(const pthread_mutexattr_t *a)
{
	return *(const int *)a;
}

int pthread_mutexattr_init(pthread_mutexattr_t *a)
{
	*ma(a) = 0;
	return 0;
}

int pthread_mutexattr_destroy(pthread_mutexattr_t *a)
{
	return 0;
}

int pthread_mutexattr_settype(pthread_mutexattr_t *a, int type)
{
	if (type < PTHREAD_MUTEX_NORMAL || type > PTHREAD_MUTEX_ADAPTIVE_NP)
		return EINVAL;
	*ma(a) = (*ma(a) & ~PT_MA_TYPE_MASK) | type;
	return 0;
}

int pthread_mutexattr_gettype(const pthread_mutexattr_t *a, int *type)
{
	*type = get(a) & PT_MA_TYPE_MASK;
	return 0;
}

/* Every setpshared: private is what we do; shared, between processes, we cannot (the
 * other process's threads are not ours to schedule): ENOTSUP and a note. */
int pt_pshared(int pshared, const char *fn)
{
	if (pshared == PTHREAD_PROCESS_PRIVATE)
		return 0;
	if (pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	rp_say("%s(PTHREAD_PROCESS_SHARED): objects shared with other "
			"processes are not supported", fn);
	return ENOTSUP;
}

int pthread_mutexattr_setpshared(pthread_mutexattr_t *a, int pshared)
{
	return pt_pshared(pshared, "pthread_mutexattr_setpshared");
}

int pthread_mutexattr_getpshared(const pthread_mutexattr_t *a, int *pshared)
{
	*pshared = PTHREAD_PROCESS_PRIVATE;
	return 0;
}

int pthread_mutexattr_setrobust(pthread_mutexattr_t *a, int robustness)
{
	if (robustness == PTHREAD_MUTEX_STALLED)
		*ma(a) &= ~PT_MA_ROBUST;
	else if (robustness == PTHREAD_MUTEX_ROBUST)
		*ma(a) |= PT_MA_ROBUST;
	else
		return EINVAL;
	return 0;
}

int pthread_mutexattr_getrobust(const pthread_mutexattr_t *a, int *robustness)
{
	*robustness = get(a) & PT_MA_ROBUST ? PTHREAD_MUTEX_ROBUST : PTHREAD_MUTEX_STALLED;
	return 0;
}

int pthread_mutexattr_setprotocol(pthread_mutexattr_t *a, int protocol)
{
	if (protocol != PTHREAD_PRIO_NONE && protocol != PTHREAD_PRIO_INHERIT &&
	    protocol != PTHREAD_PRIO_PROTECT)
		return EINVAL;
	*ma(a) = (*ma(a) & ~(3 << PT_MA_PROTO_SHIFT)) | protocol << PT_MA_PROTO_SHIFT;
	return 0;
}

int pthread_mutexattr_getprotocol(const pthread_mutexattr_t *a, int *protocol)
{
	*protocol = get(a) >> PT_MA_PROTO_SHIFT & 3;
	return 0;
}

int pthread_mutexattr_setprioceiling(pthread_mutexattr_t *a, int prioceiling)
{
	if (prioceiling < 0 || prioceiling > 0x7fff)
		return EINVAL;
	*ma(a) = (*ma(a) & ((1 << PT_MA_CEIL_SHIFT) - 1)) | prioceiling << PT_MA_CEIL_SHIFT;
	return 0;
}

int pthread_mutexattr_getprioceiling(const pthread_mutexattr_t *a, int *prioceiling)
{
	*prioceiling = (unsigned)get(a) >> PT_MA_CEIL_SHIFT;
	return 0;
}

int pthread_mutexattr_setkind_np(pthread_mutexattr_t *a, int kind)
{
	return pthread_mutexattr_settype(a, kind);
}

int pthread_mutexattr_getkind_np(const pthread_mutexattr_t *a, int *kind)
{
	return pthread_mutexattr_gettype(a, kind);
}

PT_ALIAS(__pthread_mutexattr_init, pthread_mutexattr_init);
PT_ALIAS(__pthread_mutexattr_destroy, pthread_mutexattr_destroy);
PT_ALIAS(__pthread_mutexattr_settype, pthread_mutexattr_settype);
