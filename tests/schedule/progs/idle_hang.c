/* Never ends: every thread waits for time to pass (a long sleep) or for a pipe nobody
 * writes. A hang while idle: --timeout stops it with no thread running. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int fds[2];

static void *reader(void *arg)
{
	char c;
	return (void *)(long)read(fds[0], &c, 1);
}

int main(void)
{
	pthread_t t;
	if (pipe(fds) != 0)
		return 1;
	pthread_create(&t, NULL, reader, NULL);
	printf("sleeping\n");
	fflush(stdout);
	sleep(100000);
	pthread_join(t, NULL);
	return 0;
}
