/* spin_barrier: threads meet at a sense-reversing barrier ROUNDS times, each
 * busy-waiting (with pause) for the last one to arrive, with work between.
 *   spin_barrier [ROUNDS]   of 3 threads (default 30) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 3

static volatile int sense;
static int count = THREADS;
static int rounds = 30;
static long work_done[THREADS];

static void barrier(int *local_sense)
{
	*local_sense = !*local_sense;
	if (__atomic_sub_fetch(&count, 1, __ATOMIC_ACQ_REL) == 0) {
		count = THREADS;
		__atomic_store_n(&sense, *local_sense, __ATOMIC_RELEASE);
	} else {
		while (__atomic_load_n(&sense, __ATOMIC_ACQUIRE) != *local_sense)
			__builtin_ia32_pause();
	}
}

static void *worker(void *arg)
{
	int id = (int)(long)arg, local_sense = 0;
	for (int r = 0; r < rounds; r++) {
		volatile unsigned long x = 0;
		for (unsigned i = 0; i < 2000u * (unsigned)(1 + id); i++)
			x += i;
		work_done[id]++;
		barrier(&local_sense);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	pthread_t t[THREADS];
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("spin_barrier: %d rounds of %d threads\n", rounds, THREADS);
	for (int i = 0; i < THREADS; i++)
		if (work_done[i] != rounds)
			return 1;
	return 0;
}
