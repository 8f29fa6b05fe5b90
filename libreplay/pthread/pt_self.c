/* pt_self.c: a thread's identity is its struct sched_thread. */
#include "pthread/pt_impl.h"

pthread_t pthread_self(void)
{
	return (pthread_t)sched_current();
}

int pthread_equal(pthread_t a, pthread_t b)
{
	return a == b;
}
