/* foreign.c: a program whose time goes into the C library (memset, not built with
 * sicc), counting a few hundred times in all: its replay's checkpoints come by CPU
 * time, not by counts (tests/gdb/ends.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	size_t n = 32 << 20;
	char *p = malloc(n);
	unsigned long sum = 0;
	if (!p)
		return 1;
	for (int i = 0; i < 300; i++) {
		memset(p, i, n);
		sum += (unsigned char)p[i * 1000];
	}
	printf("%lu\n", sum);
	free(p);
	return 0;
}
