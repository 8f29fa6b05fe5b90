/* A poller that sleeps (pbzip2-0.9.4's writer, SCTBench): the writer polls with usleep
 * for a worker's result; main joins only the writer, then closes the queue and waits
 * for the worker. The worker hands its result over, then takes the queue's lock once
 * more (the bug: it touches the queue after the hand-over, which main may have closed
 * by then). The bug needs the worker stopped between the two, a few instructions,
 * while the writer's sleep ends, it sees the result and exits and main closes the
 * queue. Then the worker is the only runnable thread (the writer sleeps, main joins):
 * a scheduler that runs a runnable thread rather than wait for a sleeper never shows
 * it, whatever its priorities. -DFIXED: the worker's last look comes before the
 * hand-over. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hunt_bug.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;
static int polling, result_ready, closed;
static unsigned long result;

/* The worker's look at the queue: it must still be open. */
static void use_queue(void)
{
	pthread_mutex_lock(&m);
	if (closed) {
		printf("worker: queue used after it was closed\n");
		exit(1);
	}
	pthread_mutex_unlock(&m);
}

static void *worker(void *arg)
{
	unsigned long r = hunt_work(2000);
#ifdef FIXED
	use_queue();
#endif
	pthread_mutex_lock(&m);
	result = r;
	result_ready = 1; /* the hand-over */
	pthread_mutex_unlock(&m);
#ifndef FIXED
	use_queue(); /* the bug: after the hand-over */
#endif
	return arg;
}

static void *writer(void *arg)
{
	int ready;
	pthread_mutex_lock(&m);
	polling = 1; /* its first look, before the worker exists */
	ready = result_ready;
	pthread_cond_signal(&started);
	pthread_mutex_unlock(&m);
	while (!ready) {
		usleep(20000);
		pthread_mutex_lock(&m);
		ready = result_ready;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(void)
{
	pthread_t w, k;
	pthread_create(&w, NULL, writer, NULL);
	pthread_mutex_lock(&m);
	while (!polling)
		pthread_cond_wait(&started, &m);
	pthread_mutex_unlock(&m);
	pthread_create(&k, NULL, worker, NULL);
	pthread_join(w, NULL); /* the writer alone */
	pthread_mutex_lock(&m);
	closed = 1;
	pthread_mutex_unlock(&m);
	pthread_join(k, NULL);
	return result == 0 ? 2 : 0;
}
