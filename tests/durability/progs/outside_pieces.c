/* Data from outside cut in other pieces than when recorded: main reads stdin with
 * read() to its end while a thread naps, naps itself, then reads a pipe that a writer
 * thread fills after a nap (a park, logged with main's try number). On a pipe, the
 * short reads' counts are logged, so a replay fed in other pieces reads the
 * recording's. On an AF_UNIX socket they are not: recorded with all of stdin there at
 * once (one piece), replayed with it coming in two, the replay makes a read the
 * recording did not, so main's tries are one ahead from there on, and its read of the
 * pipe is not the try the log says parked: the replay must say so at once (it waited
 * in the kernel for ever for bytes only the writer, never run, would give).
 * tests/durability/run.sh. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int done;

static void nap(long us)
{
	struct timespec t = {0, us * 1000};
	nanosleep(&t, NULL);
}

static void *napper(void *arg)
{
	long rounds = 0;
	while (!done) {
		nap(1000);
		rounds++;
	}
	return (void *)rounds;
}

static void *writer(void *arg)
{
	nap(2000);
	if (write((int)(long)arg, "x", 1) != 1)
		perror("write");
	return NULL;
}

int main(void)
{
	pthread_t n, w;
	pthread_create(&n, NULL, napper, NULL);
	char buf[256];
	ssize_t r;
	int pieces = 0;
	size_t bytes = 0;
	while ((r = read(0, buf, sizeof buf)) > 0) {
		pieces++;
		bytes += (size_t)r;
	}
	done = 1;
	nap(1000);
	int p[2];
	if (pipe(p) != 0)
		return 1;
	pthread_create(&w, NULL, writer, (void *)(long)p[1]);
	char c = 0;
	r = read(p[0], &c, 1);
	pthread_join(w, NULL);
	pthread_join(n, NULL);
	printf("stdin: %zu bytes in %d pieces; pipe: %zd '%c'\n", bytes, pieces, r, c);
	return 0;
}
