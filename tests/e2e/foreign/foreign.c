/* An uninstrumented library (built with plain gcc) that calls back into the
 * program, the way zlib, libc's qsort or a GUI toolkit would. */
#include "foreign.h"

void foreign_foreach(const int *a, int n, void (*cb)(int, void *), void *ctx)
{
	for (int i = 0; i < n; i++)
		cb(a[i], ctx);
}

long foreign_reduce(long (*op)(long, long), const long *a, int n, long init)
{
	long acc = init;
	for (int i = 0; i < n; i++)
		acc = op(acc, a[i]);
	return acc;
}

/* Calls back, and the callback calls us again: callbacks nested depth levels. */
long foreign_nest(long (*cb)(long, int), long x, int depth)
{
	return depth ? cb(x * 3 + 1, depth - 1) : x;
}
