/* An unlocked read-modify-write: two threads add to one counter. */
#include <pthread.h>
#include <stdio.h>

static long hits;

static void *add(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		hits = hits + 1; /* RACE RACE */
		__asm__ volatile("" ::: "memory"); /* each increment its own load and store */
	}
	return arg;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, add, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("hits %ld\n", hits);
	return 0;
}
