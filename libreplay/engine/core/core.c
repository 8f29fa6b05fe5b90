/*
 * core.c: what every room of the engine shares (core.h), at the bottom of them: the
 * executable's load address, the session's state read by the counter (replaying,
 * counting, a hang due, dying), the runtime's own clock, its signal handlers, and
 * dying of a signal. Started first by rp_session_start (rp_core_start).
 */
#include "engine/core.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uintptr_t rp_exe_base;
bool rp_session_started;
volatile sig_atomic_t rp_dying;
bool rp_replaying;
bool rp_counting;
volatile sig_atomic_t rp_hang_due; /* the time is up: stop where the replay can */
void (*rp_resumed_hook)(uint64_t *counter);
volatile sig_atomic_t rp_async_due;
int rp_signal_waiters;
void (*rp_async_hook)(const siginfo_t *si, bool running);
void (*rp_session_fatal_hook)(int sig, siginfo_t *si, void *uc);
struct rp_room_hooks rp_up;

/* Before any constructor of the program, which may close stderr (xz does, at exit)
 * and open a file that gets descriptor 2: the runtime's messages go to a copy. */
__attribute__((constructor(101))) static void keep_stderr(void)
{
	rp_fd_keep_stderr();
}

int rp_perf_event_open(struct perf_event_attr *a)
{
	long fd = rp_raw_syscall(SYS_perf_event_open, (long)a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, 0);
	if (fd < 0) {
		errno = (int)-fd;
		return -1;
	}
	return (int)fd;
}

/* The C library's clock_gettime (the vDSO's: ~20 ns, against ~100 for the system
 * call), found past the inputs layer's wrapper; the system call until the session
 * starts. The log's writer reads the clock at every record. */
static int (*libc_clock_gettime)(clockid_t, struct timespec *);

uint64_t rp_clock_ns(clockid_t clk)
{
	struct timespec ts;
	if (libc_clock_gettime ? libc_clock_gettime(clk, &ts) != 0
			       : rp_raw_syscall(SYS_clock_gettime, clk, (long)&ts, 0, 0, 0, 0) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rp_mono_ns(void)
{
	return rp_clock_ns(CLOCK_MONOTONIC);
}

int rp_route_signal(int fd, int sig)
{
	struct f_owner_ex owner = {F_OWNER_TID, (pid_t)rp_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0)};
	/* Straight to the kernel: the program's fcntl is the inputs layer's wrapper. */
	return rp_raw_syscall(SYS_fcntl, fd, F_SETFL, O_ASYNC, 0, 0, 0) != 0 ||
	       rp_raw_syscall(SYS_fcntl, fd, F_SETSIG, sig, 0, 0, 0) != 0 ||
	       rp_raw_syscall(SYS_fcntl, fd, F_SETOWN_EX, (long)&owner, 0, 0, 0) != 0 ? -1 : 0;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;
}

/* The session starts (rp_session_start, before anything else): the load address,
 * the C library's clock. */
void rp_core_start(void)
{
	dl_iterate_phdr(first_object, &rp_exe_base);
	libc_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	rp_session_started = true;
}

void rp_install_handler(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | flags;
	sigemptyset(&sa.sa_mask);
	rp_sigaction(sig, &sa, NULL);
}

/* Die of sig, now that SA_RESETHAND has given it its default action back: the exit
 * status is the same signal. Not raise(), which is the pthread layer's (sig_api.c);
 * gdb's extension knows this function by name. */
__attribute__((noinline)) void rp_crash_reraise(int sig)
{
	long pid = rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
	long tid = rp_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
	rp_raw_syscall(SYS_tgkill, pid, tid, sig, 0, 0, 0);
}

_Noreturn void rp_session_die_of(int sig)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	rp_sigaction(sig, &dfl, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	rp_raw_syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&set, 0, _NSIG / 8, 0, 0);
	rp_crash_reraise(sig);
	rp_exit_group(128 + sig); /* (blocked some other way: not reached) */
}
