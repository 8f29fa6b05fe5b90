/* cancel_points: pthread_cancel ends a thread blocked in each standard cancellation
 * point the layer provides (every one a long or endless wait): nanosleep,
 * clock_nanosleep, sleep, usleep, pthread_cond_wait and timedwait, sem_wait,
 * sem_timedwait, sem_clockwait, pthread_join, pthread_timedjoin_np, sigwait,
 * sigtimedwait, sigsuspend, pause; its cleanup handler runs and join reports
 * PTHREAD_CANCELED. Whether the request comes before the call or during it, the
 * outcome is the same. */
#include "pt_test.h"

#include <signal.h>
#include <stdbool.h>

static sem_t started, never;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pthread_t forever; /* a thread nobody ends until the last */
static volatile int handler_ran;

static void cleanup(void *arg)
{
	handler_ran = 1;
	if (arg)
		pthread_mutex_unlock(arg); /* cancelled in a condvar wait: we hold it */
}

static struct timespec far(clockid_t clk)
{
	return in_ms(clk, 60 * 1000);
}

static void *block_in(void *arg)
{
	const char *what = arg;
	sigset_t usr2;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	struct timespec ts = {60, 0}, abs;
	bool cond = !strncmp(what, "pthread_cond", 12);
	if (cond)
		pthread_mutex_lock(&m);
	pthread_cleanup_push(cleanup, cond ? &m : NULL);
	sem_post(&started);
	if (!strcmp(what, "nanosleep"))
		nanosleep(&ts, NULL);
	else if (!strcmp(what, "clock_nanosleep")) {
		abs = far(CLOCK_MONOTONIC);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL);
	} else if (!strcmp(what, "sleep"))
		sleep(60);
	else if (!strcmp(what, "usleep"))
		usleep(60 * 1000000u - 1);
	else if (!strcmp(what, "pthread_cond_wait"))
		for (;;)
			pthread_cond_wait(&c, &m);
	else if (!strcmp(what, "pthread_cond_timedwait")) {
		abs = far(CLOCK_REALTIME);
		pthread_cond_timedwait(&c, &m, &abs);
	} else if (!strcmp(what, "sem_wait"))
		sem_wait(&never);
	else if (!strcmp(what, "sem_timedwait")) {
		abs = far(CLOCK_REALTIME);
		sem_timedwait(&never, &abs);
	} else if (!strcmp(what, "sem_clockwait")) {
		abs = far(CLOCK_MONOTONIC);
		sem_clockwait(&never, CLOCK_MONOTONIC, &abs);
	} else if (!strcmp(what, "pthread_join"))
		pthread_join(forever, NULL);
	else if (!strcmp(what, "pthread_timedjoin_np")) {
		abs = far(CLOCK_REALTIME);
		pthread_timedjoin_np(forever, NULL, &abs);
	} else if (!strcmp(what, "sigwait")) {
		int sig;
		sigwait(&usr2, &sig);
	} else if (!strcmp(what, "sigtimedwait"))
		sigtimedwait(&usr2, NULL, &ts);
	else if (!strcmp(what, "sigsuspend")) {
		sigset_t all;
		sigfillset(&all);
		sigsuspend(&all);
	} else if (!strcmp(what, "pause"))
		pause();
	printf("%s returned (NO)\n", what);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *wait_forever(void *arg)
{
	sem_wait(&never);
	return NULL;
}

int main(void)
{
	static const char *points[] = {
		"nanosleep", "clock_nanosleep", "sleep", "usleep", "pthread_cond_wait",
		"pthread_cond_timedwait", "sem_wait", "sem_timedwait", "sem_clockwait",
		"pthread_join", "pthread_timedjoin_np", "sigwait", "sigtimedwait",
		"sigsuspend", "pause",
	};
	sigset_t usr2;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &usr2, NULL);
	sem_init(&started, 0, 0);
	sem_init(&never, 0, 0);
	pthread_create(&forever, NULL, wait_forever, NULL);
	for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
		for (int early = 0; early < 2; early++) {
			pthread_t t;
			void *ret = NULL;
			handler_ran = 0;
			pthread_create(&t, NULL, block_in, (void *)points[i]);
			if (early)
				pthread_cancel(t); /* before it even started */
			sem_wait(&started);
			if (!early) {
				usleep(1000); /* most likely inside the call by now: either is fine */
				pthread_cancel(t);
			}
			pthread_join(t, &ret);
			printf("%s (%s): cancelled %s, handler ran %s\n", points[i],
			       early ? "request first" : "request during",
			       ret == PTHREAD_CANCELED ? "yes" : "NO", handler_ran ? "yes" : "NO");
		}
	}
	/* The condvar waiters left the mutex free. */
	SHOW(pthread_mutex_trylock(&m));
	pthread_cancel(forever);
	pthread_join(forever, NULL);
	return 0;
}
