/* Paper 002, workload 1: threads increment a shared counter with no lock at all.
 * Updates get lost whenever a time slice ends between a load and its store, so the
 * total changes from run to run: record a run, and its replay loses exactly the same
 * updates. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long counter;
static long per_thread = 2000000;

static void *add(void *arg)
{
	for (long i = 0; i < per_thread; i++)
		counter++;
	return arg;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4;
	if (nthreads < 1 || nthreads > 64)
		nthreads = 4;
	pthread_t t[64];
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, add, NULL);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("counter = %ld of %ld: %ld updates lost\n", counter, nthreads * per_thread,
	       nthreads * per_thread - counter);
	return 0;
}
