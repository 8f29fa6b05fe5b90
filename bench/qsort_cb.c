/* qsort_cb: the C library's qsort() on 3 million random ints with a comparator
 * callback. qsort is foreign (uninstrumented) code calling back into instrumented
 * code once per comparison, so every comparison pays the comparator's entry check,
 * and when qsort keeps a value of its own in %r15 (glibc 2.36's msort does) the
 * runtime's slow foreign-entry path as well. An extra benchmark, outside the
 * geometric mean: it measures the callback path, not the counter. */
#include "bench.h"

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
	long n = 3000000L * bench_scale(argc, argv) / 100;
	int *a = malloc(sizeof *a * n);
	if (!a)
		return 1;
	uint64_t seed = 0xd1b54a32d192ed03u;
	for (long i = 0; i < n; i++)
		a[i] = (int)(bench_rand(&seed) >> 33);

	double t0 = bench_begin();
	qsort(a, n, sizeof *a, cmp_int);
	double t1 = bench_end();

	uint64_t sum = 0;
	for (long i = 0; i < n; i++) {
		if (i > 0 && a[i - 1] > a[i]) {
			fprintf(stderr, "qsort_cb: not sorted at %ld\n", i);
			return 1;
		}
		sum = sum * 1000003 + (uint64_t)a[i];
	}
	bench_report("qsort_cb", t1 - t0, sum);
	free(a);
	return 0;
}
