/* An instrumented shared library (issue 11, item 7): loops, callbacks into the
 * program, qsort calling back into the library (the slow entry, through the GOT), a
 * tail call through a pointer, its own count checks (rp_sic_count, exported by the
 * program). */
#include <stdlib.h>
#include "../count_check.h"

long shlib_calls;

long shlib_sum(long n, long (*cb)(long))
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += cb(i);
	shlib_calls++;
	COUNT_CHECK(1);
	return s;
}

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	COUNT_CHECK(1);
	return (x > y) - (x < y);
}

long shlib_sort(int *v, int n)
{
	qsort(v, n, sizeof *v, cmp);
	long h = 0;
	for (int i = 0; i < n; i++)
		h = h * 31 + v[i];
	return h;
}

static long twice(long x) { return 2 * x; }
long (*shlib_op)(long) = twice;
__attribute__((noinline)) long shlib_apply(long x) { return shlib_op(x + 1); }
