/*
 * replay.c: recording and replaying the schedule (paper 002, sections 3 and 4).
 *
 * Recording: a CPU-time timer (SIGPROF) ends the time slice. If the interrupted PC is
 * one where replay can reproduce the state (rp_sic_pc_preemptible) the handler logs
 * (thread, count, pc) and calls sched_preempt; otherwise the tick is deferred. The
 * other time-dependent decisions (a deadline found expired, the clock read for a
 * sleep) are logged by the scheduler hooks. Blocking switches are not logged.
 *
 * Replay: no timer. The running thread's counter is loaded so that it reaches zero
 * exactly at the count of its next PREEMPT record; the overflow arms a hardware
 * breakpoint (perf_event_open, delivered as a real-time signal: it works under gdb,
 * int3 does not) at the logged PC; the breakpoint reproduces the preemption. Any
 * other outcome is a divergence, reported at once.
 */
#include "rp_impl.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <fcntl.h>
#include <link.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "replay.h"
#include "rp_alloc.h"
#include "engine/hunt.h"

bool rp_replaying;
struct rp_options rp_opts = {.quantum_ns = RP_DEFAULT_QUANTUM_NS};

static struct rp_log_writer *writer;
/* This process makes the scheduling decisions (recording, or --no-record): the timer
 * or the counting modes run; writer says whether they are logged. */
static bool scheduling;
/* Preemptions by instruction count (--hunt, --chaos) rather than by a timer. */
bool rp_counting;
static uintptr_t exe_base;
static uint64_t questions;     /* timeout questions asked so far: their position */
static uint64_t deferred_ticks, taken_ticks;
static bool log_hunted; /* replaying a log of --hunt: priorities are in it */

/* Replay: the whole log, read before the program starts (no reading in handlers). */
static struct rp_log_record *recs;
static size_t nrecs, next_rec;
static enum rp_log_status log_end_status;
static char log_end_msg[RP_LOG_ERRLEN];
static bool told_log_end;
static int bp_fd = -1;
static bool session_started; /* rp_session_start ran: main is about to run */
static uintptr_t bp_armed_pc;
#define RP_BP_SIGNAL (SIGRTMIN + 7)
#define RP_HANG_SIGNAL (SIGRTMIN + 6)

/* ---- small helpers ------------------------------------------------------------ */

/* Our descriptors live high, so the program's open() returns the same numbers when
 * recording (a log writer, a timer) and replaying (a breakpoint). */
static int high_fd(int fd)
{
	if (fd < 0)
		return fd;
	int h = fcntl(fd, F_DUPFD_CLOEXEC, 1000);
	if (h < 0)
		return fd;
	close(fd);
	return h;
}

/* perf_event_open(2) for this thread, any CPU: a descriptor, or -1 with errno set. */
static int perf_event_open(struct perf_event_attr *a)
{
	long fd = rp_raw_syscall(SYS_perf_event_open, (long)a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC, 0);
	if (fd < 0) {
		errno = (int)-fd;
		return -1;
	}
	return (int)fd;
}

/* The runtime's own clock reads, in ns: the system call, not the program's (recorded)
 * clock_gettime of pt_time.c; async-signal-safe. */
static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;
	if (rp_raw_syscall(SYS_clock_gettime, clk, (long)&ts, 0, 0, 0, 0) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;
}

static uintptr_t pc_of(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

/* A one-line divergence message, then exit: replay cannot go on meaningfully. */
_Noreturn void rp_diverge(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rp_vsay("libreplay: replay diverged: ", fmt, ap);
	va_end(ap);
	_exit(RP_EXIT_DIVERGED);
}

/* ---- replay: the next record and the counter ------------------------------------- */

static const struct rp_log_record *peek(void)
{
	/* Timestamps are for tools: no decision of the replay depends on them. */
	while (next_rec < nrecs && recs[next_rec].kind == RP_LOG_INPUT &&
	       recs[next_rec].input_kind == RP_INPUT_TIMESTAMP)
		next_rec++;
	if (next_rec < nrecs)
		return &recs[next_rec];
	if (!told_log_end && log_end_status != RP_LOG_DONE) {
		/* A log cut short: say so once, then run on unscheduled. */
		told_log_end = true;
		char msg[RP_LOG_ERRLEN + 64];
		int n = snprintf(msg, sizeof msg, "libreplay: %s; running on without a schedule\n",
				 log_end_msg);
		if (n > 0 && rp_sys_write(2, msg, (size_t)n) < 0)
			_exit(RP_EXIT_DIVERGED);
	}
	return NULL;
}

/* A hardware execute breakpoint at pc that signals on every hit. */
static void bp_attr(struct perf_event_attr *a, uintptr_t pc)
{
	memset(a, 0, sizeof *a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof *a;
	a->bp_type = HW_BREAKPOINT_X;
	a->bp_addr = pc;
	a->bp_len = sizeof(long);
	a->sample_period = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->wakeup_events = 1;
}

static void bp_arm(uintptr_t pc)
{
	struct perf_event_attr a;
	bp_attr(&a, pc);
	if (ioctl(bp_fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) != 0 ||
	    ioctl(bp_fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
		rp_fatal("cannot arm the replay breakpoint at %#lx: %s", (unsigned long)pc,
			 strerror(errno));
	bp_armed_pc = pc;
}

static void bp_disarm(void)
{
	if (bp_armed_pc && bp_fd >= 0) {
		ioctl(bp_fd, PERF_EVENT_IOC_DISABLE, 0);
		bp_armed_pc = 0;
	}
}

/* Where a record stops a thread: a PREEMPT, or the END of a hang that stopped it. */
static bool record_stop(const struct rp_log_record *r, uint32_t *tid, uint64_t *count, uint64_t *pc)
{
	if (r && r->kind == RP_LOG_PREEMPT) {
		*tid = r->tid, *count = r->count, *pc = r->pc;
		return true;
	}
	if (r && r->kind == RP_LOG_END && r->how == RP_LOG_HANG && r->outcome.stop_tid) {
		*tid = r->outcome.stop_tid, *count = r->outcome.stop_count, *pc = r->outcome.stop_pc;
		return true;
	}
	return false;
}

/* Load t's counter (at *counter) for its next record: zero at the record's count, or
 * the breakpoint armed now if it is already there. */
void rp_replay_arm(struct rp_thread *t, uint64_t *counter)
{
	uint64_t now = t->offset - *counter;
	const struct rp_log_record *r = peek();
	uint64_t left = RP_SIC_BASE;
	bp_disarm();
	uint32_t tid;
	uint64_t count, pc;
	if (record_stop(r, &tid, &count, &pc) && tid == (uint32_t)t->tid) {
		if (count < now)
			rp_diverge("record %zu: thread %u should have been %s at count %llu "
				"(pc %#llx) but is at count %llu", next_rec + 1, tid,
				r->kind == RP_LOG_PREEMPT ? "preempted" : "stopped by the hang",
				(unsigned long long)count, (unsigned long long)pc, (unsigned long long)now);
		if (count == now) {
			bp_arm(exe_base + pc);
			left = 1; /* the next counting point first is a divergence */
		} else {
			left = count - now;
		}
	}
	left = rp_debug_clip(t->tid, now, left);
	*counter = left;
	t->offset = now + left;
}

uint64_t rp_replay_overflow(void)
{
	uint64_t zero = 0;
	rp_debug_check(rp_cur->tid, rp_cur->offset);
	rp_replay_arm(rp_cur, &zero);
	return zero;
}

/* ---- preemption ---------------------------------------------------------------------- */

static void unblock(int sig)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* Switch away from a signal handler; the thread resumes here, returns, and sigreturn
 * puts it back where it was interrupted (with the counter the replay loaded). */
static void preempt_from_signal(ucontext_t *uc, int sig)
{
	int tid = rp_cur->tid;
	rp_debug_preempt_begin(tid);
	rp_preempt_uc = uc;
	unblock(sig);
	sched_preempt();
	rp_preempt_uc = NULL; /* consumed by on_switch, or no switch happened */
	rp_debug_preempt_end(tid);
	pt_signals_resumed((uint64_t *)&uc->uc_mcontext.gregs[REG_R15]);
	/* Where it resumes (also when no switch happened, which on_switch does not see):
	 * a tick there before it moves is no progress, not a second PREEMPT. */
	struct rp_thread *t = rp_cur;
	t->resumed_from_signal = true;
	t->resume_count = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	t->resume_pc = pc_of(uc);
	/* The next preemption may be at this very PC (at a later count, after signal
	 * handlers, or in a log with a repeated position). The replay's trap that
	 * stopped the thread here set RF in the frame, which would let the breakpoint
	 * armed here pass once: clear it. */
	if (bp_armed_pc && bp_armed_pc == pc_of(uc))
		uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)0x10000;
}

/* The time slice is CPU time. ITIMER_PROF only has the kernel tick's resolution
 * (1-4 ms), so it is the fallback: the task clock of perf_event_open is exact to
 * the microsecond. Both raise SIGPROF. */
static int tick_fd = -1;

/* The runtime's timer and handlers by system call (handlers: rp_sigaction): the
 * program's setitimer and sigaction (pt_sigaction.c) refuse SIGPROF. */
static void prof_timer(const struct itimerval *it)
{
	syscall(SYS_setitimer, ITIMER_PROF, it, NULL);
}

static void arm_timer(uint64_t ns)
{
	if (tick_fd >= 0) {
		ioctl(tick_fd, PERF_EVENT_IOC_PERIOD, &ns);
		return;
	}
	struct itimerval it = {{0, 0}, {(time_t)(ns / 1000000000u), (suseconds_t)(ns % 1000000000u / 1000)}};
	if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
		it.it_value.tv_usec = 1;
	prof_timer(&it);
}

static void stop_timer(void)
{
	if (tick_fd >= 0)
		ioctl(tick_fd, PERF_EVENT_IOC_DISABLE, 0);
	struct itimerval off = {{0, 0}, {0, 0}};
	prof_timer(&off);
}

static int route_signal(int fd, int sig)
{
	struct f_owner_ex owner = {F_OWNER_TID, (pid_t)rp_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0)};
	return fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, sig) != 0 ||
	       fcntl(fd, F_SETOWN_EX, &owner) != 0 ? -1 : 0;
}

static void start_timer(uint64_t ns)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof a;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = ns;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	tick_fd = high_fd(perf_event_open(&a));
	if (tick_fd >= 0 && route_signal(tick_fd, SIGPROF) != 0) {
		close(tick_fd);
		tick_fd = -1;
	}
	if (tick_fd < 0)
		arm_timer(ns);
}

