/* cleanup_defer: glibc's pthread_cleanup_push_defer_np / pop_restore_np (the macros
 * expand to __pthread_register_cancel_defer and __pthread_unregister_cancel_restore):
 * inside, the cancellation type is deferred; after, the caller's type is back; the
 * handler runs when popped with 1, and at cancellation inside the pair. */
#include "pt_test.h"

static char log_[128];

static void note(void *what)
{
	strcat(log_, what);
	strcat(log_, " ");
}

static const char *type_now(void)
{
	int old;
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old);
	pthread_setcanceltype(old, NULL);
	return old == PTHREAD_CANCEL_DEFERRED ? "deferred" : "asynchronous";
}

static void *pairs(void *arg)
{
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	printf("before: %s\n", type_now());
	pthread_cleanup_push_defer_np(note, "first");
	printf("inside: %s\n", type_now());
	pthread_cleanup_pop_restore_np(1);
	printf("after: %s\n", type_now());
	pthread_cleanup_push_defer_np(note, "second");
	pthread_cleanup_pop_restore_np(0);
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, NULL);
	return NULL;
}

static sem_t started;

static void *cancelled(void *arg)
{
	pthread_cleanup_push_defer_np(note, "cancelled");
	sem_post(&started);
	for (;;)
		pthread_testcancel();
	pthread_cleanup_pop_restore_np(0);
	return NULL;
}

int main(void)
{
	pthread_t t;
	void *ret;
	pthread_create(&t, NULL, pairs, NULL);
	pthread_join(t, NULL);
	printf("handlers: %s\n", log_);

	log_[0] = 0;
	sem_init(&started, 0, 0);
	pthread_create(&t, NULL, cancelled, NULL);
	sem_wait(&started);
	pthread_cancel(t);
	pthread_join(t, &ret);
	printf("cancelled inside the pair: %s, handlers: %s\n", ret == PTHREAD_CANCELED ? "yes" : "NO",
	       log_);
	return 0;
}
