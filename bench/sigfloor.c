/* sigfloor.c: what the kernel (and the hypervisor under it) charges for the
 * mechanisms libreplay's preemptions are built on, with no libreplay at all: the
 * floor under the per-preemption costs that bench/replay.sh reports. Plain gcc.
 *
 *   sigfloor spin SCALE          the CPU-bound loop alone (preempt.c's xorshift chain,
 *                                SCALE percent of 150M iterations)
 *   sigfloor tick PERIOD_US SCALE   the same loop under the recording's time slice:
 *                                a perf task-clock event with that period raising
 *                                SIGPROF (set up as libreplay/engine/schedule/replay.c does), caught by
 *                                an empty handler. (tick - spin) / signals = the price
 *                                of one timer signal.
 *   sigfloor trap N              N hits of a hardware execute breakpoint (perf,
 *                                delivered as SIGRTMIN+7, as in replay), empty handler:
 *                                the price of one replay trap, signal included.
 *   sigfloor arm N               N times what replay does to the breakpoint around one
 *                                preemption: PERF_EVENT_IOC_MODIFY_ATTRIBUTES (move it),
 *                                PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE.
 *   sigfloor mask N              N sigprocmask(SIG_UNBLOCK) calls: what a handler that
 *                                switches threads does first.
 *   sigfloor cycle N             N times a replayed preemption's whole dealing with the
 *                                kernel, in its order: move and enable the breakpoint,
 *                                run into it, and in the handler disable it and unblock
 *                                the signal. What the three above cost together, in situ
 *                                (a hypervisor may charge a debug-register write more
 *                                after a trap than in a loop of ioctls).
 *
 * stdout: "sigfloor MODE events E"; stderr: replay_bench.h's timing line. A mode that
 * cannot set itself up (no perf_event_open) prints "sigfloor MODE unavailable: why"
 * and exits 3. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "replay_bench.h"

static volatile long signals;
static volatile uint64_t sink; /* keeps the loop */
static int cycle_fd = -1;      /* cycle: the breakpoint the handler disables */

static void count_signal(int sig, siginfo_t *si, void *uc)
{
	signals++;
	if (cycle_fd >= 0) {
		sigset_t set;
		ioctl(cycle_fd, PERF_EVENT_IOC_DISABLE, 0);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	}
}

static void catch(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = count_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static _Noreturn void unavailable(const char *mode, const char *what)
{
	printf("sigfloor %s unavailable: %s: %s\n", mode, what, strerror(errno));
	exit(3);
}

/* A perf event of this thread whose overflows raise sig. */
static int open_event(struct perf_event_attr *a, int sig, const char *mode)
{
	int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		unavailable(mode, "perf_event_open");
	struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
	if (fcntl(fd, F_SETFL, O_ASYNC) || fcntl(fd, F_SETSIG, sig) ||
	    fcntl(fd, F_SETOWN_EX, &owner))
		unavailable(mode, "routing the event's signal");
	return fd;
}

static void spin(long iters)
{
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (long i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	sink = x;
}

/* Where the breakpoint goes: a call that cannot be inlined or removed. */
__attribute__((noinline)) static void target(void)
{
	__asm__ volatile("" ::: "memory");
}

static void breakpoint_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof *a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof *a;
	a->bp_type = HW_BREAKPOINT_X;
	a->bp_addr = (uintptr_t)&target;
	a->bp_len = sizeof(long);
	a->sample_period = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->wakeup_events = 1;
	a->disabled = 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long events = 0;
	struct rb_clock c;
	if (!strcmp(mode, "spin") || !strcmp(mode, "tick")) {
		bool tick = mode[0] == 't';
		long period_us = tick ? rb_arg(argc, argv, 2, 100, 1000000) : 0;
		long iters = 1500000L * rb_arg(argc, argv, tick ? 3 : 2, 100, 100000);
		if (tick) {
			struct perf_event_attr a;
			memset(&a, 0, sizeof a);
			a.type = PERF_TYPE_SOFTWARE;
			a.size = sizeof a;
			a.config = PERF_COUNT_SW_TASK_CLOCK;
			a.sample_period = (uint64_t)period_us * 1000;
			a.exclude_kernel = 1;
			a.exclude_hv = 1;
			a.wakeup_events = 1;
			catch(SIGPROF);
			open_event(&a, SIGPROF, mode);
		}
		c = rb_start();
		spin(iters);
		rb_stop(c);
		events = signals;
	} else if (!strcmp(mode, "trap")) {
		long n = rb_arg(argc, argv, 2, 20000, 100000000);
		struct perf_event_attr a;
		breakpoint_attr(&a);
		catch(SIGRTMIN + 7);
		int fd = open_event(&a, SIGRTMIN + 7, mode);
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			unavailable(mode, "enabling the breakpoint");
		c = rb_start();
		for (long i = 0; i < n; i++)
			target();
		rb_stop(c);
		events = signals;
		if (events != n) {
			printf("sigfloor trap: %ld calls raised %ld signals\n", n, events);
			return 1;
		}
	} else if (!strcmp(mode, "arm")) {
		long n = rb_arg(argc, argv, 2, 20000, 100000000);
		struct perf_event_attr a;
		breakpoint_attr(&a);
		catch(SIGRTMIN + 7);
		int fd = open_event(&a, SIGRTMIN + 7, mode);
		a.disabled = 0;
		c = rb_start();
		for (long i = 0; i < n; i++) {
			/* a new address every time, as from one preemption to the next */
			a.bp_addr = i & 1 ? (uintptr_t)&main : (uintptr_t)&target;
			if (ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) ||
			    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) || ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
				unavailable(mode, "moving the breakpoint");
		}
		rb_stop(c);
		events = n;
	} else if (!strcmp(mode, "cycle")) {
		long n = rb_arg(argc, argv, 2, 20000, 100000000);
		struct perf_event_attr a;
		breakpoint_attr(&a);
		catch(SIGRTMIN + 7);
		cycle_fd = open_event(&a, SIGRTMIN + 7, mode);
		a.disabled = 0;
		c = rb_start();
		for (long i = 0; i < n; i++) {
			if (ioctl(cycle_fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) ||
			    ioctl(cycle_fd, PERF_EVENT_IOC_ENABLE, 0))
				unavailable(mode, "arming the breakpoint");
			target();
		}
		rb_stop(c);
		events = signals;
		if (events != n) {
			printf("sigfloor cycle: %ld calls raised %ld signals\n", n, events);
			return 1;
		}
	} else if (!strcmp(mode, "mask")) {
		long n = rb_arg(argc, argv, 2, 200000, 100000000);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGPROF);
		c = rb_start();
		for (long i = 0; i < n; i++)
			sigprocmask(SIG_UNBLOCK, &set, NULL);
		rb_stop(c);
		events = n;
	} else {
		fprintf(stderr, "usage: %s spin SCALE | tick PERIOD_US SCALE | trap N | arm N | mask N | "
				"cycle N\n", argv[0]);
		return 2;
	}
	printf("sigfloor %s events %ld\n", mode, events);
	return 0;
}
