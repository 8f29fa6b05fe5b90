/* setjmp/longjmp: a loop made of longjmps back to one setjmp, a longjmp out of a
 * qsort comparator (foreign frames in between) back into main, a longjmp across
 * several instrumented frames, and sigsetjmp/siglongjmp. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf again, out_of_sort, deep;
static sigjmp_buf sig_env;
static int compares;

static int cmp_then_bail(const void *a, const void *b)
{
	if (++compares == 15)
		longjmp(out_of_sort, compares);
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static volatile int trail;

static int descend(int depth)
{
	trail = trail * 3 + depth;
	if (depth == 6)
		longjmp(deep, depth);
	if (depth > 100)
		return 0;
	return descend(depth + 1) + 1; /* not a tail call: the frames pile up */
}

int main(void)
{
	/* A loop whose back edge is a longjmp. */
	volatile int rounds = 0;
	volatile long acc = 0;
	int v = setjmp(again);
	acc += v * 10 + rounds;
	if (rounds++ < 25)
		longjmp(again, rounds);

	/* Out of a comparator: qsort's frames are abandoned. */
	int arr[32];
	for (int i = 0; i < 32; i++)
		arr[i] = (i * 13 + 7) % 32;
	volatile int bailed = 0;
	int r = setjmp(out_of_sort);
	if (r != 0)
		bailed++;
	if (bailed < 3) {
		compares = bailed < 2 ? 0 : 100; /* the third sort runs to the end */
		qsort(arr, 32, sizeof arr[0], cmp_then_bail);
	}

	/* Across instrumented frames. */
	if (setjmp(deep) == 0)
		trail = descend(0);

	/* sigsetjmp, a few times around. */
	volatile int sig_rounds = 0;
	if (sigsetjmp(sig_env, 1) < 3) {
		sig_rounds++;
		siglongjmp(sig_env, sig_rounds);
	}
	printf("longjmp: %ld %d %d %d %d %d\n", acc, r, bailed, arr[0] + arr[31], trail, sig_rounds);
	return 0;
}
