/* Clean: a counter and each thread's share of it behind a pthread spinlock (taken by
 * pthread_spin_lock, or by pthread_spin_trylock first), long enough for time slices
 * to end inside the lock. */
#include <pthread.h>
#include <stdio.h>

static pthread_spinlock_t spin;
static long counter, shares[3];
static int last;

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 30000; i++) {
		if (id != 2 || pthread_spin_trylock(&spin) != 0)
			pthread_spin_lock(&spin);
		counter += id + 1;
		shares[last] += last != id;
		last = (int)id;
		pthread_spin_unlock(&spin);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("counter %ld\n", counter);
	return 0;
}
