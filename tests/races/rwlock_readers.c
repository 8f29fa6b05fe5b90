/* Race: two readers under a read lock both write a statistics counter: the read lock
 * lets them in together, and orders neither after the other. */
#include <pthread.h>
#include <stdio.h>

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static int table[4] = {1, 2, 3, 4};
static long lookups;

static void *reader(void *arg)
{
	for (int i = 0; i < 100; i++) {
		pthread_rwlock_rdlock(&lock);
		int v = table[i % 4];
		lookups += v > 0; /* RACE RACE */
		pthread_rwlock_unlock(&lock);
	}
	return arg;
}

int main(void)
{
	pthread_t r[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&r[i], NULL, reader, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	printf("lookups %ld\n", lookups);
	return 0;
}
