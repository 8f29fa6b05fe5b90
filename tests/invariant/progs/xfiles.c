/* Calls between files (docs/sic.md, "Direct entries"): this file and xfiles-other.c
 * call each other at their direct entries, recursing back and forth (a cycle of the
 * program's call graph that no one file sees), tail-calling across, through a pointer
 * to the other file's function (the token), from qsort's callbacks into the other file,
 * and into a weak function (its shim). */
#include <stdio.h>
#include <stdlib.h>

long other_down(long x, int depth);
long other_leaf(long x);
long other_tail(long x);
long other_weak(long x);
long (*other_ptr(void))(long);

long here_down(long x, int depth)
{
	return depth <= 0 ? other_leaf(x) : other_down(x + 1, depth - 1) + 1;
}

static int by_leaf(const void *a, const void *b)
{
	long x = other_leaf(*(const int *)a), y = other_leaf(*(const int *)b);
	return x < y ? -1 : x > y;
}

int main(void)
{
	int v[24];
	long sum = 0;
	for (int i = 0; i < 24; i++)
		v[i] = (i * 7) % 24;
	qsort(v, 24, sizeof v[0], by_leaf);
	long (*p)(long) = other_ptr();
	for (int i = 0; i < 40; i++) {
		sum += here_down(i, 5) + other_tail(i) + other_weak(i) + p(i);
		sum += other_leaf(i) + other_leaf(i + 1);
	}
	printf("%ld %d %d\n", sum, v[0], v[23]);
	return 0;
}
