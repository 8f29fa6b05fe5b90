/* Clean: each thread writes its slot, waits at a barrier, then reads its neighbour's. */
#include <pthread.h>
#include <stdio.h>

#define T 4
static int slot[T], seen[T];
static pthread_barrier_t barrier;

static void *phase(void *arg)
{
	int me = (int)(long)arg;
	for (int round = 0; round < 3; round++) {
		slot[me] = me * 10 + round;
		pthread_barrier_wait(&barrier);
		seen[me] += slot[(me + 1) % T];
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[T];
	pthread_barrier_init(&barrier, NULL, T);
	for (long i = 0; i < T; i++)
		pthread_create(&t[i], NULL, phase, (void *)i);
	for (int i = 0; i < T; i++)
		pthread_join(t[i], NULL);
	printf("%d %d %d %d\n", seen[0], seen[1], seen[2], seen[3]);
	return 0;
}
