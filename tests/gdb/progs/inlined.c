/* Two threads whose time goes into a function gcc inlines (at -O1 too): most
 * preemptions land in the inlined loop, where gdb's next steps instruction by
 * instruction, so the replay's breakpoint signal arrives during a step. */
#include <pthread.h>
#include <stdio.h>

static volatile long sink;

static inline __attribute__((always_inline)) void churn(long n)
{
	for (long i = 0; i < n; i++)
		sink += i ^ (sink >> 1);
}

static void *work(void *arg)
{
	for (int r = 0; r < 300; r++)
		churn(20000);
	return arg;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("sink %ld\n", sink);
	return 0;
}
