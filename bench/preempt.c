/* preempt.c: CPU-bound threads that never block, so every switch among them is a
 * time-slice preemption (the program itself makes none).
 *
 *   preempt [SCALE-PERCENT [THREADS]]     defaults: 100, 4 threads
 *
 * Each thread runs a xorshift chain (a counting point per iteration, 3 shifts and 3
 * xors of dependent work), 150M iterations in all at scale 100. Every 4096 iterations
 * it appends its id to a shared hash, without a lock: the hash is the order in which
 * the threads made progress, so it changes with the schedule and a replay must give
 * the recording's. The per-thread chains do not depend on the schedule.
 *
 * stdout: "preempt threads T chains C order H"; stderr: replay_bench.h's timing. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "replay_bench.h"

enum { MAX_THREADS = 16 };
static long iters;
static volatile uint64_t order_hash;
static uint64_t chain[MAX_THREADS];

static void *work(void *arg)
{
	long id = (long)arg;
	uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(id + 1);
	for (long i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if ((i & 4095) == 0)
			order_hash = order_hash * 31 + (uint64_t)id + 1;
	}
	chain[id] = x;
	return NULL;
}

int main(int argc, char **argv)
{
	long scale = rb_arg(argc, argv, 1, 100, 100000);
	int nthreads = (int)rb_arg(argc, argv, 2, 4, MAX_THREADS);
	iters = 150000000L / nthreads * scale / 100;

	pthread_t t[MAX_THREADS];
	struct rb_clock c = rb_start();
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i)) {
			fprintf(stderr, "preempt: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	rb_stop(c);
	uint64_t sum = 0;
	for (int i = 0; i < nthreads; i++)
		sum = sum * 1000003 + chain[i];
	printf("preempt threads %d chains %016llx order %016llx\n", nthreads,
	       (unsigned long long)sum, (unsigned long long)order_hash);
	return 0;
}
