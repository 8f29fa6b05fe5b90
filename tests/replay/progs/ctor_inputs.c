/* Recorded inputs in a constructor, before main and before the session starts: the
 * clock, getrandom, /dev/urandom and getpid read there replay too, and so does what
 * main's threads do with them afterwards. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static struct timespec early_ts;
static unsigned early_rand, early_dev;
static int early_pid;

__attribute__((constructor)) static void early(void)
{
	clock_gettime(CLOCK_MONOTONIC, &early_ts);
	if (getrandom(&early_rand, sizeof early_rand, 0) != sizeof early_rand)
		abort();
	int fd = open("/dev/urandom", O_RDONLY);
	if (fd < 0 || read(fd, &early_dev, sizeof early_dev) != sizeof early_dev)
		abort();
	close(fd);
	early_pid = getpid();
	srand(early_rand);
}

static void *worker(void *arg)
{
	long sum = 0;
	for (int i = 0; i < 200000; i++)
		sum += rand() % 7;
	printf("worker %ld: %ld\n", (long)arg, sum);
	return NULL;
}

int main(void)
{
	printf("constructor: monotonic %ld.%09ld getrandom %08x urandom %08x pid %d\n",
	       (long)early_ts.tv_sec, early_ts.tv_nsec, early_rand, early_dev, early_pid);
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
