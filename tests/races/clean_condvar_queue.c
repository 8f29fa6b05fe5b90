/* Clean: a queue handed between threads under a mutex and two condvars. */
#include <pthread.h>
#include <stdio.h>

#define N 64
static int items[4];
static int head, tail, count, sum;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;

static void *producer(void *arg)
{
	for (int i = 1; i <= N; i++) {
		pthread_mutex_lock(&lock);
		while (count == 4)
			pthread_cond_wait(&not_full, &lock);
		items[tail] = i;
		tail = (tail + 1) % 4;
		count++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

static void *consumer(void *arg)
{
	for (int i = 0; i < N / 2; i++) {
		pthread_mutex_lock(&lock);
		while (count == 0)
			pthread_cond_wait(&not_empty, &lock);
		sum += items[head];
		head = (head + 1) % 4;
		count--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

int main(void)
{
	pthread_t p, c[2];
	pthread_create(&p, NULL, producer, NULL);
	for (int i = 0; i < 2; i++)
		pthread_create(&c[i], NULL, consumer, NULL);
	pthread_join(p, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(c[i], NULL);
	printf("sum %d\n", sum);
	return 0;
}
