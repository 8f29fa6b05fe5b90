/* spin: spinlocks guard a counter under contention, trylock fails while held, and a
 * holder that sleeps lets the spinner through only after it unlocks. */
#include "pt_test.h"

static pthread_spinlock_t lock;
static long counter;

static void *add(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		pthread_spin_lock(&lock);
		long v = counter;
		if (i % 1000 == 0)
			sched_yield(); /* holding it */
		counter = v + 1;
		pthread_spin_unlock(&lock);
	}
	return NULL;
}

static pthread_spinlock_t slow;
static sem_t holding;
static char order[8];
static int norder;

static void *sleepy_holder(void *arg)
{
	pthread_spin_lock(&slow);
	sem_post(&holding);
	usleep(20000);
	order[norder++] = 'H';
	pthread_spin_unlock(&slow);
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	SHOW(pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE));
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, add, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("counter %ld (want 80000)\n", counter);

	SHOW(pthread_spin_trylock(&lock));
	SHOW(pthread_spin_trylock(&lock));
	SHOW(pthread_spin_unlock(&lock));
	SHOW(pthread_spin_trylock(&lock));
	SHOW(pthread_spin_unlock(&lock));
	SHOW(pthread_spin_destroy(&lock));

	pthread_spin_init(&slow, PTHREAD_PROCESS_PRIVATE);
	sem_init(&holding, 0, 0);
	pthread_create(&t[0], NULL, sleepy_holder, NULL);
	sem_wait(&holding);
	pthread_spin_lock(&slow);
	order[norder++] = 'S';
	pthread_spin_unlock(&slow);
	pthread_join(t[0], NULL);
	printf("order: %s\n", order);
	return 0;
}
