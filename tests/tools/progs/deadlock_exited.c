/* A deadlock next to a thread that exited and was never joined (issue 15: the report
 * said "all 2 threads blocked", then listed 3, one "exited, not joined"). */
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *quits(void *arg)
{
	return arg;
}

static void *second(void *arg)
{
	pthread_mutex_lock(&b);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&a);
	return arg;
}

int main(void)
{
	pthread_t q, t;
	pthread_create(&q, NULL, quits, NULL);
	pthread_barrier_init(&both, NULL, 2);
	pthread_mutex_lock(&a);
	pthread_create(&t, NULL, second, NULL);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&b);
	return 0;
}
