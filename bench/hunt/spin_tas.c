/* spin_tas: threads increment a counter under a test-and-set spin lock (spinning
 * with pause while it is taken), with some work inside and outside the lock.
 *   spin_tas [ITERATIONS]   per thread, of 3 threads (default 1000000) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 3

static volatile char lock;
static long counter;
static int iters = 1000000;

static unsigned long work(unsigned n)
{
	volatile unsigned long x = 0;
	for (unsigned i = 0; i < n; i++)
		x += i;
	return x;
}

static void *worker(void *arg)
{
	for (int i = 0; i < iters; i++) {
		while (__atomic_test_and_set(&lock, __ATOMIC_ACQUIRE))
			__builtin_ia32_pause();
		counter++;
		work(20);
		__atomic_clear(&lock, __ATOMIC_RELEASE);
		work(200);
	}
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		iters = atoi(argv[1]);
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("spin_tas: counter %ld of %ld\n", counter, (long)THREADS * iters);
	return counter != (long)THREADS * iters;
}
