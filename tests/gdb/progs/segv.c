/* A genuine fault during a replay: after the workers have been preempted a few
 * times, thread 2 writes through a null pointer. Under gdb, the replay must stop at
 * the faulting line (not in libreplay's signal handling). */
#include <pthread.h>
#include <stdio.h>

static volatile long spins[2];
static int *volatile target;

static void *work(void *arg)
{
	long id = (long)arg;
	for (long i = 0; i < 2000000; i++)
		spins[id]++;
	if (id == 0)
		*target = 1; /* the fault */
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("not reached\n");
	return 0;
}
