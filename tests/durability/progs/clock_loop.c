/* Reads the clock N times (argv[1]): a log of about N records (CLOCK_TAI: logged at
 * every read; the wall and monotonic clocks are predicted, inputs.md). At the end, given a
 * second argument, it prints on stderr its peak resident memory (VmHWM), which a
 * replay of a long log must not grow with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	unsigned long long sum = 0;
	for (long i = 0; i < n; i++) {
		struct timespec ts;
		clock_gettime(CLOCK_TAI, &ts);
		sum += (unsigned long long)ts.tv_nsec & 0xff;
	}
	printf("%ld reads, checksum %llu\n", n, sum);
	FILE *f = argc > 2 ? fopen("/proc/self/status", "r") : NULL;
	char line[256];
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "VmHWM:", 6))
			fprintf(stderr, "%s", line);
	if (f)
		fclose(f);
	return 0;
}
