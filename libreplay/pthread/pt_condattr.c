/* pt_condattr.c: pthread_condattr_t is an int holding the clock of timed waits. */
#include "pthread/pt_impl.h"

static int *ca(pthread_condattr_t *a)
{
	return (int *)a;
}

int pthread_condattr_init(pthread_condattr_t *a)
{
	*ca(a) = CLOCK_REALTIME << PT_CA_CLOCK_SHIFT;
	return 0;
}

int pthread_condattr_destroy(pthread_condattr_t *a)
{
	return 0;
}

int pthread_condattr_setclock(pthread_condattr_t *a, clockid_t clk)
{
	if (!pt_clock_ok(clk))
		return EINVAL;
	*ca(a) = clk << PT_CA_CLOCK_SHIFT;
	return 0;
}

int pthread_condattr_getclock(const pthread_condattr_t *a, clockid_t *clk)
{
	*clk = *(const int *)a >> PT_CA_CLOCK_SHIFT;
	return 0;
}

int pthread_condattr_setpshared(pthread_condattr_t *a, int pshared)
{
	return pt_pshared(pshared, "pthread_condattr_setpshared");
}

int pthread_condattr_getpshared(const pthread_condattr_t *a, int *pshared)
{
	*pshared = PTHREAD_PROCESS_PRIVATE;
	return 0;
}
