/* The program of lib.c, linked against it (or, with -DDLOPEN, loading it with dlopen,
 * twice). */
#include <stdio.h>
#include "../count_check.h"
#ifdef DLOPEN
#include <dlfcn.h>
#endif

long shlib_sum(long n, long (*cb)(long));
long shlib_sort(int *v, int n);
long shlib_apply(long x);

static long square(long x)
{
	COUNT_CHECK(1);
	return x * x % 1009;
}

static void run(long (*sum)(long, long (*)(long)), long (*sort)(int *, int), long (*apply)(long))
{
	int v[300];
	for (int i = 0; i < 300; i++)
		v[i] = (i * 7919) % 1013;
	COUNT_CHECK(1);
	long s = sum(2000, square);
	long h = sort(v, 300);
	long a = 0;
	for (long i = 0; i < 1000; i++)
		a += apply(i);
	COUNT_CHECK(1);
	printf("sum=%ld sort=%ld apply=%ld\n", s, h, a);
}

int main(int argc, char **argv)
{
	COUNT_CHECK(0);
#ifdef DLOPEN
	for (int round = 0; round < 2; round++) {
		void *h = dlopen(argv[1], RTLD_NOW);
		if (!h) {
			printf("dlopen: %s\n", dlerror());
			return 1;
		}
		run((long (*)(long, long (*)(long)))dlsym(h, "shlib_sum"),
		    (long (*)(int *, int))dlsym(h, "shlib_sort"), (long (*)(long))dlsym(h, "shlib_apply"));
		dlclose(h);
	}
#else
	run(shlib_sum, shlib_sort, shlib_apply);
#endif
	return 0;
}
