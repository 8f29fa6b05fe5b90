/* Callbacks nested through uninstrumented code deeper than the side stack holds: a
 * comparator that sorts again from inside qsort, 5,000 levels deep, in thread 1
 * (4,096 entries) or in another thread (256, with -DTHREAD). One line, then abort. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int depth;

static int cmp(const void *a, const void *b)
{
	if (depth < 5000) {
		int v[2] = {1, 0};
		depth++;
		qsort(v, 2, sizeof v[0], cmp);
	}
	return *(const int *)a - *(const int *)b;
}

static void *run(void *arg)
{
	int v[2] = {2, 1};
	qsort(v, 2, sizeof v[0], cmp);
	return arg;
}

int main(void)
{
#ifdef THREAD
	pthread_t t;
	pthread_create(&t, NULL, run, NULL);
	pthread_join(t, NULL);
#else
	run(NULL);
#endif
	printf("%d levels\n", depth);
	return 0;
}
