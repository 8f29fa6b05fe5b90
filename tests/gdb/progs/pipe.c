/* A writer thread sends lines through a pipe to a reader thread that blocks in
 * read() (only its green thread waits: docs/io.md) and sums what it gets; the
 * writer computes between lines and sleeps now and then. The pipe's contents are
 * kernel state a fork shares: going back must put back what it held then. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fds[2];
static long bytes, checksum;
static volatile long busy;

static void *writer(void *arg)
{
	char line[32];
	for (long i = 1; i <= 400; i++) {
		for (long k = 0; k < 20000; k++)
			busy += k & 7;
		int n = snprintf(line, sizeof line, "item %ld\n", i * 7);
		if (write(fds[1], line, (size_t)n) != n)
			break;
		if (i % 40 == 0)
			usleep(3000);
	}
	close(fds[1]);
	return arg;
}

static void *reader(void *arg)
{
	char buf[64];
	ssize_t n;
	while ((n = read(fds[0], buf, sizeof buf)) > 0) {
		bytes += n;
		for (ssize_t k = 0; k < n; k++)
			checksum = checksum * 31 + buf[k];
	}
	return arg;
}

int main(void)
{
	pthread_t w, r;
	if (pipe(fds) != 0)
		return 2;
	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&w, NULL, writer, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	printf("%ld bytes, checksum %ld\n", bytes, checksum);
	return 0;
}
