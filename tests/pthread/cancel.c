/* cancel: deferred cancellation at pthread_testcancel, in pthread_cond_wait (the
 * handler finds the mutex held), in a sleep, in pthread_join; disabled cancellation
 * waits until enabled; cancelling an exited thread is not an error. */
#include "pt_test.h"

static char log_[512];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void note(void *what)
{
	pthread_mutex_lock(&log_lock);
	strcat(log_, what);
	strcat(log_, " ");
	pthread_mutex_unlock(&log_lock);
}

static sem_t started, go;

static void *spins(void *arg)
{
	pthread_cleanup_push(note, "testcancel-handler");
	sem_post(&started);
	for (;;) {
		pthread_testcancel();
		sched_yield();
	}
	pthread_cleanup_pop(0);
	return NULL;
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int cond_waiters;

static void unlock_m(void *arg)
{
	/* the mutex is held again when the handler runs */
	note(pthread_mutex_trylock(&m) == EBUSY ? "cond-handler(held)" : "cond-handler(free?)");
	pthread_mutex_unlock(&m);
}

static void *waits_on_cond(void *arg)
{
	pthread_mutex_lock(&m);
	cond_waiters++;
	pthread_cleanup_push(unlock_m, NULL);
	for (;;)
		pthread_cond_wait(&c, &m);
	pthread_cleanup_pop(1);
	return NULL;
}

static void *sleeps(void *arg)
{
	pthread_cleanup_push(note, "sleep-handler");
	sem_post(&started);
	for (;;)
		usleep(2000);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *disabled(void *arg)
{
	int old;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	sem_post(&started);
	sem_wait(&go); /* main cancels, then posts */
	pthread_testcancel(); /* disabled: nothing */
	usleep(1000);
	note("still-running");
	pthread_cleanup_push(note, "enabled-handler");
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	pthread_testcancel();
	pthread_cleanup_pop(0);
	return NULL;
}

static void *returns_at_once(void *arg)
{
	return (void *)5;
}

static void check(const char *what, pthread_t t)
{
	void *r = NULL;
	pthread_join(t, &r);
	printf("%s: %s, log: %s\n", what, r == PTHREAD_CANCELED ? "canceled" : "not canceled",
	       log_);
	log_[0] = 0;
}

int main(void)
{
	pthread_t t, w[3];
	sem_init(&started, 0, 0);
	sem_init(&go, 0, 0);

	pthread_create(&t, NULL, spins, NULL);
	sem_wait(&started);
	SHOW(pthread_cancel(t));
	check("testcancel", t);

	for (int i = 0; i < 3; i++)
		pthread_create(&w[i], NULL, waits_on_cond, NULL);
	for (;;) { /* until all three wait */
		pthread_mutex_lock(&m);
		int n = cond_waiters;
		pthread_mutex_unlock(&m);
		if (n == 3)
			break;
		usleep(1000);
	}
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	pthread_cancel(w[1]);
	check("cond_wait (middle waiter)", w[1]);
	pthread_cancel(w[0]);
	check("cond_wait (first waiter)", w[0]);
	pthread_cancel(w[2]);
	check("cond_wait (last waiter)", w[2]);
	SHOW(pthread_mutex_trylock(&m));
	pthread_mutex_unlock(&m);

	pthread_create(&t, NULL, sleeps, NULL);
	sem_wait(&started);
	usleep(5000);
	pthread_cancel(t);
	check("usleep", t);

	pthread_create(&t, NULL, disabled, NULL);
	sem_wait(&started);
	pthread_cancel(t);
	sem_post(&go);
	check("disabled, then enabled", t);

	pthread_create(&t, NULL, returns_at_once, NULL);
	usleep(10000);
	SHOW(pthread_cancel(t));
	check("cancelled after it returned", t);

	int old = -1;
	SHOW(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old));
	printf("default state enabled: %s\n", old == PTHREAD_CANCEL_ENABLE ? "yes" : "no");
	SHOW(pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old));
	printf("default type deferred: %s\n", old == PTHREAD_CANCEL_DEFERRED ? "yes" : "no");
	SHOW(pthread_setcancelstate(42, &old));
	return 0;
}
