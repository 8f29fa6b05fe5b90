/* A loop whose every pass calls a function of the same file that is no leaf (it may
 * call report) and counts only at its returns: the loop head needs no count of its
 * own (sicpp/analyze_loops.c stops at such a call), and deleting step's return
 * counts makes (count, pc) pairs repeat (run.sh's retcount control). */
#include <stdio.h>

void report(int v);
volatile int floor_; /* 0, as gcc cannot know */

__attribute__((noinline)) static int step(int *v, int i)
{
	if (i < floor_) /* never: step is no leaf, and no count is on its path */
		report(i);
	v[i & 7] += i;
	return v[i & 7];
}

int main(void)
{
	int v[8] = {0};
	long s = 0;
	for (int i = 0; i < 3000; i++)
		s += step(v, i);
	printf("%ld\n", s);
	return 0;
}

void report(int v)
{
	printf("negative %d\n", v);
}
