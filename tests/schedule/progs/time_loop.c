/* Main reads the clock in a loop while a worker counts: main spends its time in the
 * runtime (time() is a recorded input), where a time slice cannot end; the slice must
 * end at main's next counting point instead, or the worker never runs. Also a loop of
 * uncontended lock/unlock. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile int stop;
static volatile long progress;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	while (!stop)
		progress++;
	return NULL;
}

int main(int argc, char **argv)
{
	int locks = argc > 1 && !strcmp(argv[1], "lock");
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	long sum = 0;
	for (long i = 0; i < 3000000; i++) {
		if (locks) {
			pthread_mutex_lock(&m);
			sum++;
			pthread_mutex_unlock(&m);
		} else {
			sum += time(NULL) & 1;
		}
	}
	long seen = progress;
	stop = 1;
	pthread_join(t, NULL);
	printf("the worker %s while main looped (%s)\n", seen ? "ran" : "never ran",
	       locks ? "lock/unlock" : "time()");
	return sum < 0;
}
