/* sig_timer.c: what the program's timers say about time, recorded: alarm's seconds
 * left, getitimer, the old value setitimer gives back, timer_gettime,
 * timer_getoverrun (timer_settime is the C library's: the engine's --timeout uses it
 * too, and its old value is not recorded). Each is an input (TIMER, 35: the call, its result,
 * errno and the value it wrote); the replay returns the recorded ones. The timers are
 * armed for real in both runs: their signals come from the log in a replay, which
 * drops the ones they raise there (engine/schedule/async.c). setitimer is
 * sig_action.c's (SIGPROF is the recorder's). */
#include "signals/signals.h"
#include "inputs/inputs.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct timer_value {
	int32_t call, result, err, pad;
	uint8_t value[32]; /* a struct itimerval or itimerspec */
};

static const char *call_name(int call)
{
	static const char *const names[] = {"?", "alarm", "getitimer", "setitimer", "timer_gettime",
					    "timer_settime", "timer_getoverrun"};
	return call > 0 && call <= SIG_T_GETOVERRUN ? names[call] : names[0];
}

int sig_timer_input(enum sig_timer_call call, int rc, void *value, size_t len)
{
	struct timer_value v;
	memset(&v, 0, sizeof v);
	if (len > sizeof v.value)
		len = sizeof v.value;
	if (rp_input_replay(RP_INPUT_TIMER, &v, sizeof v)) {
		if (v.call != (int32_t)call)
			rp_diverge("thread %d called %s, where the recording called %s", rp_cur->tid,
				   call_name(call), call_name(v.call));
		if (v.result < 0) {
			errno = v.err;
			return -1;
		}
		if (value)
			memcpy(value, v.value, len);
		return v.result;
	}
	int saved = errno;
	v.call = (int32_t)call;
	v.result = rc;
	v.err = rc < 0 ? saved : 0;
	if (value && rc >= 0)
		memcpy(v.value, value, len);
	rp_input_record(RP_INPUT_TIMER, &v, sizeof v);
	errno = saved;
	return rc;
}

unsigned alarm(unsigned seconds)
{
	long left = rp_syscall(SYS_alarm, seconds);
	return (unsigned)sig_timer_input(SIG_T_ALARM, (int)left, NULL, 0);
}

int getitimer(__itimer_which_t which, struct itimerval *v)
{
	int rc = (int)rp_syscall(SYS_getitimer, which, v);
	return sig_timer_input(SIG_T_GETITIMER, rc, v, sizeof *v);
}

/* The C library's timer_* (its timer_t may be its own structure: SIGEV_THREAD). */
static void *libc(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f)
		rp_fatal("cannot find the C library's %s", name);
	return f;
}

int timer_gettime(timer_t t, struct itimerspec *v)
{
	static int (*real)(timer_t, struct itimerspec *);
	if (!real)
		real = (int (*)(timer_t, struct itimerspec *))libc("timer_gettime");
	return sig_timer_input(SIG_T_GETTIME, real(t, v), v, sizeof *v);
}

int timer_getoverrun(timer_t t)
{
	static int (*real)(timer_t);
	if (!real)
		real = (int (*)(timer_t))libc("timer_getoverrun");
	return sig_timer_input(SIG_T_GETOVERRUN, real(t), NULL, 0);
}
