/* Four workers mix their own slot of a shared table; scramble() is inlined into
 * worker() at -O1, so a breakpoint on it stops in an inlined frame. For hit counts
 * in both directions: `continue N`, ignore, tbreak, then reverse-continue. */
#include <pthread.h>
#include <stdio.h>

static volatile unsigned long table[4];

static inline void scramble(int id, unsigned long r)
{
	if (r % 3 == 0)
		table[id] += r;
	table[id] = table[id] * 31 + r;
}

static __attribute__((noinline)) void step(int id, unsigned long r)
{
	scramble(id, r * r);
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	for (unsigned long r = 0; r < 200; r++)
		step(id, r);
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("%lu %lu\n", table[0], table[3]);
	return 0;
}
