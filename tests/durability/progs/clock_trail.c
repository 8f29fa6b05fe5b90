/* Reads the clock every ~0.5 ms and prints each value (unbuffered): recorded, each read
 * is a record (CLOCK_TAI: the monotonic clock is predicted, not logged at every read),
 * and a recording killed part-way shows on stdout the last value the
 * program saw. Its replay prints the logged values up to where the log ends: the
 * values printed and not in the log are what the kill lost. Two threads, so that
 * preemptions are logged too. Ends after ITERS reads (default 2500). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long work;

static void *spin(void *arg)
{
	for (long i = 0; i < 400000000L && !arg; i++)
		work += i & 1;
	return NULL;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 2500;
	pthread_t t;
	setvbuf(stdout, NULL, _IONBF, 0);
	pthread_create(&t, NULL, spin, NULL);
	for (long i = 0; i < iters; i++) {
		struct timespec ts;
		clock_gettime(CLOCK_TAI, &ts);
		printf("%lld\n", (long long)ts.tv_sec * 1000000000 + ts.tv_nsec);
		for (volatile long k = 0; k < 1000000; k++)
			;
	}
	printf("done\n");
	exit(0);
}
