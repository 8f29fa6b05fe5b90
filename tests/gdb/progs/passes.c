/* Three workers call hop() in a loop; `passes` counts the calls, so a breakpoint on
 * hop's line is passed once per call. For count conditions: how many passes went by
 * before a `$rcount` condition held, and how often gdb itself had to stop. */
#include <pthread.h>
#include <stdio.h>

static volatile long passes;

__attribute__((noinline)) void hop(long id)
{
	passes += id; /* the breakpoint's line */
}

static void *work(void *arg)
{
	for (long i = 0; i < 400000; i++)
		hop(1);
	return arg;
}

int main(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("%ld passes\n", passes);
	return 0;
}
