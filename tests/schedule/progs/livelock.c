/* Never ends: two threads wait for each other's flag, which neither sets (a hang that
 * only --timeout stops). One spins with a pause, the other counts. */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>

static volatile int never;
static volatile long counted;

static void *counter(void *arg)
{
	while (!never)
		counted++;
	return NULL;
}

int main(void)
{
	pthread_t t;
	printf("starting\n");
	fflush(stdout);
	pthread_create(&t, NULL, counter, NULL);
	while (!never)
		_mm_pause();
	pthread_join(t, NULL);
	return 0;
}
