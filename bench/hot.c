/* bench/hot.c: three threads call hop() in a loop, LOOPS times each (argv[1],
 * 100,000 by default), with some work between (SPIN iterations, argv[2], 3,000): a
 * breakpoint on hop's line is passed once per call, 300,000 times in all. For
 * bench/reverse.sh: reverse-continue to the previous hit of a hot breakpoint, and to
 * a `$rcount` condition's, against going forward to the same hit. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long passes;
static long loops = 100000, spin = 3000;
static volatile unsigned long sink;

__attribute__((noinline)) void hop(long id)
{
	passes += id; /* the hot line */
}

static void *work(void *arg)
{
	for (long i = 0; i < loops; i++) {
		unsigned long x = (unsigned long)i;
		for (long k = 0; k < spin; k++)
			x = x * 6364136223846793005u + 1442695040888963407u;
		sink = x;
		hop(1);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	if (argc > 1)
		loops = atol(argv[1]);
	if (argc > 2)
		spin = atol(argv[2]);
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%ld passes\n", passes);
	return 0;
}
