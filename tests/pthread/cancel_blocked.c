/* cancel_blocked: pthread_cancel wakes a thread blocked for good in sem_wait, in
 * pthread_join, or in a long sleep, and it exits at once through its handlers.
 * Without sched_interrupt the layer wakes only condvar waiters (README.md): the
 * first case deadlocks.
 * (sched_interrupt wakes it.) */
#include "pt_test.h"

static char log_[256];

static void note(void *what)
{
	strcat(log_, what);
	strcat(log_, " ");
}

static sem_t never, started;

static void *waits_sem(void *arg)
{
	pthread_cleanup_push(note, "sem-handler");
	sem_post(&started);
	sem_wait(&never);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *waits_forever(void *arg)
{
	sem_wait(&never);
	return NULL;
}

static void *joins(void *arg)
{
	pthread_cleanup_push(note, "join-handler");
	sem_post(&started);
	pthread_join(*(pthread_t *)arg, NULL);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *sleeps(void *arg)
{
	pthread_cleanup_push(note, "sleep-handler");
	sem_post(&started);
	sleep(5);
	pthread_cleanup_pop(0);
	return NULL;
}

static void cancel_and_join(const char *what, pthread_t t)
{
	struct timespec t0;
	void *r = NULL;
	usleep(2000); /* let it block */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_cancel(t);
	pthread_join(t, &r);
	printf("%s: %s within a second: %s; log: %s\n", what,
	       r == PTHREAD_CANCELED ? "canceled" : "not canceled",
	       ms_since(CLOCK_MONOTONIC, &t0) < 1000 ? "yes" : "no", log_);
	log_[0] = 0;
}

int main(void)
{
	pthread_t t, target;
	sem_init(&never, 0, 0);
	sem_init(&started, 0, 0);

	pthread_create(&t, NULL, waits_sem, NULL);
	sem_wait(&started);
	cancel_and_join("sem_wait", t);

	pthread_create(&target, NULL, waits_forever, NULL);
	pthread_create(&t, NULL, joins, &target);
	sem_wait(&started);
	cancel_and_join("pthread_join", t);
	pthread_cancel(target);
	sem_post(&never); /* glibc: a thread waiting in sem_wait may take the unit instead */
	pthread_join(target, NULL);

	pthread_create(&t, NULL, sleeps, NULL);
	sem_wait(&started);
	cancel_and_join("sleep", t);
	return 0;
}
