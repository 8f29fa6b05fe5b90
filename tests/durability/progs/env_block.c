/* A worker that waits on a condition variable only when ENV_BLOCK_WAIT is set, with an
 * absolute deadline far ahead (no clock is read), or loops for ever when
 * ENV_BLOCK_SPIN is set. Recorded without them and replayed with one, every thread
 * ends up waiting (main joins, the worker waits for its deadline) while the log
 * expects the worker to go on, or the worker runs past where it ended: the replay must
 * say so at once, naming the environment, not wait for a record that never comes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long sum;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

static void *worker(void *arg)
{
	if (getenv("ENV_BLOCK_WAIT")) {
		struct timespec far = {4000000000, 0}; /* in 2096 */
		pthread_mutex_lock(&m);
		pthread_cond_timedwait(&c, &m, &far);
		pthread_mutex_unlock(&m);
	}
	for (long i = 0; i < 3000000 || getenv("ENV_BLOCK_SPIN"); i++)
		sum += i & 3;
	return arg;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	printf("sum %ld\n", sum);
	return 0;
}
