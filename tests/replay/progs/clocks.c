/* The clock as the program sees it is replayed: it prints time(), gettimeofday and
 * clock_gettime values, seeds rand() from the clock, and several threads wait with
 * absolute deadlines computed from clock_gettime. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static char order[64];
static int n;

static void *waiter(void *arg)
{
	long id = (long)arg;
	for (int round = 0; round < 4; round++) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 200000 + 150000 * ((id * 7 + round) % 5);
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&m);
		pthread_cond_timedwait(&never, &m, &ts);
		order[n++] = (char)('a' + id);
		pthread_mutex_unlock(&m);
		volatile long x = 0;
		for (long i = 0; i < 30000 * (id + 1); i++)
			x += i;
	}
	return NULL;
}

int main(void)
{
	struct timespec mono, real;
	struct timeval tv;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	gettimeofday(&tv, NULL);
	time_t now = time(NULL);
	srand((unsigned)(real.tv_nsec ^ now));
	printf("time %ld gettimeofday %ld.%06ld realtime %ld.%09ld monotonic %ld.%09ld rand %d\n",
	       (long)now, (long)tv.tv_sec, (long)tv.tv_usec, (long)real.tv_sec, real.tv_nsec,
	       (long)mono.tv_sec, mono.tv_nsec, rand());
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, waiter, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("timeout order %s, took %ld us\n", order,
	       (long)((end.tv_sec - mono.tv_sec) * 1000000 + (end.tv_nsec - mono.tv_nsec) / 1000));
	return 0;
}
