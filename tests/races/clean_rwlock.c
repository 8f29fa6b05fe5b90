/* Clean: a table behind a read-write lock: writers (one by wrlock, one by trywrlock
 * first) change it, readers (one by rdlock, one by tryrdlock first) add it up. */
#include <pthread.h>
#include <stdio.h>

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static int table[16];
static long sums[2];

static void *writer(void *arg)
{
	long w = (long)arg;
	for (int round = 0; round < 50; round++) {
		if (w == 0 || pthread_rwlock_trywrlock(&lock) != 0)
			pthread_rwlock_wrlock(&lock);
		for (int i = 0; i < 16; i++)
			table[i] += 1;
		pthread_rwlock_unlock(&lock);
	}
	return NULL;
}

static void *reader(void *arg)
{
	long r = (long)arg;
	for (int round = 0; round < 50; round++) {
		if (r == 0 || pthread_rwlock_tryrdlock(&lock) != 0)
			pthread_rwlock_rdlock(&lock);
		int s = 0;
		for (int i = 0; i < 16; i++)
			s += table[i];
		pthread_rwlock_unlock(&lock);
		sums[r] += s % 16 == 0; /* a writer's round is whole */
	}
	return NULL;
}

int main(void)
{
	pthread_t w[2], r[2];
	for (long i = 0; i < 2; i++) {
		pthread_create(&w[i], NULL, writer, (void *)i);
		pthread_create(&r[i], NULL, reader, (void *)i);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(w[i], NULL);
		pthread_join(r[i], NULL);
	}
	printf("table[0] %d, whole rounds seen %ld %ld\n", table[0], sums[0], sums[1]);
	return 0;
}
