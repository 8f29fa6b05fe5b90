/* Clean: a ring of slots handed from a producer to a consumer by two semaphores alone
 * (free slots, full slots; the consumer tries sem_trywait first at times), and a
 * result handed back by a third. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#define SLOTS 4
static sem_t free_slots, full_slots, done;
static long ring[SLOTS];
static long result;

static void *producer(void *arg)
{
	for (long i = 0; i < 200; i++) {
		sem_wait(&free_slots);
		ring[i % SLOTS] = i * i;
		sem_post(&full_slots);
	}
	return arg;
}

static void *consumer(void *arg)
{
	long s = 0;
	for (long i = 0; i < 200; i++) {
		if (i % 3 != 0 || sem_trywait(&full_slots) != 0)
			sem_wait(&full_slots);
		s += ring[i % SLOTS];
		sem_post(&free_slots);
	}
	result = s;
	sem_post(&done);
	return arg;
}

int main(void)
{
	pthread_t p, c;
	sem_init(&free_slots, 0, SLOTS);
	sem_init(&full_slots, 0, 0);
	sem_init(&done, 0, 0);
	pthread_create(&c, NULL, consumer, NULL);
	pthread_create(&p, NULL, producer, NULL);
	sem_wait(&done);
	printf("sum of squares %ld\n", result); /* before the joins: the semaphore orders it */
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	return 0;
}
