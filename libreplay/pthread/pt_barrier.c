/* pt_barrier.c: barriers are sched's: the last thread of each round is the serial
 * thread (PTHREAD_BARRIER_SERIAL_THREAD). */
#include "pthread/pt_impl.h"

static struct sched_barrier *bar(pthread_barrier_t *b)
{
	return (struct sched_barrier *)b;
}

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr,
			 unsigned count)
{
	return sched_barrier_init(bar(b), count);
}

int pthread_barrier_destroy(pthread_barrier_t *b)
{
	return sched_barrier_destroy(bar(b));
}

int pthread_barrier_wait(pthread_barrier_t *b)
{
	RP_RACE_SYNC(b, RP_RACE_RELEASE); /* everyone's arrival before anyone leaves */
	int r = PT_SYNC(sched_barrier_wait(bar(b)));
	RP_RACE_SYNC(b, RP_RACE_ACQUIRE);
	return r;
}

int pthread_barrierattr_init(pthread_barrierattr_t *a)
{
	*(int *)a = 0;
	return 0;
}

int pthread_barrierattr_destroy(pthread_barrierattr_t *a)
{
	return 0;
}

int pthread_barrierattr_setpshared(pthread_barrierattr_t *a, int pshared)
{
	return pt_pshared(pshared, "pthread_barrierattr_setpshared");
}

int pthread_barrierattr_getpshared(const pthread_barrierattr_t *a, int *pshared)
{
	*pshared = PTHREAD_PROCESS_PRIVATE;
	return 0;
}
