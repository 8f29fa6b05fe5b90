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
 * once wrote 27 MB in 0.3 s). The wall and monotonic clocks are predicted instead, one
 * model per clock, from the logical clock (every thread's instruction counts: on one
 * kernel thread, time passes with the instructions any thread runs, so a thread
 * switch moves no prediction): each clock advances at the rate it did since the
 * oldest of its last CLOCK_BASES logged values (a long base: the rate's error is the
 * tolerance over the base's length, so fixes grow rarer as the base grows, and a
 * change of pace is followed within CLOCK_BASES fixes). A read within
 * CLOCK_TOLERANCE_NS of the prediction returns
 * the prediction and logs nothing; another returns the real value and logs it as a
 * CLOCK_FIX record, keyed by the clock and the reading thread's read number. A value
 * CLOCK_JUMP_NS or more ahead (the process slept, waited, or was not scheduled: time
 * passed without instructions) keeps the rate and moves the bases by the jump, so the
 * gap counts in no rate. A monotonic clock
 * never goes below the last value it gave (a read predicted below it gets 1 ns more).
 * The replay makes the same predictions and takes the same fixes: the program sees
 * clocks within the tolerance of the real ones, and the same in its replay. */
#define CLOCK_TOLERANCE_NS 250000
#define CLOCK_JUMP_NS (4 * CLOCK_TOLERANCE_NS)
#define CLOCK_FIRST_RATE (UINT64_C(1) << 32) /* 1 ns per count, until measured */
#define CLOCK_BASES 8
#define CLOCK_MODELS 12 /* clock ids below this: CLOCK_REALTIME .. CLOCK_BOOTTIME_ALARM */

static struct in_clock_model {
	bool set;                /* a value was logged */
	bool measured;           /* the rate is measured, not CLOCK_FIRST_RATE */
	int64_t fix;             /* the last value logged, ns ... */
	uint64_t fix_logical;    /* ... at this logical clock */
	unsigned __int128 rate;  /* ns per count, times 2^32 */
	struct { int64_t v; uint64_t logical; } base[CLOCK_BASES]; /* logged values since a */
	unsigned nbase, next_base;                                  /* jump, the last ones */
	bool given;              /* a value was returned ... */
	int64_t last;            /* ... this one */
} models[CLOCK_MODELS];

static bool predicted_clock(clockid_t clk)
{
	return clk == CLOCK_REALTIME || clk == CLOCK_MONOTONIC || clk == CLOCK_MONOTONIC_RAW ||
	       clk == CLOCK_REALTIME_COARSE || clk == CLOCK_MONOTONIC_COARSE || clk == CLOCK_BOOTTIME;
}

static bool monotonic(clockid_t clk)
{
	return clk != CLOCK_REALTIME && clk != CLOCK_REALTIME_COARSE;
}

static int64_t prediction(const struct in_clock_model *m, uint64_t logical)
{
	unsigned __int128 adv = ((unsigned __int128)(logical - m->fix_logical) * m->rate) >> 32;
	return m->fix + (adv > INT64_MAX / 4 ? INT64_MAX / 4 : (int64_t)adv);
}

/* A logged value: the model's new start, and its rate since the oldest base, unless
 * time jumped (the clock is CLOCK_JUMP_NS or more ahead of a measured rate's
 * prediction): then the bases move by the jump. A clock behind the prediction is a
 * rate too high, never a gap. */
static void take_fix(struct in_clock_model *m, uint64_t logical, int64_t v)
{
	int64_t off = 0;
	if (!m->set)
		m->rate = CLOCK_FIRST_RATE;
	else
		off = v - prediction(m, logical);
	if (logical < m->fix_logical || v < m->fix) /* the clock was set back: start again */
		m->nbase = 0;
	if (m->measured && off >= CLOCK_JUMP_NS) {
		for (unsigned i = 0; i < m->nbase; i++)
			m->base[i].v += off;
	} else if (m->nbase > 0) {
		unsigned oldest = m->nbase < CLOCK_BASES ? 0 : m->next_base;
		int64_t dv = v - m->base[oldest].v;
		uint64_t dl = logical - m->base[oldest].logical;
		if (dv > 0 && dl > 0) {
			m->rate = ((unsigned __int128)dv << 32) / dl;
			m->measured = true;
		}
	}
	if (m->nbase == 0)
		m->next_base = 0;
	m->base[m->next_base].v = v;
	m->base[m->next_base].logical = logical;
	m->next_base = (m->next_base + 1) % CLOCK_BASES;
	if (m->nbase < CLOCK_BASES)
		m->nbase++;
	m->fix = v;
	m->fix_logical = logical;
	m->set = true;
}

/* The value of clk for this read, predicted or logged (recording) or as logged
 * (replaying); real() is the real clock, read only when recording. */
static int64_t model_read(clockid_t clk, int64_t (*real)(clockid_t), uint8_t kind)
{
	struct rp_thread *self = rp_cur;
	struct in_clock_model *m = &models[clk];
	struct { int32_t clk, pad; uint64_t seq; } key = {(int32_t)clk, 0, self->clock_reads++};
	uint64_t logical = rp_logical_clock();
	int64_t v;
	if (rp_replay_decides()) {
		if (rp_input_replay_keyed(RP_INPUT_CLOCK_FIX, &key, sizeof key, &v, sizeof v))
			take_fix(m, logical, v);
		else if (m->set)
			v = prediction(m, logical);
		else
			rp_input_replay(kind, &v, sizeof v); /* diverges, naming both calls */
	} else {
		int64_t r = real(clk), p = m->set ? prediction(m, logical) : 0;
		if (!m->set || r - p > CLOCK_TOLERANCE_NS || p - r > CLOCK_TOLERANCE_NS) {
			struct { int32_t clk, pad; uint64_t seq; int64_t v; } fix = {key.clk, 0, key.seq, r};
			rp_input_record(RP_INPUT_CLOCK_FIX, &fix, sizeof fix);
			take_fix(m, logical, r);
			v = r;
		} else {
			v = p;
		}
	}
	if (monotonic(clk) && m->given && v < m->last)
		v = m->last + 1; /* after another read that was ahead: a later one */
	m->last = v;
	m->given = true;
	return v;
}

static int64_t real_ns(clockid_t clk)
{
	struct timespec ts;
	if (!real_clock_gettime)
		find_real();
	char held = rp_audit_hold(); /* recorded: not an escape (audit.c) */
	real_clock_gettime(clk, &ts);
	rp_audit_release(held);
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
		char held = rp_audit_hold(); /* recorded: not an escape (audit.c) */
		v.rc = real_clock_gettime(clk, &v.ts);
		rp_audit_release(held);
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
		char held = rp_audit_hold(); /* recorded: not an escape (audit.c) */
		real_gettimeofday(&v, tz);
		rp_audit_release(held);
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
		char held = rp_audit_hold(); /* recorded: not an escape (audit.c) */
		v = real_time(NULL);
		rp_audit_release(held);
		rp_input_record(RP_INPUT_TIME, &v, sizeof v);
	}
	if (out)
		*out = v;
	return v;
}