/* A TIMESTAMP at the start, at the first preemption after each RP_STAMP_INTERVAL_NS
 * and at the end: what tools need for rates (10.7 bytes each, so ~11 bytes a second). */
#define RP_STAMP_INTERVAL_NS 1000000000ull
static uint64_t last_stamp_ns;

static void log_timestamp(uint64_t now)
{
	last_stamp_ns = now;
	if (writer)
		rp_log_input(writer, (uint32_t)rp_cur->tid, RP_INPUT_TIMESTAMP, &now, sizeof now);
}

/* A preemption the log must hold, with a timestamp about every second. */
static void log_preempt(struct rp_thread *t, uint64_t count, uintptr_t pc)
{
	taken_ticks++;
	if (!writer)
		return;
	rp_log_preempt(writer, (uint32_t)t->tid, count, pc - exe_base);
	uint64_t now = mono_ns();
	if (now - last_stamp_ns >= RP_STAMP_INTERVAL_NS)
		log_timestamp(now);
	rp_log_maybe_flush(writer, now);
}

/* A tick in foreign code (libc, zlib, ...) cannot preempt there: %r15 is not the
 * counter and the PC is not reproducible. It makes the thread preempt at its next
 * counting point instead, or a thread that spends its time in a library would never
 * be preempted: the count it published before the foreign call (__sic_home, which
 * the instrumented code reloads when the call returns) becomes 1, the offset moves so
 * that its count stays the same, and the next counting point overflows
 * (rp_record_overflow). Only where the count is in __sic_home: outside the
 * executable, not while the thread is inside one of its own preemptions (its
 * tick_depth: the count is in the signal frame then, and on_tick calls the vDSO), and
 * not while the scheduler runs. The way back from a signal handler is the runtime's
 * own restorer (rp_sigaction), in the executable: a tick there once found a stale
 * __sic_home and moved the thread's count by 3 * 2^62. */
extern const char __executable_start[], etext[];

#define RP_SIC_TOKEN ((uint64_t)(int64_t)-0x61a53f22) /* sicpp/rewrite.h, SIC_TOKEN */

/* r15: the interrupted context's. In the runtime (part of the executable) the count is
 * in __sic_home only during a call out of instrumented code, which leaves the token in
 * r15 (callee-saved: the runtime's own code gives it back before returning); the
 * runtime's signal return, the overflow path and its handlers never have it there. */
static void preempt_at_next_count(struct rp_thread *t, uintptr_t pc, uint64_t r15)
{
	bool in_exe = pc >= (uintptr_t)__executable_start && pc < (uintptr_t)etext;
	if (t->preempt_soon || (in_exe && r15 != RP_SIC_TOKEN) || __sic_home <= 1)
		return;
	/* Foreign code the scheduler called (munmap of a dead thread's stack, say) may run
	 * half way through a switch: rp_cur and __sic_home are the next thread's already,
	 * whose counter may be in a signal frame, not in __sic_home. */
	if (sched_busy())
		return;
	t->offset -= __sic_home - 1;
	__sic_home = 1;
	t->preempt_soon = true;
}

/* Set once the program is dying of a signal: the crash handler's own calls (libunwind
 * reads getpid, for one) are not the program's, so they are neither recorded nor
 * replayed; and a tick before the timer stops (in stop_timer's ioctl, say) is not a
 * preemption. */
static volatile sig_atomic_t dying;

static void on_tick(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int saved = errno;
	if (dying)
		return;
	if (tick_fd < 0)
		arm_timer(rp_opts.quantum_ns);
	uintptr_t pc = pc_of(uc);
	struct rp_thread *t = rp_cur;
	if (!scheduling || t->tid == 0 || !rp_sic_pc_preemptible(pc) || !sched_preempt_useful()) {
		if (scheduling && t->tid != 0 && !t->tick_depth && !rp_sic_pc_instrumented(pc) &&
		    sched_preempt_useful())
			preempt_at_next_count(t, pc, (uint64_t)uc->uc_mcontext.gregs[REG_R15]);
		deferred_ticks++;
		errno = saved;
		return;
	}
	uint64_t count = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	if (t->resumed_from_signal && count == t->resume_count && pc == t->resume_pc) {
		deferred_ticks++; /* no progress since it resumed: same (count, pc) twice */
		errno = saved;
		return;
	}
	t->tick_depth++;
	log_preempt(t, count, pc);
	preempt_from_signal(uc, sig);
	t->tick_depth--;
	errno = saved;
}

#define stub_resume_pc rp_stub_resume_pc

uint64_t rp_record_overflow(uintptr_t stub_ret)
{
	struct rp_thread *t = rp_cur;
	t->preempt_soon = false;
	uint64_t count = t->offset; /* the counter is 0 */
	uint64_t fresh = rp_sic_start_value();
	t->offset = count + fresh;
	uintptr_t pc = stub_resume_pc(stub_ret);
	if (!scheduling || !pc || !rp_sic_pc_preemptible(pc) || !sched_preempt_useful())
		return fresh;
	log_preempt(t, count, pc);
	/* Switched out from here, not from a signal: home holds its counter meanwhile. */
	__sic_home = fresh;
	t->tick_depth++;
	rp_preempt_at_count = true; /* the replay stops here by its trap: a preemption too */
	t->stop_pc = pc;
	sched_preempt();
	t->stop_pc = 0;
	rp_preempt_at_count = false; /* consumed by on_switch, or no switch happened */
	t->tick_depth--;
	/* It resumes before pc: a tick there before it moves must not preempt again. */
	t->resumed_from_signal = true;
	t->resume_count = count;
	t->resume_pc = pc;
	pt_signals_resumed(&fresh);
	t->resume_count = t->offset - fresh; /* past a handler, if one ran */
	return fresh;
}

