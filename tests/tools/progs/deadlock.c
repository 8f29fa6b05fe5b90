/* Two threads take two mutexes in opposite orders, each after a stretch of work: every
 * run deadlocks (the trace's end says so). */
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static volatile long sink;

static void *second(void *arg)
{
	pthread_mutex_lock(&b);
	for (long i = 0; i < 10000000; i++)
		sink += i;
	pthread_mutex_lock(&a);
	return arg;
}

int main(void)
{
	pthread_t t;
	pthread_mutex_lock(&a);
	pthread_create(&t, NULL, second, NULL);
	for (long i = 0; i < 20000000; i++)
		sink += i;
	pthread_mutex_lock(&b);
	pthread_join(t, NULL);
	return 0;
}
