/* Constructors of several priorities (101 runs first, before libreplay's own once did),
 * each reading the clock (a recorded input) and one sorting with an instrumented
 * comparator (a callback through libc), then threads. A recording and its replay
 * print the same order, the same clock values and the same sums; each constructor
 * runs once. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char order[128];
static long long stamps;

static void ran(const char *who)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	stamps += ts.tv_nsec % 1000;
	strcat(order, " ");
	strcat(order, who);
}

static int by_value(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((constructor(101))) static void c101(void)
{
	int v[6] = {5, 3, 6, 1, 4, 2};
	qsort(v, 6, sizeof v[0], by_value);
	ran(v[0] == 1 && v[5] == 6 ? "101" : "101-unsorted");
}
__attribute__((constructor(102))) static void c102(void) { ran("102"); }
__attribute__((constructor(150))) static void c150(void) { ran("150"); }
__attribute__((constructor(65535))) static void c65535(void) { ran("65535"); }
__attribute__((constructor)) static void cdefault(void) { ran("default"); }

static volatile long total;

static void *work(void *arg)
{
	for (long i = 0; i < 300000; i++)
		total += (long)arg;
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("order%s\n", order);
	printf("stamps %lld total %ld\n", stamps, total);
	return 0;
}
