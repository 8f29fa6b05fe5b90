/* fft.c: a SPLASH-2 style parallel FFT for bench/table1.sh: an iterative radix-2 FFT
 * of 2^M complex points, every stage's butterflies dealt to the threads in blocks, a
 * barrier between stages; then the inverse transform, to check. Every butterfly is
 * computed by one thread, so the result does not depend on the schedule.
 *
 *   fft [SCALE-PERCENT [THREADS]]     defaults: 100 (2^18 points, 10 round trips), 4
 *
 * stdout: "fft N CHECKSUM ERROR"; stderr: replay_bench.h's timing. */
#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../replay_bench.h"

enum { MAX_THREADS = 16, M = 18 };
static long n, reps;
static int nthreads;
static double complex *x, *w;
static pthread_barrier_t bar;

static void transform(long id, int inverse)
{
	/* bit reversal: thread id swaps the pairs whose lower index is in its block */
	for (long i = n * id / nthreads; i < n * (id + 1) / nthreads; i++) {
		long r = 0;
		for (long b = 1, v = i; b < n; b <<= 1, v >>= 1)
			r = (r << 1) | (v & 1);
		if (i < r) {
			double complex t = x[i];
			x[i] = x[r];
			x[r] = t;
		}
	}
	pthread_barrier_wait(&bar);
	for (long half = 1; half < n; half <<= 1) {
		long step = n / (2 * half);
		/* butterflies k = 0 .. n/2-1, in blocks */
		for (long k = (n / 2) * id / nthreads; k < (n / 2) * (id + 1) / nthreads; k++) {
			long g = k / half, j = k % half, i0 = g * 2 * half + j, i1 = i0 + half;
			double complex tw = inverse ? conj(w[j * step]) : w[j * step];
			double complex t = tw * x[i1];
			x[i1] = x[i0] - t;
			x[i0] = x[i0] + t;
		}
		pthread_barrier_wait(&bar);
	}
}

static void *run(void *arg)
{
	long id = (long)arg;
	for (long r = 0; r < reps; r++) {
		transform(id, 0);
		transform(id, 1);
		for (long i = n * id / nthreads; i < n * (id + 1) / nthreads; i++)
			x[i] /= (double)n;
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long scale = rb_arg(argc, argv, 1, 100, 100000);
	n = 1L << M;
	reps = (scale * 10 + 99) / 100;
	nthreads = (int)rb_arg(argc, argv, 2, 4, MAX_THREADS);
	x = malloc(n * sizeof *x);
	w = malloc(n / 2 * sizeof *w);
	double complex *orig = malloc(n * sizeof *orig);
	if (!x || !w || !orig)
		return 1;
	for (long k = 0; k < n / 2; k++)
		w[k] = cexp(-2.0 * M_PI * I * (double)k / (double)n);
	uint64_t s = 12345;
	for (long i = 0; i < n; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		orig[i] = x[i] = (double)(s % 2000) / 1000.0 - 1.0 + I * ((double)(s >> 40 & 1023) / 512.0 - 1.0);
	}
	pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
	pthread_t th[MAX_THREADS];
	struct rb_clock c = rb_start();
	for (long t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, run, (void *)t);
	for (int t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	rb_stop(c);
	double err = 0, sum = 0;
	for (long i = 0; i < n; i++) {
		err = fmax(err, cabs(x[i] - orig[i]));
		sum += creal(x[i]) * (double)(i % 7) + cimag(x[i]);
	}
	printf("fft %ld %.9e %s\n", n, sum, err < 1e-9 ? "exact" : "INEXACT");
	return err >= 1e-9;
}
