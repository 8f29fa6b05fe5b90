/* A producer and two consumers on a condition variable. The producer computes a
 * while per item and sleeps now and then (usleep: a recorded clock read and a
 * deadline); the consumers wait with a timeout (pthread_cond_timedwait on the
 * recorded realtime clock), so timeouts and wake-ups both happen. Going back in
 * time across all of them must land where a forward replay does. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static long queue[64];
static int head, tail, done;
static long sum, consumed[2], timeouts;
static volatile long busy;

static void spin(long n)
{
	for (long i = 0; i < n; i++)
		busy += i & 3;
}

static void *producer(void *arg)
{
	for (long i = 1; i <= 300; i++) {
		spin(20000);
		pthread_mutex_lock(&lock);
		queue[tail++ % 64] = i;
		pthread_cond_signal(&ready);
		pthread_mutex_unlock(&lock);
		if (i % 30 == 0)
			usleep(2000);
	}
	return arg;
}

static void *consumer(void *arg)
{
	long id = (long)arg;
	for (;;) {
		pthread_mutex_lock(&lock);
		while (head == tail && !done) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 500000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			if (pthread_cond_timedwait(&ready, &lock, &ts) != 0)
				timeouts++;
		}
		if (head == tail) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		long v = queue[head++ % 64];
		consumed[id]++;
		sum += v * (id + 1);
		pthread_mutex_unlock(&lock);
		spin(v * 30);
	}
}

int main(void)
{
	pthread_t p, c[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&c[i], NULL, consumer, (void *)i);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&ready);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < 2; i++)
		pthread_join(c[i], NULL);
	printf("sum %ld, consumed %ld + %ld\n", sum, consumed[0], consumed[1]);
	return 0;
}
