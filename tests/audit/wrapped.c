/* wrapped.c: only calls libreplay wraps (threads, a pipe, read and write, getpid,
 * clocks, sysconf's processor count): --syscall-audit names nothing. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *worker(void *arg)
{
	char c = 'x';
	for (int i = 0; i < 100000; i++) {
		pthread_mutex_lock(&m);
		total += (long)arg;
		pthread_mutex_unlock(&m);
	}
	write(fds[1], &c, 1);
	return NULL;
}

int main(void)
{
	struct timespec ts;
	pthread_t t[3];
	char c, msg[64];
	if (pipe(fds) != 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	srand((unsigned)getpid());
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		read(fds[0], &c, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	int n = snprintf(msg, sizeof msg, "total %ld, processors %s\n", total,
			 sysconf(_SC_NPROCESSORS_ONLN) > 0 ? "some" : "none");
	write(1, msg, (size_t)n);
	return 0;
}
