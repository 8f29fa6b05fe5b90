/* replay_bench.h: what the programs of bench/replay.sh share.
 *
 * Each program prints its result on stdout (what a replay must reproduce exactly,
 * byte for byte) and its timing on stderr, one line
 *     replay-bench WALL CPU
 * seconds of wall-clock (CLOCK_MONOTONIC) and CPU time (CLOCK_PROCESS_CPUTIME_ID,
 * user + system, which the kernel keeps exactly) spent in the timed part, so the
 * timing never makes a recording and its replay print different things. */
#ifndef REPLAY_BENCH_H
#define REPLAY_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct rb_clock {
	double wall, cpu;
};

/* By system call: a program built with sicc records its clock_gettime, and its replay
 * reads the recorded values, which would time the recording again. */
static inline double rb_read(clockid_t clk)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline struct rb_clock rb_start(void)
{
	struct rb_clock c = {rb_read(CLOCK_MONOTONIC), rb_read(CLOCK_PROCESS_CPUTIME_ID)};
	return c;
}

static inline void rb_stop(struct rb_clock c)
{
	double wall = rb_read(CLOCK_MONOTONIC) - c.wall;
	double cpu = rb_read(CLOCK_PROCESS_CPUTIME_ID) - c.cpu;
	fprintf(stderr, "replay-bench %.6f %.6f\n", wall, cpu);
}

/* argv[i] as a positive number no larger than max, or dflt when absent. */
static inline long rb_arg(int argc, char **argv, int i, long dflt, long max)
{
	if (argc <= i)
		return dflt;
	char *end;
	long v = strtol(argv[i], &end, 10);
	if (*end || end == argv[i] || v < 1 || v > max) {
		fprintf(stderr, "%s: argument %d: want a number from 1 to %ld, not '%s'\n",
			argv[0], i, max, argv[i]);
		exit(2);
	}
	return v;
}

#endif
