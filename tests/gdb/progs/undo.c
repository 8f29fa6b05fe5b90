/* Writes a value search misses (reverse.sh, watchpoints going back): a worker sets
 * `flag` and, long after, sets it to 2 and back to 1 with no counting point between
 * (the runtime's comparisons see 1 throughout); `level` goes to 5, long after to 7
 * and back to 5, then 5 is stored again (a write gdb's `watch` does not stop at: the
 * value does not change). A second worker keeps the scheduler switching. */
#include <pthread.h>
#include <stdio.h>

static volatile long flag, level, sink;

static void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

static void *setter(void *arg)
{
	(void)arg;
	spin(2000000);
	flag = 1;
	level = 5;
	spin(2000000);
	flag = 2;
	flag = 1;
	level = 7;
	level = 5;
	level = 5;
	spin(2000000);
	return NULL;
}

static void *other(void *arg)
{
	(void)arg;
	spin(5000000);
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, setter, NULL);
	pthread_create(&b, NULL, other, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("flag = %ld, level = %ld\n", flag, level);
	return 0;
}
