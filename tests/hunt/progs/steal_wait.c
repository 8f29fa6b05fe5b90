/* steal_wait: threads share out blocks of work from per-thread queues, stealing from
 * each other's, and wait for the last block by spinning (tests/hunt): the shape of
 * SPLASH-2 VOLREND's adaptive ray tracing. A thread with nothing left walks the queues
 * in a loop of plain loads until a counter drops to zero, which only the threads
 * still working lower; a block's cell is claimed (1), worked on, then done (2), and a
 * thread that meets a claimed cell spins until it is done. The spinning loops meet no
 * window and no synchronization call; the working thread meets windows.
 *   steal_wait BLOCKS WORK   BLOCKS per queue, WORK iterations per block */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define CELLS 64

static volatile long cell[CELLS];
static volatile long result[CELLS];
static volatile long queue[THREADS + 1]; /* [THREADS]: the threads not done yet */
static pthread_mutex_t qlock[THREADS + 1];
static long blocks, work;

static void do_block(long c)
{
	if (cell[c] == 0) {
		cell[c] = 1;
		volatile long x = 0;
		for (long k = 0; k < work; k++)
			x += k;
		result[c] = x;
		cell[c] = 2;
	}
	volatile long seen = cell[c];
	while (seen == 1) /* another thread works on it */
		seen = cell[c];
}

static void *worker(void *arg)
{
	long me = (long)arg, q = me, b;
	while (queue[THREADS] > 0) {
		pthread_mutex_lock(&qlock[q]);
		b = queue[q];
		queue[q] += 1;
		pthread_mutex_unlock(&qlock[q]);
		while (b < blocks) {
			do_block((q * blocks + b) % CELLS);
			do_block((q * blocks + b + 1) % CELLS);
			pthread_mutex_lock(&qlock[q]);
			b = queue[q];
			queue[q] += 1;
			pthread_mutex_unlock(&qlock[q]);
		}
		if (q == me) {
			pthread_mutex_lock(&qlock[THREADS]);
			queue[THREADS]--;
			pthread_mutex_unlock(&qlock[THREADS]);
		}
		q = (q + 1) % THREADS;
		while (queue[q] >= blocks && queue[THREADS] > 0)
			q = (q + 1) % THREADS;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	blocks = argc > 1 ? atol(argv[1]) : 8;
	work = argc > 2 ? atol(argv[2]) : 1000000;
	for (int i = 0; i <= THREADS; i++)
		pthread_mutex_init(&qlock[i], NULL);
	queue[THREADS] = THREADS;
	for (long i = 1; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	worker((void *)0);
	for (int i = 1; i < THREADS; i++)
		pthread_join(t[i], NULL);
	long sum = 0;
	for (int c = 0; c < CELLS; c++)
		sum += cell[c];
	printf("done: %ld cells done\n", sum / 2);
	return 0;
}
