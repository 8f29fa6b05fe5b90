/* A terminal (a pseudo-terminal pair) between threads: character devices have no
 * RWF_NOWAIT, so a read is a poll first and parks until the other side writes. */
#define _GNU_SOURCE /* posix_openpt, ptsname, cfmakeraw */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int master, slave;

static void *reader(void *arg)
{
	char buf[64];
	long total = 0, lines = 0;
	while (lines < 3) {
		ssize_t r = read(slave, buf, sizeof buf);
		if (r <= 0)
			break;
		total += r;
		for (ssize_t k = 0; k < r; k++)
			lines += buf[k] == '\n';
	}
	printf("reader: %ld bytes, %ld lines\n", total, lines);
	return NULL;
}

int main(void)
{
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master))
		return 2;
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	struct termios t;
	if (slave < 0 || tcgetattr(slave, &t))
		return 2;
	cfmakeraw(&t);
	tcsetattr(slave, TCSANOW, &t);
	pthread_t r;
	pthread_create(&r, NULL, reader, NULL);
	struct timespec nap = {0, 2000000};
	for (int i = 0; i < 3; i++) {
		nanosleep(&nap, NULL); /* the reader waits meanwhile */
		char line[32];
		int n = snprintf(line, sizeof line, "line %d\n", i);
		if (write(master, line, (size_t)n) != n)
			return 3;
	}
	pthread_join(r, NULL);
	return 0;
}
