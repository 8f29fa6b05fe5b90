/* in_clock.c: the clock as the program sees it, recorded and replayed, so a program
 * that computes deadlines or prints times from clock_gettime, gettimeofday or time
 * gets the same values in its replay (the history tape of paper 000). Calls made
 * before main (constructors) and by the C library itself go straight to the system. */
#include "engine/engine.h"
#include "engine/session.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_gettimeofday)(struct timeval *, void *);
static time_t (*real_time)(time_t *);

/* Before the program's constructors, so none of these is looked up in a handler. */
__attribute__((constructor(103))) static void find_real(void)
{
	real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	real_gettimeofday = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
	real_time = (time_t(*)(time_t *))dlsym(RTLD_NEXT, "time");
	if (!real_clock_gettime || !real_gettimeofday || !real_time)
		rp_fatal("cannot find the C library's clock functions");
}

struct clock_value {
	int32_t clk, rc, err, pad;
	struct timespec ts;
};

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	struct clock_value v;
	memset(&v, 0, sizeof v);
	if (rp_input_replay(RP_INPUT_CLOCK_GETTIME, &v, sizeof v)) {
		if (v.clk != (int32_t)clk)
			rp_fatal("replay: clock_gettime of clock %d where the recording read clock %d",
				 (int)clk, v.clk);
	} else {
		if (!real_clock_gettime)
			find_real();
		v.clk = (int32_t)clk;
		v.rc = real_clock_gettime(clk, &v.ts);
		v.err = errno;
		rp_input_record(RP_INPUT_CLOCK_GETTIME, &v, sizeof v);
	}
	if (v.rc != 0)
		errno = v.err;
	else
		*ts = v.ts;
	return v.rc;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	struct timeval v = {0, 0};
	if (!rp_input_replay(RP_INPUT_GETTIMEOFDAY, &v, sizeof v)) {
		if (!real_gettimeofday)
			find_real();
		real_gettimeofday(&v, tz);
		rp_input_record(RP_INPUT_GETTIMEOFDAY, &v, sizeof v);
	}
	*tv = v;
	return 0;
}

time_t time(time_t *out)
{
	time_t v = 0;
	if (!rp_input_replay(RP_INPUT_TIME, &v, sizeof v)) {
		if (!real_time)
			find_real();
		v = real_time(NULL);
		rp_input_record(RP_INPUT_TIME, &v, sizeof v);
	}
	if (out)
		*out = v;
	return v;
}
