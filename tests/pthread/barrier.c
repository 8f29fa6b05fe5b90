/* barrier: N threads through several rounds; in each round exactly one gets
 * PTHREAD_BARRIER_SERIAL_THREAD and nobody leaves before everyone arrived. */
#include "pt_test.h"

#define N 5
#define ROUNDS 4

static pthread_barrier_t bar;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int arrived[ROUNDS], serial[ROUNDS], early[ROUNDS];

static void *run(void *arg)
{
	for (int r = 0; r < ROUNDS; r++) {
		pthread_mutex_lock(&lock);
		arrived[r]++;
		pthread_mutex_unlock(&lock);
		int ret = pthread_barrier_wait(&bar);
		pthread_mutex_lock(&lock);
		if (arrived[r] != N)
			early[r]++;
		if (ret == PTHREAD_BARRIER_SERIAL_THREAD)
			serial[r]++;
		else if (ret != 0)
			printf("barrier_wait returned %d\n", ret);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[N];
	pthread_barrierattr_t a;
	int pshared = -1;

	pthread_barrierattr_init(&a);
	SHOW(pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_PRIVATE));
	pthread_barrierattr_getpshared(&a, &pshared);
	CHECK("getpshared says private", pshared == PTHREAD_PROCESS_PRIVATE);
	SHOW(pthread_barrier_init(&bar, &a, 0));
	SHOW(pthread_barrier_init(&bar, &a, N));
	pthread_barrierattr_destroy(&a);

	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	for (int r = 0; r < ROUNDS; r++)
		printf("round %d: %d arrived, %d serial, %d left early\n", r, arrived[r], serial[r],
		       early[r]);
	SHOW(pthread_barrier_destroy(&bar));

	pthread_barrier_t one;
	pthread_barrier_init(&one, NULL, 1);
	CHECK("a barrier of one returns SERIAL at once",
	      pthread_barrier_wait(&one) == PTHREAD_BARRIER_SERIAL_THREAD &&
		      pthread_barrier_wait(&one) == PTHREAD_BARRIER_SERIAL_THREAD);
	SHOW(pthread_barrier_destroy(&one));
	return 0;
}
