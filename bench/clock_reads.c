/* clock_reads.c: THREADS threads each read one clock READS times in a loop, the way a
 * program times its work or polls a deadline: what the log pays per recorded read.
 *
 *   clock_reads KIND [READS [THREADS]]     defaults: 1000000 reads, 1 thread
 *
 * KIND: monotonic, realtime (clock_gettime), time (time()), gettimeofday, cputime
 * (clock_gettime(CLOCK_PROCESS_CPUTIME_ID): not predicted, every read is logged).
 * stdout: "clock_reads KIND threads T reads N" and a sum of the low bits the reads
 * returned, which a replay must print again. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static const char *kind;
static long reads = 1000000;

static long read_once(void)
{
	struct timespec ts;
	struct timeval tv;
	if (!strcmp(kind, "monotonic")) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return ts.tv_nsec;
	}
	if (!strcmp(kind, "realtime")) {
		clock_gettime(CLOCK_REALTIME, &ts);
		return ts.tv_nsec;
	}
	if (!strcmp(kind, "time"))
		return (long)time(NULL);
	if (!strcmp(kind, "gettimeofday")) {
		gettimeofday(&tv, NULL);
		return tv.tv_usec;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_nsec;
}

static void *reader(void *arg)
{
	long sum = 0;
	(void)arg;
	for (long i = 0; i < reads; i++)
		sum += read_once() & 7;
	return (void *)sum;
}

int main(int argc, char **argv)
{
	static const char *kinds[] = {"monotonic", "realtime", "time", "gettimeofday", "cputime"};
	int threads = 1, ok = 0;
	if (argc < 2)
		goto usage;
	kind = argv[1];
	for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		ok |= !strcmp(kind, kinds[i]);
	if (argc > 2)
		reads = atol(argv[2]);
	if (argc > 3)
		threads = atoi(argv[3]);
	if (!ok || reads < 1 || threads < 1 || threads > 64)
		goto usage;
	pthread_t t[64];
	long sum = 0;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	for (int i = 0; i < threads; i++) {
		void *s;
		pthread_join(t[i], &s);
		sum += (long)s;
	}
	printf("clock_reads %s threads %d reads %ld sum %ld\n", kind, threads, reads * threads, sum);
	return 0;
usage:
	fprintf(stderr, "usage: clock_reads monotonic|realtime|time|gettimeofday|cputime [READS [THREADS]]\n");
	return 2;
}
