/* A comparator called by qsort, whose merge sort keeps its own value in %r15: the
 * comparator is entered through the foreign-entry slow path, and a debugger stopped
 * in it must walk back through __sic_foreign_entry and qsort's frames to main. */
#include <stdio.h>
#include <stdlib.h>
static int calls;
static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	calls++; /* line 10 */
	return (x > y) - (x < y); /* line 11 */
}
int main(void)
{
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 67;
	qsort(v, 64, sizeof v[0], cmp);
	printf("%d %d\n", v[0], calls);
	return 0;
}
