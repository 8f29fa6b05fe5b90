#include <stdio.h>
#include <stdlib.h>
#include "util.h"
int main(int argc, char **argv)
{
	long v[2000];
	for (int i = 0; i < 2000; i++)
		v[i] = collatz_steps(i + 1);
	qsort(v, 2000, sizeof v[0], cmp_long);
	printf("argc=%d median=%ld max=%ld\n", argc, v[1000], v[1999]);
	return 0;
}
