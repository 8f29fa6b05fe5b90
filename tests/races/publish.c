/* Publication without a barrier: the data, then a plain flag; the reader polls it. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static int size;
static volatile int ready;

static void *writer(void *arg)
{
	size = 64; /* RACE */
	ready = 1;
	return arg;
}

static void *reader(void *arg)
{
	while (!ready)
		sched_yield();
	printf("size %d\n", size); /* RACE */
	return arg;
}

int main(void)
{
	pthread_t w, r;
	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	return 0;
}
