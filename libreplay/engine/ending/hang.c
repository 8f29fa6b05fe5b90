/*
 * hang.c: --timeout. When the time is up the running thread is stopped where its replay
 * can stop it too: at once if it is at an instruction of the program that may be
 * preempted, else at the instruction after its next counting point (the breakpoint),
 * made to come at once (rp_overflow_soon, or __sic_home in the runtime and foreign code);
 * every thread waiting for time or descriptors, the idle hooks end the run. Then the
 * run ends as a hang (outcome.c): the log's END holds the stop position and every
 * thread's state, and the replay stops at the same place and reports the same.
 */
#include "engine/core.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#define RP_HANG_SIGNAL (SIGRTMIN + 6)

uintptr_t rp_hang_pc;              /* the breakpoint that stops the hang there */
static int hang_timer_made;
static timer_t hang_timer;
static unsigned hang_tries;
static uint64_t own_ns;               /* --timeout-own: the run's own time allowed */
static uint64_t start_ns, start_wait_ns; /* ... from here (monotonic), less waits past this */

/* The time this process has waited on a run queue for a CPU (the kernel's
 * /proc/self/schedstat, its second field, in ns), or -1 if unknown. Raw system calls:
 * from the timer's signal handler. */
static int64_t run_queue_wait_ns(void)
{
	char buf[96];
	long fd = rp_raw_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/schedstat", O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return -1;
	long n = rp_raw_syscall(SYS_read, fd, (long)buf, sizeof buf - 1, 0, 0, 0);
	rp_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *p = buf;
	while (*p && *p != ' ')
		p++; /* past the time on a CPU */
	if (*p++ != ' ' || *p < '0' || *p > '9')
		return -1;
	int64_t v = 0;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	return v;
}

/* --timeout-own: the timer came, but the run's own time (the wall time since it
 * started, less its waits for a CPU: a loaded machine) is short of TIME: the timer
 * again for the rest, so that a hang is TIME of the run's own time (running, or
 * blocked on its own), not of others'. Own time only grows, so it comes to an end. */
static bool hang_postponed(void)
{
	if (!rp_opts.timeout_own)
		return false;
	int64_t w = run_queue_wait_ns();
	uint64_t wall = rp_mono_ns() - start_ns;
	if (w < 0 || (uint64_t)w < start_wait_ns)
		return false; /* unknown */
	uint64_t waited = (uint64_t)w - start_wait_ns;
	uint64_t own = wall > waited ? wall - waited : 0;
	if (own + 1000000 >= own_ns)
		return false; /* within 1 ms */
	uint64_t rest = own_ns - own;
	struct itimerspec it = {{0, 0}, {(time_t)(rest / 1000000000u), (long)(rest % 1000000000u)}};
	timer_settime(hang_timer, 0, &it, NULL);
	return true;
}

/* Every thread waits for time or a descriptor: a hang due (or, replaying, a hang the
 * log ends with while idle) ends the run here. */
void rp_idle_hang_check(void)
{
	const struct rp_log_record *r = rp_replaying && !rp_replay_run_free() ? rp_replay_peek() : NULL;
	if ((!rp_replaying && rp_hang_due) ||
	    (r && r->kind == RP_LOG_END && r->how == RP_LOG_HANG && !r->outcome.stop_tid))
		rp_outcome(RP_LOG_HANG, NULL, 0, 0);
}

/* The counter of the running thread reached zero with a hang due: stop at the
 * instruction after this counting point, through the breakpoint (as the replay will:
 * the report then starts from the same signal context). */
uint64_t rp_hang_overflow(uintptr_t stub_ret)
{
	struct rp_thread *t = rp_cur;
	uint64_t now = t->offset; /* the counter is 0 */
	uintptr_t pc = rp_stub_resume_pc(stub_ret);
	if (t->soon_pc) { /* the counting modes' breakpoint: the hang's now */
		rp_bp_disarm();
		t->soon_pc = 0;
	}
	t->exit_pc = 0;
	if (pc && rp_sic_pc_preemptible(pc) && rp_bp_ready() && t->tid != 0 && !sched_busy()) {
		rp_bp_arm(pc);
		rp_hang_pc = pc;
	}
	t->offset = now + 1;
	return 1; /* the next counting point again, if the breakpoint is not reached */
}

/* The recording's timer (--timeout): stop at once where the replay can stop too (an
 * instruction of the program that may be preempted), else at the next counting point
 * (the runtime and foreign code, where the count is published), else a little later
 * (the scheduler's own code). Waiting for time or descriptors, the idle hooks end it. */
static void on_hang(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int saved = errno;
	if (rp_dying)
		return;
	if (!rp_hang_due && hang_postponed())
		return;
	rp_hang_due = 1;
	struct rp_thread *t = rp_cur;
	uintptr_t pc = rp_pc_of(uc);
	uint64_t r15 = (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	if (t->tid != 0 && !sched_busy() && rp_sic_pc_preemptible(pc))
		rp_outcome(RP_LOG_HANG, uc, t->offset - r15, pc);
	if (t->tid != 0 && !sched_busy() && !t->tick_depth)
		rp_overflow_soon(t, uc); /* a tight loop: its next counting point */
	if (t->tid != 0 && !sched_busy() && !t->tick_depth && !rp_sic_pc_instrumented(pc)) {
		if (rp_sic_count_at_home(pc, r15) && __sic_home > 1) {
			t->offset -= __sic_home - 1; /* overflow at its next counting point */
			__sic_home = 1;
		}
	}
	/* Not stopped yet: look again in 10 ms; after 2 s (a system call that does not
	 * return, say), end without a position. */
	if (++hang_tries > 200)
		rp_outcome(RP_LOG_HANG, NULL, 0, 0);
	struct itimerspec again = {{0, 0}, {0, 10000000}};
	timer_settime(hang_timer, 0, &again, NULL);
	errno = saved;
}

void rp_hang_start(uint64_t ns)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = RP_HANG_SIGNAL;
	ev._sigev_un._tid = (pid_t)rp_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
	rp_install_handler(RP_HANG_SIGNAL, on_hang, 0);
	if (timer_create(CLOCK_MONOTONIC, &ev, &hang_timer) != 0)
		rp_fatal("--timeout: cannot create a timer: %s", strerror(errno));
	hang_timer_made = 1;
	int64_t w = rp_opts.timeout_own ? run_queue_wait_ns() : -1;
	start_wait_ns = w > 0 ? (uint64_t)w : 0; /* (the start-up's waits are not counted) */
	start_ns = rp_mono_ns();
	own_ns = ns;
	struct itimerspec it = {{0, 0}, {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)}};
	timer_settime(hang_timer, 0, &it, NULL);
	rp_bp_open(); /* stops at a counting point go through it */
}

void rp_hang_stop(void)
{
	if (!hang_timer_made)
		return;
	struct itimerspec off = {{0, 0}, {0, 0}};
	timer_settime(hang_timer, 0, &off, NULL);
}

