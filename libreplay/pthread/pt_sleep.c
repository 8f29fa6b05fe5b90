/* pt_sleep.c: sleep, usleep, nanosleep, clock_nanosleep block only the calling green
 * thread, through sched (whose hooks make the time an input of the replay). They are
 * cancellation points. The scheduler's own idle waits (sched's default idle hook and
 * the runtime's) call clock_nanosleep too and resolve here: those go to the kernel. */
#include "pthread/pt_impl.h"

#include <sys/syscall.h>
#include <unistd.h>

bool pt_in_scheduler(void)
{
	/* A green thread calling us runs; in an idle hook, the current thread is the
	 * one that blocked (or exited). */
	return sched_thread_state(sched_current()) != SCHED_RUNNING;
}

void pt_deadline_in(time_t sec, long nsec, struct timespec *dl)
{
	clock_gettime(CLOCK_MONOTONIC, dl);
	dl->tv_sec += sec;
	dl->tv_nsec += nsec;
	if (dl->tv_nsec >= 1000000000) {
		dl->tv_nsec -= 1000000000;
		dl->tv_sec++;
	}
}

static int kernel_sleep(clockid_t clk, int flags, const struct timespec *req,
			struct timespec *rem)
{
	int saved = errno;
	int err = rp_syscall(SYS_clock_nanosleep, clk, flags, req, rem) ? errno : 0;
	errno = saved;
	return err;
}

/* relative: on CLOCK_MONOTONIC; absolute: until a deadline on clk. 0, or EINTR if a
 * signal sent to the thread ended the sleep (its handler has run; rem, if given for a
 * relative sleep, gets the time left). */
static int green_sleep(const struct timespec *ts, clockid_t clk, bool absolute,
		       struct timespec *rem)
{
	struct pt_thread *self = pt_self();
	struct timespec t0;
	if (rem && !absolute)
		clock_gettime(CLOCK_MONOTONIC, &t0); /* recorded: the replay reads the same */
	pt_testcancel(self);
	pt_wait_begin(self, PT_WAIT_SLEEP);
	int st = absolute ? sched_sleep_until(ts, clk) : sched_sleep(ts);
	/* Nothing was consumed: a request that arrived meanwhile acts now. */
	pt_wait_end(self, true);
	if (st != PT_ESIGNALED)
		return 0;
	if (rem && !absolute) {
		struct timespec t1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		int64_t left = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec -
			       ((int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + t1.tv_nsec - t0.tv_nsec);
		if (left < 0)
			left = 0;
		rem->tv_sec = left / 1000000000;
		rem->tv_nsec = left % 1000000000;
	}
	return EINTR;
}

/* An absolute time on a clock sched keeps no deadlines on (BOOTTIME, TAI): the time
 * left until then, to sleep on CLOCK_MONOTONIC. */
static int convert(clockid_t clk, const struct timespec *abstime, struct timespec *rel)
{
	struct timespec now;
	if (clock_gettime(clk, &now))
		return EINVAL;
	rel->tv_sec = abstime->tv_sec - now.tv_sec;
	rel->tv_nsec = abstime->tv_nsec - now.tv_nsec;
	if (rel->tv_nsec < 0) {
		rel->tv_nsec += 1000000000;
		rel->tv_sec--;
	}
	if (rel->tv_sec < 0)
		rel->tv_sec = rel->tv_nsec = 0;
	return 0;
}

int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
	struct timespec rel;
	if (pt_in_scheduler())
		return kernel_sleep(clk, flags, req, rem);
	bool absolute = flags & TIMER_ABSTIME;
	switch (clk) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
	case CLOCK_REALTIME_ALARM:
	case CLOCK_BOOTTIME_ALARM:
		break;
	case CLOCK_PROCESS_CPUTIME_ID:
		return ENOTSUP; /* CPU time of the kernel thread all green threads share */
	default:
		return clk < 0 ? ENOTSUP : EINVAL; /* < 0: another process's CPU clock */
	}
	if (!pt_nsec_ok(req) || req->tv_sec < 0)
		return EINVAL;
	if (absolute && !pt_clock_ok(clk)) {
		int saved = errno;
		int err = convert(clk, req, &rel);
		errno = saved;
		if (err)
			return err;
		req = &rel;
		absolute = false;
	}
	return green_sleep(req, clk, absolute, rem);
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (pt_in_scheduler()) {
		int err = kernel_sleep(CLOCK_MONOTONIC, 0, req, rem);
		if (err)
			errno = err;
		return err ? -1 : 0;
	}
	if (!pt_nsec_ok(req) || req->tv_sec < 0) {
		errno = EINVAL;
		return -1;
	}
	if (green_sleep(req, CLOCK_MONOTONIC, false, rem)) {
		errno = EINTR;
		return -1;
	}
	return 0;
}

/* Interrupted: the seconds left, rounded as glibc rounds them. */
unsigned sleep(unsigned seconds)
{
	struct timespec ts = {.tv_sec = seconds};
	int saved = errno;
	int r = nanosleep(&ts, &ts);
	errno = saved;
	return r ? (unsigned)ts.tv_sec + (ts.tv_nsec >= 500000000) : 0;
}

int usleep(useconds_t usec)
{
	struct timespec ts = {.tv_sec = usec / 1000000, .tv_nsec = (long)(usec % 1000000) * 1000};
	return nanosleep(&ts, NULL);
}
