/* sort: a hand-written quicksort (median of three, insertion sort below 16
 * elements, recursion on the smaller side) of 6 million random ints. Branchy
 * compare-and-swap loops and a recursive call per partition. */
#include "bench.h"

static void insertion_sort(int *a, long n)
{
	for (long i = 1; i < n; i++) {
		int v = a[i];
		long j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

static inline void swap(int *x, int *y)
{
	int t = *x;
	*x = *y;
	*y = t;
}

static void quicksort(int *a, long n)
{
	while (n > 16) {
		long m = n / 2;
		if (a[m] < a[0])
			swap(&a[m], &a[0]);
		if (a[n - 1] < a[0])
			swap(&a[n - 1], &a[0]);
		if (a[n - 1] < a[m])
			swap(&a[n - 1], &a[m]);
		int pivot = a[m];
		long i = 0, j = n - 1;
		for (;;) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i >= j)
				break;
			swap(&a[i], &a[j]);
			i++;
			j--;
		}
		/* a[0..j] <= pivot <= a[j+1..n-1] */
		long left = j + 1, right = n - left;
		if (left < right) {
			quicksort(a, left);
			a += left;
			n = right;
		} else {
			quicksort(a + left, right);
			n = left;
		}
	}
	insertion_sort(a, n);
}

int main(int argc, char **argv)
{
	long n = 6000000L * bench_scale(argc, argv) / 100;
	int *a = malloc(sizeof *a * n);
	if (!a)
		return 1;
	uint64_t seed = 0x2545f4914f6cdd1du;
	for (long i = 0; i < n; i++)
		a[i] = (int)(bench_rand(&seed) >> 33);

	double t0 = bench_begin();
	quicksort(a, n);
	double t1 = bench_end();

	uint64_t sum = 0;
	for (long i = 0; i < n; i++) {
		if (i > 0 && a[i - 1] > a[i]) {
			fprintf(stderr, "sort: not sorted at %ld\n", i);
			return 1;
		}
		sum = sum * 1000003 + (uint64_t)a[i];
	}
	bench_report("sort", t1 - t0, sum);
	free(a);
	return 0;
}
