/* An order violation: the producer raises the "ready" flag, then stores the result
 * it announces. A consumer spinning on the flag that runs between the two reads a
 * result that is not there yet. -DFIXED: the result is stored first, and the flag
 * is a release store. */
#include <pthread.h>
#include <stdio.h>

#include "hunt_bug.h"

static volatile int ready;
static volatile long result;

static long compute(void)
{
	return 42 + (long)(hunt_work(10) & 0);
}

static void *producer(void *arg)
{
	hunt_work(3000);
#ifdef FIXED
	result = compute();
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
#else
	ready = 1; /* the bug: announced before it is there */
	result = compute();
#endif
	return arg;
}

static void *consumer(void *arg)
{
	while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
	return (void *)result;
}

int main(void)
{
	pthread_t p, c;
	void *got;
	pthread_create(&c, NULL, consumer, NULL);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, &got);
	if ((long)got != 42) {
		printf("consumer read result %ld before it was set\n", (long)got);
		return 1;
	}
	printf("consumer read result %ld\n", (long)got);
	return 0;
}
