/* Two workers take a mutex in a loop; the second then writes through a null pointer.
 * Under the hunting scheduler the first is often preempted just before a
 * pthread_mutex_lock call (at the call's counting point) when the second faults: the
 * crash report of the recording and of its replay must show it at the same place,
 * the call site, line 16. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int *volatile nowhere;
static long n;

static void *work(void *arg)
{
	for (int i = 0; i < 100000; i++) {
		pthread_mutex_lock(&m); /* the lock call */
		n++;
		pthread_mutex_unlock(&m);
	}
	if (arg)
		*nowhere = 1; /* the fault */
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", n);
	return 0;
}