/* ---- counting: preemptions by instruction count (--hunt, --chaos) ---------------------
 *
 * Each thread's counter is loaded to reach zero where hunt.c wants it preempted: at the
 * end of its slice (slice_end), or at its next counting point (soon: after a
 * synchronization call, or when a preemption could not be taken where it fell). The
 * overflow then preempts there and logs an ordinary PREEMPT; or it arms the hardware
 * breakpoint at one of the next few memory accesses (soon_pc), and the breakpoint's
 * signal preempts there (on_count_trap), unless the next counting point comes first.
 * A synchronization call may also be preempted before it acts: the thread is
 * switched out inside the call, logged at the counting point of the program's call
 * instruction, where the replay stops it. Priorities (--hunt) are given at creation
 * and at change points, and logged as INPUT PRIORITY records after the PREEMPT. */

bool rp_sync_watch;
volatile sig_atomic_t rp_hang_due; /* --timeout expired: stop where the replay can */
#define hang_due rp_hang_due
static uintptr_t hang_pc; /* the breakpoint that stops the hang there */
static _Noreturn void outcome(int how, ucontext_t *uc, uint64_t count, uintptr_t pc);
static void install(int sig, void (*fn)(int, siginfo_t *, void *), int flags);
static int try_breakpoint(void);
static bool pct; /* --hunt: priorities, steps at synchronization calls */

void rp_count_arm(struct rp_thread *t, uint64_t *counter)
{
	uint64_t now = t->offset - *counter;
	uint64_t left = t->soon || t->slice_end <= now ? 1 : t->slice_end - now;
	*counter = left;
	t->offset = now + left;
}

/* The recording's breakpoint is one thread's: a switch, or the counting point that
 * came first, takes it back. */
static void exit_pc_cancel(struct rp_thread *t)
{
	if (t->exit_pc) {
		bp_disarm();
		t->exit_pc = 0;
	}
}

static void soon_pc_cancel(struct rp_thread *t)
{
	if (t->soon_pc) {
		bp_disarm();
		t->soon_pc = 0;
	}
}

void rp_count_switched(struct rp_thread *prev, struct rp_thread *next)
{
	soon_pc_cancel(prev);
	exit_pc_cancel(prev);
	prev->soon = prev->pending = false;
	next->in_count = next->offset - *rp_thread_counter(next);
	rp_hunt_resumed(next->tid);
}

/* The repeated or atomic memory accesses (sicpp/hunt.c) in the window after from, where
 * a preemption splits two accesses to one location; preemptible ones only. */
#define RP_SEEK_POINTS 256 /* counting points a slice's end looks on for a window */
#define RP_EXIT_SLICES 2   /* slices a loop's end is waited for */
#define RP_WINDOW_CANDIDATES 4
static size_t window_ahead(uintptr_t from, uintptr_t *c)
{
	if (bp_fd < 0 || !from || !rp_sic_pc_instrumented(from))
		return 0;
	size_t found = rp_sic_memops(from, from + RP_WINDOW_BYTES, RP_MEMOP_ATOMIC | RP_MEMOP_REPEAT,
				     c, RP_WINDOW_CANDIDATES);
	size_t n = 0;
	for (size_t i = 0; i < found; i++)
		if (rp_sic_pc_preemptible(c[i]))
			c[n++] = c[i];
	return n;
}

/* The first instruction after a call from the program returns: past the reload of the
 * count (movq __sic_home(%rip), %r15, as sicpp writes it), at the count the call
 * published. 0 if ret is not such a return or the instruction is not preemptible. */
static uintptr_t after_call(uintptr_t ret)
{
	if (!rp_sic_pc_instrumented(ret))
		return 0;
	const unsigned char *r = (const unsigned char *)ret;
	int32_t disp;
	memcpy(&disp, r + 3, sizeof disp);
	if (r[0] != 0x4c || r[1] != 0x8b || r[2] != 0x3d ||
	    ret + 7 + (intptr_t)disp != (uintptr_t)&__sic_home)
		return 0;
	return rp_sic_pc_preemptible(ret + 7) ? ret + 7 : 0;
}

/* Stop t at pc with the breakpoint (before its next counting point). */
static bool soon_at(struct rp_thread *t, uintptr_t pc)
{
	if (bp_fd < 0 || !pc)
		return false;
	t->exit_pc = 0; /* one breakpoint: it was that one */
	bp_arm(pc);
	t->soon_pc = pc;
	return true;
}

/* Priorities: sched's, logged where the replay takes them (rp_count_thread_created,
 * replay_priorities). */
struct prio_rec {
	int32_t tid, prio;
};

static void give_priority(struct sched_thread *st, int prio)
{
	struct prio_rec r = {st->id, prio};
	sched_set_priority(st, prio);
	if (writer)
		rp_log_input(writer, (uint32_t)rp_cur->tid, RP_INPUT_PRIORITY, &r, sizeof r);
}

void rp_count_thread_created(struct sched_thread *st, struct rp_thread *t)
{
	if (rp_replaying) {
		struct prio_rec r;
		if (log_hunted && rp_input_replay(RP_INPUT_PRIORITY, &r, sizeof r)) {
			if (r.tid != st->id)
				rp_diverge("record %zu: thread %d got a priority, here thread %d was created",
					next_rec, r.tid, st->id);
			sched_set_priority(st, r.prio);
		}
		return;
	}
	if (!rp_counting)
		return;
	t->slice_end = (t->offset - t->home) + rp_hunt_slice();
	if (pct)
		give_priority(st, rp_hunt_priority());
}

/* Replay: the priority a change point gave, right after its PREEMPT. */
static void replay_priorities(struct rp_thread *t)
{
	const struct rp_log_record *r;
	struct prio_rec p;
	while ((r = peek()) && r->kind == RP_LOG_INPUT && r->input_kind == RP_INPUT_PRIORITY &&
	       r->tid == (uint32_t)t->tid && r->len == sizeof p) {
		memcpy(&p, r->data, sizeof p);
		if (p.tid != t->tid)
			break; /* a thread it creates next */
		next_rec++;
		sched_set_priority(sched_current(), p.prio);
	}
}

/* Preempt t, which is at (count, pc), from our own code (not a signal): its counter is
 * in __sic_home meanwhile. Returns once it runs again, its counter loaded anew. */
static void count_preempt(struct rp_thread *t, uint64_t count, uintptr_t pc)
{
	t->soon = false;
	soon_pc_cancel(t);
	log_preempt(t, count, pc);
	if (t->new_prio) {
		give_priority(sched_current(), t->new_prio);
		t->new_prio = 0;
	}
	__sic_home = t->offset - count;
	t->tick_depth++;
	t->stop_pc = pc;
	rp_preempt_at_count = true;
	sched_preempt(); /* on_switch loads its counter when it runs again */
	rp_preempt_at_count = false;
	t->stop_pc = 0;
	t->tick_depth--;
	pt_signals_resumed(&__sic_home);
}

/* Would preempting t change anything? With a new (lower) priority, any other runnable
 * thread may now outrank it. */
static bool preempt_worth(struct rp_thread *t)
{
	return sched_preempt_useful() || (t->new_prio && sched_others_runnable());
}

/* May this thread be preempted by count now? Not the host, not inside the scheduler,
 * not once dying. */
static bool count_eligible(struct rp_thread *t)
{
	return scheduling && rp_counting && t->tid != 0 && !sched_busy() && !dying;
}

/* Where a slice's end looks for its place: one time in two a counting point with a
 * window ahead (each taken one time in two, so the later ones of a loop get their
 * turn), else, or if there is none, one at another pc than where the slice ended (out
 * of an inner loop: its outer loop's head may be inside a window, a value loaded at
 * the end of the last turn and stored in this one). A decision whose window was not
 * reached looks for another window. */

static bool seek_found(struct rp_thread *t, uintptr_t pc, size_t n)
{
	if (t->seek_left == 0 && t->seek == RP_SEEK_WINDOW && !t->pending) {
		t->seek = RP_SEEK_EXIT; /* no window near: out of this loop, then */
		t->seek_left = RP_SEEK_POINTS;
	}
	if (t->seek_left == 0)
		return true;
	t->seek_left--;
	if (t->seek == RP_SEEK_WINDOW)
		return n && rp_hunt_take_window();
	return pc != t->seek_pc;
}

