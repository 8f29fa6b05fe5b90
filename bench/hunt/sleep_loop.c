/* sleep_loop: a monitor polls two workers' progress with usleep(1000) while they take
 * a lock ITERS times each, a little work inside and outside it: what the hunting
 * scheduler's sleepers' turns (docs/replay.md) cost a program that sleeps often.
 *   sleep_loop [ITERS]   (default 200000) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long iters = 200000, done, total;
static int finished;

static void *worker(void *arg)
{
	for (long i = 0; i < iters; i++) {
		volatile long x = 0;
		for (int k = 0; k < 20; k++)
			x += k;
		pthread_mutex_lock(&m);
		total += x;
		done++;
		pthread_mutex_unlock(&m);
	}
	pthread_mutex_lock(&m);
	finished++;
	pthread_mutex_unlock(&m);
	return arg;
}

static void *monitor(void *arg)
{
	long polls = 0;
	for (;;) {
		pthread_mutex_lock(&m);
		int f = finished;
		pthread_mutex_unlock(&m);
		if (f == 2)
			break;
		usleep(1000);
		polls++;
	}
	return (void *)polls;
}

int main(int argc, char **argv)
{
	pthread_t w[2], mon;
	void *polls;
	if (argc > 1)
		iters = atol(argv[1]);
	pthread_create(&mon, NULL, monitor, NULL);
	for (int i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	pthread_join(mon, &polls);
	printf("%ld iterations, %ld polls\n", done, (long)polls);
	return done == 2 * iters ? 0 : 1;
}
