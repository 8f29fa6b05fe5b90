/* A use after free across threads: one thread frees the buffer another still writes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static char *buffer;

static void *fill(void *arg)
{
	for (int i = 0; i < 32; i++)
		buffer[i] = (char)i; /* RACE */
	return arg;
}

static void *release(void *arg)
{
	free(buffer); /* RACE */
	return arg;
}

int main(void)
{
	buffer = malloc(32);
	pthread_t a, b;
	pthread_create(&a, NULL, fill, NULL);
	pthread_create(&b, NULL, release, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	puts("done");
	return 0;
}
