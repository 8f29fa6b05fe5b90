/* An order violation: main starts the worker, then sets up the configuration the
 * worker reads at once. If the worker runs in the few instructions between
 * pthread_create and the assignment, it reads a NULL pointer and crashes
 * (SIGSEGV). -DFIXED: the configuration is set up before the worker starts. */
#include <pthread.h>
#include <stdio.h>

#include "hunt_bug.h"

struct config {
	int rounds;
	int step;
};

static struct config *volatile config;

static struct config *load_config(void)
{
	static struct config c = {.rounds = 1000, .step = 3};
	return &c;
}

static void *worker(void *arg)
{
	long sum = 0;
	int rounds = config->rounds; /* the bug: config may not be set yet */
	for (int i = 0; i < rounds; i++)
		sum += config->step + (long)hunt_work(20);
	return (void *)sum;
}

int main(void)
{
	pthread_t t;
	void *sum;
	hunt_work(2000);
#ifdef FIXED
	config = load_config();
	pthread_create(&t, NULL, worker, NULL);
#else
	pthread_create(&t, NULL, worker, NULL);
	config = load_config();
#endif
	hunt_work(20000);
	pthread_join(t, &sum);
	printf("sum %ld\n", (long)sum);
	return 0;
}
