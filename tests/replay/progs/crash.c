/* A crash that depends on the interleaving: a reader dereferences a pointer that a
 * writer clears and restores without a lock. Recorded, it replays to the same
 * crash (or the same clean exit) every time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int cell = 42;
static int *volatile shared = &cell;
static volatile long reads;

static void *writer(void *arg)
{
	for (int i = 0; i < 400000; i++) {
		shared = NULL; /* a window in which a reader may fault */
		shared = &cell;
	}
	return NULL;
}

static void *reader(void *arg)
{
	for (int i = 0; i < 400000; i++) {
		int *p = shared;
		if (p)
			reads += *p;
		else
			reads += *shared; /* may be NULL again: the heisenbug */
	}
	return NULL;
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("start\n");
	pthread_t w, r;
	pthread_create(&w, NULL, writer, NULL);
	pthread_create(&r, NULL, reader, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	printf("survived: %ld\n", reads);
	return 0;
}