/* Take decision d here (pc, now) or at a window ahead (c, n); returns the counter to
 * go on with, or 0 once preempted here (the counter is then __sic_home). */
static bool count_place(struct rp_thread *t, uint64_t now, uintptr_t pc, const uintptr_t *c,
			size_t n, bool at_memop)
{
	if (at_memop && n && soon_at(t, c[rp_hunt_choose((unsigned)n)])) {
		t->soon = true; /* held until the access, or looked on for at the next point */
		return false;
	}
	if (pc && rp_sic_pc_preemptible(pc) && preempt_worth(t)) {
		t->soon = false;
		__sic_home = 0;
		count_preempt(t, now, pc);
		return true;
	}
	t->soon = preempt_worth(t); /* not preemptible here: the next one */
	if (!t->soon)
		t->new_prio = 0;
	return false;
}

uint64_t rp_count_overflow(uintptr_t stub_ret)
{
	struct rp_thread *t = rp_cur;
	uint64_t now = t->offset; /* the counter is 0 */
	bool missed = t->soon_pc != 0; /* the next counting point came before the access */
	soon_pc_cancel(t);
	uintptr_t pc = stub_resume_pc(stub_ret), c[RP_WINDOW_CANDIDATES];
	size_t n = window_ahead(pc, c);
	if (!count_eligible(t)) {
		t->soon = t->pending = false;
		t->seek = RP_SEEK_NONE;
		t->new_prio = 0;
		t->slice_end = now + rp_hunt_slice();
		goto arm;
	}
	if (missed && t->soon) {
		/* A window decided on was not reached: look for another, a while. */
		t->soon = false;
		t->pending = true;
		t->seek = RP_SEEK_WINDOW;
		t->seek_pc = pc;
	}
	if (t->soon) { /* here: after a call whose return was not preemptible, say */
		if (count_place(t, now, pc, c, n, false))
			return __sic_home;
		goto arm;
	}
	if (t->seek == RP_SEEK_NONE && now < t->slice_end)
		goto arm;
	if (t->seek == RP_SEEK_NONE && t->exit_pc && ++t->exit_slices < RP_EXIT_SLICES) {
		t->slice_end = now + rp_hunt_slice(); /* still waiting for its loop's end */
		goto arm;
	}
	if (t->seek == RP_SEEK_NONE) { /* the slice ended: where to decide */
		exit_pc_cancel(t);
		t->exit_slices = 0;
		t->seek = rp_hunt_take_window() ? RP_SEEK_WINDOW : RP_SEEK_EXIT;
		t->seek_pc = pc;
		t->seek_left = RP_SEEK_POINTS;
		t->slice_end = now + 1;
		uintptr_t x = t->seek == RP_SEEK_EXIT ? rp_sic_loop_exit(pc) : 0;
		if (x && bp_fd >= 0 && rp_sic_pc_preemptible(x)) {
			/* out of this loop: where it ends, by the breakpoint (on_count_trap) */
			bp_arm(x);
			t->exit_pc = x;
			t->seek = RP_SEEK_NONE;
			t->slice_end = now + rp_hunt_slice();
		}
		goto arm;
	}
	if (!seek_found(t, pc, n)) {
		t->slice_end = now + 1;
		goto arm;
	}
	bool exited = t->seek == RP_SEEK_EXIT && pc != t->seek_pc;
	t->seek = RP_SEEK_NONE;
	t->slice_end = now + rp_hunt_slice();
	if (t->pending) { /* a decision looking for its window */
		t->pending = false;
		if (count_place(t, now, pc, c, n, n > 0))
			return __sic_home;
	} else if (!sched_others_runnable() && sched_preempt_useful()) {
		/* Alone, but threads wait for deadlines or descriptors: a preemption asks
		 * whether they may run (as a time slice's end does). */
		if (count_place(t, now, pc, c, 0, false))
			return __sic_home;
	} else if (sched_others_runnable()) {
		struct rp_hunt_question q = {RP_HUNT_SLICE, t->tid, 0, sched_preempt_wanted(),
					     n > 0 || exited, now - t->in_count};
		struct rp_hunt_decision d = rp_hunt_step(&q);
		if (d.preempt) {
			t->new_prio = d.new_priority;
			t->seek_left = RP_SEEK_POINTS;
			if (count_place(t, now, pc, c, n, d.at_memop))
				return __sic_home;
		}
	}
arm:;
	uint64_t counter = 0;
	rp_count_arm(t, &counter);
	return counter;
}

/* The recording's breakpoint (soon_at_memop): the thread reached the memory access. */
static void on_count_trap(ucontext_t *uc, int sig)
{
	struct rp_thread *t = rp_cur;
	uintptr_t pc = pc_of(uc);
	bp_disarm();
	if (hang_due && pc == hang_pc && t->tid != 0)
		outcome(RP_LOG_HANG, uc, t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15], pc);
	if (pc == t->exit_pc && count_eligible(t)) {
		/* its loop ended: a slice's place, as if it ended here */
		t->exit_pc = 0;
		uintptr_t c[RP_WINDOW_CANDIDATES];
		size_t n = window_ahead(pc, c);
		uint64_t now = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
		if (!sched_others_runnable())
			return;
		struct rp_hunt_question q = {RP_HUNT_SLICE, t->tid, 0, sched_preempt_wanted(), true,
					     now - t->in_count};
		struct rp_hunt_decision d = rp_hunt_step(&q);
		if (!d.preempt)
			return;
		t->new_prio = d.new_priority;
		if ((d.at_memop && n && soon_at(t, c[rp_hunt_choose((unsigned)n)])) ||
		    rp_hunt_take_window()) {
			/* at the window after it, or at the next counting point (an outer loop's
			 * head, past the store after this loop) */
			t->soon = true;
			uc->uc_mcontext.gregs[REG_R15] = 1;
			t->offset = now + 1;
			return;
		}
		t->soon_pc = pc; /* here: as a window reached */
	}
	if (pc != t->soon_pc || !count_eligible(t))
		return; /* not its breakpoint any more */
	t->soon_pc = 0;
	t->soon = false;
	if (!preempt_worth(t)) {
		t->new_prio = 0;
		return;
	}
	uint64_t count = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	log_preempt(t, count, pc);
	if (t->new_prio) {
		give_priority(sched_current(), t->new_prio);
		t->new_prio = 0;
	}
	t->tick_depth++;
	preempt_from_signal(uc, sig);
	t->tick_depth--;
}

/* Where the program's call to a synchronization function stands: the counting point
 * of the call instruction (movq %r15, __sic_home(%rip); movq $TOKEN, %r15; call f,
 * as sicpp writes it, the call direct or through the GOT), whose count the caller
 * published. 0 if ret is not such a call's return. */
static uintptr_t call_site(uintptr_t ret)
{
	static const unsigned char token[] = {0x49, 0xc7, 0xc7, 0xde, 0xc0, 0x5a, 0x9e};
	if (!rp_sic_pc_instrumented(ret))
		return 0;
	const unsigned char *r = (const unsigned char *)ret;
	const unsigned char *call = r[-5] == 0xe8 ? r - 5 : r[-6] == 0xff && r[-5] == 0x15 ? r - 6 : NULL;
	if (!call || memcmp(call - 7, token, sizeof token) != 0)
		return 0;
	const unsigned char *store = call - 14;
	int32_t disp;
	memcpy(&disp, store + 3, sizeof disp);
	if (store[0] != 0x4c || store[1] != 0x89 || store[2] != 0x3d ||
	    (uintptr_t)(store + 7) + (intptr_t)disp != (uintptr_t)&__sic_home)
		return 0;
	return rp_sic_pc_preemptible((uintptr_t)store) ? (uintptr_t)store : 0;
}

void rp_sync_begin_slow(void *ret)
{
	struct rp_thread *t = rp_cur;
	if (!pct || !count_eligible(t) || rp_replaying)
		return;
	if (!sched_others_runnable())
		return;
	struct rp_hunt_question q = {RP_HUNT_BEFORE, t->tid, (uintptr_t)ret - exe_base, false, false,
				     t->offset - __sic_home - t->in_count};
	struct rp_hunt_decision d = rp_hunt_step(&q);
	if (!d.preempt)
		return;
	t->new_prio = d.new_priority;
	uintptr_t site = call_site((uintptr_t)ret);
	if (site) {
		count_preempt(t, t->offset - __sic_home, site);
	} else {
		t->soon = true; /* not from the program's own call: after it instead */
		rp_count_arm(t, &__sic_home);
	}
}

