/* Race, then the run fails (abort, as an assertion would): the replay with --races
 * says how many races the run had and which came first before the crash report. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long flag;

static void *setter(void *arg)
{
	flag = 1; /* RACE */
	return arg;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, setter, NULL);
	long seen = flag; /* RACE */
	pthread_join(t, NULL);
	printf("seen %ld\n", seen);
	fflush(stdout);
	abort();
}
