/* in_cputime.c: the process's CPU time as the program sees it (times, clock, getrusage)
 * and C11's timespec_get, recorded and replayed like clock_gettime (in_clock.c), so
 * a program that prints its timings replays them exactly. */
#include "inputs/inputs.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <time.h>

static clock_t (*real_times)(struct tms *);
static clock_t (*real_clock)(void);
static int (*real_getrusage)(int, struct rusage *);
static int (*real_timespec_get)(struct timespec *, int);

__attribute__((constructor(103))) static void find_real(void)
{
	real_times = (clock_t(*)(struct tms *))dlsym(RTLD_NEXT, "times");
	real_clock = (clock_t(*)(void))dlsym(RTLD_NEXT, "clock");
	real_getrusage = (int (*)(int, struct rusage *))dlsym(RTLD_NEXT, "getrusage");
	real_timespec_get = (int (*)(struct timespec *, int))dlsym(RTLD_NEXT, "timespec_get");
	if (!real_times || !real_clock || !real_getrusage || !real_timespec_get)
		rp_fatal("cannot find the C library's CPU time functions");
}

struct times_value {
	int64_t ret;
	int32_t err, pad;
	struct tms tms;
};

clock_t times(struct tms *buf)
{
	struct times_value v;
	memset(&v, 0, sizeof v);
	if (!rp_input_replay(RP_INPUT_TIMES, &v, sizeof v)) {
		if (!real_times)
			find_real();
		char held = rp_audit_hold(); /* recorded: not an escape (audit.c) */
		v.ret = real_times(&v.tms);
		rp_audit_release(held);
		v.err = errno;
		rp_input_record(RP_INPUT_TIMES, &v, sizeof v);
	}
	if (v.ret == -1)
		errno = v.err;
	else if (buf) /* glibc's times accepts NULL */
		*buf = v.tms;
	return (clock_t)v.ret;
}

clock_t clock(void)
{
	int64_t v;
	if (!rp_input_replay(RP_INPUT_CLOCK, &v, sizeof v)) {
		if (!real_clock)
			find_real();
		char held = rp_audit_hold(); /* recorded: not an escape (audit.c) */
		v = real_clock();
		rp_audit_release(held);
		rp_input_record(RP_INPUT_CLOCK, &v, sizeof v);
	}
	return (clock_t)v;
}

struct rusage_value {
	int32_t who, rc, err, pad;
	struct rusage ru;
};

int getrusage(int who, struct rusage *ru)
{
	struct rusage_value v;
	memset(&v, 0, sizeof v);
	if (rp_input_replay(RP_INPUT_GETRUSAGE, &v, sizeof v)) {
		if (v.who != who)
			rp_diverge("thread %d: getrusage(%d), the recording asked for %d",
					  rp_cur->tid, who, v.who);
	} else {
		if (!real_getrusage)
			find_real();
		v.who = who;
		char held = rp_audit_hold(); /* recorded: not an escape (audit.c) */
		v.rc = real_getrusage(who, &v.ru);
		rp_audit_release(held);
		v.err = errno;
		rp_input_record(RP_INPUT_GETRUSAGE, &v, sizeof v);
	}
	if (v.rc != 0)
		errno = v.err;
	else
		*ru = v.ru;
	return v.rc;
}

struct timespec_value {
	int32_t base, ret;
	struct timespec ts;
};

int timespec_get(struct timespec *ts, int base)
{
	struct timespec_value v;
	memset(&v, 0, sizeof v);
	if (rp_input_replay(RP_INPUT_TIMESPEC_GET, &v, sizeof v)) {
		if (v.base != base)
			rp_diverge("thread %d: timespec_get of base %d, the recording read %d",
					  rp_cur->tid, base, v.base);
	} else {
		if (!real_timespec_get)
			find_real();
		v.base = base;
		char held = rp_audit_hold(); /* recorded: not an escape (audit.c) */
		v.ret = real_timespec_get(&v.ts, base);
		rp_audit_release(held);
		rp_input_record(RP_INPUT_TIMESPEC_GET, &v, sizeof v);
	}
	if (v.ret != 0)
		*ts = v.ts;
	return v.ret;
}
