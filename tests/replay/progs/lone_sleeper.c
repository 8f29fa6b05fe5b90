/* A thread that works and naps while main sleeps longer: its preemptions are taken
 * while no other thread is runnable, and it goes on after each nap without a switch.
 * The replay must still stop it at each logged preemption (a replay that armed the
 * counter only at switches lost track here). Prints how many rounds it made. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static volatile int done;
static volatile unsigned long sink;

static void *worker(void *arg)
{
	long rounds = 0;
	struct timespec nap = {0, 1000000};
	while (!done) {
		for (int i = 0; i < 20000; i++)
			sink += (unsigned long)i * 7;
		nanosleep(&nap, NULL);
		rounds++;
	}
	return (void *)rounds;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	struct timespec wait = {0, 150000000};
	nanosleep(&wait, NULL);
	done = 1;
	void *rounds;
	pthread_join(t, &rounds);
	printf("worker rounds: %ld\n", (long)rounds);
	return 0;
}
