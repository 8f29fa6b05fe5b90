/* sched_hooks.c: the hooks, and their defaults (the real clock, sleeping, a report): the
 * clock and the sleeps are system calls (sched_sys.h), whatever the program links. */
#include "sched_impl.h"

#include <dlfcn.h>
#include <stdlib.h>

uint64_t sched_default_now_ns(clockid_t clk)
{
	struct timespec ts;
	if (sched_sys_clock_gettime(clk, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Through the configured now_ns, so a virtual clock alone makes time virtual. */
bool sched_default_timeout_expired(struct sched_thread *t, uint64_t deadline_ns,
				     clockid_t clk)
{
	return sched_g.hooks.now_ns(clk) >= deadline_ns;
}

void sched_default_idle(uint64_t deadline_ns, clockid_t clk)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000u),
		.tv_nsec = (long)(deadline_ns % 1000000000u),
	};
	/* An interruption only means the deadlines are asked again sooner. */
	sched_sys_clock_nanosleep(clk, TIMER_ABSTIME, &ts);
}

bool sched_default_event_ready(struct sched_thread *t, const void *obj)
{
	return false;
}

void sched_default_idle_events(uint64_t deadline_ns, clockid_t clk)
{
	if (deadline_ns != UINT64_MAX) {
		sched_default_idle(deadline_ns, clk);
		return;
	}
	struct timespec ms = {0, 1000000};
	sched_sys_clock_nanosleep(CLOCK_MONOTONIC, 0, &ms);
}

void sched_default_deadlock(void)
{
	sched_report_deadlock(stderr);
	fflush(stderr);
	/* The C library's exit, not a wrapper the program's side defines (libreplay's
	 * pthread layer's, above this library, makes exit a --hunt decision). */
	void (*libc_exit)(int) = (void (*)(int))dlsym(RTLD_NEXT, "exit");
	if (libc_exit)
		libc_exit(1);
	for (;;)
		sched_raw_syscall(SYS_exit_group, 1, 0, 0, 0, 0, 0);
}

void sched_set_hooks(const struct sched_hooks *hooks)
{
	static const struct sched_hooks none;
	struct sched_hooks h = hooks ? *hooks : none;
	if (!h.now_ns)
		h.now_ns = sched_default_now_ns;
	if (!h.timeout_expired)
		h.timeout_expired = sched_default_timeout_expired;
	if (!h.idle)
		h.idle = sched_default_idle;
	if (!h.deadlock)
		h.deadlock = sched_default_deadlock;
	if (!h.event_ready)
		h.event_ready = sched_default_event_ready;
	if (!h.idle_events)
		h.idle_events = sched_default_idle_events;
	sched_g.hooks = h;
}

const struct sched_hooks *sched_get_hooks(void)
{
	return &sched_g.hooks;
}
