/* An order violation: main creates the worker, then initialises what it uses. Fails
 * when the new thread runs before its creator goes on. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int *config;

static void *worker(void *arg)
{
	if (!config) {
		printf("worker ran before config was set\n");
		exit(3);
	}
	return (void *)(long)*config;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	static int value = 42;
	config = &value;
	void *r;
	pthread_join(t, &r);
	printf("worker saw %ld\n", (long)r);
	return 0;
}
