/* matmul: dense double-precision matrix multiply, C = A * B, 384 x 384, naive
 * i-k-j loop order (the innermost loop streams a row of B into a row of C, which
 * gcc -O2 vectorizes). A tight, throughput-bound inner loop: the worst case for a
 * counting point at every loop head. */
#include "bench.h"

#include <string.h>

#define N 384

static void __attribute__((noinline))
matmul(const double *restrict a, const double *restrict b, double *restrict c, int n)
{
	memset(c, 0, (size_t)n * n * sizeof *c);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < n; k++) {
			double aik = a[i * n + k];
			for (int j = 0; j < n; j++)
				c[i * n + j] += aik * b[k * n + j];
		}
}

int main(int argc, char **argv)
{
	long reps = 24 * bench_scale(argc, argv) / 100;
	if (reps < 1)
		reps = 1;
	double *a = malloc(sizeof(double) * N * N);
	double *b = malloc(sizeof(double) * N * N);
	double *c = malloc(sizeof(double) * N * N);
	if (!a || !b || !c)
		return 1;
	uint64_t seed = 0x9e3779b97f4a7c15u;
	for (int i = 0; i < N * N; i++) {
		/* small integers keep every product and sum exact, so the result does not
		 * depend on the order of the additions */
		a[i] = (double)(bench_rand(&seed) % 17) - 8.0;
		b[i] = (double)(bench_rand(&seed) % 17) - 8.0;
	}

	uint64_t sum = 0;
	double t0 = bench_begin();
	for (long r = 0; r < reps; r++) {
		matmul(a, b, c, N);
		/* feed the result back so no repetition is dead */
		a[r % (N * N)] = c[(r * 7919) % (N * N)] / 1024.0;
	}
	double t1 = bench_end();
	for (int i = 0; i < N * N; i++)
		sum = sum * 31 + (uint64_t)(int64_t)c[i];
	bench_report("matmul", t1 - t0, sum);
	free(a);
	free(b);
	free(c);
	return 0;
}
