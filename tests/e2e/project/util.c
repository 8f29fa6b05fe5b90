#include "util.h"
long collatz_steps(long n)
{
	long steps = 0;
	while (n != 1) {
		n = n % 2 ? 3 * n + 1 : n / 2;
		steps++;
	}
	return steps;
}
int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}
