/* Ten threads (main and nine workers) that block on a mutex, wait on a condition
 * variable, yield and compute, so a recording has every kind of switch. Its output
 * does not depend on the interleaving. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define WORKERS 9
#define ROUNDS 1200

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
static long total, ticket;
static volatile long sink;

static void compute(long n)
{
	for (long i = 0; i < n; i++)
		sink += i ^ (sink >> 3);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&lock);
		total += id;
		compute(200);
		pthread_mutex_unlock(&lock);
		if (r % 100 == 0) { /* take turns: a condition variable wait */
			pthread_mutex_lock(&lock);
			while (ticket % WORKERS != id - 1)
				pthread_cond_wait(&turn, &lock);
			ticket++;
			pthread_cond_broadcast(&turn);
			pthread_mutex_unlock(&lock);
		}
		sched_yield();
		compute(2000 * id);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[WORKERS];
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	printf("total %ld, tickets %ld\n", total, ticket);
	return 0;
}
