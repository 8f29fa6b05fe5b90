/* Three threads count and print their progress for ever (one sleeps a little between
 * steps): a recording ends only by a signal from outside. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static volatile long shared;
static void *work(void *arg)
{
	long id = (long)arg;
	for (int step = 0; ; step++) {
		for (long i = 0; i < 200000; i++)
			shared += id;
		printf("thread %ld step %d shared %ld\n", id, step, shared);
		if (id == 3) usleep(1000);
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
	return 0;
}
