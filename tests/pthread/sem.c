/* sem: counting semaphores: producer/consumer, a semaphore as a mutex, trywait and
 * timed waits, the value limits, errors through errno. */
#include "pt_test.h"

#include <limits.h>

static sem_t items, slots, mutex;
static long produced, consumed, shared;

static void *producer(void *arg)
{
	for (long i = 1; i <= 3000; i++) {
		sem_wait(&slots);
		produced += i;
		sem_post(&items);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	for (int i = 0; i < 3000; i++) {
		sem_wait(&items);
		consumed++;
		sem_post(&slots);
	}
	return NULL;
}

static void *incrementer(void *arg)
{
	for (int i = 0; i < 10000; i++) {
		sem_wait(&mutex);
		long v = shared;
		if (i % 500 == 0)
			sched_yield();
		shared = v + 1;
		sem_post(&mutex);
	}
	return NULL;
}

int main(void)
{
	pthread_t p, c, t[4];
	int v = -1;

	SHOW_ERRNO(sem_init(&items, 0, 0));
	SHOW_ERRNO(sem_init(&slots, 0, 8));
	pthread_create(&c, NULL, consumer, NULL);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	sem_getvalue(&items, &v);
	printf("produced %ld, consumed %ld, items left %d\n", produced, consumed, v);
	sem_getvalue(&slots, &v);
	printf("slots value %d\n", v);

	sem_init(&mutex, 0, 1);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, incrementer, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("semaphore as mutex: %ld (want 40000)\n", shared);

	sem_t s;
	struct timespec past = {0, 0}, bad = {0, 1000000000L};
	sem_init(&s, 0, 0);
	SHOW_ERRNO(sem_trywait(&s));
	SHOW_ERRNO(sem_timedwait(&s, &past));
	SHOW_ERRNO(sem_timedwait(&s, &bad));
	struct timespec soon = in_ms(CLOCK_REALTIME, 20), t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	SHOW_ERRNO(sem_timedwait(&s, &soon));
	CHECK("timed wait lasted 20 ms", ms_since(CLOCK_MONOTONIC, &t0) >= 20);
	soon = in_ms(CLOCK_MONOTONIC, 20);
	SHOW_ERRNO(sem_clockwait(&s, CLOCK_MONOTONIC, &soon));
	SHOW_ERRNO(sem_post(&s));
	SHOW_ERRNO(sem_timedwait(&s, &bad)); /* available: the time is not looked at */
	SHOW_ERRNO(sem_post(&s));
	SHOW_ERRNO(sem_post(&s));
	sem_getvalue(&s, &v);
	printf("value after two posts: %d\n", v);
	SHOW_ERRNO(sem_trywait(&s));
	SHOW_ERRNO(sem_wait(&s));
	SHOW_ERRNO(sem_destroy(&s));

	SHOW_ERRNO(sem_init(&s, 0, SEM_VALUE_MAX));
	SHOW_ERRNO(sem_post(&s));
	SHOW_ERRNO(sem_init(&s, 0, (unsigned)SEM_VALUE_MAX + 1));
	return 0;
}
