/* in_clock.c: the clock as the program sees it, recorded and replayed, so a program
 * that computes deadlines or prints times from clock_gettime, gettimeofday or time
 * gets the same values in its replay (the history tape of paper 000). Calls made
 * before main (constructors) and by the C library itself go straight to the system. */
#include "engine/engine.h"
#include "engine/session.h"
#include "base/rp_alloc.h"

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

/* ---- predicted clocks ---------------------------------------------------------------
 * A loop of clock reads would write a record per read (a thread pool's loop of time()
 * once wrote 27 MB in 0.3 s). The wall and monotonic clocks are predicted instead, per
 * thread, from its instruction count: each clock advances at the rate it did between
 * the thread's last two logged values (measured only while no other thread ran). A
 * read within CLOCK_TOLERANCE_NS of the prediction returns the prediction and logs
 * nothing; another returns the real value and logs it as a CLOCK_FIX record, keyed by
 * the clock and the thread's read number. A monotonic clock never goes below the last
 * value any thread got (a read predicted below it gets 1 ns more). The replay makes
 * the same predictions and takes the same fixes: the program sees clocks within the
 * tolerance of the real ones, and the same in its replay. */
#define CLOCK_TOLERANCE_NS 250000
#define CLOCK_FIRST_RATE (UINT64_C(1) << 32) /* 1 ns per count, until measured */
#define CLOCK_MODELS 12 /* clock ids below this: CLOCK_REALTIME .. CLOCK_BOOTTIME_ALARM */

struct in_clock_model {
	bool set;
	int64_t fix;             /* the last value logged, ns ... */
	uint64_t fix_count;      /* ... at this count of the thread's */
	uint64_t fix_logical;    /* ... and this logical clock */
	unsigned __int128 rate;  /* ns per count of the thread's, times 2^32 */
};
static int64_t last_value[CLOCK_MODELS]; /* per clock, the last value returned */
static bool last_set[CLOCK_MODELS];

static bool predicted_clock(clockid_t clk)
{
	return clk == CLOCK_REALTIME || clk == CLOCK_MONOTONIC || clk == CLOCK_MONOTONIC_RAW ||
	       clk == CLOCK_REALTIME_COARSE || clk == CLOCK_MONOTONIC_COARSE || clk == CLOCK_BOOTTIME;
}

static bool monotonic(clockid_t clk)
{
	return clk != CLOCK_REALTIME && clk != CLOCK_REALTIME_COARSE;
}

static int64_t prediction(const struct in_clock_model *m, uint64_t count)
{
	unsigned __int128 adv = ((unsigned __int128)(count - m->fix_count) * m->rate) >> 32;
	return m->fix + (adv > INT64_MAX / 4 ? INT64_MAX / 4 : (int64_t)adv);
}

/* A logged value: the model's new start; its rate, if the thread ran alone since the
 * last one (the clock's pace against its own instructions). */
static void take_fix(struct in_clock_model *m, uint64_t count, uint64_t logical, int64_t v)
{
	if (!m->set)
		m->rate = CLOCK_FIRST_RATE;
	else if (count > m->fix_count && v > m->fix && logical - m->fix_logical == count - m->fix_count)
		m->rate = ((unsigned __int128)(v - m->fix) << 32) / (count - m->fix_count);
	m->fix = v;
	m->fix_count = count;
	m->fix_logical = logical;
	m->set = true;
}

/* The value of clk for this read, predicted or logged (recording) or as logged
 * (replaying); real() is the real clock, read only when recording. */
static int64_t model_read(clockid_t clk, int64_t (*real)(clockid_t), uint8_t kind)
{
	struct rp_thread *self = rp_cur;
	if (!self->clocks &&
	    !(self->clocks = rp_calloc(CLOCK_MODELS, sizeof(struct in_clock_model))))
		rp_fatal("out of memory");
	struct in_clock_model *m = (struct in_clock_model *)self->clocks + clk;
	struct { int32_t clk, pad; uint64_t seq; } key = {(int32_t)clk, 0, self->clock_reads++};
	uint64_t count = rp_sic_count(), logical = rp_logical_clock();
	int64_t v;
	if (rp_replay_decides()) {
		if (rp_input_replay_keyed(RP_INPUT_CLOCK_FIX, &key, sizeof key, &v, sizeof v))
			take_fix(m, count, logical, v);
		else if (m->set)
			v = prediction(m, count);
		else
			rp_input_replay(kind, &v, sizeof v); /* diverges, naming both calls */
	} else {
		int64_t r = real(clk), p = m->set ? prediction(m, count) : 0;
		if (!m->set || r - p > CLOCK_TOLERANCE_NS || p - r > CLOCK_TOLERANCE_NS) {
			struct { int32_t clk, pad; uint64_t seq; int64_t v; } fix = {key.clk, 0, key.seq, r};
			rp_input_record(RP_INPUT_CLOCK_FIX, &fix, sizeof fix);
			take_fix(m, count, logical, r);
			v = r;
		} else {
			v = p;
		}
	}
	if (monotonic(clk) && last_set[clk] && v < last_value[clk])
		v = last_value[clk] + 1; /* after the other thread's read: a later one */
	last_value[clk] = v;
	last_set[clk] = true;
	return v;
}

static int64_t real_ns(clockid_t clk)
{
	struct timespec ts;
	if (!real_clock_gettime)
		find_real();
	real_clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Read through the model: a clock it predicts, with the log in use (recording or
 * replaying: not before main, not without a log). */
static bool modelled(clockid_t clk)
{
	return predicted_clock(clk) && clk >= 0 && clk < CLOCK_MODELS && rp_inputs_logged() &&
	       sched_thread_id(sched_current()) != 0;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (modelled(clk)) {
		int64_t v = model_read(clk, real_ns, RP_INPUT_CLOCK_GETTIME);
		ts->tv_sec = (time_t)(v / 1000000000);
		ts->tv_nsec = (long)(v % 1000000000);
		return 0;
	}
	struct clock_value v;
	memset(&v, 0, sizeof v);
	if (rp_input_replay(RP_INPUT_CLOCK_GETTIME, &v, sizeof v)) {
		if (v.clk != (int32_t)clk)
			rp_diverge("thread %d: clock_gettime of clock %d, the recording read clock %d",
				   rp_cur->tid, (int)clk, v.clk);
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
	if (modelled(CLOCK_REALTIME)) {
		int64_t ns = model_read(CLOCK_REALTIME, real_ns, RP_INPUT_GETTIMEOFDAY);
		tv->tv_sec = (time_t)(ns / 1000000000);
		tv->tv_usec = (suseconds_t)(ns % 1000000000 / 1000);
		return 0;
	}
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
	if (modelled(CLOCK_REALTIME)) {
		time_t s = (time_t)(model_read(CLOCK_REALTIME, real_ns, RP_INPUT_TIME) / 1000000000);
		if (out)
			*out = s;
		return s;
	}
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
