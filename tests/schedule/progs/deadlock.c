/* Two threads take two mutexes in opposite orders: a deadlock whenever one is
 * preempted between its two locks while the other takes its first. A third thread
 * exits unjoined, so the report must not count it among the blocked ones. */
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static volatile long shared;

static void *a_then_b(void *arg)
{
	for (int i = 0; i < 200; i++) {
		pthread_mutex_lock(&lock_a);
		pthread_mutex_lock(&lock_b);
		shared++;
		pthread_mutex_unlock(&lock_b);
		pthread_mutex_unlock(&lock_a);
	}
	return NULL;
}

static void *b_then_a(void *arg)
{
	for (int i = 0; i < 200; i++) {
		pthread_mutex_lock(&lock_b);
		pthread_mutex_lock(&lock_a);
		shared++;
		pthread_mutex_unlock(&lock_a);
		pthread_mutex_unlock(&lock_b);
	}
	return NULL;
}

static void *quick(void *arg)
{
	return NULL;
}

int main(void)
{
	pthread_t t1, t2, t3;
	pthread_create(&t3, NULL, quick, NULL);
	pthread_create(&t1, NULL, a_then_b, NULL);
	pthread_create(&t2, NULL, b_then_a, NULL);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("no deadlock: %ld\n", shared);
	return 0;
}
