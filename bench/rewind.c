/* bench/rewind.c: SECONDS seconds of CPU time of work in three green threads, for
 * bench/reverse.sh. Main calls milestone(k) after k seconds of the process's CPU
 * time (a recorded clock: a replay calls it at the same moments, after about as
 * much replay) and finished() at the end. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long acc[3];
static volatile int stop;

__attribute__((noinline)) void milestone(int k)
{
	acc[2] += k;
}

__attribute__((noinline)) void finished(void)
{
	acc[2]++;
}

static void chunk(int id)
{
	for (long i = 0; i < 100000; i++)
		acc[id] += i ^ (acc[id] >> 3);
}

static void *worker(void *arg)
{
	while (!stop)
		chunk((int)(long)arg);
	return NULL;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 10;
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	double start = now();
	for (int k = 1; k <= seconds; k++) {
		while (now() < start + k)
			chunk(2);
		milestone(k);
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	finished();
	printf("%ld\n", acc[0] + acc[1] + acc[2]);
	return 0;
}
