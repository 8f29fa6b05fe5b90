/* radix.c: a SPLASH-2 style parallel radix sort (8-bit digits, 4 passes) of 32-bit
 * keys, for bench/table1.sh. Each pass: every thread counts the digits of its slice,
 * a barrier, every thread works out where its keys go from all the counts (the same
 * arithmetic in every thread), a barrier, every thread moves its keys, a barrier.
 *
 *   radix [SCALE-PERCENT [THREADS]]     defaults: 100 (16M keys), 4 threads
 *
 * stdout: "radix N keys sorted CHECKSUM" (the same for any schedule); stderr:
 * replay_bench.h's timing. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../replay_bench.h"

enum { MAX_THREADS = 16, RADIX = 256 };
static long n;
static int nthreads;
static uint32_t *keys, *tmp;
static long hist[MAX_THREADS][RADIX];
static pthread_barrier_t bar;

static void *sort_part(void *arg)
{
	long id = (long)arg, lo = n * id / nthreads, hi = n * (id + 1) / nthreads;
	uint32_t *src = keys, *dst = tmp;
	for (int shift = 0; shift < 32; shift += 8) {
		long *h = hist[id];
		for (int d = 0; d < RADIX; d++)
			h[d] = 0;
		for (long i = lo; i < hi; i++)
			h[(src[i] >> shift) & 0xff]++;
		pthread_barrier_wait(&bar);
		/* where this thread's keys of digit d start: every key of a smaller digit,
		 * then those of digit d in the slices before this one */
		long pos[RADIX], base = 0;
		for (int d = 0; d < RADIX; d++) {
			long before = 0;
			for (int t = 0; t < nthreads; t++) {
				if (t == id)
					before = base;
				base += hist[t][d];
			}
			pos[d] = before;
		}
		pthread_barrier_wait(&bar);
		for (long i = lo; i < hi; i++)
			dst[pos[(src[i] >> shift) & 0xff]++] = src[i];
		pthread_barrier_wait(&bar);
		uint32_t *t = src;
		src = dst;
		dst = t;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	n = 160000 * rb_arg(argc, argv, 1, 100, 10000);
	nthreads = (int)rb_arg(argc, argv, 2, 4, MAX_THREADS);
	keys = malloc(n * sizeof *keys);
	tmp = malloc(n * sizeof *tmp);
	if (!keys || !tmp)
		return 1;
	uint64_t x = 88172645463325252ull;
	for (long i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		keys[i] = (uint32_t)(x >> 16);
	}
	pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
	pthread_t th[MAX_THREADS];
	struct rb_clock c = rb_start();
	for (long t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, sort_part, (void *)t);
	for (int t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	rb_stop(c);
	uint64_t sum = 0;
	int sorted = 1;
	for (long i = 0; i < n; i++) {
		sorted &= i == 0 || keys[i - 1] <= keys[i];
		sum = sum * 31 + keys[i];
	}
	printf("radix %ld keys %s %016llx\n", n, sorted ? "sorted" : "UNSORTED", (unsigned long long)sum);
	return !sorted;
}
