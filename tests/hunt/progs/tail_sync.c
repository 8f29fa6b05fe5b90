/* A job queue whose add and take end in tail jumps to pthread_mutex_unlock (gcc -O2
 * compiles `...; return pthread_mutex_unlock(&q->lock);` in tail_sync_queue.c so):
 * the program's call to them (direct, or through a function pointer) is not the call
 * of the synchronization function. Workers log the order they took the jobs in; main
 * prints it. */
#include <pthread.h>
#include <stdio.h>

#include "tail_sync.h"

#define JOBS 400
#define WORKERS 3

static struct queue q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
static int order[JOBS];
static int taken;
int (*add_fn)(struct queue *, int) = queue_add;

static void *worker(void *arg)
{
	long me = (long)arg;
	int job;
	while (queue_take(&q, &job) == 0 && job >= 0) {
		pthread_mutex_lock(&q.lock);
		order[taken++] = job * 4 + (int)me;
		pthread_mutex_unlock(&q.lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[WORKERS];
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int j = 0; j < JOBS; j++)
		if (j % 2)
			queue_add(&q, j);
		else
			add_fn(&q, j); /* call *add_fn(%rip): ff 15, the bytes of a GOT call */
	for (int i = 0; i < WORKERS; i++)
		queue_add(&q, -1);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	unsigned long h = 0;
	for (int j = 0; j < taken; j++)
		h = h * 1000003 + (unsigned)order[j];
	printf("%d jobs taken, order hash %lx\n", taken, h);
	return 0;
}
