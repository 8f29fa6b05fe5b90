/* Runs for about three seconds printing progress (unbuffered): recorded and killed with
 * SIGKILL part-way, its log still replays up to where it was cut. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile long shared;

static void *work(void *arg)
{
	long id = (long)arg;
	for (int step = 0; step < 300; step++) {
		for (long i = 0; i < 200000; i++)
			shared += id;
		printf("thread %ld step %d shared %ld\n", id, step, shared);
		usleep(10000); /* about three seconds in all, whatever the CPU */
	}
	return NULL;
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("done %ld\n", shared);
	return 0;
}
