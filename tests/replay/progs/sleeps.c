/* Sleeps: which thread wakes when is a matter of time, recorded and replayed.
 * Threads compute, sleep or wait with a timeout, and log their wake-ups in order. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static char order[256];
static int n;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *sleeper(void *arg)
{
	long id = (long)arg;
	volatile long x = 0;
	for (int round = 0; round < 6; round++) {
		for (long i = 0; i < 20000 * (id + 1); i++)
			x += i;
		if (id == 0) {
			/* A timed wait that times out: its expiry is a logged decision. (One
			 * waiter on the realtime clock: deadlines from clock_gettime are not
			 * recorded yet, so several could be ordered differently.) */
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 700000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_mutex_lock(&m);
			pthread_cond_timedwait(&never, &m, &ts);
			pthread_mutex_unlock(&m);
		} else if (id % 2) {
			usleep(300 + 200 * (unsigned)id);
		} else {
			struct timespec ts = {0, 400000 + 100000 * id};
			nanosleep(&ts, NULL);
		}
		pthread_mutex_lock(&m);
		order[n++] = (char)('a' + id);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[5];
	for (long i = 0; i < 5; i++)
		pthread_create(&t[i], NULL, sleeper, (void *)i);
	for (int i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	printf("wake order: %s\n", order);
	return 0;
}
