/* lock_loop: two threads lock and unlock one mutex in a loop, with a little work
 * inside: how much log a loop of lock/unlock writes.
 *   lock_loop [ITERATIONS]   per thread (default 10000000) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static long iters = 10000000;

static void *worker(void *arg)
{
	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		iters = atol(argv[1]);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("lock_loop: counter %ld\n", counter);
	return counter != 2 * iters;
}
