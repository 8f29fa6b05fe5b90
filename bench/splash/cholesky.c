/* cholesky.c: a SPLASH-2 style dense Cholesky factorisation (right-looking, rows of
 * the trailing matrix dealt to the threads in turn, barriers between the steps) of a
 * symmetric positive definite N x N matrix, for bench/table1.sh. Every element is
 * computed by one thread in a fixed order: the result does not depend on the schedule.
 *
 *   cholesky [SCALE-PERCENT [THREADS]]     defaults: 100 (N = 1000), 4 threads
 *
 * stdout: "cholesky N CHECKSUM"; stderr: replay_bench.h's timing. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../replay_bench.h"

enum { MAX_THREADS = 16 };
static long n;
static int nthreads;
static double *a;
static pthread_barrier_t bar;

#define A(i, j) a[(i) * n + (j)]

static void *factor(void *arg)
{
	long id = (long)arg;
	for (long k = 0; k < n; k++) {
		long first = k + 1 + (id + nthreads - (k + 1) % nthreads) % nthreads;
		double d = sqrt(A(k, k)); /* every thread: no one writes A(k, k) in this step */
		pthread_barrier_wait(&bar);
		if (id == 0)
			A(k, k) = d;
		/* column k below the diagonal, each row by one thread; then, once all of it
		 * is there, the rows of the trailing matrix (lower triangle only) */
		for (long i = first; i < n; i += nthreads)
			A(i, k) /= d;
		pthread_barrier_wait(&bar);
		for (long i = first; i < n; i += nthreads) {
			double lik = A(i, k);
			double *ri = &A(i, 0);
			for (long j = k + 1; j <= i; j++)
				ri[j] -= lik * A(j, k);
		}
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long scale = rb_arg(argc, argv, 1, 100, 100000);
	n = (long)(1000 * cbrt(scale / 100.0));
	if (n < 8)
		n = 8;
	nthreads = (int)rb_arg(argc, argv, 2, 4, MAX_THREADS);
	a = malloc(n * n * sizeof *a);
	if (!a)
		return 1;
	uint64_t x = 977ull;
	for (long i = 0; i < n; i++)
		for (long j = 0; j <= i; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			A(i, j) = A(j, i) = (double)(x % 1000) / 1000.0 + (i == j ? (double)n : 0.0);
		}
	pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
	pthread_t th[MAX_THREADS];
	struct rb_clock c = rb_start();
	for (long t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, factor, (void *)t);
	for (int t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	rb_stop(c);
	double logdet = 0, lsum = 0;
	for (long i = 0; i < n; i++) {
		logdet += 2 * log(A(i, i));
		for (long j = 0; j < i; j++)
			lsum += A(i, j);
	}
	printf("cholesky %ld %.9e %.9e\n", n, logdet, lsum);
	return 0;
}
