/* Two threads add to a counter without a lock; its load and its store (volatile) are
 * separate instructions with no counting point between them: only a preemption
 * between the two loses an update. */
#include <pthread.h>
#include <stdio.h>

static volatile long counter;

static void *adder(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		long v = counter;
		counter = v + 1;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, adder, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("counter = %ld%s\n", counter, counter == 2000 ? "" : " (updates lost)");
	return counter != 2000;
}
