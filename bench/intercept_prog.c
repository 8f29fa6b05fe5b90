/* intercept_prog.c: the real libreplay on system calls (bench/intercept.sh).
 *
 *   intercept_prog FILE [N]
 *
 * N getpid() calls (libreplay's wrapper: a recorded input), then N 4 KiB preads of FILE
 * at offset 0 (glibc's pread, which libreplay does not wrap), each loop timed alone.
 * Prints `prog getpid NS` and `prog pread4k NS` (ns per call) and a checksum. Built with
 * gcc and with sicc, the same source. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[4096];
	long n = argc > 2 ? atol(argv[2]) : 100000, sum = 0;
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	if (fd < 0) {
		fprintf(stderr, "usage: intercept_prog FILE [N] (a readable file of 4 KiB or more)\n");
		return 2;
	}
	double t0 = now();
	for (long i = 0; i < n; i++)
		sum += getpid() & 1;
	double t1 = now();
	for (long i = 0; i < n; i++)
		sum += pread(fd, buf, sizeof buf, 0);
	double t2 = now();
	printf("prog getpid %.1f\nprog pread4k %.1f\nchecksum %ld\n", (t1 - t0) / n, (t2 - t1) / n,
	       sum - (getpid() & 1) * n);
	return 0;
}