void rp_sync_end_slow(void *ret)
{
	struct rp_thread *t = rp_cur;
	if (!pct || !count_eligible(t) || rp_replaying)
		return;
	if (!sched_others_runnable())
		return;
	uintptr_t first = after_call((uintptr_t)ret), c[RP_WINDOW_CANDIDATES];
	size_t n = window_ahead(first, c);
	struct rp_hunt_question q = {RP_HUNT_AFTER, t->tid, (uintptr_t)ret - exe_base,
				     sched_preempt_wanted(), n > 0, t->offset - __sic_home - t->in_count};
	struct rp_hunt_decision d = rp_hunt_step(&q);
	if (!d.preempt)
		return;
	t->new_prio = d.new_priority;
	/* Right after the call returns (a thread that outranks it runs first), or at one
	 * of the accesses in the window after it; else at the next counting point. */
	soon_pc_cancel(t);
	soon_at(t, d.at_memop ? c[rp_hunt_choose((unsigned)n)] : first);
	t->soon = true;
	rp_count_arm(t, &__sic_home);
}

/* The replay breakpoint. */
static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int saved = errno;
	if (!rp_replaying) {
		on_count_trap(uc, sig);
		errno = saved;
		return;
	}
	uintptr_t pc = pc_of(uc);
	struct rp_thread *t = rp_cur;
	uint64_t count = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	const struct rp_log_record *r = peek();
	bp_disarm();
	if (r && r->kind == RP_LOG_END && r->how == RP_LOG_HANG && r->outcome.stop_tid == (uint32_t)t->tid &&
	    r->outcome.stop_count == count && exe_base + r->outcome.stop_pc == pc)
		outcome(RP_LOG_HANG, uc, count, pc);
	if (!r || r->kind != RP_LOG_PREEMPT || r->tid != (uint32_t)t->tid || r->count != count ||
	    exe_base + r->pc != pc)
		rp_diverge("record %zu: thread %d reached pc %#lx at count %llu, expected %s",
			next_rec + 1, t->tid, (unsigned long)(pc - exe_base), (unsigned long long)count,
			r ? "another record" : "the end of the log");
	next_rec++;
	replay_priorities(t);
	/* The same scheduling decision as recorded: the counter continues from here. The
	 * thread may be between publishing its count and a call (movq %r15, __sic_home;
	 * movq $token, %r15; call): keep the published copy equal to the new counter. */
	rp_replay_arm(t, (uint64_t *)&uc->uc_mcontext.gregs[REG_R15]);
	__sic_home = (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	preempt_from_signal(uc, sig);
	errno = saved;
}

/* ---- scheduler hooks: time ------------------------------------------------------------ */

/* The running thread's counter was armed, when it was switched in, for the record
 * that came next then. A record consumed since (an input, a deadline) may leave its
 * preemption next, and it may go on without a switch that would arm it again: arm
 * it now. Its counter is in the signal frame during a preemption (sched_preempt
 * asks about deadlines), else published in __sic_home (a call from the program). */
static void rearm_running(void)
{
	if (!rp_replaying || rp_cur->tid == 0)
		return; /* the host has no counter */
	if (rp_preempt_uc) {
		uint64_t *counter = (uint64_t *)&rp_preempt_uc->uc_mcontext.gregs[REG_R15];
		rp_replay_arm(rp_cur, counter);
		__sic_home = *counter;
	} else {
		rp_replay_arm(rp_cur, &__sic_home);
	}
}

/* Replaying, past the end of a log cut short: the program runs on unscheduled. */
static bool run_free(void)
{
	return !rp_replaying || (!peek() && log_end_status != RP_LOG_DONE);
}

static uint64_t hook_now(clockid_t clk)
{
	uint64_t v;
	if (!run_free()) {
		const struct rp_log_record *r = peek();
		if (!r || r->kind != RP_LOG_INPUT || r->input_kind != RP_INPUT_SCHED_CLOCK ||
		    r->tid != (uint32_t)rp_cur->tid || r->len != sizeof v)
			rp_diverge("record %zu: thread %d read the clock for a sleep, the recording did not",
				next_rec + 1, rp_cur->tid);
		memcpy(&v, r->data, sizeof v);
		next_rec++;
		rearm_running();
		return v;
	}
	v = clock_ns(clk);
	if (writer) {
		rp_log_input(writer, (uint32_t)rp_cur->tid, RP_INPUT_SCHED_CLOCK, &v, sizeof v);
		rp_log_maybe_flush(writer, mono_ns());
	}
	return v;
}

static bool hook_timeout_expired(struct sched_thread *t, uint64_t deadline_ns, clockid_t clk)
{
	uint64_t pos = questions++;
	if (!run_free()) {
		const struct rp_log_record *r = peek();
		if (r && r->kind == RP_LOG_TIMEOUT && r->pos == pos) {
			if (r->tid != (uint32_t)t->id)
				rp_diverge("record %zu: thread %u's deadline expired, here thread %d's is asked",
					next_rec + 1, r->tid, t->id);
			next_rec++;
			rearm_running();
			return true;
		}
		return false;
	}
	bool yes = clock_ns(clk) >= deadline_ns;
	if (yes && writer) {
		rp_log_timeout(writer, (uint32_t)t->id, pos);
		rp_log_maybe_flush(writer, mono_ns());
	}
	return yes;
}

static void hook_idle(uint64_t deadline_ns, clockid_t clk)
{
	rp_idle_hang_check();
	if (!run_free())
		return; /* the log says when the deadline passed */
	struct timespec ts = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
	/* The system call itself: clock_nanosleep is the pthread layer's, for threads. */
	while (rp_raw_syscall(SYS_clock_nanosleep, clk, TIMER_ABSTIME, (long)&ts, 0, 0, 0) == -EINTR)
		rp_idle_hang_check();
}

/* ---- recorded inputs: what a call returned to the program ------------------------------ */

/* Recorded inputs of constructors, before the session (main.c parses the flags in a
 * priority-102 constructor; the program's run later). Recording, they are kept here
 * (tid, kind, len, bytes) and logged first; replaying, the first one reads the log. */
#define EARLY_MAX 65536u
static uint8_t early[EARLY_MAX];
static size_t early_len;
static void load_log(void);

static bool before_session(enum rp_mode mode)
{
	return !session_started && rp_opts.log_path && rp_opts.mode == mode;
}

static void keep_early(uint32_t tid, uint8_t kind, const void *buf, size_t len)
{
	uint32_t n = (uint32_t)len;
	if (len > EARLY_MAX || early_len + 9 + len > EARLY_MAX) {
		fprintf(stderr, "libreplay: more than %u bytes of recorded inputs before main "
				"(in constructors): not supported\n", EARLY_MAX);
		exit(RP_EXIT_USAGE);
	}
	memcpy(early + early_len, &tid, 4);
	early[early_len + 4] = kind;
	memcpy(early + early_len + 5, &n, 4);
	memcpy(early + early_len + 9, buf, len);
	early_len += 9 + len;
}

static void log_early(void)
{
	for (size_t at = 0; at < early_len;) {
		uint32_t tid, n;
		memcpy(&tid, early + at, 4);
		memcpy(&n, early + at + 5, 4);
		rp_log_input(writer, tid, early[at + 4], early + at + 9, n);
		at += 9 + n;
	}
	early_len = 0;
}

/* For divergence messages: which call an INPUT kind records (replay.h). */
static const char *input_name(uint8_t kind)
{
	static const char *const names[] = {
		"?", "the clock (for a sleep)", "clock_gettime", "gettimeofday", "time", "times",
		"clock", "getrusage", "timespec_get", "getrandom, arc4random_buf or a random device",
		"(bytes)", "arc4random", "getpid, getppid or gettid", "sysconf", "sched_getaffinity",
		"uname", "(a signal from outside)", "(a priority)",
		"clock_gettime, gettimeofday or time"};
	if (kind < sizeof names / sizeof names[0])
		return names[kind];
	return kind >= 20 && kind <= 29 ? "a blocking system call" : "a recorded call";
}

