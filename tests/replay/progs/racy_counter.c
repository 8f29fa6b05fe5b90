/* Lost updates in straight-line code: four threads increment a shared counter with
 * no lock. A preemption between the load and the store loses increments, so the
 * total varies from run to run; a replay must reproduce its recording's total. */
#include <pthread.h>
#include <stdio.h>

static volatile long counter;

static void *work(void *arg)
{
	for (long i = 0; i < 1500000; i++)
		counter++; /* load, add, store: not atomic */
	return arg;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("counter = %ld (%s)\n", counter, counter == 6000000 ? "no update lost" : "updates lost");
	return 0;
}
