/* cleanup: pthread_cleanup_push/pop run their handlers on pop(1) but not pop(0), all
 * of them newest first when the thread calls pthread_exit, then the thread-specific
 * data destructors; a handler may itself push and pop. */
#include "pt_test.h"

static char log_[256];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void note(void *what)
{
	pthread_mutex_lock(&log_lock);
	strcat(log_, what);
	strcat(log_, " ");
	pthread_mutex_unlock(&log_lock);
}

static void nested_handler(void *what)
{
	pthread_cleanup_push(note, "inner-of-handler");
	note(what);
	pthread_cleanup_pop(1);
}

static pthread_key_t key;

static void inner(void)
{
	pthread_cleanup_push(note, "C");
	pthread_cleanup_push(nested_handler, "D");
	pthread_exit((void *)7);
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
}

static void *exits(void *arg)
{
	pthread_setspecific(key, "tsd-destructor");
	pthread_cleanup_push(note, "A");
	pthread_cleanup_push(note, "B");
	inner();
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *returns(void *arg)
{
	pthread_cleanup_push(note, "never");
	pthread_cleanup_push(note, "popped-1");
	pthread_cleanup_pop(1);
	pthread_cleanup_pop(0);
	return (void *)3;
}

int main(void)
{
	pthread_t t;
	void *r;
	pthread_key_create(&key, note);

	pthread_cleanup_push(note, "main-1");
	pthread_cleanup_push(note, "main-0");
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(1);
	printf("main push/pop: %s\n", log_);

	log_[0] = 0;
	pthread_create(&t, NULL, returns, NULL);
	pthread_join(t, &r);
	printf("returning thread (%ld): %s\n", (long)r, log_);

	log_[0] = 0;
	pthread_create(&t, NULL, exits, NULL);
	pthread_join(t, &r);
	printf("pthread_exit (%ld): %s\n", (long)r, log_);
	return 0;
}
