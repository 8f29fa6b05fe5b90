/* A crash in a function the C library calls back (tests/gdb/ends.sh): qsort's comparison
 * faults on one value of the last sort. qsort is foreign code, so the comparison is
 * entered from outside the program: its count is made in the runtime's foreign entry
 * (where qsort left %r15 its own) or at its entry's count, and going back walks from
 * one call of it to the one before through code without counts. Its never-taken
 * abort() makes gcc split it (cmp.cold, below cmp): its entry is not its block's start. */
#include <pthread.h>
#include <stdlib.h>

static int *volatile bad;

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (__builtin_expect(x < 0, 0))
		abort();
	if (x == 4242)
		return *bad; /* the crash */
	return (x > y) - (x < y);
}

static void *work(void *arg)
{
	static int v[5000];
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 5000; i++)
			v[i] = (i * 7919 + round) % 5000;
		if (round == 19)
			v[17] = 4242;
		qsort(v, 5000, sizeof v[0], cmp);
	}
	return arg;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, work, NULL);
	pthread_join(t, NULL);
	return 0;
}
