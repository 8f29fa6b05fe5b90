/* lu.c: a SPLASH-2 style LU factorisation (no pivoting, the matrix is diagonally
 * dominant) of a dense N x N matrix, rows dealt to the threads in turn, a barrier
 * after each column, for bench/table1.sh. Every element is computed by one thread in
 * a fixed order, so the result does not depend on the schedule.
 *
 *   lu [SCALE-PERCENT [THREADS]]     defaults: 100 (N = 900), 4 threads
 *
 * stdout: "lu N CHECKSUM"; stderr: replay_bench.h's timing. */
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
	for (long k = 0; k < n - 1; k++) {
		double pivot = A(k, k);
		for (long i = k + 1 + (id + nthreads - (k + 1) % nthreads) % nthreads; i < n; i += nthreads) {
			double l = A(i, k) / pivot;
			A(i, k) = l;
			double *ri = &A(i, 0), *rk = &A(k, 0);
			for (long j = k + 1; j < n; j++)
				ri[j] -= l * rk[j];
		}
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long scale = rb_arg(argc, argv, 1, 100, 100000);
	n = (long)(900 * cbrt(scale / 100.0));
	if (n < 8)
		n = 8;
	nthreads = (int)rb_arg(argc, argv, 2, 4, MAX_THREADS);
	a = malloc(n * n * sizeof *a);
	if (!a)
		return 1;
	uint64_t x = 2463534242ull;
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			A(i, j) = (double)(x % 1000) / 1000.0 + (i == j ? (double)n : 0.0);
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
		logdet += log(fabs(A(i, i)));
		for (long j = 0; j < i; j++)
			lsum += A(i, j);
	}
	printf("lu %ld %.9e %.9e\n", n, logdet, lsum);
	return 0;
}
