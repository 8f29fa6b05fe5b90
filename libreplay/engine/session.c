/*
 * session.c: a session of the program under libreplay: started from main() before
 * the program's main runs as green thread 1 (recording, replaying, or neither), and
 * ended by exit or by a fatal signal, whose handler writes the log's END (or checks
 * the recording's), prints the crash report and dies of the same signal. The
 * helpers the engine's files share are here too (core.h).
 */
#include "engine/core.h"
#include "base/rp_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uintptr_t rp_exe_base;
bool rp_session_started;
volatile sig_atomic_t rp_dying;

int rp_high_fd(int fd)
{
	if (fd < 0)
		return fd;
	int h = fcntl(fd, F_DUPFD_CLOEXEC, 1000);
	if (h < 0)
		return fd;
	rp_sys_close(fd);
	return h;
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

uint64_t rp_clock_ns(clockid_t clk)
{
	struct timespec ts;
	if (rp_raw_syscall(SYS_clock_gettime, clk, (long)&ts, 0, 0, 0, 0) != 0)
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
	return fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, sig) != 0 ||
	       fcntl(fd, F_SETOWN_EX, &owner) != 0 ? -1 : 0;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;
}

/* ---- the end ---------------------------------------------------------------------------- */

/* The program ends: the recording's END, or the replay's check of it. */
static void finish(int how, int value, const ucontext_t *uc)
{
	if (rp_replaying)
		rp_replay_check_end(how, value, uc);
	else
		rp_record_end(how, value, uc);
}

static void on_exit_handler(int status, void *arg)
{
	rp_record_stop_timer();
	finish(RP_LOG_EXITED, status & 0xff, NULL);
	if (rp_writer)
		rp_log_close(rp_writer);
	rp_writer = NULL;
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};

#define RP_CRASH_STACK_SIZE (256u << 10) /* the crash report's libunwind needs some */

/* Die of sig, now that SA_RESETHAND has given it its default action back: the exit
 * status is the same signal. Not raise(), which is the pthread layer's (sig_api.c);
 * gdb's extension knows this function by name. */
__attribute__((noinline)) void rp_crash_reraise(int sig)
{
	long pid = rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
	long tid = rp_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
	rp_raw_syscall(SYS_tgkill, pid, tid, sig, 0, 0, 0);
}

static void on_fatal(int sig, siginfo_t *si, void *ucv)
{
	rp_dying = 1;
	rp_record_stop_timer();
	finish(RP_LOG_SIGNALED, sig, ucv);
	rp_crash(sig, si, ucv);
	rp_crash_reraise(sig);
}

/* ---- starting a session ----------------------------------------------------------------- */

void rp_install_handler(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | flags;
	sigemptyset(&sa.sa_mask);
	rp_sigaction(sig, &sa, NULL);
}

/* A child of fork() is not what the log describes: it runs on unrecorded and
 * unscheduled, and leaves the log and the breakpoint to the parent. */
static void child_after_fork(void)
{
	rp_record_forget();
	rp_replay_forget();
}

/* Called from main() before the program's main runs as green thread 1. */
void rp_session_start(int *argc, char ***argv, struct sched_hooks *h)
{
	dl_iterate_phdr(first_object, &rp_exe_base);
	rp_session_started = true;
	rp_threads_init(h);
	rp_decide_hooks(h);
	if (rp_opts.mode == RP_MODE_OFF) {
		rp_count_start(); /* the same preemptions, no log */
		rp_record_schedule();
		return;
	}
	if (rp_opts.mode == RP_MODE_RECORD) {
		rp_record_start(*argc, *argv);
		rp_count_start();
		rp_record_schedule();
	} else {
		rp_replay_start(argc, argv);
	}
	on_exit(on_exit_handler, NULL);
	pthread_atfork(NULL, NULL, child_after_fork);
	rp_crash_init();
	/* A stack overflow faults with no stack left to run a handler on: the fatal
	 * handlers run on a stack of their own, so the log still gets its END and the
	 * report is printed. (Only they: a preemption must stay on its thread's stack.) */
	static stack_t alt;
	alt.ss_size = RP_CRASH_STACK_SIZE;
	alt.ss_sp = rp_malloc(alt.ss_size);
	int onstack = alt.ss_sp && rp_raw_syscall(SYS_sigaltstack, (long)&alt, 0, 0, 0, 0, 0) == 0
			      ? SA_ONSTACK : 0;
	for (size_t k = 0; k < sizeof fatal_signals / sizeof fatal_signals[0]; k++)
		rp_install_handler(fatal_signals[k], on_fatal, SA_RESETHAND | SA_NODEFER | onstack);
}
