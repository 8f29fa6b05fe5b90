/* A replay that ends in a crash, for going back from there (tests/gdb/ends.sh): after
 * both workers have counted a while (preempted a few times), thread 2 calls check(),
 * which faults (argument segv) or aborts (abort). Not inlined: reverse-finish from
 * the crash goes back to its call. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long spins[2];
static int *volatile target;
static const char *how = "segv";

static __attribute__((noinline)) void check(long id)
{
	long sum = spins[id]; /* the line before the end */
	if (how[0] == 's')
		*target = (int)sum; /* the fault */
	else
		abort(); /* the failed check */
}

static void *work(void *arg)
{
	long id = (long)arg;
	for (long i = 0; i < 2000000; i++)
		spins[id]++;
	if (id == 0)
		check(id);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	if (argc > 1)
		how = argv[1];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("not reached\n");
	return 0;
}
