/* clock_loop: two threads read the clock in a loop (clock_gettime, time) until
 * SECONDS of it have passed: how much log a loop of recorded clock reads writes.
 *   clock_loop [SECONDS]   (default 0.5) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds = 0.5;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *reader(void *arg)
{
	long reads = 0;
	double end = now() + seconds;
	while (now() < end) {
		reads += 2;
		if (time(NULL) == 0)
			break;
	}
	return (void *)reads;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		seconds = atof(argv[1]);
	pthread_t t[2];
	long reads = 0;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	for (int i = 0; i < 2; i++) {
		void *n;
		pthread_join(t[i], &n);
		reads += (long)n;
	}
	printf("clock_loop: %ld reads\n", reads);
	return 0;
}
