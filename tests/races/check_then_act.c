/* Check-then-act: each thread finds the cache empty and fills it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int *cache;

static void *lookup(void *arg)
{
	if (cache == NULL) /* RACE */
		cache = calloc(16, sizeof *cache); /* RACE */
	return arg;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, lookup, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("cache %s\n", cache ? "filled" : "empty");
	return 0;
}
