/* Two threads add to a counter without a lock; its load and its store (volatile) are
 * separate instructions with no counting point between them: only a preemption
 * between the two loses an update. Each adds 1000 times, or argv[1] times. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long counter;
static long rounds = 1000;

static void *adder(void *arg)
{
	for (long i = 0; i < rounds; i++) {
		long v = counter;
		counter = v + 1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atol(argv[1]);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, adder, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("counter = %ld%s\n", counter, counter == 2 * rounds ? "" : " (updates lost)");
	return counter != 2 * rounds;
}
