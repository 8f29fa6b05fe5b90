/* 1,000 threads, each racing on a shared sum, some detached, some exiting early
 * with pthread_exit while others run. */
#include <pthread.h>
#include <stdio.h>

static volatile long sum;
static volatile int finished;

static void *work(void *arg)
{
	long id = (long)arg;
	for (long i = 0; i < 2000 + id % 7 * 500; i++)
		sum += id & 15;
	if (id % 10 == 3)
		pthread_exit((void *)(id * 2)); /* exit while the others run */
	finished++;
	return (void *)id;
}

int main(void)
{
	enum { N = 1000 };
	static pthread_t t[N];
	for (long i = 0; i < N; i++)
		if (pthread_create(&t[i], NULL, work, (void *)i) != 0)
			return 1;
	long back = 0;
	for (int i = 0; i < N; i++) {
		void *r;
		pthread_join(t[i], &r);
		back += (long)r;
	}
	printf("sum %ld, returned %ld, finished normally %d\n", sum, back, finished);
	return 0;
}