bool rp_input_replay(uint8_t kind, void *buf, size_t len)
{
	if (dying)
		return false;
	bool early_replay = before_session(RP_MODE_REPLAY);
	if (early_replay && !recs)
		load_log();
	if (!early_replay && run_free())
		return false;
	const struct rp_log_record *r = peek();
	if (!r || r->kind != RP_LOG_INPUT || r->input_kind != kind || r->len != len ||
	    r->tid != (uint32_t)rp_cur->tid)
		rp_diverge("record %zu: thread %d called %s, where the recording %s%s", next_rec + 1,
			rp_cur->tid, input_name(kind), !r ? "had ended" :
			r->kind != RP_LOG_INPUT ? "did something else" :
			r->tid != (uint32_t)rp_cur->tid ? "had another thread call " : "called ",
			r && r->kind == RP_LOG_INPUT ? input_name(r->input_kind) : "");
	memcpy(buf, r->data, len);
	next_rec++;
	rearm_running();
	return true;
}

void rp_input_record(uint8_t kind, const void *buf, size_t len)
{
	if (dying)
		return;
	if (writer && !rp_replaying)
		rp_log_input(writer, (uint32_t)rp_cur->tid, kind, buf, len);
	else if (before_session(RP_MODE_RECORD))
		keep_early((uint32_t)rp_cur->tid, kind, buf, len);
}

bool rp_input_replay_if(uint8_t kind, const void *buf, size_t len)
{
	if (run_free())
		return false;
	const struct rp_log_record *r = peek();
	if (!r || r->kind != RP_LOG_INPUT || r->input_kind != kind ||
	    r->tid != (uint32_t)rp_cur->tid || r->len != len || memcmp(r->data, buf, len))
		return false;
	next_rec++;
	return true;
}

bool rp_input_replay_keyed(uint8_t kind, const void *key, size_t keylen, void *buf, size_t len)
{
	if (run_free())
		return false;
	const struct rp_log_record *r = peek();
	if (!r || r->kind != RP_LOG_INPUT || r->input_kind != kind ||
	    r->tid != (uint32_t)rp_cur->tid || r->len != keylen + len || memcmp(r->data, key, keylen))
		return false;
	memcpy(buf, r->data + keylen, len);
	next_rec++;
	rearm_running();
	return true;
}

bool rp_inputs_logged(void)
{
	return writer || (rp_replaying && !run_free());
}

bool rp_replay_decides(void)
{
	return !run_free();
}

bool rp_sched_question(struct sched_thread *t, uint8_t kind, bool (*ask)(const void *),
		       const void *obj)
{
	uint64_t pos = questions++;
	if (!run_free()) {
		const struct rp_log_record *r = peek();
		uint64_t p;
		if (!r || r->kind != RP_LOG_INPUT || r->input_kind != kind || r->len != sizeof p)
			return false;
		memcpy(&p, r->data, sizeof p);
		if (p != pos)
			return false;
		if (r->tid != (uint32_t)t->id)
			rp_diverge("record %zu: thread %u's event happened, here thread %d's is asked",
				next_rec + 1, r->tid, t->id);
		next_rec++;
		return true;
	}
	bool yes = ask(obj);
	if (yes && writer) {
		rp_log_input(writer, (uint32_t)t->id, kind, &pos, sizeof pos);
		rp_log_maybe_flush(writer, mono_ns());
	}
	return yes;
}

void rp_replay_idle_check(uint8_t kind)
{
	rp_idle_hang_check();
	const struct rp_log_record *r = run_free() ? NULL : peek();
	if (r && r->kind != RP_LOG_TIMEOUT && !(r->kind == RP_LOG_INPUT && r->input_kind == kind))
		rp_diverge("record %zu: every thread waits, but the recording went on (next: thread %u)",
			next_rec + 1, r->tid);
}

/* Replay: a thread that exits with its next preemption still ahead of it, or every
 * thread blocked while the log goes on, has left the recorded path. */
void rp_replay_thread_exit(struct rp_thread *t)
{
	const struct rp_log_record *r = rp_replaying ? peek() : NULL;
	if (r && r->kind == RP_LOG_PREEMPT && r->tid == (uint32_t)t->tid)
		rp_diverge("record %zu: thread %d exited at count %llu before its preemption at count %llu",
			next_rec + 1, t->tid, (unsigned long long)(t->offset - __sic_home),
			(unsigned long long)r->count);
}

/* ---- deadlocks and hangs: how a run ends (outcome.c) ---------------------------------- */

static struct rp_log_final end_threads[RP_LOG_END_THREADS_MAX];
static void check_finals(size_t n);

#define RP_OUTCOME_THREADS 1024 /* threads whose state an END of a deadlock or hang holds */
static struct rp_log_wait outcome_waits[RP_OUTCOME_THREADS];
static int hang_timer_made;
static timer_t hang_timer;
static unsigned hang_tries;
static void stop_hang_timer(void);

static const char *outcome_name(int how)
{
	return how == RP_LOG_DEADLOCK ? "deadlock" : how == RP_LOG_HANG ? "hang" :
	       how == RP_LOG_EXITED ? "exit status" : "signal";
}

/* Replaying: the log must end here the same way, every thread in the same state. */
static void check_outcome(int how, const struct rp_log_wait *w, size_t nw, uint32_t stop_tid,
			  uint64_t stop_count, uint64_t stop_pc)
{
	const struct rp_log_record *r = peek();
	if (!r)
		return; /* a log cut short: already said */
	if (r->kind != RP_LOG_END || r->how != how)
		rp_diverge("record %zu: the program ended in a %s where the recording %s", next_rec + 1,
			outcome_name(how), r->kind != RP_LOG_END ? "went on" : outcome_name(r->how));
	const struct rp_log_outcome *o = &r->outcome;
	if (o->stop_tid != stop_tid || (stop_tid && (o->stop_count != stop_count || o->stop_pc != stop_pc)))
		rp_diverge("the %s stopped thread %u at count %llu, the recording thread %u at count %llu",
			outcome_name(how), stop_tid, (unsigned long long)stop_count, o->stop_tid,
			(unsigned long long)o->stop_count);
	if (!rp_outcome_same(w, nw, o->waits, o->nwaits))
		rp_diverge("the %s left the threads in other states than the recording's", outcome_name(how));
}

/* The run ends as a deadlock or a hang (how): the log gets END with every thread's
 * state (the replay checks its own against it), the report is printed, a debugger
 * stops in rp_debug_outcome, and the process exits with the outcome's status. uc: the
 * signal context the running thread stopped at (count, pc) (a hang), or NULL. */
static _Noreturn void outcome(int how, ucontext_t *uc, uint64_t count, uintptr_t pc)
{
	dying = 1;
	stop_timer();
	stop_hang_timer();
	bp_disarm();
	rp_trace_end(how == RP_LOG_DEADLOCK ? "deadlock" : "hang", uc);
	struct rp_log_outcome o = {0};
	o.nwaits = (uint32_t)rp_outcome_graph(outcome_waits, RP_OUTCOME_THREADS);
	o.waits = outcome_waits;
	if (uc) {
		o.stop_tid = (uint32_t)rp_cur->tid;
		o.stop_count = count;
		o.stop_pc = pc - exe_base;
	}
	int status = how == RP_LOG_DEADLOCK ? RP_EXIT_DEADLOCK : RP_EXIT_HANG;
	size_t n = rp_thread_finals(end_threads, RP_LOG_END_THREADS_MAX, uc);
	if (rp_replaying) {
		check_outcome(how, outcome_waits, o.nwaits, o.stop_tid, o.stop_count, o.stop_pc);
		check_finals(n);
	} else if (writer) {
		log_timestamp(mono_ns());
		if (rp_log_end_outcome(writer, how, status, end_threads, n, &o) != 0)
			rp_log_flush_from_signal(writer);
	}
	rp_outcome_report(how, "the run went on past --timeout", sched_current(), uc);
	fflush(stdout);
	rp_debug_outcome(how);
	_exit(status);
}

