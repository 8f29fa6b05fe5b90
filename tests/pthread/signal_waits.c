/* signal_waits: glibc's semantics for a signal sent to a thread that waits.
 * - In pthread_cond_wait: the handler runs in the wait with the mutex released
 *   (pthread_mutex_trylock in the handler gives 0), and the wait goes on: it returns
 *   when the condition variable is signalled, not before.
 * - A pthread_cond_signal sent while the waiter runs its handler is not lost.
 * - In pthread_mutex_lock: the handler runs while the thread waits for the mutex,
 *   not after it gets it.
 * - In pthread_join: the handler runs while the thread waits for the other's end.
 * - In pthread_rwlock_rdlock and _wrlock: the handler runs while it waits.
 * The thread that sends waits for the handler with a bounded poll, so a handler
 * that does not run in the wait prints NO instead of hanging. */
#include "pt_test.h"

#include <signal.h>
#include <stdbool.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile sig_atomic_t handled, in_handler, release, trylock_result = -1;
static int ready, pred, returns_before_pred;

static void on_usr1(int sig)
{
	int r = pthread_mutex_trylock(&m);
	if (r == 0)
		pthread_mutex_unlock(&m);
	trylock_result = r;
	in_handler = 1;
	while (!release) /* the handler may block: others go on meanwhile */
		usleep(1000);
	handled = 1;
}

/* Poll for a flag for up to 10 s (the other threads run meanwhile). */
static bool wait_flag(volatile sig_atomic_t *f)
{
	for (int i = 0; i < 10000 && !*f; i++)
		usleep(1000);
	return *f;
}

static void reset(void)
{
	handled = in_handler = release = 0;
	trylock_result = -1;
}

static void *cond_waiter(void *arg)
{
	pthread_mutex_lock(&m);
	ready = 1;
	while (!pred) {
		pthread_cond_wait(&cv, &m);
		if (!pred)
			returns_before_pred++;
	}
	pthread_mutex_unlock(&m);
	return NULL;
}

/* Main knows the waiter is inside pthread_cond_wait once it holds the mutex after
 * seeing ready: the waiter released it only there. */
static pthread_t start_cond_waiter(void)
{
	pthread_t t;
	pred = ready = returns_before_pred = 0;
	/* A fresh condvar each time: glibc's pthread_cond_signal may wait for a waiter
	 * that runs a handler to leave its wait when its group has to switch, which a
	 * first signal to a first waiter never needs. */
	pthread_cond_init(&cv, NULL);
	pthread_create(&t, NULL, cond_waiter, NULL);
	for (;;) {
		pthread_mutex_lock(&m);
		int r = ready;
		pthread_mutex_unlock(&m);
		if (r)
			break;
		usleep(1000);
	}
	return t;
}

static void cond_wait_case(void)
{
	reset();
	pthread_t t = start_cond_waiter();
	release = 1; /* the handler returns at once */
	pthread_kill(t, SIGUSR1);
	printf("cond_wait: handler ran in the wait: %s\n", wait_flag(&handled) ? "yes" : "NO");
	printf("cond_wait: trylock in the handler = %s\n", ename(trylock_result));
	usleep(20000); /* time for a wait that ended to be seen */
	pthread_mutex_lock(&m);
	printf("cond_wait: returned before being signalled: %d times\n", returns_before_pred);
	pred = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	printf("cond_wait: signalled waiter returned\n");
}

/* The waiter's handler is still running when the condvar is signalled. */
static void cond_signal_during_handler(void)
{
	reset();
	pthread_t t = start_cond_waiter();
	pthread_kill(t, SIGUSR1);
	printf("cond_signal meanwhile: handler started: %s\n", wait_flag(&in_handler) ? "yes" : "NO");
	pthread_mutex_lock(&m);
	pred = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	release = 1;
	pthread_join(t, NULL);
	printf("cond_signal meanwhile: waiter returned, handler done: %s\n", handled ? "yes" : "NO");
}

static void *mutex_waiter(void *arg)
{
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	return NULL;
}

static void mutex_wait_case(void)
{
	reset();
	release = 1;
	pthread_mutex_lock(&m);
	pthread_t t;
	pthread_create(&t, NULL, mutex_waiter, NULL);
	usleep(20000); /* it blocks in pthread_mutex_lock */
	pthread_kill(t, SIGUSR1);
	bool ran = wait_flag(&handled);
	printf("mutex_lock: handler ran while waiting for the mutex: %s\n", ran ? "yes" : "NO");
	printf("mutex_lock: trylock in the handler = %s\n", ename(trylock_result));
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	printf("mutex_lock: waiter got the mutex afterwards\n");
}

static sem_t hold;

static void *sleeper(void *arg)
{
	sem_wait(&hold);
	return NULL;
}

static void *joiner(void *arg)
{
	void *v;
	int r = pthread_join(*(pthread_t *)arg, &v);
	printf("join: pthread_join = %s after the handler\n", ename(r));
	return NULL;
}

static void join_case(void)
{
	reset();
	release = 1;
	sem_init(&hold, 0, 0);
	pthread_t s, j;
	pthread_create(&s, NULL, sleeper, NULL);
	pthread_create(&j, NULL, joiner, &s);
	usleep(20000); /* it blocks in pthread_join */
	pthread_kill(j, SIGUSR1);
	printf("join: handler ran while joining: %s\n", wait_flag(&handled) ? "yes" : "NO");
	sem_post(&hold);
	pthread_join(j, NULL);
}

static pthread_rwlock_t rwl = PTHREAD_RWLOCK_INITIALIZER;

static void *rw_waiter(void *arg)
{
	int r = arg ? pthread_rwlock_wrlock(&rwl) : pthread_rwlock_rdlock(&rwl);
	if (r == 0)
		pthread_rwlock_unlock(&rwl);
	printf("rwlock: %s = %s after the handler\n", arg ? "wrlock" : "rdlock", ename(r));
	return NULL;
}

static void rwlock_case(bool write)
{
	reset();
	release = 1;
	pthread_rwlock_wrlock(&rwl);
	pthread_t t;
	pthread_create(&t, NULL, rw_waiter, write ? &rwl : NULL);
	usleep(20000); /* it blocks in the rwlock */
	pthread_kill(t, SIGUSR1);
	printf("rwlock: handler ran while waiting to %s: %s\n", write ? "write" : "read",
	       wait_flag(&handled) ? "yes" : "NO");
	pthread_rwlock_unlock(&rwl);
	pthread_join(t, NULL);
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	cond_wait_case();
	cond_signal_during_handler();
	mutex_wait_case();
	join_case();
	rwlock_case(false);
	rwlock_case(true);
	return 0;
}
