/* Prints how many arguments it has, after two threads raced on a counter: a run's
 * output says which recording a replay replays. */
#include <pthread.h>
#include <stdio.h>

static volatile long counter;

static void *add(void *arg)
{
	for (long i = 0; i < 200000; i++)
		counter++;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	pthread_create(&t, NULL, add, NULL);
	add(NULL);
	pthread_join(t, NULL);
	printf("args %d\n", argc);
	return 0;
}
