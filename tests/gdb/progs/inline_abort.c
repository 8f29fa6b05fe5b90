/* An abort in a function gcc inlines (tests/gdb/ends.sh, built -O2 -g): check() is
 * inlined into work's loop, its abort() moved to work.cold. The stop is in the C
 * library, the program's frame gdb's frame for the inlined check. */
#include <pthread.h>
#include <stdlib.h>

static volatile long n;

static inline void check(long i)
{
	long v = n;
	if (i == 5000) /* the line before the end */
		abort();
	n = v + i;
}

static void *work(void *arg)
{
	for (long i = 0; i < 10000; i++) {
		n += 2;
		check(i);
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
