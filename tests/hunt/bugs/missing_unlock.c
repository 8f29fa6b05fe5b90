/* A deadlock by a missing unlock: workers count under a lock until main says stop.
 * A worker that sees the stop flag only once it holds the lock (main set it in
 * the few instructions between the worker's check and its lock) returns without
 * unlocking; the other worker then waits for the lock forever, and main for it.
 * -DFIXED: that path unlocks. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#include "hunt_bug.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static long count;

static void *worker(void *arg)
{
	while (!stop) {
		/* the window: main may set stop here */
		pthread_mutex_lock(&lock);
		if (stop) {
#ifdef FIXED
			pthread_mutex_unlock(&lock);
#endif
			return NULL; /* the bug: the lock stays taken */
		}
		count++;
		pthread_mutex_unlock(&lock);
		hunt_work(400);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	while (__atomic_load_n(&count, __ATOMIC_RELAXED) < 200)
		sched_yield();
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("stopped after counting to %s\n", count >= 200 ? "200 or more" : "less");
	return 0;
}