static void hook_deadlock(void)
{
	const struct rp_log_record *r = rp_replaying ? peek() : NULL;
	if (r && !(r->kind == RP_LOG_END && r->how == RP_LOG_DEADLOCK))
		rp_diverge("record %zu: every thread is blocked, but the recording went on (next: thread %u)",
			next_rec + 1, r->tid);
	outcome(RP_LOG_DEADLOCK, NULL, 0, 0);
}

/* Every thread waits for time or a descriptor: a hang due (or, replaying, a hang the
 * log ends with while idle) ends the run here. */
void rp_idle_hang_check(void)
{
	const struct rp_log_record *r = rp_replaying && !run_free() ? peek() : NULL;
	if ((!rp_replaying && hang_due) ||
	    (r && r->kind == RP_LOG_END && r->how == RP_LOG_HANG && !r->outcome.stop_tid))
		outcome(RP_LOG_HANG, NULL, 0, 0);
}

/* The counter of the running thread reached zero with a hang due: stop at the
 * instruction after this counting point, through the breakpoint (as the replay will:
 * the report then starts from the same signal context). */
uint64_t rp_hang_overflow(uintptr_t stub_ret)
{
	struct rp_thread *t = rp_cur;
	uint64_t now = t->offset; /* the counter is 0 */
	uintptr_t pc = stub_resume_pc(stub_ret);
	soon_pc_cancel(t);
	if (pc && rp_sic_pc_preemptible(pc) && bp_fd >= 0 && t->tid != 0 && !sched_busy()) {
		bp_arm(pc);
		hang_pc = pc;
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
	if (dying)
		return;
	hang_due = 1;
	struct rp_thread *t = rp_cur;
	uintptr_t pc = pc_of(uc);
	uint64_t r15 = (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	if (t->tid != 0 && !sched_busy() && rp_sic_pc_preemptible(pc))
		outcome(RP_LOG_HANG, uc, t->offset - r15, pc);
	if (t->tid != 0 && !sched_busy() && !t->tick_depth && !rp_sic_pc_instrumented(pc)) {
		bool in_exe = pc >= (uintptr_t)__executable_start && pc < (uintptr_t)etext;
		if ((!in_exe || r15 == RP_SIC_TOKEN) && __sic_home > 1) {
			t->offset -= __sic_home - 1; /* overflow at its next counting point */
			__sic_home = 1;
		}
	}
	/* Not stopped yet: look again in 10 ms; after 2 s (a system call that does not
	 * return, say), end without a position. */
	if (++hang_tries > 200)
		outcome(RP_LOG_HANG, NULL, 0, 0);
	struct itimerspec again = {{0, 0}, {0, 10000000}};
	timer_settime(hang_timer, 0, &again, NULL);
	errno = saved;
}

static void start_hang_timer(uint64_t ns)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = RP_HANG_SIGNAL;
	ev._sigev_un._tid = (pid_t)rp_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
	install(RP_HANG_SIGNAL, on_hang, 0);
	if (timer_create(CLOCK_MONOTONIC, &ev, &hang_timer) != 0)
		rp_fatal("--timeout: cannot create a timer: %s", strerror(errno));
	hang_timer_made = 1;
	struct itimerspec it = {{0, 0}, {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)}};
	timer_settime(hang_timer, 0, &it, NULL);
	if (bp_fd < 0)
		bp_fd = try_breakpoint(); /* stops at a counting point go through it */
	if (bp_fd >= 0)
		install(RP_BP_SIGNAL, on_trap, 0);
}

static void stop_hang_timer(void)
{
	if (!hang_timer_made)
		return;
	struct itimerspec off = {{0, 0}, {0, 0}};
	timer_settime(hang_timer, 0, &off, NULL);
}

/* ---- the end ---------------------------------------------------------------------------- */

static struct rp_log_final end_threads[RP_LOG_END_THREADS_MAX];

/* Replaying: the n final counts (end_threads) against the END record's. */
static void check_finals(size_t n)
{
	const struct rp_log_record *r = peek();
	if (!r)
		return;
	for (uint32_t k = 0; k < r->nthreads; k++) {
		size_t j = 0;
		while (j < n && end_threads[j].tid != r->threads[k].tid)
			j++;
		if (j == n || end_threads[j].count != r->threads[k].count)
			rp_diverge("thread %u ended at count %llu, in the recording at %llu", r->threads[k].tid,
				j == n ? 0ull : (unsigned long long)end_threads[j].count,
				(unsigned long long)r->threads[k].count);
	}
	next_rec++;
}

static void check_end(int how, int value, const ucontext_t *uc)
{
	const struct rp_log_record *r = peek();
	if (!r)
		return; /* a log cut short: already said */
	if (r->kind != RP_LOG_END)
		rp_diverge("record %zu: the program ended (%s %d) with records left",
			next_rec + 1, outcome_name(how), value);
	if (r->how != how || r->value != value)
		rp_diverge("the program ended with %s %d, the recording with %s %d", outcome_name(how),
			value, outcome_name(r->how), r->value);
	check_finals(rp_thread_finals(end_threads, RP_LOG_END_THREADS_MAX, uc));
}

static void finish(int how, int value, const ucontext_t *uc)
{
	if (rp_replaying) {
		check_end(how, value, uc);
		return;
	}
	if (!writer)
		return;
	log_timestamp(mono_ns());
	size_t n = rp_thread_finals(end_threads, RP_LOG_END_THREADS_MAX, uc);
	if (rp_log_end(writer, how, value, end_threads, n) != 0 || uc)
		rp_log_flush_from_signal(writer);
	if (getenv("LIBREPLAY_STATS"))
		fprintf(stderr, "libreplay: %llu preemptions taken, %llu ticks deferred\n",
			(unsigned long long)taken_ticks, (unsigned long long)deferred_ticks);
}

static void on_exit_handler(int status, void *arg)
{
	stop_timer();
	finish(RP_LOG_EXITED, status & 0xff, NULL);
	if (writer)
		rp_log_close(writer);
	writer = NULL;
}

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
#define RP_CRASH_STACK_SIZE (256u << 10) /* the crash report's libunwind needs some */

/* Die of sig, now that SA_RESETHAND has given it its default action back: the exit
 * status is the same signal. Not raise(), which is the pthread layer's (pt_signal.c);
 * gdb's extension knows this function by name. */
__attribute__((noinline)) void rp_crash_reraise(int sig)
{
	long pid = rp_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
	long tid = rp_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
	rp_raw_syscall(SYS_tgkill, pid, tid, sig, 0, 0, 0);
}

static void on_fatal(int sig, siginfo_t *si, void *ucv)
{
	dying = 1;
	stop_timer();
	finish(RP_LOG_SIGNALED, sig, ucv);
	rp_crash(sig, si, ucv);
	rp_crash_reraise(sig);
}

/* ---- starting a session ----------------------------------------------------------------- */

static void install(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | flags;
	sigemptyset(&sa.sa_mask);
	rp_sigaction(sig, &sa, NULL);
}

