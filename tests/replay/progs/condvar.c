/* Producers and consumers on a bounded queue with a mutex and two condition
 * variables; consumers record which items they got, so the hash of who-got-what
 * depends on the interleaving. */
#include <pthread.h>
#include <stdio.h>

#define ITEMS 1000000
static int queue[8], head, tail, count, produced, consumed;
static long who[4];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;

static void *producer(void *arg)
{
	for (;;) {
		pthread_mutex_lock(&m);
		while (count == 8 && produced < ITEMS)
			pthread_cond_wait(&not_full, &m);
		if (produced == ITEMS) {
			pthread_cond_broadcast(&not_empty);
			pthread_mutex_unlock(&m);
			return NULL;
		}
		queue[tail] = produced++;
		tail = (tail + 1) % 8;
		count++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&m);
		for (volatile int spin = 0; spin < 50; spin++)
			;
	}
}

static void *consumer(void *arg)
{
	long id = (long)arg;
	for (;;) {
		pthread_mutex_lock(&m);
		while (count == 0 && consumed < ITEMS)
			pthread_cond_wait(&not_empty, &m);
		if (consumed == ITEMS) {
			pthread_cond_broadcast(&not_empty);
			pthread_mutex_unlock(&m);
			return NULL;
		}
		int item = queue[head];
		head = (head + 1) % 8;
		count--;
		consumed++;
		who[id] = who[id] * 31 + item;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&m);
		for (volatile int spin = 0; spin < 80; spin++)
			;
	}
}

int main(void)
{
	pthread_t p[2], c[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&c[i], NULL, consumer, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_create(&p[i], NULL, producer, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(c[i], NULL);
	printf("consumed %d; shares %ld %ld %ld %ld\n", consumed, who[0], who[1], who[2], who[3]);
	return 0;
}
