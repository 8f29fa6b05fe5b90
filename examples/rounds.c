/* Paper 002, workload 2: the counter incremented in rounds, with synchronization:
 * each round every thread adds under a mutex, then all meet at a barrier. Correct,
 * so the total is always the same; the order in which threads took the lock is not,
 * and its hash shows the interleaving the replay reproduces. */
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ROUNDS = 200, ADDS = 500 };
static long counter, order_hash;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t round_end;

static void *rounds(void *arg)
{
	long id = (long)arg;
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < ADDS; i++) {
			pthread_mutex_lock(&lock);
			counter++;
			order_hash = order_hash * 31 + id;
			pthread_mutex_unlock(&lock);
		}
		pthread_barrier_wait(&round_end);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	pthread_barrier_init(&round_end, NULL, THREADS);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, rounds, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("counter = %ld (expected %d), lock order hash %016lx\n", counter,
	       THREADS * ROUNDS * ADDS, (unsigned long)order_hash);
	return 0;
}
