/* Callbacks from an uninstrumented shared library, including one that keeps its
 * own loop counter in %r15 across the callback, and callbacks nested through the
 * library several levels deep. */
#include <stdio.h>
#include "count_check.h"
#include "foreign/foreign.h"

static long seen;
static void add(int x, void *ctx)
{
	long *sum = ctx;
	for (int i = 0; i < x % 5; i++) /* a loop inside the callback */
		*sum += x + i;
	seen++;
	COUNT_CHECK(1);
}

static long mix(long acc, long x) { return acc * 1000003 + x; }

static long nest(long x, int depth);
static long nest(long x, int depth)
{
	COUNT_CHECK(1);
	return foreign_nest(nest, x + depth, depth) + 1;
}

static long square(long x)
{
	long r = 0;
	for (long i = 0; i < x % 7; i++)
		r += x;
	COUNT_CHECK(1);
	return r + x;
}

long exported_cb(long x) { return x ^ 0x5a5a; } /* global: reached through the PLT */

int main(void)
{
	int a[500];
	long b[500];
	for (int i = 0; i < 500; i++)
		a[i] = i * 7 % 31, b[i] = i * i;
	long sum = 0;
	COUNT_CHECK(0);
	foreign_foreach(a, 500, add, &sum);
	COUNT_CHECK(1);
	long r = foreign_reduce(mix, b, 500, 1);
	long n = foreign_nest(nest, 1, 6);
	long q = foreign_r15_call(square, 12, 0x0123456789abcdefL);
	long e = foreign_r15_call(exported_cb, 99, 0x7777777777777777L);
	long loop = foreign_r15_loop(square, 2000);
	COUNT_CHECK(1);
	printf("sum=%ld seen=%ld reduce=%ld nest=%ld r15_call=%ld exported=%ld r15_loop=%ld\n",
	       sum, seen, r, n, q, e, loop);
	return 0;
}
