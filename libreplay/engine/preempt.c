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
#include "engine/engine.h"

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

#include "engine/session.h"
#include "base/rp_alloc.h"

bool rp_replaying;
struct rp_options rp_opts = {.quantum_ns = RP_DEFAULT_QUANTUM_NS};

static struct rp_log_writer *writer;
static uintptr_t exe_base;
static uint64_t questions;     /* timeout questions asked so far: their position */
static uint64_t deferred_ticks, taken_ticks;
static uint64_t chaos_state;

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
 * clock_gettime of in_clock.c; async-signal-safe. */
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

/* Load t's counter (at *counter) for its next record: zero at the record's count, or
 * the breakpoint armed now if it is already there. */
void rp_replay_arm(struct rp_thread *t, uint64_t *counter)
{
	uint64_t now = t->offset - *counter;
	const struct rp_log_record *r = peek();
	uint64_t left = RP_SIC_BASE;
	bp_disarm();
	if (r && r->kind == RP_LOG_PREEMPT && r->tid == (uint32_t)t->tid) {
		if (r->count < now)
			rp_diverge("record %zu: thread %u should have been preempted at count %llu "
				"(pc %#llx) but is at count %llu",
				next_rec + 1, r->tid, (unsigned long long)r->count,
				(unsigned long long)r->pc, (unsigned long long)now);
		if (r->count == now) {
			bp_arm(exe_base + r->pc);
			left = 1; /* the next counting point first is a divergence */
		} else {
			left = r->count - now;
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
	sig_resumed((uint64_t *)&uc->uc_mcontext.gregs[REG_R15]);
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

static uint64_t next_quantum_ns(void)
{
	if (!rp_opts.chaos)
		return rp_opts.quantum_ns;
	/* xorshift64*, log-uniform between 50 us and 20 ms */
	chaos_state ^= chaos_state >> 12;
	chaos_state ^= chaos_state << 25;
	chaos_state ^= chaos_state >> 27;
	uint64_t r = chaos_state * 0x2545F4914F6CDD1Dull;
	uint64_t lo = 50000, span_bits = 9; /* 50 us << 0..8.6 */
	uint64_t q = lo << (r % span_bits);
	return q + (r >> 32) % q;
}

/* The time slice is CPU time. ITIMER_PROF only has the kernel tick's resolution
 * (1-4 ms), so it is the fallback: the task clock of perf_event_open is exact to
 * the microsecond. Both raise SIGPROF. */
static int tick_fd = -1;

/* The runtime's timer and handlers by system call (handlers: rp_sigaction): the
 * program's setitimer and sigaction (sig_action.c) refuse SIGPROF. */
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
	rp_log_input(writer, (uint32_t)rp_cur->tid, RP_INPUT_TIMESTAMP, &now, sizeof now);
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

static void preempt_at_next_count(struct rp_thread *t, uintptr_t pc)
{
	if (t->preempt_soon || (pc >= (uintptr_t)__executable_start && pc < (uintptr_t)etext) ||
	    __sic_home <= 1)
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
	if (rp_opts.chaos || tick_fd < 0)
		arm_timer(next_quantum_ns());
	uintptr_t pc = pc_of(uc);
	struct rp_thread *t = rp_cur;
	if (!writer || t->tid == 0 || !rp_sic_pc_preemptible(pc) || !sched_preempt_useful()) {
		if (writer && t->tid != 0 && !t->tick_depth && !rp_sic_pc_instrumented(pc) &&
		    sched_preempt_useful())
			preempt_at_next_count(t, pc);
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
	taken_ticks++;
	rp_log_preempt(writer, (uint32_t)t->tid, count, pc - exe_base);
	uint64_t now = mono_ns();
	if (now - last_stamp_ns >= RP_STAMP_INTERVAL_NS)
		log_timestamp(now);
	rp_log_maybe_flush(writer, now);
	preempt_from_signal(uc, sig);
	t->tick_depth--;
	errno = saved;
}

/* Where a counting point's stub returns to: after `call __sic_overflow` comes
 * `leaq 128(%rsp), %rsp` and a jump back (sicpp/rewrite.c). 0 for another form (the
 * flag-preserving one swaps rcx back first: its resumption is not preemptible). */
static uintptr_t stub_resume_pc(uintptr_t ret)
{
	static const unsigned char leaq[] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};
	const unsigned char *p = (const unsigned char *)ret;
	if (memcmp(p, leaq, sizeof leaq) != 0)
		return 0;
	p += sizeof leaq;
	if (p[0] == 0xe9) {
		int32_t rel;
		memcpy(&rel, p + 1, sizeof rel);
		return (uintptr_t)(p + 5) + (intptr_t)rel;
	}
	if (p[0] == 0xeb)
		return (uintptr_t)(p + 2) + (intptr_t)(int8_t)p[1];
	return 0;
}

uint64_t rp_record_overflow(uintptr_t stub_ret)
{
	struct rp_thread *t = rp_cur;
	t->preempt_soon = false;
	uint64_t count = t->offset; /* the counter is 0 */
	uint64_t fresh = rp_sic_start_value();
	t->offset = count + fresh;
	uintptr_t pc = stub_resume_pc(stub_ret);
	if (!writer || !pc || !rp_sic_pc_preemptible(pc) || !sched_preempt_useful())
		return fresh;
	taken_ticks++;
	rp_log_preempt(writer, (uint32_t)t->tid, count, pc - exe_base);
	rp_log_maybe_flush(writer, mono_ns());
	/* Switched out from here, not from a signal: home holds its counter meanwhile. */
	__sic_home = fresh;
	t->tick_depth++;
	rp_preempt_at_count = true; /* the replay stops here by its trap: a preemption too */
	sched_preempt();
	rp_preempt_at_count = false; /* consumed by on_switch, or no switch happened */
	t->tick_depth--;
	/* It resumes before pc: a tick there before it moves must not preempt again. */
	t->resumed_from_signal = true;
	t->resume_count = count;
	t->resume_pc = pc;
	sig_resumed(&fresh);
	t->resume_count = t->offset - fresh; /* past a handler, if one ran */
	return fresh;
}

/* The replay breakpoint. */
static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int saved = errno;
	uintptr_t pc = pc_of(uc);
	struct rp_thread *t = rp_cur;
	uint64_t count = t->offset - (uint64_t)uc->uc_mcontext.gregs[REG_R15];
	const struct rp_log_record *r = peek();
	bp_disarm();
	if (!r || r->kind != RP_LOG_PREEMPT || r->tid != (uint32_t)t->tid || r->count != count ||
	    exe_base + r->pc != pc)
		rp_diverge("record %zu: thread %d reached pc %#lx at count %llu, expected %s",
			next_rec + 1, t->tid, (unsigned long)(pc - exe_base), (unsigned long long)count,
			r ? "another record" : "the end of the log");
	next_rec++;
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
	if (!run_free())
		return; /* the log says when the deadline passed */
	struct timespec ts = {(time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u)};
	/* The system call itself: clock_nanosleep is the pthread layer's, for threads. */
	while (rp_raw_syscall(SYS_clock_nanosleep, clk, TIMER_ABSTIME, (long)&ts, 0, 0, 0) == -EINTR)
		;
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
		"uname", "(a signal from outside)"};
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

static void hook_deadlock(void)
{
	const struct rp_log_record *r = rp_replaying ? peek() : NULL;
	if (r)
		rp_diverge("record %zu: every thread is blocked, but the recording went on (next: thread %u)",
			next_rec + 1, r->tid);
	sched_report_deadlock(stderr);
	exit(1);
}

/* ---- the end ---------------------------------------------------------------------------- */

static struct rp_log_final end_threads[RP_LOG_END_THREADS_MAX];

static void check_end(int how, int value, const ucontext_t *uc)
{
	const struct rp_log_record *r = peek();
	if (!r)
		return; /* a log cut short: already said */
	if (r->kind != RP_LOG_END)
		rp_diverge("record %zu: the program ended (%s %d) with records left",
			next_rec + 1, how == RP_LOG_EXITED ? "exit status" : "signal", value);
	if (r->how != how || r->value != value)
		rp_diverge("the program ended with %s %d, the recording with %s %d",
			how == RP_LOG_EXITED ? "exit status" : "signal", value,
			r->how == RP_LOG_EXITED ? "exit status" : "signal", r->value);
	size_t n = rp_thread_finals(end_threads, RP_LOG_END_THREADS_MAX, uc);
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
	h.flags = rp_opts.chaos ? RP_LOG_F_CHAOS : 0;
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
	chaos_state = rp_opts.seed ? rp_opts.seed : 0x9E3779B97F4A7C15ull;
	log_timestamp(mono_ns());
	install(SIGPROF, on_tick, 0);
	start_timer(next_quantum_ns());
}

/* A hardware execute breakpoint on this (only) kernel thread, disabled until armed,
 * that signals RP_BP_SIGNAL when hit. */
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
	/* A signal from outside reached a handler while recording (sig_action.c): no
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
	h->event_ready = io_event_ready;
	h->idle_events = io_idle;
	if (rp_opts.mode == RP_MODE_OFF)
		return;
	if (rp_opts.mode == RP_MODE_RECORD)
		start_recording(*argc, *argv);
	else
		start_replaying(argc, argv);
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
