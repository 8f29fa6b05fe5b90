/* sic_demo: what the software instruction counter sees of a small program.
 * Loops, recursion, a switch and a libc callback; prints the count at each step. */
#include <stdio.h>
#include <stdlib.h>
#ifdef __SICC__
#include <libreplay.h>
#define COUNT() ((unsigned long long)rp_sic_count())
#else
#define COUNT() 0ULL
#endif

static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static int by_value(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(void)
{
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	unsigned long long c0 = COUNT();
	qsort(v, 64, sizeof v[0], by_value);
	unsigned long long c1 = COUNT();
	long f = fib(20);
	unsigned long long c2 = COUNT();
	printf("sorted: %s   fib(20) = %ld\n", v[0] == 0 && v[63] == 63 ? "yes" : "no", f);
	printf("count: %llu at the sort, +%llu in qsort's callbacks, +%llu in fib\n", c0, c1 - c0, c2 - c1);
	return 0;
}
