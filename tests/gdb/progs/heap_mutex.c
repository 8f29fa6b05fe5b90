/* heap_mutex.c: two mutexes in the heap, one in a struct, held by static pointers;
 * a deadlock over them (tests/gdb/ends.sh: info rthreads names them by the pointers). */
#include <pthread.h>
#include <stdlib.h>

struct queue {
	int n;
	pthread_mutex_t lock;
	pthread_cond_t more;
};
static struct queue *jobs;
static pthread_mutex_t *other;

static void *worker(void *arg)
{
	pthread_mutex_lock(&jobs->lock);
	pthread_mutex_lock(other);
	return arg;
}

int main(void)
{
	pthread_t t;
	jobs = calloc(1, sizeof *jobs);
	other = malloc(sizeof *other);
	if (!jobs || !other)
		return 1;
	pthread_mutex_init(&jobs->lock, NULL);
	pthread_mutex_init(other, NULL);
	pthread_mutex_lock(other);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	return 0;
}
