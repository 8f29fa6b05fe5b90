/* bench.h: what every benchmark shares.
 *
 * Each benchmark times only its kernel (setup and checking are outside the clock)
 * and prints one line, `name seconds checksum`, which bench/run.sh parses. The
 * checksum depends only on the work done, so a plain and an instrumented build of
 * the same program must print the same one.
 *
 * An optional first argument scales the work (a percentage, default 100): the
 * callgrind column runs the programs at a small scale to keep valgrind quick. */
#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef BENCH_CALLGRIND
/* The callgrind builds (bench/run.sh with CALLGRIND=1) count only the kernel: they
 * run under --collect-atstart=no and switch collection on and off around it. */
#include <valgrind/callgrind.h>
#define BENCH_TOGGLE() CALLGRIND_TOGGLE_COLLECT
#else
#define BENCH_TOGGLE() ((void)0)
#endif

static inline double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Bracket the kernel: t0 = bench_begin(); kernel(); t1 = bench_end(); */
static inline double bench_begin(void)
{
	double t = bench_now();
	BENCH_TOGGLE();
	return t;
}

static inline double bench_end(void)
{
	BENCH_TOGGLE();
	return bench_now();
}

/* The work scale in percent, from argv[1]. */
static inline long bench_scale(int argc, char **argv)
{
	if (argc < 2)
		return 100;
	char *end;
	long s = strtol(argv[1], &end, 10);
	if (*end || s < 1 || s > 10000) {
		fprintf(stderr, "usage: %s [SCALE-PERCENT]\n", argv[0]);
		exit(2);
	}
	return s;
}

/* A fixed-seed generator, so every build sees the same input. */
static inline uint64_t bench_rand(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static inline void bench_report(const char *name, double seconds, uint64_t checksum)
{
	printf("%s %.6f %016llx\n", name, seconds, (unsigned long long)checksum);
}

#endif
