/* Three workers bump a shared total without a lock (bump() is the racy function:
 * a preemption between its load and its store loses updates) and take turns on a
 * mutex; main joins them and prints the total. Every stop under gdb must see the
 * recording's interleaving. */
#include <pthread.h>
#include <stdio.h>

static volatile long total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long turns;

void bump(long id)
{
	long v = total; /* load */
	total = v + id; /* store: racy */
}

static void *work(void *arg)
{
	long id = (long)arg;
	for (long i = 0; i < 3000000; i++) {
		bump(id);
		if (i % 1000000 == 0) {
			pthread_mutex_lock(&lock);
			turns++;
			pthread_mutex_unlock(&lock);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("total = %ld after %ld turns\n", total, turns);
	return 0;
}
