/* A pool's hand-off to its workers (the shape of SCTBench's inspect qsort_mt): the
 * dispatcher marks an idle worker busy under the pool's lock, then takes the worker's
 * own lock to give it its job; a worker waits under its own lock until it is busy. A
 * worker that takes its lock for the first time after the dispatcher marked it, and
 * before the dispatcher takes that lock, finds itself busy with no job yet (the bug):
 * it needs the worker's first turn to end right after its first lock, while the
 * dispatcher runs on to it. The worker reads its settings first: its first shared
 * accesses come before that lock. -DFIXED: the worker is marked under its own lock
 * too. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "hunt_bug.h"

#define WORKERS 2

enum { IDLE, BUSY };

struct worker {
	pthread_mutex_t m;
	pthread_cond_t c;
	int state, job;
	int index, weight;
	pthread_t id;
};

static struct worker pool[WORKERS];
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static int scale = 3, offset = 1;

static void *work(void *arg)
{
	struct worker *me = arg;
	int index = me->index;
	long weight = (long)me->weight * scale + offset;
	pthread_mutex_lock(&me->m);
	while (me->state == IDLE)
		pthread_cond_wait(&me->c, &me->m);
	int job = me->job;
	pthread_mutex_unlock(&me->m);
	if (job == 0) {
		printf("worker %d: busy with no job\n", index);
		exit(1);
	}
	pthread_mutex_lock(&pool_lock);
	total += job * weight;
	pthread_mutex_unlock(&pool_lock);
	return NULL;
}

/* Give job to an idle worker. */
static void dispatch(int job)
{
	pthread_mutex_lock(&pool_lock);
	for (int i = 0; i < WORKERS; i++) {
		struct worker *w = &pool[i];
		if (w->state != IDLE)
			continue;
#ifdef FIXED
		pthread_mutex_lock(&w->m);
		w->state = BUSY;
#else
		w->state = BUSY; /* the bug: not under w->m, which the worker checks under */
		pthread_mutex_lock(&w->m);
#endif
		pthread_mutex_unlock(&pool_lock);
		w->job = job;
		pthread_cond_signal(&w->c);
		pthread_mutex_unlock(&w->m);
		return;
	}
	pthread_mutex_unlock(&pool_lock);
}

int main(void)
{
	for (int i = 0; i < WORKERS; i++) {
		pthread_mutex_init(&pool[i].m, NULL);
		pthread_cond_init(&pool[i].c, NULL);
		pool[i].index = i;
		pool[i].weight = i + 1;
		pthread_create(&pool[i].id, NULL, work, &pool[i]);
	}
	for (int j = 1; j <= WORKERS; j++)
		dispatch(j + (int)(hunt_work(100) & 0)); /* each job prepared first */
	for (int i = 0; i < WORKERS; i++)
		pthread_join(pool[i].id, NULL);
	printf("total %ld\n", total);
	return 0;
}
