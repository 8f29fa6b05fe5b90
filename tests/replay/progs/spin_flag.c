/* A thread spins on a flag that only another thread sets: nothing but a preemption
 * at an instruction count lets the setter run. The order of the printed events
 * depends on where the slices fell. */
#include <pthread.h>
#include <stdio.h>

static volatile int flag;
static volatile long spins, work_done;

static void *spinner(void *arg)
{
	while (!flag)
		spins++;
	return NULL;
}

static void *setter(void *arg)
{
	for (long i = 0; i < 2000000; i++)
		work_done += i & 7;
	flag = 1;
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, spinner, NULL);
	pthread_create(&b, NULL, setter, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("flag seen after %ld spins, work %ld\n", spins, work_done);
	return 0;
}
