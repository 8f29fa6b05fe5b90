/* Data from outside the process, late: main blocks reading stdin (a pipe the shell
 * feeds after a delay) while a worker counts how often it ran meanwhile. The count
 * depends on timing: a replay must reproduce the recording's exactly.
 *
 * With the argument "stdio", main reads with fgets instead of read. glibc's fgets
 * reads through its internal read: only because libreplay makes stdin a stream whose
 * reads park (libreplay/io/io_stdio.c) does the worker run at all (run.sh wants a count
 * above 0 either way). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int got_line;

static void *worker(void *arg)
{
	long rounds = 0;
	struct timespec nap = {0, 1000000};
	while (!got_line) {
		nanosleep(&nap, NULL);
		rounds++;
	}
	return (void *)rounds;
}

int main(int argc, char **argv)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	char buf[256] = "";
	size_t len = 0;
	ssize_t r;
	if (argc > 1 && !strcmp(argv[1], "stdio"))
		len = fgets(buf, sizeof buf, stdin) ? strlen(buf) : 0;
	else
		while (len < sizeof buf - 1 && (r = read(0, buf + len, sizeof buf - 1 - len)) > 0) {
			len += (size_t)r;
			if (memchr(buf, '\n', len))
				break;
		}
	buf[len] = 0;
	got_line = 1;
	void *rounds;
	pthread_join(t, &rounds);
	printf("read: %s", buf);
	printf("worker rounds while waiting: %ld\n", (long)rounds);
	return 0;
}
