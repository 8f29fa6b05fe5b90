/* Clean: data published by a release (an atomic read-modify-write) and read after an
 * acquire load of the flag; a counter kept with atomic adds. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static int data[8];
static atomic_int ready;
static atomic_long total;

static void *producer(void *arg)
{
	for (int i = 0; i < 8; i++)
		data[i] = i + 1;
	atomic_fetch_add_explicit(&ready, 1, memory_order_release);
	return arg;
}

static void *consumer(void *arg)
{
	while (atomic_load_explicit(&ready, memory_order_acquire) == 0)
		sched_yield();
	long s = 0;
	for (int i = 0; i < 8; i++)
		s += data[i];
	atomic_fetch_add_explicit(&total, s, memory_order_relaxed);
	return arg;
}

int main(void)
{
	pthread_t p, c[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&c[i], NULL, consumer, NULL);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(c[i], NULL);
	printf("total %ld\n", atomic_load(&total));
	return 0;
}