static void start_recording(int argc, char **argv)
{
	struct rp_log_header h;
	memset(&h, 0, sizeof h);
	h.flags = (rp_opts.chaos ? RP_LOG_F_CHAOS : 0) | (rp_opts.hunt ? RP_LOG_F_HUNT : 0);
	h.quantum_ns = rp_opts.quantum_ns;
	h.seed = rp_opts.seed;
	h.build_id_len = sizeof h.build_id;
	if (rp_log_self_build_id(h.build_id, &h.build_id_len) != 0)
		h.build_id_len = 0;
	h.argc = argc;
	h.argv = (const char *const *)argv;
	char err[RP_LOG_ERRLEN];
	int fd = high_fd(open(rp_opts.log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
	if (fd < 0) {
		fprintf(stderr, "libreplay: %s: %s\n", rp_opts.log_path, strerror(errno));
		exit(RP_EXIT_USAGE);
	}
	if (rp_log_create_fd(fd, rp_opts.log_path, &h, &writer, err, sizeof err) != 0) {
		fprintf(stderr, "libreplay: %s\n", err);
		exit(RP_EXIT_USAGE);
	}
	/* A block at least every second (or 4 KiB): a SIGKILL loses at most the last
	 * second of records, and block headers stay a small part of the log. */
	rp_log_set_flush_interval(writer, RP_LOG_FLUSH_INTERVAL_NS);
	log_early();
	log_timestamp(mono_ns());
}

/* Recording or not (--no-record), this process decides: time slices, or counts. */
static void start_hang_timer(uint64_t ns);

static void start_scheduling(void)
{
	scheduling = true;
	if (rp_opts.timeout_ns)
		start_hang_timer(rp_opts.timeout_ns);
	if (rp_opts.chaos || rp_opts.hunt) {
		struct rp_hunt_params p = {rp_opts.seed, rp_opts.hunt_depth, rp_opts.chaos};
		rp_hunt_init(&p);
		rp_counting = true;
		rp_sic_memops_load();
		rp_sic_quick.seeking = true;
		pct = rp_opts.hunt;
		rp_sync_watch = pct;
		/* stops at memory accesses, if perf allows a breakpoint */
		if (bp_fd < 0)
			bp_fd = try_breakpoint();
		if (bp_fd >= 0)
			install(RP_BP_SIGNAL, on_trap, 0);
		return;
	}
	install(SIGPROF, on_tick, 0);
	start_timer(rp_opts.quantum_ns);
}

/* A hardware execute breakpoint on this (only) kernel thread, disabled until armed,
 * that signals RP_BP_SIGNAL when hit; -1 if perf does not allow one. */
static int try_breakpoint(void)
{
	struct perf_event_attr a;
	bp_attr(&a, (uintptr_t)&try_breakpoint);
	a.disabled = 1;
	int fd = high_fd(perf_event_open(&a));
	if (fd >= 0 && route_signal(fd, RP_BP_SIGNAL) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The replay's: it cannot do without. */
static int open_breakpoint(void)
{
	struct perf_event_attr a;
	bp_attr(&a, (uintptr_t)&open_breakpoint);
	a.disabled = 1;
	int fd = high_fd(perf_event_open(&a));
	if (fd < 0) {
		fprintf(stderr, "libreplay: replay needs a hardware breakpoint (perf_event_open: %s; "
				"see /proc/sys/kernel/perf_event_paranoid)\n", strerror(errno));
		exit(RP_EXIT_USAGE);
	}
	if (route_signal(fd, RP_BP_SIGNAL) != 0) {
		fprintf(stderr, "libreplay: cannot route the replay breakpoint's signal: %s\n",
			strerror(errno));
		exit(RP_EXIT_USAGE);
	}
	return fd;
}

/* Replay: open the log, check it is this program's and read every record (no reading
 * in handlers). Called by the first recorded input of a constructor, or at start. */
static struct rp_log_reader *log_reader;

static void load_log(void)
{
	struct rp_log_reader *r;
	char err[RP_LOG_ERRLEN];
	if (rp_log_open(rp_opts.log_path, &r, err, sizeof err) != 0) {
		fprintf(stderr, "libreplay: %s\n", err);
		exit(RP_EXIT_USAGE);
	}
	int b = rp_log_check_build_id(r, err, sizeof err);
	if (b < 0) {
		fprintf(stderr, "libreplay: %s\n", err);
		exit(RP_EXIT_USAGE);
	}
	size_t cap = 1024;
	recs = rp_malloc(cap * sizeof *recs);
	struct rp_log_record rec;
	enum rp_log_status st;
	while (recs && (st = rp_log_next(r, &rec)) == RP_LOG_OK) {
		if (nrecs == cap) {
			cap *= 2;
			recs = rp_realloc(recs, cap * sizeof *recs);
			if (!recs)
				break;
		}
		/* Copy what the reader lends until its next call. */
		if (rec.kind == RP_LOG_INPUT) {
			uint8_t *d = rp_malloc(rec.len ? rec.len : 1);
			if (d)
				memcpy(d, rec.data, rec.len);
			rec.data = d;
		} else if (rec.kind == RP_LOG_END) {
			struct rp_log_final *f = rp_malloc((rec.nthreads ? rec.nthreads : 1) * sizeof *f);
			if (f)
				memcpy(f, rec.threads, rec.nthreads * sizeof *f);
			rec.threads = f;
		}
		recs[nrecs++] = rec;
	}
	if (!recs)
		rp_fatal("out of memory reading %s", rp_opts.log_path);
	log_end_status = st;
	snprintf(log_end_msg, sizeof log_end_msg, "%s", st == RP_LOG_DONE ? "" : rp_log_error(r));
	if (st == RP_LOG_CORRUPT || st == RP_LOG_IO_ERROR) {
		fprintf(stderr, "libreplay: %s\n", log_end_msg);
		exit(RP_EXIT_USAGE);
	}
	/* A signal from outside reached a handler while recording (pt_sigaction.c): no
	 * record says where to deliver it, so the replay would diverge. */
	for (size_t k = 0; k < nrecs; k++)
		if (recs[k].kind == RP_LOG_INPUT && recs[k].input_kind == RP_INPUT_ASYNC_SIGNAL) {
			int32_t sig = 0;
			memcpy(&sig, recs[k].data, recs[k].len >= sizeof sig ? sizeof sig : 0);
			fprintf(stderr, "libreplay: %s: the recording received signal %d from outside "
					"the process; replaying such signals is not supported\n",
				rp_opts.log_path, (int)sig);
			exit(RP_EXIT_USAGE);
		}
	log_reader = r;
}

static void start_replaying(int *argc, char ***argv)
{
	if (!log_reader)
		load_log();
	struct rp_log_reader *r = log_reader;
	const struct rp_log_header *h = rp_log_header(r);
	/* The recorded arguments, unless the command line names the same ones. */
	if (*argc > 1) {
		bool same = *argc == h->argc;
		for (int i = 1; same && i < *argc; i++)
			same = strcmp((*argv)[i], h->argv[i]) == 0;
		if (!same) {
			fprintf(stderr, "libreplay: %s: recorded with other arguments (replay takes them "
					"from the log: give none)\n", rp_opts.log_path);
			exit(RP_EXIT_USAGE);
		}
	}
	char **av = rp_calloc((size_t)h->argc + 1, sizeof *av);
	for (int i = 0; av && i < h->argc; i++)
		av[i] = rp_strdup(h->argv[i]);
	if (!av)
		rp_fatal("out of memory");
	av[0] = (*argv)[0];
	*argc = h->argc;
	*argv = av;
	rp_log_close_reader(r);

	log_hunted = h->flags & RP_LOG_F_HUNT;
	bp_fd = open_breakpoint();
	install(RP_BP_SIGNAL, on_trap, 0);
	rp_replaying = true;
}

/* A child of fork() is not what the log describes: it runs on unrecorded and
 * unscheduled, and leaves the log and the breakpoint to the parent. */
static void child_after_fork(void)
{
	if (tick_fd >= 0)
		close(tick_fd);
	tick_fd = -1;
	struct itimerval off = {{0, 0}, {0, 0}};
	prof_timer(&off);
	struct sigaction ign = {.sa_handler = SIG_IGN};
	rp_sigaction(SIGPROF, &ign, NULL);
	writer = NULL; /* the parent's: never flushed or closed from here */
	if (bp_fd >= 0) {
		close(bp_fd);
		bp_fd = -1;
		bp_armed_pc = 0;
	}
	rp_replaying = false;
	nrecs = next_rec = 0;
	log_end_status = RP_LOG_DONE;
}

/* Called from main() before the program's main runs as green thread 1. */
void rp_session_start(int *argc, char ***argv, struct sched_hooks *h)
{
	dl_iterate_phdr(first_object, &exe_base);
	session_started = true;
	rp_threads_init(h);
	h->now_ns = hook_now;
	h->timeout_expired = hook_timeout_expired;
	h->idle = hook_idle;
	h->deadlock = hook_deadlock;
	h->event_ready = rp_io_event_ready;
	h->idle_events = rp_io_idle;
	if (rp_opts.mode == RP_MODE_OFF) {
		start_scheduling(); /* the same schedule, no log */
		return;
	}
	if (rp_opts.mode == RP_MODE_RECORD) {
		start_recording(*argc, *argv);
		start_scheduling();
	} else {
		start_replaying(argc, argv);
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
		install(fatal_signals[k], on_fatal, SA_RESETHAND | SA_NODEFER | onstack);
}
