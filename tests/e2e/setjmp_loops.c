/* setjmp/longjmp (which restore r15) in loops, sigsetjmp/siglongjmp, and longjmp
 * out of callbacks called from foreign code, thousands of times. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include "count_check.h"
#include "foreign/foreign.h"

static jmp_buf jb;
static sigjmp_buf sjb;
static int depth_reached;

static void dive(int d)
{
	if (d == 0)
		longjmp(jb, 1);
	depth_reached++;
	dive(d - 1);
}

static long escape(long x)
{
	if (x % 3 == 0)
		longjmp(jb, (int)x + 1);
	return x;
}

static int cmp_escape(const void *a, const void *b)
{
	if (*(const int *)a == 4242 || *(const int *)b == 4242)
		siglongjmp(sjb, 7);
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	volatile long total = 0;
	for (volatile int i = 0; i < 1000; i++) {
		if (setjmp(jb) == 0)
			dive(i % 17);
		else
			total += i;
		COUNT_CHECK(1);
	}
	/* Leave a callback of foreign code (which keeps state in r15) by longjmp, far
	 * more times than the runtime could keep stale entries for. */
	for (volatile int i = 0; i < 6000; i++) {
		int r = setjmp(jb);
		if (r == 0)
			total += foreign_r15_call(escape, i, 0x1111L * i);
		else
			total += r;
		COUNT_CHECK(1);
	}
	int a[64];
	for (int i = 0; i < 64; i++)
		a[i] = (i * 37) % 64;
	a[50] = 4242;
	volatile int escaped = 0;
	for (volatile int i = 0; i < 200; i++) {
		if (sigsetjmp(sjb, 1) == 0)
			qsort(a, 64, sizeof a[0], cmp_escape);
		else
			escaped++;
		COUNT_CHECK(1);
	}
	printf("total=%ld depth=%d escaped=%d\n", (long)total, depth_reached, escaped);
	return 0;
}
