/* Callbacks from libc into instrumented code: qsort, qsort_r, bsearch, lfind,
 * tsearch/twalk, atexit. Results must match the plain build and the count must
 * keep growing through every callback. */
#define _GNU_SOURCE
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "count_check.h"

static int ncalls;

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	ncalls++;
	COUNT_CHECK(1);
	return (x > y) - (x < y);
}

static int cmp_mod(const void *a, const void *b, void *ctx)
{
	int m = *(int *)ctx;
	int x = *(const int *)a % m, y = *(const int *)b % m;
	ncalls++;
	return x != y ? (x > y) - (x < y) : *(const int *)a - *(const int *)b;
}

static long tree_sum;
static void walk(const void *node, VISIT v, int depth)
{
	if (v == postorder || v == leaf)
		tree_sum += **(const int *const *)node * (depth + 1);
}

static void bye(void)
{
	COUNT_CHECK(1);
	printf("atexit: ncalls=%d\n", ncalls);
}

int main(void)
{
	enum { N = 3000 };
	static int a[N], b[N];
	unsigned s = 12345;
	for (int i = 0; i < N; i++) {
		s = s * 1103515245u + 12345u;
		a[i] = b[i] = (int)(s >> 9) % 100000;
	}
	atexit(bye);
	COUNT_CHECK(0);
	qsort(a, N, sizeof a[0], cmp_int);
	COUNT_CHECK(1);
	int m = 97;
	qsort_r(b, N, sizeof b[0], cmp_mod, &m);
	long h = 0;
	for (int i = 0; i < N; i++)
		h = h * 31 + a[i] + 7 * b[i];
	int found = 0;
	for (int i = 0; i < N; i += 7)
		found += bsearch(&a[i], a, N, sizeof a[0], cmp_int) != NULL;
	size_t n = 50;
	int key = a[20];
	int *hit = lfind(&key, a, &n, sizeof a[0], cmp_int);
	void *root = NULL;
	for (int i = 0; i < 200; i++)
		tsearch(&b[i], &root, cmp_int);
	twalk(root, walk);
	COUNT_CHECK(1);
	printf("hash=%ld found=%d lfind=%ld tree=%ld ncalls=%d\n", h, found,
	       hit ? (long)(hit - a) : -1L, tree_sum, ncalls);
	return 0;
}
