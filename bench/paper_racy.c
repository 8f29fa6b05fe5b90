/* paper_racy.c: paper 002's first workload (examples/racy_counter.c), scaled for
 * bench/replay.sh: threads increment a shared counter with no lock, so an update is
 * lost whenever a time slice ends between the load and the store. How many are lost
 * depends on where the preemptions fall; a replay must lose exactly as many.
 *
 *   paper_racy [SCALE-PERCENT [THREADS]]    defaults: 100 (250M increments per
 *                                           thread), 4 threads
 *
 * stdout: the counter; stderr: replay_bench.h's timing. */
#include <pthread.h>
#include <stdio.h>

#include "replay_bench.h"

enum { MAX_THREADS = 64 };
static volatile long counter;
static long per_thread;

static void *add(void *arg)
{
	for (long i = 0; i < per_thread; i++)
		counter++;
	return arg;
}

int main(int argc, char **argv)
{
	long scale = rb_arg(argc, argv, 1, 100, 100000);
	int nthreads = (int)rb_arg(argc, argv, 2, 4, MAX_THREADS);
	per_thread = 2500000L * scale;

	pthread_t t[MAX_THREADS];
	struct rb_clock c = rb_start();
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, add, NULL)) {
			fprintf(stderr, "paper_racy: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	rb_stop(c);
	printf("counter = %ld of %ld: %ld updates lost\n", counter, nthreads * per_thread,
	       nthreads * per_thread - counter);
	return 0;
}
