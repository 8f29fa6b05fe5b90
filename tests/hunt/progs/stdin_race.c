/* stdin_race: a lost update that needs its input (tests/hunt, replay-hunt --stdin).
 * Reads a count N from stdin; two threads each add 1 to a shared counter N times,
 * unlocked (a load, then a store). With no input (N = 0) there is nothing to race
 * on; with one, a switch between a thread's load and its store loses an update:
 * exit 1, "lost updates". */
#include <pthread.h>
#include <stdio.h>

static volatile long counter;
static long n;

static void *adder(void *arg)
{
	for (long i = 0; i < n; i++) {
		long v = counter;
		counter = v + 1;
	}
	return arg;
}

int main(void)
{
	pthread_t a, b;
	if (scanf("%ld", &n) != 1)
		n = 0;
	printf("read %ld\n", n);
	pthread_create(&a, NULL, adder, NULL);
	pthread_create(&b, NULL, adder, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (counter != 2 * n) {
		printf("lost updates: %ld of %ld\n", counter, 2 * n);
		return 1;
	}
	printf("counter %ld\n", counter);
	return 0;
}
