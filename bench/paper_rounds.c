/* paper_rounds.c: paper 002's second workload (examples/rounds.c), scaled for
 * bench/replay.sh: in each round every thread adds to a counter under a mutex, then
 * all meet at a barrier. The total never changes; the order in which the threads took
 * the lock (hashed) does, and a replay must give the recording's.
 *
 *   paper_rounds [SCALE-PERCENT]     default 100: 4 threads, 20000 rounds of 500 adds
 *
 * stdout: the counter and the lock-order hash; stderr: replay_bench.h's timing. */
#include <pthread.h>
#include <stdio.h>

#include "replay_bench.h"

enum { THREADS = 4, ADDS = 500 };
static long rounds, counter, order_hash;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t round_end;

static void *run_rounds(void *arg)
{
	long id = (long)arg;
	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < ADDS; i++) {
			pthread_mutex_lock(&lock);
			counter++;
			order_hash = order_hash * 31 + id;
			pthread_mutex_unlock(&lock);
		}
		pthread_barrier_wait(&round_end);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	rounds = 200 * rb_arg(argc, argv, 1, 100, 100000);

	pthread_t t[THREADS];
	pthread_barrier_init(&round_end, NULL, THREADS);
	struct rb_clock c = rb_start();
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, run_rounds, (void *)i)) {
			fprintf(stderr, "paper_rounds: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	rb_stop(c);
	printf("counter = %ld (expected %ld), lock order hash %016lx\n", counter,
	       THREADS * rounds * ADDS, (unsigned long)order_hash);
	return 0;
}
