/* main_exit: main calls pthread_exit; the other threads go on, and the process exits
 * with status 0 when the last one ends (stdout flushed). Another thread can join
 * main. */
#include "pt_test.h"

static pthread_t main_thread;

static void *worker(void *arg)
{
	void *r = NULL;
	int err = pthread_join(main_thread, &r);
	printf("joined main: %s, value %ld\n", ename(err), (long)r);
	for (int i = 0; i < 3; i++) {
		usleep(1000);
		printf("worker still running %d\n", i);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	main_thread = pthread_self();
	pthread_create(&t, NULL, worker, NULL);
	printf("main exits\n");
	pthread_exit((void *)9);
}
